//! NVIDIA Nemotron Nano v2 calls. Its chat template (`NVIDIA-Nemotron-Nano-v2`, as llama.cpp
//! keeps it in `models/templates`) asks for, and renders, a JSON list between tags:
//!
//! ```text
//! <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>
//! ```
//!
//! Reasoning is `<think>…</think>`, and the template ends the prompt with `<think>\n` unless
//! `/no_think` is set, so replies start inside reasoning (see [`super::thinking::r1_hint`]).
//! `<TOOLCALL>` followed by `[` is taken in `auto`; bodies are read by [`super::json_calls`].

use super::json_calls::{Body, Close, Tagged};

pub const OPEN: &str = "<TOOLCALL>";

pub const SPEC: Tagged = Tagged {
    name: "nemotron_v2",
    opens: &[OPEN],
    body: Body::Array,
    close: Close::Required("</TOOLCALL>"),
    glued: false,
};

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn list_after_reasoning() {
        let t = "用户想知道天气。\n</think>\n\n<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"上海\"}}]</TOOLCALL>";
        let c = run(t, None, Some("nvidia/NVIDIA-Nemotron-Nano-9B-v2"), None);
        assert_eq!(c.format, Some("nemotron_v2"));
        assert_eq!(c.reasoning, "用户想知道天气。");
        assert_eq!(c.content, "");
        assert_eq!(named(&c), [("get_weather", json!({"city": "上海"}))]);
    }

    #[test]
    fn grows_linearly_on_unclosed_lists() {
        super::super::linearity::assert_linear(
            "nemotron_v2",
            "<TOOLCALL>[{\"name\": \"f\", ",
            &|t| {
                run(t, Some("nemotron_v2"), None, None);
            },
        );
    }

    #[test]
    fn model_ids() {
        use super::super::Family;
        assert_eq!(
            Family::from_model("nvidia/Llama-3_3-Nemotron-Super-49B-v1_5"),
            Some(Family::NemotronV2)
        );
        assert_eq!(
            Family::from_model("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF"),
            Some(Family::Llama3Json)
        );
    }
}
