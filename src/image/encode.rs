//! Baseline JPEG encoding of 8-bit RGB or grey pixels.
//!
//! The `jpeg-encoder` crate is used (AVX2 colour conversion and DCT, chosen at
//! run time) rather than the `image` crate's encoder: on a 1200×900 image it
//! measured ~9 ms against ~25 ms here, and every oversize image is encoded at
//! least once. Chroma is subsampled 4:2:0 below quality 90 by block averaging
//! (libjpeg's method) rather than by picking one pixel, which keeps coloured
//! text edges clean. Output bytes differ from sharp's mozjpeg (no trellis
//! quantisation or progressive scans): larger files, far faster encoding.

use jpeg_encoder::{ChromaSubsamplingMethod, ColorType, Encoder};

use super::resize::Pixels;

/// JPEG's largest side.
const MAX_SIDE: u32 = 65_535;

/// Encode `px` at `quality` (1–100).
pub(crate) fn encode_jpeg(px: &Pixels, quality: u8) -> Result<Vec<u8>, String> {
    let (Ok(w), Ok(h)) = (u16::try_from(px.width), u16::try_from(px.height)) else {
        return Err(format!(
            "Processed image is too large for the JPEG format (over {MAX_SIDE} pixels on a side)"
        ));
    };
    // Compressed size is usually well under a tenth of the raw size.
    let mut out = Vec::with_capacity(px.data.len() / 8 + 1024);
    let mut encoder = Encoder::new(&mut out, quality.clamp(1, 100));
    encoder.set_chroma_subsampling_method(ChromaSubsamplingMethod::Average);
    let color = if px.grey {
        ColorType::Luma
    } else {
        ColorType::Rgb
    };
    encoder
        .encode(&px.data, w, h, color)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::gradient_rgb;
    use image::GenericImageView;

    #[test]
    fn rgb_and_grey_round_trip_through_a_decoder() {
        let img = gradient_rgb(33, 17);
        let rgb = Pixels {
            width: 33,
            height: 17,
            grey: false,
            data: img.into_raw(),
        };
        let jpeg = encode_jpeg(&rgb, 85).unwrap();
        let back = image::load_from_memory(&jpeg).unwrap();
        assert_eq!(back.dimensions(), (33, 17));
        let grey = Pixels {
            width: 5,
            height: 3,
            grey: true,
            data: vec![128; 15],
        };
        let back = image::load_from_memory(&encode_jpeg(&grey, 50).unwrap()).unwrap();
        assert_eq!(back.dimensions(), (5, 3));
        assert!(back.to_luma8().pixels().all(|p| p.0[0].abs_diff(128) <= 2));
    }

    #[test]
    fn lower_quality_is_smaller() {
        let img = crate::image::test_support::noise_rgb(64, 64, 3);
        let px = Pixels {
            width: 64,
            height: 64,
            grey: false,
            data: img.into_raw(),
        };
        assert!(encode_jpeg(&px, 35).unwrap().len() < encode_jpeg(&px, 85).unwrap().len());
    }

    #[test]
    fn sides_beyond_the_format_are_an_error() {
        let px = Pixels {
            width: 70_000,
            height: 1,
            grey: true,
            data: vec![0; 70_000],
        };
        assert!(encode_jpeg(&px, 85).unwrap_err().contains("too large"));
    }
}
