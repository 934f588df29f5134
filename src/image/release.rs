//! What differs between the OpenClaw releases in the per-image step, as data.
//!
//! 2026.9.6 replaced sharp with its own image library (Rastermill) and tightened the step:
//! - a payload whose decoded size, estimated from its length, passes 10 MiB is refused before
//!   anything reads it (`image exceeds input size limit (10.00MB)`);
//! - unpadded base64 is accepted and re-padded, but the unused bits of the last character must be
//!   zero, and only characters up to U+0020 count as whitespace inside the payload;
//! - an image over 25,000,000 pixels is neither kept nor decoded (Rastermill's input limit);
//! - an image whose dimensions cannot be read is refused with Rastermill's error, and one whose
//!   header reads but whose pixels do not decode with its other one;
//! - sizes in its notes are written by `formatBytesShort` (`below 5.00MB (got 7.12MB)`).
//!
//! 2026.3.23 wrote sharp's errors: a JPEG or PNG header sharp's metadata refuses gets its
//! corrupt-header text, a JPEG libjpeg will not start decoding its text, a PNG cut in its pixels
//! is decoded as far as libspng reads (turned by its EXIF orientation); the other decoder errors
//! are this package's decoder's own. Its JPEG writer flattens transparency onto black;
//! 2026.9.6's (Photon's) drops the alpha channel, each pixel keeping its stored colour.
//!
//! Not reproduced: Rastermill's own bytes when it re-encodes (a different JPEG encoder: the tests
//! compare what a caller relies on, the size and format and the byte limit, never the bytes).

use super::resize::Alpha;
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
    /// The error text for an image whose dimensions were read but whose pixels do not decode,
    /// when the release has its own.
    pub undecodable: Option<&'static str>,
    /// Whether sharp reads the image: a JPEG or PNG header its metadata refuses is omitted with
    /// its text whatever the size ([`super::sharp_header`]), a JPEG that libjpeg refuses to start
    /// decoding gets libjpeg's text, and a PNG cut in its pixel data is decoded as far as libspng
    /// reads it ([`super::png_partial`]).
    pub sharp: bool,
    /// What becomes of transparency before the JPEG encoder: sharp's JPEG writer (libvips)
    /// flattens onto black, so 2026.3.23's re-encoded screenshot shows its transparent parts,
    /// and the rows of a cut PNG it could not read, black; Photon's (2026.9.6, through
    /// Rastermill) drops the alpha channel, so a clear pixel shows the colour stored under it
    /// and a half-transparent one its full colour (both recorded:
    /// `__test__/fixtures/sharp-texts.json`, `pixels` and `rastermill`).
    pub alpha: Alpha,
    /// The error when no JPEG candidate fits the byte limit.
    pub not_reducible: fn(usize, usize) -> String,
    /// How the input cap's size is written in its note.
    pub size: fn(usize) -> String,
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

    /// The note for an image the decoder refused with `message`; `measured`: its dimensions were
    /// read from its header.
    pub(crate) fn decode_failure(&self, measured: bool, message: &str) -> String {
        let own = if measured {
            // The decode budget (`maxDecodeBytes`, this package's) keeps its own note.
            self.undecodable
                .filter(|_| message != super::decode::MSG_PIXEL_LIMIT)
        } else {
            self.unreadable
        };
        match own {
            Some(text) => format!("omitted image payload: {text}"),
            None => format!("omitted image payload: Error: {message}"),
        }
    }
}

/// The note for an image sharp's metadata refused with libvips's `text`.
pub(crate) fn sharp_corrupt_header(text: &str) -> String {
    format!("omitted image payload: Error: Input buffer has corrupt header: {text}")
}

/// The note for a JPEG libjpeg refused to start decoding with `text`; `cut`: its data ended
/// before (libvips's source warned three times by then, and its text carries each warning).
pub(crate) fn sharp_jpeg_start(text: &str, cut: bool) -> String {
    let warnings = if cut {
        "VipsJpeg: premature end of JPEG image\n".repeat(3)
    } else {
        String::new()
    };
    format!("omitted image payload: Error: {warnings}VipsJpeg: {text}")
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
                undecodable: None,
                sharp: true,
                alpha: Alpha::Onto(0),
                not_reducible: super::reduce::not_reducible_message,
                size: |b| format!("{}MB", super::reduce::mib_fixed(b, 2)),
            },
            OpenClawVersion::V2026_9_6 => Release {
                max_input_bytes: Some(MAX_INPUT_BYTES),
                unpadded_base64: true,
                max_kept_pixels: Some(25_000_000),
                unreadable: Some(
                    "RastermillError: Unable to determine image dimensions; refusing to process",
                ),
                undecodable: Some("RastermillError: Unable to decode image with Photon"),
                sharp: false,
                alpha: Alpha::Dropped,
                not_reducible: super::reduce::not_reducible_message_short,
                size: super::reduce::short_size,
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
    fn an_image_measured_but_not_decodable_gets_each_releases_error() {
        // The texts both oracles gave (sanitizeSessionHistory on a user image): a PNG signature
        // and the IHDR of 1600×1200 and nothing more; the same with an empty IDAT.
        const PHOTON: &str =
            "omitted image payload: RastermillError: Unable to decode image with Photon";
        const SHARP: &str = "omitted image payload: Error: Input buffer has corrupt header: pngload_buffer: end of stream";
        let full = crate::image::test_support::png_with_ihdr(1600, 1200);
        let b64 =
            |b: &[u8]| ::base64::Engine::encode(&::base64::engine::general_purpose::STANDARD, b);
        let header_only = b64(&full[..33]);
        assert_eq!(reason(&header_only, V96), PHOTON);
        assert_eq!(reason(&header_only, V323), SHARP);
        assert_eq!(reason("iVBORw0KGgo=", V323), SHARP);
        let empty_pixels = b64(&full);
        assert_eq!(reason(&empty_pixels, V96), PHOTON);
        assert!(!reason(&empty_pixels, V323).contains("corrupt header"));
    }

    #[test]
    fn a_jpeg_whose_markers_do_not_read_gets_sharps_text_in_2026_3_23() {
        use crate::image::test_support::{encode_jpeg, gradient_rgb};
        let b64 =
            |b: &[u8]| ::base64::Engine::encode(&::base64::engine::general_purpose::STANDARD, b);
        // A small JPEG cut before its scan: its size reads, so this package kept it; sharp's
        // metadata (2026.3.23) refuses it. 2026.9.6 reads the size and keeps it.
        let jpeg = encode_jpeg(&gradient_rgb(300, 200), 90);
        let sos = (2..jpeg.len() - 1)
            .find(|&i| jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA)
            .expect("a scan");
        let cut = b64(&jpeg[..sos]);
        assert_eq!(
            reason(&cut, V323),
            "omitted image payload: Error: Input buffer has corrupt header: VipsJpeg: premature end of JPEG image\nVipsJpeg: Invalid JPEG file structure: missing SOS marker"
        );
        assert!(
            reason(&cut, V96).starts_with("Keep"),
            "{}",
            reason(&cut, V96)
        );
        // Whole, or cut inside its scan: it reads (and is kept, as sharp keeps it).
        for data in [b64(&jpeg), b64(&jpeg[..sos + 40])] {
            assert!(
                reason(&data, V323).starts_with("Keep"),
                "{}",
                reason(&data, V323)
            );
        }
        // Only the SOI marker.
        assert_eq!(
            reason(&b64(&[0xFF, 0xD8]), V323),
            "omitted image payload: Error: Input buffer has corrupt header: VipsJpeg: premature end of JPEG image\nVipsJpeg: JPEG datastream contains no image"
        );
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
