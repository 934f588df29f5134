//! MeetKai Functionary calls, from its two Llama-3-based chat templates (as llama.cpp keeps them in
//! `models/templates/meetkai-functionary-medium-v3.{1,2}.jinja`):
//!
//! - **v3.1** (`functionary_v31`) renders a call as `<function=NAME>{json}</function>`, the python
//!   tool as `<|python_tag|>` followed by the raw code, and ends a turn with calls by `<|eom_id|>`.
//!   The code becomes `{"code": …}` (or the JSON object it is, when it is one).
//! - **v3.2** (`functionary_v32`) writes every message after `>>>` and its recipient on a line of
//!   its own: `>>>all\n` before text for the user, `>>>NAME\n{json}` for a call. The generation
//!   prompt ends with `>>>`, so a reply starts with `all\n…` or `NAME\n{json}` directly.
//!
//! Both are plain text (`<function=` is ordinary text in Llama's vocabulary; `>>>` and a name are
//! words), and Meta's own documentation quotes the v3.1 form, so they are read only when `format`
//! or `model` names Functionary. A v3.2 call needs its `>>>` at the start of a line (or the reply's
//! start), a name alone on that line and a complete JSON object after it (`python` may take raw
//! code up to the next `>>>`), so a Python prompt (`>>> print(1)`) is never a call.

use serde_json::{Map, Value};

use super::json_calls::read_value;
use super::scan::{is_name, Finder};
use super::{args_value_to_text, normalize_json_args, Block, Ctx, Parsed, RawCall};

const V31: &str = "functionary_v31";
const V32: &str = "functionary_v32";
pub const FUNCTION: &str = "<function=";
pub const FUNCTION_END: &str = "</function>";
pub const PYTHON_TAG: &str = "<|python_tag|>";
/// Llama 3's end-of-message and end-of-turn tokens (Functionary v3 is built on Llama 3.1;
/// `llama3_json` strips the same).
pub(crate) const TURN_ENDS: &[&str] = &["<|eom_id|>", "<|eot_id|>"];

/// v3.1: `<function=NAME>{json}</function>` and `<|python_tag|>code`.
pub fn parse_v31(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Finder::new(FUNCTION);
    let mut ends = Finder::new(FUNCTION_END);
    let mut at = 0;
    while let Some(start) = opens.find(text, at) {
        let head = start + FUNCTION.len();
        at = head;
        let Some(gt) = text[head..].find('>').map(|g| head + g) else {
            break;
        };
        let name = &text[head..gt];
        if !is_name(name) {
            continue;
        }
        let json_at = gt + 1;
        let Some((v, json_end)) = text[json_at..]
            .starts_with('{')
            .then(|| read_value(text, json_at))
            .flatten()
        else {
            continue;
        };
        let after = json_end + (text[json_end..].len() - text[json_end..].trim_start().len());
        let end = if text[after..].starts_with(FUNCTION_END) {
            after + FUNCTION_END.len()
        } else {
            if ends.find(text, json_end).is_none() {
                out.problems
                    .push(format!("{V31}: {FUNCTION_END} missing (truncated reply)"));
            }
            json_end
        };
        let arguments = args_value_to_text(v, V31, &mut out.problems);
        out.blocks.push(call_block(start, end, name, arguments));
        at = end;
    }
    if let Some(p) = Finder::new(PYTHON_TAG).find(text, 0) {
        let body_at = p + PYTHON_TAG.len();
        let end = TURN_ENDS
            .iter()
            .filter_map(|m| text[body_at..].find(m).map(|i| body_at + i))
            .min()
            .unwrap_or(text.len());
        let code = text[body_at..end].trim();
        let arguments = match serde_json::from_str::<Value>(code) {
            Ok(v @ Value::Object(_)) => v.to_string(),
            _ => code_args(code),
        };
        if out.blocks.iter().all(|b| b.end <= p || b.start >= end) {
            out.blocks.push(call_block(p, end, "python", arguments));
        }
    }
    out.strip_markup(text, TURN_ENDS);
    out.set_format_if_calls(V31);
    out
}

fn code_args(code: &str) -> String {
    let mut m = Map::new();
    m.insert("code".into(), Value::String(code.to_owned()));
    Value::Object(m).to_string()
}

fn call_block(start: usize, end: usize, name: &str, arguments: String) -> Block {
    Block {
        start,
        end,
        calls: vec![RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        }],
        keep_raw: false,
    }
}

/// v3.2: messages after `>>>RECIPIENT\n`; the reply's first message has its `>>>` in the prompt.
pub fn parse_v32(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    // Message starts: the reply's start, then each `>>>` at the start of a line.
    let mut starts = vec![(0usize, 0usize)];
    let mut marks = Finder::new(">>>");
    let mut at = 0;
    while let Some(i) = marks.find(text, at) {
        at = i + 3;
        if i == 0 || text[..i].ends_with('\n') {
            starts.push((i, i + 3));
        }
    }
    if starts.len() > 1 && starts[1].0 == 0 {
        starts.remove(0);
    }
    for (k, &(start, head)) in starts.iter().enumerate() {
        let limit = starts.get(k + 1).map_or(text.len(), |s| s.0);
        let Some(nl) = text[head..limit].find('\n').map(|n| head + n) else {
            continue;
        };
        let recipient = &text[head..nl];
        if recipient == "all" {
            out.blocks.push(Block {
                start,
                end: nl + 1,
                calls: Vec::new(),
                keep_raw: false,
            });
            continue;
        }
        if !is_name(recipient) {
            continue;
        }
        let body_at = nl + 1;
        let body = text[body_at..limit].trim_end();
        let (arguments, end) = match read_value(text, body_at) {
            Some((v @ Value::Object(_), e)) if e <= limit => {
                (args_value_to_text(v, V32, &mut out.problems), e)
            }
            _ if recipient == "python" && !body.trim().is_empty() => {
                (code_args(body), body_at + body.len())
            }
            _ if body.starts_with('{') => (
                normalize_json_args(body, V32, &mut out.problems),
                body_at + body.len(),
            ),
            _ => continue,
        };
        out.blocks
            .push(call_block(start, end, recipient, arguments));
    }
    super::turn_end::strip(&mut out, text, TURN_ENDS);
    out.set_format_if_calls(V32);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn v31_function_tags_and_python_tag() {
        let t = "查一下。<function=get_weather>{\"city\": \"北京\"}</function><|eom_id|>";
        let c = run(t, Some("functionary_v31"), None, None);
        assert_eq!(c.content, "查一下。");
        assert_eq!(named(&c), [("get_weather", json!({"city": "北京"}))]);
        let p = run(
            "<|python_tag|>print(1 + 1)<|eom_id|>",
            None,
            Some("meetkai/functionary-small-v3.1"),
            None,
        );
        assert_eq!(named(&p), [("python", json!({"code": "print(1 + 1)"}))]);
        let plain = run(t, None, None, None);
        assert!(plain.tool_calls.is_empty());
    }

    #[test]
    fn v32_recipients() {
        let t = "get_weather\n{\"city\": \"Paris\"}\n>>>get_time\n{\"tz\": \"CET\"}";
        let c = run(t, None, Some("meetkai/functionary-medium-v3.2"), None);
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"city": "Paris"})),
                ("get_time", json!({"tz": "CET"}))
            ]
        );
        assert_eq!(c.content, "");
        let a = run(
            "all\n好的，我来查。\n>>>get_weather\n{\"city\": \"上海\"}",
            Some("functionary_v32"),
            None,
            None,
        );
        assert_eq!(a.content, "好的，我来查。");
        let repl = "In the REPL:\n>>> print(1)\n1";
        assert_eq!(run(repl, Some("functionary_v32"), None, None).content, repl);
    }

    #[test]
    fn grows_linearly_on_unclosed_calls() {
        for (format, unit) in [
            ("functionary_v31", "<function=f>{\"a\": ["),
            ("functionary_v31", "<|python_tag|><function=f>"),
            ("functionary_v32", ">>>f\n{\"a\": [\n"),
            ("functionary_v32", "all\n>>>all\n"),
        ] {
            super::super::linearity::assert_linear(format, unit, &|t| {
                run(t, Some(format), None, None);
            });
        }
    }

    #[test]
    fn model_ids() {
        use super::super::Family;
        assert_eq!(
            Family::from_model("meetkai/functionary-small-v3.1"),
            Some(Family::FunctionaryV31)
        );
        assert_eq!(
            Family::from_model("meetkai/functionary-medium-v3.2"),
            Some(Family::FunctionaryV32)
        );
    }
}
