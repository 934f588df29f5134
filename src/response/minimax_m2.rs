//! MiniMax-M2 / M2.1 / M2.5 calls (reference §6), the seed's main case:
//! `<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>`.
//!
//! Parallel calls are several `<invoke>` in one wrapper, or several wrappers. The invokes are read by
//! [`super::xml_invoke`] (names quoted or not; a value ends only at `</parameter>`, so `<` and `&`
//! inside it are kept, and is trimmed) and typed with the MiniMax variant of the schema rules.
//! XML entities are not decoded (the reference's recommendation). A missing `</parameter>`,
//! `</invoke>` or `</minimax:tool_call>` (truncated reply) runs to the end and is reported.

use super::scan::{find_from, Finder};
use super::typing::Style;
use super::xml_invoke::{typed_invokes, Tags};
use super::{Block, Ctx, Parsed};

const NAME: &str = "minimax_m2";
const OPEN: &str = "<minimax:tool_call>";
const CLOSE: &str = "</minimax:tool_call>";
const TAGS: Tags = Tags {
    invoke: "<invoke",
    invoke_end: "</invoke>",
    param: "<parameter",
    param_end: "</parameter>",
};

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
        let body = &text[body_at..body_end];
        let style = Style::Schema { minimax: true };
        let calls = typed_invokes(body, &TAGS, NAME, cx, style, &mut out.problems);
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
