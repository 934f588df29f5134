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
//!
//! MiniMax-M2.7 behind Hermes Agent also writes a call with the head Hermes puts in its history,
//! `[Calling tool: NAME]`, on its own line in place of `<invoke name="NAME">`, then its
//! `<parameter name=…>` lines and `</invoke>` / `</minimax:tool_call>` (EKKOLearnAI/hermes-studio#942,
//! names in typographic quotes there). That head followed by a parameter tag on the next line is
//! read as the invoke it stands for ([`calling_head`]); the call ends at `</invoke>` or
//! `</minimax:tool_call>`, and one whose end tag or a parameter's closing tag never comes is not
//! returned: removed from `content` and reported. The head alone, or followed by prose, is text.
//!
//! A bare invoke right after a lone lowercase word on its line (`court`, Claude's corrupted
//! `<function_calls>` opener) takes the word with it ([`super::stray_word`]).

use std::borrow::Cow;

use super::scan::{find_from, head_window, is_name, Finder, HEAD_WINDOW};
use super::typing::Style;
use super::xml_invoke::{blocks, typed_invokes, typed_params, Tags, Wrappers};
use super::{Block, Ctx, Parsed};

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
    // A stray word left of the wrapper's opener before a bare invoke goes with it.
    for b in &mut out.blocks {
        if text[b.start..].starts_with(super::stray_word::INVOKE) {
            if let Some(s) = super::stray_word::start_before(&text[..b.start]) {
                b.start = s;
            }
        }
    }
    // Only a text with a `[` can hold the head: one `memchr` (a block's parameters seldom hold
    // a `[`) before the pair search, which read every block the stream machine parsed (+2.8%
    // instructions on a reply dense with MiniMax calls).
    if memchr::memchr(b'[', text.as_bytes()).is_some() && find_from(text, CALLING, 0).is_some() {
        calling_blocks(text, cx, &mut out);
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        // Anthropic's `<function_calls>` wrapper, which models trained on Claude transcripts
        // write around the same invokes.
        out.strip_markup(text, FUNCTION_CALLS);
    }
    out.set_format_if_calls(NAME);
    out
}

/// Hermes Agent's text head of a call, as MiniMax-M2.7 copies it (see the module doc).
pub const CALLING: &str = "[Calling tool: ";
const PARAM: &str = "<parameter name=";

/// What follows [`CALLING`] in `rest`: `NAME]`, spaces, a line break, spaces, then a parameter
/// tag. `Some(Some((name, at)))`: that head, its first parameter tag at `rest[at..]`;
/// `Some(None)`: not that head; `None`: not known before more text comes (`fin`: the reply
/// ended). Decided within [`HEAD_WINDOW`] bytes.
pub fn calling_head(rest: &str, fin: bool) -> Option<Option<(&str, usize)>> {
    let w = head_window(rest);
    let full = fin || rest.len() >= HEAD_WINDOW;
    let wait = if full { Some(None) } else { None };
    let Some(close) = w.find([']', '\n']) else {
        // A name still coming, or text that cannot become one.
        return if w.is_empty() || is_name(w) {
            wait
        } else {
            Some(None)
        };
    };
    let name = &w[..close];
    if w.as_bytes()[close] != b']' || !is_name(name) {
        return Some(None);
    }
    let t = w[close + 1..].trim_start_matches([' ', '\t', '\r']);
    if t.is_empty() {
        return wait;
    }
    let Some(t) = t.strip_prefix('\n') else {
        return Some(None);
    };
    let body = t.trim_start();
    if body.starts_with(PARAM) {
        Some(Some((name, w.len() - body.len())))
    } else if body.len() < PARAM.len() && PARAM.starts_with(body) {
        wait
    } else {
        Some(None)
    }
}

/// The calls written with a [`CALLING`] head, outside the blocks already in `out`.
fn calling_blocks(text: &str, cx: &Ctx, out: &mut Parsed) {
    out.blocks.sort_by_key(|b| b.start);
    let taken: Vec<(usize, usize)> = out.blocks.iter().map(|b| (b.start, b.end)).collect();
    let mut k = 0;
    let mut invoke_ends = Finder::new(TAGS.invoke_end);
    let mut section_ends = Finder::new(SECTION.1);
    let mut heads = Finder::new(CALLING);
    let mut at = 0;
    while let Some(i) = heads.find(text, at) {
        at = i + CALLING.len();
        while taken.get(k).is_some_and(|b| b.1 <= i) {
            k += 1;
        }
        if taken.get(k).is_some_and(|b| b.0 <= i) {
            continue;
        }
        let Some(Some((name, off))) = calling_head(&text[at..], true) else {
            continue;
        };
        let body_at = at + off;
        // The body ends at the first end tag, or at the next head (the reply was cut before).
        let limit = [
            invoke_ends
                .find(text, body_at)
                .map(|e| (e, TAGS.invoke_end.len())),
            section_ends
                .find(text, body_at)
                .map(|e| (e, SECTION.1.len())),
            heads.find(text, body_at).map(|e| (e, 0)),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|&(e, _)| e);
        let before = out.problems.len();
        let (body_end, end) = match limit {
            Some((e, len)) if len > 0 => (e, e + len),
            other => {
                out.problems.push(format!(
                    "{NAME}: {} missing after [Calling tool: {name}] (truncated reply)",
                    TAGS.invoke_end
                ));
                let e = other.map_or(text.len(), |(e, _)| e);
                (e, e)
            }
        };
        let call = typed_params(
            &text[body_at..body_end],
            name,
            &TAGS,
            NAME,
            cx,
            Style::Schema { minimax: true },
            decode_entities,
            &mut out.problems,
        );
        // Complete only with its end tag and every parameter closed.
        let calls = if out.problems.len() == before {
            vec![call]
        } else {
            Vec::new()
        };
        out.blocks
            .push(Block::of_calls(i, end, calls, &mut out.problems, || {
                format!(
                    "{NAME}: [Calling tool: {name}] call is not complete; raw text kept in content"
                )
            }));
        at = end.max(at);
    }
    out.blocks.sort_by_key(|b| b.start);
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
    fn calling_tool_head_reads_its_parameters() {
        let t = "[Calling tool: f]\n<parameter name=“a”>中</parameter>\n</invoke>";
        let p = parse(t, &Ctx::default());
        assert_eq!(p.call_pairs(), [("f".into(), r#"{"a":"中"}"#.into())]);
        assert_eq!((p.blocks[0].start, p.blocks[0].end), (0, t.len()));
        assert_eq!(
            calling_head("f]\n  <parameter name=\"a\">", true),
            Some(Some(("f", 5)))
        );
        for (rest, fin, want) in [
            ("f] 后文", false, Some(None)),
            ("f]\n后文", false, Some(None)),
            ("a b]\n<parameter name=", false, Some(None)),
            ("f]\n<para", false, None),
            ("f]\n<para", true, Some(None)),
            ("fun", false, None),
        ] {
            assert_eq!(calling_head(rest, fin), want, "{rest:?}");
        }
    }

    #[test]
    fn calling_tool_heads_grow_linearly() {
        use crate::response::linearity::assert_linear;
        use crate::response::test_util::run;
        for unit in [
            "[Calling tool: f]\n<parameter name=\"a\">中</parameter>\n",
            "[Calling tool: f]\n<parameter name=\"a\">1</parameter>\n</invoke>\n",
            "[Calling tool: f",
        ] {
            for format in [Some(NAME), None] {
                assert_linear(NAME, unit, &|t| {
                    run(t, format, None, None);
                });
            }
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
