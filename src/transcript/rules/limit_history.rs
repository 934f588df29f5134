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

use crate::transcript::context::{Ctx, Path};
use crate::transcript::model::Msg;

/// Keeps the last `limit` user turns and everything after the earliest of them.
pub fn limit_history_turns(msgs: &mut Vec<Msg>, ctx: &mut Ctx, limit: Option<f64>) -> bool {
    let Some(limit) = limit else {
        return false;
    };
    // `!limit || limit <= 0` in JS; NaN fails `> 0` too.
    if limit.is_nan() || limit <= 0.0 || msgs.is_empty() {
        return false;
    }
    let mut users = 0usize;
    let mut start = msgs.len();
    for i in (0..msgs.len()).rev() {
        if !msgs[i].is_role("user") {
            continue;
        }
        users += 1;
        if users as f64 > limit {
            ctx.change("limitHistoryTurns", Path::Whole, || {
                format!("kept the last {limit} user turns; dropped the first {start} messages")
            });
            msgs.drain(..start);
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
