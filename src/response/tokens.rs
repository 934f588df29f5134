//! The markup tokens of a piece of text, found in one pass, for the readers whose markup is a
//! handful of tokens that begin with `<`: Kimi-K2's `<|tool_call_begin|>`, DeepSeek's
//! `<｜tool▁sep｜>` ([`Tokens::scan`]), the XML-ish invokes' `<invoke`, `</parameter>`, …
//! ([`Tokens::prefixes`]).
//!
//! Those readers ask, again and again, "where is the next token of this kind at or after byte
//! `i`". Asked of the text, each question is a `memchr` for `<` and a compare at every `<` it
//! passes, so a call block was compared with each of its half-dozen tokens at each of its `<`
//! (perf on call-dense replies: a fifth to a third of the cleaning time in those searches). Here
//! each `<` is looked at once, and a question is a walk over the tokens found, remembered like
//! [`super::scan::Finder`] ([`Next`]) so a reader's forward searches stay linear.
//!
//! A token has no `<` but its first byte, so tokens never overlap, and one that starts inside a
//! range of the text ending at another token's start, at a token's end or at the end of the text
//! ends inside that range: searching the range's own text would find the same tokens.

/// One token dialect: `open` NAME `close`, `open` starting with `<` and holding no other, NAME
/// (at most 48 bytes) holding neither `<` nor `close`'s first byte.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    pub open: &'static str,
    pub close: &'static str,
    /// The names this reader knows; a token's kind is its name's index here.
    pub names: &'static [&'static str],
}

impl Dialect {
    /// Each known token as written (`open` + name + `close`), in kind order: what a reader's
    /// tests compare with its token constants.
    #[cfg(test)]
    pub fn spelled(&self) -> Vec<String> {
        (self.names.iter())
            .map(|n| format!("{}{n}{}", self.open, self.close))
            .collect()
    }
}

/// The tokens of one text, in order: `(byte offset, kinds)`, the kinds a bit mask (bit `k` for
/// kind `k`; several when one token is a prefix of another).
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    found: Vec<(usize, u32)>,
}

/// Longest name a dialect may hold.
const MAX_NAME: usize = 48;

/// Room for the tokens of a usual call block (a section, a call and its parts), so reading one
/// does not grow the list three times (a few per cent of a reply dense with calls).
const FIRST_ROOM: usize = 16;

impl Tokens {
    /// Every token of `d` in `text`: exactly the places where `text` holds `open + name + close`
    /// for one of `d.names`.
    ///
    /// At each `<`, each name is tried where it would stand: `close` after it first (the length
    /// rules most names out), then the name compared a word at a time from its end (names of
    /// one length mostly differ there: `reserved_token_163595`, `…596`). No `memchr` for the
    /// name's end and no `memcmp` per name: those calls were most of a DeepSeek block's scan.
    /// The same tokens as looking for `close` after the name: a name holds neither `<` nor
    /// `close`'s first byte, so at most one name is followed by `close`.
    pub fn scan(text: &str, d: &Dialect) -> Tokens {
        let b = text.as_bytes();
        let (open, close) = (d.open.as_bytes(), d.close.as_bytes());
        let mut found = Vec::with_capacity(FIRST_ROOM);
        let Some(&stop) = close.first() else {
            return Tokens { found };
        };
        debug_assert!(d
            .names
            .iter()
            .all(|n| n.len() <= MAX_NAME && !n.bytes().any(|c| c == b'<' || c == stop)));
        for p in memchr::memchr_iter(b'<', b) {
            let rest = &b[p..];
            if rest.len() < open.len() || !same(&rest[..open.len()], open) {
                continue;
            }
            let after = &rest[open.len()..];
            for (k, name) in d.names.iter().enumerate() {
                let (name, n) = (name.as_bytes(), name.len());
                if after.len() >= n + close.len()
                    && same(&after[n..n + close.len()], close)
                    && same(&after[..n], name)
                {
                    found.push((p, 1 << k));
                    break;
                }
            }
        }
        Tokens { found }
    }

    /// Every place in `text` where one of `needles` (each starting with `<`, at most 32) begins:
    /// kind `k` is `needles[k]`.
    pub fn prefixes(text: &str, needles: &[&str]) -> Tokens {
        let b = text.as_bytes();
        let mut found = Vec::with_capacity(FIRST_ROOM);
        for p in memchr::memchr_iter(b'<', b) {
            let rest = &b[p..];
            let mut mask = 0;
            for (k, n) in needles.iter().enumerate().take(32) {
                let n = n.as_bytes();
                // The second byte first: most `<` of a block begin another needle. (Cheaper here
                // than [`Matcher`]'s head words, measured: a handful of needles, asked once.)
                if n.get(1).is_none_or(|c| rest.get(1) == Some(c)) && rest.starts_with(n) {
                    mask |= 1 << k;
                }
            }
            if mask != 0 {
                found.push((p, mask));
            }
        }
        Tokens { found }
    }

    /// [`Tokens::prefixes`] for needles known when the reader is compiled ([`Words`]): at a `<`
    /// with sixteen bytes after it each needle is two word compares, where `prefixes` compares
    /// the second byte and then calls `memcmp` for each needle it could be (both closers of a
    /// pair that share `</`).
    pub fn words<const N: usize>(text: &str, w: &Words<N>) -> Tokens {
        let b = text.as_bytes();
        let mut found = Vec::with_capacity(FIRST_ROOM);
        for p in memchr::memchr_iter(b'<', b) {
            let rest = &b[p..];
            let mut mask = 0;
            if rest.len() >= 16 {
                let first = word_at(rest, 0);
                for (k, (n, &(h, t))) in w.needles.iter().zip(&w.words).enumerate() {
                    if first == h && word_at(rest, n.len() - 8) == t {
                        mask |= 1 << k;
                    }
                }
            } else {
                for (k, n) in w.needles.iter().enumerate() {
                    if rest.starts_with(n.as_bytes()) {
                        mask |= 1 << k;
                    }
                }
            }
            if mask != 0 {
                found.push((p, mask));
            }
        }
        Tokens { found }
    }

    /// When the first token is of a kind in `first`, the last of a kind in `last`, and every
    /// other token of none in `not_inside`: the offsets of the first and the last (a block
    /// that is one section, read without searching for what else it might hold).
    pub fn wrapped(&self, first: u32, last: u32, not_inside: u32) -> Option<(usize, usize)> {
        let (&(lo, a), rest) = self.found.split_first()?;
        let (&(hi, b), inside) = rest.split_last()?;
        let ok =
            a & first != 0 && b & last != 0 && inside.iter().all(|&(_, k)| k & not_inside == 0);
        ok.then_some((lo, hi))
    }

    /// The tokens that start in `lo..hi`, in order, for a reader that walks a short range once
    /// (cheaper there than a search per question).
    pub fn between(&self, lo: usize, hi: usize) -> &[(usize, u32)] {
        let from = self.found.partition_point(|&(p, _)| p < lo);
        let to = self.found.partition_point(|&(p, _)| p < hi);
        &self.found[from..to.max(from)]
    }

    /// Whether a token of a kind in `mask` (bit `k` for kind `k`) is present.
    pub fn any(&self, mask: u32) -> bool {
        self.found.iter().any(|&(_, k)| mask & k != 0)
    }
}

/// Up to 32 needles of 8 to 16 bytes, each starting with `<`, with their first and last eight
/// bytes as words, worked out at compile time ([`Tokens::words`]). A needle whose first and last
/// eight bytes match is matched whole: together they cover it.
pub struct Words<const N: usize> {
    needles: [&'static str; N],
    words: [(u64, u64); N],
}

impl<const N: usize> Words<N> {
    /// Panics (at compile time, in a `const`) on a needle shorter than 8 or longer than 16 bytes.
    pub const fn new(needles: [&'static str; N]) -> Self {
        assert!(N <= 32);
        let mut words = [(0, 0); N];
        let mut k = 0;
        while k < N {
            let n = needles[k].as_bytes();
            assert!(n.len() >= 8 && n.len() <= 16 && n[0] == b'<');
            words[k] = (const_word(n, 0), const_word(n, n.len() - 8));
            k += 1;
        }
        Words { needles, words }
    }
}

/// `b[at..at + 8]` as a little-endian word, in a `const`.
const fn const_word(b: &[u8], at: usize) -> u64 {
    let mut w = 0;
    let mut i = 0;
    while i < 8 {
        w |= (b[at + i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// Whether `a` and `b` (of one length) are equal, compared in words from the end (the last
/// word overlapping the one before it) without a call: the tokens' names and delimiters are a
/// few dozen bytes, where `memcmp`'s call and set-up cost more than the compare.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        if n < 4 {
            return a.iter().zip(b).all(|(x, y)| x == y);
        }
        let w = |s: &[u8], at: usize| u32::from_le_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
        return w(a, 0) == w(b, 0) && w(a, n - 4) == w(b, n - 4);
    }
    let mut end = n;
    loop {
        if word_at(a, end - 8) != word_at(b, end - 8) {
            return false;
        }
        if end <= 16 {
            return word_at(a, 0) == word_at(b, 0);
        }
        end -= 8;
    }
}

/// `b[at..at + 8]` as a little-endian word (one load).
#[inline]
fn word_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// `s`'s first (up to) eight bytes as a little-endian word, zero-padded, and the mask of the
/// bytes it holds: `w & mask == word` when a text's eight bytes `w` start with those bytes (the
/// stream's marker table compares its markers' heads the same way).
pub(crate) fn head(s: &[u8]) -> (u64, u64) {
    let n = s.len().min(8);
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&s[..n]);
    let mask = if n == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    };
    (u64::from_le_bytes(w), mask)
}

/// Whether one of `needles` (each starting with `<`, at most 32) occurs in `text`: one pass over
/// its `<` (where a search per needle was a pass each).
pub fn holds_any(text: &str, needles: &[&str]) -> bool {
    let b = text.as_bytes();
    let m = Matcher::new(needles);
    memchr::memchr_iter(b'<', b).any(|p| m.kinds_at(&b[p..]) != 0)
}

/// Up to 32 needles, each with its first eight bytes as one word ([`head`]): at a `<` with eight
/// bytes after it, a needle is ruled out (most are: each `<` of a block begins at most one) with
/// one compare instead of a byte compare and a `memcmp` call.
struct Matcher<'n> {
    needles: &'n [&'n str],
    heads: [(u64, u64); 32],
}

impl<'n> Matcher<'n> {
    fn new(needles: &'n [&'n str]) -> Self {
        let needles = &needles[..needles.len().min(32)];
        let mut heads = [(0u64, 0u64); 32];
        for (h, n) in heads.iter_mut().zip(needles) {
            *h = head(n.as_bytes());
        }
        Matcher { needles, heads }
    }

    /// The kinds of the needles `rest` starts with (bit `k` for `needles[k]`).
    #[inline]
    fn kinds_at(&self, rest: &[u8]) -> u32 {
        let mut mask = 0;
        if let Some(w) = rest.get(..8) {
            let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            for (k, (n, &(h, m))) in self.needles.iter().zip(&self.heads).enumerate() {
                let n = n.as_bytes();
                if w & m == h && (n.len() <= 8 || rest.starts_with(n)) {
                    mask |= 1 << k;
                }
            }
        } else {
            for (k, n) in self.needles.iter().enumerate() {
                if rest.starts_with(n.as_bytes()) {
                    mask |= 1 << k;
                }
            }
        }
        mask
    }
}

/// Forward searches for the tokens of some kinds (a bit mask), remembered like
/// [`super::scan::Finder`]: asked again from a place at or before its last answer, or within a
/// range it already found empty, it answers without a walk.
#[derive(Debug, Clone, Copy)]
pub struct Next {
    mask: u32,
    /// The last walk: from where, and its first hit, or how far it found none.
    last: Option<(usize, Seen)>,
}

/// What a walk saw: its first hit `(offset, kinds)`, or `Err(to)`: none before `to`.
type Seen = Result<(usize, u32), usize>;

impl Next {
    pub fn new(mask: u32) -> Self {
        Next { mask, last: None }
    }

    /// The first token of this search's kinds at or after `from`: `(offset, its kinds)`.
    pub fn find(&mut self, t: &Tokens, from: usize) -> Option<(usize, u32)> {
        self.find_within(t, from, usize::MAX)
    }

    /// The offset of the first such token at or after `from` and before `to`.
    pub fn find_before(&mut self, t: &Tokens, from: usize, to: usize) -> Option<usize> {
        self.find_within(t, from, to).map(|(p, _)| p)
    }

    /// The first such token in `from..to`; the walk stops at `to`, so searches of one range
    /// after another cost the ranges' tokens, not the rest of the text each time.
    fn find_within(&mut self, t: &Tokens, from: usize, to: usize) -> Option<(usize, u32)> {
        if let Some((f, seen)) = self.last {
            if from >= f {
                match seen {
                    Ok(h) if h.0 >= from => return Some(h).filter(|h| h.0 < to),
                    Err(reach) if to <= reach => return None,
                    _ => {}
                }
            }
        }
        let i = t.found.partition_point(|&(p, _)| p < from);
        for &(p, k) in &t.found[i..] {
            if p >= to {
                self.last = Some((from, Err(to)));
                return None;
            }
            if self.mask & k != 0 {
                self.last = Some((from, Ok((p, k))));
                return Some((p, k));
            }
        }
        self.last = Some((from, Err(usize::MAX)));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: Dialect = Dialect {
        open: "<|",
        close: "|>",
        names: &["a", "bb", "c_d"],
    };

    #[test]
    fn finds_exactly_the_named_tokens() {
        let t = "x<|a|><|bb|> <|b|><|a|<|c_d|>中<|a|>< |a|><|a";
        let toks = Tokens::scan(t, &D);
        let want: Vec<(usize, u32)> = ["<|a|>", "<|bb|>", "<|c_d|>"]
            .iter()
            .enumerate()
            .flat_map(|(k, m)| t.match_indices(m).map(move |(i, _)| (i, 1u32 << k)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(toks.found, want);
        let mut a = Next::new(1);
        assert_eq!(a.find(&toks, 0), Some((1, 1)));
        assert_eq!(a.find(&toks, 2).map(|h| h.0), t.find("中").map(|i| i + 3));
        assert_eq!(a.find(&toks, t.len()), None);
        let mut bc = Next::new(0b110);
        assert_eq!(bc.find(&toks, 0), Some((6, 0b10)));
        assert_eq!(bc.find_before(&toks, 7, 20), None);
        assert!(toks.any(0b100) && !Tokens::scan("<|b|>", &D).any(0b111));

        // Wide delimiters (DeepSeek's) and names of every length the word compare treats
        // apart (under 4, under 8, 8–16, longer, one of the same length as another differing
        // only at its start, middle or end); near misses in each place, tokens cut at the end.
        const W: Dialect = Dialect {
            open: "<｜",
            close: "｜>",
            names: &[
                "ab",
                "tool▁",
                "tool▁sep",
                "tool▁calls▁begin",
                "tool▁calls▁bogin",
                "tool▁callx▁begin",
                "xool▁calls▁begin",
                "end▁of▁sentence▁and▁more",
            ],
        };
        let spelled = W.spelled();
        let mut text = String::from("中<｜");
        for (k, s) in spelled.iter().enumerate() {
            text.push_str(s);
            let cut = s.chars().count() - 1 - k % 3;
            text.extend(s.chars().take(cut));
            text.push_str(&s.replacen('o', "0", 1));
            text.push_str(&s.replace('▁', "_"));
            text.push_str("文<");
        }
        text.push_str("<｜ab｜");
        for t in [text.as_str(), "<｜tool▁sep｜", "<｜", "<｜ab｜>", ""] {
            let mut want: Vec<(usize, u32)> = (spelled.iter().enumerate())
                .flat_map(|(k, m)| t.match_indices(m.as_str()).map(move |(i, _)| (i, 1 << k)))
                .collect();
            want.sort_unstable();
            assert_eq!(Tokens::scan(t, &W).found, want, "{t}");
        }
    }

    #[test]
    fn prefixes_are_every_match_of_every_needle() {
        let t = "<in<invoke><invokes </invoke><p 中<param<parameter <";
        let needles = ["<invoke", "</invoke>", "<param", "<parameter"];
        let toks = Tokens::prefixes(t, &needles);
        for (k, n) in needles.iter().enumerate() {
            let want: Vec<usize> = t.match_indices(n).map(|(i, _)| i).collect();
            let got: Vec<usize> = (toks.found.iter())
                .filter(|e| e.1 & (1 << k) != 0)
                .map(|e| e.0)
                .collect();
            assert_eq!(got, want, "{n}");
        }
        // Needles longer than the eight-byte head, tokens within eight bytes of the end, and
        // `holds_any` agreeing with a search per needle.
        let closers = [
            "<|tool_calls_section_end|>",
            "<|tool_call_section_end|>",
            "</a>",
        ];
        for t in [
            "<|tool_call_begin|>f:0<|tool_calls_section_en|>",
            "前<|tool_call_section_end|>",
            "x</a>",
            "<|tool_c",
            "</a",
            "",
        ] {
            let mut want: Vec<usize> = (0..closers.len())
                .flat_map(|k| t.match_indices(closers[k]).map(|(i, _)| i))
                .collect();
            want.sort_unstable();
            let got: Vec<usize> = Tokens::prefixes(t, &closers)
                .found
                .iter()
                .map(|e| e.0)
                .collect();
            assert_eq!(got, want, "{t}");
            assert_eq!(holds_any(t, &closers), !want.is_empty(), "{t}");
        }
        // The compiled word needles agree with `prefixes`: near misses in the first and in the
        // last eight bytes, a needle that is another's prefix, tokens within sixteen bytes of
        // the end and cut there.
        const W: Words<4> =
            Words::new(["<function=", "</function>", "<parameter=", "<parameter=x>"]);
        for t in [
            "<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>",
            "<functionX f</function< <fanction= </functiom> <parameter=x>中",
            "<parameter=x</function>",
            "</function",
            "<parameter=",
            "",
        ] {
            assert_eq!(
                Tokens::words(t, &W).found,
                Tokens::prefixes(t, &W.needles).found,
                "{t}"
            );
        }
    }
}
