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
//! way, with no call and no model named: `<think>…</think>` then `<answer>` opening the visible
//! reply (only whitespace between) is Hunyuan's wrapper ([`Machine::answer_after_reasoning`]),
//! whether `</answer>` comes (a whole reply without a call) or not (a reply cut by `max_tokens`
//! before its `<tool_calls>` came). Decided when `<answer>` comes, nothing held for it. A whole
//! reply used to keep both tags while the same reply cut was cleaned: the pair of a reasoning
//! block and the answer tag right after it is the template's shape (the model card's
//! `<think>…</think>\n<answer>…</answer>`, fastllm#550's "only the <answer> tag" without
//! thinking), while prose naming the tag has words before it.
//!
//! A Hermes `<tool_call>` inside the wrapper (a Hunyuan model served with another call format)
//! makes `<answer>` the wrapper too, with no reasoning or hint ([`Machine::answer_wraps_call`]):
//! when the call's opener follows it right away (only whitespace between, wherever it stands:
//! `我来读取`⏎`<answer><tool_call>…`), or when it opens the visible reply and a `<tool_call>`
//! comes before any `</answer>` (`<answer>好的<tool_call>…`). Its `</answer>` then goes once the
//! reply has locked to the call's family (the locked table keeps the closer for that). An
//! `<answer>` after text with words before the call, a pair closed before the call, and the tags
//! in code stay.

use super::{cut_marker, Check, Kind, Machine};
use crate::response::Family;

pub(super) const OPEN: &str = "<answer>";
pub(super) const CLOSE: &str = "</answer>";
/// The call opener a wrapper holds without Hunyuan's own block (Hermes and the families sharing
/// its tag).
const TOOL_CALL: &str = crate::response::scan::TOOL_CALL;
/// The most white space looked at between `<answer>` and the call it wraps.
const MAX_GAP: usize = 64;

impl Machine {
    /// Whether the marker of kind `kind` at the start of `buf` is one of Hunyuan's wrapper tags
    /// written as text (`None`: not such a tag; `Some(None)`: wait for more text, as a stream
    /// must where the reply read whole would see a `<tool_call>` after the opener). A removed
    /// opener is remembered until its closer.
    pub(super) fn answer_is_text(&mut self, kind: Kind) -> Option<Option<bool>> {
        if !matches!(kind, Kind::Call(Check::Fam(Family::HunyuanA13b))) {
            return None;
        }
        if self.buf.starts_with(OPEN) {
            if self.em.any_visible {
                match self.call_follows_yet(OPEN.len()) {
                    None => return Some(None),
                    Some(false) => return Some(Some(true)),
                    Some(true) => {}
                }
            }
            self.answer_open = true;
            return Some(Some(false));
        }
        if self.buf.starts_with(CLOSE) {
            let read = self.lock == Some(Family::HunyuanA13b) && self.em.call_block_seen;
            if !self.answer_open && !read {
                return Some(Some(true));
            }
            self.answer_open = false;
            return Some(Some(false));
        }
        None
    }

    /// [`Machine::call_follows`], or `None` while the text after `at` is only white space and
    /// the start of `<tool_call>` and more may come.
    fn call_follows_yet(&self, at: usize) -> Option<bool> {
        let g = self.gap(at)?;
        if !self.finished && TOOL_CALL.starts_with(&self.buf[at + g..]) {
            return None;
        }
        Some(self.call_follows(at))
    }

    /// The ASCII white space at `at` (`None` past [`MAX_GAP`] bytes: no call follows the tag
    /// then, and the look stays bounded while a stream brings the white space in pieces).
    fn gap(&self, at: usize) -> Option<usize> {
        let b = self.buf.as_bytes().get(at..).unwrap_or(&[]);
        let g = b
            .iter()
            .take(MAX_GAP + 1)
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        (g <= MAX_GAP).then_some(g)
    }

    /// Whether the `<answer>` ending at `after` is Hunyuan's without a call block or model hint
    /// to say so: it opens the visible reply right after a reasoning block (only whitespace
    /// between); or the `</answer>` ending there closes such an opener. (Without reasoning before
    /// it, the tag alone does not say Hunyuan.)
    pub(super) fn answer_after_reasoning(&self, after: usize) -> bool {
        let Some(before) = self.buf[..after].strip_suffix(OPEN) else {
            // Its closer, when such an opener was removed.
            return self.answer_open && self.buf[..after].ends_with(CLOSE);
        };
        self.em.reasoned && !self.em.any_visible && before.trim().is_empty()
    }

    /// Whether the `<answer>` ending at `after` wraps a `<tool_call>` (no call block or hint
    /// needed): the call's opener right after it (only whitespace between), wherever it stands;
    /// or, where it opens the visible reply, one later before any `</answer>`.
    pub(super) fn answer_wraps_call(&mut self, after: usize) -> bool {
        let Some(before) = self.buf[..after].strip_suffix(OPEN) else {
            return false;
        };
        if self.call_follows(after) {
            return true;
        }
        if self.em.any_visible || !before.trim().is_empty() {
            return false;
        }
        let Some(call) = self.later_at(TOOL_CALL, after) else {
            return false;
        };
        self.later_at(CLOSE, after).is_none_or(|close| call < close)
    }

    /// Whether `buf[at..]` starts with a `<tool_call>` after at most [`MAX_GAP`] bytes of ASCII
    /// white space (or, the reply finished,
    /// with that opener cut where the cut marker goes too, [`cut_marker`]).
    fn call_follows(&self, at: usize) -> bool {
        let Some(g) = self.gap(at) else {
            return false;
        };
        let t = &self.buf[at + g..];
        t.starts_with(TOOL_CALL) || (self.finished && TOOL_CALL.starts_with(t) && cut_marker(t))
    }
}
