//! Hermes / Qwen2.5 / Qwen3 (non-coder) / QwQ: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
//! (reference §1). The body is read by [`super::json_calls`], so a `</tool_call>` inside a string
//! value does not end the call, and a call cut off by `max_tokens` is recognised.
//!
//! Bad input: a missing `</tool_call>` after a complete JSON object still gives the call (reported);
//! invalid JSON with a readable `"name"` gives the call with its raw arguments text (reported),
//! except braces written twice (`{{"name": …}}}`), which give the one call they plainly hold or
//! none (reported; `json_calls::doubled_braces`);
//! anything else leaves the raw block in `content` (reported), as vLLM's hermes does. Several
//! objects in one block (one per line) are several calls.

use super::json_calls::{Body, Close, Tagged};
use super::scan::{TOOL_CALL, TOOL_CALL_END};

/// The Hermes block grammar; ERNIE-4.5 and Granite-4 write the same (see their files).
pub const SPEC: Tagged = Tagged {
    name: "hermes",
    opens: &[TOOL_CALL],
    body: Body::Object,
    close: Close::Required(TOOL_CALL_END),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::json_calls::parse_tagged;
    use super::*;

    fn calls(text: &str) -> (Vec<(String, String)>, Vec<super::super::Block>, Vec<String>) {
        let p = parse_tagged(text, &SPEC, None);
        (p.call_pairs(), p.blocks, p.problems)
    }

    #[test]
    fn closing_tag_inside_a_string_does_not_end_the_call() {
        let t =
            r#"<tool_call>{"name": "echo", "arguments": {"s": "</tool_call> & <b>"}}</tool_call>"#;
        let (c, b, p) = calls(t);
        assert_eq!(c, [("echo".into(), r#"{"s":"</tool_call> & <b>"}"#.into())]);
        assert_eq!(b[0].end, t.len());
        assert!(p.is_empty());
    }

    #[test]
    fn invalid_json_with_a_name_keeps_raw_arguments() {
        let t = r#"<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>"#;
        let (c, _, p) = calls(t);
        assert_eq!(c, [("f".into(), r#"{"a": 1,}"#.into())]);
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn arguments_given_as_a_json_string_are_unwrapped() {
        let t = r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"}</tool_call>"#;
        assert_eq!(calls(t).0, [("f".into(), r#"{"a":1}"#.into())]);
    }

    #[test]
    fn parameters_key_and_missing_arguments() {
        let t = r#"<tool_call>{"name": "f", "parameters": {"q": "x"}}</tool_call><tool_call>{"name": "g"}</tool_call>"#;
        assert_eq!(
            calls(t).0,
            [
                ("f".into(), r#"{"q":"x"}"#.into()),
                ("g".into(), "{}".into())
            ]
        );
    }
}
