//! Qwen3-Coder / Qwen3.5 / Qwen3-Next XML calls (reference §2):
//! `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…</function></tool_call>`.
//!
//! Values are raw text (code, JSON, `<`, `&`, newlines) typed by the tools' schema ([`typing`]);
//! one leading and one trailing `\n` are removed, entities are not decoded. As in vLLM, a value
//! ends at the first `</parameter>`, `<parameter=` or `</function>`, so a missing `</parameter>`
//! or `</function>` is tolerated. The unwrapped form (`<function=` with no `<tool_call>`, which
//! servers that strip the opener leave, often with an orphan `</tool_call>` after it, see
//! [`super::orphan`]) is read for any model when it is unambiguous ([`strong_head`]: a plain name,
//! `>`, then `<parameter=` or `</function>`; without a later `</function>` the call runs to the end
//! of the reply, reported as truncated); any `<function=…>…</function>` is read when the format or
//! model names Qwen3-Coder.
//!
//! [`typing`]: super::typing

use super::scan::{find_from, Finder, TOOL_CALL, TOOL_CALL_END};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "qwen3_coder";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PARAM: &str = "<parameter=";
const PARAM_END: &str = "</parameter>";

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_wrapped(text, TOOL_CALL, TOOL_CALL_END, NAME, cx);
    if out.blocks.is_empty() {
        // The wrapper-less fallback: each `<function=…>…</function>` is its own block.
        let mut fn_ends = Finder::new(FUNCTION_END);
        let mut at = 0;
        while let Some(start) = find_from(text, FUNCTION, at) {
            if !cx.unwrapped && strong_head(&text[start..], true) != Some(true) {
                at = start + FUNCTION.len();
                continue;
            }
            let (body_end, end) = match fn_ends.find(text, start) {
                Some(c) => (c + FUNCTION_END.len(), c + FUNCTION_END.len()),
                None => {
                    out.problems
                        .push(format!("{NAME}: </function> missing (truncated reply)"));
                    (text.len(), text.len())
                }
            };
            out.blocks.push(block(
                text,
                start,
                start,
                body_end,
                end,
                cx,
                (NAME, &mut out.problems),
            ));
            at = end;
        }
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(NAME);
    }
    out
}

/// Whether `rest` (which starts with `<function=`) opens an unwrapped call that no prose writes:
/// a name with no spaces or quotes, `>`, then (after whitespace) `<parameter=` or `</function>`.
/// `None` when more text is needed to tell (`full`: no more will come within reach).
pub fn strong_head(rest: &str, full: bool) -> Option<bool> {
    let more = if full { Some(false) } else { None };
    let Some(after) = rest.strip_prefix(FUNCTION) else {
        return Some(false);
    };
    let window = &after.as_bytes()[..after.len().min(256)];
    let Some(gt) = memchr::memchr(b'>', window) else {
        return if after.len() > 256 { Some(false) } else { more };
    };
    if !super::scan::is_name(&after[..gt]) {
        return Some(false);
    }
    let t = after[gt + 1..].trim_start();
    if t.starts_with(PARAM) || t.starts_with(FUNCTION_END) {
        Some(true)
    } else if t.len() < PARAM.len().max(FUNCTION_END.len())
        && (PARAM.starts_with(t) || FUNCTION_END.starts_with(t))
    {
        more
    } else {
        Some(false)
    }
}

/// `OPEN <function=…>… CLOSE` blocks (Qwen3-Coder's `<tool_call>`, Seed-OSS's
/// `<seed:tool_call>`); a block whose body is not `<function=` is skipped, a missing `CLOSE` runs
/// to the end (reported). `name` is the format reported.
pub fn parse_wrapped(text: &str, open: &str, close: &str, name: &'static str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut closes = Finder::new(close);
    let mut at = 0;
    while let Some(start) = find_from(text, open, at) {
        let body_at = start + open.len();
        if !text[body_at..].trim_start().starts_with(FUNCTION) {
            at = body_at;
            continue;
        }
        let (body_end, end) = match closes.find(text, body_at) {
            Some(c) => (c, c + close.len()),
            None => {
                out.problems
                    .push(format!("{name}: {close} missing (truncated reply)"));
                (text.len(), text.len())
            }
        };
        out.blocks.push(block(
            text,
            start,
            body_at,
            body_end,
            end,
            cx,
            (name, &mut out.problems),
        ));
        at = end;
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(name);
    }
    out
}

fn block(
    text: &str,
    start: usize,
    body_at: usize,
    body_end: usize,
    end: usize,
    cx: &Ctx,
    (name, problems): (&str, &mut Vec<String>),
) -> Block {
    let calls = functions(&text[body_at..body_end], cx);
    Block::of_calls(start, end, calls, problems, || {
        format!("{name}: call block holds no <function=NAME>; raw text kept in content")
    })
}

/// Every `<function=NAME>` in `body`, with its parameters.
fn functions(body: &str, cx: &Ctx) -> Vec<RawCall> {
    let mut calls = Vec::new();
    let mut fn_ends = Finder::new(FUNCTION_END);
    let mut fns = Finder::new(FUNCTION);
    let mut at = 0;
    while let Some(f) = find_from(body, FUNCTION, at) {
        let name_at = f + FUNCTION.len();
        let Some(gt) = find_from(body, ">", name_at) else {
            break;
        };
        let name = body[name_at..gt].trim();
        let fn_end = [fn_ends.find(body, gt), fns.find(body, gt)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(body.len());
        at = fn_end.max(gt + 1);
        if name.is_empty() || name.contains(['\n', '<']) {
            continue;
        }
        let pairs = parameters(&body[gt + 1..fn_end]);
        let arguments = typed_arguments(
            pairs.iter().map(|(k, v)| (*k, *v)),
            cx.tools,
            name,
            Style::Schema { minimax: false },
        );
        calls.push(RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        });
    }
    calls
}

/// `(key, value)` of each `<parameter=KEY>VALUE` in a function body.
fn parameters(body: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    let mut ends = Finder::new(PARAM_END);
    let mut next = Finder::new(PARAM);
    let mut at = 0;
    while let Some(p) = find_from(body, PARAM, at) {
        let key_at = p + PARAM.len();
        let Some(gt) = find_from(body, ">", key_at) else {
            break;
        };
        let value_at = gt + 1;
        let value_end = [ends.find(body, value_at), next.find(body, value_at)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(body.len());
        let value = &body[value_at..value_end];
        let value = value.strip_prefix('\n').unwrap_or(value);
        let value = value.strip_suffix('\n').unwrap_or(value);
        let key = body[key_at..gt].trim();
        if !key.is_empty() && !key.contains('\n') {
            pairs.push((key, value));
        }
        at = value_end;
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str, cx: &Ctx) -> Vec<(String, String)> {
        parse(text, cx).call_pairs()
    }

    #[test]
    fn typed_by_schema_as_in_vllm_type_conversion_test() {
        let tools = json!([{"type": "function", "function": {"name": "t", "parameters": {"properties": {
            "i": {"type": "integer"}, "f": {"type": "float"}, "b": {"type": "boolean"},
            "o": {"type": "object"}, "s": {"type": "string"}}}}}]);
        let t = "<tool_call>\n<function=t>\n<parameter=i>\n42\n</parameter>\n<parameter=f>\n3.14\n</parameter>\n\
                 <parameter=b>\ntrue\n</parameter>\n<parameter=o>\n{\"key\": \"value\"}\n</parameter>\n\
                 <parameter=s>\nhello world\n</parameter>\n</function>\n</tool_call>";
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        assert_eq!(
            one(t, &cx),
            [(
                "t".into(),
                r#"{"i":42,"f":3.14,"b":true,"o":{"key":"value"},"s":"hello world"}"#.into()
            )]
        );
    }

    #[test]
    fn missing_parameter_and_function_ends_are_tolerated() {
        let t = "<tool_call><function=f><parameter=a>1<parameter=b>x</tool_call>";
        assert_eq!(
            one(t, &Ctx::default()),
            [("f".into(), r#"{"a":1,"b":"x"}"#.into())]
        );
    }

    #[test]
    fn function_without_name_gives_no_call() {
        let p = parse(
            "<tool_call><function>x</function></tool_call>",
            &Ctx::default(),
        );
        assert!(p.blocks.is_empty());
        let p = parse(
            "<tool_call><function=>x</function></tool_call>",
            &Ctx::default(),
        );
        assert!(p.blocks[0].keep_raw);
    }

    #[test]
    fn unwrapped_form_when_unambiguous_or_allowed() {
        let t = "Sure.\n<function=f>\n<parameter=p>\nv\n</parameter>\n</function>";
        assert_eq!(
            one(t, &Ctx::default()),
            [("f".into(), r#"{"p":"v"}"#.into())]
        );
        let loose = "Sure.\n<function=f>\nv\n</function>";
        assert!(parse(loose, &Ctx::default()).blocks.is_empty());
        let cx = Ctx {
            tools: None,
            unwrapped: true,
        };
        assert_eq!(one(loose, &cx), [("f".into(), "{}".into())]);
        assert_eq!(strong_head("<function=a b>", true), Some(false));
        assert_eq!(strong_head("<function=f>\n<param", false), None);
        assert_eq!(strong_head("<function=f>\n<param", true), Some(false));
    }

    #[test]
    fn multiline_json_value() {
        let tools = json!([{"function": {"name": "d", "parameters": {"properties": {"dimensions": {"type": "object"}}}}}]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "<tool_call>\n<function=d>\n<parameter=dimensions>\n{\"width\": 10, \n \"height\": 20}\n</parameter>\n</function>\n</tool_call>";
        assert_eq!(
            one(t, &cx),
            [(
                "d".into(),
                r#"{"dimensions":{"width":10,"height":20}}"#.into()
            )]
        );
    }
}
