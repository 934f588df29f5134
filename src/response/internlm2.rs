//! InternLM2 / 2.5 calls (reference §17):
//! `<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>`.
//! The arguments key is `parameters` (`arguments` is read too). The model writes one call per
//! message, but several blocks are all read. SGLang's opener has a space (`<|action_start|> <|plugin|>`);
//! any whitespace there is accepted. Unlike newer vLLM, names that are not in `tools` are kept
//! (the caller decides what to run). Bodies are read by [`super::json_calls`].

use super::json_calls::{Body, Close, Tagged};

pub const SPEC: Tagged = Tagged {
    name: "internlm2",
    opens: &[
        "<|action_start|><|plugin|>",
        "<|action_start|> <|plugin|>",
        "<|action_start|>\n<|plugin|>",
    ],
    body: Body::Object,
    close: Close::Required("<|action_end|>"),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn call_with_text_around_and_parameters_key() {
        let t = "Let me check.<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京 & <Osaka>\", \"days\": 3}}<|action_end|>\nOne moment.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("internlm2"));
        assert_eq!(c.content, "Let me check.\nOne moment.");
        assert_eq!(
            named(&c),
            [("get_weather", json!({"city": "東京 & <Osaka>", "days": 3}))]
        );
    }

    #[test]
    fn spaced_opener_parallel_and_truncated() {
        let t = "<|action_start|> <|plugin|>{\"name\": \"a\", \"parameters\": {}}<|action_end|><|action_start|><|plugin|>{\"name\": \"b\", \"parameters\": {\"x\": [1,";
        let c = run(t, None, None, None);
        assert_eq!(named(&c), [("a", json!({}))]);
        assert_eq!(c.content, "", "the unreadable block is removed too");
        assert!(!c.problems.is_empty());
    }
}
