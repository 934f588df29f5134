//! OpenClaw 2026.9.6's `sanitizeUserFacingText` (`src/agents/embedded-agent-helpers/
//! sanitize-user-facing-text.ts`): what a reply goes through right before a channel shows it,
//! after the delivery chain ([`super::chain`]), as one call. The steps run in OpenClaw's order,
//! each on the previous one's output: `<final>` markers, runtime context, inbound metadata, MiniMax
//! and tool-call XML (every plural `<function_calls>` block), the `(no output)` and
//! `[tool calls omitted]` placeholder lines, trace lines (only for error text), legacy
//! `[TOOL_CALL]` blocks, plain-text tool calls, leading blank lines and repeated paragraphs.
//!
//! With a `conversationContext` (the prompt's chat context), copies of that prompt go first
//! ([`super::prompt_echo`]); `streaming` is OpenClaw's call on a reply still arriving: a copy
//! or a runtime-context marker that has only begun at the end is cut too.

use std::borrow::Cow;

use super::chain::{then, Step};
use super::needles::Needles;
use super::prompt_echo::PromptEcho;
use super::{
    final_tags, inbound_meta, legacy_bracket, minimax, paragraphs, placeholders, plain_tool_call,
    prompt_echo, runtime_context, tool_call_xml, trace_lines,
};

/// The steps before the trace-line one (error text only), in OpenClaw's order, each with what it
/// needs to change a text.
pub const HEAD: [(Step, Needles); 6] = [
    (final_tags::strip_final_tags, final_tags::NEEDLES),
    (
        runtime_context::strip_internal_runtime_context,
        runtime_context::NEEDLES,
    ),
    (inbound_meta::strip_inbound_metadata, inbound_meta::NEEDLES),
    (minimax::strip_minimax_tool_call_xml, minimax::NEEDLES),
    (
        |t| tool_call_xml::strip_tool_call_xml(t, false, true),
        tool_call_xml::NEEDLES,
    ),
    (placeholders::strip_placeholder_lines, placeholders::NEEDLES),
];

/// The steps after it. Leading blank lines have no needle: a text can lose them only when it
/// opens with whitespace, which the JS side tests on its own.
pub const TAIL: [(Step, Needles); 4] = [
    (
        legacy_bracket::strip_legacy_bracket_blocks,
        legacy_bracket::NEEDLES,
    ),
    (
        |t| plain_tool_call::strip_plain_text_tool_calls(t, true),
        plain_tool_call::NEEDLES,
    ),
    (paragraphs::strip_leading_empty_lines, Needles::exact(&[])),
    (
        paragraphs::collapse_duplicate_paragraphs,
        paragraphs::NEEDLES,
    ),
];

/// How OpenClaw is asked (`sanitizeUserFacingText`'s options).
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The text is an error message (trace lines go too).
    pub error_context: bool,
    /// The reply is still arriving (the delivery stream's call on the text so far).
    pub streaming: bool,
    /// The prompt's chat context, prepared ([`PromptEcho::prepare`]): its copies go.
    pub prompt: Option<&'a PromptEcho>,
}

/// The reply as OpenClaw 2026.9.6 shows it to a user; `error_context`: the text is an error
/// message (trace lines go too). Borrowed only when nothing changed.
///
/// ```
/// use transcript_hygiene::scrub::visible::user_facing::sanitize_user_facing_text;
/// let t = "<final>北京今天晴。</final>\n\n北京今天晴。\n(no output)\n";
/// assert_eq!(sanitize_user_facing_text(t, false), "北京今天晴。");
/// ```
pub fn sanitize_user_facing_text(text: &str, error_context: bool) -> Cow<'_, str> {
    let options = Options {
        error_context,
        ..Options::default()
    };
    sanitize_user_facing_text_with(text, options)
}

/// [`sanitize_user_facing_text`] with every option OpenClaw takes.
///
/// ```
/// use transcript_hygiene::scrub::visible::prompt_echo::PromptEcho;
/// use transcript_hygiene::scrub::visible::user_facing::{sanitize_user_facing_text_with, Options};
/// let prompt = PromptEcho::prepare("[Current message - respond to this]\n明天呢？").unwrap();
/// let options = Options { prompt: Some(&prompt), ..Options::default() };
/// let reply = "> [Current message - respond to this]\n> 明天呢？\n\n明天下雨。";
/// assert_eq!(sanitize_user_facing_text_with(reply, options), "明天下雨。");
/// let streaming = Options { streaming: true, ..options };
/// assert_eq!(sanitize_user_facing_text_with("好的。\n[Current mess", streaming), "好的。\n");
/// ```
pub fn sanitize_user_facing_text_with<'t>(text: &'t str, options: Options<'_>) -> Cow<'t, str> {
    if text.is_empty() {
        return Cow::Borrowed(text);
    }
    let start = match options.prompt {
        Some(p) if options.streaming || prompt_echo::has_marker(text) => {
            p.strip(text, options.streaming)
        }
        _ => Cow::Borrowed(text),
    };
    let trace: Option<Step> = options
        .error_context
        .then_some(trace_lines::strip_trace_lines as Step);
    let head = HEAD.into_iter().enumerate().map(|(i, (step, _))| {
        if i == 1 && options.streaming {
            runtime_context::strip_internal_runtime_context_streaming as Step
        } else {
            step
        }
    });
    let tail = TAIL.into_iter().map(|(step, _)| step);
    head.chain(trace).chain(tail).fold(start, then)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::linearity::assert_linear;

    #[test]
    fn error_text_loses_trace_lines_too() {
        let t = "🛠️ Exec: npm test\n测试失败。";
        assert_eq!(sanitize_user_facing_text(t, false), t);
        assert_eq!(sanitize_user_facing_text(t, true), "测试失败。");
    }

    #[test]
    fn plain_prose_is_borrowed() {
        for t in ["北京今天晴。\n\n明天下雨。", "", "用 `<final>` 标记答案"] {
            assert!(
                matches!(sanitize_user_facing_text(t, true), Cow::Borrowed(_)),
                "{t:?}"
            );
        }
    }

    /// Every step on units that open and never close, repeat, or nest (CPU: about 2 s in a debug
    /// build at load 1; ten units).
    #[test]
    fn the_user_facing_chain_grows_linearly_on_adversarial_text() {
        let units = [
            "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\ny\n",
            "\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>x\n",
            "a <<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n",
            "OpenClaw runtime context (internal):\nThis context is runtime-generated, not user-authored. Keep internal details private.\n\n[Internal task completion event]\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\n",
            "OpenClaw runtime event.\nThis context is runtime-generated, not user-authored. Keep internal details private.\n",
            "Sender: ⟦openclaw:ctx⟧\n```json\n{}\n",
            "Context:\n<active_memory_plugin>\nDelivery: to send a message, use the `message` tool.\n",
            "(no output)\n[tool calls omitted]\n\n",
            "重复的段落\n\n重复 的段落\n\n",
            "`a` \0\n\n`a` \0\n\n",
        ];
        for unit in units {
            assert_linear("sanitize_user_facing_text", unit, &|t| {
                assert!(sanitize_user_facing_text(t, true).len() <= t.len());
            });
        }
    }
}
