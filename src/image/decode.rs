//! Bounded decoding of an image payload to 8-bit pixels, accepting what
//! `sharp(buf, { failOnError: false }).rotate()` accepts before it resizes.
//!
//! Memory is bounded three ways: sharp's default input pixel limit and the
//! decode budget ([`DECODE_BUDGET`]: pixels × bytes per pixel) are checked on
//! the declared dimensions before any pixel buffer exists; the `image`
//! crate's limits cap each side and the total allocation; the reduced-scale
//! JPEG decoder has the same buffer cap. Errors are plain message strings; the
//! caller prefixes them with `Error: ` like JavaScript's `String(err)`.
//!
//! The EXIF orientation is returned, not applied: the pipeline turns the small
//! resized image instead (see `orient.rs`). Animated GIF and WebP give their
//! first frame, as sharp does without `animated: true`; 16-bit and CMYK
//! images are converted to 8-bit RGB (or grey) by the decoders.

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

use super::header::{header_dimensions, sniff_format, Format};
use super::jpeg_scaled;
use super::resize::{flatten, Alpha, Pixels};

/// sharp's default `limitInputPixels` (0x3FFF × 0x3FFF).
pub(crate) const SHARP_PIXEL_LIMIT: u64 = 0x3FFF * 0x3FFF;
/// sharp's message when the input pixel limit is exceeded.
pub(crate) const MSG_PIXEL_LIMIT: &str = "Input image exceeds pixel limit";
/// sharp's message for a buffer in a format it cannot read.
pub(crate) const MSG_UNSUPPORTED: &str = "Input buffer contains unsupported image format";

/// Largest side the decoder accepts.
const MAX_SIDE: u32 = 65_535;
/// The memory budget of one decode: width × height × bytes per pixel of the
/// colour type the decoder produces. An image over it is refused from its
/// header, before any pixel buffer exists, with sharp's pixel-limit message
/// (so the caller writes the same "omitted image payload" note); a JPEG that
/// is to be shrunk is decoded at 1/2, 1/4 or 1/8 scale first, and only that
/// scaled size counts. The decoders' own allocation cap is the same figure.
/// 256 MiB is 64 megapixels of RGBA or about 89 of RGB. This is the default;
/// the `maxDecodeBytes` option ([`super::ImageLimits::max_decode_bytes`])
/// sets another.
pub(crate) const DECODE_BUDGET: u64 = 256 * 1024 * 1024;

/// Decoded pixels as stored in the file, with what is needed to finish the job.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// 8-bit RGB or grey, alpha flattened or dropped ([`Alpha`]); possibly decoded at a
    /// reduced scale (never below the size asked for).
    pub(crate) px: Pixels,
    /// Width and height of the stored image at full scale.
    pub(crate) stored: (u32, u32),
    /// The EXIF orientation still to apply.
    pub(crate) orientation: Orientation,
}

fn decoder_limits(budget: u64) -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(budget);
    limits
}

/// Whether `w × h` pixels of `bytes_per_pixel` each exceed `budget` bytes.
pub(crate) fn over_budget(w: u32, h: u32, bytes_per_pixel: u8, budget: u64) -> bool {
    u64::from(w) * u64::from(h) * u64::from(bytes_per_pixel) > budget
}

/// Whether `w × h` exceeds sharp's default input pixel limit.
pub(crate) fn over_pixel_limit(w: u32, h: u32) -> bool {
    u64::from(w) * u64::from(h) > SHARP_PIXEL_LIMIT
}

/// Decode `bytes` (PNG, JPEG, GIF or WebP, first frame). With `fit_side`, the
/// caller promises to shrink the image to fit inside that many pixels, and a
/// JPEG may be decoded at 1/2, 1/4 or 1/8 scale when that still leaves at
/// least the fitted size. Formats sharp cannot read (BMP, and anything the
/// magic bytes do not identify) fail with sharp's "unsupported image format".
#[cfg(test)]
pub(crate) fn decode(bytes: &[u8], fit_side: Option<u32>) -> Result<Decoded, String> {
    decode_within(bytes, fit_side, DECODE_BUDGET, Alpha::Onto(255))
}

/// [`decode`] within a decode budget of `budget` bytes instead of the default, any alpha
/// flattened or dropped as `alpha` says (the release's [`super::release::Release::alpha`]).
pub(crate) fn decode_within(
    bytes: &[u8],
    fit_side: Option<u32>,
    budget: u64,
    alpha: Alpha,
) -> Result<Decoded, String> {
    let format = sniff_format(bytes)
        .filter(|f| f.sharp_readable())
        .ok_or_else(|| MSG_UNSUPPORTED.to_owned())?;
    // Refuse oversized declarations before any decoder sees them.
    if let Some((w, h)) = header_dimensions(bytes) {
        if over_pixel_limit(w, h) {
            return Err(MSG_PIXEL_LIMIT.to_owned());
        }
    }
    if let (Format::Jpeg, Some(side)) = (format, fit_side) {
        if let Some(decoded) = jpeg_scaled::decode(bytes, side, budget) {
            return Ok(decoded);
        }
    }
    decode_full(bytes, budget, alpha)
}

fn decode_full(bytes: &[u8], budget: u64, alpha: Alpha) -> Result<Decoded, String> {
    let format = image::guess_format(bytes).map_err(|_| MSG_UNSUPPORTED.to_owned())?;
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP
    ) {
        return Err(MSG_UNSUPPORTED.to_owned());
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(decoder_limits(budget));
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let (w, h) = decoder.dimensions();
    if over_pixel_limit(w, h) || over_budget(w, h, decoder.color_type().bytes_per_pixel(), budget) {
        return Err(MSG_PIXEL_LIMIT.to_owned());
    }
    // A broken EXIF block is ignored, as sharp ignores it.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let img = DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    Ok(Decoded {
        px: flatten(img, alpha),
        stored: (w, h),
        orientation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::{
        encode_bmp, encode_jpeg, encode_png, gradient_rgb, jpeg_with_orientation, png_with_ihdr,
    };

    #[test]
    fn decodes_png() {
        let d = decode(&encode_png(&gradient_rgb(30, 20)), None).unwrap();
        assert_eq!((d.px.width, d.px.height, d.stored), (30, 20, (30, 20)));
        assert!(!d.px.grey);
    }

    #[test]
    fn reports_exif_orientation_without_applying_it() {
        let jpeg = jpeg_with_orientation(&gradient_rgb(60, 20), 6);
        let d = decode(&jpeg, None).unwrap();
        assert_eq!((d.px.width, d.px.height), (60, 20));
        assert_eq!(d.orientation, Orientation::Rotate90);
        let jpeg = jpeg_with_orientation(&gradient_rgb(60, 20), 3);
        assert_eq!(
            decode(&jpeg, None).unwrap().orientation,
            Orientation::Rotate180
        );
        // The reduced-scale path reads it too.
        let jpeg = jpeg_with_orientation(&gradient_rgb(800, 400), 8);
        let d = decode(&jpeg, Some(100)).unwrap();
        assert_eq!(d.orientation, Orientation::Rotate270);
        assert_eq!(d.stored, (800, 400));
        assert!(d.px.width < 800);
    }

    #[test]
    fn pixel_limit_is_checked_before_allocation() {
        let png = png_with_ihdr(100_000, 100_000);
        assert_eq!(decode(&png, None).unwrap_err(), MSG_PIXEL_LIMIT);
        // Just over the limit on one side only still counts pixels, like sharp.
        let png = png_with_ihdr(0x3FFF + 1, 0x3FFF);
        assert_eq!(decode(&png, Some(1200)).unwrap_err(), MSG_PIXEL_LIMIT);
    }

    #[test]
    fn images_over_the_decode_budget_are_refused_before_decoding() {
        // 11,500 × 11,500 RGB: 397 MB of pixels, under sharp's pixel limit.
        let png = png_with_ihdr(11_500, 11_500);
        assert_eq!(decode(&png, None).unwrap_err(), MSG_PIXEL_LIMIT);
        assert_eq!(decode(&png, Some(1200)).unwrap_err(), MSG_PIXEL_LIMIT);
        // 9,000 × 9,000 RGB (243 MB) is within it: the decoder runs (and
        // fails on the missing data instead).
        let err = decode(&png_with_ihdr(9_000, 9_000), None).unwrap_err();
        assert_ne!(err, MSG_PIXEL_LIMIT);
        assert!(over_budget(8193, 8192, 4, DECODE_BUDGET));
        assert!(!over_budget(8192, 8192, 4, DECODE_BUDGET));
        // A smaller budget refuses what the default accepts.
        let png = encode_png(&gradient_rgb(300, 200));
        assert!(decode_within(&png, None, 300 * 200 * 3, Alpha::Onto(255)).is_ok());
        assert_eq!(
            decode_within(&png, None, 300 * 200 * 3 - 1, Alpha::Onto(255)).unwrap_err(),
            MSG_PIXEL_LIMIT
        );
    }

    #[test]
    fn unsupported_formats_use_sharps_message() {
        assert_eq!(decode(b"hello", None).unwrap_err(), MSG_UNSUPPORTED);
        assert_eq!(decode(b"", None).unwrap_err(), MSG_UNSUPPORTED);
        let bmp = encode_bmp(&gradient_rgb(8, 8));
        assert_eq!(decode(&bmp, None).unwrap_err(), MSG_UNSUPPORTED);
    }

    #[test]
    fn truncated_data_is_an_error() {
        let jpeg = encode_jpeg(&gradient_rgb(64, 64), 90);
        let err = decode(&jpeg[..jpeg.len() / 3], None).unwrap_err();
        assert!(!err.is_empty());
        let err = decode(&jpeg[..jpeg.len() / 3], Some(8)).unwrap_err();
        assert!(!err.is_empty());
    }
}
