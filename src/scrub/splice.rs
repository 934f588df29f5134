//! A scrubber's output as pieces of its input: every scrubber only keeps ranges of its input and
//! inserts short ASCII literals (a space for a special token), so its result can be described as
//! a list of pieces instead of a new text, and a JS string can be rebuilt from the caller's own
//! UTF-16 units with a few copies.
//!
//! Why: transcoding a reply between UTF-16 (what JS holds) and UTF-8 (what Rust's `str` is) goes
//! character by character for CJK text, and on a 50 KB half-Chinese reply that alone cost more
//! than OpenClaw's whole regex pass (measured ~55–100 µs each way against ~43 µs for OpenClaw's
//! `stripMinimaxToolCallXml`). So the addon runs the scrubbers on a *proxy*: one ASCII byte per
//! UTF-16 unit ([`proxy`]), where every unit a scrubber does not tell apart from others becomes
//! the same byte. The scrubbers' rules look only at ASCII markup, JavaScript whitespace and the
//! full-width bar `｜`, so they decide exactly what they decide on the real text, with the same
//! positions as the JS string (JavaScript's non-Unicode regexes see UTF-16 units too). The
//! pieces then index the caller's units directly.
//!
//! The same code serves Rust callers with real text ([`Spliced::new`]): one definition of each
//! rule, two alphabets ([`Alphabet`]).

use std::borrow::Cow;
use std::ops::Range;

use regex::Regex;

/// What the bytes of a [`Spliced`] text are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alphabet {
    /// Real UTF-8 text.
    Utf8,
    /// One byte per UTF-16 unit (see [`proxy`]).
    Proxy,
}

/// The proxy byte of every unit the scrubbers do not distinguish (CJK, emoji halves, accents,
/// and the control byte itself).
const OPAQUE: u8 = 0x01;
/// The proxy byte of the full-width bar `｜` (U+FF5C) of DeepSeek's special tokens.
pub const PROXY_BAR: u8 = 0x02;
/// The proxy byte of non-ASCII JavaScript whitespace (U+3000, U+00A0, …): vertical tab, itself
/// JavaScript whitespace and neither a blank nor a line break to any rule.
const PROXY_SPACE: u8 = 0x0B;

impl Alphabet {
    /// The full-width bar as written in this alphabet.
    pub fn bar(self) -> &'static str {
        match self {
            Alphabet::Utf8 => "｜",
            Alphabet::Proxy => "\u{2}",
        }
    }
}

/// The proxy of UTF-16 `units`: one ASCII byte per unit (see the module doc).
///
/// Sixteen units at a time: each becomes itself when ASCII and [`OPAQUE`] otherwise, and only a
/// block holding one of the rare units the rules tell apart (JavaScript's non-ASCII whitespace,
/// the full-width bar, the control byte [`PROXY_BAR`] itself) is mapped again unit by unit. Both
/// loops are comparisons and selects only, so the compiler vectorises them: the exact mapping of
/// every unit cost ~0.5 ns a unit here (~16 µs on a 50 KB half-Chinese reply), this ~0.25.
pub fn proxy(units: &[u16]) -> String {
    let mut bytes = Vec::new();
    proxy_into(units, &mut bytes);
    // Every byte is ASCII.
    String::from_utf8(bytes).unwrap_or_default()
}

/// [`proxy`] written into `bytes` (cleared first), so a caller can reuse one buffer. Each block
/// of sixteen is made on the stack and copied into the buffer's spare room: a buffer zero-filled
/// first and then written over cost a `memset` of the whole reply (7.6% of
/// `stripThinkingTagsFromText` on a 50 KB half-Chinese reply, callgrind).
pub fn proxy_into(units: &[u16], bytes: &mut Vec<u8>) {
    bytes.clear();
    bytes.reserve(units.len());
    let mut src = units.chunks_exact(16);
    for s in &mut src {
        let mut d = [0u8; 16];
        let mut rare = false;
        for (d, &u) in d.iter_mut().zip(s) {
            *d = if u < 0x80 { u as u8 } else { OPAQUE };
            rare |= maybe_rare(u);
        }
        if rare {
            for (d, &u) in d.iter_mut().zip(s) {
                *d = proxy_byte(u);
            }
        }
        bytes.extend_from_slice(&d);
    }
    bytes.extend(src.remainder().iter().map(|&u| proxy_byte(u)));
}

/// The byte of every non-ASCII unit in the proxy of a rule that reads ASCII markup only
/// ([`ascii_proxy_into`]): DEL, which such a rule no more tells apart from other text than it does
/// [`OPAQUE`], and which makes the mapping a plain minimum.
pub const ASCII_OPAQUE: u8 = 0x7F;

/// The proxy for a rule that reads ASCII markup only (no whitespace test, no full-width bar),
/// written into `bytes` (cleared first): every unit at or above DEL is [`ASCII_OPAQUE`].
///
/// One pass of `min(unit, 0x7F)`, 32 units at a time with AVX2 where the CPU has it (chosen at
/// run time: the build targets plain x86-64), written straight into the buffer's spare room.
/// On a 50 KB reply this took ~2.3 µs against ~6–8 µs for a select to [`OPAQUE`] into a
/// zero-filled buffer (the zero-fill alone was 4% of a `stripMinimaxToolCallXml` call).
pub fn ascii_proxy_into(units: &[u16], bytes: &mut Vec<u8>) {
    bytes.clear();
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { ascii_narrow_avx2(units, bytes) };
        return;
    }
    ascii_narrow(units, bytes);
}

#[inline(always)]
fn ascii_narrow(units: &[u16], bytes: &mut Vec<u8>) {
    bytes.extend(units.iter().map(|&u| u.min(u16::from(ASCII_OPAQUE)) as u8));
}

/// [`ascii_narrow`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ascii_narrow_avx2(units: &[u16], bytes: &mut Vec<u8>) {
    ascii_narrow(units, bytes);
}

/// Whether `u` may map to something other than itself (ASCII) or [`OPAQUE`]: the units
/// [`proxy_byte`] tells apart, and a few more (U+2000..=U+205F as one range).
#[inline(always)]
fn maybe_rare(u: u16) -> bool {
    (u == 0x02)
        | (u == 0xA0)
        | (u == 0x1680)
        | (u.wrapping_sub(0x2000) < 0x60)
        | (u == 0x3000)
        | (u == 0xFEFF)
        | (u == 0xFF5C)
}

#[inline(always)]
fn proxy_byte(u: u16) -> u8 {
    let space = (u == 0xA0)
        | (u == 0x1680)
        | ((0x2000..=0x200A).contains(&u))
        | (u == 0x2028)
        | (u == 0x2029)
        | (u == 0x202F)
        | (u == 0x205F)
        | (u == 0x3000)
        | (u == 0xFEFF);
    let mut b = OPAQUE;
    if space {
        b = PROXY_SPACE;
    }
    if u == 0xFF5C {
        b = PROXY_BAR;
    }
    if (u < 0x80) & (u != 0x02) {
        b = u as u8;
    }
    b
}

/// Offset in the source of a piece that was inserted, not kept.
const INSERTED: usize = usize::MAX;

/// A text derived from a source text by keeping ranges of it and inserting literals.
#[derive(Debug, Clone)]
pub struct Spliced<'a> {
    text: Cow<'a, str>,
    alphabet: Alphabet,
    source_len: usize,
    /// `(offset in text, offset in the source or INSERTED)`, by text offset, the first at 0.
    segs: Vec<(usize, usize)>,
}

/// A text of `len` units made of `pieces`, as UTF-16: kept pieces copied from `units` (the
/// source), inserted literals widened (they are ASCII).
pub(crate) fn units_of<'p>(
    pieces: impl Iterator<Item = Piece<'p>>,
    len: usize,
    units: &[u16],
) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::with_capacity(len);
    for piece in pieces {
        match piece {
            Piece::Source(r) => out.extend_from_slice(units.get(r).unwrap_or(&[])),
            Piece::Inserted(s) => out.extend(s.bytes().map(u16::from)),
        }
    }
    out
}

/// One piece of a [`Spliced`] text.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'t> {
    /// This range of the source, kept.
    Source(Range<usize>),
    /// A literal inserted.
    Inserted(&'t str),
}

impl<'a> Spliced<'a> {
    /// The source itself, real UTF-8 text.
    pub fn new(text: &'a str) -> Self {
        Self::of(text, Alphabet::Utf8)
    }

    /// The source itself, in `alphabet`.
    pub fn of(text: &'a str, alphabet: Alphabet) -> Self {
        Spliced {
            text: Cow::Borrowed(text),
            alphabet,
            source_len: text.len(),
            segs: vec![(0, 0)],
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn alphabet(&self) -> Alphabet {
        self.alphabet
    }

    /// The text (borrowed when it is the source, untouched).
    pub fn into_text(self) -> Cow<'a, str> {
        self.text
    }

    /// Whether this is the source, unchanged.
    pub fn is_source(&self) -> bool {
        self.text.len() == self.source_len && self.segs == [(0, 0)]
    }

    /// The pieces, in order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece<'_>> + Clone {
        self.segs.iter().enumerate().filter_map(|(i, &(at, src))| {
            let end = self.segs.get(i + 1).map_or(self.text.len(), |s| s.0);
            if end == at {
                None
            } else if src == INSERTED {
                Some(Piece::Inserted(&self.text[at..end]))
            } else {
                Some(Piece::Source(src..src + end - at))
            }
        })
    }

    /// The text as UTF-16: kept pieces copied from `units` (the source, when this is a proxy of
    /// it), inserted literals widened (they are ASCII).
    pub fn to_units(&self, units: &[u16]) -> Vec<u16> {
        units_of(self.pieces(), self.text.len(), units)
    }

    /// A builder of a text derived from this one.
    pub fn builder(&self) -> Builder<'_, 'a> {
        Builder {
            from: self,
            text: String::with_capacity(self.text.len()),
            segs: Vec::new(),
            hint: 0,
        }
    }

    /// Every match of `re` replaced by `with`; `self` when there is none.
    pub fn replace_all(self, re: &Regex, with: &str) -> Self {
        let mut b: Option<Builder> = None;
        let mut last = 0;
        for m in re.find_iter(&self.text) {
            let out = b.get_or_insert_with(|| self.builder());
            out.keep(last..m.start());
            out.insert(with);
            last = m.end();
        }
        match b {
            None => self,
            Some(mut out) => {
                out.keep(last..self.text.len());
                out.finish()
            }
        }
    }

    /// `range` of this text alone (a trim).
    pub fn slice(self, range: Range<usize>) -> Self {
        if range == (0..self.text.len()) {
            return self;
        }
        let mut out = self.builder();
        out.keep(range);
        out.finish()
    }
}

/// Builds a [`Spliced`] text from pieces of another one.
pub struct Builder<'s, 'a> {
    from: &'s Spliced<'a>,
    text: String,
    segs: Vec<(usize, usize)>,
    /// The segment of `from` the last kept range ended in (ranges are kept in order).
    hint: usize,
}

impl<'a> Builder<'_, 'a> {
    /// What has been built so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn push_seg(&mut self, src: usize) {
        let at = self.text.len();
        if let Some(&(pat, psrc)) = self.segs.last() {
            if pat == at {
                self.segs.pop();
            } else if psrc != INSERTED && src != INSERTED && psrc + (at - pat) == src {
                return;
            }
        }
        self.segs.push((at, src));
    }

    /// Append `range` of the text built from.
    pub fn keep(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let segs = &self.from.segs;
        if self.hint >= segs.len() || segs[self.hint].0 > range.start {
            self.hint = segs
                .partition_point(|s| s.0 <= range.start)
                .saturating_sub(1);
        }
        while segs.get(self.hint + 1).is_some_and(|s| s.0 <= range.start) {
            self.hint += 1;
        }
        let mut at = range.start;
        while at < range.end {
            let (sat, src) = segs[self.hint];
            let seg_end = segs.get(self.hint + 1).map_or(usize::MAX, |s| s.0);
            let end = seg_end.min(range.end);
            self.push_seg(if src == INSERTED {
                INSERTED
            } else {
                src + (at - sat)
            });
            self.text.push_str(&self.from.text[at..end]);
            at = end;
            if at == seg_end {
                self.hint += 1;
            }
        }
    }

    /// Append a literal.
    pub fn insert(&mut self, s: &str) {
        if !s.is_empty() {
            self.push_seg(INSERTED);
            self.text.push_str(s);
        }
    }

    pub fn finish(mut self) -> Spliced<'a> {
        if self.segs.first().is_none_or(|s| s.0 != 0) {
            self.segs.insert(0, (0, INSERTED));
        }
        Spliced {
            text: Cow::Owned(self.text),
            alphabet: self.from.alphabet,
            source_len: self.from.source_len,
            segs: self.segs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js_text::is_js_whitespace;

    #[test]
    fn pieces_map_back_through_several_passes() {
        let src = "ab<x>cd<y>ef";
        let re = Regex::new(r"<.>").expect("regex");
        let once = Spliced::new(src).replace_all(&re, " ");
        assert_eq!(once.as_str(), "ab cd ef");
        let twice = once.slice(1..7);
        assert_eq!(twice.as_str(), "b cd e");
        let pieces: Vec<Piece> = twice.pieces().collect();
        assert_eq!(
            pieces,
            [
                Piece::Source(1..2),
                Piece::Inserted(" "),
                Piece::Source(5..7),
                Piece::Inserted(" "),
                Piece::Source(10..11),
            ]
        );
        assert!(!twice.is_source());
        assert!(
            Spliced::new(src)
                .replace_all(&re, "")
                .slice(1..5)
                .pieces()
                .count()
                == 3
        );
    }

    #[test]
    fn untouched_text_is_the_source() {
        let re = Regex::new("z").expect("regex");
        let s = Spliced::new("abc").replace_all(&re, "").slice(0..3);
        assert!(s.is_source());
        assert!(matches!(s.into_text(), Cow::Borrowed("abc")));
    }

    #[test]
    fn proxy_spaces_are_the_javascript_ones() {
        for u in 0x80..=0xFFFFu16 {
            let space = char::from_u32(u32::from(u)).is_some_and(is_js_whitespace);
            assert_eq!(proxy_byte(u) == PROXY_SPACE, space, "{u:#x}");
        }
    }

    #[test]
    fn proxy_by_blocks_is_the_unit_by_unit_mapping() {
        // Every unit, at every position of a 16-unit block, among ASCII and CJK neighbours.
        let mut units: Vec<u16> = Vec::new();
        for u in 0..=0xFFFFu16 {
            units.extend_from_slice(&[u16::from(b'a'), 0x4E2D, u]);
        }
        let exact: Vec<u8> = units.iter().map(|&u| proxy_byte(u)).collect();
        assert_eq!(proxy(&units).as_bytes(), &exact[..]);
        for u in 0..=0xFFFFu16 {
            assert!(
                proxy_byte(u) == OPAQUE || u < 0x80 || maybe_rare(u),
                "{u:#x}"
            );
        }
        // The ASCII-only proxy (AVX2 where the CPU has it), from every offset of a vector block.
        for skip in [0, 1, 7, 31] {
            let units = &units[skip..];
            let ascii: Vec<u8> = units
                .iter()
                .map(|&u| if u < 0x80 { u as u8 } else { ASCII_OPAQUE })
                .collect();
            let mut bytes = Vec::new();
            ascii_proxy_into(units, &mut bytes);
            assert_eq!(bytes, ascii);
        }
    }

    #[test]
    fn proxy_keeps_one_byte_per_unit_and_the_units_rules_tell_apart() {
        let units: Vec<u16> = "a｜中\u{3000}\u{2}😀<".encode_utf16().collect();
        assert_eq!(proxy(&units), "a\u{2}\u{1}\u{b}\u{1}\u{1}\u{1}<");
    }
}
