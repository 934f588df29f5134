//! A text the cleaner derived from a reply, described as pieces of the reply in UTF-16 units, so
//! the addon can hand JavaScript a plan (join these slices of your own string) instead of a new
//! string.
//!
//! Why: `cleanResponse` and `sanitizeToolCall` run on Rust text, and their visible text is the
//! reply with some markup taken out. Turning that text back into a JS string meant encoding it as
//! UTF-16 (character by character for CJK) and V8 copying it again: on a 50 KB half-Chinese reply
//! about as much as the cleaning itself. Joining a few slices of the caller's string costs V8 next
//! to nothing. The pieces are found by matching the output against the source (the cleaner keeps
//! the text it does not remove, in order), so no rule has to report where its text came from, and
//! whatever is matched is equal byte for byte: the plan always spells the output exactly.
//! `cleanResponse` needs no matching: its machine records the ranges it keeps
//! ([`crate::response::stream`]'s spans; the reply table checks that they spell the content),
//! which [`plan`] turns into UTF-16 offsets; the matching was a tenth of a call-dense reply's
//! native call. The content itself is not even written ([`kept_text`] when a string is needed).

use crate::response::scan::find_from;
use crate::response::stream::Spans;
use crate::response::{clean_response_owned, Cleaned, Options};

/// `out` as pieces of `src`: `[start, end, start, end, …]`, UTF-16 offsets into `src`, in order,
/// joining to exactly `out`. `None` when that takes more than `max` pieces (an output with text
/// of its own, or pieces too short to be worth it) or an offset does not fit an `i32`.
///
/// Both texts are plain UTF-8 (no mapped lone surrogates: a mapped one is four bytes of text for
/// one unit of the JS string).
///
/// ```
/// use transcript_hygiene::utf16_pieces::pieces;
/// let src = "前言 <tool_call>{}</tool_call> 后记";
/// // "前言 " is 3 units, the markup 25, " 后记" 3.
/// assert_eq!(pieces(src, "前言  后记", 4), Some(vec![0, 3, 28, 31]));
/// assert_eq!(pieces(src, "not in it", 4), None);
/// ```
pub fn pieces(src: &str, out: &str, max: usize) -> Option<Vec<i32>> {
    let s = src.as_bytes();
    let o = out.as_bytes();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut budget = 4 * s.len();
    while j < o.len() {
        let mut l = common_prefix(&s[i..], &o[j..]);
        // A mismatch may fall inside a character: cut at the last whole one.
        while l > 0 && !out.is_char_boundary(j + l) {
            l -= 1;
        }
        if l > 0 {
            match ranges.last_mut() {
                Some(last) if last.1 == i => last.1 = i + l,
                _ => {
                    if ranges.len() >= max {
                        return None;
                    }
                    ranges.push((i, i + l));
                }
            }
            i += l;
            j += l;
            continue;
        }
        // Skip what was taken out: to the next place the output's next bytes occur, after the
        // character at `i` (it differs from the output's next one, so `i` moves on). The next
        // piece may be shorter than the needle: then shorter needles, down to one character.
        let next = i + src[i..].chars().next().map_or(1, char::len_utf8);
        let mut len = NEEDLE.min(o.len() - j);
        i = loop {
            let mut k = (j + len).min(o.len());
            while !out.is_char_boundary(k) {
                k += 1;
            }
            if let Some(at) = find_from(src, &out[j..k], next) {
                break at;
            }
            // A failed search read the rest of the source: past a few sources' worth of those,
            // the caller's other path is cheaper.
            budget = budget.checked_sub(s.len().saturating_sub(next))?;
            if len == 1 {
                return None;
            }
            len /= 2;
        };
    }
    plan(src, &ranges)
}

/// Byte `ranges` of `src` (in order, not overlapping) as the plan [`pieces`] returns: the same
/// ranges in UTF-16 offsets. `None` when they are out of order or out of `src`, or an offset does
/// not fit an `i32`. (The cleaner knows the ranges it keeps: `cleanResponse` goes this way.)
pub(crate) fn plan(src: &str, ranges: &[(usize, usize)]) -> Option<Vec<i32>> {
    let s = src.as_bytes();
    let mut plan = Vec::with_capacity(2 * ranges.len());
    let (mut at, mut units) = (0, 0);
    for &(a, b) in ranges {
        units += utf16_len(s.get(at..a)?);
        plan.push(i32::try_from(units).ok()?);
        units += utf16_len(s.get(a..b)?);
        plan.push(i32::try_from(units).ok()?);
        at = b;
    }
    Some(plan)
}

/// The plan of the content the cleaner kept as `spans` of `src` (`cleanResponse`'s way: the
/// content itself is never written, [`crate::response::clean_response_owned`]): `None` when it
/// takes more than `max` pieces or an offset does not fit an `i32` (a new string then,
/// [`kept_text`]).
pub(crate) fn kept_plan(src: &str, spans: &Spans, max: usize) -> Option<Vec<i32>> {
    (spans.0.len() <= max)
        .then(|| plan(src, &spans.0))
        .flatten()
}

/// The length in bytes of the text `spans` spell.
pub(crate) fn kept_len(spans: &Spans) -> usize {
    spans.0.iter().map(|&(a, b)| b.saturating_sub(a)).sum()
}

/// Whether the text `spans` of `src` spell is ASCII (read in place, not copied).
pub(crate) fn kept_is_ascii(src: &str, spans: &Spans) -> bool {
    let s = src.as_bytes();
    spans
        .0
        .iter()
        .all(|&(a, b)| s.get(a..b).is_none_or(<[u8]>::is_ascii))
}

/// The text `spans` of `src` spell, as a new string (when no plan is handed back).
pub(crate) fn kept_text(src: &str, spans: &Spans) -> String {
    let mut out = String::with_capacity(kept_len(spans));
    for &(a, b) in &spans.0 {
        out.push_str(src.get(a..b).unwrap_or(""));
    }
    out
}

/// Whether `spans` keep all of `src`: the content is the reply, unchanged (adjacent ranges are
/// merged, so only one range can span it).
pub(crate) fn kept_all(src: &str, spans: &Spans) -> bool {
    src.is_empty() || spans.0 == [(0, src.len())]
}

/// The ranges of a reply that `cleanResponse`'s content keeps, for `examples/clean_rate` to time
/// the addon's boundary as the addon runs it ([`clean_kept`], [`Kept::plan`]).
#[doc(hidden)]
pub struct Kept(Spans);

impl Kept {
    /// [`kept_plan`]: the plan of slices the addon hands back for the content.
    pub fn plan(&self, src: &str, max: usize) -> Option<Vec<i32>> {
        kept_plan(src, &self.0, max)
    }
}

/// `clean_response` as `cleanResponse` runs it: the reply handed over and given back (third), the
/// kept ranges recorded and the content not written.
#[doc(hidden)]
pub fn clean_kept(src: String, opts: &Options) -> (Cleaned, Option<Kept>, String) {
    let (cleaned, spans, src) = clean_response_owned(src, opts);
    (cleaned, spans.map(Kept), src)
}

/// How many bytes of the output are looked for after a removed part: enough that prose rarely
/// repeats them inside the markup that was removed.
const NEEDLE: usize = 16;

/// The length of the common prefix of `a` and `b`: 1 KB blocks compared by `memcmp`, then 32
/// bytes, then bytes.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + 1024 <= n && a[at..at + 1024] == b[at..at + 1024] {
        at += 1024;
    }
    while at + 32 <= n && a[at..at + 32] == b[at..at + 32] {
        at += 32;
    }
    while at < n && a[at] == b[at] {
        at += 1;
    }
    at
}

/// The UTF-16 length of valid UTF-8 `b`: one unit per character, two for a four-byte one.
/// Counted 64 bytes at a time in a one-byte counter (at most 128 a block), which vectorises
/// sixteen times wider than a sum of `usize`s. (Explicit SSE2 steps of sixteen bytes, two signed
/// compares and two subtractions each, took as many instructions on a call-dense reply.) Where
/// the CPU has AVX2 (asked at run time; the standard library remembers the answer) the same
/// count is compiled for it: 32 bytes a step, where this count over the whole reply for the
/// content's plan was 4–6% of a call-dense reply's cleaning (callgrind).
fn utf16_len(b: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just now).
        return unsafe { utf16_len_avx2(b) };
    }
    utf16_len_any(b)
}

/// [`utf16_len`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn utf16_len_avx2(b: &[u8]) -> usize {
    utf16_len_any(b)
}

/// [`utf16_len`]'s count, for any CPU.
#[inline(always)]
fn utf16_len_any(b: &[u8]) -> usize {
    let units = |c: &[u8]| {
        c.iter().fold(0u8, |n, &x| {
            n.wrapping_add(u8::from(x & 0xC0 != 0x80) + u8::from(x >= 0xF0))
        })
    };
    let blocks = b.chunks_exact(64);
    let rest = usize::from(units(blocks.remainder()));
    blocks.map(|c| usize::from(units(c))).sum::<usize>() + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan applied to `src`'s UTF-16 units, as JS applies it.
    fn apply(src: &str, plan: &[i32]) -> String {
        let u: Vec<u16> = src.encode_utf16().collect();
        let mut out = Vec::new();
        for p in plan.chunks(2) {
            out.extend_from_slice(&u[p[0] as usize..p[1] as usize]);
        }
        String::from_utf16(&out).unwrap_or_default()
    }

    #[test]
    fn plans_spell_the_output_exactly() {
        let cases = [
            ("abc", "abc"),
            ("abc", ""),
            ("a<x>b", "ab"),
            ("前言\n<think>想</think>\n正文😀 end", "前言\n正文😀 end"),
            // The output's next bytes also occur inside the removed part: still the same text.
            ("ok <tool_call>ok</tool_call>ok", "ok ok"),
            // A mismatch inside a character (中 and 丰 share two bytes).
            ("中丰", "丰"),
        ];
        for (src, out) in cases {
            let plan = pieces(src, out, 8).unwrap_or_default();
            assert_eq!(apply(src, &plan), out, "{src:?} -> {out:?}");
        }
    }

    #[test]
    fn too_many_pieces_or_foreign_text_is_none() {
        assert_eq!(pieces("a-b-c-d", "abcd", 3), None);
        assert!(pieces("a-b-c-d", "abcd", 4).is_some());
        assert_eq!(pieces("abc", "abcd", 8), None);
        assert_eq!(pieces("abc", "x", 8), None);
    }

    #[test]
    fn grows_linearly() {
        use crate::response::linearity::assert_grows_linearly;
        // Outputs whose every next piece is searched for far ahead, with near misses on the way.
        for (unit, kept) in [
            ("<x>中文ab", "ab"),
            ("aaaaaaaaaaaaaaab", "b"),
            ("中丰", "丰"),
        ] {
            assert_grows_linearly(
                &format!("pieces of {unit:?}"),
                &|n| unit.repeat(n / unit.len()),
                &|t| {
                    let out = kept.repeat(t.len() / unit.len());
                    let _ = pieces(t, &out, 32);
                    let mut half = t.len() / 2;
                    while !t.is_char_boundary(half) {
                        half += 1;
                    }
                    let _ = pieces(t, &t[half..], 32);
                },
            );
        }
    }

    #[test]
    fn utf16_len_counts_units_across_blocks() {
        let s = "a中😀é".repeat(40);
        for (i, _) in s.char_indices() {
            assert_eq!(utf16_len(&s.as_bytes()[..i]), s[..i].encode_utf16().count());
        }
        // Past a block's one-byte counter, four-byte characters counting two; every kind of lead
        // and continuation byte in every place of a block.
        for s in [
            "😀".repeat(1100),
            "\u{10FFFF}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}".repeat(300),
        ] {
            assert_eq!(utf16_len(s.as_bytes()), s.encode_utf16().count());
            // The count for any CPU too (the AVX2 one is taken where the CPU has it).
            assert_eq!(utf16_len_any(s.as_bytes()), s.encode_utf16().count());
        }
    }

    #[test]
    fn kept_spans_give_the_content_the_cleaner_did_not_write() {
        use crate::response::clean_response_spans;
        let opts = Options::default();
        let call =
            "<tool_call>\n{\"name\": \"读\", \"arguments\": {\"p\": \"文件\"}}\n</tool_call>";
        for src in [
            format!("前言😀\n\n{call}\n\n后记 end"),
            format!("ascii only {call} tail"),
            "没有标记的回复，原样返回。".to_owned(),
            String::new(),
        ] {
            let (whole, _) = clean_response_spans(&src, &opts);
            let (owned, spans, back) = clean_response_owned(src.clone(), &opts);
            let spans = spans.unwrap_or_default();
            assert_eq!((owned.content.as_str(), back.as_str()), ("", src.as_str()));
            assert_eq!(kept_text(&src, &spans), whole.content, "{src:?}");
            assert_eq!(kept_len(&spans), whole.content.len());
            assert_eq!(kept_is_ascii(&src, &spans), whole.content.is_ascii());
            assert_eq!(kept_all(&src, &spans), whole.content == src);
            let plan = kept_plan(&src, &spans, 8).unwrap_or_default();
            assert_eq!(apply(&src, &plan), whole.content);
        }
    }

    #[test]
    fn offsets_count_utf16_units() {
        // 😀 is two units, 中 one.
        assert_eq!(pieces("😀中<x>a", "😀中a", 4), Some(vec![0, 3, 6, 7]));
    }
}
