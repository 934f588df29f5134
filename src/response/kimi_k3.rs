//! Kimi K3's XTML calls (`kimi_k3`). K3 has no Jinja chat template; Moonshot's reference renderer
//! (`encoding_k3.py` in the checkpoint repo, as the colibri and sigit ports document it) writes
//! every channel with four special tokens, `<|open|>`, `<|sep|>`, `<|close|>`, `<|end_of_msg|>`,
//! and plain-text tags between them:
//!
//! ```text
//! <|open|>think<|sep|>…<|close|>think<|sep|><|open|>response<|sep|>On it.<|close|>response<|sep|>
//! <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>北京<|close|>argument<|sep|>
//! <|open|>argument key="days" type="number"<|sep|>2<|close|>argument<|sep|>
//! <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>
//! ```
//!
//! An argument's `type` says how to read its text: `string` keeps it as written, any other type
//! (`number`, `integer`, `boolean`, `null`, `object`, `array`) is decoded as JSON (kept as a
//! string, and reported, when it is not JSON). A call may carry its arguments as one
//! `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>` block instead. Attribute values are
//! XML-escaped (`tool="weather&amp;alerts"`). The `think` channel is reasoning
//! ([`super::thinking`]); the `response` channel is the visible answer, so its tags, the
//! `<|close|>message<|sep|>` trailer and `<|end_of_msg|>` are removed and its text kept.
//!
//! Servers that drop part of the markup leave a call without its `tools` section: a lone
//! `<|open|>call tool=…<|sep|>…<|close|>call<|sep|>` is read as well, and so is the fused
//! `<|open|>toolscall tool=…` of a section whose `<|sep|><|open|>` was dropped; every
//! `<|close|>WORD<|sep|>` token left over (`<|close|>toolstoolsmessage<|sep|>`) is removed. A
//! section or call whose closing tag never comes (a reply cut by `max_tokens`) runs to the end of
//! the reply; a call whose arguments were cut off, or whose argument's closing token is broken,
//! gives no call (its raw text is reported).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::minimax_m2::decode_entities;
use super::scan::{find_from, Finder};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "kimi_k3";
/// Opens a section of calls.
pub const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";
/// Opens one call (its attributes follow).
pub const CALL_OPEN: &str = "<|open|>call ";
/// Opens one call when a server dropped the `<|sep|><|open|>` between the section word and the
/// call word (oh-my-pi issue 8495: `<|open|>toolscall tool="StrReplace" index="1"<|sep|>…`).
pub const FUSED_CALL_OPEN: &str = "<|open|>toolscall ";
/// A closing token, whatever its word: the garbled closers of the same leaks
/// (`<|close|>toolstoolsmessage<|sep|>`) are markup too.
pub const CLOSE: &str = "<|close|>";
/// Closes one call.
pub const CALL_CLOSE: &str = "<|close|>call<|sep|>";
const SEP: &str = "<|sep|>";
/// The markup-only tokens around the visible answer.
pub const MARKUP: &[&str] = &[
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|close|>message<|sep|>",
    "<|end_of_msg|>",
];
/// What opens a block of this family in a stream: a section, a lone call, a markup token.
pub const OPENERS: &[&str] = &[
    TOOLS_OPEN,
    CALL_OPEN,
    FUSED_CALL_OPEN,
    MARKUP[0],
    MARKUP[1],
    MARKUP[2],
    MARKUP[3],
    CLOSE,
];
/// The tokens after which a block of this family may be finished.
pub const CLOSERS: &[&str] = &[
    TOOLS_CLOSE,
    CALL_CLOSE,
    MARKUP[0],
    MARKUP[1],
    MARKUP[2],
    MARKUP[3],
];

static ATTR_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"([A-Za-z_]+)="([^"]*)""#).expect("static regex"));

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut sections = Finder::new(TOOLS_OPEN);
    let mut section_ends = Finder::new(TOOLS_CLOSE);
    let mut lone = CallOpens::new();
    let mut call_ends = Finder::new(CALL_CLOSE);
    let mut at = 0;
    loop {
        let s = sections.find(text, at);
        let l = lone.find(text, at).map(|(l, _)| l);
        let (start, end, body) = match (s, l) {
            (Some(s), l) if l.is_none_or(|l| s < l) => {
                let body_at = s + TOOLS_OPEN.len();
                match section_ends.find(text, body_at) {
                    Some(e) => (s, e + TOOLS_CLOSE.len(), body_at..e),
                    None => {
                        out.problems
                            .push(format!("{NAME}: {TOOLS_CLOSE} missing (truncated reply)"));
                        (s, text.len(), body_at..text.len())
                    }
                }
            }
            (_, Some(l)) => match call_ends.find(text, l) {
                Some(e) => (l, e + CALL_CLOSE.len(), l..e + CALL_CLOSE.len()),
                None => (l, text.len(), l..text.len()),
            },
            (_, None) => break,
        };
        let calls = calls(&text[body], &mut out.problems);
        out.blocks.push(Block::of_calls(
            start,
            end,
            calls,
            &mut out.problems,
            || format!("{NAME}: call block holds no readable call; raw text kept in content"),
        ));
        at = end.max(start + 1);
    }
    out.strip_markup(text, MARKUP);
    strip_closers(text, &mut out);
    out.set_format_if_calls(NAME);
    out
}

/// The two spellings of a call's opening tag, each searched with its own [`Finder`] so many
/// calls stay linear.
struct CallOpens {
    plain: Finder<'static>,
    fused: Finder<'static>,
}

impl CallOpens {
    fn new() -> Self {
        CallOpens {
            plain: Finder::new(CALL_OPEN),
            fused: Finder::new(FUSED_CALL_OPEN),
        }
    }

    /// The first call opener at or after `at`, and its length.
    fn find(&mut self, text: &str, at: usize) -> Option<(usize, usize)> {
        let p = self.plain.find(text, at).map(|p| (p, CALL_OPEN.len()));
        let f = self
            .fused
            .find(text, at)
            .map(|f| (f, FUSED_CALL_OPEN.len()));
        p.into_iter().chain(f).min_by_key(|o| o.0)
    }
}

/// Whether `rest`, from a [`CLOSE`] to the end of the finished reply, is a closing token the
/// reply's end cut (`<|close|>to`, `<|close|>respons`, `<|close|>call<|`): its word (ASCII
/// letters and `_`, at most 64, as [`strip_closers`] reads it) then the first bytes of `<|sep|>`,
/// something after the token at least. The caller asks it only where markup stands (glued to
/// the text or to removed markup).
pub fn cut_closer(rest: &str) -> bool {
    let Some(after) = rest.strip_prefix(CLOSE) else {
        return false;
    };
    let word = after
        .bytes()
        .take(65)
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'_')
        .count();
    let sep = &after[word..];
    word <= 64 && !after.is_empty() && sep.len() < SEP.len() && SEP.starts_with(sep)
}

/// Whether the closing token `<|close|>WORD<|sep|>` that starts `rest` is named in a sentence
/// ([`super::turn_end::token_named`]: `before` is words then a space before it on its line; after
/// it a space then words): `每一轮以 <|close|>call<|sep|> 结束。` stays as written. Not a closing
/// token (no word, no `<|sep|>`): `Some(false)`; `None` while the token or what follows it may
/// still come.
pub(crate) fn closer_named(before: bool, rest: &str, finished: bool) -> Option<bool> {
    let after = rest.get(CLOSE.len()..).unwrap_or("");
    let word = after
        .bytes()
        .take(65)
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'_')
        .count();
    let Some(tail) = after[word..].strip_prefix(SEP) else {
        let cut = !finished && word <= 64 && SEP.starts_with(&after[word..]);
        return if cut && before { None } else { Some(false) };
    };
    if word == 0 || word > 64 {
        return Some(false);
    }
    super::turn_end::token_named(before, tail, finished, true)
}

/// A markup block for every `<|close|>WORD<|sep|>` outside the blocks found (the known closers
/// and the garbled ones).
fn strip_closers(text: &str, out: &mut Parsed) {
    let mut closes = Finder::new(CLOSE);
    let mut extra = Vec::new();
    let mut k = 0;
    let mut at = 0;
    while let Some(i) = closes.find(text, at) {
        let word = text[i + CLOSE.len()..]
            .bytes()
            .take(64)
            .take_while(|b| b.is_ascii_alphabetic() || *b == b'_')
            .count();
        let end = i + CLOSE.len() + word;
        at = i + CLOSE.len();
        // The think channel's closer is reasoning's to handle.
        let think = &text[i + CLOSE.len()..end] == "think";
        if word == 0 || think || !text[end..].starts_with(SEP) {
            continue;
        }
        while out.blocks.get(k).is_some_and(|b| b.end <= i) {
            k += 1;
        }
        if out.blocks.get(k).is_some_and(|b| b.start <= i) {
            continue;
        }
        extra.push(Block {
            start: i,
            end: end + SEP.len(),
            calls: Vec::new(),
            keep_raw: false,
        });
        at = end + SEP.len();
    }
    if !extra.is_empty() {
        out.blocks.append(&mut extra);
        out.blocks.sort_by_key(|b| b.start);
    }
}

/// Every complete call in a section body.
fn calls(body: &str, problems: &mut Vec<String>) -> Vec<RawCall> {
    let mut out = Vec::new();
    let mut ends = Finder::new(CALL_CLOSE);
    let mut opens = CallOpens::new();
    let mut at = 0;
    while let Some((c, open_len)) = opens.find(body, at) {
        let Some(sep) = find_from(body, SEP, c) else {
            problems.push(format!("{NAME}: call header cut off (truncated reply)"));
            break;
        };
        let next = opens.find(body, sep).map_or(body.len(), |(n, _)| n);
        let (args_end, end) = match ends.find(body, sep) {
            Some(e) if e < next => (e, e + CALL_CLOSE.len()),
            _ => {
                problems.push(format!(
                    "{NAME}: {CALL_CLOSE} missing (truncated reply); call skipped, raw text: {}",
                    &body[c..next]
                ));
                at = next;
                continue;
            }
        };
        at = end;
        let header = &body[c + open_len..sep];
        let Some(name) = attr(header, "tool") else {
            problems.push(format!(
                "skipped-call: {NAME}: call without a tool name; raw text: {}",
                &body[c..end]
            ));
            continue;
        };
        let Some(arguments) = arguments(&body[sep + SEP.len()..args_end], &name, problems) else {
            // An argument whose closing token is broken: its value cannot be told apart.
            problems.push(format!(
                "skipped-call: {NAME}: call {name:?} has an argument that does not read; raw text: {}",
                &body[c..end]
            ));
            continue;
        };
        out.push(RawCall {
            name,
            arguments,
            id: None,
        });
    }
    out
}

/// The decoded value of attribute `key` in a tag's attributes.
fn attr(header: &str, key: &str) -> Option<String> {
    ATTR_RE
        .captures_iter(header)
        .find(|c| &c[1] == key)
        .map(|c| decode_entities(&c[2]).into_owned())
}

/// The JSON arguments of a call body: its `argument` channels, or its `json` channel. `None`
/// when a channel's closing token is missing.
fn arguments(body: &str, name: &str, problems: &mut Vec<String>) -> Option<String> {
    let mut map = Map::new();
    let mut at = 0;
    while let Some(o) = find_from(body, "<|open|>", at) {
        let Some(sep) = find_from(body, SEP, o) else {
            break;
        };
        let head = &body[o + "<|open|>".len()..sep];
        let kind = head.split_whitespace().next().unwrap_or("");
        let close = format!("<|close|>{kind}{SEP}");
        let value_at = sep + SEP.len();
        let e = find_from(body, &close, value_at)?;
        let raw = &body[value_at..e];
        at = e + close.len();
        match kind {
            "argument" => {
                let Some(key) = attr(head, "key") else {
                    continue;
                };
                let ty = attr(head, "type").unwrap_or_else(|| "string".to_owned());
                map.insert(key, typed(raw, &ty, name, problems));
            }
            "json" => {
                if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(raw.trim()) {
                    map.extend(o);
                } else {
                    problems.push(format!(
                        "{NAME}: call {name:?} has invalid JSON arguments; kept as the raw text"
                    ));
                    return Some(raw.trim().to_owned());
                }
            }
            _ => {}
        }
    }
    Some(Value::Object(map).to_string())
}

/// An argument's text read by its declared type.
fn typed(raw: &str, ty: &str, name: &str, problems: &mut Vec<String>) -> Value {
    if ty == "string" {
        return Value::String(raw.to_owned());
    }
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(v) => v,
        Err(_) => {
            problems.push(format!(
                "{NAME}: call {name:?}: a {ty} argument is not valid JSON; kept as a string"
            ));
            Value::String(raw.to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_lone_calls_and_typed_arguments() {
        let t = "<|open|>tools<|sep|><|open|>call tool=\"weather&amp;alerts\" index=\"1\"<|sep|>\
                 <|open|>argument key=\"city\" type=\"string\"<|sep|> 北京 <|close|>argument<|sep|>\
                 <|open|>argument key=\"days\" type=\"number\"<|sep|>2<|close|>argument<|sep|>\
                 <|close|>call<|sep|><|close|>tools<|sep|>ok<|open|>call tool=\"f\"<|sep|>\
                 <|open|>json type=\"object\"<|sep|>{\"a\": [1]}<|close|>json<|sep|><|close|>call<|sep|>";
        let p = parse(t, &Ctx::default());
        assert_eq!(
            p.call_pairs(),
            [
                (
                    "weather&alerts".into(),
                    r#"{"city":" 北京 ","days":2}"#.into()
                ),
                ("f".into(), r#"{"a":[1]}"#.into())
            ]
        );
        assert!(p.problems.is_empty(), "{:?}", p.problems);
    }

    #[test]
    fn cut_off_calls_give_no_call() {
        let t = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>x";
        let p = parse(t, &Ctx::default());
        assert!(p.call_pairs().is_empty());
        assert_eq!(p.blocks[0].end, t.len());
    }
}
