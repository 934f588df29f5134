//! Step-3 (StepFun) calls (reference §13), written with U+FF5C `｜` and a plain ASCII `_`:
//!
//! ```text
//! <｜tool_calls_begin｜>
//! <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search">
//! <steptml:parameter name="query">rust programming</steptml:parameter>
//! </steptml:invoke><｜tool_call_end｜>
//! <｜tool_calls_end｜>
//! ```
//!
//! Values are typed by the tools' schema (vLLM's rules) or inferred without one (smg's), see
//! [`super::typing`]. A value ends only at `</steptml:parameter>`, so `a < b && b > c` is kept
//! (vLLM 0.14 loses it). `name=""` is rejected. A call wrapper without its section, or a bare
//! `<steptml:invoke>`, is read too. Text before and after is kept (as vLLM's step3 does).
//! Reasoning: only `</think>` is written (R1 style, [`super::thinking`]).

use super::typing::Style;
use super::xml_invoke::{as_written, blocks, typed_invokes, Tags, Wrappers};
use super::{Ctx, Parsed};

const NAME: &str = "step3";
const TAGS: Tags = Tags {
    invoke: "<steptml:invoke",
    invoke_end: "</steptml:invoke>",
    param: "<steptml:parameter",
    param_end: "</steptml:parameter>",
};
const WRAPPERS: Wrappers = Wrappers {
    section: Some(("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")),
    call: Some(("<｜tool_call_begin｜>", "<｜tool_call_end｜>")),
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = blocks(
        text,
        &WRAPPERS,
        &TAGS,
        NAME,
        &mut out.problems,
        |body, pr| {
            let style = Style::Schema { minimax: false };
            typed_invokes(body, &TAGS, NAME, cx, style, as_written, pr)
        },
    );
    out.set_format_if_calls(NAME);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn section_with_parallel_typed_calls_and_text_around() {
        let tools = json!([{"type": "function", "function": {"name": "search", "parameters": {"properties": {
            "query": {"type": "string"}, "limit": {"type": "integer"}}}}}]);
        let t = "I should search.\n</think>\nSearching now.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">\n\
                 <steptml:parameter name=\"query\">a < b && b > c 北京</steptml:parameter>\n<steptml:parameter name=\"limit\">10</steptml:parameter>\n\
                 </steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">\
                 <steptml:parameter name=\"query\">line1\nline2</steptml:parameter><steptml:parameter name=\"limit\">0010</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n\
                 <｜tool_calls_end｜>\nResults follow.";
        let c = run(t, None, Some("stepfun-ai/step3"), Some(tools));
        assert_eq!(c.format, Some("step3"));
        assert_eq!(c.reasoning, "I should search.");
        assert_eq!(c.content, "Searching now.\nResults follow.");
        assert_eq!(
            named(&c),
            [
                (
                    "search",
                    json!({"query": "a < b && b > c 北京", "limit": 10})
                ),
                ("search", json!({"query": "line1\nline2", "limit": 10}))
            ]
        );
        let u = run(t, None, None, None);
        assert_eq!(
            named(&u)[1].1["limit"],
            json!("0010"),
            "untyped: not a JSON number"
        );
    }

    #[test]
    fn empty_name_truncation_and_bare_invoke() {
        let t = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        let t = "Ok<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"x\">cut";
        let c = run(t, None, None, None);
        // Cut off inside its only value: no call.
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "Ok");
        assert!(c.problems.len() >= 2);
        let c = run(
            "<steptml:invoke name=\"g\"><steptml:parameter name=\"y\">1</steptml:parameter></steptml:invoke> after",
            Some("step3"),
            None,
            None,
        );
        assert_eq!(named(&c), [("g", json!({"y": 1}))]);
        assert_eq!(c.content, "after");
    }
}
