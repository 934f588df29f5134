//! Apertus (Swiss AI) calls. The format (`swiss-ai/apertus_format`, docs/format.md, and the
//! model's chat template) writes the calls of a turn as one JSON list between special tokens, each
//! call an object whose only key is the function's name:
//!
//! ```text
//! <|inner_prefix|>I need to calculate this.<|inner_suffix|><|tools_prefix|>[{"calculator": {"expr": "2+2"}}]<|tools_suffix|>
//! ```
//!
//! `<|inner_prefix|>…<|inner_suffix|>` is reasoning ([`super::thinking`]). The tokens are special,
//! so `auto` detects the form. A list item written the usual way (`{"name": …, "arguments": …}`)
//! is read too. A missing `<|tools_suffix|>` (truncated reply) is reported; a list with nothing
//! readable stays in `content` (reported).

use serde_json::Value;

use super::json_calls::{call_from_value, read_value};
use super::scan::Finder;
use super::{args_value_to_text, Block, Ctx, Parsed, RawCall};

const NAME: &str = "apertus";
pub const OPEN: &str = "<|tools_prefix|>";
pub const CLOSE: &str = "<|tools_suffix|>";

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Finder::new(OPEN);
    let mut closes = Finder::new(CLOSE);
    let mut at = 0;
    while let Some(start) = opens.find(text, at) {
        let body_at = start + OPEN.len();
        let next_open = opens.find(text, body_at);
        let close = closes
            .find(text, body_at)
            .filter(|&c| next_open.is_none_or(|n| c < n));
        let json_at = body_at + (text[body_at..].len() - text[body_at..].trim_start().len());
        let mut calls = Vec::new();
        let read_end = match read_value(text, json_at) {
            Some((v, end)) => {
                calls = calls_of(v, &mut out.problems);
                end
            }
            None => json_at,
        };
        let end = match close {
            Some(c) => {
                if text[read_end..c].trim().is_empty() {
                    c + CLOSE.len()
                } else {
                    if !calls.is_empty() {
                        out.problems.push(format!(
                            "{NAME}: text after the JSON and before {CLOSE} dropped"
                        ));
                    }
                    c + CLOSE.len()
                }
            }
            None => {
                out.problems
                    .push(format!("{NAME}: {CLOSE} missing (truncated reply)"));
                if calls.is_empty() {
                    next_open.unwrap_or(text.len())
                } else {
                    read_end
                }
            }
        };
        out.blocks.push(Block::of_calls(
            start,
            end,
            calls,
            &mut out.problems,
            || format!("{NAME}: call list holds no readable call; raw text kept in content"),
        ));
        at = end.max(body_at);
    }
    out.set_format_if_calls(NAME);
    out
}

/// The calls of the list (or of one object): `{"NAME": {args}}`, or the usual call shape.
fn calls_of(v: Value, problems: &mut Vec<String>) -> Vec<RawCall> {
    let items = match v {
        Value::Array(items) => items,
        other => vec![other],
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::Object(obj) if obj.len() == 1 && !obj.contains_key("name") => {
                if let Some((name, args)) = obj.into_iter().next() {
                    out.push(RawCall {
                        arguments: args_value_to_text(args, NAME, problems),
                        name,
                        id: None,
                    });
                }
            }
            other => out.extend(call_from_value(other, NAME, None, problems)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn short_form_list_with_reasoning() {
        let t = "<|inner_prefix|>需要计算。<|inner_suffix|><|tools_prefix|>[{\"calculator\": {\"expr\": \"2+2\"}}, {\"get_weather\": {\"city\": \"Zürich\"}}]<|tools_suffix|>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("apertus"));
        assert_eq!(c.reasoning, "需要计算。");
        assert_eq!(c.content, "");
        assert_eq!(
            named(&c),
            [
                ("calculator", json!({"expr": "2+2"})),
                ("get_weather", json!({"city": "Zürich"}))
            ]
        );
    }

    #[test]
    fn grows_linearly_on_unclosed_lists() {
        for unit in [
            "<|tools_prefix|>[{\"f\": {",
            "<|inner_prefix|><|tools_prefix|>",
        ] {
            super::super::linearity::assert_linear("apertus", unit, &|t| {
                run(t, Some("apertus"), None, None);
            });
        }
    }
}
