//! OpenClaw 2026.9.6's delivery chain (`sanitizeAssistantVisibleText`, the `"delivery"` profile of
//! `src/shared/text/assistant-visible-text.ts`): what every reply goes through before a channel
//! shows it, as one call. The scrubbers run in OpenClaw's order, each on the previous one's
//! output, and the result is trimmed keeping a leading code block's indentation. A text with none
//! of the steps' needles and nothing to trim comes back as it is.

use std::borrow::Cow;

use super::needles::Needles;
use super::reasoning::{self, Mode, Scope, Trim};
use super::{
    downgraded, legacy_bracket, memories, minimax, plain_tool_call, special_tokens, tool_call_xml,
    trace_lines, trim,
};

/// One step of the chain.
pub type Step = fn(&str) -> Cow<'_, str>;

/// The delivery profile's scrubbers, in OpenClaw's order, each with what it needs to change a text.
pub const DELIVERY: [(Step, Needles); 9] = [
    (minimax::strip_minimax_tool_call_xml, minimax::NEEDLES),
    (
        special_tokens::strip_model_special_tokens,
        special_tokens::NEEDLES,
    ),
    (memories::strip_relevant_memories_tags, memories::NEEDLES),
    (
        |t| tool_call_xml::strip_tool_call_xml(t, true, false),
        tool_call_xml::NEEDLES,
    ),
    (trace_lines::strip_trace_lines, trace_lines::NEEDLES),
    (
        legacy_bracket::strip_legacy_bracket_blocks,
        legacy_bracket::NEEDLES,
    ),
    (
        |t| plain_tool_call::strip_plain_text_tool_calls(t, true),
        plain_tool_call::NEEDLES,
    ),
    (
        |t| downgraded::strip_downgraded_tool_call_text(t, false),
        downgraded::NEEDLES,
    ),
    (
        |t| {
            let options = reasoning::Options {
                mode: Mode::Strict,
                trim: Trim::None,
                scope: Scope::All,
                recover_unclosed: true,
            };
            reasoning::strip_reasoning_tags(t, options)
        },
        reasoning::NEEDLES,
    ),
];

/// `step` applied to `text`, owned only when something changed (the user-facing chain's too).
pub fn then(text: Cow<'_, str>, step: Step) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(t) => step(t),
        Cow::Owned(t) => {
            let changed = match step(&t) {
                Cow::Borrowed(_) => None,
                Cow::Owned(next) => Some(next),
            };
            Cow::Owned(changed.unwrap_or(t))
        }
    }
}

/// The reply as OpenClaw 2026.9.6 delivers it; borrowed only when nothing changed.
///
/// ```
/// use transcript_hygiene::scrub::visible::chain::sanitize_assistant_visible_text;
/// let t = "<think>先查天气</think>\n好的<|im_end|>，北京今天晴。\n[tool:weather] {\"city\":\"北京\"}\n";
/// assert_eq!(sanitize_assistant_visible_text(t), "好的，北京今天晴。");
/// ```
pub fn sanitize_assistant_visible_text(text: &str) -> Cow<'_, str> {
    let out = DELIVERY
        .into_iter()
        .fold(Cow::Borrowed(text), |t, (step, _)| then(t, step));
    let trimmed = trim::trim_preserving_code(&out, true);
    if trimmed.len() == out.len() {
        return out;
    }
    Cow::Owned(trimmed.to_string())
}
