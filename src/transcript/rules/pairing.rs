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

use crate::transcript::context::{msg_path, Ctx, Path};
use crate::transcript::model::{num_json, Block, Msg, Val};
use crate::transcript::reorder::{self, apply_order};
use crate::transcript::text::{trim, Text};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::{json, Value};

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
    /// Whether an errored or aborted turn had results (kept or dropped depending on whether
    /// anything else changed in the whole transcript: the incremental pass does not cut there).
    pub held: bool,
}

struct Call<'a> {
    id: &'a str,
    name: Option<&'a str>,
}

/// The calls of `m`, in `out` (cleared first: one buffer serves every turn).
fn calls_of<'a>(m: &'a Msg, out: &mut Vec<Call<'a>>) {
    out.clear();
    out.extend(m.blocks().into_iter().flatten().filter_map(|b| {
        Some(Call {
            id: b.call_id().filter(|_| b.is_tool_call())?,
            name: b.name.as_str(),
        })
    }));
}

/// Finds a call by id: a scan for the usual handful of calls, a map for a long parallel batch.
struct CallIndex<'a>(Option<HashMap<&'a str, usize>>);

impl<'a> CallIndex<'a> {
    fn new(calls: &[Call<'a>]) -> CallIndex<'a> {
        CallIndex((calls.len() > 16).then(|| {
            let mut map = HashMap::with_capacity(calls.len());
            for (k, c) in calls.iter().enumerate() {
                map.entry(c.id).or_insert(k);
            }
            map
        }))
    }

    /// The position of the first call with id `id`.
    fn find(&self, calls: &[Call], id: &str) -> Option<usize> {
        match &self.0 {
            Some(map) => map.get(id).copied(),
            None => calls.iter().position(|c| c.id == id),
        }
    }
}

/// The result's new `toolName`, if it needs one: trimmed; a blank one filled from the call, else
/// `"unknown"` if it was a string.
pub(crate) fn result_name_fix(m: &Msg, call_name: Option<&str>) -> Option<String> {
    let raw = m.tool_name();
    let trimmed = raw.as_str().map(trim).filter(|s| !s.is_empty());
    match trimmed {
        // `t` is a slice of the name: the same length is the same string (no compare).
        Some(t) if raw.as_str().map(str::len) == Some(t.len()) => None,
        Some(t) => Some(t.to_string()),
        None => match call_name.map(trim).filter(|s| !s.is_empty()) {
            Some(n) => Some(n.to_string()),
            None if matches!(raw, Val::Str(_)) => Some("unknown".to_string()),
            None => None,
        },
    }
}

/// A synthetic error result answering call `id` (named `name`, else `"unknown"`), stamped with
/// `timestamp` when it is a number (else 0). Both releases' pairing rules build theirs here:
/// 2026.9.6 adds `details` (placed before `isError`, as it writes them); 2026.3.23 passes `None`.
/// Its fields are set one by one, in key order, with no JSON map built (as `Msg::new` would from
/// a field list): a turn ending in an open call spent a sixth of its instructions on the maps.
pub(crate) fn synthetic_result(
    id: &str,
    name: Option<&str>,
    text: &str,
    timestamp: &Val,
    details: Option<&'static Value>,
) -> Msg {
    static TRUE: Value = Value::Bool(true);
    let ts = match timestamp {
        Val::Num(n) => num_json(*n),
        _ => json!(0),
    };
    let mut m = Msg::new_empty(7);
    m.set_text("role", Text::Borrowed("toolResult"));
    m.set_text("toolCallId", Text::new(id));
    m.set_text("toolName", Text::new(name.unwrap_or("unknown")));
    m.set_blocks(vec![Block::new_text(text)]);
    if let Some(d) = details {
        m.set_static("details", d);
    }
    m.set_static("isError", &TRUE);
    m.set("timestamp", ts);
    m
}

/// One output message: an input message, or a synthetic result (an index into `synthetic`).
#[derive(Clone, Copy)]
enum Slot {
    Src(usize),
    Synthetic(usize),
    /// The result of a call from an errored or aborted turn: dropped only when the repair
    /// changes something else (see [`repair_tool_use_result_pairing`]).
    Held(usize),
}

/// Decides the output order without moving a message: the common transcript needs no move at
/// all, and moving a few hundred bytes per message through maps was most of this rule's cost.
struct Planner<'a, 'c> {
    msgs: &'a [Msg],
    ctx: &'a mut Ctx<'c>,
    opts: &'a PairingOptions,
    order: Vec<Slot>,
    synthetic: Vec<Msg>,
    /// Result ids already emitted, across the whole transcript.
    seen: HashSet<&'a str>,
    /// `toolName` fixes: (input index, new name).
    renames: Vec<(usize, String)>,
    /// One turn's matched results and the other messages after its calls, reused from turn to
    /// turn (two lists per assistant turn were two allocations, and two frees, a turn).
    matched: Vec<Option<usize>>,
    remainder: Vec<usize>,
    report: PairingReport,
    changed: bool,
}

impl<'a> Planner<'a, '_> {
    fn drop_msg(&mut self, i: usize, orphan: bool, detail: impl FnOnce() -> String) {
        self.ctx.change(
            "repairToolUseResultPairing",
            msg_path(&self.msgs[i]),
            detail,
        );
        if orphan {
            self.report.dropped_orphan_count += 1;
        }
        self.changed = true;
    }

    /// Emits result `i` unless its id was emitted already.
    fn push_result(&mut self, i: usize) {
        if let Some(id) = self.msgs[i].result_id() {
            if !self.seen.insert(id) {
                self.report.dropped_duplicate_count += 1;
                self.drop_msg(i, false, || {
                    format!("dropped a duplicate result for tool call {id:?}")
                });
                return;
            }
        }
        self.order.push(Slot::Src(i));
    }

    /// The assistant at `a` with its calls, and the non-assistant messages after it up to `end`.
    fn turn(&mut self, a: usize, calls: &[Call<'a>], end: usize) {
        let msgs = self.msgs;
        let index = CallIndex::new(calls);
        let mut matched = std::mem::take(&mut self.matched);
        matched.clear();
        matched.resize(calls.len(), None);
        let mut remainder = std::mem::take(&mut self.remainder);
        remainder.clear();
        for (i, next) in msgs.iter().enumerate().take(end).skip(a + 1) {
            if !next.is_tool_result() {
                remainder.push(i);
                continue;
            }
            let Some((id, k)) = next
                .result_id()
                .and_then(|id| Some((id, index.find(calls, id)?)))
            else {
                self.report.dropped_orphan_count += 1;
                self.drop_msg(i, false, || {
                    "dropped a tool result that matches no call of the preceding assistant".into()
                });
                continue;
            };
            if self.seen.contains(id) {
                self.report.dropped_duplicate_count += 1;
                self.drop_msg(i, false, || {
                    format!("dropped a duplicate result for tool call {id:?}")
                });
            } else if matched[k].is_some() {
                self.drop_msg(i, false, || {
                    format!("dropped a second result for tool call {id:?}")
                });
            } else {
                let fix = result_name_fix(next, calls[k].name);
                self.changed |= fix.is_some();
                if let Some(name) = fix {
                    self.renames.push((i, name));
                }
                matched[k] = Some(i);
            }
        }

        let m = &msgs[a];
        let errored = matches!(m.stop_reason.as_str(), Some("error" | "aborted"));
        self.order.push(Slot::Src(a));
        let results_jump_back = remainder
            .first()
            .is_some_and(|&f| matched.iter().flatten().any(|&r| r > f));
        let before = self.order.len();
        for (k, call) in calls.iter().enumerate() {
            // A second call with the same id finds its result taken: it gets a synthetic one,
            // which `push_result` then drops as a duplicate, as OpenClaw does.
            let result = index
                .find(calls, call.id)
                .filter(|&first| first == k)
                .and_then(|_| matched[k].take());
            match result {
                Some(r) if errored && !self.opts.preserve_errored_assistant_results => {
                    self.order.push(Slot::Held(r));
                }
                Some(r) => self.push_result(r),
                None if errored => {}
                None => {
                    self.ctx
                        .change("repairToolUseResultPairing", msg_path(m), || {
                            format!(
                                "inserted a synthetic error result for unanswered call {:?}",
                                call.id
                            )
                        });
                    self.changed = true;
                    if self.seen.insert(call.id) {
                        let text = &self.opts.synthetic_text;
                        let s = synthetic_result(call.id, call.name, text, &m.timestamp, None);
                        self.report.added.push(self.order.len());
                        self.order.push(Slot::Synthetic(self.synthetic.len()));
                        self.synthetic.push(s);
                    } else {
                        self.report.dropped_duplicate_count += 1;
                        self.ctx
                            .change("repairToolUseResultPairing", Path::NewMsg, || {
                                format!("dropped a duplicate result for tool call {:?}", call.id)
                            });
                    }
                }
            }
        }
        if results_jump_back && self.order.len() > before {
            self.ctx
                .change("repairToolUseResultPairing", msg_path(m), || {
                    format!(
                        "moved {} message(s) after the tool results",
                        remainder.len()
                    )
                });
        }
        self.order.extend(remainder.iter().copied().map(Slot::Src));
        self.matched = matched;
        self.remainder = remainder;
    }
}

/// The order keeps every input message but the held results, in input order, and adds none.
fn in_input_order(order: &[Slot], len: usize) -> bool {
    let mut next = 0;
    for s in order {
        match *s {
            Slot::Held(_) => {}
            Slot::Src(i) if i >= next => next = i + 1,
            Slot::Src(_) | Slot::Synthetic(_) => return false,
        }
    }
    order.len() == len
}

pub fn repair_tool_use_result_pairing(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    opts: &PairingOptions,
) -> PairingReport {
    let (order, synthetic, renames, mut report, mut changed) = {
        let view: &[Msg] = msgs;
        let mut p = Planner {
            msgs: view,
            ctx,
            opts,
            order: Vec::with_capacity(view.len()),
            synthetic: Vec::new(),
            // About one result per three messages in an agent's history: sized once, not
            // regrown (each growth rehashes every id).
            seen: HashSet::with_capacity(view.len() / 3),
            renames: Vec::new(),
            matched: Vec::new(),
            remainder: Vec::new(),
            report: PairingReport::default(),
            changed: false,
        };
        let mut calls = Vec::new();
        let mut i = 0;
        while i < view.len() {
            let m = &view[i];
            if m.is_assistant() {
                calls_of(m, &mut calls);
                if calls.is_empty() {
                    p.order.push(Slot::Src(i));
                    i += 1;
                } else {
                    let end = (i + 1..view.len())
                        .find(|&j| view[j].is_assistant())
                        .unwrap_or(view.len());
                    p.turn(i, &calls, end);
                    i = end;
                }
                continue;
            }
            if m.is_tool_result() {
                p.drop_msg(i, true, || {
                    "dropped a tool result that follows no matching tool call".into()
                });
            } else {
                p.order.push(Slot::Src(i));
            }
            i += 1;
        }
        (p.order, p.synthetic, p.renames, p.report, p.changed)
    };
    for (i, name) in renames {
        msgs[i].set("toolName", Value::String(name));
    }
    // OpenClaw drops an errored turn's results while building its output, but returns its input
    // unless something else changed: alone, they stay where they are.
    let held = order.iter().any(|s| matches!(s, Slot::Held(_)));
    report.held = held;
    let order: Vec<Slot> = if !held {
        order
    } else if !changed && in_input_order(&order, msgs.len()) {
        (0..msgs.len()).map(Slot::Src).collect()
    } else {
        changed = true;
        order
            .into_iter()
            .filter(|s| match *s {
                Slot::Held(r) => {
                    ctx.change("repairToolUseResultPairing", msg_path(&msgs[r]), || {
                        "dropped the result of a call from an errored or aborted turn".into()
                    });
                    false
                }
                _ => true,
            })
            .collect()
    };
    let placed = order.iter().map(|s| match *s {
        Slot::Src(i) | Slot::Held(i) => reorder::Slot::Src(i),
        Slot::Synthetic(k) => reorder::Slot::New(k),
    });
    apply_order(msgs, placed, synthetic);
    // A reordering with nothing dropped or added still shows up as a changed position.
    if !changed {
        changed = msgs
            .iter()
            .enumerate()
            .any(|(i, m)| m.src_index() != Some(i));
    }
    report.moved = changed;
    report
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
    fn a_large_parallel_batch_is_paired_in_call_order() {
        // 40 calls (past the scan/map switch), results reversed, one duplicated, one missing.
        let ids: Vec<String> = (0..40).map(|k| format!("c{k}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut input = vec![assistant(&refs, "toolUse")];
        input.extend(
            ids.iter()
                .rev()
                .filter(|id| *id != "c7")
                .map(|id| result(id)),
        );
        input.push(result("c3"));
        let (out, _, rep) = repair(&Value::Array(input), PairingOptions::default());
        assert_eq!(out.len(), 41);
        let order: Vec<&str> = out[1..]
            .iter()
            .map(|m| m["toolCallId"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(order, refs);
        assert_eq!(out[8]["isError"], json!(true));
        assert_eq!(rep.added, vec![8]);
        // As in OpenClaw, a second result within the span is dropped without counting.
        assert_eq!(rep.dropped_duplicate_count, 0);
        assert!(rep.moved);
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

    /// OpenClaw builds its output without an errored turn's results but returns its input
    /// unless something else changed, so alone they stay (its own output for each case).
    #[test]
    fn results_of_an_aborted_turn_stay_unless_something_else_changes() {
        let user = json!({"role": "user", "content": "继续"});
        let cases = [
            // (input, output length, identity)
            (json!([assistant(&["a"], "aborted"), result("a")]), 2, true),
            (
                json!([assistant(&["a"], "aborted"), result("a"), user]),
                3,
                true,
            ),
            (
                json!([assistant(&["a"], "error"), user, result("a")]),
                3,
                true,
            ),
            // An orphan elsewhere changes the transcript: the held result goes too.
            (
                json!([result("x"), assistant(&["a"], "aborted"), result("a"), user]),
                2,
                false,
            ),
            (
                json!([
                    assistant(&["a"], "aborted"),
                    result("a"),
                    assistant(&["b"], "toolUse")
                ]),
                3,
                false,
            ),
        ];
        for (input, len, identity) in cases {
            let (out, same, _) = repair(&input, PairingOptions::default());
            assert_eq!((out.len(), same), (len, identity), "{input}");
        }
        let opts = PairingOptions {
            preserve_errored_assistant_results: true,
            ..PairingOptions::default()
        };
        let input = json!([assistant(&["a"], "aborted"), result("a")]);
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
