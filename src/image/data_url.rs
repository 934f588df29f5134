//! A `data:<type>;base64,` prefix in front of an image payload.
//!
//! Image blocks carry bare base64, but tools and UIs hand over data URLs as
//! often as not. The reference rejects them as invalid base64 and the image
//! is lost; here the prefix is removed and the payload judged on its own, and
//! the URL's media type is used when the bytes do not name their format. Only
//! the base64 form is understood; a percent-encoded data URL is still invalid.

use super::base64::is_js_whitespace;

/// The payload after a base64 data-URL prefix (leading whitespace allowed),
/// and the URL's media type when it is an image type this module names; the
/// input itself and `None` when there is no such prefix.
pub(crate) fn strip(data: &str) -> (&str, Option<&'static str>, bool) {
    let trimmed = data.trim_start_matches(is_js_whitespace);
    let Some(scheme) = trimmed.get(..5) else {
        return (data, None, false);
    };
    if !scheme.eq_ignore_ascii_case("data:") {
        return (data, None, false);
    }
    let Some(comma) = trimmed.find(',') else {
        return (data, None, false);
    };
    let header = &trimmed[5..comma];
    let Some(media) = header
        .len()
        .checked_sub(7)
        .filter(|&at| header.is_char_boundary(at) && header[at..].eq_ignore_ascii_case(";base64"))
        .map(|at| &header[..at])
    else {
        return (data, None, false);
    };
    let media = media.split(';').next().unwrap_or("").trim();
    (&trimmed[comma + 1..], known_image_type(media), true)
}

/// The image media types a data URL may name, as static strings.
fn known_image_type(media: &str) -> Option<&'static str> {
    [
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "image/avif",
        "image/heic",
        "image/tiff",
        "image/svg+xml",
    ]
    .into_iter()
    .find(|t| t.eq_ignore_ascii_case(media))
    .or_else(|| {
        media
            .eq_ignore_ascii_case("image/jpg")
            .then_some("image/jpeg")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_data_urls_are_stripped() {
        assert_eq!(
            strip("data:image/png;base64,iVBOR"),
            ("iVBOR", Some("image/png"), true)
        );
        assert_eq!(
            strip("  DATA:Image/WebP;BASE64,UklG"),
            ("UklG", Some("image/webp"), true)
        );
        assert_eq!(
            strip("data:image/jpg;name=x.jpg;base64,/9j/"),
            ("/9j/", Some("image/jpeg"), true)
        );
        assert_eq!(strip("data:;base64,QUJD"), ("QUJD", None, true));
        assert_eq!(
            strip("data:application/octet-stream;base64,QUJD"),
            ("QUJD", None, true)
        );
    }

    #[test]
    fn everything_else_is_left_alone() {
        for s in [
            "iVBORw0KGgo=",
            "data:image/png,%89PNG",
            "data:image/png;base64",
            "dat",
            "",
            "data:",
        ] {
            assert_eq!(strip(s), (s, None, false), "{s:?}");
        }
        // A multi-byte character right before the comma does not split a char.
        assert!(!strip("data:éé,QUJD").2);
    }
}
