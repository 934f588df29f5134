//! Phi-4-mini calls (reference §18): `functools[{"name": …, "arguments": {…}}, …]`, where
//! `functools` is one vocabulary token written right before the JSON array. `auto` detects
//! `functools[` followed by `{`, a sequence that ordinary prose and Python code do not contain.
//! vLLM drops the reply's text when calls are present; it is kept here. The array is read by
//! [`super::json_calls`], so nested objects and brackets inside strings are fine (vLLM's regex
//! has trouble with nested objects).

use super::json_calls::{Body, Close, Tagged};

pub const SPEC: Tagged = Tagged {
    name: "phi4_mini",
    opens: &["functools"],
    body: Body::Array,
    close: Close::None,
    glued: true,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn nested_parallel_calls_with_text_around() {
        let t = "I'll check.functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Tokyo\", \"opts\": {\"units\": [\"c\", \"arr[0]\"]}}}, \
                 {\"name\": \"note\", \"arguments\": {\"text\": \"x < y & 東京\\n\"}}] Back soon.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("phi4_mini"));
        assert_eq!(c.content, "I'll check. Back soon.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"city": "Tokyo", "opts": {"units": ["c", "arr[0]"]}})
                ),
                ("note", json!({"text": "x < y & 東京\n"}))
            ]
        );
    }

    #[test]
    fn prose_about_functools_is_not_a_call_and_truncation_is_removed() {
        let t = "Use functools [lru_cache] or functools.partial.";
        let c = run(t, None, None, None);
        assert_eq!((c.content.as_str(), c.format), (t, None));
        let t = "functools[{\"name\": \"f\", \"arguments\": {\"a\": ";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 1);
    }
}
