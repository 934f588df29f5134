//! OpenAI Responses reasoning from before a model switch, dropped (OpenClaw 2026.9.6's
//! `dropStaleOpenAIReasoning`, which replaced `downgradeOpenAIReasoningBlocks`).
//!
//! A Responses reasoning item (`thinking` block whose `thinkingSignature` names an `rs_…` item) can
//! only be replayed to the model route that produced it: after the session switched provider, API
//! or model, the API rejects the old items, and the text items paired with them carry a message id
//! (`msg_…`, in the text block's `textSignature`) that no longer resolves either. So, for the
//! Responses APIs, every assistant turn whose timestamp is not after the latest switch (or has no
//! timestamp that parses) loses those reasoning blocks; in a turn that lost one, each text block's
//! `textSignature` is reduced to its Responses phase (`{"v":1,"phase":"commentary"|"final_answer"}`)
//! or removed when it has none. A turn left with nothing is removed. The latest switch is the
//! time of this call when the model differs from the session's last `model-snapshot`, else the
//! timestamp of the latest snapshot on the branch that differs from the one before it
//! ([`latest_switch`]); with neither, nothing changes.
//!
//! As in 2026.9.6, a falsy non-object entry (`null`, `0`, `""`) in a turn this rule reaches is
//! removed too. Differences: a `textSignature` that is not a string (an object, `null`) makes
//! 2026.9.6 throw a TypeError from the whole pass (`signature.startsWith is not a function`);
//! here it is removed like any other signature without a phase. A rewritten `textSignature` moves
//! last in its block, as 2026.9.6 rebuilds it. The pass runs this rule inside
//! [`super::compaction_replay::with_checkpoints`]: a turn that keeps some blocks has its compaction
//! checkpoint re-indexed, or removed when a text block was rewritten.

use super::signatures::timestamp;
use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use crate::transcript::pipeline::{snapshot_differs, HistoryParams, MODEL_SNAPSHOT};
use crate::transcript::rules::openai_reasoning::is_openai_reasoning_signature;
use serde_json::Value;

const RULE: &str = "dropStaleOpenAIReasoning";

/// Whether two snapshots name the same provider, API and model (absent or null read as `""`;
/// 2026.9.6's `isSameModelSnapshot`).
fn same_snapshot(a: &Value, b: &Value) -> bool {
    ["provider", "modelApi", "modelId"].iter().all(|k| {
        let norm = |v: &Value| match v.get(k) {
            None | Some(Value::Null) => Value::String(String::new()),
            Some(v) => v.clone(),
        };
        let (x, y) = (norm(a), norm(b));
        // Two objects are two references in JS: never the same.
        !(x.is_object() || x.is_array()) && x == y
    })
}

/// The time before which reasoning is stale (ms), if the model ever switched: this call's time
/// when the session's last snapshot names another model, else the timestamp of the latest
/// snapshot that differs from the one before it. `None` without a session, without this call's
/// model, or without a switch.
pub fn latest_switch(p: &HistoryParams) -> Option<f64> {
    let has_snapshot = p.provider.is_some() || p.model_api.is_some() || p.model_id.is_some();
    let entries = p.session_entries.as_ref().filter(|_| has_snapshot)?;
    let mut last: Option<&Value> = None;
    let mut switched = None;
    for (_, data) in entries.iter().filter(|(t, _)| t == MODEL_SNAPSHOT) {
        if !(data.is_object() || data.is_array()) {
            continue;
        }
        if let Some(prev) = last {
            let ts = data.get("timestamp").and_then(Value::as_f64);
            if let Some(ts) = ts.filter(|t| t.is_finite() && !same_snapshot(prev, data)) {
                switched = Some(ts);
            }
        }
        last = Some(data);
    }
    match last {
        Some(data) if snapshot_differs(data, p) => Some(p.now),
        _ => switched,
    }
}

/// The Responses phase a `textSignature` names (`{"v":1,"phase":…}` as JSON opening with `{`).
fn phase(sig: &Val) -> Option<&'static str> {
    let s = sig.as_str().filter(|s| s.starts_with('{'))?;
    let v: Value = serde_json::from_str(s).ok()?;
    if v.get("v").and_then(Value::as_f64) != Some(1.0) {
        return None;
    }
    match v.get("phase").and_then(Value::as_str) {
        Some("commentary") => Some("commentary"),
        Some("final_answer") => Some("final_answer"),
        _ => None,
    }
}

/// A text block with a `textSignature` (`!== undefined`).
fn signed_text(b: &Block) -> bool {
    b.is_object && b.is_text() && !b.text_signature().is_absent()
}

fn is_stale_reasoning(b: &Block) -> bool {
    b.is_object && b.is_thinking() && is_openai_reasoning_signature(b)
}

/// Drops reasoning from the assistant turns not after `drop_before` (see the module docs).
pub fn drop_stale_openai_reasoning(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    drop_before: Option<f64>,
) -> bool {
    let Some(before) = drop_before else {
        return false;
    };
    let mut changed = false;
    msgs.retain_mut(|m| {
        if !m.is_assistant() || timestamp(&m.timestamp).is_some_and(|t| t > before) {
            return true;
        }
        let Some(blocks) = m.blocks() else {
            return true;
        };
        let gone = |b: &Block| (!b.is_object && !b.raw_truthy) || is_stale_reasoning(b);
        if !blocks.iter().any(gone) {
            return true;
        }
        changed = true;
        let dropped_reasoning = blocks.iter().any(is_stale_reasoning);
        for b in blocks.iter().filter(|b| is_stale_reasoning(b)) {
            ctx.change(RULE, block_path(m, b), || {
                "dropped reasoning from before the latest model switch".into()
            });
        }
        if blocks.iter().all(gone) {
            ctx.change(RULE, msg_path(m), || {
                "removed an assistant message left empty".into()
            });
            return false;
        }
        if dropped_reasoning {
            for b in blocks.iter().filter(|b| signed_text(b)) {
                ctx.change(RULE, block_path(m, b), || {
                    "reduced a text signature to its phase".into()
                });
            }
        }
        if let Some(bs) = m.blocks_mut() {
            bs.retain(|b| !gone(b));
            for b in bs
                .iter_mut()
                .filter(|b| dropped_reasoning && signed_text(b))
            {
                match phase(b.text_signature()) {
                    Some(p) => b.set_last(
                        "textSignature",
                        Value::String(format!(r#"{{"v":1,"phase":"{p}"}}"#)),
                    ),
                    None => b.del("textSignature"),
                }
            }
        }
        true
    });
    changed
}

#[cfg(test)]
mod tests {
    use super::super::compaction_replay::with_checkpoints;
    use super::*;
    use crate::openclaw::OpenClawVersion::V2026_9_6;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn rs(id: &str) -> String {
        json!({"id": id, "type": "reasoning"}).to_string()
    }

    fn drop_before(input: &Value, before: Option<f64>) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            with_checkpoints(m, |m| drop_stale_openai_reasoning(m, c, before));
        })
    }

    fn params(entries: Vec<Value>) -> HistoryParams {
        HistoryParams {
            provider: Some("openai".into()),
            model_api: Some("openai-responses".into()),
            model_id: Some("gpt-5".into()),
            session_entries: Some(
                entries
                    .into_iter()
                    .map(|d| (MODEL_SNAPSHOT.to_string(), d))
                    .collect(),
            ),
            now: 1000.0,
            version: Some(V2026_9_6),
            ..HistoryParams::default()
        }
    }

    #[test]
    fn the_latest_switch_is_now_when_the_model_changed_else_the_last_differing_snapshot() {
        let claude = |ts| json!({"timestamp": ts, "provider": "anthropic", "modelApi": "anthropic-messages", "modelId": "claude"});
        let gpt = |ts| json!({"timestamp": ts, "provider": "openai", "modelApi": "openai-responses", "modelId": "gpt-5"});
        assert_eq!(latest_switch(&params(vec![claude(1)])), Some(1000.0));
        assert_eq!(latest_switch(&params(vec![claude(1), gpt(3)])), Some(3.0));
        assert_eq!(latest_switch(&params(vec![gpt(1), gpt(3)])), None);
        assert_eq!(latest_switch(&params(vec![])), None);
        // A switch without a numeric timestamp is not one; the snapshot still counts as the last.
        let untimed = json!({"timestamp": "3", "provider": "openai", "modelApi": "openai-responses", "modelId": "gpt-5"});
        assert_eq!(latest_switch(&params(vec![claude(1), untimed])), None);
        // No session manager: nothing is known of earlier models.
        let mut p = params(vec![claude(1)]);
        p.session_entries = None;
        assert_eq!(latest_switch(&p), None);
    }

    #[test]
    fn reasoning_up_to_the_switch_goes_and_text_signatures_keep_only_their_phase() {
        let input = json!([
            {"role": "user", "content": "北京天气", "timestamp": 1},
            {"role": "assistant", "timestamp": 2, "content": [
                {"type": "thinking", "thinking": "想", "thinkingSignature": rs("rs_1")},
                {"type": "text", "textSignature": json!({"v": 1, "id": "msg_1", "phase": "final_answer"}).to_string(), "text": "晴"},
                {"type": "text", "text": "旁白", "textSignature": "msg_legacy"},
                {"type": "text", "text": "对象", "textSignature": {"v": 1, "phase": "commentary"}}]},
            {"role": "assistant", "timestamp": 5, "content": [
                {"type": "thinking", "thinking": "新", "thinkingSignature": rs("rs_2")},
                {"type": "text", "text": "好", "textSignature": "msg_2"}]},
        ]);
        let (out, _) = drop_before(&input, Some(3.0));
        assert_eq!(
            out[1]["content"],
            json!([
                {"type": "text", "text": "晴", "textSignature": "{\"v\":1,\"phase\":\"final_answer\"}"},
                {"type": "text", "text": "旁白"},
                {"type": "text", "text": "对象"}])
        );
        assert_eq!(out[2], input[2]);
        // The rewritten signature goes last, as 2026.9.6 rebuilds the block.
        assert_eq!(
            out[1]["content"][0].to_string(),
            r#"{"type":"text","text":"晴","textSignature":"{\"v\":1,\"phase\":\"final_answer\"}"}"#
        );
    }

    /// Each turn is decided on its own blocks (its checkpoint too): 8x the turns may take well
    /// under 64x the time.
    #[test]
    fn stale_reasoning_is_dropped_in_linear_time() {
        fn timed(n: usize) -> f64 {
            let rows: Vec<Value> = (0..n)
                .flat_map(|i| {
                    let text = json!({"v": 1, "id": format!("msg_{i}"), "phase": "commentary"});
                    [
                        json!({"role": "user", "content": "继续", "timestamp": i}),
                        json!({"role": "assistant", "timestamp": i, "content": [
                            {"type": "thinking", "thinking": "想", "thinkingSignature": rs(&format!("rs_{i}"))},
                            {"type": "text", "text": "好的", "textSignature": text.to_string()}],
                            "providerReplay": {"type": "anthropic-compaction", "replayIndex": 1}}),
                        json!({"role": "assistant", "timestamp": i, "content": [
                            {"type": "thinking", "thinking": "想", "thinkingSignature": rs(&format!("rs_{i}"))},
                            {"type": "text", "text": "好的"}],
                            "providerReplay": {"type": "anthropic-compaction", "replayIndex": 2}}),
                    ]
                })
                .collect();
            let input = Value::Array(rows);
            let (best, out) = crate::test_clock::best_of(3, || drop_before(&input, Some(n as f64)));
            assert_eq!(out.0.len(), 3 * n);
            assert_eq!(out.0[2]["providerReplay"]["replayIndex"], json!(1));
            best
        }
        let (small, large) = (timed(500), timed(4_000));
        assert!(
            large / small < 24.0,
            "500 turns {small:.4}s, 4,000 {large:.4}s"
        );
    }

    #[test]
    fn a_compaction_checkpoint_is_reindexed_or_removed_with_the_blocks() {
        let owner = |replay: Value, signed: bool| {
            let sig = if signed { json!("msg_1") } else { Value::Null };
            let text = |t: &str| match &sig {
                Value::Null => json!({"type": "text", "text": t}),
                s => json!({"type": "text", "text": t, "textSignature": s}),
            };
            json!({"role": "assistant", "timestamp": 2, "providerReplay": replay, "content": [
                {"type": "thinking", "thinking": "想", "thinkingSignature": rs("rs_1")},
                text("摘要之前"), null, text("摘要之后")]})
        };
        let replay =
            |ty: &str, index: Value| json!({"type": ty, "replayIndex": index, "summary": "压缩"});
        let first = |input: Value| drop_before(&json!([input]), Some(3.0)).0.remove(0);
        // Two of the three blocks before the index went: it counts the one left, in place.
        let out = first(owner(replay("anthropic-compaction", json!(3)), false));
        assert_eq!(
            out["providerReplay"].to_string(),
            r#"{"type":"anthropic-compaction","replayIndex":1,"summary":"压缩"}"#
        );
        // A rewritten text block, or an index past the content: the checkpoint goes.
        let out = first(owner(replay("openai-responses-compaction", json!(3)), true));
        assert!(out.get("providerReplay").is_none(), "{out}");
        let out = first(owner(replay("anthropic-compaction", json!(9)), false));
        assert!(out.get("providerReplay").is_none(), "{out}");
        // Not a number: set to the count (2026.9.6 compares it with ===).
        let out = first(owner(replay("anthropic-compaction", json!(true)), false));
        assert_eq!(out["providerReplay"]["replayIndex"], json!(0));
        // Other values as JS's `Number` reads them, an array by its string form.
        for (index, want) in [
            (json!("3"), json!(1)),
            (json!([" 0x3 "]), json!(1)),
            (json!(1.5), json!(1)),
            (json!("abc"), json!(0)),
            (json!([1, 2]), json!(0)),
            (json!(-1), json!(0)),
        ] {
            let out = first(owner(replay("anthropic-compaction", index.clone()), false));
            assert_eq!(out["providerReplay"]["replayIndex"], want, "{index}");
        }
        let out = first(owner(replay("anthropic-compaction", json!("4.5")), false));
        assert!(out.get("providerReplay").is_none(), "{out}");
        // A retained checkpoint, any other replay state, or no index: as it was.
        for kept in [
            replay("openai-responses-retained-compaction", json!(3)),
            replay("openai-responses", json!(3)),
            json!({"type": "anthropic-compaction"}),
        ] {
            let out = first(owner(kept.clone(), false));
            assert_eq!(out["providerReplay"], kept);
        }
    }

    #[test]
    fn a_turn_left_empty_goes_and_other_thinking_stays() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "a", "thinkingSignature": rs("rs_1")}, null]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "b", "thinkingSignature": "anthropic-sig"}, {"type": "text", "text": "t", "textSignature": "msg_3"}]},
        ]);
        let (out, _) = drop_before(&input, Some(10.0));
        assert_eq!(out, vec![input[1].clone()]);
        let (_, identity) = drop_before(&input, None);
        assert!(identity, "no switch: nothing changes");
    }
}
