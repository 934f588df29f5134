//! The incremental `sanitizeSessionHistory`: an agent's history only grows between two calls, so
//! a pass that remembers where the previous one could be cut re-runs only what follows the cut.
//!
//! A *cut* at input index `c` splits the history into a prefix `M[..c]` and a suffix `M[c..]`
//! such that the full pass's output is the prefix's output followed by the suffix's output run as
//! a transcript of its own ("continued"), whatever is appended later. Each rule whose effect
//! crosses messages is either neutralised at a cut or checked after the suffix ran:
//!
//! - **Pairing** (a turn runs from an assistant with calls to the next assistant; a late result
//!   is moved up to its call): a cut lies only where no such turn is open — at an assistant, or
//!   after an assistant each of whose calls has had its result — as the messages stand when
//!   pairing runs. (A later result for a call before the cut is met by the id check below, so the
//!   rule only keeps the common case, the result of an open call arriving next turn, from
//!   falling back.)
//! - **Ids** (the tool-call id allocator dedupes across the transcript; pairing drops a result
//!   whose id was answered anywhere before): every id the allocator looked up or handed out and
//!   every call and result id pairing saw is remembered for the prefix; a suffix that meets one of
//!   them takes the full pass.
//! - **Errored turns' results** (kept or dropped depending on whether anything *else* changed in
//!   the whole transcript): never cut after one; a suffix holding one takes the full pass.
//! - **Compaction** (usage recorded before the latest `compactionSummary` is zeroed, by position
//!   and by timestamp): the prefix's latest compaction timestamp is carried into the suffix; a
//!   suffix holding a compaction reaches back and takes the full pass.
//! - **Google turn ordering** (looks at the first message): runs on the prefix only; the prefix
//!   must hold the message the bootstrap copies its timestamp from.
//! - **Warnings** (a count over the whole history) are summed.
//!
//! Everything else is per message. A continued run either proves its cut or answers "fall back",
//! and the caller then runs the full pass: the result is always the full pass's.

use super::context::Ctx;
use super::model::{Msg, Text};
use super::pipeline::{HistoryOutput, HistoryParams};
use foldhash::HashSet;

/// What the pass concluded about the prefix before its cut, kept between calls.
#[derive(Clone, Debug, Default)]
pub struct Prefix {
    /// The cut: input messages `..cut` are the prefix.
    pub cut: usize,
    /// Output messages `..out` are the prefix's output.
    pub out: usize,
    pub(crate) ids: HashSet<Text>,
    /// The latest compaction summary's timestamp, if the prefix has one.
    pub(crate) compaction: Option<Option<f64>>,
    /// 2026.9.6: the latest compaction time the signature rule reads, if the prefix has one.
    pub(crate) signed_before: Option<f64>,
    /// 2026.9.6: the latest model switch the prefix's Responses reasoning was judged against.
    pub(crate) switch: Option<f64>,
    /// 2026.9.6: the cut lies inside a tool loop — looking back from it, an assistant comes
    /// before any user turn (the suffix holds no current tool turn that begins before it).
    pub(crate) in_loop: bool,
    /// 2026.9.6: the prefix holds the current tool turn, whose reasoning `dropReasoningFromHistory`
    /// keeps only until a user turn comes (a continued run holding one falls back).
    pub(crate) holds_current: bool,
    /// 2026.9.6: while the prefix holds the current tool turn, the session's cut from before it
    /// took that turn. The user turn that ends the turn changes the turn's output, which lies
    /// after that cut: the session continues from there ([`Prefix::into_earlier`]) instead of
    /// taking the full pass.
    pub(crate) earlier: Option<Box<Earlier>>,
    malformed_count: usize,
    malformed_kinds: Vec<&'static str>,
    /// Whether Google's bootstrap turn was prepended.
    pub prepended: bool,
}

/// An earlier cut of a session ([`Prefix`]'s `earlier`): the prefix as it was then, without its
/// ids, and the ids the prefix has taken since (its ids then are the prefix's now without these).
#[derive(Clone, Debug)]
pub(crate) struct Earlier {
    pub(crate) prefix: Prefix,
    pub(crate) added: Vec<Text>,
}

impl Prefix {
    /// The memory this prefix holds, roughly (bytes), for the README's per-session figure.
    pub fn heap_bytes(&self) -> usize {
        let long = |id: &Text| match id {
            Text::Heap(s) => s.len(),
            _ => 0,
        };
        self.ids.capacity() * (std::mem::size_of::<Text>() + 8)
            + self.ids.iter().map(long).sum::<usize>()
            + self.earlier.as_ref().map_or(0, |e| {
                e.added.capacity() * std::mem::size_of::<Text>()
                    + e.added.iter().map(long).sum::<usize>()
            })
    }

    /// This prefix as an [`Earlier`] cut to come back to: a copy without the ids (they stay
    /// here; the ones added later are listed as they come).
    pub(crate) fn keep_earlier(&mut self) -> Earlier {
        let ids = std::mem::take(&mut self.ids);
        let prefix = self.clone();
        self.ids = ids;
        Earlier {
            prefix,
            added: Vec::new(),
        }
    }

    /// The session's earlier cut, whole again (its ids: this prefix's, less those added since).
    pub(crate) fn into_earlier(mut self) -> Option<Prefix> {
        let e = self.earlier.take()?;
        let Earlier { mut prefix, added } = *e;
        for id in &added {
            self.ids.remove(id);
        }
        prefix.ids = self.ids;
        Some(prefix)
    }
}

/// One message as pairing sees it: its input index, whether it is an assistant, and its ids in
/// `Tracker::ids` (`ids..ids + n`: an assistant's call ids, a tool result's id).
#[derive(Clone, Copy)]
struct Staged {
    src: usize,
    assistant: bool,
    result: bool,
    ids: usize,
    n: usize,
}

/// What a pass records while it runs, to choose its cut and check a continued run.
#[derive(Default)]
pub struct Tracker {
    /// Continuing from this prefix (the messages given are the suffix), or a full pass.
    pub prior: Option<Prefix>,
    staged: Vec<Staged>,
    ids: Vec<(usize, Text)>,
    compactions: Vec<(usize, Option<f64>)>,
    /// An errored turn's results were met.
    pub held: bool,
    malformed: Vec<(usize, &'static str)>,
    prepended: bool,
    /// When the bootstrap was prepended: the message it copied its timestamp from
    /// (`usize::MAX`: none).
    stamped: Option<usize>,
}

impl Tracker {
    pub fn new(prior: Option<Prefix>) -> Tracker {
        Tracker {
            prior,
            ..Tracker::default()
        }
    }

    pub fn continuing(&self) -> bool {
        self.prior.is_some()
    }

    /// The warning's count and kinds over the whole history: the prefix's, then this run's.
    pub fn malformed(&mut self, msgs: &[Msg]) -> (usize, Vec<&'static str>) {
        for m in msgs {
            if let (Some(k), Some(i)) =
                (super::rules::canonicalize::malformed_kind(m), m.src_index())
            {
                self.malformed.push((i, k));
            }
        }
        let (mut count, mut kinds) = self
            .prior
            .as_ref()
            .map(|p| (p.malformed_count, p.malformed_kinds.clone()))
            .unwrap_or_default();
        for (_, k) in &self.malformed {
            count += 1;
            if !kinds.contains(k) {
                kinds.push(k);
            }
        }
        (count, kinds)
    }

    /// Ids the allocator traced (moved out of `ctx`).
    pub fn take_id_trace(&mut self, ctx: &mut Ctx) {
        if let Some(t) = ctx.id_trace.take() {
            self.ids.extend(t);
        }
    }

    /// The messages as pairing is about to see them.
    pub fn before_pairing(&mut self, msgs: &[Msg]) {
        for m in msgs {
            let Some(src) = m.src_index() else { continue };
            let assistant = m.is_assistant();
            let ids = self.ids.len();
            if assistant {
                for b in m.blocks().into_iter().flatten() {
                    if b.is_tool_call() {
                        if let Some(id) = b.call_id() {
                            self.ids.push((src, Text::new(id)));
                        }
                    }
                }
            } else if let Some(id) = m.result_id() {
                self.ids.push((src, Text::new(id)));
            }
            self.staged.push(Staged {
                src,
                assistant,
                result: m.is_tool_result(),
                ids,
                n: self.ids.len() - ids,
            });
        }
    }

    /// The compaction summaries, as the usage rule is about to see them; the prefix's latest
    /// compaction for a continued run.
    pub fn before_usage(&mut self, msgs: &[Msg]) -> Option<Option<f64>> {
        for m in msgs.iter().filter(|m| m.is_role("compactionSummary")) {
            let ts = super::rules::usage_snapshots::compaction_time(m);
            self.compactions
                .push((m.src_index().unwrap_or(usize::MAX), ts));
        }
        self.prior.as_ref().and_then(|p| p.compaction)
    }

    /// Google's bootstrap: `prepended` now, `stamped` the message its timestamp came from.
    pub fn bootstrap(&mut self, prepended: bool, stamped: Option<usize>) {
        self.prepended = prepended;
        if prepended {
            self.stamped = Some(stamped.unwrap_or(usize::MAX));
        }
    }

    /// Whether Google's bootstrap was prepended (by the prefix, for a continued run).
    pub fn prepended(&self) -> bool {
        self.prior.as_ref().is_some_and(|p| p.prepended)
    }

    /// After the pass: the prefix to remember (`Ok(None)`: nothing can be reused), or `Err` when
    /// a continued run cannot be proven equal to the full pass.
    pub fn conclude(self, out: &[Msg], input_len: usize) -> Result<Option<Prefix>, Fallback> {
        if let Some(p) = &self.prior {
            if self.held {
                return Err(Fallback::full("an errored turn's results"));
            }
            if !self.compactions.is_empty() {
                return Err(Fallback::full("a compaction"));
            }
            if self.ids.iter().any(|(_, id)| p.ids.contains(id)) {
                return Err(Fallback::full("an id the prefix used"));
            }
        }
        let Some((c, t)) = self.best_cut(out, input_len) else {
            return Ok(self.prior);
        };
        let mut next = self.prior.unwrap_or_default();
        next.cut += c;
        next.out += t;
        next.ids
            .extend(self.ids.into_iter().filter(|(i, _)| *i < c).map(|(_, s)| s));
        if let Some((_, ts)) = self.compactions.iter().rev().find(|(i, _)| *i < c) {
            next.compaction = Some(*ts);
        }
        for (_, k) in self.malformed.iter().filter(|(i, _)| *i < c) {
            next.malformed_count += 1;
            if !next.malformed_kinds.contains(k) {
                next.malformed_kinds.push(k);
            }
        }
        next.prepended |= self.prepended;
        Ok(Some(next))
    }

    /// The last cut `c` (relative to this run's input, `1..=input_len`) and the output position
    /// `t` it maps to, or `None`.
    fn best_cut(&self, out: &[Msg], input_len: usize) -> Option<(usize, usize)> {
        if self.held {
            return None;
        }
        let fresh = self.prior.is_none();
        // The cut must leave the bootstrap's timestamp source in the prefix.
        let min_cut = match (fresh, self.stamped) {
            (true, Some(usize::MAX)) => return None,
            (true, Some(s)) => s + 1,
            _ => 1,
        };
        // Pairing: `open[c]`, whether the last assistant before `c` has a call no tool result
        // before `c` answered, and `next[c]`, whether the first staged message from `c` on is an
        // assistant.
        let n = input_len;
        let mut open = vec![false; n + 1];
        let mut k = 0;
        // The unanswered call ids of the last assistant.
        let mut pending: Vec<&str> = Vec::new();
        for (c, slot) in open.iter_mut().enumerate() {
            while k < self.staged.len() && self.staged[k].src < c {
                let s = self.staged[k];
                let ids = self.ids[s.ids..s.ids + s.n]
                    .iter()
                    .map(|(_, id)| id.as_str());
                if s.assistant {
                    pending.clear();
                    pending.extend(ids);
                } else if s.result {
                    for id in ids {
                        pending.retain(|p| *p != id);
                    }
                }
                k += 1;
            }
            *slot = !pending.is_empty();
        }
        let mut next = vec![false; n + 1];
        let mut k = self.staged.len();
        for c in (0..=n).rev() {
            while k > 0 && self.staged[k - 1].src >= c {
                k -= 1;
            }
            next[c] = self.staged.get(k).is_some_and(|s| s.assistant);
        }
        // Output order: `min_from[p]`, the least input index at or after output position `p`;
        // `max_before[p]`, the greatest before it (new messages count for neither).
        let srcs: Vec<Option<usize>> = out.iter().map(Msg::src_index).collect();
        let mut min_from = vec![usize::MAX; srcs.len() + 1];
        for p in (0..srcs.len()).rev() {
            min_from[p] = min_from[p + 1].min(srcs[p].unwrap_or(usize::MAX));
        }
        let mut max_before: Vec<Option<usize>> = vec![None; srcs.len() + 1];
        for p in 0..srcs.len() {
            max_before[p + 1] = max_before[p].max(srcs[p]);
        }
        let mut t = srcs.len();
        for c in (min_cut..=n).rev() {
            while t > 0 && min_from[t - 1] >= c {
                t -= 1;
            }
            let separated = max_before[t].is_none_or(|m| m < c);
            let nonempty = !fresh || max_before[t].is_some();
            if separated && nonempty && (!open[c] || next[c]) {
                // New messages right after the prefix's last (synthetic results) are its own.
                let mut end = t;
                while end < srcs.len() && srcs[end].is_none() {
                    end += 1;
                }
                return Some((c, end));
            }
        }
        None
    }
}

/// Why a continued run was refused, and the session's earlier cut to continue from instead of
/// the full pass, when it has one (2026.9.6: [`Prefix`]'s `earlier`).
#[derive(Debug)]
pub struct Fallback {
    pub why: &'static str,
    pub earlier: Option<Box<Prefix>>,
}

impl Fallback {
    /// Refused: the caller runs the full pass.
    pub(crate) fn full(why: &'static str) -> Fallback {
        Fallback { why, earlier: None }
    }
}

/// One tracked pass: `msgs` is the whole history (`prior` None) or the suffix after `prior.cut`.
/// Returns the pass's output and the prefix to remember, or `Err` when the caller must run the
/// full pass instead.
pub fn sanitize_tracked(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
    prior: Option<Prefix>,
) -> Result<(HistoryOutput, Option<Prefix>), Fallback> {
    if crate::openclaw::resolve(p.version) != crate::openclaw::OpenClawVersion::V2026_3_23 {
        // OpenClaw 2026.9.6's pass: its own cuts and conditions.
        return super::v2026_9::incremental::sanitize_tracked(msgs, ctx, p, prior);
    }
    let input_len = msgs.len();
    let mut track = Tracker::new(prior);
    let out = super::pipeline::run(msgs, ctx, p, Some(&mut track));
    let prefix = track.conclude(msgs, input_len)?;
    Ok((out, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::{check_incremental, tracked_pass};
    use serde_json::{json, Value};

    fn params() -> HistoryParams {
        HistoryParams {
            provider: Some("anthropic".into()),
            model_api: Some("anthropic-messages".into()),
            model_id: Some("claude-sonnet-4-5".into()),
            // 2026.3.23's pass (2026.9.6's cuts are in `v2026_9::incremental`).
            version: Some(crate::openclaw::OpenClawVersion::V2026_3_23),
            ..HistoryParams::default()
        }
    }

    /// The output of a pass over `input` (a JSON array), with the prefix it concluded.
    fn pass(
        input: &[Value],
        prior: Option<Prefix>,
    ) -> Result<(Vec<Value>, Option<Prefix>), Fallback> {
        tracked_pass(input, prior, &params())
    }

    fn user(t: &str) -> Value {
        json!({"role": "user", "content": t, "timestamp": 1})
    }
    fn call(id: &str) -> Value {
        json!({"role": "assistant", "stopReason": "toolUse", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {}}]})
    }
    fn text() -> Value {
        json!({"role": "assistant", "stopReason": "stop", "timestamp": 2, "content": [{"type": "text", "text": "好的"}],
               "usage": {"input": 5, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 8}})
    }
    fn result(id: &str) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": "r"}]})
    }

    /// Runs `history` (in steps: each step appends) incrementally and checks every step against
    /// the full pass.
    fn check(steps: &[Vec<Value>]) {
        check_incremental(steps, &params());
    }

    #[test]
    fn a_late_result_is_moved_up_to_its_call() {
        check(&[
            vec![user("读文件"), call("a1"), user("还在吗")],
            vec![result("a1"), text()],
        ]);
    }

    #[test]
    fn a_result_answering_an_old_call_falls_back() {
        let h = vec![user("q"), call("a1"), result("a1"), text()];
        let (_, prefix) = pass(&h, None).unwrap();
        let p = prefix.expect("a cut after the closing text");
        assert_eq!(p.cut, 4);
        let err = pass(&[result("a1")], Some(p)).unwrap_err();
        assert_eq!(err.why, "an id the prefix used");
        check(&[h, vec![result("a1"), user("x")]]);
    }

    #[test]
    fn a_new_compaction_reaches_back() {
        let compaction = json!({"role": "compactionSummary", "summary": "s", "timestamp": 5});
        check(&[
            vec![user("q"), call("a1"), result("a1"), text()],
            vec![compaction, user("q2"), text()],
            vec![user("q3"), text()],
        ]);
    }

    #[test]
    fn no_cut_inside_an_open_turn() {
        let h = vec![user("q"), call("a1"), user("more")];
        let (_, prefix) = pass(&h, None).unwrap();
        // The last assistant has a call with no result yet: the cut is at it, not after the
        // user turn (its result, appended next, is moved up before that turn).
        assert_eq!(prefix.map(|p| p.cut), Some(1));
        check(&[h, vec![result("a1"), text()]]);
    }

    #[test]
    fn a_turn_whose_calls_all_have_results_is_cut_after() {
        let mut two = call("a1");
        two["content"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "toolCall", "id": "a2", "name": "read", "arguments": {}}));
        let h = vec![user("q"), two.clone(), result("a1"), user("more")];
        let (_, prefix) = pass(&h, None).unwrap();
        assert_eq!(prefix.map(|p| p.cut), Some(1), "a2 is still unanswered");
        let h = vec![user("q"), two, result("a2"), user("更多"), result("a1")];
        let (_, prefix) = pass(&h, None).unwrap();
        assert_eq!(prefix.map(|p| p.cut), Some(5));
        // More of the same turn: user turns stay after the results; a second result for a1 is
        // a duplicate (the id check falls back to the full pass).
        check(&[h.clone(), vec![user("还有")], vec![text()]]);
        check(&[h, vec![result("a1"), user("x")], vec![text()]]);
    }

    #[test]
    fn an_errored_turn_with_results_is_never_cut_after() {
        let mut aborted = call("b1");
        aborted["stopReason"] = json!("aborted");
        let h = vec![user("q"), aborted, result("b1"), user("again"), text()];
        let (_, prefix) = pass(&h, None).unwrap();
        assert!(
            prefix.is_none(),
            "whether its result stays depends on the whole history"
        );
        check(&[h, vec![user("q2"), call("c1")], vec![result("c1"), text()]]);
    }

    #[test]
    fn colliding_ids_give_the_full_pass() {
        // 'x:1' and 'x1' are one id once sanitised: the second gets another.
        check(&[
            vec![user("q"), call("x:1"), result("x:1"), text()],
            vec![user("q2"), call("x1"), result("x1"), text()],
        ]);
    }
}
