//! Tool-use / tool-result pairing repair (`repairToolUseResultPairing`).
//!
//! Anthropic, Cloud Code Assist, MiniMax and OpenAI's newer APIs reject a conversation in which an
//! assistant's tool calls are not answered, immediately, by one result each. Session files drift
//! from that: results land after a user turn, are written twice, outlive a dropped call, or never
//! arrive (a crash, a rate limit). The repair moves each call's first result right after the call,
//! drops duplicates (across the whole transcript) and orphans, and inserts a synthetic error
//! result for each call left unanswered, except after an errored or aborted turn, whose calls may
//! be incomplete and must not be answered.
//!
//! Deliberate differences from OpenClaw: the synthetic result's text is an option with neutral
//! wording, and its timestamp is the calling assistant's (not the clock), so output is
//! deterministic.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{num_json, Block, Msg, Val};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// The default text of a synthetic tool result.
pub const DEFAULT_SYNTHETIC_TEXT: &str =
    "Tool result missing from session history; a synthetic error result was inserted to repair the transcript.";

#[derive(Clone, Debug)]
pub struct PairingOptions {
    /// Keep the matched results of an errored or aborted assistant turn (they are dropped otherwise).
    pub preserve_errored_assistant_results: bool,
    pub synthetic_text: String,
}

impl Default for PairingOptions {
    fn default() -> Self {
        PairingOptions {
            preserve_errored_assistant_results: false,
            synthetic_text: DEFAULT_SYNTHETIC_TEXT.to_string(),
        }
    }
}

/// What the repair did, as OpenClaw reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairingReport {
    /// Output positions of the synthetic results.
    pub added: Vec<usize>,
    pub dropped_duplicate_count: usize,
    pub dropped_orphan_count: usize,
    /// True whenever the output differs from the input (OpenClaw also sets it when results merely
    /// precede an interleaved message without being moved).
    pub moved: bool,
}

struct Call {
    id: String,
    name: Option<String>,
}

fn calls_of(m: &Msg) -> Vec<Call> {
    m.blocks()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.is_tool_call())
                .filter_map(|b| {
                    Some(Call {
                        id: b.call_id()?.to_string(),
                        name: b.name.as_str().map(str::to_string),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Trim the result's `toolName`; fill a blank one from the call, else `"unknown"` if it was a string.
fn normalize_result_name(m: &mut Msg, call_name: Option<&str>) {
    let raw = m.tool_name.clone();
    let trimmed = raw.as_str().map(str::trim).filter(|s| !s.is_empty());
    let new = match trimmed {
        Some(t) if raw.as_str() == Some(t) => return,
        Some(t) => t.to_string(),
        None => match call_name.map(str::trim).filter(|s| !s.is_empty()) {
            Some(n) => n.to_string(),
            None if matches!(raw, Val::Str(_)) => "unknown".to_string(),
            None => return,
        },
    };
    m.set("toolName", Value::String(new));
}

fn synthetic_result(call: &Call, text: &str, timestamp: &Val) -> Msg {
    let ts = match timestamp {
        Val::Num(n) => num_json(*n),
        _ => json!(0),
    };
    Msg::new(
        vec![
            ("role", json!("toolResult")),
            ("toolCallId", json!(call.id)),
            ("toolName", json!(call.name.as_deref().unwrap_or("unknown"))),
            ("content", Value::Null),
            ("isError", json!(true)),
            ("timestamp", ts),
        ],
        Some(vec![Block::new_text(text)]),
    )
}

pub fn repair_tool_use_result_pairing(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    opts: &PairingOptions,
) -> PairingReport {
    let input = std::mem::take(msgs);
    let mut report = PairingReport::default();
    let mut changed = false;
    let mut out: Vec<Msg> = Vec::with_capacity(input.len());
    let mut seen: HashSet<String> = HashSet::new();
    let mut it = input.into_iter().peekable();

    while let Some(m) = it.next() {
        if !m.is_role("assistant") {
            if m.is_role("toolResult") {
                ctx.change("repairToolUseResultPairing", msg_path(&m), || {
                    "dropped a tool result that follows no matching tool call".into()
                });
                report.dropped_orphan_count += 1;
                changed = true;
            } else {
                out.push(m);
            }
            continue;
        }
        let calls = calls_of(&m);
        if calls.is_empty() {
            out.push(m);
            continue;
        }
        let ids: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        let names: HashMap<&str, Option<&str>> = calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_deref()))
            .collect();
        let mut matched: HashMap<String, Msg> = HashMap::new();
        let mut remainder: Vec<Msg> = Vec::new();
        while it.peek().is_some_and(|n| !n.is_role("assistant")) {
            let Some(mut next) = it.next() else { break };
            if !next.is_role("toolResult") {
                remainder.push(next);
                continue;
            }
            let id = next.result_id().map(str::to_string);
            match id {
                Some(id) if ids.contains(id.as_str()) => {
                    if seen.contains(&id) {
                        ctx.change("repairToolUseResultPairing", msg_path(&next), || {
                            format!("dropped a duplicate result for tool call {id:?}")
                        });
                        report.dropped_duplicate_count += 1;
                        changed = true;
                    } else {
                        let path = msg_path(&next);
                        match matched.entry(id) {
                            std::collections::hash_map::Entry::Occupied(e) => {
                                ctx.change("repairToolUseResultPairing", path, || {
                                    format!("dropped a second result for tool call {:?}", e.key())
                                });
                                changed = true;
                            }
                            std::collections::hash_map::Entry::Vacant(e) => {
                                let call_name = names.get(e.key().as_str()).copied().flatten();
                                normalize_result_name(&mut next, call_name);
                                changed |= next.is_changed();
                                e.insert(next);
                            }
                        }
                    }
                }
                _ => {
                    ctx.change("repairToolUseResultPairing", msg_path(&next), || {
                        "dropped a tool result that matches no call of the preceding assistant"
                            .into()
                    });
                    report.dropped_orphan_count += 1;
                    changed = true;
                }
            }
        }

        let errored = matches!(m.stop_reason.as_str(), Some("error" | "aborted"));
        let call_timestamp = m.timestamp.clone();
        let assistant_path = msg_path(&m);
        out.push(m);
        let first_remainder = remainder.first().and_then(Msg::src_index);
        let results_jump_back = matched
            .values()
            .filter_map(Msg::src_index)
            .any(|r| first_remainder.is_some_and(|f| r > f));
        let before = out.len();
        for call in &calls {
            match matched.remove(&call.id) {
                Some(r) if errored && !opts.preserve_errored_assistant_results => {
                    ctx.change("repairToolUseResultPairing", msg_path(&r), || {
                        "dropped the result of a call from an errored or aborted turn".into()
                    });
                    report.dropped_orphan_count += 1;
                    changed = true;
                }
                Some(r) => {
                    push_result(&mut out, &mut seen, r, &mut report, &mut changed, ctx);
                }
                None if errored => {}
                None => {
                    ctx.change("repairToolUseResultPairing", assistant_path.clone(), || {
                        format!(
                            "inserted a synthetic error result for unanswered call {:?}",
                            call.id
                        )
                    });
                    let s = synthetic_result(call, &opts.synthetic_text, &call_timestamp);
                    changed = true;
                    if push_result(&mut out, &mut seen, s, &mut report, &mut changed, ctx) {
                        report.added.push(out.len() - 1);
                    }
                }
            }
        }
        if results_jump_back && out.len() > before {
            ctx.change("repairToolUseResultPairing", assistant_path, || {
                format!(
                    "moved {} message(s) after the tool results",
                    remainder.len()
                )
            });
        }
        out.extend(remainder);
    }
    // A reordering with nothing dropped or added still shows up as a changed position.
    if !changed {
        changed = out
            .iter()
            .enumerate()
            .any(|(i, m)| m.src_index() != Some(i));
    }
    report.moved = changed;
    *msgs = out;
    report
}

/// Emits a result unless its id was emitted already; returns whether it was emitted.
fn push_result(
    out: &mut Vec<Msg>,
    seen: &mut HashSet<String>,
    r: Msg,
    report: &mut PairingReport,
    changed: &mut bool,
    ctx: &mut Ctx,
) -> bool {
    if let Some(id) = r.result_id().map(str::to_string) {
        if !seen.insert(id.clone()) {
            ctx.change("repairToolUseResultPairing", msg_path(&r), || {
                format!("dropped a duplicate result for tool call {id:?}")
            });
            report.dropped_duplicate_count += 1;
            *changed = true;
            return false;
        }
    }
    out.push(r);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn assistant(ids: &[&str], stop: &str) -> Value {
        let content: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}}))
            .collect();
        json!({"role": "assistant", "content": content, "stopReason": stop, "timestamp": 10})
    }

    fn result(id: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "ok"}]})
    }

    fn repair(input: &Value, opts: PairingOptions) -> (Vec<Value>, bool, PairingReport) {
        let mut rep = PairingReport::default();
        let (out, identity) = run(input, |m, c| {
            rep = repair_tool_use_result_pairing(m, c, &opts)
        });
        (out, identity, rep)
    }

    #[test]
    fn moves_results_after_calls_and_inserts_missing_ones() {
        let input = json!([
            assistant(&["a", "b"], "toolUse"),
            {"role": "user", "content": "interleaved"},
            result("a"),
        ]);
        let (out, _, rep) = repair(&input, PairingOptions::default());
        assert_eq!(out.len(), 4);
        assert_eq!(out[1], input[2]);
        assert_eq!(out[2]["toolCallId"], "b");
        assert_eq!(out[2]["isError"], true);
        assert_eq!(out[2]["timestamp"], 10);
        assert_eq!(out[2]["content"][0]["text"], DEFAULT_SYNTHETIC_TEXT);
        assert_eq!(out[3]["role"], "user");
        assert_eq!(rep.added, vec![2]);
        assert!(rep.moved);
    }

    #[test]
    fn a_paired_transcript_is_the_identity() {
        let input =
            json!([assistant(&["a"], "toolUse"), result("a"), {"role": "user", "content": "next"}]);
        let (_, identity, rep) = repair(&input, PairingOptions::default());
        assert!(identity);
        assert!(!rep.moved);
    }

    #[test]
    fn fills_a_blank_result_name_from_the_call() {
        let mut r = result("a");
        r["toolName"] = json!("  ");
        let input = json!([assistant(&["a"], "toolUse"), r]);
        let (out, _, _) = repair(&input, PairingOptions::default());
        assert_eq!(out[1]["toolName"], "read");
    }

    #[test]
    fn drops_duplicates_within_a_span_and_across_the_transcript() {
        let input = json!([
            assistant(&["a"], "toolUse"),
            result("a"),
            result("a"),
            assistant(&["a"], "toolUse"),
            result("a"),
        ]);
        let (out, _, rep) = repair(&input, PairingOptions::default());
        // The second assistant reuses id "a": its result is a duplicate, and so is the synthetic one.
        assert_eq!(out.len(), 3);
        assert!(rep.dropped_duplicate_count >= 1);
    }

    #[test]
    fn drops_orphans() {
        let input = json!([result("x"), {"role": "user", "content": "hi"}]);
        let (out, _, rep) = repair(&input, PairingOptions::default());
        assert_eq!(out, vec![input[1].clone()]);
        assert_eq!(rep.dropped_orphan_count, 1);
    }

    #[test]
    fn no_synthetic_results_after_error_or_aborted_turns() {
        for stop in ["error", "aborted"] {
            let input = json!([assistant(&["a"], stop), {"role": "user", "content": "retry"}]);
            let (out, identity, rep) = repair(&input, PairingOptions::default());
            assert!(identity, "{stop}");
            assert_eq!(out.len(), 2);
            assert!(rep.added.is_empty());
        }
    }

    #[test]
    fn results_of_an_aborted_turn_are_dropped_unless_preserved() {
        let input = json!([assistant(&["a"], "aborted"), result("a")]);
        let (out, _, _) = repair(&input, PairingOptions::default());
        assert_eq!(out.len(), 1);
        let opts = PairingOptions {
            preserve_errored_assistant_results: true,
            ..PairingOptions::default()
        };
        let (out, identity, _) = repair(&input, opts);
        assert_eq!(out.len(), 2);
        assert!(identity);
    }

    #[test]
    fn synthetic_text_is_an_option() {
        let input = json!([assistant(&["a"], "toolUse")]);
        let opts = PairingOptions {
            synthetic_text: "missing".into(),
            ..PairingOptions::default()
        };
        let (out, _, _) = repair(&input, opts);
        assert_eq!(out[1]["content"][0]["text"], "missing");
    }
}
