//! Dangling Anthropic `toolUse` stripping (OpenClaw `stripDanglingAnthropicToolUses`, §4.4; the
//! first half of `validateAnthropicTurns`).
//!
//! The Anthropic Messages API rejects a request in which an assistant `tool_use` has no
//! `tool_result` in the user turn right after it ("tool_use ids were found without tool_result
//! blocks"). Compaction and history limits produce exactly that. For every assistant message
//! **immediately followed by a `user` message**, this keeps its blocks except `type: "toolUse"`
//! blocks whose `id` is not the `toolUseId` of a `type: "toolResult"` block in that user message's
//! array content. Falsy entries (`null`, `0`, `""`, `false`) in the content are removed too. If
//! the content was non-empty and nothing is left, it becomes
//! `[{type: "text", text: "[tool calls omitted]"}]`; a non-array content becomes `[]`, as
//! upstream does. Only the Anthropic-native `toolUse` / `toolResult` block shapes are involved:
//! pi-ai `toolCall` blocks and `toolResult` *messages* are never affected.
//!
//! Difference from OpenClaw: it re-creates the assistant object whenever the next message is a
//! user, even when nothing is removed. Here the message is edited only when something actually
//! changes, so an unchanged assistant comes back as the same object.

use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use crate::transcript::rules::merge_turns::replace_content;

/// JS `Set.has` (SameValueZero) on the scalar values a `toolUseId` can hold. Objects never match:
/// two JSON objects are never the same object.
fn same_value(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Num(x), Val::Num(y)) => x == y,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        _ => false,
    }
}

fn keeps(b: &Block, valid: &[Val]) -> bool {
    if !b.is_object {
        // `if (!block) return false`; truthy non-objects (strings, arrays …) pass the type test.
        return b.raw_truthy;
    }
    if !b.is_type("toolUse") {
        return true;
    }
    let empty = Val::Str("".into());
    let key = if b.id.is_truthy() { &b.id } else { &empty };
    valid.iter().any(|v| same_value(v, key))
}

/// Strips `toolUse` blocks that the following user message does not answer.
pub fn strip_dangling_anthropic_tool_uses(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let mut changed = false;
    for i in 0..msgs.len() {
        if !msgs[i].is_assistant() {
            continue;
        }
        let Some(next) = msgs.get(i + 1).filter(|n| n.is_user()) else {
            continue;
        };
        let valid: Vec<Val> = next
            .blocks()
            .map(|bs| {
                bs.iter()
                    .filter(|b| {
                        b.is_object && b.is_type("toolResult") && b.tool_use_id().is_truthy()
                    })
                    .map(|b| b.tool_use_id().clone())
                    .collect()
            })
            .unwrap_or_default();
        let m = &mut msgs[i];
        let Some(blocks) = m.blocks() else {
            ctx.change("stripDanglingAnthropicToolUses", msg_path(m), || {
                "non-array assistant content before a user turn became []".into()
            });
            replace_content(m, Vec::new());
            changed = true;
            continue;
        };
        let keep: Vec<bool> = blocks.iter().map(|b| keeps(b, &valid)).collect();
        if keep.iter().all(|k| *k) {
            continue;
        }
        for (b, _) in blocks.iter().zip(&keep).filter(|(_, k)| !**k) {
            let what = if b.is_object {
                format!(
                    "dropped toolUse {} with no toolResult in the next user message",
                    b.id.as_str().unwrap_or("(no id)")
                )
            } else {
                "dropped a falsy content entry".to_string()
            };
            ctx.change("stripDanglingAnthropicToolUses", block_path(m, b), || what);
        }
        if let Some(bs) = m.blocks_mut() {
            let mut flags = keep.iter();
            bs.retain(|_| flags.next().copied().unwrap_or(true));
            if bs.is_empty() {
                bs.push(Block::new_text("[tool calls omitted]"));
            }
        }
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::rules::merge_turns::validate_anthropic_turns;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn strip(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            strip_dangling_anthropic_tool_uses(m, c);
        })
    }

    fn text(t: &str) -> Value {
        json!({"type": "text", "text": t})
    }

    fn tool_use(id: &str, name: &str) -> Value {
        json!({"type": "toolUse", "id": id, "name": name, "input": {}})
    }

    fn tool_result(id: &str, t: &str) -> Value {
        json!({"type": "toolResult", "toolUseId": id, "content": [text(t)]})
    }

    fn dual_tool_turns(next_user: Value) -> Value {
        json!([
            {"role": "user", "content": [text("Use tools")]},
            {"role": "assistant", "content": [tool_use("tool-1", "test1"), tool_use("tool-2", "test2"), text("Done")]},
            {"role": "user", "content": next_user}
        ])
    }

    #[test]
    fn strips_a_tool_use_without_a_matching_result() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": [tool_use("tool-1", "test"), text("I'll check that")]},
            {"role": "user", "content": [text("Hello")]}
        ]);
        let (out, _) = strip(&input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1]["content"], json!([text("I'll check that")]));
        assert_eq!(out[0], input[0]);
        assert_eq!(out[2], input[2]);
    }

    #[test]
    fn keeps_a_tool_use_with_a_matching_result() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": [tool_use("tool-1", "test"), text("Here's result")]},
            {"role": "user", "content": [tool_result("tool-1", "Result"), text("Thanks")]}
        ]);
        let (out, identity) = strip(&input);
        assert!(identity, "nothing removed: the same objects come back");
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn inserts_fallback_text_when_everything_is_removed() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": [tool_use("tool-1", "test")], "stopReason": "toolUse"},
            {"role": "user", "content": [text("Hello")]}
        ]);
        let (out, _) = strip(&input);
        assert_eq!(
            out[1],
            json!({"role": "assistant", "content": [text("[tool calls omitted]")], "stopReason": "toolUse"})
        );
    }

    #[test]
    fn strips_several_dangling_tool_uses() {
        let (out, _) = strip(&dual_tool_turns(json!([text("OK")])));
        assert_eq!(out[1]["content"], json!([text("Done")]));
    }

    #[test]
    fn keeps_only_the_answered_one_of_several() {
        let (out, _) = strip(&dual_tool_turns(json!([
            tool_result("tool-1", "Result 1"),
            text("Thanks")
        ])));
        assert_eq!(
            out[1]["content"],
            json!([tool_use("tool-1", "test1"), text("Done")])
        );
    }

    #[test]
    fn leaves_the_assistant_alone_when_the_next_message_is_not_a_user() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": [tool_use("tool-1", "test")]},
            {"role": "toolResult", "toolUseId": "tool-1", "content": [text("data")]},
            {"role": "assistant", "content": [tool_use("tool-2", "test")]}
        ]);
        let (out, identity) = strip(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn is_idempotent() {
        let input = dual_tool_turns(json!([tool_result("tool-1", "Result 1")]));
        let (first, _) = run(&input, |m, c| {
            validate_anthropic_turns(m, c);
        });
        let first = Value::Array(first);
        let (second, identity) = run(&first, |m, c| {
            validate_anthropic_turns(m, c);
        });
        assert!(identity);
        assert_eq!(Value::Array(second), first);
    }

    #[test]
    fn non_array_assistant_content_does_not_crash() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": "legacy-content"},
            {"role": "user", "content": [text("Thanks")]}
        ]);
        let (out, _) = run(&input, |m, c| {
            validate_anthropic_turns(m, c);
        });
        assert_eq!(out.len(), 3);
        // As upstream: a non-array assistant content before a user turn becomes [].
        assert_eq!(out[1], json!({"role": "assistant", "content": []}));
    }

    #[test]
    fn pi_ai_tool_calls_and_falsy_entries() {
        let input = json!([
            {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
                null, 0, "", "loose", tool_use("", "x")
            ]},
            {"role": "user", "content": [{"type": "toolResult", "toolUseId": ""}]}
        ]);
        let (out, _) = strip(&input);
        assert_eq!(
            out[0]["content"],
            json!([{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}, "loose"])
        );
    }

    #[test]
    fn numeric_ids_match_by_value() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "toolUse", "id": 7, "name": "n", "input": {}}]},
            {"role": "user", "content": [{"type": "toolResult", "toolUseId": 7}]}
        ]);
        let (_, identity) = strip(&input);
        assert!(identity);
    }
}
