//! MiniMax-M1 calls (reference §5): `<tool_calls>` then one `{"name": …, "arguments": {…}}` object
//! per line, then `</tool_calls>`.
//!
//! `<tool_calls>` is also Hunyuan's and Jamba's tag; what follows tells them apart: a `{` is M1,
//! a `[` (a JSON array) is [`super::hunyuan_a13b`] / [`super::jamba`]. Unlike vLLM's line-based
//! reader, the objects are read as a JSON sequence, so pretty-printed multi-line objects work too;
//! as in vLLM, a block written inside `<think>` is never a call (reasoning is split off first).
//! Text before and after the block is kept (vLLM keeps only the stripped prefix). Bodies are read by
//! [`super::json_calls`]; a missing `</tool_calls>` (truncated reply) is reported.

use super::json_calls::{Body, Close, Tagged};

pub const SPEC: Tagged = Tagged {
    name: "minimax_m1",
    opens: &["<tool_calls>"],
    body: Body::Object,
    close: Close::Required("</tool_calls>"),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn parallel_lines_text_around_and_reasoning() {
        let t = "<think>Example: <tool_calls>\n{\"name\": \"x\", \"arguments\": {}}\n</tool_calls></think>\nChecking.\n<tool_calls>\n\
                 {\"name\": \"get_current_weather\", \"arguments\": {\"city\": \"Dallas\", \"note\": \"a < b & c\\nd\"}}\n\
                 {\"name\": \"get_current_weather\", \"arguments\": {\n  \"city\": \"北京\"\n}}\n</tool_calls>\nDone.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("minimax_m1"));
        assert_eq!(c.content, "Checking.\nDone.");
        assert!(c.reasoning.contains("<tool_calls>"));
        assert_eq!(
            named(&c),
            [
                (
                    "get_current_weather",
                    json!({"city": "Dallas", "note": "a < b & c\nd"})
                ),
                ("get_current_weather", json!({"city": "北京"}))
            ]
        );
    }

    #[test]
    fn truncated_block_keeps_complete_calls() {
        let t =
            "<tool_calls>\n{\"name\": \"a\", \"arguments\": {\"n\": 1}}\n{\"name\": \"b\", \"argu";
        let c = run(t, None, None, None);
        assert_eq!(named(&c), [("a", json!({"n": 1}))]);
        assert!(c.problems.iter().any(|p| p.contains("truncated")));
        assert!(c.content.contains("{\"name\": \"b\""), "{}", c.content);
    }
}
