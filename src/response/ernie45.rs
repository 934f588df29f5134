//! ERNIE-4.5 (Baidu) calls (reference §15): Hermes' `<tool_call>\n{json}\n</tool_call>`, one
//! block per call. The thinking model writes only `</think>` (R1 style, split off by
//! [`super::thinking`]), and the answer may be wrapped in `<response>…</response>`, whose tags are
//! removed here (their text is kept). The block grammar is Hermes', so `auto` reports `hermes`
//! unless `options.model` names ERNIE (or `format` is `ernie45`).

use super::hermes;
use super::json_calls::{parse_tagged, Tagged};
use super::{Ctx, Parsed};

const SPEC: Tagged = Tagged {
    name: "ernie45",
    ..hermes::SPEC
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &SPEC, cx.tools);
    out.strip_markup(text, &["<response>", "</response>"]);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn r1_reasoning_response_wrapper_and_calls() {
        let t = "The user wants weather; example <tool_call>{\"name\": \"x\"}</tool_call>\n</think>\n\n<response>\n我来查询。\n</response>\n\
                 <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"北京 & <海淀>\"}}\n</tool_call>\n\
                 <tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
        let c = run(t, None, Some("baidu/ERNIE-4.5-21B-A3B-Thinking"), None);
        assert_eq!(c.format, Some("ernie45"));
        assert!(c.reasoning.starts_with("The user wants weather"));
        assert_eq!(c.content, "我来查询。");
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"location": "北京 & <海淀>"})),
                ("get_time", json!({}))
            ]
        );
        assert_eq!(run(t, None, None, None).format, Some("hermes"));
    }

    #[test]
    fn forced_format_and_truncation() {
        let t = "<response>Sure</response><tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}";
        let c = run(t, Some("ernie45"), None, None);
        assert_eq!(named(&c), [("f", json!({"a": 1}))]);
        assert_eq!(c.content, "Sure");
        assert_eq!(c.problems.len(), 1);
    }
}
