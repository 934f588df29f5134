//! JPEG decoding at reduced scale, for images that will be shrunk anyway.
//!
//! A JPEG stores 8×8 blocks of frequencies; an inverse DCT of only the lowest
//! 4×4, 2×2 or 1×1 of them gives the block at 1/2, 1/4 or 1/8 size, averaged
//! properly, with a fraction of the IDCT, upsampling and colour conversion
//! work (libjpeg-turbo's shrink-on-load, which sharp uses). `zune-jpeg`, the
//! `image` crate's decoder, has no such mode; `jpeg-decoder` does. Measured
//! here on 8000×6000 → 2000×1500: ~66 ms against ~157 ms for a full `zune-jpeg`
//! decode; at 1/2 the two are about even in decoding and the smaller image
//! saves the resize half its work.
//!
//! Only plain 8-bit grey and RGB files take this path; CMYK, 16-bit and any
//! file this decoder rejects fall back to the full decode (`None`), so the
//! `image` crate's handling and error messages stay the reference.

use std::io::Cursor;

use image::metadata::Orientation;
use jpeg_decoder::{Decoder, PixelFormat};

use super::decode::{over_budget, over_pixel_limit, Decoded};
use super::resize::{fit_inside, Pixels};

/// Side length after scaling by `eighths / 8`, as the IDCT produces it.
fn scaled(len: u32, eighths: u32) -> u32 {
    (len * eighths).div_ceil(8)
}

/// The smallest scale (in eighths: 1, 2 or 4) that keeps both sides at least
/// 1.5 times the target's; `None` when only full scale does. The margin leaves
/// the Lanczos3 pass a real reduction to clean up after the block-wise IDCT:
/// measured against a Lanczos3 reference, a 1/2-scale decode followed by a
/// 1.08× resize scored ~33 dB, followed by a 1.67× resize ~43 dB.
pub(crate) fn choose_eighths(stored: (u32, u32), target: (u32, u32)) -> Option<u32> {
    let covers = |len: u32, want: u32| 2 * u64::from(len) >= 3 * u64::from(want);
    [1, 2, 4]
        .into_iter()
        .find(|&e| covers(scaled(stored.0, e), target.0) && covers(scaled(stored.1, e), target.1))
}

/// Decode at the smallest scale that still covers `fit_inside(…, side)`, or
/// `None` to let the full decoder handle the file (which refuses what is
/// over `budget`).
pub(crate) fn decode(bytes: &[u8], side: u32, budget: u64) -> Option<Decoded> {
    let mut d = Decoder::new(Cursor::new(bytes));
    d.set_max_decoding_buffer_size(usize::try_from(budget).ok()?);
    d.read_info().ok()?;
    let info = d.info()?;
    let stored = (u32::from(info.width), u32::from(info.height));
    let grey = match info.pixel_format {
        PixelFormat::L8 => true,
        PixelFormat::RGB24 => false,
        _ => return None,
    };
    if stored.0 == 0 || stored.1 == 0 || over_pixel_limit(stored.0, stored.1) {
        return None;
    }
    // fit_inside is symmetric in its axes, so the stored orientation can be used.
    let eighths = choose_eighths(stored, fit_inside(stored.0, stored.1, side))?;
    let (w, h) = (scaled(stored.0, eighths), scaled(stored.1, eighths));
    if over_budget(w, h, if grey { 1 } else { 3 }, budget) {
        return None;
    }
    // Asking for exactly these sides makes the decoder pick this scale.
    let got = d
        .scale(u16::try_from(w).ok()?, u16::try_from(h).ok()?)
        .ok()?;
    if (u32::from(got.0), u32::from(got.1)) != (w, h) {
        return None;
    }
    let data = d.decode().ok()?;
    let channels = if grey { 1 } else { 3 };
    if data.len() != w as usize * h as usize * channels {
        return None;
    }
    let orientation = d
        .exif_data()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    Some(Decoded {
        px: Pixels {
            width: w,
            height: h,
            grey,
            data,
        },
        stored,
        orientation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::decode::DECODE_BUDGET;
    use crate::image::test_support::{encode_jpeg, gradient_rgb};

    #[test]
    fn scale_covers_the_target_on_both_sides() {
        assert_eq!(choose_eighths((4000, 3000), (1200, 900)), Some(4));
        assert_eq!(choose_eighths((8000, 6000), (1200, 900)), Some(2));
        assert_eq!(choose_eighths((14400, 10800), (1200, 900)), Some(1));
        assert_eq!(choose_eighths((2600, 1000), (1200, 462)), None);
        assert_eq!(choose_eighths((2000, 1500), (1200, 900)), None);
        // Rounding up: 3599 / 2 = 1799.5 → 1800 = 1.5 × 1200.
        assert_eq!(choose_eighths((3599, 600), (1200, 200)), Some(4));
    }

    #[test]
    fn decodes_at_half_and_eighth_scale() {
        let jpeg = encode_jpeg(&gradient_rgb(800, 600), 90);
        let d = decode(&jpeg, 260, DECODE_BUDGET).unwrap();
        assert_eq!((d.px.width, d.px.height, d.stored), (400, 300, (800, 600)));
        assert_eq!(d.px.data.len(), 400 * 300 * 3);
        let d = decode(&jpeg, 60, DECODE_BUDGET).unwrap();
        assert_eq!((d.px.width, d.px.height), (100, 75));
        // Nothing to gain at full scale.
        assert!(decode(&jpeg, 400, DECODE_BUDGET).is_none());
    }

    #[test]
    fn garbage_falls_back() {
        assert!(decode(b"\xFF\xD8\xFF\xE0garbage", 10, DECODE_BUDGET).is_none());
        let jpeg = encode_jpeg(&gradient_rgb(64, 64), 90);
        assert!(decode(&jpeg[..40], 8, DECODE_BUDGET).is_none());
    }
}
