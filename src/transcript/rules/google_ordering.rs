//! Google turn ordering (OpenClaw `sanitizeGoogleTurnOrdering`, §4.8).
//!
//! Gemini (and Cloud Code Assist) reject a history whose first turn is a model turn, which is
//! what compaction or a history limit can leave behind. When the first message has role
//! `assistant`, a tiny synthetic user turn `{role: "user", content: "(session bootstrap)",
//! timestamp}` is prepended so the rest of the transcript can still be used. Anything else
//! (a user first, a bootstrap already present, a history starting with a `toolResult`) is left
//! as it is. The policy applies it for Google APIs and strict OpenAI-compatible providers
//! (`applyGoogleTurnOrdering`); the session marker `applyGoogleTurnOrderingFix` writes for Google
//! APIs is the caller's business, not this rule's.
//!
//! Deliberate difference from OpenClaw: the bootstrap's `timestamp` is not `Date.now()`. It is
//! copied from the first message that has a numeric timestamp (normally the assistant it
//! precedes), or `0` when none has one, so the same input always gives the same output.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{Msg, Val};
use serde_json::json;

/// The text of the synthetic first user turn.
pub const BOOTSTRAP_TEXT: &str = "(session bootstrap)";

/// The message whose timestamp the bootstrap turn copies: the first with a finite one.
pub fn stamped(msgs: &[Msg]) -> Option<&Msg> {
    msgs.iter()
        .find(|m| m.is_object && matches!(m.timestamp, Val::Num(n) if n.is_finite()))
}

/// Prepends the bootstrap user turn when the transcript starts with an assistant.
pub fn sanitize_google_turn_ordering(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    if !msgs.first().is_some_and(|m| m.is_assistant()) {
        return false;
    }
    let mut boot = Msg::new(
        vec![
            ("role", json!("user")),
            ("content", json!(BOOTSTRAP_TEXT)),
            ("timestamp", json!(0)),
        ],
        None,
    );
    if let Some(src) = stamped(msgs) {
        boot.copy_field_from("timestamp", src);
    }
    ctx.change("sanitizeGoogleTurnOrdering", msg_path(&boot), || {
        "history started with an assistant turn; prepended a bootstrap user turn".into()
    });
    msgs.insert(0, boot);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::Value;

    fn order(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            sanitize_google_turn_ordering(m, c);
        })
    }

    #[test]
    fn prepends_a_bootstrap_before_an_assistant_first_history() {
        let input = json!([
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "n", "arguments": {}}],
             "timestamp": 1700},
            {"role": "user", "content": "next", "timestamp": 1800}
        ]);
        let (out, identity) = order(&input);
        assert!(!identity);
        assert_eq!(
            out[0],
            json!({"role": "user", "content": "(session bootstrap)", "timestamp": 1700})
        );
        assert_eq!(
            &out[1..],
            input.as_array().map(|a| a.as_slice()).unwrap_or(&[])
        );
    }

    #[test]
    fn timestamp_falls_back_to_a_later_message_then_zero() {
        let input = json!([
            {"role": "assistant", "content": []},
            {"role": "user", "content": "x", "timestamp": 42}
        ]);
        let (out, _) = order(&input);
        assert_eq!(out[0]["timestamp"], json!(42));
        let (out, _) = order(&json!([{"role": "assistant", "content": []}]));
        assert_eq!(out[0]["timestamp"], json!(0));
    }

    #[test]
    fn runs_once() {
        let input = json!([{"role": "assistant", "content": [], "timestamp": 3}]);
        let (first, _) = order(&input);
        let (second, identity) = order(&Value::Array(first.clone()));
        assert!(identity);
        assert_eq!(second, first);
    }

    #[test]
    fn no_op_when_the_first_message_is_a_user_or_a_tool_result() {
        for input in [
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": []}]),
            json!([{"role": "toolResult", "toolCallId": "c", "content": []}]),
            json!([]),
            json!([null, {"role": "assistant", "content": []}]),
        ] {
            let (out, identity) = order(&input);
            assert!(identity);
            assert_eq!(Value::Array(out), input);
        }
    }
}
