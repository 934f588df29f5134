//! Granite-20B-FunctionCalling (reference §19): each call is `<function_call> {json}` on its own
//! line, with no closing tag. `auto` detects `<function_call>` followed by `{`. Bodies are read by
//! [`super::json_calls`]; text between and after the calls is kept.

use super::json_calls::{Body, Close, Tagged};

pub const SPEC: Tagged = Tagged {
    name: "granite_20b_fc",
    opens: &["<function_call>"],
    body: Body::Object,
    close: Close::None,
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn repeated_calls_on_new_lines() {
        let t = "Looking up both.\n<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n\
                 <function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"<Zürich> & \\\"Bern\\\"\"}}";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("granite_20b_fc"));
        assert_eq!(c.content, "Looking up both.");
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"city": "Paris"})),
                ("get_weather", json!({"city": "<Zürich> & \"Bern\""}))
            ]
        );
    }

    #[test]
    fn truncated_and_prose() {
        let t = "<function_call> {\"name\": \"f\", \"arguments\": {\"x\": ";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert!(!c.problems.is_empty());
        let p = "The <function_call> tag marks a call.";
        assert_eq!(run(p, None, None, None).content, p);
    }
}
