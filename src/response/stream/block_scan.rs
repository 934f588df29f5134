//! What a call block's scan may pass over without asking. Inside a call block the machine stops at
//! every byte that can begin a marker (`<`, `[`, `◁`) and asks two questions there: does a
//! reasoning marker start here ([`Machine::decide`](super::Machine)), and does one of the family's
//! closers? Most stops are the block's own inner tags (`<parameter=`, `</parameter>`,
//! `<|tool_call_argument_begin|>`), for which both answers are no; asking cost a few hundred
//! instructions a stop, a good part of a reply dense with calls (callgrind: ~2K of ~12K
//! instructions a Qwen3-Coder block, ~2.5K of ~14K a Kimi-K2 one).
//!
//! [`BlockScan`] answers most stops from the two bytes after the candidate: a set of those pairs
//! (hashed to 12 bits) for the reasoning markers and one for the family's closers. A pair that no
//! marker has rules the marker out; a pair some marker has (or hashes alike) is asked as before,
//! so the answers never change, only how often the full question is asked. A closer whose pair
//! matches is compared by its first and last eight bytes before the whole of it.
//!
//! A reasoning marker's pair is checked against a second pair too, the candidate's second and
//! fifth bytes: every DeepSeek token begins `<｜` (bytes `EF BD`), as the lone
//! `<｜end▁of▁sentence｜>` does, so each of a block's five tokens was asked about (~80
//! instructions each, ~4% of a reply dense with DeepSeek calls; callgrind). The fifth byte tells
//! `<｜t…` from `<｜e…`.

use super::super::Family;

/// Bit sets over a hash of a marker's second and third bytes.
#[derive(Debug, Clone)]
struct Pairs([u64; 64]);

/// The 12-bit hash of the two bytes after a candidate byte.
#[inline]
fn key(a: u8, b: u8) -> usize {
    ((usize::from(a) << 4) ^ usize::from(b)) & 0xFFF
}

impl Pairs {
    /// The pairs of `markers`; a marker shorter than three bytes could start anywhere: every
    /// pair is set.
    fn new<'a>(markers: impl IntoIterator<Item = &'a str>) -> Pairs {
        Pairs::of_bytes(markers, 2)
    }

    /// The pairs of each marker's second byte and its byte `at` (2: the third); a marker with
    /// no byte `at` sets every pair.
    fn of_bytes<'a>(markers: impl IntoIterator<Item = &'a str>, at: usize) -> Pairs {
        let mut p = Pairs([0; 64]);
        for m in markers {
            match (m.as_bytes().get(1), m.as_bytes().get(at)) {
                (Some(a), Some(b)) => {
                    let k = key(*a, *b);
                    p.0[k >> 6] |= 1 << (k & 63);
                }
                _ => p.0 = [u64::MAX; 64],
            }
        }
        p
    }

    #[inline]
    fn may(&self, a: u8, b: u8) -> bool {
        let k = key(a, b);
        self.0[k >> 6] & (1 << (k & 63)) != 0
    }
}

/// A closer compared by words: its first and last eight bytes (when it has eight).
#[derive(Debug, Clone, Copy)]
struct Closer {
    s: &'static str,
    first: u64,
    last: u64,
}

/// The scan tables of a call block of one family.
#[derive(Debug, Clone)]
pub(super) struct BlockScan {
    pub(super) family: Family,
    think: Pairs,
    /// The reasoning markers' second and fifth bytes ([`FAR`]).
    think_far: Pairs,
    close: Pairs,
    closers: Vec<Closer>,
}

/// What a candidate inside a block may start, told from the bytes after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Maybe {
    /// A reasoning marker may start there (or be cut there by the end of the buffer).
    pub(super) think: bool,
    /// One of the family's closers may.
    pub(super) closer: bool,
}

/// The byte [`BlockScan::think_far`] pairs with a marker's second.
const FAR: usize = 4;

/// `b[at..at + 8]` as a little-endian word.
#[inline]
fn word(b: &[u8], at: usize) -> Option<u64> {
    let w = b.get(at..at + 8)?;
    Some(u64::from_le_bytes([
        w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
    ]))
}

impl BlockScan {
    /// The tables for a block of `family`, whose closers are `closers`, `think` being the
    /// reasoning markers the block scan asks [`Machine::decide`](super::Machine) about.
    pub(super) fn new<'a>(
        family: Family,
        think: impl IntoIterator<Item = &'a str>,
        closers: &[&'static str],
    ) -> BlockScan {
        let think: Vec<&str> = think.into_iter().collect();
        BlockScan {
            family,
            think: Pairs::new(think.iter().copied()),
            think_far: Pairs::of_bytes(think.iter().copied(), FAR),
            close: Pairs::new(closers.iter().copied()),
            closers: closers
                .iter()
                .map(|&s| {
                    let b = s.as_bytes();
                    Closer {
                        s,
                        first: word(b, 0).unwrap_or(0),
                        last: b.len().checked_sub(8).and_then(|k| word(b, k)).unwrap_or(0),
                    }
                })
                .collect(),
        }
    }

    /// What may start at candidate `c` of `buf`; with fewer than two bytes after it, anything
    /// (a reasoning marker: with fewer than [`FAR`]).
    #[inline]
    pub(super) fn at(&self, buf: &[u8], c: usize) -> Maybe {
        match (buf.get(c + 1), buf.get(c + 2)) {
            (Some(&a), Some(&b)) => Maybe {
                think: self.think.may(a, b)
                    && buf.get(c + FAR).is_none_or(|&d| self.think_far.may(a, d)),
                closer: self.close.may(a, b),
            },
            _ => Maybe {
                think: true,
                closer: true,
            },
        }
    }

    /// The closer `rest` starts with, when one does and all of it is there: `Ok(len)`.
    /// `Err(true)`: `rest` is shorter than a closer it may be the start of (wait for more).
    /// `Err(false)`: no closer starts here.
    pub(super) fn closer(&self, rest: &[u8]) -> Result<usize, bool> {
        let head = word(rest, 0);
        let mut partial = false;
        for cl in &self.closers {
            let s = cl.s.as_bytes();
            if rest.len() < s.len() {
                partial |= s.starts_with(rest);
                continue;
            }
            // Both words agree, or the closer is shorter than a word: compare all of it.
            let may = match head {
                Some(h) if s.len() >= 8 => {
                    h == cl.first && word(rest, s.len() - 8) == Some(cl.last)
                }
                _ => true,
            };
            if may && rest.starts_with(s) {
                return Ok(s.len());
            }
        }
        Err(partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables' answers agree with comparing every marker, at every byte of texts full of
    /// near misses, cut at every length.
    #[test]
    fn never_passes_over_a_marker() {
        let think = [
            "<think>",
            "</think>",
            "<|START_THINKING|>",
            "◁think▷",
            "[THINK]",
            "<｜end▁of▁sentence｜>",
        ];
        let closers = [
            "</tool_call>",
            "</function>",
            "<|tool_call_end|>",
            "</a>",
            "<｜tool▁calls▁end｜>",
        ];
        let scan = BlockScan::new(Family::Qwen3Coder, think, &closers);
        let text = "<tool_call>\n<function=f>\n<parameter=p>\n北京</parameter>\n</function>\n\
                    </tool_call></think><|tool_call_begin|><|tool_call_end|><|START_THINK</a></a\
                    ◁think▷[THINK]</thin</tool_cal</function<｜tool▁call▁begin｜>f<｜tool▁sep｜>\
                    <｜end▁of▁sentence｜><｜tool▁calls▁end｜><｜end▁of<｜e";
        for end in 0..=text.len() {
            let Some(buf) = text.get(..end) else { continue };
            let b = buf.as_bytes();
            for c in 0..b.len() {
                let rest = &b[c..];
                let m = scan.at(b, c);
                let starts = |ms: &[&str]| {
                    ms.iter().any(|s| {
                        let s = s.as_bytes();
                        rest.starts_with(s) || s.starts_with(rest)
                    })
                };
                assert!(m.think || !starts(&think), "{buf:?} at {c}");
                // Whole, a DeepSeek token that is neither is passed over.
                if buf.len() == text.len() && rest.starts_with("<｜tool▁".as_bytes()) {
                    assert!(!m.think, "{buf:?} at {c}");
                }
                assert!(m.closer || !starts(&closers), "{buf:?} at {c}");
                let whole = closers.iter().find(|s| rest.starts_with(s.as_bytes()));
                let partial = closers
                    .iter()
                    .any(|s| rest.len() < s.len() && s.as_bytes().starts_with(rest));
                match scan.closer(rest) {
                    Ok(n) => assert_eq!(Some(n), whole.map(|s| s.len()), "{buf:?} at {c}"),
                    Err(p) => {
                        assert!(whole.is_none(), "{buf:?} at {c}");
                        assert_eq!(p, partial, "{buf:?} at {c}");
                    }
                }
            }
        }
    }
}
