//! Hermes / Qwen2.5 / Qwen3 (non-coder) / QwQ: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
//! (reference §1). The JSON is read with a streaming JSON reader, so a `</tool_call>` inside a
//! string value does not end the call, and a call cut off by `max_tokens` is recognised.
//!
//! Bad input: a missing `</tool_call>` after a complete JSON object still gives the call (reported);
//! invalid JSON with a readable `"name"` gives the call with its raw arguments text (reported);
//! anything else leaves the raw block in `content` (reported), as vLLM's hermes does.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::scan::{find_from, Finder, TOOL_CALL, TOOL_CALL_END};
use super::{args_value_to_text, Block, Ctx, Parsed, RawCall};

const NAME: &str = "hermes";

static NAME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""name"\s*:\s*"((?:[^"\\]|\\.)*)""#).expect("static regex"));
static ARGS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""(?:arguments|parameters)"\s*:\s*"#).expect("static regex"));

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut closes = Finder::new(TOOL_CALL_END);
    let mut at = 0;
    while let Some(start) = find_from(text, TOOL_CALL, at) {
        let body_at = start + TOOL_CALL.len();
        let body = &text[body_at..];
        let lead = body.len() - body.trim_start().len();
        if !body[lead..].starts_with('{') {
            at = body_at;
            continue;
        }
        let json_at = body_at + lead;
        let close = closes.find(text, json_at);
        let block = read_block(text, start, json_at, close, &mut out.problems);
        at = block.end.max(body_at);
        if !block.calls.is_empty() && out.format.is_none() {
            out.format = Some(NAME);
        }
        out.blocks.push(block);
    }
    out
}

fn read_block(
    text: &str,
    start: usize,
    json_at: usize,
    close: Option<usize>,
    problems: &mut Vec<String>,
) -> Block {
    let mut stream = serde_json::Deserializer::from_str(&text[json_at..]).into_iter::<Value>();
    let parsed = stream.next();
    let json_end = json_at + stream.byte_offset();
    match parsed {
        Some(Ok(v)) => {
            let after = &text[json_end..];
            let ws = after.len() - after.trim_start().len();
            let end = if after[ws..].starts_with(TOOL_CALL_END) {
                json_end + ws + TOOL_CALL_END.len()
            } else if let Some(c) = close {
                problems.push(format!(
                    "{NAME}: text after the JSON object inside <tool_call> dropped"
                ));
                c + TOOL_CALL_END.len()
            } else {
                problems.push(format!("{NAME}: </tool_call> missing (truncated reply)"));
                text.len()
            };
            match call_from_value(v, problems) {
                Some(call) => Block {
                    start,
                    end,
                    calls: vec![call],
                    keep_raw: false,
                },
                None => raw_block(start, end),
            }
        }
        _ => {
            let end = close.map_or(text.len(), |c| c + TOOL_CALL_END.len());
            let body_end = close.unwrap_or(text.len());
            match recover(&text[json_at..body_end]) {
                Some(call) if close.is_some() => {
                    problems.push(format!(
                        "{NAME}: call {:?} has invalid JSON; arguments kept as the raw text",
                        call.name
                    ));
                    Block {
                        start,
                        end,
                        calls: vec![call],
                        keep_raw: false,
                    }
                }
                _ => {
                    problems.push(format!(
                        "{NAME}: <tool_call> holds no readable call; raw text kept in content"
                    ));
                    raw_block(start, end)
                }
            }
        }
    }
}

fn raw_block(start: usize, end: usize) -> Block {
    Block {
        start,
        end,
        calls: Vec::new(),
        keep_raw: true,
    }
}

/// `{"name": str, "arguments"|"parameters": object}` → a call.
fn call_from_value(v: Value, problems: &mut Vec<String>) -> Option<RawCall> {
    let Value::Object(mut obj) = v else {
        problems.push(format!("{NAME}: <tool_call> JSON is not an object"));
        return None;
    };
    let Some(Value::String(name)) = obj.remove("name") else {
        problems.push(format!("{NAME}: <tool_call> JSON has no string \"name\""));
        return None;
    };
    let args = obj
        .remove("arguments")
        .or_else(|| obj.remove("parameters"))
        .unwrap_or(Value::Null);
    Some(RawCall {
        arguments: args_value_to_text(args, NAME, problems),
        name,
        id: None,
    })
}

/// Best effort on invalid JSON: the `"name"` string and the raw text after `"arguments":`.
fn recover(body: &str) -> Option<RawCall> {
    let name_caps = NAME_RE.captures(body)?;
    let name = serde_json::from_str::<String>(&format!("\"{}\"", &name_caps[1])).ok()?;
    let arguments = match ARGS_RE.find(body) {
        Some(m) => {
            let rest = body[m.end()..].trim_end();
            rest.strip_suffix('}').unwrap_or(rest).trim_end().to_owned()
        }
        None => "{}".to_owned(),
    };
    Some(RawCall {
        name,
        arguments,
        id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(text: &str) -> (Vec<(String, String)>, Vec<Block>, Vec<String>) {
        let p = parse(text, &Ctx::default());
        let c = p
            .blocks
            .iter()
            .flat_map(|b| {
                b.calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
            })
            .collect();
        (c, p.blocks, p.problems)
    }

    #[test]
    fn closing_tag_inside_a_string_does_not_end_the_call() {
        let t =
            r#"<tool_call>{"name": "echo", "arguments": {"s": "</tool_call> & <b>"}}</tool_call>"#;
        let (c, b, p) = calls(t);
        assert_eq!(c, [("echo".into(), r#"{"s":"</tool_call> & <b>"}"#.into())]);
        assert_eq!(b[0].end, t.len());
        assert!(p.is_empty());
    }

    #[test]
    fn invalid_json_with_a_name_keeps_raw_arguments() {
        let t = r#"<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>"#;
        let (c, _, p) = calls(t);
        assert_eq!(c, [("f".into(), r#"{"a": 1,}"#.into())]);
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn arguments_given_as_a_json_string_are_unwrapped() {
        let t = r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"}</tool_call>"#;
        assert_eq!(calls(t).0, [("f".into(), r#"{"a":1}"#.into())]);
    }

    #[test]
    fn parameters_key_and_missing_arguments() {
        let t = r#"<tool_call>{"name": "f", "parameters": {"q": "x"}}</tool_call><tool_call>{"name": "g"}</tool_call>"#;
        assert_eq!(
            calls(t).0,
            [
                ("f".into(), r#"{"q":"x"}"#.into()),
                ("g".into(), "{}".into())
            ]
        );
    }
}
