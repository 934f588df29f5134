//! Tool-use / tool-result pairing as OpenClaw 2026.9.6 repairs it (`tool-result-pairing.ts`,
//! `repairToolUseResultPairing` with `erroredAssistantResultPolicy: "drop"`).
//!
//! The providers' rule is the one [`crate::transcript::rules::pairing`] serves (each call answered,
//! right after its turn, by one result); 2026.9.6 rewrote how results find their calls:
//! - a turn's frame runs to the next assistant *with tool calls*, so a text-only assistant in
//!   between no longer orphans the results after it;
//! - ids are paired per occurrence: a call id reused in a later turn (Kimi's `functions.read:0`,
//!   a replayed `toolu_…`) gets that turn's result, not a duplicate drop;
//! - a result's id is trimmed and read from every alias (`toolCallId`, `toolUseId`,
//!   `tool_call_id`, `tool_use_id`, `callId`, `call_id`); a result with none adopts the id of
//!   the frame's only call (and becomes an error) when the tool names do not disagree;
//! - a result displaced into a later frame moves back when exactly one unanswered call can own it;
//! - a second result for a call already answered is dropped, unless the first was a synthetic
//!   placeholder, which the real one replaces;
//! - an errored or aborted turn is removed with its results (its calls may be incomplete);
//! - a synthetic result carries `details` saying it is one (the details strip that follows in
//!   `sanitizeSessionHistory` removes them again), and reads `"aborted"` on OpenAI Responses.
//!
//! As in the 2026.3.23 rule, a synthetic result takes the calling assistant's timestamp, not the
//! clock, so output is deterministic. Known limit: whether an input result is itself a synthetic
//! placeholder is read from `isError` and a text block the skeleton carries whole; the
//! `details.openclawSyntheticMissingToolResult` flag is not sent.

use super::non_objects::not_an_object;
use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{extra, Msg};
use crate::transcript::reorder::{apply_order, Slot};
use crate::transcript::rules::pairing::{result_name_fix, synthetic_result};
use foldhash::{HashMap, HashMapExt};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::LazyLock;

/// OpenClaw's synthetic result text (also how an input result is recognised as one).
pub const MISSING_TEXT: &str =
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";

/// The synthetic result text on the OpenAI Responses APIs.
pub const RESPONSES_MISSING_TEXT: &str = "aborted";

const RULE: &str = "repairToolUseResultPairing";

/// The alias fields a result's id is read from, in OpenClaw's order: (name, extra index or
/// `None` for the two the skeleton always carries).
const RESULT_ID_FIELDS: [Option<usize>; 6] = [
    None,
    None,
    Some(extra::TOOL_CALL_ID_SNAKE),
    Some(extra::TOOL_USE_ID_SNAKE),
    Some(extra::CALL_ID_CAMEL),
    Some(extra::CALL_ID_SNAKE),
];

/// A result's ids (`extractToolResultIds`): every alias holding a string that is not blank,
/// trimmed, in OpenClaw's order (repeats possible).
pub fn result_ids(m: &Msg) -> impl Iterator<Item = &str> {
    raw_result_ids(m)
        .map(crate::transcript::text::trim)
        .filter(|s| !s.is_empty())
}

/// Every alias of a result holding a string, as written (for the incremental pass, which must
/// know every spelling a rule may match).
pub(crate) fn raw_result_ids(m: &Msg) -> impl Iterator<Item = &str> {
    RESULT_ID_FIELDS.iter().enumerate().filter_map(|(k, f)| {
        let v = match (k, f) {
            (0, _) => m.tool_call_id(),
            (1, _) => m.tool_use_id(),
            (_, Some(x)) => m.extra(*x),
            _ => return None,
        };
        v.as_str()
    })
}

/// A result's id: the first alias holding a string that is not blank, trimmed.
pub fn result_id(m: &Msg) -> Option<&str> {
    result_ids(m).next()
}

/// Whether a result is a synthetic "missing result" placeholder (see the module's known limit).
fn is_synthetic(m: &Msg) -> bool {
    m.extra(extra::IS_ERROR).is_truthy()
        && m.blocks().is_some_and(|blocks| {
            blocks.iter().any(|b| {
                b.is_text() && b.text.as_ref().and_then(|t| t.whole()) == Some(MISSING_TEXT)
            })
        })
}

/// One call of a frame and the result it got.
struct Occurrence<'a> {
    id: &'a str,
    /// Its block's position in the assistant's content.
    block: usize,
    name: Option<&'a str>,
    /// The input message answering it, and whether that one is a synthetic placeholder.
    result: Option<usize>,
    synthetic: bool,
}

/// A result with no call of its own frame: `(input index, id)`.
type Unclaimed = (usize, Option<String>);

/// An assistant turn with calls and the messages up to the next one. Its occurrences and
/// remainder are ranges of [`Classified`]'s lists, which every frame shares (these two lists and
/// the calls' list, made per frame, were a fifth of a 2026.9.6 pass's allocations on an agent's
/// history).
struct Frame {
    start: usize,
    end: usize,
    failed: bool,
    /// Its calls, in [`Classified::occurrences`].
    occurrences: std::ops::Range<usize>,
    /// The messages between its results and the next frame, in [`Classified::remainder`].
    remainder: std::ops::Range<usize>,
    unclaimed: Vec<Unclaimed>,
}

/// The calls of an assistant turn: `(id, name, block position)` of each call block with a
/// non-empty id.
pub(crate) fn calls_of(m: &Msg) -> Vec<Call<'_>> {
    let mut calls = Vec::new();
    calls_into(m, &mut calls);
    calls
}

/// [`calls_of`], appended to `out`.
fn calls_into<'a>(m: &'a Msg, out: &mut Vec<Call<'a>>) {
    if let Some(blocks) = m.blocks() {
        out.extend(
            blocks
                .iter()
                .enumerate()
                .filter(|(_, b)| b.is_object && b.is_tool_call())
                .filter_map(|(j, b)| Some((b.call_id()?, b.name.as_str(), j))),
        );
    }
}

/// A call of an assistant turn: its id, name and block position, borrowed from the turn.
pub(crate) type Call<'a> = (&'a str, Option<&'a str>, usize);

/// Whether an assistant turn has a call [`calls_of`] lists (without listing them).
pub(crate) fn has_calls(m: &Msg) -> bool {
    m.blocks().is_some_and(|blocks| {
        blocks
            .iter()
            .any(|b| b.is_object && b.is_tool_call() && b.call_id().is_some())
    })
}

/// A frame's calls not yet claimed by a result, by id: a result claims the first with its id.
/// An ordinary turn has a few calls, scanned in place (a map and a queue per turn were a share
/// of the pass); a turn of more than 64 gets the map.
enum Pending<'a> {
    Few { calls: &'a [Call<'a>], claimed: u64 },
    Many(HashMap<&'a str, VecDeque<usize>>),
}

impl<'a> Pending<'a> {
    fn new(calls: &'a [Call<'a>]) -> Pending<'a> {
        if calls.len() <= 64 {
            return Pending::Few { calls, claimed: 0 };
        }
        Pending::many(calls)
    }

    fn many(calls: &'a [Call<'a>]) -> Pending<'a> {
        let mut map: HashMap<&str, VecDeque<usize>> = HashMap::with_capacity(calls.len());
        for (k, (id, _, _)) in calls.iter().enumerate() {
            map.entry(*id).or_default().push_back(k);
        }
        Pending::Many(map)
    }

    fn claim(&mut self, id: &str) -> Option<usize> {
        match self {
            Pending::Few { calls, claimed } => {
                let bit = |k: usize| 1u64 << k;
                let k = (0..calls.len()).find(|&k| *claimed & bit(k) == 0 && calls[k].0 == id)?;
                *claimed |= bit(k);
                Some(k)
            }
            Pending::Many(map) => map.get_mut(id).and_then(VecDeque::pop_front),
        }
    }
}

fn trimmed(v: Option<&str>) -> Option<&str> {
    v.map(crate::transcript::text::trim)
        .filter(|s| !s.is_empty())
}

/// The id a result without one adopts: the frame's only call's, when the names do not disagree.
pub(crate) fn legacy_id<'a>(m: &Msg, calls: &[Call<'a>]) -> Option<&'a str> {
    if result_id(m).is_some() || calls.len() != 1 {
        return None;
    }
    let (id, name, _) = calls[0];
    match (trimmed(m.tool_name().as_str()), trimmed(name)) {
        (Some(a), Some(b)) if a != b => None,
        _ => Some(id),
    }
}

/// Who answers whom, before anything moves (2026.9.6's `classifyToolUseResultPairing`).
struct Classified<'a> {
    frames: Vec<Frame>,
    /// Every frame's calls, frame after frame.
    occurrences: Vec<Occurrence<'a>>,
    /// Every frame's remainder, frame after frame.
    remainder: Vec<usize>,
    /// Results that adopt their frame's only call id: (position, id).
    adopted: Vec<(usize, String)>,
}

/// The calls that have a real (not synthetic) result: `(message position, block position)`
/// (2026.9.6's `collectCompletedToolCallBlocks`, which lets a completed call to a tool no longer
/// allowed stay in the history).
pub fn completed_calls(msgs: &[Msg], ctx: &mut Ctx) -> Vec<(usize, usize)> {
    // Classified only: nothing is changed, so nothing is reported.
    let changes = ctx.changes.take();
    let c = classify(msgs, ctx);
    ctx.changes = changes;
    c.frames
        .iter()
        .flat_map(|f| {
            c.occurrences[f.occurrences.clone()]
                .iter()
                .filter(|o| o.result.is_some() && !o.synthetic)
                .map(|o| (f.start, o.block))
        })
        .collect()
}

fn classify<'a>(msgs: &'a [Msg], ctx: &mut Ctx) -> Classified<'a> {
    let starts: Vec<usize> = (0..msgs.len())
        .filter(|&i| msgs[i].is_assistant() && has_calls(&msgs[i]))
        .collect();
    // Results that adopt their frame's only call id: (input index, id).
    let mut adopted: Vec<(usize, String)> = Vec::new();
    let mut frames: Vec<Frame> = Vec::with_capacity(starts.len());
    let mut all_occurrences: Vec<Occurrence> = Vec::with_capacity(starts.len());
    let mut all_remainder: Vec<usize> = Vec::with_capacity(starts.len());
    // Each frame's calls, in one buffer reused from frame to frame.
    let mut calls: Vec<Call<'a>> = Vec::new();
    for (f, &start) in starts.iter().enumerate() {
        let end = starts.get(f + 1).copied().unwrap_or(msgs.len());
        calls.clear();
        calls_into(&msgs[start], &mut calls);
        let mut pending = Pending::new(&calls);
        let first = all_occurrences.len();
        all_occurrences.extend(calls.iter().map(|&(id, name, block)| Occurrence {
            id,
            block,
            name,
            result: None,
            synthetic: false,
        }));
        let occurrences = &mut all_occurrences[first..];
        let mut synthetic_by_id: HashMap<&str, VecDeque<usize>> = HashMap::new();
        let remainder_from = all_remainder.len();
        let mut unclaimed = Vec::new();
        for i in start + 1..end {
            let m = &msgs[i];
            if not_an_object(m) {
                ctx.change(RULE, msg_path(m), || "dropped a non-object entry".into());
                continue;
            }
            if !m.is_tool_result() {
                all_remainder.push(i);
                continue;
            }
            let legacy = legacy_id(m, &calls);
            if let Some(id) = legacy {
                adopted.push((i, id.to_string()));
            }
            let id: Option<&str> = legacy.or_else(|| result_id(m));
            let synthetic = is_synthetic(m);
            if let Some(k) = id.and_then(|id| pending.claim(id)) {
                occurrences[k].result = Some(i);
                occurrences[k].synthetic = synthetic;
                if synthetic {
                    synthetic_by_id.entry(calls[k].0).or_default().push_back(k);
                }
                continue;
            }
            let Some(id) = id.filter(|id| calls.iter().any(|(c, _, _)| c == id)) else {
                unclaimed.push((i, id.map(str::to_string)));
                continue;
            };
            // A second result for a call of this frame.
            let replaceable = if synthetic {
                None
            } else {
                synthetic_by_id.get_mut(id).and_then(VecDeque::pop_front)
            };
            match replaceable {
                Some(k) => {
                    let old = occurrences[k].result.replace(i);
                    occurrences[k].synthetic = false;
                    if let Some(old) = old {
                        ctx.change(RULE, msg_path(&msgs[old]), || {
                            format!("dropped a synthetic result for tool call {id:?}: a real one follows")
                        });
                    }
                }
                None => ctx.change(RULE, msg_path(m), || {
                    format!("dropped a second result for tool call {id:?}")
                }),
            }
        }
        frames.push(Frame {
            start,
            end,
            failed: matches!(msgs[start].stop_reason.as_str(), Some("error" | "aborted")),
            occurrences: first..all_occurrences.len(),
            remainder: remainder_from..all_remainder.len(),
            unclaimed,
        });
    }

    // Results displaced into a later frame: moved back when exactly one unanswered occurrence
    // (of this frame or an earlier one) can own them.
    // By id, the positions in `all_occurrences` of the calls still unanswered.
    let mut unresolved: HashMap<&str, Vec<usize>> = HashMap::new();
    for frame in frames.iter_mut() {
        for k in frame.occurrences.clone() {
            let o = &all_occurrences[k];
            if o.result.is_none() || o.synthetic {
                unresolved.entry(o.id).or_default().push(k);
            }
        }
        for (i, id) in std::mem::take(&mut frame.unclaimed) {
            let synthetic = is_synthetic(&msgs[i]);
            let candidates: Vec<usize> = id
                .as_deref()
                .and_then(|id| unresolved.get(id))
                .map(|list| {
                    list.iter()
                        .copied()
                        .filter(|&k| {
                            let o = &all_occurrences[k];
                            o.result.is_none() || (o.synthetic && !synthetic)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let [k] = candidates[..] else {
                ctx.change(RULE, msg_path(&msgs[i]), || {
                    "dropped a tool result that matches no unanswered call".into()
                });
                continue;
            };
            let o = &mut all_occurrences[k];
            if let Some(old) = o.result.replace(i) {
                ctx.change(RULE, msg_path(&msgs[old]), || {
                    "dropped a synthetic result: a real one follows".into()
                });
            }
            o.synthetic = synthetic;
            ctx.change(RULE, msg_path(&msgs[i]), || {
                format!(
                    "moved a tool result back to the turn that called {:?}",
                    o.id
                )
            });
        }
    }
    Classified {
        frames,
        occurrences: all_occurrences,
        remainder: all_remainder,
        adopted,
    }
}

/// The repair in 2026.9.6's shape. `keep_errored`: keep an errored or aborted turn and its
/// results (OpenClaw's default policy) instead of removing them (what its replay uses).
pub fn repair_tool_use_result_pairing(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    synthetic_text: &str,
    keep_errored: bool,
) -> bool {
    let Classified {
        frames,
        occurrences,
        remainder,
        adopted,
    } = classify(msgs, ctx);

    // The output order.
    let mut order: Vec<Slot> = Vec::with_capacity(msgs.len());
    let mut synthetic: Vec<Msg> = Vec::new();
    let mut cursor = 0;
    let unframed = |order: &mut Vec<Slot>, ctx: &mut Ctx, from: usize, to: usize| {
        for (i, m) in msgs.iter().enumerate().take(to).skip(from) {
            if not_an_object(m) || m.is_tool_result() {
                ctx.change(RULE, msg_path(m), || {
                    "dropped a tool result that follows no matching tool call".into()
                });
            } else {
                order.push(Slot::Src(i));
            }
        }
    };
    let mut renames: Vec<(usize, String)> = Vec::new();
    for frame in &frames {
        unframed(&mut order, ctx, cursor, frame.start);
        cursor = frame.end;
        let a = &msgs[frame.start];
        if frame.failed && !keep_errored {
            ctx.change(RULE, msg_path(a), || {
                "dropped an errored or aborted tool-call turn with its results".into()
            });
        } else {
            order.push(Slot::Src(frame.start));
            for o in &occurrences[frame.occurrences.clone()] {
                match o.result {
                    Some(r) => {
                        if let Some(name) = result_name_fix(&msgs[r], o.name) {
                            renames.push((r, name));
                        }
                        order.push(Slot::Src(r));
                    }
                    None if frame.failed => {}
                    None => {
                        ctx.change(RULE, msg_path(a), || {
                            format!(
                                "inserted a synthetic error result for unanswered call {:?}",
                                o.id
                            )
                        });
                        order.push(Slot::New(synthetic.len()));
                        let details = Some(&*SYNTHETIC_DETAILS);
                        let s =
                            synthetic_result(o.id, o.name, synthetic_text, &a.timestamp, details);
                        synthetic.push(s);
                    }
                }
            }
        }
        order.extend(
            remainder[frame.remainder.clone()]
                .iter()
                .map(|&i| Slot::Src(i)),
        );
    }
    unframed(&mut order, ctx, cursor, msgs.len());

    let mut changed = !renames.is_empty() || !adopted.is_empty();
    for (i, name) in renames {
        msgs[i].set("toolName", Value::String(name));
    }
    for (i, id) in adopted {
        if order.iter().any(|s| matches!(s, Slot::Src(k) if *k == i)) {
            ctx.change(RULE, msg_path(&msgs[i]), || {
                format!("a result without an id answers the only call, {id:?}")
            });
            msgs[i].set("toolCallId", Value::String(id));
            msgs[i].set("isError", Value::Bool(true));
        }
    }
    changed |= apply_order(msgs, order, synthetic);
    changed
}

/// What 2026.9.6 writes into a synthetic result's `details` (one value, shared).
static SYNTHETIC_DETAILS: LazyLock<Value> = LazyLock::new(
    || json!({"openclawSyntheticMissingToolResult": true, "reason": "missing_tool_result"}),
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;

    fn calls(ids: &[&str], stop: &str, ts: u64) -> Value {
        let content: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}}))
            .collect();
        json!({"role": "assistant", "content": content, "stopReason": stop, "timestamp": ts})
    }

    fn result(id: &str, text: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": text}], "isError": false})
    }

    fn said(text: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"})
    }

    fn user(text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    #[test]
    fn a_few_calls_scanned_claim_as_the_map_does() {
        // Ids repeat (a replayed id, Kimi's `functions.read:0`): each result claims the first
        // unclaimed call with its id, in both forms of the pending set.
        let ids = ["读:0", "b", "读:0", "c", "b", "读:0"];
        let calls: Vec<Call> = (0..60).map(|k| (ids[k % ids.len()], None, k)).collect();
        let (mut few, mut many) = (Pending::new(&calls), Pending::many(&calls));
        assert!(matches!(few, Pending::Few { .. }));
        for id in ["b", "读:0", "读:0", "x", "c", "b"].iter().cycle().take(80) {
            assert_eq!(few.claim(id), many.claim(id), "claiming {id}");
        }
    }

    fn repair(input: &Value) -> Vec<Value> {
        run(input, |m, c| {
            repair_tool_use_result_pairing(m, c, MISSING_TEXT, false);
        })
        .0
    }

    /// A compact view of a message: role, then the result's id and first text.
    fn shape(m: &Value) -> String {
        match m["role"].as_str() {
            Some("toolResult") => format!(
                "result {} {}",
                m["toolCallId"].as_str().unwrap_or("-"),
                m["content"][0]["text"].as_str().unwrap_or("-")
            ),
            Some(r) => r.to_string(),
            None => "?".into(),
        }
    }

    /// Each case: its input and the shape of OpenClaw 2026.9.6's output for it (read from its
    /// `repairToolUseResultPairing` with `erroredAssistantResultPolicy: "drop"`).
    #[test]
    fn pairs_results_as_2026_9_6_does() {
        let missing_a = format!("result a {MISSING_TEXT}");
        let cases: Vec<(&str, Value, Vec<&str>)> = vec![
            (
                "a result after a text-only assistant stays in its frame",
                json!([
                    calls(&["a"], "toolUse", 1),
                    said("等一下"),
                    result("a", "r")
                ]),
                vec!["assistant", "result a r", "assistant"],
            ),
            (
                "a reused id is paired per turn",
                json!([
                    calls(&["a"], "toolUse", 1),
                    result("a", "一"),
                    user("再来"),
                    calls(&["a"], "toolUse", 2),
                    result("a", "二")
                ]),
                vec![
                    "assistant",
                    "result a 一",
                    "user",
                    "assistant",
                    "result a 二",
                ],
            ),
            (
                "an errored turn goes with its results",
                json!([
                    user("q"),
                    calls(&["a"], "error", 1),
                    result("a", "r"),
                    user("n")
                ]),
                vec!["user", "user"],
            ),
            (
                "a second result in one turn is dropped",
                json!([
                    calls(&["a"], "toolUse", 1),
                    result("a", "一"),
                    result("a", "二")
                ]),
                vec!["assistant", "result a 一"],
            ),
            (
                "a missing result is synthesised",
                json!([calls(&["a", "b"], "toolUse", 1), result("b", "r")]),
                vec!["assistant", &missing_a, "result b r"],
            ),
            (
                "a displaced result moves back to the one call that can own it",
                json!([
                    calls(&["a"], "toolUse", 1),
                    calls(&["b"], "toolUse", 2),
                    result("b", "rb"),
                    result("a", "ra")
                ]),
                vec!["assistant", "result a ra", "assistant", "result b rb"],
            ),
            (
                "a result before any call is an orphan",
                json!([result("x", "r"), user("q")]),
                vec!["user"],
            ),
        ];
        for (name, input, want) in cases {
            let out = repair(&input);
            let got: Vec<String> = out.iter().map(shape).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn result_ids_are_trimmed_and_read_from_every_alias() {
        let mut r = result("", "r");
        r.as_object_mut().map(|o| o.remove("toolCallId"));
        r["call_id"] = json!(" a ");
        let out = repair(&json!([calls(&["a"], "toolUse", 1), r]));
        assert_eq!(out.len(), 2);
        assert_eq!(out[1]["call_id"], " a ");
        assert_eq!(out[1]["content"][0]["text"], "r");
    }

    #[test]
    fn a_result_without_an_id_adopts_the_only_call() {
        let mut r = result("", "r");
        r.as_object_mut().map(|o| o.remove("toolCallId"));
        let out = repair(&json!([calls(&["a"], "toolUse", 1), r.clone()]));
        assert_eq!(out[1]["toolCallId"], "a");
        assert_eq!(out[1]["isError"], true);
        // With two calls it owns neither: dropped, and both get a synthetic result.
        let out = repair(&json!([calls(&["a", "b"], "toolUse", 1), r]));
        let got: Vec<String> = out.iter().map(shape).collect();
        assert_eq!(
            got[1..],
            [
                format!("result a {MISSING_TEXT}"),
                format!("result b {MISSING_TEXT}")
            ]
        );
    }

    #[test]
    fn a_synthetic_result_carries_details_and_the_given_text() {
        let input = json!([calls(&["a"], "toolUse", 7)]);
        let out = run(&input, |m, c| {
            repair_tool_use_result_pairing(m, c, RESPONSES_MISSING_TEXT, false);
        })
        .0;
        assert_eq!(out[1]["content"][0]["text"], "aborted");
        assert_eq!(
            out[1]["details"]["openclawSyntheticMissingToolResult"],
            true
        );
        assert_eq!(out[1]["timestamp"], 7);
    }

    #[test]
    fn a_paired_transcript_is_the_identity() {
        let input = json!([
            user("q"),
            calls(&["a"], "toolUse", 1),
            result("a", "r"),
            said("ok")
        ]);
        let (_, identity) = run(&input, |m, c| {
            assert!(!repair_tool_use_result_pairing(m, c, MISSING_TEXT, false));
        });
        assert!(identity);
    }
}
