//! The quality search for one side of the grid: the first quality of the
//! ladder (best first) whose JPEG fits the byte limit, found with as few
//! encodings as the sizes allow.
//!
//! The reference encodes the ladder in order until one fits: up to six
//! encodings per side, six for every side that cannot fit. Here the answer is
//! bracketed instead. Indices below `lo` are known not to fit, `hi` is the
//! best fitting index found so far (or the end of the ladder); each encoding
//! narrows the bracket, and the next quality to try is chosen from estimated
//! sizes: sizes already measured on this side, else the previous side's
//! scaled by the pixel count, spread over the ladder by a typical size profile.
//! With no estimate the best quality is tried first, so the usual case (an
//! oversize screenshot whose JPEG is far under 5 MiB) costs one encoding; a
//! tight limit costs two or three per side, a side that cannot fit one or two.
//!
//! It returns the reference's answer whenever the JPEG size does not grow as
//! the quality falls (true of baseline JPEG in practice); the estimates only
//! choose the order of the encodings, never the answer.

use super::encode::encode_jpeg;
use super::resize::Pixels;

/// JPEG qualities tried for every side, best first (the reference's ladder).
pub(crate) const QUALITY_STEPS: [u8; 6] = [85, 75, 65, 55, 45, 35];

/// Typical size of each step relative to quality 85 (measured on screenshots
/// and photos with this encoder); only used to pick which step to try next.
const PROFILE: [f64; 6] = [1.0, 0.80, 0.69, 0.61, 0.55, 0.49];

/// Sizes measured (or estimated) on one side, per ladder step.
pub(crate) type Sizes = [Option<f64>; QUALITY_STEPS.len()];

/// What the search found on one side.
pub(crate) enum SideResult {
    /// The first fitting step: its JPEG and quality.
    Fits { jpeg: Vec<u8>, quality: u8 },
    /// Nothing fits; the sizes that were measured, for the next side's estimate.
    TooLarge { measured: Sizes },
}

/// Estimated size of every step from whatever is known: each unknown step
/// from the nearest known one through the profile.
pub(crate) fn spread(known: &Sizes) -> Sizes {
    let mut out = *known;
    for (i, slot) in out.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let nearest = (0..known.len())
            .filter_map(|k| known[k].map(|s| (k.abs_diff(i), k, s)))
            .min_by_key(|&(d, k, _)| (d, k));
        *slot = nearest.map(|(_, k, s)| s * PROFILE[i] / PROFILE[k]);
    }
    out
}

/// The next step to encode in `lo..hi`: the best step estimated to fit, else
/// the worst step in range (one encoding then settles whether any fits).
fn pick(lo: usize, hi: usize, estimate: &Sizes, max_bytes: usize) -> usize {
    if estimate.iter().all(Option::is_none) {
        return lo;
    }
    (lo..hi)
        .find(|&i| estimate[i].is_some_and(|s| s <= max_bytes as f64))
        .unwrap_or(hi - 1)
}

/// Search one side. `prior` holds sizes estimated from the previous side (or
/// nothing); `smallest` is updated with every encoding's size.
pub(crate) fn search_side(
    px: &Pixels,
    max_bytes: usize,
    prior: &Sizes,
    smallest: &mut Option<usize>,
) -> Result<SideResult, String> {
    let n = QUALITY_STEPS.len();
    let (mut lo, mut hi) = (0, n);
    let mut measured: Sizes = [None; QUALITY_STEPS.len()];
    let mut best = None;
    while lo < hi {
        let estimate = if measured.iter().any(Option::is_some) {
            spread(&measured)
        } else {
            *prior
        };
        let i = pick(lo, hi, &estimate, max_bytes);
        let jpeg = encode_jpeg(px, QUALITY_STEPS[i])?;
        let len = jpeg.len();
        measured[i] = Some(len as f64);
        *smallest = Some(smallest.map_or(len, |s| s.min(len)));
        if len <= max_bytes {
            hi = i;
            best = Some(jpeg);
        } else {
            lo = i + 1;
        }
    }
    Ok(match best {
        Some(jpeg) if hi < n => SideResult::Fits {
            jpeg,
            quality: QUALITY_STEPS[hi],
        },
        _ => SideResult::TooLarge { measured },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::test_support::noise_rgb;

    fn noise(w: u32, h: u32) -> Pixels {
        Pixels {
            width: w,
            height: h,
            grey: false,
            data: noise_rgb(w, h, 5).into_raw(),
        }
    }

    /// The reference's linear scan, for comparison.
    fn linear(px: &Pixels, max_bytes: usize) -> Option<u8> {
        QUALITY_STEPS
            .into_iter()
            .find(|&q| encode_jpeg(px, q).unwrap().len() <= max_bytes)
    }

    #[test]
    fn spread_fills_from_the_nearest_known_step() {
        let mut known: Sizes = [None; 6];
        known[0] = Some(1000.0);
        let s = spread(&known);
        assert_eq!(s[0], Some(1000.0));
        assert!((s[5].unwrap() - 490.0).abs() < 1e-9);
        known[5] = Some(700.0);
        let s = spread(&known);
        assert!((s[4].unwrap() - 700.0 * 0.55 / 0.49).abs() < 1e-9);
        assert!(spread(&[None; 6]).iter().all(Option::is_none));
    }

    #[test]
    fn finds_the_same_step_as_a_linear_scan() {
        let px = noise(96, 64);
        let sizes: Vec<usize> = QUALITY_STEPS
            .iter()
            .map(|&q| encode_jpeg(&px, q).unwrap().len())
            .collect();
        // Limits on and between every step, and outside the ladder.
        let mut limits: Vec<usize> = sizes.iter().flat_map(|&s| [s, s - 1, s + 1]).collect();
        limits.extend([1, usize::MAX]);
        for max in limits {
            let expected = linear(&px, max);
            for prior in [
                [None; 6],
                spread(&[Some(sizes[0] as f64 * 3.0), None, None, None, None, None]),
            ] {
                let mut smallest = None;
                let got = match search_side(&px, max, &prior, &mut smallest).unwrap() {
                    SideResult::Fits { jpeg, quality } => {
                        assert!(jpeg.len() <= max);
                        Some(quality)
                    }
                    SideResult::TooLarge { .. } => None,
                };
                assert_eq!(got, expected, "limit {max}");
                assert!(smallest.is_some());
            }
        }
    }

    #[test]
    fn a_roomy_limit_costs_one_encoding() {
        let px = noise(32, 32);
        let mut smallest = None;
        match search_side(&px, usize::MAX, &[None; 6], &mut smallest).unwrap() {
            SideResult::Fits { quality, .. } => assert_eq!(quality, 85),
            SideResult::TooLarge { .. } => panic!("fits"),
        }
    }

    #[test]
    fn a_hopeless_side_reports_its_measurements() {
        let px = noise(64, 64);
        let mut smallest = None;
        let SideResult::TooLarge { measured } =
            search_side(&px, 10, &[None; 6], &mut smallest).unwrap()
        else {
            panic!("cannot fit in 10 bytes");
        };
        // q85 first (no estimate), then q35 settles it.
        assert!(measured[0].is_some() && measured[5].is_some());
        assert_eq!(measured.iter().filter(|m| m.is_some()).count(), 2);
        assert_eq!(smallest, measured[5].map(|s| s as usize));
    }
}
