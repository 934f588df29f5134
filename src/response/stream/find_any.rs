//! One search for the first of a handful of bytes. The visible-text scan stops at marker bytes
//! (`<`, `[`, the lead byte of `◁`) and, with code tracking on, at backticks and tildes; an inline
//! span's closer is looked for up to a line break. Two `memchr` searches per stop (one per kind)
//! cost most of what code tracking added to a reply, and `memchr` has no search for five bytes:
//! on x86-64 this module compares 16 bytes at a time against each byte of the set with SSE2
//! (part of every x86-64 CPU, so no feature check), inlined into the caller; elsewhere it runs
//! `memchr3` on the two halves of the set, window by window, so neither search runs far past the
//! other's hit.

/// The bytes the visible-text scan stops at with code tracking off: those that may begin a
/// marker.
pub(super) const MARKER_BYTES: [u8; 3] = [b'<', b'[', 0xE2];

/// With code tracking on: the marker bytes, then the bytes that may open code.
pub(super) const STOP_BYTES: [u8; 5] = [b'<', b'[', 0xE2, b'`', b'~'];

/// Inside a one-backtick span: the closer, a line break (the general search then answers) and
/// the marker bytes (the span is then read for markup).
pub(super) const SPAN_BYTES: [u8; 5] = [b'`', b'\n', b'<', b'[', 0xE2];

/// The first byte of `h` the visible-text scan stops at: a marker byte or, with `code`
/// tracking, one that may open code.
#[inline]
pub(super) fn find_stop(code: bool, h: &[u8]) -> Option<usize> {
    if code {
        find_any(h, &STOP_BYTES)
    } else {
        find_any(h, &MARKER_BYTES)
    }
}

/// The first position in `h` holding a byte of `set` (at most six bytes).
#[inline]
pub(super) fn find_any<const N: usize>(h: &[u8], set: &[u8; N]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        find_sse2(h, set)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        find_windows(h, set)
    }
}

/// [`find_any`] with SSE2: each 16-byte block compared with every byte of the set.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn find_sse2<const N: usize>(h: &[u8], set: &[u8; N]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    if h.len() < 16 {
        return h.iter().position(|b| set.contains(b));
    }
    // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics are available on every
    // x86-64 CPU; each load reads the 16 bytes at `h[at..at + 16]`, and `at + 16 <= h.len()`
    // holds at every load (the loop's condition, and `h.len() - 16` for the last block).
    unsafe {
        let needles = set.map(|b| _mm_set1_epi8(b as i8));
        let mask_at = |at: usize| -> u32 {
            let v = _mm_loadu_si128(h.as_ptr().add(at).cast::<__m128i>());
            let mut hit = _mm_setzero_si128();
            for n in needles {
                hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, n));
            }
            _mm_movemask_epi8(hit) as u32
        };
        let mut at = 0;
        while at + 16 <= h.len() {
            let m = mask_at(at);
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
            at += 16;
        }
        if at == h.len() {
            return None;
        }
        // The last block overlaps bytes already checked: their bits are dropped.
        let last = h.len() - 16;
        let m = mask_at(last) >> (at - last);
        (m != 0).then(|| at + m.trailing_zeros() as usize)
    }
}

/// [`find_any`] without SSE2: `memchr3` on each half of the set, 64 bytes at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn find_windows<const N: usize>(h: &[u8], set: &[u8; N]) -> Option<usize> {
    let at = |k: usize| set[k.min(N - 1)];
    let mut from = 0;
    while from < h.len() {
        let w = &h[from..(from + 64).min(h.len())];
        let a = memchr::memchr3(at(0), at(1), at(2), w);
        let b = if N > 3 {
            memchr::memchr3(at(3), at(4), at(5), w)
        } else {
            None
        };
        if let Some(k) = a.into_iter().chain(b).min() {
            return Some(from + k);
        }
        from += w.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(h: &[u8], set: &[u8]) -> Option<usize> {
        h.iter().position(|b| set.contains(b))
    }

    #[test]
    fn both_searches_find_the_first_byte_of_the_set() {
        // Every length up to past four blocks and one window, the hit at every position and
        // none; bytes next to the set's (`;`, 0xE3, `}`, `\r`) around it.
        for len in 0..72 {
            for hit in (0..len).map(Some).chain([None]) {
                for &(b, other) in &[(b'<', b';'), (0xE2, 0xE3), (b'~', b'}'), (b'\n', b'\r')] {
                    let mut h = vec![other; len];
                    if let Some(k) = hit {
                        h[k] = b;
                        // A second hit later changes nothing.
                        if k + 7 < len {
                            h[k + 7] = b'`';
                        }
                    }
                    for set in [&STOP_BYTES, &SPAN_BYTES] {
                        let want = naive(&h, set);
                        assert_eq!(find_any(&h, set), want, "{len} {hit:?} {b}");
                        assert_eq!(find_windows(&h, set), want, "{len} {hit:?} {b}");
                    }
                    let want = naive(&h, &MARKER_BYTES);
                    assert_eq!(find_any(&h, &MARKER_BYTES), want);
                    assert_eq!(find_windows(&h, &MARKER_BYTES), want);
                }
            }
        }
    }
}
