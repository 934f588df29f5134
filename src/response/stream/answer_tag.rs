//! Hunyuan-A13B's `<answer>…</answer>` wrapper (reference §14) is markup only where it wraps the
//! reply. Its reply is `<think>…</think>` then `<answer>` holding the text and the call block;
//! `<answer>` was removed anywhere once the reply named `<tool_calls>` (sglang#7678: a PR
//! describing the format in prose, `<answer>` and `</answer>` vanished from its sentences, with
//! nothing reported). A person reading the chat wants the wrapper gone and the prose kept, so:
//!
//! - `<answer>` is removed when nothing visible comes before it: it opens the reply, or follows
//!   removed markup (reasoning, a call). After visible text (`用 <answer> 包住答案`) it is text.
//! - `</answer>` is removed when it closes such an opener, or follows a Hunyuan call block read
//!   in this reply; otherwise it is text.
//!
//! The family itself is still chosen as before (the opener with `<tool_calls>` later, the model
//! hint, or a call block read); this rule only says which of its wrapper tags are markup. One more
//! way: a reply cut by `max_tokens` before its `<tool_calls>` came, `<think>…</think>` then
//! `<answer>` opening the visible reply and no `</answer>` after it ([`Machine::answer_cut`]).

use super::{Check, Kind, Machine};
use crate::response::Family;

const OPEN: &str = "<answer>";
const CLOSE: &str = "</answer>";

impl Machine {
    /// Whether the marker of kind `kind` at the start of `buf` is one of Hunyuan's wrapper tags
    /// written as text (`None`: not such a tag). A removed opener is remembered until its closer.
    pub(super) fn answer_is_text(&mut self, kind: Kind) -> Option<bool> {
        if !matches!(kind, Kind::Call(Check::Fam(Family::HunyuanA13b))) {
            return None;
        }
        if self.buf.starts_with(OPEN) {
            if self.em.any_visible {
                return Some(true);
            }
            self.answer_open = true;
            return Some(false);
        }
        if self.buf.starts_with(CLOSE) {
            let read = self.lock == Some(Family::HunyuanA13b) && self.em.call_block_seen;
            if !self.answer_open && !read {
                return Some(true);
            }
            self.answer_open = false;
            return Some(false);
        }
        None
    }

    /// Whether the `<answer>` ending at `after` is Hunyuan's, in a reply cut before its call
    /// block came: it opens the visible reply right after a reasoning block (only whitespace
    /// between), and no `</answer>` follows it. (A whole reply without a call keeps its tags
    /// unless the model is named: the tag alone does not say Hunyuan.)
    pub(super) fn answer_cut(&mut self, after: usize) -> bool {
        let Some(before) = self.buf[..after].strip_suffix(OPEN) else {
            return false;
        };
        self.em.reasoned
            && !self.em.any_visible
            && before.trim().is_empty()
            && !self.later(CLOSE, after)
    }
}
