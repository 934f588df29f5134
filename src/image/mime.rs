//! Mime type inference from the first characters of a base64 payload, as the
//! reference's `inferMimeTypeFromBase64` does it. Only the three prefixes the
//! reference knows are recognised; anything else keeps the declared type.

/// `/9j/` → `image/jpeg`, `iVBOR` → `image/png`, `R0lGOD` → `image/gif`, else `None`.
pub fn sniff_mime(canonical_b64: &str) -> Option<&'static str> {
    if canonical_b64.starts_with("/9j/") {
        Some("image/jpeg")
    } else if canonical_b64.starts_with("iVBOR") {
        Some("image/png")
    } else if canonical_b64.starts_with("R0lGOD") {
        Some("image/gif")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_prefixes() {
        assert_eq!(sniff_mime("/9j/4AAQSkZJRg=="), Some("image/jpeg"));
        assert_eq!(sniff_mime("iVBORw0KGgo="), Some("image/png"));
        assert_eq!(sniff_mime("R0lGODlhAQABAAAAACw="), Some("image/gif"));
    }

    #[test]
    fn everything_else_is_unknown() {
        // WebP and BMP are deliberately not sniffed: the reference does not.
        assert_eq!(sniff_mime("UklGRiQAAABXRUJQ"), None);
        assert_eq!(sniff_mime("Qk0="), None);
        assert_eq!(sniff_mime("/9j"), None);
        assert_eq!(sniff_mime(""), None);
    }
}
