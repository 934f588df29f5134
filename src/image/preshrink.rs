//! Integer box pre-shrink for large downscale factors: every output pixel is the
//! mean of a `kx × ky` block of input pixels (blocks at the right and bottom
//! edges may be narrower; they are averaged over the pixels they hold).
//!
//! A Lanczos3 kernel spans `6 × factor` input pixels per output pixel, so a
//! 10× downscale would weigh 60 taps per pixel per axis. Averaging blocks
//! first (one read of every input byte, sums in `u32`) and leaving the
//! Lanczos3 pass a residual factor between 2 and 4 keeps the cost near one
//! pass over the input while keeping the final kernel's anti-aliasing; libvips
//! (`shrink` then `reduce`) works the same way.

use super::resize::Pixels;

/// Shrink factor per axis for a downscale from `src` to `dst` pixels: the
/// largest integer that leaves the residual factor at 2 or more; 1 when the
/// factor is below 4 (Lanczos3 alone is cheap enough there).
pub(crate) fn shrink_factor(src: u32, dst: u32) -> u32 {
    let dst = dst.max(1);
    if src / dst < 4 {
        return 1;
    }
    (src / dst / 2).max(1)
}

/// Box-average `src` by `kx` horizontally and `ky` vertically.
pub(crate) fn box_shrink(src: &Pixels, kx: u32, ky: u32) -> Pixels {
    let ch = if src.grey { 1 } else { 3 };
    let (kx, ky) = (kx.max(1) as usize, ky.max(1) as usize);
    let (sw, sh) = (src.width as usize, src.height as usize);
    let (ow, oh) = (sw.div_ceil(kx), sh.div_ceil(ky));
    let stride = sw * ch;
    let mut out = Vec::with_capacity(ow * oh * ch);
    let mut acc = vec![0u32; stride];
    for oy in 0..oh {
        acc.iter_mut().for_each(|a| *a = 0);
        let y0 = oy * ky;
        let rows = ky.min(sh - y0);
        for row in src.data[y0 * stride..(y0 + rows) * stride].chunks_exact(stride) {
            // Vertical sums: a straight loop over the row, which the compiler vectorises.
            for (a, &v) in acc.iter_mut().zip(row) {
                *a += u32::from(v);
            }
        }
        for ox in 0..ow {
            let x0 = ox * kx;
            let cols = kx.min(sw - x0);
            // u64: a block can hold more than 2^32 / 255 pixels (a huge image shrunk to 1 px).
            let n = (cols * rows) as u64;
            for c in 0..ch {
                let sum: u64 = (0..cols).map(|i| u64::from(acc[(x0 + i) * ch + c])).sum();
                out.push(((sum + n / 2) / n) as u8);
            }
        }
    }
    Pixels {
        width: ow as u32,
        height: oh as u32,
        grey: src.grey,
        data: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_leaves_a_residual_of_two_or_more() {
        assert_eq!(shrink_factor(4000, 1200), 1);
        assert_eq!(shrink_factor(8000, 1200), 3);
        assert_eq!(shrink_factor(30000, 1200), 12);
        assert_eq!(shrink_factor(1200, 1200), 1);
        assert_eq!(shrink_factor(5, 0), 2);
    }

    #[test]
    fn blocks_are_averaged_with_partial_edges() {
        // 5×3 grey ramp shrunk by 2×2: blocks of 4, 2 (right edge), 2 (bottom), 1 (corner).
        let src = Pixels {
            width: 5,
            height: 3,
            grey: true,
            data: (0..15).map(|v| v * 10).collect(),
        };
        let out = box_shrink(&src, 2, 2);
        assert_eq!((out.width, out.height), (3, 2));
        // (0+10+50+60)/4=30, (20+30+70+80)/4=50, (40+90)/2=65; (100+110)/2, (120+130)/2, 140
        assert_eq!(out.data, vec![30, 50, 65, 105, 125, 140]);
    }

    #[test]
    fn rgb_channels_stay_apart() {
        let src = Pixels {
            width: 4,
            height: 2,
            grey: false,
            data: [10u8, 200, 30].repeat(8),
        };
        let out = box_shrink(&src, 4, 2);
        assert_eq!((out.width, out.height, out.data), (1, 1, vec![10, 200, 30]));
    }
}
