//! Reasoning blocks: `<think>…</think>`, and the R1-style form where the opening tag was in the
//! prompt so the reply holds only `</think>` (DeepSeek-R1, MiniMax-M2, Step-3, ERNIE, Kimi-K2
//! thinking; reference §22). Reasoning is split off before any tool-call parsing, so a call
//! written inside reasoning (a documented example, §0.5) is never taken for a real call.
//!
//! Rules (smg's base parser, §22 rule 3): a `</think>` with no `<think>` before it closes a block
//! that starts at the beginning of the reply; later stray `</think>` tags are removed as empty
//! blocks; an opening tag that is never closed makes the rest of the reply reasoning (truncated
//! thinking), which the caller reports.

use std::ops::Range;

use super::scan::Finder;

pub const OPEN: &str = "<think>";
pub const CLOSE: &str = "</think>";

/// One reasoning block: `outer` covers the tags, `inner` the reasoning text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Think {
    pub outer: Range<usize>,
    pub inner: Range<usize>,
    /// False when the block runs to the end of the reply without `</think>`.
    pub closed: bool,
}

/// The reasoning blocks of `text`, in order, not overlapping.
pub fn find_blocks(text: &str) -> Vec<Think> {
    let mut out = Vec::new();
    if !text.contains("think>") {
        return out;
    }
    let mut opens = Finder::new(OPEN);
    let mut closes = Finder::new(CLOSE);
    let mut at = 0;
    loop {
        let open = opens.find(text, at);
        let close = closes.find(text, at);
        match (open, close) {
            (None, None) => break,
            // A closing tag first: R1-style at the start, otherwise a stray tag.
            (o, Some(c)) if o.is_none_or(|o| c < o) => {
                let start = if out.is_empty() { 0 } else { c };
                out.push(Think {
                    outer: start..c + CLOSE.len(),
                    inner: start..c,
                    closed: true,
                });
                at = c + CLOSE.len();
            }
            (Some(o), _) => {
                let body = o + OPEN.len();
                match closes.find(text, body) {
                    Some(c) => {
                        out.push(Think {
                            outer: o..c + CLOSE.len(),
                            inner: body..c,
                            closed: true,
                        });
                        at = c + CLOSE.len();
                    }
                    None => {
                        out.push(Think {
                            outer: o..text.len(),
                            inner: body..text.len(),
                            closed: false,
                        });
                        break;
                    }
                }
            }
            // Unreachable by the guard above, kept total for safety.
            (None, Some(_)) => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inners(text: &str) -> Vec<&str> {
        find_blocks(text)
            .into_iter()
            .map(|t| &text[t.inner])
            .collect()
    }

    #[test]
    fn paired_blocks() {
        assert_eq!(inners("<think>a</think>b<think>c</think>d"), ["a", "c"]);
        assert!(find_blocks("no tags").is_empty());
    }

    #[test]
    fn closing_only_is_r1_style() {
        let t = "I should call.\n</think>\n\nAnswer";
        let b = find_blocks(t);
        assert_eq!(b.len(), 1);
        assert_eq!(&t[b[0].inner.clone()], "I should call.\n");
        assert_eq!(&t[b[0].outer.end..], "\n\nAnswer");
    }

    #[test]
    fn stray_close_after_a_block_is_an_empty_block() {
        let t = "<think>a</think>x</think>y";
        assert_eq!(inners(t), ["a", ""]);
    }

    #[test]
    fn unclosed_open_runs_to_end() {
        let b = find_blocks("hi <think>still going");
        assert_eq!(b.len(), 1);
        assert!(!b[0].closed);
        assert_eq!(b[0].outer.end, "hi <think>still going".len());
    }
}
