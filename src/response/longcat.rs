//! LongCat-Flash (Meituan) calls (reference §16): Hermes' grammar with its own tag,
//! `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`, one block per call,
//! separated by line breaks. The tag is unambiguous, so `auto` detects it. Bodies are read by
//! [`super::json_calls`] (truncated and malformed calls as for Hermes).

use super::json_calls::{Body, Close, Tagged};

pub const SPEC: Tagged = Tagged {
    name: "longcat",
    opens: &["<longcat_tool_call>"],
    body: Body::Object,
    close: Close::Required("</longcat_tool_call>"),
    glued: false,
};

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
