//! MiniMax-M2 / M2.1 / M2.5 calls (reference §6), the seed's main case:
//! `<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>`.
//!
//! Parallel calls are several `<invoke>` in one wrapper, or several wrappers. Names are taken up to
//! the first `>` with their quotes removed; a value ends only at `</parameter>` (so `<` and `&`
//! inside it are kept), is trimmed, and is typed with the MiniMax variant of the schema rules.
//! XML entities are not decoded (the reference's recommendation). A missing `</parameter>`,
//! `</invoke>` or `</minimax:tool_call>` (truncated reply) runs to the end and is reported.

use super::scan::{find_from, Finder};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "minimax_m2";
const OPEN: &str = "<minimax:tool_call>";
const CLOSE: &str = "</minimax:tool_call>";
const INVOKE: &str = "<invoke name=";
const INVOKE_END: &str = "</invoke>";
const PARAM: &str = "<parameter name=";
const PARAM_END: &str = "</parameter>";

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut closes = Finder::new(CLOSE);
    let mut at = 0;
    while let Some(start) = find_from(text, OPEN, at) {
        let body_at = start + OPEN.len();
        let (body_end, end) = match closes.find(text, body_at) {
            Some(c) => (c, c + CLOSE.len()),
            None => {
                out.problems
                    .push(format!("{NAME}: {CLOSE} missing (truncated reply)"));
                (text.len(), text.len())
            }
        };
        let calls = invokes(&text[body_at..body_end], cx, &mut out.problems);
        if !calls.is_empty() {
            out.format = Some(NAME);
        }
        let block = Block::of_calls(start, end, calls, &mut out.problems, || {
            format!("{NAME}: wrapper holds no <invoke name=…>; raw text kept in content")
        });
        out.blocks.push(block);
        at = end;
    }
    out
}

fn invokes(body: &str, cx: &Ctx, problems: &mut Vec<String>) -> Vec<RawCall> {
    let mut calls = Vec::new();
    let mut ends = Finder::new(INVOKE_END);
    let mut next = Finder::new(INVOKE);
    let mut at = 0;
    while let Some(i) = find_from(body, INVOKE, at) {
        let name_at = i + INVOKE.len();
        let Some(gt) = find_from(body, ">", name_at) else {
            problems.push(format!("{NAME}: <invoke name=…> cut off; call dropped"));
            break;
        };
        let inv_end = match [ends.find(body, gt), next.find(body, gt)]
            .into_iter()
            .flatten()
            .min()
        {
            Some(e) => e,
            None => {
                problems.push(format!("{NAME}: </invoke> missing (truncated reply)"));
                body.len()
            }
        };
        at = inv_end.max(gt + 1);
        let name = unquote(&body[name_at..gt]);
        if name.is_empty() {
            problems.push(format!("{NAME}: <invoke> with an empty name skipped"));
            continue;
        }
        let pairs = parameters(&body[gt + 1..inv_end], name, problems);
        let arguments = typed_arguments(pairs, cx.tools, name, Style::Schema { minimax: true });
        calls.push(RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        });
    }
    calls
}

fn parameters<'a>(
    body: &'a str,
    func: &str,
    problems: &mut Vec<String>,
) -> Vec<(&'a str, &'a str)> {
    let mut pairs = Vec::new();
    let mut ends = Finder::new(PARAM_END);
    let mut at = 0;
    while let Some(p) = find_from(body, PARAM, at) {
        let key_at = p + PARAM.len();
        let Some(gt) = find_from(body, ">", key_at) else {
            break;
        };
        let value_end = match ends.find(body, gt) {
            Some(e) => e,
            None => {
                problems.push(format!(
                    "{NAME}: call {func:?}: </parameter> missing (truncated)"
                ));
                body.len()
            }
        };
        pairs.push((unquote(&body[key_at..gt]), body[gt + 1..value_end].trim()));
        at = (value_end + PARAM_END.len()).min(body.len());
    }
    pairs
}

/// `"name"`, `'name'` or `name` → `name` (a trailing `/` of a self-closing tag is dropped too).
fn unquote(s: &str) -> &str {
    let s = s.trim();
    let s = s.strip_suffix('/').unwrap_or(s).trim_end();
    let s = s.strip_prefix(['"', '\'']).unwrap_or(s);
    s.strip_suffix(['"', '\'']).unwrap_or(s).trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(text: &str, cx: &Ctx) -> Vec<(String, String)> {
        parse(text, cx).call_pairs()
    }

    #[test]
    fn parallel_invokes_in_one_wrapper() {
        let t = "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Beijing</parameter>\n\
                 <parameter name=\"date\">2024-12-25</parameter>\n</invoke>\n<invoke name='get_time'></invoke>\n</minimax:tool_call>";
        assert_eq!(
            calls(t, &Ctx::default()),
            [
                (
                    "get_weather".into(),
                    r#"{"city":"Beijing","date":"2024-12-25"}"#.into()
                ),
                ("get_time".into(), "{}".into())
            ]
        );
    }

    #[test]
    fn string_typed_number_stays_a_string() {
        let tools = json!([{"function": {"name": "t", "parameters": {"properties": {
            "taskId": {"type": "string"}, "n": {"type": "integer"}, "on": {"type": "boolean"}}}}}]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "<minimax:tool_call><invoke name=\"t\"><parameter name=\"taskId\">3</parameter>\
                 <parameter name=\"n\"> 5 </parameter><parameter name=\"on\">yes</parameter></invoke></minimax:tool_call>";
        assert_eq!(
            calls(t, &cx),
            [("t".into(), r#"{"taskId":"3","n":5,"on":true}"#.into())]
        );
    }

    #[test]
    fn empty_wrapper_keeps_raw_text() {
        let p = parse(
            "<minimax:tool_call>oops</minimax:tool_call>",
            &Ctx::default(),
        );
        assert!(p.blocks[0].keep_raw);
        assert_eq!(p.format, None);
    }
}
