//! The families read from plain text (`llama3_json`, `pythonic`, gpt-oss's prose forms, Granite,
//! …) find reasoning blocks over the whole reply ([`thinking::find_blocks`]); this applies to them
//! the rules the visible-text scanner follows for every other family, so a reply reads the same
//! whichever family the model hint names:
//!
//! - a `<think>`, `<seed:think>`, `[THINK]` or `<mm:think>` after visible text is text (reasoning is where a
//!   reply starts; people write the tags in prose), and so is every later one and every closing
//!   tag after it;
//! - a closing tag with no reasoning open is a stray tag, removed, only when it ends its line
//!   and no words and a space come before it on its line; inside a sentence it is text;
//! - special-token pairs (`<|START_THINKING|>`, Harmony's analysis channel) and the prose forms a
//!   family names (Granite's `Here is my thought process:`) open reasoning anywhere; Kimi's
//!   `◁think▷` and Gemma 4's `<|channel>` named inside a sentence are text
//!   ([`super::thinking::find_blocks`] skips them), and so is a `◁/think▷` with no reasoning
//!   open after such a `◁think▷` ([`super::kimi_think`]; any other stray one is removed);
//! - a stray special-token closer (`<|END_THINKING|>`, `◁/think▷`, `<|inner_suffix|>`,
//!   `<|close|>think<|sep|>`) named in a sentence is text ([`super::thinking::marker_named`]).

use super::kimi_think;
use super::thinking::{self, ends_line, Think, ALWAYS, KIMI, PROSE_PAIRS};

/// The blocks of `blocks` (found in `text` by [`super::thinking::find_blocks`]) that are
/// reasoning under the rules above; the others are text. `r1`: the reply starts inside
/// reasoning (a closing tag at its very start ends it).
///
/// ```
/// use transcript_hygiene::response::{late_think::reasoning_blocks, thinking};
/// let t = "Use <think>x</think> tags.";
/// let b = thinking::find_blocks(t, thinking::Extra::default());
/// assert!(reasoning_blocks(t, b, false).is_empty());
/// ```
pub fn reasoning_blocks(text: &str, blocks: Vec<Think>, r1: bool) -> Vec<Think> {
    let prose = &ALWAYS[..PROSE_PAIRS];
    let mut out = Vec::with_capacity(blocks.len());
    let mut visible = false;
    let mut as_text = false;
    let mut at = 0;
    for b in blocks {
        let start = b.outer.start;
        let gap = text.get(at..start).unwrap_or("");
        visible |= !gap.trim().is_empty();
        // A `◁think▷` between blocks was kept as text (named in a sentence).
        as_text |= gap.contains(kimi_think::OPEN);
        at = b.outer.end;
        let from = &text[start..];
        let opens = prose
            .iter()
            .any(|p| p.opens.iter().any(|o| from.starts_with(o)));
        let closes = prose
            .iter()
            .any(|p| p.closes.iter().any(|c| from.starts_with(c)));
        let kimi_closes = ALWAYS[KIMI].closes.iter().any(|c| from.starts_with(c));
        let special_closes = ALWAYS.iter().enumerate().any(|(i, p)| {
            thinking::named_marker(i) && p.closes.iter().any(|c| from.starts_with(c))
        });
        let keep = if opens {
            !(visible || as_text)
        } else if closes && b.inner.is_empty() && !(r1 && start == 0) {
            !as_text
                && ends_line(&text[b.outer.end..])
                && !super::thinking::named_at_line_end(&text[..start])
        } else if special_closes && b.inner.is_empty() && !(r1 && start == 0) {
            // A special-token closer named in a sentence is text ([`thinking::named_marker`]).
            let named = thinking::marker_named(
                thinking::spaced_words_before(text, start),
                &text[b.outer.end..],
                true,
            ) == Some(true);
            !((kimi_closes && as_text) || named)
        } else {
            true
        };
        if keep {
            out.push(b);
        } else {
            as_text |= opens;
            visible = true;
        }
    }
    out
}
