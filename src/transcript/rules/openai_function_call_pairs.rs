//! OpenAI function-call / reasoning pairing (OpenClaw `downgradeOpenAIFunctionCallReasoningPairs`,
//! §4.6).
//!
//! pi-ai records a Responses API function call's id as `<call_id>|<item_id>` (`call_…|fc_…`) and
//! replays the `fc_…` item id. The API rejects a replayed `function_call` item with an `fc_` id
//! when the `reasoning` item that produced it is missing from the same turn (after a downgrade, a
//! model switch or a truncated turn). For `openai-responses` and `openai-codex-responses`, at
//! history time (step 10) and per request: in each assistant message, walking the blocks in
//! order, a tool-call block (`toolCall`, `toolUse`, `functionCall`) whose string id is `A|B` (the
//! `|` neither first nor last, `B` starting with `fc_`) seen before any thinking block with an
//! OpenAI reasoning signature gets its id rewritten to `A`, so pi-ai omits the item id. Calls after
//! such a reasoning block are kept. The same rewrite is applied to `toolCallId` / `toolUseId` of
//! the `toolResult` messages that immediately follow that assistant; any other message ends the
//! run. A transcript with nothing to rewrite comes back unchanged.

use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{Msg, Val};
use crate::transcript::rules::openai_reasoning::is_openai_reasoning_signature;
use crate::transcript::text::Text;
use foldhash::{HashMap, HashMapExt};

/// `A` when `id` is `A|fc_…` with `A` non-empty.
fn call_id_without_item(id: &str) -> Option<&str> {
    let sep = id.find('|')?;
    if sep == 0 || sep + 1 >= id.len() {
        return None;
    }
    id[sep + 1..].starts_with("fc_").then(|| &id[..sep])
}

/// The new value of a result's id field, when the pending calls rewrite it.
fn rewritten<'a>(v: &Val, pending: &HashMap<&str, &'a str>) -> Option<&'a str> {
    let old = v.as_str()?;
    pending
        .get(old)
        .copied()
        .filter(|new| !new.is_empty() && *new != old)
}

/// One id rewrite, decided before any is made. The ids are [`Text`] (in place when short) and
/// set as such: the Responses path rewrites every paired call id of an agent's history, and a
/// `String` for the rewrite plus a boxed JSON value for the edit, per call and per result, were
/// most of this rule's time.
enum Rewrite {
    /// Block `j` of message `i` gets id `new`.
    Call { i: usize, j: usize, new: Text },
    /// Result message `i` gets these `toolCallId` / `toolUseId`.
    Result {
        i: usize,
        call: Option<Text>,
        used: Option<Text>,
    },
}

/// Strips `|fc_…` from call ids that have no reasoning item before them, and from their results.
pub fn downgrade_openai_function_call_reasoning_pairs(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let rewrites = plan(msgs, ctx);
    let changed = !rewrites.is_empty();
    for r in rewrites {
        match r {
            Rewrite::Call { i, j, new } => {
                if let Some(b) = msgs[i].blocks_mut().and_then(|bs| bs.get_mut(j)) {
                    b.set_text("id", new);
                }
            }
            Rewrite::Result { i, call, used } => {
                if let Some(id) = call {
                    msgs[i].set_text("toolCallId", id);
                }
                if let Some(id) = used {
                    msgs[i].set_text("toolUseId", id);
                }
            }
        }
    }
    changed
}

/// The rewrites, read off the messages without touching them (ids stay borrowed).
fn plan(msgs: &[Msg], ctx: &mut Ctx) -> Vec<Rewrite> {
    let mut out = Vec::with_capacity(msgs.len());
    // The rewritten ids of the last assistant, for the results right after it.
    let mut pending: HashMap<&str, &str> = HashMap::new();
    for (i, m) in msgs.iter().enumerate() {
        if m.is_assistant() {
            pending.clear();
            let Some(blocks) = m.blocks() else {
                continue;
            };
            let mut seen_reasoning = false;
            for (j, b) in blocks.iter().enumerate() {
                if !b.is_object {
                    continue;
                }
                if b.is_thinking() && is_openai_reasoning_signature(b) {
                    seen_reasoning = true;
                    continue;
                }
                if !b.is_tool_call() || seen_reasoning {
                    continue;
                }
                let Some(id) = b.id.as_str() else {
                    continue;
                };
                if let Some(call) = call_id_without_item(id) {
                    ctx.change(
                        "downgradeOpenAIFunctionCallReasoningPairs",
                        block_path(m, b),
                        || {
                            format!(
                                "call id {id} has no reasoning item before it; replayed as {call}"
                            )
                        },
                    );
                    pending.insert(id, call);
                    out.push(Rewrite::Call {
                        i,
                        j,
                        new: Text::new(call),
                    });
                }
            }
        } else if m.is_tool_result() && !pending.is_empty() {
            let call = rewritten(m.tool_call_id(), &pending);
            let used = rewritten(m.tool_use_id(), &pending);
            if call.is_none() && used.is_none() {
                continue;
            }
            ctx.change(
                "downgradeOpenAIFunctionCallReasoningPairs",
                msg_path(m),
                || "result id follows its call's downgraded id".into(),
            );
            out.push(Rewrite::Result {
                i,
                call: call.map(Text::new),
                used: used.map(Text::new),
            });
        } else {
            pending.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::Override;
    use crate::transcript::skeleton;
    use crate::transcript::testutil::run;
    use crate::transcript::NoSource;
    use serde_json::{json, Value};

    fn pairs(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            downgrade_openai_function_call_reasoning_pairs(m, c);
        })
    }

    fn reasoning() -> Value {
        json!({"type": "thinking", "thinking": "r",
               "thinkingSignature": json!({"id": "rs_1", "type": "reasoning"}).to_string()})
    }

    fn call(id: &str) -> Value {
        json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}})
    }

    #[test]
    fn strips_fc_without_reasoning_and_follows_the_results() {
        let input = json!([
            {"role": "assistant", "content": [call("call_1|fc_1"), call("call_2|fc_2")]},
            {"role": "toolResult", "toolCallId": "call_1|fc_1", "content": []},
            {"role": "toolResult", "toolCallId": "call_2|fc_2", "toolUseId": "call_2|fc_2", "content": []},
            {"role": "user", "content": "next"},
            {"role": "toolResult", "toolCallId": "call_1|fc_1", "content": []}
        ]);
        let (out, identity) = pairs(&input);
        assert!(!identity);
        assert_eq!(out[0]["content"], json!([call("call_1"), call("call_2")]));
        assert_eq!(out[1]["toolCallId"], json!("call_1"));
        assert_eq!(out[2]["toolCallId"], json!("call_2"));
        assert_eq!(out[2]["toolUseId"], json!("call_2"));
        assert_eq!(out[3], input[3]);
        // The user message ended the run.
        assert_eq!(out[4], input[4]);
    }

    #[test]
    fn keeps_call_fc_ids_after_rs_reasoning() {
        let input = json!([
            {"role": "assistant", "content": [reasoning(), call("call_1|fc_1")]},
            {"role": "toolResult", "toolCallId": "call_1|fc_1", "content": []}
        ]);
        let (out, identity) = pairs(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn only_calls_before_the_reasoning_are_rewritten() {
        let input = json!([
            {"role": "assistant", "content": [call("a|fc_1"), reasoning(), call("b|fc_2")]},
            {"role": "toolResult", "toolCallId": "a|fc_1", "content": []},
            {"role": "toolResult", "toolCallId": "b|fc_2", "content": []}
        ]);
        let (out, _) = pairs(&input);
        assert_eq!(
            out[0]["content"],
            json!([call("a"), reasoning(), call("b|fc_2")])
        );
        assert_eq!(out[1]["toolCallId"], json!("a"));
        assert_eq!(out[2], input[2]);
    }

    #[test]
    fn ids_that_are_not_call_fc_pairs_are_kept() {
        let input = json!([
            {"role": "assistant", "content": [
                call("call_1"), call("|fc_1"), call("call_1|"), call("call_1|item_1"),
                {"type": "toolUse", "id": 5, "name": "n", "input": {}}
            ]},
            {"role": "assistant", "content": "text"}
        ]);
        let (_, identity) = pairs(&input);
        assert!(identity);
    }

    #[test]
    fn other_block_types_and_roles() {
        let input = json!([
            {"role": "assistant", "content": [
                {"type": "functionCall", "id": "x|fc_9", "name": "n", "arguments": {}},
                {"type": "text", "text": "t", "id": "y|fc_1"}
            ]},
            {"role": "toolResult", "toolUseId": "x|fc_9", "toolCallId": "other", "content": []}
        ]);
        let (out, _) = pairs(&input);
        assert_eq!(out[0]["content"][0]["id"], json!("x"));
        assert_eq!(out[0]["content"][1]["id"], json!("y|fc_1"));
        assert_eq!(out[1]["toolUseId"], json!("x"));
        assert_eq!(out[1]["toolCallId"], json!("other"));
    }

    /// The rewritten ids are set as text edits (no JSON value built per call and per result),
    /// Chinese ones too, and read back as the strings they are.
    #[test]
    fn rewritten_ids_are_text_edits() {
        let input = json!([
            {"role": "assistant", "content": [call("call_北京|fc_1"), call("call_2|fc_2")]},
            {"role": "toolResult", "toolCallId": "call_北京|fc_1", "toolUseId": "call_北京|fc_1", "content": []},
            {"role": "toolResult", "toolCallId": "call_2|fc_2", "content": []}
        ]);
        let values = input.as_array().cloned().unwrap_or_default();
        let mut msgs = skeleton::from_values(&values);
        let source = NoSource;
        let mut ctx = Ctx::new(&source, false);
        assert!(downgrade_openai_function_call_reasoning_pairs(
            &mut msgs, &mut ctx
        ));
        let text = |o: Option<&Override>| match o {
            Some(Override::Str(t)) => Some(t.to_string()),
            _ => None,
        };
        let blocks = msgs[0].blocks().cloned().unwrap_or_default();
        assert_eq!(
            text(blocks[0].edits.get("id")).as_deref(),
            Some("call_北京")
        );
        assert_eq!(text(blocks[1].edits.get("id")).as_deref(), Some("call_2"));
        assert_eq!(blocks[0].id.as_str(), Some("call_北京"));
        assert_eq!(
            text(msgs[1].edits.get("toolCallId")).as_deref(),
            Some("call_北京")
        );
        assert_eq!(
            text(msgs[1].edits.get("toolUseId")).as_deref(),
            Some("call_北京")
        );
        assert_eq!(msgs[1].tool_call_id().as_str(), Some("call_北京"));
        assert_eq!(
            text(msgs[2].edits.get("toolCallId")).as_deref(),
            Some("call_2")
        );
        // The same output as the JSON the rule made before.
        let (out, _) = pairs(&input);
        assert_eq!(out[0]["content"][0]["id"], json!("call_北京"));
        assert_eq!(out[1]["toolUseId"], json!("call_北京"));
    }
}
