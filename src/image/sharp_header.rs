//! What sharp's `metadata()` makes of an image's first bytes, for OpenClaw 2026.3.23's texts.
//!
//! 2026.3.23 reads every image's metadata through sharp (libvips) before it decides anything: a
//! header libvips cannot read omits the image whatever its size, with `Input buffer has corrupt
//! header: …`. This package's own header reader only needs the size, so it would keep such an
//! image. Two formats are read here as libvips reads them: JPEG markers up to the first scan
//! ([`super::libjpeg_header`]) and PNG chunks up to the first `IDAT` (libspng reads every chunk
//! before the pixels, so a PNG that ends before an `IDAT` chunk's length and type is refused with
//! `pngload_buffer: end of stream`, the text recorded from the real sharp at every cut of a PNG:
//! `__test__/fixtures/sharp-texts.json`).

use super::byte_source::ByteSource;
use super::header::Format;
use super::libjpeg_header;

/// libspng's error for data that ends early, as libvips's PNG loader names it.
pub(crate) const PNG_END_OF_STREAM: &str = "pngload_buffer: end of stream";

/// What reading the header found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Header {
    /// It reads; what decoding it will meet.
    Read(Frame),
    /// libvips's error text (without sharp's `Input buffer has corrupt header: ` in front).
    Error(String),
    /// The bytes ended before the header did, but more of the image follows: read again with it.
    NeedMore,
}

/// What libvips will meet when it decodes an image whose header read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The sample precision (libvips refuses to decode other than 8).
    pub precision: u8,
    /// libjpeg's error when decoding starts (a scan header read past the end of the data names a
    /// Huffman table that does not exist, or progressive parameters that cannot be), with
    /// whether the data ended before it.
    pub start_error: Option<(String, bool)>,
    /// How many of the scan header's last three bytes (spectral selection, approximation) lie
    /// past the end of the data: libjpeg reads on and only warns of them in a sequential JPEG.
    pub scan_header_missing: usize,
    /// A JPEG's width and height as its frame header gives them (sharp's metadata reports
    /// these; a frame past the head is read here without decoding what lies before it).
    pub size: Option<(u32, u32)>,
}

impl Frame {
    /// A frame that decodes as it is.
    pub(crate) const PLAIN: Frame = Frame {
        precision: 8,
        start_error: None,
        scan_header_missing: 0,
        size: None,
    };
}

/// Reads `bytes` (the start of an image of `format`, or all of it: a slice or a base64 payload
/// decoded as it is read) as sharp's metadata does; `complete`: `bytes` is the whole image.
/// Formats other than JPEG and PNG read as [`Frame::PLAIN`]. Only the bytes of the markers or
/// chunk heads are read: a segment's or chunk's content is skipped by its length.
pub(crate) fn read(format: Format, bytes: &dyn ByteSource, complete: bool) -> Header {
    match format {
        Format::Jpeg => libjpeg_header::read_from(bytes, complete),
        Format::Png => png(bytes, complete),
        _ => Header::Read(Frame::PLAIN),
    }
}

/// The PNG's chunks up to the first `IDAT` chunk's length and type.
fn png(bytes: &dyn ByteSource, complete: bool) -> Header {
    let mut at: usize = 8;
    loop {
        let mut head = [0u8; 8];
        for (k, b) in head.iter_mut().enumerate() {
            match at.checked_add(k).and_then(|i| bytes.at(i)) {
                Some(v) => *b = v,
                None if complete => return Header::Error(PNG_END_OF_STREAM.into()),
                None => return Header::NeedMore,
            }
        }
        if &head[4..] == b"IDAT" {
            return Header::Read(Frame::PLAIN);
        }
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        at = at.saturating_add(12).saturating_add(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::png_with_ihdr;

    #[test]
    fn a_png_reads_once_its_first_idat_chunk_is_named() {
        let png = png_with_ihdr(40, 30);
        // Signature 0..8, IHDR 8..33, IDAT's length and type 33..41.
        for cut in 8..41 {
            let want = Header::Error(PNG_END_OF_STREAM.into());
            assert_eq!(read(Format::Png, &&png[..cut], true), want, "cut at {cut}");
            assert_eq!(read(Format::Png, &&png[..cut], false), Header::NeedMore);
        }
        for cut in [41, png.len()] {
            assert_eq!(
                read(Format::Png, &&png[..cut], cut == png.len()),
                Header::Read(Frame::PLAIN)
            );
        }
    }

    /// A JPEG whose scan lies behind `n` bytes of comments (its header read from growing
    /// prefixes), and a PNG of `n` bytes cut in its pixels and shrunk (decoded as far as libspng
    /// reads): both take linear time.
    #[test]
    fn far_headers_and_cut_pixels_take_linear_time() {
        use crate::image::test_support::{
            encode_jpeg, encode_png, gradient_rgb, insert_jpeg_segment, noise_rgb,
        };
        use crate::image::{sanitize_image, ImageDecision, ImageLimits};
        use crate::response::linearity::assert_grows_linearly;
        let b64 =
            |b: &[u8]| ::base64::Engine::encode(&::base64::engine::general_purpose::STANDARD, b);
        let jpeg = encode_jpeg(&gradient_rgb(16, 16), 90);
        let note = "截图说明".repeat(5_000);
        let far = |n: usize| {
            let mut j = jpeg.clone();
            while j.len() < n {
                j = insert_jpeg_segment(&j, 0xFE, note.as_bytes());
            }
            b64(&j)
        };
        let limits = ImageLimits::default();
        assert_grows_linearly("a JPEG scan behind comments", &far, &|text| {
            let d = sanitize_image(text, limits);
            assert!(matches!(d, ImageDecision::Keep { .. }), "{d:?}");
        });
        // The PNG's pixels in chunks of 8 KiB (checksums left zero: the cut payload is read
        // as libspng reads it either way), cut at nine tenths.
        let cut_png = |n: usize| {
            let png = encode_png(&noise_rgb(256, (n / 770).max(2) as u32, 7));
            let idat = png.windows(4).position(|w| w == b"IDAT").expect("IDAT") - 4;
            let len = u32::from_be_bytes([png[idat], png[idat + 1], png[idat + 2], png[idat + 3]]);
            let data = &png[idat + 8..idat + 8 + len as usize];
            let mut out = png[..idat].to_vec();
            for piece in data.chunks(8192) {
                out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
                out.extend_from_slice(b"IDAT");
                out.extend_from_slice(piece);
                out.extend_from_slice(&[0; 4]);
            }
            b64(&out[..out.len() * 9 / 10])
        };
        let shrink = ImageLimits {
            max_dimension_px: 64,
            ..ImageLimits::default()
        };
        assert_grows_linearly("a PNG cut in its pixels", &cut_png, &|text| {
            let d = sanitize_image(text, shrink);
            assert!(matches!(d, ImageDecision::Replaced { .. }), "{d:?}");
        });
    }
}
