//! History limit (OpenClaw `limitHistoryTurns`, §3.2).
//!
//! Long-running DM sessions cost tokens on every call, so OpenClaw's runner keeps only the last N
//! user turns with what followed them. N comes from the channel config (`dmHistoryLimit`,
//! `dms[userId].historyLimit`, `historyLimit`) keyed by the session key; that lookup stays with
//! the caller. The runner applies this after turn validation and re-runs the tool-result pairing
//! repair afterwards, because cutting can orphan results. Provider-independent.
//!
//! A missing, zero, negative or NaN limit, or an empty transcript, leaves everything as it is.
//! Otherwise the output is the suffix that starts at the N-th `user` message counted from the end
//! (a fractional N behaves like its floor, as in JS, so `0.5` keeps nothing). Messages are
//! dropped, never edited.
//! Unlike OpenClaw, which throws on a `null` entry, non-object entries simply count as non-user.
//!
//! OpenClaw 2026.9.6 changed two things, taken here as data of the release: the leading messages
//! before the first user or assistant turn (compaction and branch summaries) are always kept, and
//! the cut has hysteresis so the prompt prefix stays cacheable: nothing is cut until the user
//! turns exceed ⌈1.5·N⌉, and then whole batches go at once (N plus the remainder of the turns
//! over N in batches of ⌈1.5·N⌉−N+1 are kept).

use crate::openclaw::OpenClawVersion;
use crate::transcript::context::{Ctx, Path};
use crate::transcript::model::Msg;

/// Keeps the last `limit` user turns and everything after the earliest of them.
pub fn limit_history_turns(msgs: &mut Vec<Msg>, ctx: &mut Ctx, limit: Option<f64>) -> bool {
    limit_history_turns_as(msgs, ctx, limit, OpenClawVersion::V2026_3_23)
}

/// [`limit_history_turns`] as `version` of OpenClaw cuts (see the module doc).
pub fn limit_history_turns_as(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    limit: Option<f64>,
    version: OpenClawVersion,
) -> bool {
    let Some(limit) = limit else {
        return false;
    };
    // `!limit || limit <= 0` in JS; NaN fails `> 0` too.
    if limit.is_nan() || limit <= 0.0 || msgs.is_empty() {
        return false;
    }
    let is_user = |m: &Msg| m.is_user();
    // Where the conversation starts (what comes before stays), and how many user turns to keep.
    let (first, keep) = if version.at_least(OpenClawVersion::V2026_9_6) {
        let first = msgs
            .iter()
            .position(|m| is_user(m) || m.is_assistant())
            .unwrap_or(msgs.len());
        let users = msgs[first..].iter().filter(|m| is_user(m)).count() as f64;
        let target = limit.floor();
        let most = (target * 1.5).ceil();
        if users <= most {
            return false;
        }
        (first, target + (users - target) % (most - target + 1.0))
    } else {
        (0, limit)
    };
    let mut users = 0usize;
    let mut start = msgs.len();
    for i in (first..msgs.len()).rev() {
        if !is_user(&msgs[i]) {
            continue;
        }
        users += 1;
        if users as f64 > keep {
            ctx.change("limitHistoryTurns", Path::Whole, || {
                format!(
                    "kept the last {keep} user turns; dropped messages {first} to {}",
                    start - 1
                )
            });
            msgs.drain(first..start);
            return true;
        }
        start = i;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn limit(input: &Value, n: Option<f64>) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            limit_history_turns(m, c, n);
        })
    }

    fn convo() -> Value {
        json!([
            {"role": "user", "content": "u1"},
            {"role": "assistant", "content": [{"type": "text", "text": "a1"}]},
            {"role": "user", "content": "u2"},
            {"role": "assistant", "content": [{"type": "text", "text": "a2"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a2b"}]},
            {"role": "user", "content": "u3"},
            {"role": "assistant", "content": [{"type": "text", "text": "a3"}]}
        ])
    }

    fn tail(v: &Value, from: usize) -> Vec<Value> {
        v.as_array().map(|a| a[from..].to_vec()).unwrap_or_default()
    }

    #[test]
    fn missing_zero_negative_and_nan_limits_leave_it_unchanged() {
        for n in [None, Some(0.0), Some(-2.0), Some(f64::NAN)] {
            let (out, identity) = limit(&convo(), n);
            assert!(identity);
            assert_eq!(Value::Array(out), convo());
        }
    }

    #[test]
    fn empty_transcript_is_unchanged() {
        let (out, identity) = limit(&json!([]), Some(3.0));
        assert!(identity && out.is_empty());
    }

    #[test]
    fn fewer_user_turns_than_the_limit() {
        let (_, identity) = limit(&convo(), Some(3.0));
        assert!(identity);
        let (_, identity) = limit(&convo(), Some(10.0));
        assert!(identity);
    }

    #[test]
    fn keeps_the_last_n_user_turns() {
        let (out, identity) = limit(&convo(), Some(2.0));
        assert!(!identity);
        assert_eq!(out, tail(&convo(), 2));
    }

    #[test]
    fn limit_one_keeps_the_last_turn() {
        let (out, _) = limit(&convo(), Some(1.0));
        assert_eq!(out, tail(&convo(), 5));
    }

    #[test]
    fn several_assistants_per_user_turn_stay_with_it() {
        let (out, _) = limit(&convo(), Some(2.0));
        let roles: Vec<_> = out.iter().map(|m| m["role"].clone()).collect();
        assert_eq!(
            roles,
            vec![
                json!("user"),
                json!("assistant"),
                json!("assistant"),
                json!("user"),
                json!("assistant")
            ]
        );
    }

    #[test]
    fn kept_messages_are_not_modified() {
        let (out, _) = limit(&convo(), Some(1.0));
        assert_eq!(out[0], json!({"role": "user", "content": "u3"}));
        assert_eq!(out[1], convo()[6]);
    }

    fn users(n: usize) -> Value {
        let mut out = vec![json!({"role": "compactionSummary", "summary": "s"})];
        for i in 0..n {
            out.push(json!({"role": "user", "content": format!("u{i}")}));
            out.push(json!({"role": "assistant", "content": [{"type": "text", "text": "a"}]}));
        }
        Value::Array(out)
    }

    #[test]
    fn in_2026_9_leading_summaries_stay_and_the_cut_has_hysteresis() {
        let cut = |n: usize, l: f64| {
            run(&users(n), |m, c| {
                limit_history_turns_as(m, c, Some(l), OpenClawVersion::V2026_9_6);
            })
            .0
        };
        // Limit 4: nothing is cut up to ⌈1.5·4⌉ = 6 user turns.
        assert_eq!(
            cut(6, 4.0),
            users(6).as_array().cloned().unwrap_or_default()
        );
        // 7 turns: batches of 3, so 4 + (7−4) % 3 = 4 are kept, after the summary.
        let out = cut(7, 4.0);
        assert_eq!(out.len(), 1 + 2 * 4);
        assert_eq!(out[0]["role"], json!("compactionSummary"));
        assert_eq!(out[1]["content"], json!("u3"));
        // 8 turns keep 5, 9 keep 6, 10 keep 4 again.
        assert_eq!(cut(8, 4.0).len(), 1 + 2 * 5);
        assert_eq!(cut(9, 4.0).len(), 1 + 2 * 6);
        assert_eq!(cut(10, 4.0).len(), 1 + 2 * 4);
        // 2026.3.23 cuts at once and drops the summary with the rest.
        let (old, _) = limit(&users(7), Some(4.0));
        assert_eq!(old.len(), 2 * 4);
        assert_eq!(old[0]["content"], json!("u3"));
    }

    #[test]
    fn fractional_limits_round_down() {
        let input = json!([
            {"role": "system", "content": "s"},
            null,
            {"role": "user", "content": "u1"},
            {"role": "user", "content": "u2"}
        ]);
        // As many user turns as the limit: the leading non-user messages stay too.
        let (_, identity) = limit(&input, Some(2.0));
        assert!(identity);
        let (out, _) = limit(&input, Some(1.5));
        assert_eq!(out, tail(&input, 3));
        let (out, _) = limit(&input, Some(0.5));
        assert!(out.is_empty());
    }
}
