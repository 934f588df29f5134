//! IBM Granite calls (reference §19): Granite 3.0 writes `<|tool_call|>[{…}]`, Granite 3.1 and
//! later `<tool_call>[{…}]` with no closing tag, Granite 4 Hermes' `<tool_call>{…}</tool_call>`.
//! Objects may put `"arguments"` before `"name"`. All three are read here; a `</tool_call>` right
//! after the JSON is consumed. `auto` detects `<|tool_call|>` and `<tool_call>[`; `<tool_call>{` is
//! reported as Granite when `options.model` names Granite, else as Hermes.
//!
//! Granite 3.2+ reasoning is prose (`Here is my thought process:` … `Here is my response:`), so
//! [`super::thinking`] reads it only when the model or format names Granite.

use super::json_calls::{Body, Close, Tagged};
use super::scan::TOOL_CALL;

pub const SPEC: Tagged = Tagged {
    name: "granite",
    opens: &["<|tool_call|>", TOOL_CALL],
    body: Body::Either,
    close: Close::Optional("</tool_call>"),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn list_forms_detected_in_auto() {
        let t = "Sure.<|tool_call|>[{\"arguments\": {\"q\": \"a < b & 北京\"}, \"name\": \"search\"}, {\"name\": \"now\", \"arguments\": {}}]";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("granite"));
        assert_eq!(c.content, "Sure.");
        assert_eq!(
            named(&c),
            [("search", json!({"q": "a < b & 北京"})), ("now", json!({}))]
        );
        let t = "<tool_call>[{\"name\": \"f\", \"arguments\": {\"n\": 1}}]\nAfter.";
        let c = run(t, None, None, None);
        assert_eq!((c.format, c.content.as_str()), (Some("granite"), "After."));
    }

    #[test]
    fn granite4_hermes_form_and_prose_reasoning_with_the_model_hint() {
        let t = "Here is my thought process:\nI need the weather <tool_call>{\"name\": \"x\"}</tool_call>.\n\
                 Here is my response:\nChecking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
        let c = run(t, None, Some("ibm-granite/granite-3.3-8b-instruct"), None);
        assert_eq!(c.format, Some("granite"));
        assert_eq!(
            c.reasoning,
            "I need the weather <tool_call>{\"name\": \"x\"}</tool_call>."
        );
        assert_eq!(c.content, "Checking.");
        assert_eq!(named(&c), [("get_weather", json!({"city": "Paris"}))]);
        // Without the hint the prose is just text and the call is Hermes'.
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("hermes"));
        assert!(c.content.starts_with("Here is my thought process:"));
    }

    #[test]
    fn malformed_list_is_recovered_per_call() {
        let t = "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": 'x'}}]";
        let c = run(t, None, None, None);
        assert_eq!(c.tool_calls[0].arguments(), "{\"a\": 'x'}");
        assert!(!c.problems.is_empty());
    }
}
