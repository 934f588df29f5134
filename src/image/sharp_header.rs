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
}

impl Frame {
    /// A frame that decodes as it is.
    pub(crate) const PLAIN: Frame = Frame {
        precision: 8,
        start_error: None,
        scan_header_missing: 0,
    };
}

/// Reads `bytes` (the start of an image of `format`) as sharp's metadata does; `complete`:
/// `bytes` is the whole image. Formats other than JPEG and PNG read as [`Frame::PLAIN`].
pub(crate) fn read(format: Format, bytes: &[u8], complete: bool) -> Header {
    match format {
        Format::Jpeg => libjpeg_header::read(bytes, complete),
        Format::Png => png(bytes, complete),
        _ => Header::Read(Frame::PLAIN),
    }
}

/// The PNG's chunks up to the first `IDAT` chunk's length and type.
fn png(bytes: &[u8], complete: bool) -> Header {
    let mut at = 8;
    while let Some(head) = bytes.get(at..at + 8) {
        if &head[4..] == b"IDAT" {
            return Header::Read(Frame::PLAIN);
        }
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        at = at.saturating_add(12).saturating_add(len);
    }
    if complete {
        Header::Error(PNG_END_OF_STREAM.into())
    } else {
        Header::NeedMore
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
            assert_eq!(read(Format::Png, &png[..cut], true), want, "cut at {cut}");
            assert_eq!(read(Format::Png, &png[..cut], false), Header::NeedMore);
        }
        for cut in [41, png.len()] {
            assert_eq!(
                read(Format::Png, &png[..cut], cut == png.len()),
                Header::Read(Frame::PLAIN)
            );
        }
    }
}
