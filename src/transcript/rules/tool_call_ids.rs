//! Rewrite every tool-call id to the provider's alphabet (`sanitizeToolCallIdsForCloudCodeAssist`).
//!
//! Google (Cloud Code Assist, Gemini) and Anthropic accept only `[a-zA-Z0-9]` ids, Mistral exactly
//! nine of them, while OpenAI Responses writes `call_…|fc_…` and Kimi `functions.read:0`. Calls and
//! their results are renamed together by an occurrence-aware allocator, so repeated raw ids get
//! distinct new ids and each result follows the call it answered. Valid, unique ids stay as they are.

use crate::transcript::context::{block_origin_path, msg_path, Ctx};
use crate::transcript::model::{extra, Msg, Text, Val};
use crate::transcript::policy::ToolCallIdMode;
use crate::transcript::tool_call_id::IdAllocator;

pub fn sanitize_tool_call_ids(msgs: &mut [Msg], ctx: &mut Ctx, mode: ToolCallIdMode) -> bool {
    // About one call per two messages in agent transcripts; the allocator grows if there are more.
    rewrite(msgs, ctx, IdAllocator::with_capacity(mode, msgs.len() / 2))
}

/// [`sanitize_tool_call_ids`] with a configured allocator (OpenClaw 2026.9.6 keeps Kimi's and,
/// when its policy says so, Anthropic's native ids: [`IdAllocator::keeping_kimi_ids`],
/// [`IdAllocator::keeping_anthropic_ids`]).
pub fn sanitize_tool_call_ids_with(msgs: &mut [Msg], ctx: &mut Ctx, alloc: IdAllocator) -> bool {
    rewrite(msgs, ctx, alloc)
}

/// [`sanitize_tool_call_ids_with`] as OpenClaw 2026.9.6 renames results: one primary raw id (the
/// first of `call_id`, `callId`, `tool_call_id`, `tool_use_id`, `toolCallId`, `toolUseId`) is
/// resolved, written to every alias that differs, and to `toolCallId` when it is missing.
/// The assistant turns at `kept` (ascending positions) keep their call ids as written (2026.9.6's
/// replay-safe signed-thinking turns: the caller has [`IdAllocator::reserve`]d them).
pub fn sanitize_tool_call_ids_aliased(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    alloc: IdAllocator,
    kept: &[usize],
) -> bool {
    rewrite_as(msgs, ctx, alloc, true, kept)
}

fn rewrite(msgs: &mut [Msg], ctx: &mut Ctx, alloc: IdAllocator) -> bool {
    rewrite_as(msgs, ctx, alloc, false, &[])
}

fn rewrite_as(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    mut alloc: IdAllocator,
    aliased: bool,
    kept: &[usize],
) -> bool {
    let mut changed = false;
    let mut kept = kept.iter().peekable();
    for (i, m) in msgs.iter_mut().enumerate() {
        if kept.next_if_eq(&&i).is_some() {
            keep_calls(m, ctx, &mut alloc);
        } else if m.is_assistant() {
            changed |= rename_calls(m, ctx, &mut alloc);
        } else if m.is_tool_result() {
            changed |= if aliased {
                rename_result_aliases(m, ctx, &mut |raw| Text::new(alloc.result_id(raw)))
            } else {
                rename_result(m, ctx, &mut alloc)
            };
        }
    }
    changed
}

/// A result's id fields in 2026.9.6's order of precedence: (field, extra index, `None` for the
/// two the skeleton always carries).
const ALIASES: [(&str, Option<usize>); 6] = [
    ("call_id", Some(extra::CALL_ID_SNAKE)),
    ("callId", Some(extra::CALL_ID_CAMEL)),
    ("tool_call_id", Some(extra::TOOL_CALL_ID_SNAKE)),
    ("tool_use_id", Some(extra::TOOL_USE_ID_SNAKE)),
    ("toolCallId", None),
    ("toolUseId", None),
];

fn alias<'m>(m: &'m Msg, field: &str, x: Option<usize>) -> &'m Val {
    match (x, field) {
        (Some(k), _) => m.extra(k),
        (None, "toolCallId") => m.tool_call_id(),
        (None, _) => m.tool_use_id(),
    }
}

/// Renames a result's ids OpenClaw 2026.9.6's way (see [`sanitize_tool_call_ids_aliased`]), the
/// primary raw id resolved by `resolve`.
pub fn rename_result_aliases(
    m: &mut Msg,
    ctx: &mut Ctx,
    resolve: &mut dyn FnMut(&str) -> Text,
) -> bool {
    let Some(primary) = ALIASES
        .iter()
        .find_map(|(f, x)| nonempty(alias(m, f, *x)))
        .map(Text::new)
    else {
        return false;
    };
    let new = resolve(&primary);
    trace(&mut ctx.id_trace, m.src_index(), &primary, &new);
    let mut changed = false;
    // Each alias that differs, in order; setting one leaves the others as they were.
    for (field, x) in &ALIASES {
        if nonempty(alias(m, field, *x)).is_some_and(|raw| raw != new.as_str()) {
            set_result_id(m, ctx, field, &primary, &new);
            changed = true;
        }
    }
    // Only `toolCallId` can be a new key: it comes last, as in OpenClaw's spread. (A string
    // `toolCallId` that differed was set above.)
    if m.tool_call_id().as_str().is_none() {
        set_result_id(m, ctx, "toolCallId", &primary, &new);
        changed = true;
    }
    changed
}

fn set_result_id(m: &mut Msg, ctx: &mut Ctx, field: &str, primary: &str, new: &Text) {
    ctx.change("sanitizeToolCallIds", msg_path(m), || {
        format!("{field} {primary:?} → {new:?}")
    });
    m.set_text(field, new.clone());
}

/// Keeps the call ids of one assistant message as they are, queued for their results.
fn keep_calls(m: &Msg, ctx: &mut Ctx, alloc: &mut IdAllocator) {
    for b in m.blocks().into_iter().flatten() {
        if let Some(id) = b.call_id().filter(|_| b.is_object && b.is_tool_call()) {
            alloc.keep_call_id(id);
            trace(&mut ctx.id_trace, m.src_index(), id, id);
        }
    }
}

/// Renames the tool calls of one assistant message, block by block (no list of the renamed ones
/// is built: the content is marked rebuilt only when a block changes).
fn rename_calls(m: &mut Msg, ctx: &mut Ctx, alloc: &mut IdAllocator) -> bool {
    let src = m.src_index();
    let count = m.blocks().map_or(0, Vec::len);
    let mut changed = false;
    for j in 0..count {
        let Some(b) = m.blocks().and_then(|blocks| blocks.get(j)) else {
            break;
        };
        let Some(raw) = b.call_id().filter(|_| b.is_tool_call()) else {
            continue;
        };
        let new = alloc.call_id(raw);
        trace(&mut ctx.id_trace, src, raw, new);
        if new == raw {
            continue;
        }
        let new = Text::new(new);
        let Some(b) = m.blocks_mut().and_then(|blocks| blocks.get_mut(j)) else {
            break;
        };
        ctx.change("sanitizeToolCallIds", block_origin_path(b), || {
            format!("tool call id {:?} → {new:?}", b.id.as_str().unwrap_or(""))
        });
        b.set_text("id", new);
        changed = true;
    }
    changed
}

/// Records, for the incremental pass, the raw id the allocator was asked about and the id it
/// gave: a later suffix whose ids meet none of these allocates as a continued pass would.
#[inline]
fn trace(t: &mut Option<Vec<(usize, Text)>>, src: Option<usize>, raw: &str, new: &str) {
    if let (Some(t), Some(i)) = (t, src) {
        t.push((i, Text::new(raw)));
        if new != raw {
            t.push((i, Text::new(new)));
        }
    }
}

fn nonempty(v: &Val) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

fn rename_result(m: &mut Msg, ctx: &mut Ctx, alloc: &mut IdAllocator) -> bool {
    // The new ids, decided while the old ones are borrowed; the same raw id in both fields is
    // resolved once.
    let src = m.src_index();
    let trace_ids = &mut ctx.id_trace;
    let mut resolve = |raw: &str| {
        let new = alloc.result_id(raw);
        trace(trace_ids, src, raw, new);
        Text::new(new)
    };
    let (call, legacy) = match (nonempty(m.tool_call_id()), nonempty(m.tool_use_id())) {
        (Some(a), Some(b)) if a == b => {
            let new = resolve(a);
            (Some(new.clone()), Some(new))
        }
        (a, b) => (a.map(&mut resolve), b.map(&mut resolve)),
    };
    let mut changed = false;
    for (field, new) in [("toolCallId", call), ("toolUseId", legacy)] {
        let Some(new) = new else { continue };
        let old = if field == "toolCallId" {
            m.tool_call_id()
        } else {
            m.tool_use_id()
        };
        if old.as_str() == Some(new.as_str()) {
            continue;
        }
        ctx.change("sanitizeToolCallIds", msg_path(m), || {
            format!("{field} {:?} → {new:?}", old.as_str().unwrap_or(""))
        });
        m.set_text(field, new);
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn call(id: &str) -> serde_json::Value {
        json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}})
    }

    fn result(id: &str) -> serde_json::Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": []})
    }

    #[test]
    fn valid_ids_give_the_identity() {
        let input = json!([{"role": "assistant", "content": [call("abc123")]}, result("abc123")]);
        let (_, identity) = run(&input, |m, c| {
            assert!(!sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict));
        });
        assert!(identity);
    }

    #[test]
    fn strict_strips_and_keeps_pairs_together() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "text", "text": "x"}, call("call|item:123")]},
            result("call|item:123"),
        ]);
        let (out, _) = run(&input, |m, c| {
            sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict);
        });
        assert_eq!(out[0]["content"][1]["id"], "callitem123");
        assert_eq!(out[0]["content"][0], input[0]["content"][0]);
        assert_eq!(out[1]["toolCallId"], "callitem123");
    }

    #[test]
    fn repeated_raw_ids_get_distinct_ids_and_results_follow() {
        let input = json!([
            {"role": "assistant", "content": [call("edit:22")]},
            result("edit:22"),
            {"role": "assistant", "content": [call("edit:22")]},
            result("edit:22"),
        ]);
        let (out, _) = run(&input, |m, c| {
            sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict);
        });
        assert_eq!(out[0]["content"][0]["id"], "edit22");
        assert_eq!(out[1]["toolCallId"], "edit22");
        assert_eq!(out[2]["content"][0]["id"], "edit222");
        assert_eq!(out[3]["toolCallId"], "edit222");
    }

    #[test]
    fn shared_tool_use_id_is_resolved_once() {
        let input = json!([
            {"role": "assistant", "content": [call("a|b")]},
            {"role": "toolResult", "toolCallId": "a|b", "toolUseId": "a|b", "content": []},
        ]);
        let (out, _) = run(&input, |m, c| {
            sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict);
        });
        assert_eq!(out[1]["toolCallId"], "ab");
        assert_eq!(out[1]["toolUseId"], "ab");
    }

    #[test]
    fn orphan_results_are_renamed_even_when_valid() {
        let input = json!([result("call1")]);
        let (out, _) = run(&input, |m, c| {
            sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict);
        });
        assert_eq!(out[0]["toolCallId"], "call1toolresult1");
    }

    #[test]
    fn strict9_enforces_nine_characters() {
        let input = json!([
            {"role": "assistant", "content": [call("call_abc|item:123"), call("call_abc|item:456")]},
        ]);
        let (out, _) = run(&input, |m, c| {
            sanitize_tool_call_ids(m, c, ToolCallIdMode::Strict9);
        });
        assert_eq!(out[0]["content"][0]["id"], "callabcit");
        assert_eq!(out[0]["content"][1]["id"], "15b81aaaa");
    }
}
