//! Thinking-block dropping as OpenClaw 2026.9.6 does it (`dropThinkingBlocks` in
//! `embedded-agent-runner/thinking.ts`).
//!
//! Same purpose as [`crate::transcript::rules::drop_thinking`] (Claude rejects replayed thinking
//! it cannot verify), but 2026.9.6 changed three things: the latest assistant turn keeps its
//! thinking (providers that need replay signatures continue from it), `redacted_thinking` goes
//! too, and a turn left empty gets `[assistant reasoning omitted]` instead of an empty text, which
//! adapters that filter blank text would lose.

use super::{is_reasoning, omit_reasoning};
use crate::transcript::context::Ctx;
use crate::transcript::model::Msg;

/// The last assistant with array content (the one 2026.9.6 leaves as it is), if any.
pub fn latest_assistant(msgs: &[Msg]) -> Option<usize> {
    msgs.iter()
        .rposition(|m| m.is_assistant() && m.blocks().is_some())
}

/// Drops `thinking` and `redacted_thinking` blocks from every assistant turn but the latest.
pub fn drop_thinking_blocks(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let latest = latest_assistant(msgs);
    let mut changed = false;
    for (i, m) in msgs.iter_mut().enumerate() {
        if Some(i) == latest || !m.is_assistant() {
            continue;
        }
        if !m.blocks().is_some_and(|bs| bs.iter().any(is_reasoning)) {
            continue;
        }
        changed |= omit_reasoning(m, ctx, "dropThinkingBlocks");
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn drop_all(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            drop_thinking_blocks(m, c);
        })
    }

    #[test]
    fn the_latest_assistant_keeps_its_thinking() {
        let input = json!([
            {"role": "user", "content": "问"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "想", "thinkingSignature": "s"}, {"type": "text", "text": "答"}]},
        ]);
        let (out, identity) = drop_all(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn earlier_turns_lose_thinking_and_redacted_thinking() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "a"}, {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "t"}]},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "y"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "kept"}]},
        ]);
        let (out, _) = drop_all(&input);
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": "t"}]));
        assert_eq!(
            out[1]["content"],
            json!([{"type": "text", "text": "[assistant reasoning omitted]"}])
        );
        assert_eq!(out[2], input[2]);
    }

    #[test]
    fn string_content_is_not_the_latest_assistant() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "kept: latest with an array"}]},
            {"role": "assistant", "content": "a string"},
        ]);
        let (_, identity) = drop_all(&input);
        assert!(identity);
    }
}
