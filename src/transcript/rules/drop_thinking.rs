//! Thinking-block dropping (OpenClaw `dropThinkingBlocks`, §4.5).
//!
//! Claude rejects replayed `thinking` blocks whose signature it cannot verify, which is what a
//! history holds after a model or provider switch, or when it came through a proxy (GitHub
//! Copilot, Bedrock, Vertex) that does not round-trip signatures. The policy sets
//! `dropThinkingBlocks` when the model id contains a provider's hint (`claude` for `anthropic`,
//! `amazon-bedrock`, `anthropic-vertex` and `github-copilot`); it runs at history time after the
//! image pass, and again per request.
//!
//! Every assistant block with `type === "thinking"` is removed; `redacted_thinking` stays. An
//! assistant whose content becomes empty gets `[{type: "text", text: ""}]` so the turn (and the
//! user/assistant alternation) survives. Messages with nothing to drop come back unchanged.

use crate::transcript::context::{block_path_in, Ctx};
use crate::transcript::model::{Block, Msg};

fn is_thinking(b: &Block) -> bool {
    b.is_object && b.is_thinking()
}

/// Removes `m`'s blocks that `drop` picks, reporting each as `what` under `rule`; a turn left
/// with no block gets one text block holding `filler`. False (and `m` untouched) when it has no
/// such block. The one definition behind this rule and 2026.9.6's reasoning drops.
///
/// One compaction, each block tested once there (a scan for the first dropped block, then a
/// `retain` that records each drop as it makes it), through an inlined predicate: not three
/// passes (any, report, retain) through a function pointer. Most of what is left is freeing the
/// dropped blocks.
pub fn drop_blocks(
    m: &mut Msg,
    ctx: &mut Ctx,
    rule: &'static str,
    drop: impl Fn(&Block) -> bool,
    what: &'static str,
    filler: &str,
) -> bool {
    let Some(first) = m.blocks().and_then(|bs| bs.iter().position(&drop)) else {
        return false;
    };
    let own = m.src_index();
    let Some(bs) = m.blocks_mut() else {
        return false;
    };
    let mut j = 0;
    bs.retain(|b| {
        // The blocks before the first dropped one are kept untested.
        let gone = j >= first && drop(b);
        j += 1;
        if gone {
            ctx.change(rule, block_path_in(own, b), || what.into());
        }
        !gone
    });
    if bs.is_empty() {
        bs.push(Block::new_text(filler));
    }
    true
}

/// Drops `thinking` blocks from assistant messages.
pub fn drop_thinking_blocks(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut() {
        if !m.is_assistant() {
            continue;
        }
        changed |= drop_blocks(
            m,
            ctx,
            "dropThinkingBlocks",
            is_thinking,
            "dropped a thinking block",
            "",
        );
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
    fn same_reference_when_there_is_no_thinking() {
        let input = json!([
            {"role": "user", "content": [{"type": "thinking", "thinking": "user blocks are not touched"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"},
                                              {"type": "redacted_thinking", "data": "x"}]},
            {"role": "assistant", "content": "string"}
        ]);
        let (out, identity) = drop_all(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn drops_thinking_and_keeps_text_and_tool_calls() {
        let input = json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"},
                {"type": "text", "text": "answer"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
            ]}
        ]);
        let (out, _) = drop_all(&input);
        assert_eq!(out[0], input[0]);
        assert_eq!(
            out[1],
            json!({"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "text", "text": "answer"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
            ]})
        );
    }

    #[test]
    fn a_thinking_only_turn_keeps_an_empty_text() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "thinking", "thinking": "a"}, {"type": "thinking", "thinking": "b"}
        ]}]);
        let (out, _) = drop_all(&input);
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": ""}]));
    }
}
