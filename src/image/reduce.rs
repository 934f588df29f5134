//! The reference's reduction search: try each side of a descending grid and,
//! per side, the JPEG qualities of the ladder; the first encoding within the
//! byte limit wins. When none fits, the error names the limit and the smallest
//! result, with the number formatting of JavaScript's `toFixed`.
//!
//! Each side is resized from the decoded pixels (never from a smaller side's
//! result), turned upright, then handed to the quality search (`quality.rs`),
//! which needs far fewer encodings than the reference's linear scan and finds
//! the same grid point.

use super::decode::Decoded;
use super::orient;
use super::quality::{search_side, spread, SideResult, Sizes, QUALITY_STEPS};
use super::resize::{fit_inside, resize, Pixels};

/// Fixed sides of the grid (before capping at the limit).
const SIDE_STEPS: [u32; 6] = [1800, 1600, 1400, 1200, 1000, 800];
const MIB: u128 = 1024 * 1024;

/// A JPEG that fits the byte limit, with its pixel size.
#[derive(Debug)]
pub(crate) struct Reduced {
    pub(crate) jpeg: Vec<u8>,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// The ladder quality it was encoded at.
    pub(crate) quality: u8,
}

/// `[min(maxDim, sourceMaxSide), 1800, 1600, 1400, 1200, 1000, 800]`, each
/// capped at `max_dim`, positives only, de-duplicated, descending. An unknown
/// or zero source side starts at `max_dim`.
pub(crate) fn side_grid(max_dim: u32, source_max_side: u32) -> Vec<u32> {
    let start = if source_max_side > 0 {
        max_dim.min(source_max_side)
    } else {
        max_dim
    };
    let mut grid: Vec<u32> = Vec::with_capacity(7);
    for side in std::iter::once(start).chain(SIDE_STEPS) {
        let side = side.min(max_dim);
        if side > 0 && !grid.contains(&side) {
            grid.push(side);
        }
    }
    grid.sort_unstable_by(|a, b| b.cmp(a));
    grid
}

/// JavaScript `(x / unit).toFixed(digits)` for a byte count and a power-of-two `unit`: exact,
/// because the quotient is a binary fraction, and ties round up as `toFixed` does.
fn binary_fixed(bytes: usize, unit: u128, digits: u32) -> String {
    let scale = 10u128.pow(digits);
    let n = (bytes as u128 * scale * 2 + unit) / (2 * unit);
    if digits == 0 {
        return n.to_string();
    }
    let width = digits as usize;
    format!("{}.{:0width$}", n / scale, n % scale)
}

/// JavaScript `(x / 2**20).toFixed(digits)` for a byte count.
pub(crate) fn mib_fixed(bytes: usize, digits: u32) -> String {
    binary_fixed(bytes, MIB, digits)
}

/// OpenClaw 2026.9.6's `formatBytesShort`: bytes below 1 KiB as `123B`, below 1 MiB as `51.2KB`,
/// else `7.12MB` (1024-based, never a larger unit).
pub(crate) fn short_size(bytes: usize) -> String {
    match bytes {
        0..=1023 => format!("{bytes}B"),
        1024..=1_048_575 => format!("{}KB", binary_fixed(bytes, 1024, 1)),
        _ => format!("{}MB", mib_fixed(bytes, 2)),
    }
}

/// 2026.3.23's error text when no candidate fits (sharp's step: whole MB for the limit).
pub(crate) fn not_reducible_message(max_bytes: usize, smallest: usize) -> String {
    format!(
        "Image could not be reduced below {}MB (got {}MB)",
        mib_fixed(max_bytes, 0),
        mib_fixed(smallest, 2)
    )
}

/// 2026.9.6's error text when no candidate fits (both sizes through [`short_size`]).
pub(crate) fn not_reducible_message_short(max_bytes: usize, smallest: usize) -> String {
    format!(
        "Image could not be reduced below {} (got {})",
        short_size(max_bytes),
        short_size(smallest)
    )
}

/// The sides of the grid this image will try first: its decode may be
/// reduced to what the largest of them needs.
pub(crate) fn first_side(max_dim: u32, source_max_side: u32) -> Option<u32> {
    side_grid(max_dim, source_max_side).first().copied()
}

/// `measured` sizes of one side, spread over the ladder and scaled to a side
/// of `pixels` pixels: the next side's starting estimate.
fn scaled_prior(measured: &Sizes, from_pixels: u64, pixels: u64) -> Sizes {
    let ratio = pixels as f64 / from_pixels.max(1) as f64;
    spread(measured).map(|s| s.map(|s| s * ratio))
}

/// Run the search on a decoded image. `fallback_len` is reported as the
/// smallest size if, impossibly, no candidate was produced; `not_reducible`
/// writes the error (the release's wording, `release.rs`).
pub(crate) fn reduce_to_jpeg(
    decoded: Decoded,
    max_dim: u32,
    max_bytes: usize,
    fallback_len: usize,
    not_reducible: fn(usize, usize) -> String,
) -> Result<Reduced, String> {
    let (sw, sh) = decoded.stored;
    let swap = orient::swaps_axes(decoded.orientation);
    let mut smallest: Option<usize> = None;
    let mut last_size = None;
    let mut prior: Sizes = [None; QUALITY_STEPS.len()];
    for side in side_grid(max_dim, sw.max(sh)) {
        // fit_inside is symmetric, so the stored orientation gives the stored-side target.
        let (w, h) = fit_inside(sw, sh, side);
        // Grid sides at or above the image size all leave it as is; the
        // encodings would repeat byte for byte, so they are tried once.
        if last_size == Some((w, h)) {
            continue;
        }
        let pixels = u64::from(w) * u64::from(h);
        if let Some((lw, lh)) = last_size {
            prior = scaled_prior(&prior, u64::from(lw) * u64::from(lh), pixels);
        }
        last_size = Some((w, h));
        let resized: Pixels = if (w, h) == (decoded.px.width, decoded.px.height) {
            decoded.px.clone()
        } else {
            resize(&decoded.px, w, h)?
        };
        let upright = orient::apply(resized, decoded.orientation);
        match search_side(&upright, max_bytes, &prior, &mut smallest)? {
            SideResult::Fits { jpeg, quality } => {
                let (width, height) = if swap { (h, w) } else { (w, h) };
                return Ok(Reduced {
                    jpeg,
                    width,
                    height,
                    quality,
                });
            }
            SideResult::TooLarge { measured } => prior = measured,
        }
    }
    Err(not_reducible(max_bytes, smallest.unwrap_or(fallback_len)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::noise_rgb;
    use image::metadata::Orientation;
    use image::GenericImageView;

    fn decoded(img: image::RgbImage) -> Decoded {
        let (w, h) = img.dimensions();
        Decoded {
            px: Pixels {
                width: w,
                height: h,
                grey: false,
                data: img.into_raw(),
            },
            stored: (w, h),
            orientation: Orientation::NoTransforms,
        }
    }

    #[test]
    fn grid_is_capped_unique_and_descending() {
        assert_eq!(side_grid(1200, 2600), vec![1200, 1000, 800]);
        assert_eq!(
            side_grid(2000, 2600),
            vec![2000, 1800, 1600, 1400, 1200, 1000, 800]
        );
        assert_eq!(
            side_grid(2000, 900),
            vec![1800, 1600, 1400, 1200, 1000, 900, 800]
        );
        assert_eq!(side_grid(1200, 0), vec![1200, 1000, 800]);
        assert_eq!(side_grid(500, 3000), vec![500]);
        assert_eq!(side_grid(1, 10), vec![1]);
        assert!(side_grid(0, 10).is_empty());
    }

    #[test]
    fn js_to_fixed_formatting() {
        assert_eq!(mib_fixed(5 * 1024 * 1024, 0), "5");
        assert_eq!(mib_fixed(1024 * 1024 + 512 * 1024, 0), "2"); // 1.5 → 2
        assert_eq!(mib_fixed(1000, 0), "0");
        assert_eq!(mib_fixed(7_465_861, 2), "7.12");
        assert_eq!(mib_fixed(0, 2), "0.00");
        assert_eq!(mib_fixed(10_485, 2), "0.01"); // 0.009999 → 0.01
        assert_eq!(mib_fixed(5 * 1024 * 1024, 2), "5.00");
        assert_eq!(
            not_reducible_message(5 * 1024 * 1024, 7_465_861),
            "Image could not be reduced below 5MB (got 7.12MB)"
        );
    }

    #[test]
    fn short_sizes_as_openclaw_2026_9_6_writes_them() {
        // Recorded from openclaw 2026.9.6's formatBytesShort (dist/tool-images-*.mjs) on Node 24.
        for (bytes, js) in [
            (0, "0B"),
            (1023, "1023B"),
            (1024, "1.0KB"),
            (1075, "1.0KB"),
            (1126, "1.1KB"),
            (52_428, "51.2KB"),
            (1_048_064, "1023.5KB"),
            (1_048_575, "1024.0KB"),
            (1_048_576, "1.00MB"),
            (5_242_880, "5.00MB"),
            (7_465_861, "7.12MB"),
            (1_073_741_824, "1024.00MB"),
        ] {
            assert_eq!(short_size(bytes), js, "{bytes}");
        }
        assert_eq!(
            not_reducible_message_short(5 * 1024 * 1024, 7_465_861),
            "Image could not be reduced below 5.00MB (got 7.12MB)"
        );
        assert_eq!(
            not_reducible_message_short(100, 3_480),
            "Image could not be reduced below 100B (got 3.4KB)"
        );
    }

    #[test]
    fn first_fitting_candidate_wins() {
        let r = reduce_to_jpeg(
            decoded(noise_rgb(300, 100, 7)),
            200,
            1024 * 1024,
            0,
            not_reducible_message,
        )
        .unwrap();
        assert_eq!((r.width, r.height, r.quality), (200, 67, 85));
        let back = image::load_from_memory(&r.jpeg).unwrap();
        assert_eq!(back.dimensions(), (200, 67));
    }

    #[test]
    fn reports_smallest_candidate_when_nothing_fits() {
        let err = reduce_to_jpeg(
            decoded(noise_rgb(120, 120, 3)),
            100,
            100,
            0,
            not_reducible_message,
        )
        .unwrap_err();
        assert!(
            err.starts_with("Image could not be reduced below 0MB (got 0.0"),
            "{err}"
        );
        assert!(err.ends_with("MB)"), "{err}");
    }
}
