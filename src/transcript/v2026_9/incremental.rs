//! The incremental pass in OpenClaw 2026.9.6 mode: where the 2026.9.6 pass can be cut, and what
//! forces it to run in full.
//!
//! As in [`crate::transcript::incremental`] (2026.3.23), a *cut* at input index `c` splits the
//! history so that the full pass's output is the prefix's output followed by the suffix run as a
//! transcript of its own, carrying a little state, whatever is appended later; a continued run
//! either proves that or answers "fall back" and the caller runs the full pass. 2026.9.6's rules
//! look further back than 2026.3.23's (several decide by "the latest" user, assistant, compaction
//! or model switch), so its cut is **at a user turn** or **at an assistant with tool calls** (as
//! pairing sees it), chosen at the last one that satisfies every condition below. An agent's
//! ordinary growth (user turn, assistant with calls, results, assistant text) and an autonomous
//! loop of tool turns under one user turn (assistant with calls, results, again and again) move
//! the cut to the latest assistant with calls, so a call re-runs the messages since the previous
//! call, however long the loop.
//!
//! A cut at an assistant `c` lies inside a user turn; what the rules that look back to "the
//! latest user turn" need from the prefix is carried in [`Prefix`]'s `in_loop`: whether, looking
//! back from `c`, an assistant comes before any user turn. Appending anything keeps the cut
//! exact (a new user turn, an assistant without calls, results) except what the conditions below
//! send to the full pass; the one rule whose decision on a prefix turn changes with what is
//! appended (`dropReasoningFromHistory`'s current tool turn) never has such a turn before a cut.
//!
//! Rule by rule, in the pass's order:
//!
//! - **Inter-session marker, assistant canonicalisation, replay content** (`NO_REPLY`,
//!   display-only blocks, delivery mirrors, stream-error placeholders, blank user turns,
//!   length-cut reasoning), **images** (payloads, empty tool results, thought signatures in the
//!   image pass), **non-object entries**, **tool-result details**, **Responses id shapes**: one
//!   message at a time; bounded by any cut.
//! - **Stale thinking signatures** (assistant turns stamped before the latest compaction, by the
//!   greatest timestamp of any compaction): the prefix's greatest compaction time is carried into
//!   the suffix ([`super::signatures::strip_stale_signatures_after`]); a compaction in the suffix
//!   reaches back, so a continued run holding one falls back, and a cut lies after every
//!   compaction.
//! - **Unsigned thinking** (removed except in the latest assistant when it is the last message or
//!   the current tool turn) and **`dropThinkingBlocks`** (every assistant but the latest with
//!   array content): bounded when the latest assistant with array content lies at or after the
//!   cut, as the messages stand after the image pass (nothing between it and these rules drops a
//!   message): a cut at a user turn needs one after it, a cut at an assistant with calls is one.
//!   Appending keeps it there, so the prefix never holds the exempt turn.
//! - **The current tool turn** (`dropReasoningFromHistory`, and the unsigned-thinking exemption):
//!   an assistant with calls after the latest user turn, no assistant between them, results
//!   following (before any user turn). A suffix turn's look back stops at a user turn inside the
//!   suffix (always, for a cut at a user turn); when it reaches the suffix's start instead, the
//!   prefix's `in_loop` answers for the rest of the way (an assistant there: not the current
//!   turn). A turn of the prefix is the current one only when the cut lies inside its user turn:
//!   the first assistant after the prefix's latest user turn. Its answer changes with what is
//!   appended (a result makes it current, a user turn ends it), which matters only when it has
//!   calls and reasoning under `dropReasoningFromHistory`, and pairing keeps it (an errored or
//!   aborted turn goes with its results, whatever its reasoning, unless errored turns are kept or
//!   signed-thinking turns are kept whole, whose repair reads the reasoning). Then a cut after it
//!   needs a result after it before the cut (it is current, and only a user turn can end that);
//!   the prefix remembers it holds the current turn (`holds_current`) and a continued run
//!   holding a user turn cannot continue from it. When a continued run took that cut, the prefix
//!   also keeps the one that run started from (before the turn: [`Prefix`]'s `earlier`, without
//!   its ids, with the ids added since), and the user turn's run answers that cut instead: the
//!   loop runs once more from there, not the whole history. After a full pass there is no such
//!   cut and the user turn takes the full pass, worth it only in a long loop, so a full pass
//!   takes a cut after the turn only when `(cut - turn)²` ≥ 4 × the history; before that the
//!   cut stays at that turn or its user turn, and the next call moves it on. The
//!   unsigned-thinking exemption is only ever the latest assistant's, which lies after any cut.
//! - **Tool-call input repair** (2026.9.6's "completed" calls keep their place whatever the
//!   allowlist says; signed-thinking turns kept or dropped whole, their ids "unused by an earlier
//!   kept turn", their results looked up to the next assistant with calls) and **pairing** (a
//!   frame runs from an assistant with calls to the next one, across user and text turns;
//!   results displaced into a later frame move back when exactly one unanswered call owns them;
//!   per-occurrence ids; a result without an id adopts its frame's only call's): the prefix's
//!   last frame runs on into the suffix up to the suffix's first assistant with calls (none, for
//!   a cut at one: the frame ends at the cut). A result in that stretch (as pairing sees the
//!   messages) would be claimed by, or dropped as a duplicate of, the prefix's turn, so a
//!   continued run holding one falls back, and no cut has one after it. A prefix call answered
//!   late (after the cut) is met by the id check below; a synthetic result pairing inserted for
//!   it stays in the prefix's output (the cut must separate the output).
//!   Everything else crosses the cut by id: every call and result id of the prefix (each alias,
//!   as written and trimmed) is remembered, and a suffix that uses one falls back. Errored and
//!   aborted turns are removed with their results frame by frame, so they need nothing more
//!   (2026.3.23's rule depended on the whole history; this one does not).
//! - **Stale Responses reasoning** (turns stamped at or before the latest model switch, from the
//!   session's model snapshots or this call's time): one message at a time given the switch time;
//!   the prefix remembers the time it was judged against and a call with another falls back.
//! - **Tool-call id rewrite** (one allocator over the whole history; 2026.9.6 first reserves the
//!   ids of every replay-safe signed-thinking turn, in the suffix too, so a suffix turn can change
//!   the ids the prefix was given): every id the allocator was asked about, handed out or kept is
//!   traced; a suffix whose traced ids meet the prefix's falls back. With none in common the
//!   allocator makes the same choices for the suffix alone as after the prefix (its candidates are
//!   tried in order and the ones it skipped were the suffix's own), and the suffix's
//!   reservations took nothing the prefix was given.
//! - **Function-call / reasoning pairs** (Responses: results right after an assistant follow its
//!   call ids): the run ends at any other message and starts afresh at each assistant, and the
//!   suffix opens with a user turn or an assistant.
//! - **Usage snapshots** (usage before the latest compaction, by position, zeroed; by timestamp
//!   when both parse): the prefix's last compaction is carried in
//!   ([`crate::transcript::rules::usage_snapshots::normalize_usage_snapshots_2026_9_after`]); a
//!   compaction in the suffix falls back.
//! - **Google's turn ordering** (the plugin hook and the policy flag prepend a user turn when the
//!   history opens with an assistant): decided by the first pass, whose prefix keeps the first
//!   message; the bootstrap copies its timestamp from the first message that has one, so the cut
//!   lies after that message (none: no cut). A continued run takes the prefix's answer.
//! - **Session entries** (the model snapshot and Google's marker to append) depend on the session
//!   entries and this call, not on the messages: every call computes them.

use crate::transcript::context::Ctx;
use crate::transcript::incremental::{Fallback, Prefix};
use crate::transcript::model::{Msg, Text};
use crate::transcript::pipeline::{HistoryOutput, HistoryParams};
use crate::transcript::rules::google_ordering;

/// How pairing sees a message.
#[derive(Clone, Copy, PartialEq)]
enum Stage {
    /// An assistant with tool calls: a frame starts.
    Calls,
    Result,
    Other,
}

/// What a 2026.9.6 pass records while it runs, to choose its cut and check a continued run.
#[derive(Default)]
pub struct Tracker {
    /// Continuing from this prefix (the messages given are the suffix), or a full pass.
    prior: Option<Prefix>,
    /// Every call and result id, by input index.
    ids: Vec<(usize, Text)>,
    /// User turns after the image pass (input indices, ascending).
    users: Vec<usize>,
    /// The latest assistant with array content after the image pass.
    latest_assistant: Option<usize>,
    /// Every assistant after the image pass (input indices, ascending).
    assistants: Vec<usize>,
    /// Every tool result after the image pass (input indices, ascending).
    results: Vec<usize>,
    /// `dropReasoningFromHistory`: the assistants with calls and reasoning as that rule is about
    /// to see them (each keeps its reasoning only while it is the current tool turn).
    reasoned: Vec<usize>,
    /// Errored and aborted turns with calls that pairing removes with their results, whatever
    /// their reasoning (input indices, ascending).
    removed: Vec<usize>,
    /// Compaction summaries: input index, the usage rule's time, the signature rule's time.
    compactions: Vec<(usize, Option<f64>, Option<f64>)>,
    /// The messages as pairing sees them, in order.
    staged: Vec<(usize, Stage)>,
    /// A result comes before the first assistant with calls (a continued run must fall back).
    reaches_back: bool,
    /// The model switch the Responses reasoning rule judged against.
    switch: Option<f64>,
    /// Google's bootstrap was prepended by this (full) run.
    prepended: bool,
    /// When it was: the message it copied its timestamp from (`usize::MAX`: none).
    stamped: Option<usize>,
}

impl Tracker {
    fn new(prior: Option<Prefix>) -> Tracker {
        Tracker {
            prior,
            ..Tracker::default()
        }
    }

    /// After the image pass: users, the latest assistant, compactions, and every id.
    pub fn after_images(&mut self, msgs: &[Msg]) {
        // Most messages hold an id or two (a call's, a result's).
        self.ids.reserve(2 * msgs.len());
        for m in msgs {
            let Some(src) = m.src_index() else { continue };
            if m.is_user() {
                self.users.push(src);
            } else if m.is_assistant() {
                self.assistants.push(src);
                if let Some(blocks) = m.blocks() {
                    self.latest_assistant = Some(src);
                    for id in blocks.iter().filter_map(|b| b.call_id()) {
                        self.id(src, id);
                    }
                }
            } else if m.is_tool_result() {
                if m.is_object {
                    self.results.push(src);
                }
                for id in super::pairing::raw_result_ids(m) {
                    self.id(src, id);
                }
            } else if m.is_role("compactionSummary") {
                self.compactions.push((
                    src,
                    crate::transcript::rules::usage_snapshots::compaction_time(m),
                    super::signatures::compaction_time(m),
                ));
            }
        }
    }

    /// An id as written and trimmed.
    fn id(&mut self, src: usize, id: &str) {
        self.ids.push((src, Text::new(id)));
        let trimmed = id.trim();
        if trimmed != id && !trimmed.is_empty() {
            self.ids.push((src, Text::new(trimmed)));
        }
    }

    /// The prefix's latest compaction time as the signature rule reads it.
    pub fn signed_before(&self) -> Option<f64> {
        self.prior.as_ref().and_then(|p| p.signed_before)
    }

    /// The prefix's last compaction as the usage rule reads it.
    pub fn usage_before(&self) -> Option<Option<f64>> {
        self.prior.as_ref().and_then(|p| p.compaction)
    }

    /// Whether this run continues a prefix cut inside a tool loop (see [`Prefix`]'s `in_loop`).
    pub fn in_loop(&self) -> bool {
        self.prior.as_ref().is_some_and(|p| p.in_loop)
    }

    /// The messages as `dropReasoningFromHistory` is about to see them.
    pub fn before_drop_reasoning(&mut self, msgs: &[Msg]) {
        for m in msgs {
            if let (true, Some(src)) = (super::drop_reasoning::reasoned_call(m), m.src_index()) {
                self.reasoned.push(src);
            }
        }
    }

    /// For a cut at `c`: whether, looking back from it, an assistant comes before any user turn,
    /// and the first assistant after the latest user turn before `c` if it lies in this run.
    fn loop_at(&self, c: usize) -> (bool, Option<usize>) {
        let u = self.users.partition_point(|&x| x < c);
        let from = if u > 0 { self.users[u - 1] + 1 } else { 0 };
        let a = self.assistants.partition_point(|&x| x < from);
        let first = self.assistants.get(a).copied().filter(|&x| x < c);
        match first {
            Some(_) if u == 0 && self.in_loop() => (true, None),
            Some(x) => (true, Some(x)),
            None => (u == 0 && self.in_loop(), None),
        }
    }

    /// Whether a cut at assistant `c` is allowed by `dropReasoningFromHistory`'s current tool turn,
    /// and whether the prefix would then hold that turn (`Some(true)`). The turn is the first
    /// assistant after the latest user turn; in the prefix, its answer must not change with what
    /// is appended: it has no calls or no reasoning (nothing to decide), pairing removes it with
    /// its results (an errored or aborted turn: its reasoning never reaches the output), a user
    /// turn follows the cut (it is no longer current, for good), or it is the current turn
    /// already (a result follows it before the cut), which only a user turn ends. A continued
    /// run holding one then continues from the cut before that turn (a continued run took the
    /// cut past it: its prefix is remembered, [`Prefix`]'s `earlier`) or, after a full pass,
    /// falls back; so a full pass takes such a cut only in a long loop, `(c - turn)²` ≥ 4 × the
    /// history (below that, re-running the loop from its first turn costs less than the full
    /// pass at its next user turn).
    fn current_turn_at(&self, c: usize, history: usize) -> Option<bool> {
        let Some(a) = self.loop_at(c).1 else {
            return Some(false);
        };
        // A user turn after the cut has ended it already, for good.
        if self.reasoned.binary_search(&a).is_err()
            || self.removed.binary_search(&a).is_ok()
            || self.users.last().is_some_and(|&u| u > c)
        {
            return Some(false);
        }
        let r = self.results.partition_point(|&x| x <= a);
        let answered = self.results.get(r).is_some_and(|&x| x < c);
        let long = (c - a).saturating_mul(c - a) >= 4 * history;
        (answered && (long || self.prior.is_some())).then_some(true)
    }

    /// The messages as pairing is about to see them. `drops_failed`: pairing removes an errored
    /// or aborted turn with calls, and nothing before it (the tool-call input repair keeping
    /// signed-thinking turns whole) read that turn's reasoning.
    pub fn before_pairing(&mut self, msgs: &[Msg], drops_failed: bool) {
        self.staged.reserve(msgs.len());
        let mut framed = false;
        for m in msgs {
            let stage = if m.is_assistant() && super::pairing::has_calls(m) {
                framed = true;
                if drops_failed && matches!(m.stop_reason.as_str(), Some("error" | "aborted")) {
                    self.removed.extend(m.src_index());
                }
                Stage::Calls
            } else if m.is_tool_result() {
                self.reaches_back |= !framed;
                Stage::Result
            } else {
                Stage::Other
            };
            if let Some(src) = m.src_index() {
                self.staged.push((src, stage));
            }
        }
    }

    /// The model switch the Responses reasoning rule judges against.
    pub fn switch(&mut self, before: Option<f64>) {
        self.switch = before;
    }

    /// Google's turn ordering: run on the whole history, or the prefix's answer for a continued
    /// run (whose first message is not the history's). Returns whether the bootstrap is there.
    pub fn google_turn_ordering(&mut self, msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
        if let Some(p) = &self.prior {
            return p.prepended;
        }
        let stamped = google_ordering::stamped(msgs).and_then(Msg::src_index);
        self.prepended = google_ordering::sanitize_google_turn_ordering(msgs, ctx);
        if self.prepended {
            self.stamped = Some(stamped.unwrap_or(usize::MAX));
        }
        self.prepended
    }

    /// Ids the allocator traced (moved out of `ctx`).
    pub fn take_id_trace(&mut self, ctx: &mut Ctx) {
        if let Some(t) = ctx.id_trace.take() {
            self.ids.extend(t);
        }
    }

    /// After the pass: the prefix to remember (`Ok(None)`: nothing can be reused), or `Err` when
    /// a continued run cannot be proven equal to the full pass.
    fn conclude(self, out: &[Msg], input_len: usize) -> Result<Option<Prefix>, Fallback> {
        if let Some(p) = &self.prior {
            if !self.compactions.is_empty() {
                return Err(Fallback::full("a compaction"));
            }
            if self.reaches_back {
                return Err(Fallback::full("a tool result in the prefix's last frame"));
            }
            if self.switch.map(f64::to_bits) != p.switch.map(f64::to_bits) {
                return Err(Fallback::full("another model switch"));
            }
            if self.ids.iter().any(|(_, id)| p.ids.contains(id)) {
                return Err(Fallback::full("an id the prefix used"));
            }
            if p.holds_current && !self.users.is_empty() {
                // The turn is no longer current: from the session's cut before it, if any.
                return Err(Fallback {
                    why: "a user turn after the prefix's current tool turn",
                    earlier: self.prior.and_then(Prefix::into_earlier).map(Box::new),
                });
            }
        }
        let Some((c, t)) = self.best_cut(out, input_len) else {
            return Ok(self.prior);
        };
        // A cut at a user turn stops every look-back at it.
        let at_call = self.users.binary_search(&c).is_err();
        let in_loop = at_call && self.loop_at(c).0;
        // (The loop's length was checked by `best_cut`.)
        let holds = at_call && self.current_turn_at(c, 0) == Some(true);
        let mut next = self.prior.unwrap_or_default();
        if holds && !next.holds_current && next.cut > 0 {
            // The cut this run started from, to come back to when a user turn ends the turn.
            next.earlier = Some(Box::new(next.keep_earlier()));
        }
        next.in_loop = in_loop;
        next.holds_current |= holds;
        next.cut += c;
        next.out += t;
        let ids = self.ids.into_iter().filter(|(i, _)| *i < c).map(|(_, s)| s);
        match next.earlier.as_deref_mut() {
            Some(e) => {
                for id in ids {
                    if !next.ids.contains(&id) {
                        e.added.push(id.clone());
                        next.ids.insert(id);
                    }
                }
            }
            None => next.ids.extend(ids),
        }
        for &(_, usage, signed) in self.compactions.iter().filter(|(i, _, _)| *i < c) {
            next.compaction = Some(usage);
            if let Some(s) = signed {
                next.signed_before = Some(next.signed_before.map_or(s, |b| b.max(s)));
            }
        }
        next.switch = self.switch;
        next.prepended |= self.prepended;
        Ok(Some(next))
    }

    /// The last cut `c` (a user turn or an assistant with calls, relative to this run's input) and
    /// the output position `t` it maps to, or `None`.
    fn best_cut(&self, out: &[Msg], n: usize) -> Option<(usize, usize)> {
        let latest = self.latest_assistant?;
        let last_compaction = self.compactions.last().map(|c| c.0);
        // Output order, in one buffer (a turn's pass is a few messages: the allocations were a
        // share of it): `pos[s]`, where input message `s` went; `max_before[p]`, 1 + the
        // greatest input index before output position `p` (0: none); `min_from[p]`, the least
        // from it on (new messages count for neither).
        let len = out.len();
        let mut buf = vec![0usize; n + 2 * (len + 1)];
        let (pos, rest) = buf.split_at_mut(n);
        let (max_before, min_from) = rest.split_at_mut(len + 1);
        pos.fill(usize::MAX);
        for (p, m) in out.iter().enumerate() {
            let src = m.src_index();
            if let Some(slot) = src.and_then(|s| pos.get_mut(s)) {
                *slot = p;
            }
            max_before[p + 1] = max_before[p].max(src.map_or(0, |s| s + 1));
        }
        min_from[len] = usize::MAX;
        for p in (0..len).rev() {
            min_from[p] = min_from[p + 1].min(out[p].src_index().unwrap_or(usize::MAX));
        }
        let fresh = self.prior.is_none();
        let history = self.prior.as_ref().map_or(0, |p| p.cut) + n;
        // The cut must leave the bootstrap's timestamp source in the prefix.
        let first = match self.stamped {
            Some(usize::MAX) => return None,
            Some(s) => s + 1,
            None => 1,
        };
        // Candidates, latest first: user turns and assistants with calls (as pairing sees
        // them), `users[..u]` and `staged[..k]` not yet taken. `ahead`: a result comes from
        // staged message `a` on before the next assistant with calls (worked out backwards as
        // the candidates go).
        let (mut u, mut k) = (self.users.len(), self.staged.len());
        let (mut a, mut ahead) = (self.staged.len(), false);
        loop {
            while k > 0 && self.staged[k - 1].1 != Stage::Calls {
                k -= 1;
            }
            let user = u.checked_sub(1).map(|j| self.users[j]);
            let call = k.checked_sub(1).map(|j| self.staged[j].0);
            let (c, at_call) = match (user, call) {
                (None, None) => return None,
                (Some(x), Some(y)) if y > x => {
                    k -= 1;
                    (y, true)
                }
                (Some(x), _) => {
                    u -= 1;
                    (x, false)
                }
                (None, Some(y)) => {
                    k -= 1;
                    (y, true)
                }
            };
            if last_compaction.is_some_and(|k| k >= c) || c < first {
                // Every earlier candidate is before it too.
                return None;
            }
            if at_call {
                // The prefix's first turn after its latest user turn keeps its reasoning only
                // while it is the current tool turn.
                if self.current_turn_at(c, history).is_none() {
                    continue;
                }
            } else if c >= latest {
                continue;
            }
            // A result there was moved up before the cut (not separated) or dropped (the next
            // call would fall back on it). (Never at an assistant with calls: a frame starts.)
            let from = self.staged.partition_point(|s| s.0 < c);
            while a > from {
                a -= 1;
                ahead = match self.staged[a].1 {
                    Stage::Calls => false,
                    Stage::Result => true,
                    Stage::Other => ahead,
                };
            }
            if ahead {
                continue;
            }
            let Some(&t) = pos.get(c).filter(|&&t| t != usize::MAX) else {
                continue;
            };
            let separated = max_before[t] <= c && min_from[t] >= c;
            if separated && (!fresh || max_before[t] > 0) {
                return Some((c, t));
            }
        }
    }
}

/// One tracked 2026.9.6 pass: `msgs` is the whole history (`prior` None) or the suffix after
/// `prior.cut`. Returns the pass's output and the prefix to remember, or `Err` when the caller
/// must run the full pass instead.
pub fn sanitize_tracked(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
    prior: Option<Prefix>,
) -> Result<(HistoryOutput, Option<Prefix>), Fallback> {
    let input_len = msgs.len();
    let mut track = Tracker::new(prior);
    let out = super::run(msgs, ctx, p, Some(&mut track));
    let prefix = track.conclude(msgs, input_len)?;
    Ok((out, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::{
        check_incremental as check, replay_incremental, tracked_pass as pass,
    };
    use serde_json::{json, Value};

    fn params(model: &str) -> HistoryParams {
        HistoryParams {
            provider: Some("anthropic".into()),
            model_api: Some("anthropic-messages".into()),
            model_id: Some(model.into()),
            version: Some(crate::openclaw::OpenClawVersion::V2026_9_6),
            ..HistoryParams::default()
        }
    }

    fn turn(t: u32, thinking: bool) -> Vec<Value> {
        let ts = f64::from(t) * 10.0;
        let think = json!({"type": "thinking", "thinking": "想", "thinkingSignature": "c2ln"});
        let mut call = vec![
            json!({"type": "toolCall", "id": format!("call_{t}"), "name": "read", "arguments": {}}),
        ];
        if thinking {
            call.insert(0, think.clone());
        }
        vec![
            json!({"role": "user", "content": format!("第{t}轮"), "timestamp": ts}),
            json!({"role": "assistant", "stopReason": "toolUse", "timestamp": ts + 1.0, "content": call}),
            json!({"role": "toolResult", "toolCallId": format!("call_{t}"), "toolName": "read",
                   "content": [{"type": "text", "text": "结果"}], "timestamp": ts + 2.0}),
            json!({"role": "assistant", "stopReason": "stop", "timestamp": ts + 3.0,
                   "content": [think, {"type": "text", "text": "好"}]}),
        ]
    }

    #[test]
    fn an_agents_turns_continue_from_the_latest_call() {
        for model in ["claude-sonnet-4-5", "claude-opus-4-6"] {
            let steps: Vec<Vec<Value>> = (0..6).map(|t| turn(t, t % 2 == 0)).collect();
            assert_eq!(check(&steps, &params(model)), 5, "{model}");
        }
        let (_, prefix) = pass(
            &[turn(0, true), turn(1, true)].concat(),
            None,
            &params("claude-opus-4-6"),
        )
        .unwrap();
        assert_eq!(
            prefix.map(|p| (p.cut, p.out, p.in_loop)),
            Some((5, 5, false))
        );
    }

    /// 2026.9.6's policy for Ollama's chat API: `dropReasoningFromHistory`.
    fn ollama() -> HistoryParams {
        crate::transcript::ops::history_params(&json!({"provider": "ollama",
            "modelApi": "openai-completions", "modelId": "qwen3:8b", "openclawVersion": "2026.9.6"}))
    }

    /// Tool turn `t` of a loop: a call (after signed, unsigned or no thinking) and its result.
    fn loop_turn(t: u32, signed: Option<bool>) -> Vec<Value> {
        let ts = f64::from(t) * 10.0;
        let mut content = vec![
            json!({"type": "toolCall", "id": format!("loop_{t}"), "name": "read", "arguments": {}}),
        ];
        if let Some(signed) = signed {
            let mut b = json!({"type": "thinking", "thinking": "再想想"});
            if signed {
                b["thinkingSignature"] = json!("c2ln");
            }
            content.insert(0, b);
        }
        vec![
            json!({"role": "assistant", "stopReason": "toolUse", "timestamp": ts + 1.0, "content": content}),
            json!({"role": "toolResult", "toolCallId": format!("loop_{t}"), "toolName": "read",
                   "content": [{"type": "text", "text": "结果"}], "timestamp": ts + 2.0}),
        ]
    }

    #[test]
    fn a_tool_loop_continues_from_its_latest_call() {
        let user = |t: u32| json!({"role": "user", "content": "开始", "timestamp": t * 10});
        let kinds = [Some(true), Some(false), None];
        let done = json!({"role": "assistant", "stopReason": "stop", "timestamp": 995,
                          "content": [{"type": "thinking", "thinking": "完"}, {"type": "text", "text": "完成"}]});
        for (name, p) in [
            ("opus", params("claude-opus-4-6")),
            ("sonnet", params("claude-sonnet-4-5")),
            ("ollama", ollama()),
        ] {
            // One user turn, a loop of tool turns, an answer, the next user turn and loop.
            let mut steps = vec![vec![user(0)]];
            steps.extend((1..40).map(|t| loop_turn(t, kinds[t as usize % 3])));
            steps.push(vec![done.clone()]);
            steps.push(vec![user(100)]);
            steps.extend((101..110).map(|t| loop_turn(t, kinds[t as usize % 3])));
            // Every loop turn continues (the first call and the one after it run in full).
            // Ollama's first loop turn reasons and the loop is long: the prefix holds the current
            // tool turn, and the user turn after it takes the full pass.
            let continued = check(&steps, &p) + usize::from(name == "ollama");
            assert!(
                continued >= steps.len() - 2,
                "{name}: {continued} of {}",
                steps.len()
            );
            // The cut follows the latest call: the next call re-runs two messages.
            let history = steps.concat();
            let (_, prefix) = pass(&history, None, &p).unwrap();
            let prefix = prefix.expect("a cut");
            assert_eq!(
                (prefix.cut, prefix.in_loop),
                (history.len() - 2, true),
                "{name}"
            );
        }
    }

    #[test]
    fn a_loop_under_drop_reasoning_passes_its_first_turn_only_when_long() {
        // The first tool turn after the user keeps its reasoning while it is the current tool
        // turn (a user turn appended takes it away): in a short loop, no cut after it.
        let p = ollama();
        let mut h = vec![json!({"role": "user", "content": "开始", "timestamp": 0})];
        for t in 1..4 {
            h.extend(loop_turn(t, Some(t == 1)));
        }
        let (_, prefix) = pass(&h, None, &p).unwrap();
        assert_eq!(prefix.map(|p| (p.cut, p.holds_current)), Some((1, false)));
        let user = json!({"role": "user", "content": "下一个", "timestamp": 1000});
        let steps = vec![h.clone(), vec![user.clone()], loop_turn(7, Some(false))];
        assert_eq!(check(&steps, &p), 2);
        // In a long one the cut follows the latest call; the next user turn falls back.
        for t in 4..20 {
            h.extend(loop_turn(t, Some(false)));
        }
        let (_, prefix) = pass(&h, None, &p).unwrap();
        let prefix = prefix.expect("a cut");
        assert_eq!((prefix.cut, prefix.holds_current), (h.len() - 2, true));
        let mut s = h[prefix.cut..].to_vec();
        s.extend(loop_turn(20, None));
        assert!(pass(&s, Some(prefix.clone()), &p).is_ok());
        s.push(user.clone());
        // The full pass took that cut: no earlier one to continue from.
        let err = pass(&s, Some(prefix), &p).unwrap_err();
        assert_eq!(
            (err.why, err.earlier.is_none()),
            ("a user turn after the prefix's current tool turn", true)
        );
        check(
            &[
                h.clone(),
                loop_turn(20, None),
                vec![user.clone()],
                loop_turn(21, None),
            ],
            &p,
        );
        // Without reasoning in the first turn there is nothing to decide: the cut follows the
        // latest call, however short the loop.
        h.truncate(7);
        h[1]["content"].as_array_mut().unwrap().remove(0);
        let (_, prefix) = pass(&h, None, &p).unwrap();
        assert_eq!(prefix.map(|p| (p.cut, p.holds_current)), Some((5, false)));
        check(&[h, vec![user], loop_turn(8, Some(true))], &p);
    }

    #[test]
    fn a_short_loop_under_drop_reasoning_continues_from_its_latest_call() {
        // Its first tool turn reasons (kept while it is the current tool turn), the loop is
        // short: once a call continued, the cut follows the latest call; the user turn that ends
        // the loop continues from the cut before that turn, once; then the cut moves on again.
        let p = ollama();
        let user = |t: u32| json!({"role": "user", "content": "下一步", "timestamp": t * 10});
        let mut steps = vec![[vec![user(0)], loop_turn(1, Some(false))].concat()];
        steps.extend((2..9).map(|t| loop_turn(t, Some(t % 2 == 0))));
        steps.push(vec![user(90)]);
        steps.extend((10..14).map(|t| loop_turn(t, Some(false))));
        let reran = replay_incremental(&steps, &p);
        // The first call runs in full; every loop turn re-runs the two messages it appended and
        // the two before (the cut was at the previous call), not the loop.
        assert_eq!(reran[0], None);
        assert!(reran[1..8].iter().all(|&r| r == Some(4)), "{reran:?}");
        // The user turn: the loop again (17 messages), from the cut before its first turn (which
        // loses its reasoning now); then from the loop's last call (its user turn after it).
        assert_eq!(&reran[8..10], [Some(17), Some(5)], "{reran:?}");
        assert!(reran[10..].iter().all(|&r| r == Some(4)), "{reran:?}");
        let history = steps[..8].concat();
        let (_, first) = pass(&history[..3], None, &p).unwrap();
        let first = first.expect("a cut");
        assert_eq!((first.cut, first.holds_current), (1, false));
        let (_, next) = pass(&history[1..5], Some(first), &p).unwrap();
        let next = next.expect("a cut");
        let earlier = next.earlier.as_ref().map(|e| e.prefix.cut);
        assert_eq!((next.cut, next.holds_current, earlier), (3, true, Some(1)));
        let mut s = history[3..].to_vec();
        s.push(user(90));
        let (_, at) = pass(&history[3..], Some(next.clone()), &p).unwrap();
        let at = at.expect("a cut");
        assert_eq!(at.cut, history.len() - 2);
        let err = pass(&s, Some(next), &p).unwrap_err();
        let back = err.earlier.expect("the cut before the loop's first turn");
        // Its ids are the ones it had: the loop's came after it.
        assert_eq!((back.cut, back.ids.len()), (1, 0));
        // An aborted first turn goes with its results whatever its reasoning: nothing to come
        // back for, the cut follows the latest call from the first call after it on (a history
        // of a user turn and that turn alone has no cut: no output follows the user turn).
        let mut aborted = [vec![user(0)], loop_turn(1, Some(false))].concat();
        aborted[1]["stopReason"] = json!("aborted");
        let mut steps = vec![aborted];
        steps.extend((2..6).map(|t| loop_turn(t, Some(false))));
        steps.push(vec![user(60)]);
        steps.push(loop_turn(7, Some(true)));
        let reran = replay_incremental(&steps, &p);
        let continued = [Some(4), Some(4), Some(4), Some(3), Some(5)];
        assert_eq!(reran, [&[None, None], &continued[..]].concat());
    }

    #[test]
    fn what_reaches_back_falls_back() {
        let p = params("claude-opus-4-6");
        let h = [turn(0, true), turn(1, true)].concat();
        let (_, prefix) = pass(&h, None, &p).unwrap();
        let late = json!({"role": "toolResult", "toolCallId": "call_0", "toolName": "read", "content": []});
        let compaction = json!({"role": "compactionSummary", "summary": "摘要", "timestamp": 100});
        for (suffix, why) in [
            (vec![late.clone()], "an id the prefix used"),
            (vec![compaction.clone()], "a compaction"),
        ] {
            let mut s = h[4..].to_vec();
            s.extend(suffix);
            let err = pass(&s, prefix.clone(), &p).unwrap_err();
            assert_eq!((err.why, err.earlier.is_none()), (why, true));
        }
        check(&[h.clone(), vec![late], turn(2, true)], &p);
        check(&[h, vec![compaction], turn(2, true), turn(3, false)], &p);
    }
}
