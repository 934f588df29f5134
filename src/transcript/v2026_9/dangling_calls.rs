//! Dangling tool calls stripped before an Anthropic request, as OpenClaw 2026.9.6 does it
//! (`stripDanglingAnthropicToolUses`, the middle step of its `validateAnthropicTurns`).
//!
//! Anthropic rejects an assistant `tool_use` with no `tool_result` after it. 2026.3.23 looked only
//! at `toolUse` blocks and only at `toolResult` blocks inside the next user turn, so pi-ai's
//! `toolCall` blocks answered by `toolResult` messages (what OpenClaw itself stores) were never
//! checked. 2026.9.6 checks every call shape (`toolCall`, `toolUse`, `functionCall`) against
//! every result before the next assistant turn: `toolResult` and `tool` messages (any id alias)
//! and `toolResult`/`tool` blocks. A call left unanswered goes; a turn left with nothing becomes
//! `[tool calls omitted]`, or empty when it was aborted or errored. A turn with reasoning is
//! signed as a whole: it stays as written only when every call is answered by a result message
//! naming the same tool, and otherwise loses all its content the same way. Falsy entries leave the
//! list, and falsy entries leave a turn's content when it is filtered.
//!
//! A result message names its tool by `toolName`, else `name`; a result block answers through
//! every id field (`toolUseId`, `toolCallId`, `tool_use_id`, `tool_call_id`, `callId`, `call_id`).

use super::is_reasoning;
use super::pairing::{result_id, result_ids};
use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{extra, Block, Content, Msg};
use crate::transcript::rules::merge_turns::replace_content;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

const RULE: &str = "stripDanglingAnthropicToolUses";
const OMITTED: &str = "[tool calls omitted]";

fn trimmed(s: Option<&str>) -> Option<&str> {
    s.map(crate::transcript::text::trim)
        .filter(|s| !s.is_empty())
}

/// A call block of any shape (`isToolCallBlock`).
fn is_call(b: &Block) -> bool {
    b.is_object && b.is_tool_call()
}

/// What answers the calls of the turn at `i`: result ids with the tool names result messages
/// give them (`collectFutureToolResultMatches`), and every result id, blocks included
/// (`collectFutureToolResultIds`).
struct Answers<'m> {
    named: HashMap<&'m str, HashSet<&'m str>>,
    ids: HashSet<&'m str>,
}

fn answers(msgs: &[Msg], i: usize) -> Answers<'_> {
    let mut a = Answers {
        named: HashMap::new(),
        ids: HashSet::new(),
    };
    for m in msgs[i + 1..].iter().filter(|m| m.is_object) {
        if m.is_assistant() {
            break;
        }
        let result = m.is_tool_result();
        if result || m.is_role("tool") {
            let name =
                trimmed(m.tool_name().as_str()).or_else(|| trimmed(m.extra(extra::NAME).as_str()));
            for id in result_ids(m) {
                let names = a.named.entry(id).or_default();
                names.extend(name);
            }
            // A `toolResult` message counts by its first id, a `tool` message by all of them.
            if result {
                a.ids.extend(result_id(m));
            } else {
                a.ids.extend(result_ids(m));
            }
        }
        for b in m.blocks().into_iter().flatten() {
            if b.is_object && (b.is_type("toolResult") || b.is_type("tool")) {
                a.ids.extend(b.result_ids());
            }
        }
    }
    a
}

/// What is left of an assistant turn whose calls are not all answered.
fn emptied(m: &Msg) -> Vec<Block> {
    if matches!(m.stop_reason.as_str(), Some("aborted" | "error")) {
        Vec::new()
    } else {
        vec![Block::new_text(OMITTED)]
    }
}

/// What becomes of one assistant turn.
enum Fix {
    /// Its content replaced (emptied).
    Content(Vec<Block>),
    /// The blocks kept, by position.
    Keep(Vec<bool>),
}

/// A `null`, `0`, `""` or `false` among the messages.
fn falsy(m: &Msg) -> bool {
    !m.is_object && matches!(&m.content, Content::Other(v) if !v.is_truthy())
}

/// What the turn at `i` needs, if anything.
fn fix(msgs: &[Msg], i: usize, ctx: &mut Ctx) -> Option<Fix> {
    let m = &msgs[i];
    let blocks = m.blocks().filter(|bs| !bs.is_empty())?;
    if !m.is_assistant() || !blocks.iter().any(|b| is_call(b) && b.call_id().is_some()) {
        return None;
    }
    let a = answers(msgs, i);
    if blocks.iter().any(is_reasoning) {
        let answered = |b: &Block| {
            let (Some(id), Some(name)) = (trimmed(b.id.as_str()), trimmed(b.name.as_str())) else {
                return false;
            };
            a.named
                .get(id)
                .is_some_and(|names| names.is_empty() || names.contains(name))
        };
        if blocks.iter().all(|b| !is_call(b) || answered(b)) {
            return None;
        }
        ctx.change(RULE, msg_path(m), || {
            "a signed-thinking turn with an unanswered call lost its content".into()
        });
        return Some(Fix::Content(emptied(m)));
    }
    let keep: Vec<bool> = blocks
        .iter()
        .map(|b| {
            (b.is_object || b.raw_truthy)
                && (!is_call(b) || trimmed(b.id.as_str()).is_some_and(|id| a.ids.contains(id)))
        })
        .collect();
    if keep.iter().all(|k| *k) {
        return None;
    }
    for (b, _) in blocks.iter().zip(&keep).filter(|(_, k)| !**k) {
        ctx.change(RULE, block_path(m, b), || {
            "dropped a tool call no result answers before the next assistant turn".into()
        });
    }
    Some(if keep.iter().any(|k| *k) {
        Fix::Keep(keep)
    } else {
        Fix::Content(emptied(m))
    })
}

/// Strips unanswered calls from assistant turns (see the module docs).
pub fn strip_dangling_tool_calls(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    let mut changed = false;
    if msgs.iter().any(falsy) {
        for m in msgs.iter().filter(|m| falsy(m)) {
            ctx.change(RULE, msg_path(m), || "dropped a falsy entry".into());
        }
        msgs.retain(|m| !falsy(m));
        changed = true;
    }
    for i in 0..msgs.len() {
        match fix(msgs, i, ctx) {
            None => continue,
            Some(Fix::Content(blocks)) => replace_content(&mut msgs[i], blocks),
            Some(Fix::Keep(keep)) => {
                if let Some(bs) = msgs[i].blocks_mut() {
                    let mut flags = keep.into_iter();
                    bs.retain(|_| flags.next().unwrap_or(true));
                }
            }
        }
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::openclaw::OpenClawVersion::{self, V2026_3_23, V2026_9_6};
    use crate::transcript::rules::merge_turns::validate_anthropic_turns_as;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn validate(input: &Value, version: OpenClawVersion, merge_users: bool) -> Vec<Value> {
        run(input, |m, c| {
            validate_anthropic_turns_as(m, c, version, merge_users);
        })
        .0
    }

    fn call(id: &str, name: &str) -> Value {
        json!({"type": "toolCall", "id": id, "name": name, "arguments": {}})
    }

    fn said(content: Value, stop: &str) -> Value {
        json!({"role": "assistant", "content": content, "stopReason": stop})
    }

    fn result(id: &str, name: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": name, "content": [{"type": "text", "text": "内容"}]})
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    #[test]
    fn assistant_runs_merge_and_unanswered_calls_of_every_shape_go() {
        let input = json!([
            user("读 a.md"),
            said(json!([{"type": "text", "text": "先看看"}]), "stop"),
            said(json!([call("call1", "read")]), "toolUse"),
            result("call1", "read"),
            said(json!([call("call2", "read")]), "toolUse"),
            user("继续"),
            said(
                json!([{"type": "text", "text": "好"}, call("call3", "read")]),
                "toolUse"
            ),
            user("停"),
            said(json!([call("call4", "read")]), "aborted"),
        ]);
        let out = validate(&input, V2026_9_6, true);
        assert_eq!(out.len(), 8);
        assert_eq!(
            out[1],
            said(
                json!([{"type": "text", "text": "先看看"}, call("call1", "read")]),
                "toolUse"
            )
        );
        assert_eq!(
            out[3]["content"],
            json!([{"type": "text", "text": "[tool calls omitted]"}])
        );
        assert_eq!(out[5]["content"], json!([{"type": "text", "text": "好"}]));
        assert_eq!(out[7]["content"], json!([]));
        // 2026.3.23 looks only at `toolUse` blocks before a user turn, and merges no assistants.
        assert_eq!(
            validate(&input, V2026_3_23, true),
            input.as_array().unwrap().clone()
        );
    }

    #[test]
    fn a_signed_thinking_turn_stays_whole_or_loses_everything() {
        let thinking = json!({"type": "thinking", "thinking": "想", "thinkingSignature": "c2ln"});
        let turn = |stop: &str| {
            said(
                json!([thinking, call("c1", "read"), call("c2", "read")]),
                stop,
            )
        };
        let answered = json!([
            user("q"),
            turn("toolUse"),
            result("c1", "read"),
            result("c2", "read")
        ]);
        assert_eq!(
            validate(&answered, V2026_9_6, true),
            answered.as_array().unwrap().clone()
        );
        // One result names another tool: the turn cannot be replayed as signed.
        let renamed = json!([
            user("q"),
            turn("toolUse"),
            result("c1", "read"),
            result("c2", "write")
        ]);
        let out = validate(&renamed, V2026_9_6, true);
        assert_eq!(
            out[1]["content"],
            json!([{"type": "text", "text": "[tool calls omitted]"}])
        );
        let aborted = json!([user("q"), turn("aborted"), result("c1", "read")]);
        assert_eq!(validate(&aborted, V2026_9_6, true)[1]["content"], json!([]));
    }

    #[test]
    fn result_blocks_answer_through_every_id_field_and_messages_name_their_tool_by_name() {
        let tool_use = |id: &str| json!({"type": "toolUse", "id": id, "name": "read", "input": {}});
        let input = json!([
            user("q"),
            said(json!([tool_use("u1"), call("c2", "read"), call("c3", "read"), call("c4", "read"), call("c5", "read")]), "toolUse"),
            {"role": "user", "content": [
                {"type": "toolResult", "tool_use_id": "u1"},
                {"type": "tool", "toolCallId": " c2 "},
                {"type": "toolResult", "tool_call_id": "c3"},
                {"type": "tool", "callId": "c4"},
                {"type": "text", "text": "不是结果", "call_id": "c5"}
            ]},
        ]);
        let out = validate(&input, V2026_9_6, true);
        let kept: Vec<&str> = out[1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        assert_eq!(kept, ["u1", "c2", "c3", "c4"]);
        // 2026.3.23 reads `toolUseId` only, and only for `toolUse` calls.
        let old = validate(&input, V2026_3_23, true);
        assert_eq!(old[1]["content"].as_array().unwrap().len(), 4);
        // A signed turn: a result message without `toolName` names its tool by `name`.
        let thinking = json!({"type": "thinking", "thinking": "想", "thinkingSignature": "c2ln"});
        let named = |name: &str| {
            json!([
                user("q"),
                said(json!([thinking, call("c1", "read")]), "toolUse"),
                {"role": "toolResult", "toolCallId": "c1", "toolName": " ", "name": name, "content": []},
            ])
        };
        let same = named("read");
        assert_eq!(
            validate(&same, V2026_9_6, true),
            same.as_array().unwrap().clone()
        );
        assert_eq!(
            validate(&named("write"), V2026_9_6, true)[1]["content"],
            json!([{"type": "text", "text": "[tool calls omitted]"}])
        );
    }

    #[test]
    fn user_turns_merge_unless_asked_not_to_and_string_content_is_kept() {
        let input = json!([user("第一"), user("第二"), null]);
        let merged = validate(&input, V2026_9_6, true);
        assert_eq!(
            merged,
            vec![
                json!({"role": "user", "content": [{"type": "text", "text": "第一"}, {"type": "text", "text": "第二"}]})
            ]
        );
        let apart = validate(&input, V2026_9_6, false);
        assert_eq!(apart, input.as_array().unwrap()[..2].to_vec());
    }
}
