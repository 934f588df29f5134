//! EXIF orientation applied to 8-bit pixels, after the downscale.
//!
//! sharp's `.rotate()` turns the image upright before it resizes. Rotating or
//! flipping commutes with a separable resize once the target size is swapped
//! for the quarter turns, so the pipeline resizes the stored (sideways) pixels
//! and turns only the small result: a 1200-pixel image instead of a
//! 4000-pixel one.

use image::metadata::Orientation;

use super::resize::Pixels;

/// Whether the orientation swaps width and height.
pub(crate) fn swaps_axes(o: Orientation) -> bool {
    matches!(
        o,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// The upright image. `NoTransforms` returns the input as it is.
pub(crate) fn apply(px: Pixels, o: Orientation) -> Pixels {
    if o == Orientation::NoTransforms {
        return px;
    }
    let ch = if px.grey { 1 } else { 3 };
    let (w, h) = (px.width as usize, px.height as usize);
    let (ow, oh) = if swaps_axes(o) { (h, w) } else { (w, h) };
    // For each output (x, y): the source pixel it shows.
    let source = |x: usize, y: usize| -> (usize, usize) {
        match o {
            Orientation::NoTransforms => (x, y),
            Orientation::Rotate90 => (y, h - 1 - x),
            Orientation::Rotate180 => (w - 1 - x, h - 1 - y),
            Orientation::Rotate270 => (w - 1 - y, x),
            Orientation::FlipHorizontal => (w - 1 - x, y),
            Orientation::FlipVertical => (x, h - 1 - y),
            Orientation::Rotate90FlipH => (y, x),
            Orientation::Rotate270FlipH => (w - 1 - y, h - 1 - x),
        }
    };
    let mut data = Vec::with_capacity(px.data.len());
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = source(x, y);
            let at = (sy * w + sx) * ch;
            data.extend_from_slice(&px.data[at..at + ch]);
        }
    }
    Pixels {
        width: ow as u32,
        height: oh as u32,
        grey: px.grey,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::noise_rgb;
    use image::DynamicImage;

    #[test]
    fn matches_the_image_crate_for_all_eight_orientations() {
        let img = noise_rgb(7, 4, 11);
        for exif in 1..=8u8 {
            let o = Orientation::from_exif(exif).unwrap();
            let mut expected = DynamicImage::ImageRgb8(img.clone());
            expected.apply_orientation(o);
            let px = Pixels {
                width: 7,
                height: 4,
                grey: false,
                data: img.as_raw().clone(),
            };
            let got = apply(px, o);
            assert_eq!(
                (got.width, got.height),
                (expected.width(), expected.height()),
                "orientation {exif}"
            );
            assert_eq!(
                got.data,
                expected.to_rgb8().into_raw(),
                "orientation {exif}"
            );
        }
    }

    #[test]
    fn grey_pixels_turn_too() {
        let px = Pixels {
            width: 2,
            height: 1,
            grey: true,
            data: vec![1, 2],
        };
        let got = apply(px, Orientation::Rotate90);
        assert_eq!((got.width, got.height, got.data), (1, 2, vec![1, 2]));
    }
}
