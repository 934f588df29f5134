//! Malformed tool-call dropping (`repairToolCallInputs` / `sanitizeToolCallInputs`).
//!
//! A tool call persisted half-way (a rate limit or crash mid-stream) has no arguments, no id or a
//! garbage name, and every provider rejects the whole request for it. Such calls are dropped, as
//! are calls to tools outside the caller's allowlist; an assistant turn left empty by the drop is
//! removed. Kept calls get their name trimmed, and `sessions_spawn` attachments have their inline
//! `content` redacted, so large or sensitive payloads are not replayed. OpenClaw 2026.9.6 also
//! accepts `.` and `:` in names (MCP tools) and no longer redacts here ([`Release`]).

use crate::openclaw::OpenClawVersion;
use crate::transcript::context::{block_origin_path, msg_path, Ctx};
use crate::transcript::model::{Block, BlockOrigin, Kind, Msg, Val};
use crate::transcript::text::trim;
use crate::transcript::v2026_9::owned_thinking::OwnedTurns;
use serde_json::Value;
use std::collections::HashSet;

const MAX_NAME_CHARS: usize = 64;
const REDACTED: &str = "__OPENCLAW_REDACTED__";

/// A character of a tool name, OpenClaw's `/^[A-Za-z0-9_-]+$/` (a byte test: a regex search per
/// call cost ~265 instructions, 1.4% of a 2026.9.6 pass); OpenClaw 2026.9.6 (`mcp`) also accepts
/// `.` and `:` (MCP-style names such as `fs.read`, `server:tool`). A plain function of the flag,
/// inlined into the loop over the name's bytes (through a function pointer, each byte was a call).
fn name_byte(b: u8, mcp: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (mcp && (b == b'.' || b == b':'))
}

/// The allowlist as OpenClaw normalises it: trimmed, lowercased, empty entries ignored; an empty
/// list counts as no list.
pub fn normalize_allowlist(names: Option<&[String]>) -> Option<HashSet<String>> {
    let set: HashSet<String> = names?
        .iter()
        .map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty())
        .collect();
    (!set.is_empty()).then_some(set)
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRepairReport {
    pub dropped_tool_calls: usize,
    pub dropped_assistant_messages: usize,
}

/// Why a call must be dropped, if it must.
/// What differs between the OpenClaw releases, as data.
struct Release {
    /// The tool-name syntax: whether a name may hold `.` and `:` (see [`name_byte`]).
    mcp_names: bool,
    /// Whether `sessions_spawn` attachment content is redacted (2026.3.23 only).
    redact_spawn_attachments: bool,
    /// 2026.9.6: a call that already has its real result stays whatever the allowlist says, and
    /// a call still carrying `partialJson` goes unless it is a finished Responses call.
    completed_and_partial: bool,
}

impl Release {
    fn of(version: OpenClawVersion) -> Release {
        match version {
            OpenClawVersion::V2026_3_23 => Release {
                mcp_names: false,
                redact_spawn_attachments: true,
                completed_and_partial: false,
            },
            OpenClawVersion::V2026_9_6 => Release {
                mcp_names: true,
                redact_spawn_attachments: false,
                completed_and_partial: true,
            },
        }
    }
}

fn defect(b: &Block, allow: Option<&HashSet<String>>, mcp_names: bool) -> Option<&'static str> {
    if !b.input.is_present() && !b.arguments.is_present() {
        return Some("has neither input nor arguments");
    }
    if b.id.non_blank_str().is_none() {
        return Some("has no id");
    }
    let Some(name) = b.name.as_str().map(trim).filter(|n| !n.is_empty()) else {
        return Some("has no name");
    };
    // `name` is not empty; a name of name bytes is ASCII, so its length counts its characters.
    if name.len() > MAX_NAME_CHARS || !name.bytes().all(|b| name_byte(b, mcp_names)) {
        return Some("has a malformed name");
    }
    if let Some(allow) = allow {
        if !allow.contains(&name.to_lowercase()) {
            return Some("names a tool outside the allowlist");
        }
    }
    None
}

/// The attachments of `block.field` whose inline `content` must be redacted: the object items that
/// have a `content` key. Only that much is read, so arguments of any size or depth are fine.
fn attachments_to_redact(b: &Block, field: &str, ctx: &Ctx) -> Vec<usize> {
    let flags = match &b.origin {
        BlockOrigin::Src { msg, idx } => ctx.source.items_with_key(
            *msg as usize,
            *idx as usize,
            field,
            "attachments",
            "content",
        ),
        BlockOrigin::New(v) => v
            .get(field)
            .and_then(|f| f.get("attachments"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|i| i.as_object().is_some_and(|o| o.contains_key("content")))
                    .collect()
            }),
        BlockOrigin::FromStrContent { .. } => None,
    };
    flags
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(i, has)| has.then_some(i))
        .collect()
}

/// What happens to one block.
enum Action {
    Keep,
    Drop(&'static str),
    Edit {
        name: Option<String>,
        fields: Vec<(&'static str, Vec<usize>)>,
        drop_partial: bool,
    },
}

/// A call streamed to the end on the OpenAI Responses API whose `partialJson` was left behind
/// (2026.9.6's `isFinalizedOpenAIResponsesToolCall`): a `toolUse` turn, a `call|item` id, object
/// arguments and no `input`, the leftover a whole JSON object or blank with empty arguments.
fn finished_responses_call(m: &Msg, b: &Block) -> bool {
    let Some(partial) = b.partial_json().as_str() else {
        return false;
    };
    let Some(id) = b.id.as_str() else {
        return false;
    };
    let complete = matches!(serde_json::from_str::<Value>(partial), Ok(Value::Object(_)));
    let blank_and_empty =
        partial.trim().is_empty() && b.x.as_deref().and_then(|x| x.argument_keys) == Some(0);
    let paired = id.find('|').is_some_and(|k| k > 0 && k < id.len() - 1);
    m.stop_reason.as_str() == Some("toolUse")
        && b.input == Kind::Absent
        && b.arguments == Kind::Object
        && (complete || blank_and_empty)
        && paired
}

fn action(
    m: &Msg,
    b: &Block,
    allow: Option<&HashSet<String>>,
    release: &Release,
    ctx: &Ctx,
) -> Action {
    if !b.is_tool_call() {
        return Action::Keep;
    }
    if let Some(why) = defect(b, allow, release.mcp_names) {
        return Action::Drop(why);
    }
    let drop_partial = release.completed_and_partial && matches!(b.partial_json(), Val::Str(_));
    if drop_partial && !finished_responses_call(m, b) {
        return Action::Drop("still carries partialJson");
    }
    let raw = b.name.as_str().unwrap_or("");
    let trimmed = trim(raw);
    let name = (trimmed != raw).then(|| trimmed.to_string());
    let mut fields = Vec::new();
    if release.redact_spawn_attachments && trimmed.eq_ignore_ascii_case("sessions_spawn") {
        for (field, v) in [("arguments", &b.arguments), ("input", &b.input)] {
            if *v != Kind::Object {
                continue;
            }
            let items = attachments_to_redact(b, field, ctx);
            if !items.is_empty() {
                fields.push((field, items));
            }
        }
    }
    if name.is_none() && fields.is_empty() && !drop_partial {
        Action::Keep
    } else {
        Action::Edit {
            name,
            fields,
            drop_partial,
        }
    }
}

pub fn repair_tool_call_inputs(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    allowed_tool_names: Option<&[String]>,
) -> InputRepairReport {
    repair_tool_call_inputs_as(
        msgs,
        ctx,
        allowed_tool_names,
        OpenClawVersion::V2026_3_23,
        false,
    )
}

/// Whether a call block may be replayed: input, id and a well-formed name, allowed by `allow`
/// (OpenClaw `version`'s name syntax).
pub fn call_allowed(b: &Block, allow: Option<&HashSet<String>>, version: OpenClawVersion) -> bool {
    defect(b, allow, Release::of(version).mcp_names).is_none()
}

/// [`repair_tool_call_inputs`] as OpenClaw `version` does it: 2026.9.6 accepts `.` and `:` in
/// names and no longer redacts `sessions_spawn` attachments. With `owned_thinking` (2026.9.6's
/// provider-owned thinking replay, [`crate::transcript::v2026_9::owned_thinking`]) a turn with
/// reasoning and calls is kept or dropped whole.
pub fn repair_tool_call_inputs_as(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    allowed_tool_names: Option<&[String]>,
    version: OpenClawVersion,
    owned_thinking: bool,
) -> InputRepairReport {
    let release = Release::of(version);
    let allow = normalize_allowlist(allowed_tool_names);
    let completed = match (&allow, release.completed_and_partial) {
        (Some(_), true) => crate::transcript::v2026_9::pairing::completed_calls(msgs, ctx),
        _ => Vec::new(),
    };
    let completed: HashSet<(usize, usize)> = completed.into_iter().collect();
    let mut report = InputRepairReport::default();
    let mut remove: Vec<usize> = Vec::new();
    let mut owned = OwnedTurns::default();
    // Each turn's actions, in one buffer reused from turn to turn (a list per assistant turn
    // was one allocation, and one free, for every three messages of an agent's history).
    let mut actions: Vec<Action> = Vec::new();
    for i in 0..msgs.len() {
        let m = &msgs[i];
        if !m.is_assistant() {
            continue;
        }
        let Some(blocks) = m.blocks() else { continue };
        // A completed call keeps its place whatever the allowlist says now.
        let allow_at = |j: usize| allow.as_ref().filter(|_| !completed.contains(&(i, j)));
        if owned_thinking && OwnedTurns::owns(m) {
            let allowed = |j: usize, b: &Block| defect(b, allow_at(j), release.mcp_names).is_none();
            if !owned.keep(msgs, i, ctx, &allowed) {
                let calls = blocks.iter().filter(|b| b.is_tool_call()).count();
                ctx.change("repairToolCallInputs", msg_path(m), || {
                    "dropped a signed-thinking turn that cannot be replayed as written".into()
                });
                report.dropped_tool_calls += calls;
                remove.push(i);
            }
            continue;
        }
        actions.clear();
        actions.extend(
            blocks
                .iter()
                .enumerate()
                .map(|(j, b)| action(m, b, allow_at(j), &release, ctx)),
        );
        if actions.iter().all(|a| matches!(a, Action::Keep)) {
            if owned_thinking {
                owned.saw(m);
            }
            continue;
        }
        let m = &mut msgs[i];
        let path = msg_path(m);
        let Some(blocks) = m.blocks_mut() else {
            continue;
        };
        let old = std::mem::take(blocks);
        let mut dropped = 0;
        for (mut b, act) in old.into_iter().zip(actions.drain(..)) {
            match act {
                Action::Keep => {}
                Action::Drop(why) => {
                    ctx.change("repairToolCallInputs", block_origin_path(&b), || {
                        format!("dropped a tool call that {why}")
                    });
                    dropped += 1;
                    continue;
                }
                Action::Edit {
                    name,
                    fields,
                    drop_partial,
                } => {
                    if drop_partial {
                        ctx.change("repairToolCallInputs", block_origin_path(&b), || {
                            "removed the partialJson left on a finished call".into()
                        });
                        b.del("partialJson");
                    }
                    if let Some(n) = name {
                        ctx.change("repairToolCallInputs", block_origin_path(&b), || {
                            format!("trimmed tool name to {n:?}")
                        });
                        b.set_str("name", &n);
                    }
                    for (field, v) in fields {
                        ctx.change("repairToolCallInputs", block_origin_path(&b), || {
                            format!("redacted sessions_spawn attachment content in {field}")
                        });
                        let marker = Value::String(REDACTED.into());
                        b.set_in_items(field, "attachments", v, "content", marker);
                    }
                }
            }
            blocks.push(b);
        }
        report.dropped_tool_calls += dropped;
        if dropped > 0 && blocks.is_empty() {
            ctx.change("repairToolCallInputs", path, || {
                "removed an assistant turn left empty by dropped tool calls".into()
            });
            remove.push(i);
        } else if owned_thinking {
            owned.saw(m);
        }
    }
    report.dropped_assistant_messages = remove.len();
    crate::transcript::reorder::remove_sorted(msgs, &remove);
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn repair(input: &Value, allow: Option<Vec<String>>) -> (Vec<Value>, bool, InputRepairReport) {
        let mut rep = InputRepairReport::default();
        let (out, identity) = run(input, |m, c| {
            rep = repair_tool_call_inputs(m, c, allow.as_deref())
        });
        (out, identity, rep)
    }

    fn call(v: Value) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": "t"}, v]})
    }

    fn repair_96(input: &Value, allow: Option<Vec<String>>) -> Vec<Value> {
        run(input, |m, c| {
            repair_tool_call_inputs_as(m, c, allow.as_deref(), OpenClawVersion::V2026_9_6, false);
        })
        .0
    }

    /// 2026.9.6 drops a call still carrying `partialJson` unless it is a finished Responses call
    /// (then only the leftover goes): each case, and whether the call stays.
    #[test]
    fn partial_json_in_2026_9_6() {
        let turn = |stop: &str, block: Value| json!([{"role": "assistant", "stopReason": stop, "content": [{"type": "text", "text": "读"}, block]}]);
        let cases = [
            (
                "half-written",
                "toolUse",
                json!({"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"path": "a"}, "partialJson": "{\"path\":\"a"}),
                false,
            ),
            (
                "finished Responses call",
                "toolUse",
                json!({"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"path": "a"}, "partialJson": "{\"path\":\"a\"}"}),
                true,
            ),
            (
                "blank leftover, empty arguments",
                "toolUse",
                json!({"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}, "partialJson": " "}),
                true,
            ),
            (
                "blank leftover, arguments set",
                "toolUse",
                json!({"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {"path": "a"}, "partialJson": ""}),
                false,
            ),
            (
                "not a call|item id",
                "toolUse",
                json!({"type": "toolCall", "id": "call_1", "name": "read", "arguments": {}, "partialJson": "{}"}),
                false,
            ),
            (
                "turn cut short",
                "length",
                json!({"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}, "partialJson": "{}"}),
                false,
            ),
        ];
        for (name, stop, block, stays) in cases {
            let out = repair_96(&turn(stop, block.clone()), None);
            let content = out[0]["content"].as_array().cloned().unwrap_or_default();
            assert_eq!(content.len() == 2, stays, "{name}");
            if stays {
                assert!(content[1].get("partialJson").is_none(), "{name}");
                assert_eq!(content[1]["arguments"], block["arguments"], "{name}");
            }
        }
        // 2026.3.23 does not look at partialJson.
        let input = turn(
            "toolUse",
            json!({"type": "toolCall", "id": "call_1", "name": "read", "arguments": {}, "partialJson": "{"}),
        );
        assert!(repair(&input, None).1);
    }

    #[test]
    fn a_completed_call_to_a_tool_no_longer_allowed_stays_in_2026_9_6() {
        let allow = Some(vec!["write".to_string()]);
        let input = json!([
            {"role": "assistant", "stopReason": "toolUse", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "内容"}], "isError": false},
            {"role": "assistant", "stopReason": "toolUse", "content": [{"type": "toolCall", "id": "c2", "name": "read", "arguments": {}}]},
        ]);
        let out = repair_96(&input, allow.clone());
        // The answered call stays; the unanswered one goes, with its turn.
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], input[0]);
        assert_eq!(repair(&input, allow).0.len(), 1);
    }

    #[test]
    fn drops_calls_missing_input_and_arguments() {
        let input = json!([call(json!({"type": "toolCall", "id": "a", "name": "read"}))]);
        let (out, _, rep) = repair(&input, None);
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": "t"}]));
        assert_eq!(rep.dropped_tool_calls, 1);
        // {} and 0 count as present.
        for args in [json!({}), json!(0)] {
            let input = json!([call(
                json!({"type": "toolUse", "id": "a", "name": "read", "input": args})
            )]);
            assert!(repair(&input, None).1);
        }
    }

    #[test]
    fn drops_blank_ids_and_malformed_or_overlong_names() {
        for bad in [
            json!({"type": "toolCall", "id": " ", "name": "read", "arguments": {}}),
            json!({"type": "toolCall", "id": "a", "name": "  ", "arguments": {}}),
            json!({"type": "toolCall", "id": "a", "name": "bad name!", "arguments": {}}),
            json!({"type": "toolCall", "id": "a", "name": "x".repeat(65), "arguments": {}}),
        ] {
            let (_, _, rep) = repair(&json!([call(bad.clone())]), None);
            assert_eq!(rep.dropped_tool_calls, 1, "{bad}");
        }
    }

    #[test]
    fn allowlist_is_trimmed_and_case_insensitive() {
        let input = json!([
            call(json!({"type": "toolCall", "id": "a", "name": "Read", "arguments": {}})),
            call(json!({"type": "toolCall", "id": "b", "name": "write", "arguments": {}}))
        ]);
        let (out, _, rep) = repair(&input, Some(vec![" READ ".into(), "".into()]));
        assert_eq!(out[0], input[0]);
        assert_eq!(rep.dropped_tool_calls, 1);
        // An allowlist of only empty names counts as none.
        assert!(repair(&input, Some(vec![" ".into()])).1);
    }

    #[test]
    fn removes_assistants_emptied_by_drops_but_keeps_already_empty_ones() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "read"}]},
            {"role": "assistant", "content": []},
        ]);
        let (out, _, rep) = repair(&input, None);
        assert_eq!(out, vec![input[1].clone()]);
        assert_eq!(rep.dropped_assistant_messages, 1);
    }

    #[test]
    fn trims_names_and_keeps_other_properties() {
        let input = json!([call(
            json!({"type": "toolCall", "id": "a", "name": "  read ", "arguments": {"p": 1}, "extra": true})
        )]);
        let (out, _, _) = repair(&input, Some(vec!["read".into()]));
        assert_eq!(
            out[0]["content"][1],
            json!({"type": "toolCall", "id": "a", "name": "read", "arguments": {"p": 1}, "extra": true})
        );
    }

    #[test]
    fn redacts_sessions_spawn_attachments_in_arguments_and_input() {
        let input = json!([call(
            json!({"type": "toolCall", "id": "a", "name": " SESSIONS_SPAWN ",
            "arguments": {"attachments": [{"name": "f", "content": "secret"}, "s", {"name": "g"}]},
            "input": {"attachments": [{"content": 1}]}})
        )]);
        let (out, _, _) = repair(&input, None);
        let b = &out[0]["content"][1];
        assert_eq!(b["name"], "SESSIONS_SPAWN");
        assert_eq!(
            b["arguments"]["attachments"],
            json!([{"name": "f", "content": REDACTED}, "s", {"name": "g"}])
        );
        assert_eq!(b["input"]["attachments"], json!([{"content": REDACTED}]));
    }

    #[test]
    fn sessions_spawn_without_attachments_is_untouched() {
        let input = json!([call(
            json!({"type": "toolCall", "id": "a", "name": "sessions_spawn", "input": {"task": "x"}})
        )]);
        assert!(repair(&input, None).1);
    }

    #[test]
    fn user_content_is_never_examined() {
        let input =
            json!([{"role": "user", "content": [{"type": "toolCall", "id": "", "name": ""}]}]);
        assert!(repair(&input, None).1);
    }

    #[test]
    fn sessions_spawn_attachments_stay_in_2026_9_6() {
        let input = json!([call(
            json!({"type": "toolCall", "id": "a", "name": "sessions_spawn", "arguments": {"attachments": [{"content": "机密"}]}})
        )]);
        let (_, identity) = run(&input, |m, c| {
            repair_tool_call_inputs_as(m, c, None, OpenClawVersion::V2026_9_6, false);
        });
        assert!(identity);
        assert!(!repair(&input, None).1, "2026.3.23 redacts");
    }

    #[test]
    fn names_with_dots_and_colons_pass_in_2026_9_6_only() {
        let input = json!([call(
            json!({"type": "toolCall", "id": "a", "name": "mcp.fs:read", "arguments": {}})
        )]);
        assert_eq!(repair(&input, None).2.dropped_tool_calls, 1);
        let (_, identity) = run(&input, |m, c| {
            repair_tool_call_inputs_as(m, c, None, OpenClawVersion::V2026_9_6, false);
        });
        assert!(identity);
        let bad = json!([call(
            json!({"type": "toolCall", "id": "a", "name": "读 文件", "arguments": {}})
        )]);
        let (out, _) = run(&bad, |m, c| {
            repair_tool_call_inputs_as(m, c, None, OpenClawVersion::V2026_9_6, false);
        });
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": "t"}]));
    }
}
