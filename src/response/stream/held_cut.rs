//! A reply cut by `max_tokens` inside a call's head that the stream holds back as visible text
//! while it may still become a call, rather than deciding it at a marker: Mistral's
//! `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]` under a format that reads its stripped form (`tool_json`:
//! the lead is held by [`crate::response::named_json::partial_lead_start`] until its `{` comes)
//! and Qwen3-Coder's head that lost its `<` (`function=NAME">`, held by
//! [`crate::response::qwen3_coder::lost_head_partial`] until its `<parameter=` comes). When the
//! reply ends there, the holds release the tail as text and its markup stayed in front of the
//! user; asked first, it is a cut call's start: removed from the head on and reported
//! (`truncated`, raw text kept), as [`super::cut_body`]'s are.
//!
//! Mistral's head counts when its `[TOOL_CALLS]` token is written and what follows it is the
//! start of a call's body there ([`super::cut_body`]'s Mistral rows: an offered name, or its
//! start, then the start of `[CALL_ID]`/`[ARGS]`), or when the token itself is cut
//! (`[TOOL_C`, read as [`super::reply_end::cut_marker`] reads a cut marker); the lost head by
//! [`crate::response::qwen3_coder::lost_head_cut`]'s evidence. Asked once, when the finished
//! reply's last text is emitted, over the held tail only: linear.

use serde_json::Value;

use super::{cut_body, cut_marker, Machine};
use crate::response::{mistral, qwen3_coder, Family};

impl Machine {
    /// Where the held tail of the finished reply that is a cut call's head begins (`None`: no
    /// such tail).
    pub(super) fn held_cut_call(&self, tools: Option<&Value>) -> Option<usize> {
        if !self.finished {
            return None;
        }
        let len = self.buf.len();
        let h = self.hold_tool_name(tools);
        let rest = &self.buf[h..];
        // The token itself cut (`[TOOL_C`), as [`cut_marker`] reads a cut marker.
        let cut_token = rest.len() < mistral::TOKEN.len()
            && mistral::TOKEN.starts_with(rest)
            && cut_marker(rest);
        let cut_head = rest.starts_with(mistral::TOKEN)
            && cut_body::cut_call(rest)
                .is_some_and(|c| c.family == Family::Mistral && c.whole && c.len == rest.len());
        if h < len && (cut_token || cut_head) {
            return Some(h);
        }
        let h = self.line_head_of(Family::Qwen3Coder, len, |b| {
            qwen3_coder::lost_head_cut(b, tools).or_else(|| qwen3_coder::lost_head_alone(b, tools))
        });
        (h < len).then_some(h)
    }
}
