//! Reasoning dropped from OpenAI-compatible chat history (OpenClaw 2026.9.6
//! `dropReasoningFromHistory`, new in that release).
//!
//! OpenAI-compatible chat-completions servers (Ollama, vLLM, SGLang, DeepSeek, GLM, Qwen, xAI,
//! proxies) have no field to replay reasoning in, and several reject or mis-render it; 2026.9.6's
//! policy sets `dropReasoningFromHistory` for `openai-completions` (except `reasoning: true`
//! models and a list of Kimi/MiMo ids). Every assistant turn loses its `thinking` and
//! `redacted_thinking` blocks except the current tool turn: the assistant with tool calls after
//! the latest user turn, with no other assistant between them, whose results follow it (the
//! model is mid-loop and its reasoning belongs to the request). A turn left empty gets
//! `[assistant reasoning omitted]`.

use super::{is_reasoning, omit_reasoning};
use crate::transcript::context::Ctx;
use crate::transcript::model::Msg;

/// A tool-call block as 2026.9.6's thinking rules count them.
fn is_call(m: &Msg) -> bool {
    m.blocks().is_some_and(|bs| {
        bs.iter().any(|b| {
            b.is_object && matches!(b.ty(), Some("toolCall" | "tool_use" | "function_call"))
        })
    })
}

/// Whether assistant `i` is the current tool turn, whose reasoning stays. `after_assistant`: the
/// history goes on before `msgs[0]` (the incremental pass's prefix) and, looking back from there,
/// an assistant comes before any user turn.
pub(super) fn is_current_tool_turn(
    msgs: &[Msg],
    i: usize,
    latest_user: Option<usize>,
    after_assistant: bool,
) -> bool {
    if latest_user.is_some_and(|u| i < u) || !is_call(&msgs[i]) {
        return false;
    }
    let mut met_user = false;
    for m in msgs[..i].iter().rev() {
        if m.is_user() {
            met_user = true;
            break;
        }
        if m.is_assistant() {
            return false;
        }
    }
    if after_assistant && !met_user {
        return false;
    }
    for m in &msgs[i + 1..] {
        if m.is_object && m.is_tool_result() {
            return true;
        }
        if m.is_user() {
            return false;
        }
    }
    false
}

/// An assistant whose reasoning stays only while it is the current tool turn (a turn with calls
/// and reasoning): its fate changes when a result or a user turn is appended.
pub(super) fn reasoned_call(m: &Msg) -> bool {
    m.is_assistant() && is_call(m) && m.blocks().is_some_and(|bs| bs.iter().any(is_reasoning))
}

/// Drops reasoning from every assistant turn but the current tool turn.
pub fn drop_reasoning_from_history(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    drop_reasoning_from_history_after(msgs, ctx, false)
}

/// [`drop_reasoning_from_history`] on the part of a history after a prefix that ends, looking
/// back, with an assistant before any user turn (`after_assistant`), for the incremental pass.
pub(crate) fn drop_reasoning_from_history_after(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    after_assistant: bool,
) -> bool {
    let latest_user = msgs.iter().rposition(|m| m.is_user());
    let mut changed = false;
    for i in 0..msgs.len() {
        let m = &msgs[i];
        if !m.is_assistant() || !m.blocks().is_some_and(|bs| bs.iter().any(is_reasoning)) {
            continue;
        }
        if is_current_tool_turn(msgs, i, latest_user, after_assistant) {
            continue;
        }
        changed |= omit_reasoning(&mut msgs[i], ctx, "dropReasoningFromHistory");
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn drop_all(input: &Value) -> Vec<Value> {
        run(input, |m, c| {
            drop_reasoning_from_history(m, c);
        })
        .0
    }

    #[test]
    fn history_loses_reasoning_and_the_current_tool_turn_keeps_it() {
        let input = json!([
            {"role": "user", "content": "北京天气"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "旧的推理"}, {"type": "text", "text": "晴"}]},
            {"role": "user", "content": "上海呢"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "查一下"}, {"type": "toolCall", "id": "c1", "name": "weather", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "雨"}]},
        ]);
        let out = drop_all(&input);
        assert_eq!(out[1]["content"], json!([{"type": "text", "text": "晴"}]));
        assert_eq!(out[3], input[3]);
    }

    #[test]
    fn a_tool_turn_without_a_result_or_after_another_assistant_is_history() {
        let input = json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}, {"type": "toolCall", "id": "c1", "name": "f", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "c1", "content": []},
        ]);
        let out = drop_all(&input);
        assert_eq!(
            out[1]["content"],
            json!([{"type": "text", "text": "[assistant reasoning omitted]"}])
        );
        assert_eq!(
            out[2]["content"],
            json!([{"type": "toolCall", "id": "c1", "name": "f", "arguments": {}}])
        );
    }

    #[test]
    fn nothing_to_drop_is_the_same_transcript() {
        let input = json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]);
        assert!(
            run(&input, |m, c| {
                drop_reasoning_from_history(m, c);
            })
            .1
        );
    }
}
