//! LongCat-Flash (Meituan) calls (reference §16): Hermes' grammar with its own tag,
//! `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`, one block per call,
//! separated by line breaks. The tag is unambiguous, so `auto` detects it. Bodies are read by
//! [`super::json_calls`] (truncated and malformed calls as for Hermes).
//!
//! LongCat's API also writes GLM-4.7's grammar with `longcat_` prefixed tags
//! (`<longcat_tool_call>NAME <longcat_arg_key>K</longcat_arg_key>
//! <longcat_arg_value>V</longcat_arg_value> </longcat_tool_call>`, picoclaw issue 2046): those
//! blocks are read by [`super::glm45`]'s reader with the tag names of [`TAGS`]. Prose that names
//! the tag has no name and key tag after it, and stays text.

use super::glm45::{self, Tags};
use super::json_calls::{parse_tagged, Body, Close, Tagged};
use super::{Ctx, Parsed};

pub const SPEC: Tagged = Tagged {
    name: "longcat",
    opens: &["<longcat_tool_call>"],
    body: Body::Object,
    close: Close::Required("</longcat_tool_call>"),
    glued: false,
};

/// The GLM-style spelling's tags.
pub const TAGS: Tags = Tags {
    open: "<longcat_tool_call>",
    close: "</longcat_tool_call>",
    key: "<longcat_arg_key>",
    key_end: "</longcat_arg_key>",
    value: "<longcat_arg_value>",
    value_end: "</longcat_arg_value>",
    formats: ("longcat", "longcat"),
    label: "longcat",
};

/// Both spellings: a body that opens with `{` is the JSON form, a name the GLM form.
pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &SPEC, cx.tools);
    let glm = glm45::parse_with(text, cx, &TAGS);
    if glm.blocks.is_empty() {
        return out;
    }
    out.format = out.format.or(glm.format);
    out.blocks.extend(glm.blocks);
    out.blocks.sort_by_key(|b| b.start);
    out.problems.extend(glm.problems);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn parallel_calls_with_text_around() {
        let t = "我来查。\n<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京 <&>\"}}</longcat_tool_call>\n\
                 <longcat_tool_call>{\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\\n\"}}</longcat_tool_call>\n稍等。";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("longcat"));
        assert_eq!(c.content, "我来查。\n稍等。");
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"city": "北京 <&>"})),
                ("get_time", json!({"tz": "UTC\n"}))
            ]
        );
    }

    #[test]
    fn glm_spelling_with_json_blocks() {
        let t = "查天气。<longcat_tool_call>weather <longcat_arg_key>location</longcat_arg_key> <longcat_arg_value>北京</longcat_arg_value> </longcat_tool_call>\n\
                 <longcat_tool_call>{\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\"}}</longcat_tool_call>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("longcat"));
        assert_eq!(c.content, "查天气。");
        assert_eq!(
            named(&c),
            [
                ("weather", json!({"location": "北京"})),
                ("get_time", json!({"tz": "UTC"}))
            ]
        );
    }

    #[test]
    fn truncated_and_malformed() {
        let c = run(
            "x<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
            None,
            None,
            None,
        );
        assert_eq!(named(&c), [("f", json!({"a": 1}))]);
        assert_eq!((c.content.as_str(), c.problems.len()), ("x", 1));
        let c = run(
            "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {a: 1}}</longcat_tool_call>",
            None,
            None,
            None,
        );
        assert_eq!(c.tool_calls[0].arguments(), "{a: 1}");
        assert_eq!(c.problems.len(), 1);
        let c = run("<longcat_tool_call>{\"na", None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
    }
}
