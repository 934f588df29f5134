//! Llama-4 pythonic calls (`llama4_pythonic`, reference §10): a Python list of calls wrapped in
//! `<|python_start|>[get_weather(city="London")]<|python_end|>`; the wrapper is sometimes left
//! out. Pythonic text looks like ordinary code, so this family is read only when `options.format`
//! is `llama4_pythonic` or `options.model` names a Llama-4 model. Wrapped lists are read (and
//! reported when they do not read); bare lists anywhere in the text are read as in
//! [`super::pythonic`], keeping the prose around them (SGLang and smg; vLLM wants the whole
//! reply to be the list). Stray `<|eom|>`/`<|eot|>` turn ends are removed.

use super::pythonic::{add_bare, wrapped};
use super::{Ctx, Parsed};

const NAME: &str = "llama4_pythonic";
/// Llama 4's end-of-message and end-of-turn tokens, removed where they stand outside code.
pub const TURN_ENDS: &[&str] = &["<|eom|>", "<|eot|>"];

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = wrapped(
        text,
        "<|python_start|>",
        "<|python_end|>",
        NAME,
        &mut out.problems,
    );
    add_bare(text, &mut out);
    super::turn_end::strip(&mut out, text, TURN_ENDS);
    out.set_format_if_calls(NAME);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn wrapped_and_bare_lists_with_prose() {
        let t = "I'll run the calculations.\n\n<|python_start|>[calc(expr=\"2 < 3 & 4\", precise=True), lookup(term='北京\\n')]<|python_end|>\n\n\
                 These functions will provide the information you need.";
        let c = run(
            t,
            None,
            Some("meta-llama/Llama-4-Scout-17B-16E-Instruct"),
            None,
        );
        assert_eq!(c.format, Some("llama4_pythonic"));
        assert_eq!(
            c.content,
            "I'll run the calculations.\n\nThese functions will provide the information you need."
        );
        assert_eq!(
            named(&c),
            [
                ("calc", json!({"expr": "2 < 3 & 4", "precise": true})),
                ("lookup", json!({"term": "北京\n"}))
            ]
        );
        let c = run(
            "[get_time(tz=None)]<|eot|>",
            Some("llama4_pythonic"),
            None,
            None,
        );
        assert_eq!(named(&c), [("get_time", json!({"tz": null}))]);
        assert_eq!(c.content, "");
        assert!(run("[get_time(tz=None)]", None, None, None)
            .tool_calls
            .is_empty());
    }

    #[test]
    fn truncated_wrapped_list_is_removed_and_reported() {
        let t = "<|python_start|>[f(a=\"x\"), g(b=[1, 2";
        let c = run(t, Some("llama4_pythonic"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 2);
    }
}
