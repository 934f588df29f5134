//! Bounded, orientation-correct decoding of an image payload, mirroring what
//! `sharp(buf, { failOnError: false }).rotate()` accepts before it resizes.
//!
//! Memory is bounded twice: sharp's default input pixel limit is checked on the
//! declared dimensions before any pixel buffer exists, and the `image` crate's
//! own limits cap per-side size and total allocation. Errors are plain message
//! strings; the caller prefixes them with `Error: ` like JavaScript's
//! `String(err)`.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use super::header::{header_dimensions, sniff_format};

/// sharp's default `limitInputPixels` (0x3FFF × 0x3FFF).
pub(crate) const SHARP_PIXEL_LIMIT: u64 = 0x3FFF * 0x3FFF;
/// sharp's message when the input pixel limit is exceeded.
pub(crate) const MSG_PIXEL_LIMIT: &str = "Input image exceeds pixel limit";
/// sharp's message for a buffer in a format it cannot read.
pub(crate) const MSG_UNSUPPORTED: &str = "Input buffer contains unsupported image format";

/// Largest side the decoder accepts.
const MAX_SIDE: u32 = 65_535;
/// Largest total allocation the decoder may make.
const MAX_ALLOC: u64 = 512 * 1024 * 1024;

fn decoder_limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    limits
}

/// Whether `w × h` exceeds sharp's default input pixel limit.
pub(crate) fn over_pixel_limit(w: u32, h: u32) -> bool {
    u64::from(w) * u64::from(h) > SHARP_PIXEL_LIMIT
}

/// Decode `bytes` (PNG, JPEG, GIF first frame, WebP first frame), with EXIF
/// orientation applied. Formats sharp cannot read (BMP, and anything the magic
/// bytes do not identify) fail with sharp's "unsupported image format" text.
pub(crate) fn decode_image(bytes: &[u8]) -> Result<DynamicImage, String> {
    if !sniff_format(bytes).is_some_and(|f| f.sharp_readable()) {
        return Err(MSG_UNSUPPORTED.to_owned());
    }
    // Refuse oversized declarations before the decoder sees them.
    if let Some((w, h)) = header_dimensions(bytes) {
        if over_pixel_limit(w, h) {
            return Err(MSG_PIXEL_LIMIT.to_owned());
        }
    }
    let format = image::guess_format(bytes).map_err(|_| MSG_UNSUPPORTED.to_owned())?;
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
    ) {
        return Err(MSG_UNSUPPORTED.to_owned());
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(decoder_limits());
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let (w, h) = decoder.dimensions();
    if over_pixel_limit(w, h) {
        return Err(MSG_PIXEL_LIMIT.to_owned());
    }
    // A broken EXIF block is ignored, as sharp ignores it.
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    if let Some(orientation) = orientation {
        img.apply_orientation(orientation);
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::{
        encode_bmp, encode_jpeg, encode_png, gradient_rgb, jpeg_with_orientation, png_with_ihdr,
    };
    use image::GenericImageView;

    #[test]
    fn decodes_png() {
        let img = decode_image(&encode_png(&gradient_rgb(30, 20))).unwrap();
        assert_eq!(img.dimensions(), (30, 20));
    }

    #[test]
    fn applies_exif_orientation() {
        let jpeg = jpeg_with_orientation(&gradient_rgb(60, 20), 6);
        let img = decode_image(&jpeg).unwrap();
        assert_eq!(img.dimensions(), (20, 60));
        let jpeg = jpeg_with_orientation(&gradient_rgb(60, 20), 3);
        assert_eq!(decode_image(&jpeg).unwrap().dimensions(), (60, 20));
    }

    #[test]
    fn pixel_limit_is_checked_before_allocation() {
        let png = png_with_ihdr(100_000, 100_000);
        assert_eq!(decode_image(&png).unwrap_err(), MSG_PIXEL_LIMIT);
        // Just over the limit on one side only still counts pixels, like sharp.
        let png = png_with_ihdr(0x3FFF + 1, 0x3FFF);
        assert_eq!(decode_image(&png).unwrap_err(), MSG_PIXEL_LIMIT);
    }

    #[test]
    fn unsupported_formats_use_sharps_message() {
        assert_eq!(decode_image(b"hello").unwrap_err(), MSG_UNSUPPORTED);
        assert_eq!(decode_image(b"").unwrap_err(), MSG_UNSUPPORTED);
        let bmp = encode_bmp(&gradient_rgb(8, 8));
        assert_eq!(decode_image(&bmp).unwrap_err(), MSG_UNSUPPORTED);
    }

    #[test]
    fn truncated_data_is_an_error() {
        let jpeg = encode_jpeg(&gradient_rgb(64, 64), 90);
        let err = decode_image(&jpeg[..jpeg.len() / 3]).unwrap_err();
        assert!(!err.is_empty());
    }
}
