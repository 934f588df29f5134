//! The JS shape of [`clean_response`]'s options and result (`cleanResponse` in index.d.ts): option
//! validation with errors that name the option, and OpenAI's `tool_calls` shape on the way out.

use super::{Cleaned, Mode, Options};
use serde_json::Value;

fn mode(v: Option<&Value>, name: &str) -> Result<Mode, String> {
    match v {
        None | Some(Value::Null) => Ok(Mode::Extract),
        Some(Value::String(s)) => match s.as_str() {
            "extract" => Ok(Mode::Extract),
            "strip" => Ok(Mode::Strip),
            "keep" => Ok(Mode::Keep),
            other => Err(format!(
                "options.{name}: expected 'extract', 'strip' or 'keep', got {other:?}"
            )),
        },
        Some(other) => Err(format!("options.{name}: expected a string, got {other}")),
    }
}

fn opt_string(v: Option<&Value>, name: &str) -> Result<Option<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("options.{name}: expected a string, got {other}")),
    }
}

/// Reads `{format, model, tools, toolCalls, thinking, reasoningOpen}`.
pub fn options_from_json(v: &Value) -> Result<Options, String> {
    let tools = match v.get("tools") {
        None | Some(Value::Null) => None,
        Some(t @ Value::Array(_)) => Some(t.clone()),
        Some(_) => return Err("options.tools: expected an array of OpenAI function tools".into()),
    };
    Ok(Options {
        format: opt_string(v.get("format"), "format")?,
        model: opt_string(v.get("model"), "model")?,
        tools,
        tool_calls: mode(v.get("toolCalls"), "toolCalls")?,
        thinking: mode(v.get("thinking"), "thinking")?,
        reasoning_open: match v.get("reasoningOpen") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                return Err(format!(
                    "options.reasoningOpen: expected a boolean, got {other}"
                ))
            }
        },
        structured_calls: match v.get("structuredToolCalls") {
            None | Some(Value::Null) => super::shadow::Shadows::default(),
            Some(s) => super::shadow::Shadows::from_json(s)?,
        },
        markup_in_code: v.get("markupInCode").and_then(Value::as_bool) == Some(true),
        offered: Default::default(),
    })
}

/// `{content, toolCalls: [{id, type: 'function', function: {name, arguments}}], reasoning, format,
/// problems, problemKinds}` as JSON text, written straight out: a `serde_json::Value` built per
/// call and serialised again cost more than the call's reading on replies dense with calls.
pub fn cleaned_to_json(c: &Cleaned) -> String {
    write_cleaned(
        c,
        None,
        Some(&mut |out, t| {
            out.extend_from_slice(b"{\"id\":");
            string(out, t.id());
            out.extend_from_slice(b",\"type\":\"function\",\"function\":{\"name\":");
            string(out, t.name());
            out.extend_from_slice(b",\"arguments\":");
            string(out, t.arguments());
            out.extend_from_slice(b"}}");
        }),
    )
}

/// [`cleaned_to_json`] for `cleanResponse` (js/response.js), with the calls' text and every
/// number apart: the JSON (`content` is the count of `plan`'s numbers when given, else the
/// content; `toolCalls` the count of calls), the calls' ids, names and arguments one after
/// another, and the numbers — `plan` (slices of the caller's string, see `joined` in js/args.js)
/// then the lengths in UTF-16 units of each call's id, name and arguments — as UTF-16 units, two
/// a number (its high then low half of 32 bits). On a reply of 70 calls, `JSON.parse` of the
/// calls' escaped JSON arguments took 55 µs and cutting them from one string 9 µs; `JSON.parse`
/// of the ~360 numbers of its plan and lengths then took ~7 µs, reading them from a string ~1 µs.
pub fn cleaned_to_json_apart(c: &Cleaned, plan: Option<&[i32]>) -> (String, String, Vec<u16>) {
    let mut calls = String::with_capacity(
        c.tool_calls
            .iter()
            .map(|t| t.id().len() + t.name().len() + t.arguments().len())
            .sum(),
    );
    let plan = plan.unwrap_or_default();
    let mut numbers = Vec::with_capacity(2 * (plan.len() + 3 * c.tool_calls.len()));
    let mut push = |n: i32| {
        let n = n as u32;
        numbers.extend_from_slice(&[(n >> 16) as u16, n as u16]);
    };
    plan.iter().for_each(|&n| push(n));
    for t in &c.tool_calls {
        // A call's three pieces are one buffer: when it is ASCII, so is each piece.
        let ascii = t.is_ascii();
        for s in [t.id(), t.name(), t.arguments()] {
            let n = if ascii { s.len() } else { utf16_len(s) };
            push(i32::try_from(n).unwrap_or(i32::MAX));
            calls.push_str(s);
        }
    }
    let json = write_cleaned(c, Some(plan.len()).filter(|_| !plan.is_empty()), None);
    (json, calls, numbers)
}

/// Length of `s` in UTF-16 units.
fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// `n` in decimal, written without the formatting machinery (a few hundred numbers a reply
/// dense with calls: `write!` cost more than the rest of the JSON).
pub(crate) fn push_decimal(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Pushed one by one: a copy of a few bytes whose count is not known at compile time is a
    // call to `memmove`, which a profile showed to cost more than the digits.
    out.reserve(digits.len() - at);
    for &d in &digits[at..] {
        out.push(d);
    }
}

/// Writes one call of a result's `toolCalls` ([`write_cleaned`]).
type CallWriter<'a> = &'a mut dyn FnMut(&mut Vec<u8>, &super::ToolCall);

/// The result's JSON with each call written by `call`, or their count when `call` is `None`;
/// `content` as the count of a plan's numbers when `plan` is given.
fn write_cleaned(c: &Cleaned, plan: Option<usize>, call: Option<CallWriter>) -> String {
    let mut out =
        Vec::with_capacity(128 + c.content.len() + c.reasoning.len() + 96 * c.tool_calls.len());
    out.extend_from_slice(b"{\"content\":");
    match plan {
        Some(n) => push_decimal(&mut out, n as u64),
        None => string(&mut out, &c.content),
    }
    out.extend_from_slice(b",\"toolCalls\":");
    match call {
        Some(call) => {
            out.push(b'[');
            for (i, t) in c.tool_calls.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                call(&mut out, t);
            }
            out.push(b']');
        }
        None => push_decimal(&mut out, c.tool_calls.len() as u64),
    }
    out.extend_from_slice(b",\"reasoning\":");
    string(&mut out, &c.reasoning);
    out.extend_from_slice(b",\"format\":");
    match c.format {
        Some(f) => string(&mut out, f),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"problems\":");
    list(&mut out, c.problems.iter().map(String::as_str));
    out.extend_from_slice(b",\"problemKinds\":");
    list(&mut out, super::problem::kinds(&c.problems).into_iter());
    out.push(b'}');
    // Only whole UTF-8 strings and ASCII were written.
    String::from_utf8(out).unwrap_or_default()
}

/// `s` as a JSON string (serde_json's escaping).
fn string(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail, and a str always serialises.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn list<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a str>) {
    out.push(b'[');
    for (i, s) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, s);
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bad_modes_name_the_option() {
        let e = options_from_json(&json!({"toolCalls": "drop"}))
            .err()
            .unwrap_or_default();
        assert!(e.contains("options.toolCalls"), "{e}");
        let e = options_from_json(&json!({"thinking": 3}))
            .err()
            .unwrap_or_default();
        assert!(e.contains("options.thinking"), "{e}");
        assert!(options_from_json(&json!({"tools": {}})).is_err());
        let o = options_from_json(&json!({"toolCalls": "strip", "format": "hermes"}))
            .unwrap_or_default();
        assert_eq!(o.tool_calls, Mode::Strip);
        assert_eq!(o.format.as_deref(), Some("hermes"));
    }

    #[test]
    fn result_uses_openai_tool_call_shape() {
        let c = super::super::clean_response(
            "Hi<tool_call>{\"name\": \"read\", \"arguments\": {\"p\": 1}}</tool_call>",
            &Options::default(),
        );
        let v: Value = serde_json::from_str(&cleaned_to_json(&c)).unwrap_or_default();
        assert_eq!(v["content"], "Hi");
        assert_eq!(v["toolCalls"][0]["type"], "function");
        assert_eq!(v["toolCalls"][0]["function"]["name"], "read");
        assert_eq!(v["toolCalls"][0]["function"]["arguments"], "{\"p\":1}");
        assert_eq!(v["format"], "hermes");
        assert_eq!(v["problems"], json!([]));
    }

    #[test]
    fn result_json_escapes_every_string() {
        let c = Cleaned {
            content: "前言 \"q\" \\ \u{1}\n".into(),
            tool_calls: vec![super::super::ToolCall::new(
                "call_0_1",
                "读\"文件",
                "{\"路径\":\"a\\b\"}",
            )],
            reasoning: "想\t一想".into(),
            format: None,
            problems: vec!["truncated: cut".into(), "x\"y".into()],
        };
        let v: Value = serde_json::from_str(&cleaned_to_json(&c)).unwrap_or_default();
        assert_eq!(
            v,
            json!({
                "content": c.content,
                "toolCalls": [{"id": "call_0_1", "type": "function", "function": {"name": "读\"文件", "arguments": c.tool_calls[0].arguments()}}],
                "reasoning": "想\t一想",
                "format": null,
                "problems": c.problems,
                "problemKinds": super::super::problem::kinds(&c.problems),
            })
        );
    }

    #[test]
    fn calls_apart_are_cut_by_their_utf16_lengths() {
        let call = super::super::ToolCall::new;
        let c = Cleaned {
            tool_calls: vec![
                call("call_0_1", "读文件", "{\"q\":\"北京 🚀\"}"),
                call("call_1_2", "f", "{}"),
            ],
            reasoning: "想".into(),
            ..Cleaned::default()
        };
        let (json, calls, numbers) = cleaned_to_json_apart(&c, Some(&[0, 3, -1, 70_000]));
        let v: Value = serde_json::from_str(&json).unwrap_or_default();
        // Two units a number, high half first: the plan's four, then three lengths a call.
        let read: Vec<i32> = (numbers.chunks(2))
            .map(|p| ((u32::from(p[0]) << 16) | u32::from(p[1])) as i32)
            .collect();
        // 🚀 is two UTF-16 units: `{"q":"北京 🚀"}` is 13 (17 bytes).
        assert_eq!(read, [0, 3, -1, 70_000, 8, 3, 13, 8, 1, 2]);
        assert_eq!(v["toolCalls"], json!(2));
        assert_eq!(v["content"], json!(4));
        assert_eq!(calls, "call_0_1读文件{\"q\":\"北京 🚀\"}call_1_2f{}");
        let mut whole: Value = serde_json::from_str(&cleaned_to_json(&c)).unwrap_or_default();
        whole["toolCalls"] = v["toolCalls"].clone();
        whole["content"] = v["content"].clone();
        assert_eq!(v, whole, "the rest as cleaned_to_json writes it");
    }
}
