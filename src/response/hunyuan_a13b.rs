//! Hunyuan-A13B (Tencent) calls (reference §14): a JSON array in `<tool_calls>…</tool_calls>`,
//! `<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>`.
//!
//! The reply is `<think>…</think>` then `<answer>…</answer>`, with the call inside `<answer>`.
//! The reasoning is split off first ([`super::thinking`]); here the `<answer>` and `</answer>` tags
//! are removed as markup and their text is kept. Where vLLM strips the text after the call
//! ("content after tool call (should be stripped)"), it is kept here, like all text around calls.
//! `<tool_calls>[` is detected in `auto`; Jamba writes the same ([`super::jamba`], chosen when the
//! model names Jamba). Bodies are read by [`super::json_calls`].

use super::json_calls::{parse_tagged, Body, Close, Tagged};
use super::{Ctx, Parsed};

/// The `<tool_calls>[…]</tool_calls>` grammar under a format name.
pub const fn spec(name: &'static str) -> Tagged {
    Tagged {
        name,
        opens: &["<tool_calls>"],
        body: Body::Array,
        close: Close::Required("</tool_calls>"),
        glued: false,
    }
}

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &spec("hunyuan_a13b"), cx.tools);
    out.strip_markup(text, &["<answer>", "</answer>"]);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn answer_wrapper_reasoning_and_parallel_calls() {
        let t = "<think>\n用户要天气\n</think>\n<answer>\n好的。\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Boston\"}}, \
                 {\"name\": \"get_weather\", \"arguments\": {\"city\": \"深圳 <&>\"}}]</tool_calls>\n</answer>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("hunyuan_a13b"));
        assert_eq!(c.reasoning, "用户要天气");
        assert_eq!(c.content, "好的。");
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"city": "Boston"})),
                ("get_weather", json!({"city": "深圳 <&>"}))
            ]
        );
    }

    #[test]
    fn answer_tags_go_with_the_model_hint_and_truncation_is_reported() {
        let c = run(
            "<answer>\nHi there\n</answer>",
            None,
            Some("tencent/Hunyuan-A13B-Instruct"),
            None,
        );
        assert_eq!(c.content, "Hi there");
        let c = run("<answer>Hi</answer>", None, None, None);
        assert_eq!(
            c.content, "<answer>Hi</answer>",
            "plain auto leaves unknown tags alone"
        );
        let t = "<tool_calls>[{\"name\": \"f\", \"arguments\": {}}, {\"name\": \"g\", \"argum";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 1);
    }
}
