//! The reply scanner's first look at a JS string's UTF-16 units, before anything is transcoded:
//! does it hold a marker start (`<`, `[`, `◁`) and, with tools offered, a `{` (a bare-JSON call
//! may then name a tool)? Most replies hold no marker, and for those this pass is most of the
//! call: one compare per set member and chunk cost a quarter more with tools offered than without
//! (benchmark/tools-offered.mjs). So on x86-64 each 64-unit chunk is loaded once, 8 units a load
//! with SSE2 (part of every x86-64 CPU, so no feature check), compared against four constants —
//! `<`, `[`, `◁`, and `{` while a brace is still looked for, `<` again after — with one movemask
//! a chunk; only a chunk that hit is looked at again. Elsewhere each constant gets its own fold,
//! which the compiler vectorises. A reply with no marker start is then looked at once more for
//! Google's fence label `tool_code` (its `_` compared the same way).

/// A marker start other than `<` and `[`: the `◁` of Kimi's `◁think▷`.
const BAR: u16 = super::scan::MARKER_CHAR as u16;
const LT: u16 = 0x3C;
const BRACKET: u16 = 0x5B;
const BRACE: u16 = 0x7B;

/// Units per chunk: a hit is reported for the chunk it is in.
const CHUNK: usize = 64;

/// `(markers, brace)`: whether `units` holds a marker start and, with `brace`, whether a `{`
/// occurs; `brace` is only complete when `markers` is false (the one case it is needed in), and
/// then counts the chunks before the first one holding a marker.
pub fn units_scan(units: &[u16], brace: bool) -> (bool, bool) {
    let (chunks, tail) = units.as_chunks::<CHUNK>();
    let mut seen = false;
    let mut fourth = if brace { BRACE } else { LT };
    for c in chunks {
        if !any_of(c, [LT, BRACKET, BAR, fourth]) {
            continue;
        }
        if has_marker(c) {
            return (true, seen);
        }
        // Only the brace: from here on, markers alone are looked for.
        seen = true;
        fourth = LT;
    }
    if has_marker(tail) || holds_label(units) || ends_in_gt(units) {
        return (true, seen);
    }
    (false, seen || (brace && tail.contains(&BRACE)))
}

/// Whether the reply's last character, spaces and line breaks aside, is `>`: a Qwen3-Coder head
/// that lost its `<` (`function=bash">`) may end it alone, with no marker start anywhere
/// ([`super::qwen3_coder::lost_head_alone`]). Read back over the trailing spaces only, so a
/// marker-free reply pays a compare or two; one that ends in `>` gets the full pass. One rule for
/// the reply's bytes ([`super::scan::may_hold_markers`]) and its UTF-16 units.
pub(super) fn ends_in_gt<T: Copy + Into<u32>>(text: &[T]) -> bool {
    text.iter()
        .rev()
        .map(|&c| c.into())
        .find(|&c| !matches!(c, 0x20 | 0x09 | 0x0D | 0x0A))
        == Some(u32::from(b'>'))
}

/// Google's fence label `tool_code` in UTF-16 ([`super::tool_code::LABEL`]).
const LABEL: [u16; 9] = {
    let b = super::tool_code::LABEL.as_bytes();
    let mut out = [0u16; 9];
    let mut i = 0;
    while i < out.len() {
        out[i] = b[i] as u16;
        i += 1;
    }
    out
};

/// Whether `units` spell [`LABEL`] (a reply with no marker start may still hold a `tool_code`
/// fence): chunks are passed over by the `_` in its middle, as markers are.
fn holds_label(units: &[u16]) -> bool {
    const US: u16 = LABEL[4];
    let at = |i: usize| i >= 4 && units.get(i - 4..i + 5) == Some(&LABEL[..]);
    let (chunks, _) = units.as_chunks::<CHUNK>();
    let hit =
        |base: usize, c: &[u16]| (c.iter().enumerate()).any(|(k, &u)| u == US && at(base + k));
    for (n, c) in chunks.iter().enumerate() {
        if any_of(c, [US; 4]) && hit(n * CHUNK, c) {
            return true;
        }
    }
    let from = chunks.len() * CHUNK;
    hit(from, &units[from..])
}

/// Whether `c` holds a marker start: one fold per unit looked for, so each vectorises (one fold
/// of three compares was measured at ~1 ns a unit).
pub fn has_marker(c: &[u16]) -> bool {
    [LT, BRACKET, BAR]
        .iter()
        .any(|&m| c.iter().fold(false, |hit, &u| hit | (u == m)))
}

/// Whether any unit of the chunk is one of `set`: eight SSE2 loads, four compares each, one
/// movemask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn any_of(c: &[u16; CHUNK], set: [u16; 4]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi16,
        _mm_setzero_si128,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics are available on every
    // x86-64 CPU; each load reads the 8 units at `c[8 * k..8 * k + 8]`, inside the 64-unit array.
    unsafe {
        let [a, b, d, e] = set.map(|u| _mm_set1_epi16(u as i16));
        let mut hit = _mm_setzero_si128();
        for k in 0..CHUNK / 8 {
            let v = _mm_loadu_si128(c.as_ptr().add(8 * k).cast::<__m128i>());
            let ab = _mm_or_si128(_mm_cmpeq_epi16(v, a), _mm_cmpeq_epi16(v, b));
            let de = _mm_or_si128(_mm_cmpeq_epi16(v, d), _mm_cmpeq_epi16(v, e));
            hit = _mm_or_si128(hit, _mm_or_si128(ab, de));
        }
        _mm_movemask_epi8(hit) != 0
    }
}

/// [`any_of`] without SSE2: one fold per member of the set.
#[cfg(not(target_arch = "x86_64"))]
fn any_of(c: &[u16; CHUNK], set: [u16; 4]) -> bool {
    scalar_any_of(c, set)
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn scalar_any_of(c: &[u16], set: [u16; 4]) -> bool {
    set.iter()
        .any(|&m| c.iter().fold(false, |hit, &u| hit | (u == m)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The scan as it was written first: four folds a chunk, the brace fold until one is seen.
    fn chunked(units: &[u16], brace: bool) -> (bool, bool) {
        let mut seen = false;
        for c in units.chunks(CHUNK) {
            if has_marker(c) {
                return (true, seen);
            }
            if brace && !seen {
                seen = c.contains(&BRACE);
            }
        }
        (false, seen)
    }

    /// Units of a reply: Chinese and ASCII text, the set's units, their neighbours (`;`, `\``,
    /// `z`, `◀`, `◂`, and units whose low byte alone matches), and lone surrogates.
    fn unit() -> impl Strategy<Value = u16> {
        prop_oneof![
            8 => prop::sample::select(
                "中文说明也在这里。Paragraph: the model explains.\n".encode_utf16().collect::<Vec<_>>()
            ),
            1 => prop::sample::select(vec![
                LT, BRACKET, BAR, BRACE, 0x3B, 0x5C, 0x7A, 0x7C, 0x25C0, 0x25C2, 0x3C3C, 0x7B00,
                0x253C, 0xD83D, 0xDE00, 0,
            ]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Agrees with the chunked scan on random units, with set members placed at chunk
        /// edges and in the last partial chunk.
        #[test]
        fn agrees_with_the_chunked_scan(
            mut units in prop::collection::vec(unit(), 0..300),
            edges in prop::collection::vec((0usize..5, 0usize..4, any::<bool>()), 0..4),
            brace in any::<bool>(),
        ) {
            for (chunk, which, last) in edges {
                let at = chunk * CHUNK + if last { CHUNK - 1 } else { 0 };
                if let Some(u) = units.get_mut(at) {
                    *u = [LT, BRACKET, BAR, BRACE][which];
                }
            }
            prop_assert_eq!(units_scan(&units, brace), chunked(&units, brace));
        }
    }

    #[test]
    fn every_position_of_each_unit() {
        // Each member alone at every position of two chunks and a partial third, then a brace
        // before a marker in the same chunk and in an earlier one.
        for len in [0, 1, 63, 64, 65, 128, 150] {
            for at in 0..len {
                for u in [LT, BRACKET, BAR, BRACE, 0x3C00, 0x25C0] {
                    let mut units = vec![0x4E2D; len];
                    units[at] = u;
                    for brace in [false, true] {
                        let want = chunked(&units, brace);
                        assert_eq!(units_scan(&units, brace), want, "{len} {at} {u:#x}");
                        let set = [LT, BRACKET, BAR, BRACE];
                        assert_eq!(scalar_any_of(&units, set), set.contains(&u));
                    }
                }
            }
        }
        let mut units = vec![0x41; 200];
        units[70] = BRACE;
        units[75] = LT;
        assert_eq!(units_scan(&units, true), (true, false));
        units[10] = BRACE;
        assert_eq!(units_scan(&units, true), (true, true));
        assert_eq!(units_scan(&units, false), (true, false));
    }
}
