//! What differs between the OpenClaw releases in the per-image step, as data.
//!
//! 2026.9.6 replaced sharp with its own image library (Rastermill) and tightened the step:
//! - a payload whose decoded size, estimated from its length, passes 10 MiB is refused before
//!   anything reads it (`image exceeds input size limit (10.00MB)`);
//! - unpadded base64 is accepted and re-padded, but the unused bits of the last character must be
//!   zero, and only characters up to U+0020 count as whitespace inside the payload;
//! - an image over 25,000,000 pixels is neither kept nor decoded (Rastermill's input limit);
//! - an image whose dimensions cannot be read is refused with Rastermill's error.
//!
//! Not reproduced: Rastermill's own bytes when it re-encodes, its error for an image whose header
//! reads but whose pixels do not (sharp's is written), and its not-reducible note (`below 5.00MB`).

use crate::openclaw::OpenClawVersion;

/// The per-image rules of one release.
pub(crate) struct Release {
    /// Largest estimated decoded input, checked before anything else.
    pub max_input_bytes: Option<usize>,
    /// Unpadded base64 accepted (and re-padded), pad bits checked.
    pub unpadded_base64: bool,
    /// Most pixels an image may have: more is neither kept nor decoded (Rastermill's input limit,
    /// 25,000,000 in 2026.9.6; the error names that number).
    pub max_kept_pixels: Option<u64>,
    /// The error text (after `omitted image payload: `) for an image whose dimensions cannot be
    /// read, when the release has its own.
    pub unreadable: Option<&'static str>,
}

impl Release {
    /// The error for an image of `w`×`h` over the release's pixel limit, which it refuses to
    /// decode (Rastermill's input limit; sharp's, far larger, is checked by the decoder).
    pub(crate) fn over_pixel_limit(&self, w: u32, h: u32) -> Option<String> {
        let pixels = u64::from(w) * u64::from(h);
        let cap = self.max_kept_pixels?;
        (pixels > cap).then(|| {
            format!(
                "omitted image payload: RastermillError: Image dimensions exceed the 25,000,000 pixel input limit: {w}x{h} ({pixels} pixels)"
            )
        })
    }
}

/// 2026.9.6's `MAX_IMAGE_INPUT_BYTES`.
pub(crate) const MAX_INPUT_BYTES: usize = 10 * 1024 * 1024;

impl Release {
    pub(crate) fn of(version: OpenClawVersion) -> Release {
        match version {
            OpenClawVersion::V2026_3_23 => Release {
                max_input_bytes: None,
                unpadded_base64: false,
                max_kept_pixels: None,
                unreadable: None,
            },
            OpenClawVersion::V2026_9_6 => Release {
                max_input_bytes: Some(MAX_INPUT_BYTES),
                unpadded_base64: true,
                max_kept_pixels: Some(25_000_000),
                unreadable: Some(
                    "RastermillError: Unable to determine image dimensions; refusing to process",
                ),
            },
        }
    }
}

/// 2026.9.6's `estimateBase64DecodedBytes`: the decoded size of a payload from its length, not
/// counting characters up to U+0020, less its padding.
pub(crate) fn estimated_decoded_len(data: &str) -> usize {
    let b = data.as_bytes();
    // A UTF-16 length, as JavaScript counts it: every character outside the BMP counts two.
    let units: usize = data.chars().map(char::len_utf16).sum();
    let space = b.iter().filter(|&&c| c <= b' ').count();
    let effective = units - space;
    if effective == 0 {
        return 0;
    }
    let mut tail = b.iter().rev().filter(|&&c| c > b' ');
    let padding = match (tail.next(), tail.next()) {
        (Some(b'='), Some(b'=')) => 2,
        (Some(b'='), _) => 1,
        _ => 0,
    };
    (effective * 3 / 4).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{canonical_payload, sanitize_image, ImageDecision, ImageLimits};

    const V323: OpenClawVersion = OpenClawVersion::V2026_3_23;
    const V96: OpenClawVersion = OpenClawVersion::V2026_9_6;

    fn reason(data: &str, release: OpenClawVersion) -> String {
        let limits = ImageLimits {
            release,
            ..ImageLimits::default()
        };
        match sanitize_image(data, limits) {
            ImageDecision::Omitted { reason } => reason,
            other => format!("{other:?}"),
        }
    }

    /// A 1×1 PNG, its padding cut off.
    const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg";
    const RASTERMILL: &str = "omitted image payload: RastermillError: Unable to determine image dimensions; refusing to process";
    const INVALID: &str = "omitted image payload: invalid base64";

    #[test]
    fn unpadded_base64_is_repadded_in_2026_9_6_only() {
        let kept = ImageDecision::Keep {
            canonical_changed: true,
            mime: Some("image/png"),
        };
        assert_eq!(reason(PIXEL, V96), format!("{kept:?}"));
        assert_eq!(
            canonical_payload(PIXEL, V96),
            Some(format!("{PIXEL}==").into())
        );
        assert_eq!(reason(PIXEL, V323), INVALID);
        // Unused bits that are not zero, a length of 4k+1, padding in the middle: invalid in both.
        for bad in ["iVBORw0KGgp", "iVBORw0KGgoAA", "iVBO=Rw0KGgo"] {
            assert_eq!(reason(bad, V96), INVALID, "{bad}");
            assert_eq!(reason(bad, V323), INVALID, "{bad}");
        }
        // Padded, with unused bits set: 2026.3.23 checked only the alphabet and read it.
        assert_eq!(reason("iVBORw0KGgp=", V96), INVALID);
        assert_ne!(reason("iVBORw0KGgp=", V323), INVALID);
    }

    #[test]
    fn an_image_that_cannot_be_measured_gets_rastermills_error_in_2026_9_6() {
        // A PNG signature and nothing else, padded and not; a BMP stub.
        for data in ["iVBORw0KGgo=", "iVBORw0KGg", "Qk0="] {
            assert_eq!(reason(data, V96), RASTERMILL, "{data}");
        }
        assert_eq!(
            reason("Qk0=", V323),
            "omitted image payload: Error: Input buffer contains unsupported image format"
        );
        assert_eq!(reason("iVBORw0KGg", V323), INVALID);
    }

    #[test]
    fn an_image_over_25_megapixels_is_refused_in_2026_9_6() {
        // 6000×5000, measured from the header (the oracle's answer for this size).
        let big = crate::image::test_support::png_with_ihdr(6000, 5000);
        let data = ::base64::Engine::encode(&::base64::engine::general_purpose::STANDARD, &big);
        assert_eq!(
            reason(&data, V96),
            "omitted image payload: RastermillError: Image dimensions exceed the 25,000,000 pixel input limit: 6000x5000 (30000000 pixels)"
        );
        assert!(!reason(&data, V323).contains("Rastermill"));
    }

    #[test]
    fn a_payload_over_10_mib_is_refused_unread_in_2026_9_6() {
        // Estimated 10 MiB + 1 byte, with a character no base64 has: 2026.9.6 never reads it,
        // 2026.3.23 does and finds it invalid; one byte less, 2026.9.6 reads it too.
        let over = format!("{}!", "A".repeat(13_981_014));
        assert_eq!(
            reason(&over, V96),
            "omitted image payload: image exceeds input size limit (10.00MB)"
        );
        assert_eq!(reason(&over, V323), INVALID);
        let under = format!("{}!", "A".repeat(13_981_013));
        assert_eq!(estimated_decoded_len(&under), MAX_INPUT_BYTES);
        assert_eq!(reason(&under, V96), INVALID);
    }

    #[test]
    fn the_estimate_ignores_spaces_and_padding() {
        assert_eq!(estimated_decoded_len("iVBORw0KGgo="), 8);
        assert_eq!(estimated_decoded_len("iVBO Rw0K\nGgo = "), 8);
        assert_eq!(estimated_decoded_len("iVBORw0KGg"), 7);
        assert_eq!(estimated_decoded_len("  "), 0);
    }
}
