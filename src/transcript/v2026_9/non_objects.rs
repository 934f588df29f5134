//! Entries that are not messages leave the history (OpenClaw 2026.9.6's `sanitizeToolCallInputs`
//! skips every falsy or non-object entry).
//!
//! A `null`, a number or a string in a transcript is the trace of a broken write; 2026.3.23 passed
//! it on, and the provider SDK then failed on it. Arrays and other objects are kept: JS counts them
//! as objects, so 2026.9.6 does too.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{Content, Msg, Val};

/// A falsy or non-object entry (an array counts as an object, as in JS).
pub fn not_an_object(m: &Msg) -> bool {
    !m.is_object && !matches!(m.content, Content::Other(Val::Array | Val::Object))
}

/// Removes the entries that are not objects.
pub fn drop_non_objects(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    if !msgs.iter().any(not_an_object) {
        return false;
    }
    for m in msgs.iter().filter(|m| not_an_object(m)) {
        ctx.change("sanitizeToolCallInputs", msg_path(m), || {
            "dropped an entry that is not a message object".into()
        });
    }
    msgs.retain(|m| !not_an_object(m));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    #[test]
    fn null_numbers_and_strings_go_arrays_and_messages_stay() {
        let input = json!([null, {"role": "user", "content": "问"}, 3, "text", [1], false]);
        let (out, _) = run(&input, |m, c| {
            drop_non_objects(m, c);
        });
        assert_eq!(out, vec![input[1].clone(), input[4].clone()]);
        let clean = json!([{"role": "user", "content": "q"}]);
        assert!(
            run(&clean, |m, c| {
                drop_non_objects(m, c);
            })
            .1
        );
    }
}
