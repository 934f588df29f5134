//! Signed-thinking turns replayed as the provider wrote them (OpenClaw 2026.9.6's provider-owned
//! thinking replay, `allowProviderOwnedThinkingReplay`).
//!
//! Anthropic signs an assistant turn's thinking together with the tool calls that follow it: a
//! turn replayed with its thinking must come back byte for byte, or the API rejects the
//! signature. So on the Anthropic APIs, when the policy validates Anthropic turns, thinking is
//! signed (a signed-thinking provider or `preserveSignatures`) and not dropped, 2026.9.6 no longer
//! edits such a turn call by call:
//! - the tool-call input repair keeps the turn whole when every call is replay-safe (input present,
//!   no `partialJson`, a unique non-blank id, an allowed name needing no trim; its ids unused by
//!   an earlier kept turn; a `sessions_spawn` call with attachments answered; ids unused before
//!   when its results are displaced) and otherwise drops the whole turn;
//! - the id rewrite keeps the call ids of each replay-safe turn verbatim, and reserves them so
//!   no rewritten id takes one.

use crate::transcript::context::Ctx;
use crate::transcript::model::{Block, Msg, Val};
use foldhash::{HashSet, HashSetExt};

/// 2026.9.6's `shouldAllowProviderOwnedThinkingReplay`.
pub fn applies(
    model_api: Option<&str>,
    provider: Option<&str>,
    policy: &crate::transcript::policy::TranscriptPolicy,
) -> bool {
    let anthropic_api = matches!(
        model_api,
        Some("anthropic-messages" | "bedrock-converse-stream")
    );
    anthropic_api
        && policy.validate_anthropic_turns
        && super::signatures::applies(provider, policy.preserve_signatures)
        && !policy.drop_thinking_blocks
}

/// The id of a call block as OpenClaw reads it (`readToolCall`): a non-empty string.
fn call_ids(m: &Msg) -> impl Iterator<Item = &str> {
    m.blocks()
        .into_iter()
        .flatten()
        .filter(|b| b.is_object && b.is_tool_call())
        .filter_map(Block::call_id)
}

fn has_input(b: &Block) -> bool {
    b.input.is_present() || b.arguments.is_present()
}

/// A turn with reasoning and calls whose every call can be replayed as written
/// (`isReplaySafeThinkingAssistantTurn`); `allowed(j)`: block `j` names a tool it may call.
pub fn replay_safe(m: &Msg, allowed: &dyn Fn(usize, &Block) -> bool) -> bool {
    let Some(blocks) = m.blocks() else {
        return false;
    };
    if !blocks.iter().any(super::is_reasoning) {
        return false;
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut calls = 0;
    for (j, b) in blocks.iter().enumerate() {
        if !(b.is_object && b.is_tool_call()) {
            continue;
        }
        calls += 1;
        let id =
            b.id.as_str()
                .map(crate::transcript::text::trim)
                .unwrap_or("");
        let name = b.name.as_str();
        let safe = has_input(b)
            && !matches!(b.partial_json(), Val::Str(_))
            && !id.is_empty()
            && seen.insert(id)
            && allowed(j, b)
            && name.is_none_or(|n| crate::transcript::text::trim(n) == n);
        if !safe {
            return false;
        }
    }
    calls > 0
}

/// A `sessions_spawn` call whose `input.attachments` is a non-empty array.
fn spawns_with_attachments(m: &Msg, ctx: &Ctx) -> bool {
    m.blocks().into_iter().flatten().any(|b| {
        let Some((msg, idx)) = b.src_at() else {
            return false;
        };
        b.is_tool_call()
            && b.name.as_str() == Some("sessions_spawn")
            && ctx
                .source
                .items_with_key(msg, idx, "input", "attachments", "content")
                .is_some_and(|items| !items.is_empty())
    })
}

/// The result ids answering the turn at `i` (up to the next assistant with calls), and whether
/// one comes after another kind of message (`collectFollowingToolResults`).
fn following_results(msgs: &[Msg], i: usize) -> (HashSet<String>, bool) {
    let calls = super::pairing::calls_of(&msgs[i]);
    let mut ids = HashSet::new();
    let (mut other, mut displaced) = (false, false);
    for m in &msgs[i + 1..] {
        if m.is_assistant() && call_ids(m).next().is_some() {
            break;
        }
        if !m.is_tool_result() {
            other = true;
            continue;
        }
        let before = ids.len();
        ids.extend(super::pairing::result_ids(m).map(str::to_string));
        if let Some(id) = super::pairing::legacy_id(m, &calls) {
            ids.insert(id.to_string());
        }
        displaced |= ids.len() > before && other;
    }
    (ids, displaced)
}

/// What the tool-call input repair decides for signed-thinking turns, turn by turn, in order.
#[derive(Default)]
pub struct OwnedTurns {
    /// Ids of the turns kept whole so far.
    kept: HashSet<String>,
    /// Ids of every call kept so far.
    prior: HashSet<String>,
}

impl OwnedTurns {
    /// Whether the turn at `i` is one this rule decides: reasoning beside calls.
    pub fn owns(m: &Msg) -> bool {
        m.blocks().is_some_and(|bs| {
            bs.iter().any(super::is_reasoning) && bs.iter().any(|b| b.is_object && b.is_tool_call())
        })
    }

    /// Whether the owned turn at `i` is kept whole (else it is dropped whole).
    pub fn keep(
        &mut self,
        msgs: &[Msg],
        i: usize,
        ctx: &Ctx,
        allowed: &dyn Fn(usize, &Block) -> bool,
    ) -> bool {
        let m = &msgs[i];
        if !replay_safe(m, allowed) {
            return false;
        }
        let spawn = spawns_with_attachments(m, ctx);
        // The results that follow matter only to a spawn with attachments or to an id an earlier
        // turn used; most turns are neither, and collecting them cost a set and a list per turn.
        let (answered, displaced) = if spawn || call_ids(m).any(|id| self.prior.contains(id)) {
            following_results(msgs, i)
        } else {
            (HashSet::new(), false)
        };
        let ok = call_ids(m).all(|id| {
            !self.kept.contains(id)
                && (!spawn || answered.contains(id))
                && (!displaced || !self.prior.contains(id))
        });
        if ok {
            for id in call_ids(m) {
                self.kept.insert(id.to_string());
                self.prior.insert(id.to_string());
            }
        }
        ok
    }

    /// Remembers the calls of a turn kept by the ordinary repair.
    pub fn saw(&mut self, m: &Msg) {
        self.prior.extend(call_ids(m).map(str::to_string));
    }
}

/// The replay-safe turns whose ids the id rewrite keeps (`collectReplaySafeThinkingToolIds`):
/// their positions, ascending; every one of their ids is reserved in `ids`.
pub fn kept_id_turns(
    msgs: &[Msg],
    ids: &mut crate::transcript::tool_call_id::IdAllocator,
    allowed: &dyn Fn(usize, usize, &Block) -> bool,
) -> Vec<usize> {
    let mut reserved: HashSet<&str> = HashSet::new();
    let mut turns = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if !m.is_assistant() || !replay_safe(m, &|j, b| allowed(i, j, b)) {
            continue;
        }
        if call_ids(m).any(|id| reserved.contains(id)) {
            continue;
        }
        turns.push(i);
        for id in call_ids(m) {
            reserved.insert(id);
            ids.reserve(id);
        }
    }
    turns
}

#[cfg(test)]
mod tests {
    use crate::openclaw::OpenClawVersion::V2026_9_6;
    use crate::transcript::rules::tool_call_inputs::repair_tool_call_inputs_as;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn repair(input: &Value, owned: bool) -> Vec<Value> {
        run(input, |m, c| {
            repair_tool_call_inputs_as(m, c, None, V2026_9_6, owned);
        })
        .0
    }

    fn signed(calls: Vec<Value>) -> Value {
        let mut content =
            vec![json!({"type": "thinking", "thinking": "想", "thinkingSignature": "c2ln"})];
        content.extend(calls);
        json!({"role": "assistant", "content": content, "stopReason": "toolUse"})
    }

    fn call(id: &str, name: &str) -> Value {
        json!({"type": "toolCall", "id": id, "name": name, "arguments": {"path": "a.md"}})
    }

    fn result(id: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "内容"}]})
    }

    #[test]
    fn a_signed_turn_is_kept_whole_or_dropped_whole() {
        let input = json!([
            {"role": "user", "content": "读两个文件"},
            signed(vec![call("c1", "read")]),
            result("c1"),
            // A name that needs a trim, and a call without arguments: the turn cannot stay as signed.
            signed(vec![call("c2", " read ")]),
            result("c2"),
            signed(vec![call("c3", "read"), json!({"type": "toolCall", "id": "c4", "name": "read"})]),
            // The same id as a turn already kept whole.
            signed(vec![call("c1", "read")]),
        ]);
        let out = repair(&input, true);
        let rows = input.as_array().unwrap();
        assert_eq!(
            out,
            vec![
                rows[0].clone(),
                rows[1].clone(),
                rows[2].clone(),
                rows[4].clone()
            ]
        );
        // Twin: without provider-owned replay the calls are repaired one by one.
        let edited = repair(&input, false);
        assert_eq!(edited.len(), 7);
        assert_eq!(edited[3]["content"][1]["name"], "read");
        assert_eq!(edited[5]["content"].as_array().unwrap().len(), 2);
    }

    /// The signed-turn decisions read each turn's results once: 8x the turns may take well under
    /// 64x the time (quadratic), here both the input repair and 2026.9.6's dangling-call strip.
    #[test]
    fn signed_turns_are_decided_in_linear_time() {
        use crate::transcript::rules::merge_turns::validate_anthropic_turns_as;
        fn timed(n: usize) -> f64 {
            let rows: Vec<Value> = (0..n)
                .flat_map(|i| {
                    let id = format!("c{i}");
                    [signed(vec![call(&id, "read")]), result(&id)]
                })
                .collect();
            let input = Value::Array(rows);
            let (best, out) = crate::test_clock::best_of(3, || {
                run(&input, |m, c| {
                    repair_tool_call_inputs_as(m, c, None, V2026_9_6, true);
                    validate_anthropic_turns_as(m, c, V2026_9_6, true);
                })
            });
            assert_eq!(out.0.len(), 2 * n);
            best
        }
        let (small, large) = (timed(500), timed(4_000));
        assert!(
            large / small < 24.0,
            "500 turns {small:.4}s, 4,000 {large:.4}s"
        );
    }
}
