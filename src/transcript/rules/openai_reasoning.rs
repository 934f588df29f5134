//! OpenAI Responses reasoning downgrade (OpenClaw `downgradeOpenAIReasoningBlocks`, §4.6).
//!
//! The Responses API stores each reasoning item's id in the thinking block's `thinkingSignature`
//! (`{"id": "rs_…", "type": "reasoning"}`, a JSON string, or an object in older sessions) so pi-ai
//! can replay it. The API rejects a replayed `reasoning` item that is not followed by the item it
//! produced ("reasoning was provided without its required following item"); an interrupted or
//! truncated turn leaves exactly that. For `openai-responses` and `openai-codex-responses`
//! (step 10 of `sanitizeSessionHistory`, whether or not the model changed) this drops, in each
//! assistant message with array content, every `thinking` block carrying such a signature when no
//! block after it is anything other than a `thinking` block (a non-object entry counts as
//! "other"). An assistant left with no blocks is removed. Other thinking blocks are kept.
//!
//! Difference from OpenClaw: it always returns a new array; here an input with nothing to drop
//! gives the identity plan (the same array back).

use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use crate::transcript::rules::thought_signatures::js_trim;
use serde_json::Value;

fn reasoning_id_and_type(id: Option<&str>, ty: Option<&str>) -> bool {
    let id = id.unwrap_or("");
    let ty = ty.unwrap_or("");
    id.starts_with("rs_") && (ty == "reasoning" || ty.starts_with("reasoning."))
}

/// Whether the block's `thinkingSignature` is an OpenAI reasoning item reference: an object, or a
/// string holding trimmed JSON `{…}`, whose `id` starts with `rs_` and whose `type` is
/// `reasoning` or starts with `reasoning.`. (The block type is the caller's concern.)
pub fn is_openai_reasoning_signature(block: &Block) -> bool {
    match block.thinking_signature() {
        Val::Str(s) => {
            let t = js_trim(s);
            if !t.starts_with('{') || !t.ends_with('}') {
                return false;
            }
            match serde_json::from_str::<Value>(t) {
                Ok(Value::Object(map)) => reasoning_id_and_type(
                    map.get("id").and_then(Value::as_str),
                    map.get("type").and_then(Value::as_str),
                ),
                _ => false,
            }
        }
        Val::Object => block
            .signature_object()
            .as_ref()
            .is_some_and(|(id, ty)| reasoning_id_and_type(id.as_str(), ty.as_str())),
        _ => false,
    }
}

fn is_thinking(b: &Block) -> bool {
    b.is_object && b.is_thinking()
}

/// Which blocks of one assistant content to drop: reasoning-signed thinking blocks with nothing
/// but thinking blocks after them. `None` when there is none (nearly every turn): the trailing
/// thinking blocks are checked first, so a turn that drops nothing allocates nothing (a mask for
/// every assistant turn was one allocation a turn on the OpenAI Responses path).
fn drop_mask(blocks: &[Block]) -> Option<Vec<bool>> {
    // Every block from `from` on is a thinking block.
    let from = blocks
        .iter()
        .rposition(|b| !is_thinking(b))
        .map_or(0, |k| k + 1);
    let tail = blocks.get(from..).unwrap_or_default();
    if !tail.iter().any(is_openai_reasoning_signature) {
        return None;
    }
    Some(
        blocks
            .iter()
            .enumerate()
            .map(|(j, b)| j >= from && is_openai_reasoning_signature(b))
            .collect(),
    )
}

/// Drops orphaned OpenAI reasoning blocks, and assistant messages left empty by that.
pub fn downgrade_openai_reasoning_blocks(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    let mut changed = false;
    msgs.retain_mut(|m| {
        if !m.is_assistant() {
            return true;
        }
        let Some(blocks) = m.blocks() else {
            return true;
        };
        let Some(mask) = drop_mask(blocks) else {
            return true;
        };
        changed = true;
        for (b, _) in blocks.iter().zip(&mask).filter(|(_, d)| **d) {
            ctx.change("downgradeOpenAIReasoningBlocks", block_path(m, b), || {
                "dropped a reasoning block with no following item".into()
            });
        }
        if mask.iter().all(|d| *d) {
            ctx.change("downgradeOpenAIReasoningBlocks", msg_path(m), || {
                "removed an assistant message left empty".into()
            });
            return false;
        }
        if let Some(bs) = m.blocks_mut() {
            let mut flags = mask.iter();
            bs.retain(|_| !flags.next().copied().unwrap_or(false));
        }
        true
    });
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::skeleton;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn downgrade(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            downgrade_openai_reasoning_blocks(m, c);
        })
    }

    fn sig() -> String {
        json!({"id": "rs_test", "type": "reasoning"}).to_string()
    }

    fn block(v: Value) -> Block {
        skeleton::block_from_value(&v, 0, 0, false)
    }

    #[test]
    fn recognises_reasoning_signatures() {
        let yes = [
            json!({"type": "thinking", "thinkingSignature": sig()}),
            json!({"type": "thinking", "thinkingSignature": format!("  {}\n", sig())}),
            json!({"type": "thinking", "thinkingSignature": {"id": "rs_1", "type": "reasoning.encrypted"}}),
        ];
        for v in yes {
            assert!(is_openai_reasoning_signature(&block(v.clone())), "{v}");
        }
        let no = [
            json!({"type": "thinking", "thinkingSignature": "sig"}),
            json!({"type": "thinking", "thinkingSignature": ""}),
            json!({"type": "thinking", "thinkingSignature": "{not json}"}),
            json!({"type": "thinking", "thinkingSignature": {"id": "msg_1", "type": "reasoning"}}),
            json!({"type": "thinking", "thinkingSignature": {"id": "rs_1", "type": "reasoningx"}}),
            json!({"type": "thinking", "thinkingSignature": {"id": "rs_1"}}),
            json!({"type": "thinking", "thinkingSignature": ["rs_1"]}),
            json!({"type": "thinking"}),
        ];
        for v in no {
            assert!(!is_openai_reasoning_signature(&block(v.clone())), "{v}");
        }
    }

    #[test]
    fn a_reasoning_only_assistant_is_removed() {
        let input = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "reasoning", "thinkingSignature": sig()}]}
        ]);
        let (out, _) = downgrade(&input);
        assert_eq!(out, vec![input[0].clone()]);
    }

    #[test]
    fn keeps_reasoning_followed_by_an_item() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "thinking", "thinking": "r", "thinkingSignature": sig()},
            {"type": "text", "text": "answer"}
        ]}]);
        let (out, identity) = downgrade(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn drops_only_trailing_reasoning() {
        let input = json!([{"role": "assistant", "stopReason": "stop", "content": [
            {"type": "thinking", "thinking": "r1", "thinkingSignature": sig()},
            {"type": "text", "text": "answer"},
            {"type": "thinking", "thinking": "r2", "thinkingSignature": sig()},
            {"type": "thinking", "thinking": "plain", "thinkingSignature": "sig"},
            {"type": "thinking", "thinking": "r3", "thinkingSignature": {"id": "rs_3", "type": "reasoning"}}
        ]}]);
        let (out, _) = downgrade(&input);
        assert_eq!(
            out[0],
            json!({"role": "assistant", "stopReason": "stop", "content": [
                {"type": "thinking", "thinking": "r1", "thinkingSignature": sig()},
                {"type": "text", "text": "answer"},
                {"type": "thinking", "thinking": "plain", "thinkingSignature": "sig"}
            ]})
        );
    }

    #[test]
    fn a_non_object_entry_after_it_counts_as_a_following_item() {
        let input = json!([{"role": "assistant", "content": [
            {"type": "thinking", "thinking": "r", "thinkingSignature": sig()},
            null
        ]}]);
        let (_, identity) = downgrade(&input);
        assert!(identity);
    }

    #[test]
    fn keeps_reasoning_only_messages_with_a_non_json_signature() {
        let input = json!([
            {"role": "user", "content": "hello"},
            {"role": "assistant", "stopReason": "aborted",
             "content": [{"type": "thinking", "thinking": "reasoning", "thinkingSignature": "sig"}]},
            {"role": "user", "content": [{"type": "thinking", "thinkingSignature": sig()}]},
            {"role": "assistant", "content": "string"}
        ]);
        let (out, identity) = downgrade(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }
}
