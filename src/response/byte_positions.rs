//! Every position of one byte in a short haystack (a call block's body), in order: what
//! `memchr::memchr_iter` gives, read sixteen bytes at a time into a bit mask.
//!
//! Why: a call block is a hundred bytes or so with a `<` every dozen; `memchr_iter` calls the
//! searcher once per hit (and once more to find none), ~50 instructions each: with the searches
//! for each tag's `>`, ~5% of the instructions of a reply dense with Qwen3-Coder calls
//! (callgrind). One compare per sixteen bytes, then a bit per hit, costs a few instructions a hit.

/// The positions of `byte` in `hay`, ascending.
pub struct Positions<'h> {
    hay: &'h [u8],
    byte: u8,
    /// Where the chunk `mask` covers starts.
    base: usize,
    /// The hits of the chunk at `base` not given yet (bit `k`: `hay[base + k]`).
    mask: u32,
    /// Where the next chunk starts.
    next: usize,
}

impl<'h> Positions<'h> {
    pub fn new(byte: u8, hay: &'h [u8]) -> Self {
        Positions {
            hay,
            byte,
            base: 0,
            mask: 0,
            next: 0,
        }
    }
}

impl Iterator for Positions<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            if self.next >= self.hay.len() {
                return None;
            }
            self.base = self.next;
            self.mask = chunk_mask(self.hay, self.base, self.byte);
            self.next += 16;
        }
        let i = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(i)
    }
}

/// Bit `k` set when `hay[at + k] == byte`, for the (at most) sixteen bytes from `at` (`at` is
/// within `hay`).
#[inline]
fn chunk_mask(hay: &[u8], at: usize, byte: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if hay.len() >= 16 {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // The last chunk is the haystack's last sixteen bytes, shifted so bit 0 is `hay[at]`
        // (no byte-by-byte tail).
        let lo = at.min(hay.len() - 16);
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads `hay[lo..lo + 16]`, in
        // bounds as `lo + 16 <= hay.len()`.
        let m = unsafe {
            let x = _mm_loadu_si128(hay.as_ptr().add(lo).cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(byte as i8))) as u32
        };
        return m >> (at - lo);
    }
    let end = hay.len().min(at + 16);
    let mut m = 0;
    for (k, &b) in hay[at..end].iter().enumerate() {
        if b == byte {
            m |= 1 << k;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same positions as `memchr_iter`, for every length and offset of a haystack with hits
    /// at chunk edges, in runs, and none at all.
    #[test]
    fn positions_are_memchr_iters() {
        let text = "<a><<b>x</c>0123456789abcdef<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<中文<ok>"
            .repeat(3)
            + "no hit here at all, sixteen and more bytes";
        let b = text.as_bytes();
        for lo in 0..b.len() {
            for hi in lo..b.len().min(lo + 90) {
                let hay = &b[lo..hi];
                let ours: Vec<usize> = Positions::new(b'<', hay).collect();
                let theirs: Vec<usize> = memchr::memchr_iter(b'<', hay).collect();
                assert_eq!(ours, theirs, "{lo}..{hi}");
            }
        }
    }
}
