//! MiniMax-M2 / M2.1 / M2.5 calls (reference §6), the seed's main case:
//! `<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>`.
//!
//! Parallel calls are several `<invoke>` in one wrapper, or several wrappers; an `<invoke name=…>`
//! whose wrapper a server stripped is read too (`auto` takes it only when its `</invoke>` follows).
//! The invokes are read by [`super::xml_invoke`] (names quoted or not; a value ends only at
//! `</parameter>`, so `<` and `&` inside it are kept, and is trimmed) and typed with the MiniMax
//! variant of the schema rules. XML entities in values are decoded (`&amp;` → `&`, `&lt;`, `&gt;`,
//! `&quot;`, `&apos;`, `&#NN;`, `&#xHH;`): MiniMax-M2 escapes them in its output, and a shell
//! command with `&amp;&amp;` would otherwise fail. An ampersand that starts no entity is kept. A
//! missing `</parameter>`, `</invoke>` or `</minimax:tool_call>` (truncated reply) runs to the
//! end and is reported.

use std::borrow::Cow;

use super::typing::Style;
use super::xml_invoke::{blocks, typed_invokes, Tags, Wrappers};
use super::{Ctx, Parsed};

const NAME: &str = "minimax_m2";
/// The `<function_calls>` wrapper's tags.
pub const FUNCTION_CALLS: &[&str] = &["<function_calls>", "</function_calls>"];
const TAGS: Tags = Tags {
    invoke: "<invoke",
    invoke_end: "</invoke>",
    param: "<parameter",
    param_end: "</parameter>",
};
/// The section wrapper's tags.
pub const SECTION: (&str, &str) = ("<minimax:tool_call>", "</minimax:tool_call>");
const WRAPPERS: Wrappers = Wrappers {
    section: Some(SECTION),
    call: None,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = blocks(
        text,
        &WRAPPERS,
        &TAGS,
        NAME,
        &mut out.problems,
        |body, pr| {
            typed_invokes(
                body,
                &TAGS,
                NAME,
                cx,
                Style::Schema { minimax: true },
                decode_entities,
                pr,
            )
        },
    );
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        // Anthropic's `<function_calls>` wrapper, which models trained on Claude transcripts
        // write around the same invokes.
        out.strip_markup(text, FUNCTION_CALLS);
    }
    out.set_format_if_calls(NAME);
    out
}

/// `s` with its XML entities decoded; borrowed when it has none.
pub fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let decoded = rest.get(1..).and_then(|r| {
            // Twelve bytes at most, to a character boundary (Chinese text may follow).
            let semi = r[..super::scan::floor(r, 12)].find(';')?;
            let name = &r[..semi];
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, semi + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::Block;
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
    fn markup_outside_blocks_is_every_hit_outside() {
        // `strip_markup` looks only between blocks; the same hits as a search of the whole text.
        let text = "<function_calls>a</function_calls><function_calls>中<function_calls>";
        let tags = ["<function_calls>", "</function_calls>", "中<f"];
        let spans: &[&[(usize, usize)]] = &[&[], &[(0, 5)], &[(3, 20), (10, 12)], &[(16, 60)]];
        for blocks in spans {
            let mut p = Parsed {
                blocks: blocks
                    .iter()
                    .map(|&(start, end)| Block {
                        start,
                        end,
                        calls: Vec::new(),
                        keep_raw: true,
                    })
                    .collect(),
                ..Parsed::default()
            };
            let mut want: Vec<(usize, usize)> = blocks.to_vec();
            for tag in tags {
                for (i, _) in text.match_indices(tag) {
                    if !blocks.iter().any(|b| b.0 <= i && i < b.1) {
                        want.push((i, i + tag.len()));
                    }
                }
            }
            want.sort_by_key(|b| b.0);
            p.strip_markup(text, &tags);
            let got: Vec<(usize, usize)> = p.blocks.iter().map(|b| (b.start, b.end)).collect();
            assert_eq!(got, want, "{blocks:?}");
        }
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
