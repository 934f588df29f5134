//! GigaChat (Sber) calls, in three forms:
//!
//! - GigaChat3 (reference §21): `function call<|role_sep|>\n{"name": …, "arguments": {…}}`.
//!   `<|role_sep|>` is a special token and the words before it are fixed, so `auto` detects the
//!   form. There is no closing marker: the block ends with the JSON, and text after it is kept.
//!   Bodies are read by [`super::json_calls`].
//! - GigaChat 3.1: `{text}<|function_call|>{"name": …, "arguments": {…}}`, one call, the special
//!   token in place of the role header (as vLLM's, SGLang's and llama.cpp's GigaChat 3.1 parsers
//!   describe it: vllm-project/vllm#36664, sgl-project/sglang#19886, ggml-org/llama.cpp#19931;
//!   the chat template itself was not found in the corpora searched). Read like the first form;
//!   `auto` detects the token when a `{` follows it.
//! - GigaChat 3.5's "chatml v5" template (llama.cpp `models/templates/GigaChat3.5.jinja`) renders
//!   calls in GCML, DSML's grammar under its own word: `<｜GCML｜tool_calls>` around
//!   `<｜GCML｜invoke name="f">` and `<｜GCML｜parameter name="k" string="true|false">`, a string
//!   value as written and any other value as JSON. The full-width-bar tags are special tokens,
//!   detected in `auto`. Its reasoning is `<think>…</think>`, opened in the prompt only when the
//!   caller asks for reasoning.

use serde_json::{Map, Value};

use super::json_calls::{parse_tagged, Body, Close, Tagged};
use super::typing::{param_schema, type_value, Style};
use super::xml_invoke::{blocks, invokes, Tags, Wrappers};
use super::{Ctx, Parsed, RawCall};

const SPEC: Tagged = Tagged {
    name: "gigachat3",
    opens: &["function call<|role_sep|>", FUNCTION_CALL],
    body: Body::Object,
    close: Close::None,
    glued: false,
};

/// GigaChat 3.1's call token.
pub const FUNCTION_CALL: &str = "<|function_call|>";
pub const GCML_OPEN: &str = "<｜GCML｜tool_calls>";
const GCML_TAGS: Tags = Tags {
    invoke: "<｜GCML｜invoke",
    invoke_end: "</｜GCML｜invoke>",
    param: "<｜GCML｜parameter",
    param_end: "</｜GCML｜parameter>",
};
const GCML_WRAPPERS: Wrappers = Wrappers {
    section: Some((GCML_OPEN, "</｜GCML｜tool_calls>")),
    call: None,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &SPEC, cx.tools);
    if text.contains("GCML") {
        let name = SPEC.name;
        let gcml = blocks(
            text,
            &GCML_WRAPPERS,
            &GCML_TAGS,
            name,
            &mut out.problems,
            |body, pr| {
                invokes(body, &GCML_TAGS, name, pr)
                    .into_iter()
                    .map(|inv| {
                        let mut args = Map::new();
                        for p in &inv.params {
                            let v = if p.string() == Some("true") {
                                Value::String(p.value.to_owned())
                            } else {
                                serde_json::from_str(p.value).unwrap_or_else(|_| {
                                    let schema = param_schema(cx.tools, inv.name, p.name);
                                    type_value(p.value, schema, Style::Schema { minimax: false })
                                })
                            };
                            args.insert(p.name.to_owned(), v);
                        }
                        RawCall {
                            name: inv.name.to_owned(),
                            arguments: Value::Object(args).to_string(),
                            id: None,
                        }
                    })
                    .collect()
            },
        );
        out.blocks.extend(gcml);
        out.set_format_if_calls(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn call_with_text_around() {
        let t = "Сейчас проверю.\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Москва\", \"q\": \"a<b & c\"}}\nГотово.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("gigachat3"));
        assert_eq!(c.content, "Сейчас проверю.\nГотово.");
        assert_eq!(
            named(&c),
            [("get_weather", json!({"city": "Москва", "q": "a<b & c"}))]
        );
    }

    #[test]
    fn malformed_and_truncated() {
        let c = run(
            "function call<|role_sep|>{\"name\": \"f\", \"arguments\": {\"a\": tru}}",
            None,
            None,
            None,
        );
        assert_eq!(c.tool_calls[0].arguments(), "{\"a\": tru}");
        assert_eq!(c.problems.len(), 1);
        let t = "function call<|role_sep|>{\"name\": \"f\", \"argu";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 1);
    }

    #[test]
    fn gcml_grows_linearly_on_unclosed_tags() {
        super::super::linearity::assert_linear(
            "gigachat3",
            "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">",
            &|t| {
                run(t, None, None, None);
            },
        );
    }
}
