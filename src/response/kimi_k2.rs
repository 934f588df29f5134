//! Kimi-K2 / K2-Instruct-0905 / K2-Thinking / K2.5 calls (reference §8):
//! `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>…<|tool_calls_section_end|>`
//! (the singular `<|tool_call_section_…|>` spelling is accepted too).
//!
//! The model writes the call id itself and its index counts across the whole conversation, so the
//! id is kept as written and becomes the OpenAI id (§0.4). The name is the id without `:IDX` and
//! without `functions.`. An id without `:<digits>` is skipped (reported). A bare counter id (`0`)
//! takes its name from the only tool offered, or from the one tool whose schema has every argument
//! key; its id is then written `functions.NAME:IDX`. Invalid JSON arguments are kept as written.
//!
//! Servers that drop some special tokens leave calls with only part of their markup: a lone
//! `<|tool_call_begin|>` call without its section is read as above; a call whose
//! `<|tool_call_begin|>` is gone too, `functions.NAME:IDX<|tool_call_argument_begin|>{…}`, is read
//! when its id is written in full right before the argument token ([`bare_id_start`]).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::scan::{find_from, Finder};
use super::{normalize_json_args, Block, Ctx, Parsed, RawCall};

const NAME: &str = "kimi_k2";
const SECTION_BEGINS: [&str; 2] = [
    "<|tool_calls_section_begin|>",
    "<|tool_call_section_begin|>",
];
const SECTION_ENDS: [&str; 2] = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"];
const CALL_BEGIN: &str = "<|tool_call_begin|>";
/// A section's openers and closers in every spelling the parser reads (the reserved-token names too).
pub const SECTION_OPENERS: [&str; 3] = [SECTION_BEGINS[0], SECTION_BEGINS[1], RESERVED[0].0];
pub const SECTION_CLOSERS: [&str; 3] = [SECTION_ENDS[0], SECTION_ENDS[1], RESERVED[1].0];
/// The token between a call's id and its arguments.
pub const ARG_BEGIN: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";

static ID_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:functions\.)?(.+):(\d+)$").expect("static regex"));

/// The function name of a call id `functions.NAME:IDX` (`ID_RE`'s first group), worked out
/// without the regex when the index is ASCII digits (the regex's `\d` also takes other digits).
fn id_name(id: &str) -> Option<&str> {
    let colon = id.rfind(':')?;
    let (head, idx) = (&id[..colon], &id[colon + 1..]);
    if idx.is_empty() || !idx.bytes().all(|b| b.is_ascii_digit()) || head.contains('\n') {
        return ID_RE.captures(id)?.get(1).map(|m| m.as_str());
    }
    match head.strip_prefix("functions.") {
        Some(rest) if !rest.is_empty() => Some(rest),
        _ => (!head.is_empty()).then_some(head),
    }
}

/// Kimi-K2's tokens as some servers print them (Ollama's `huihui_ai/kimi-k2`): the tokenizer's
/// reserved-token names, in the same grammar.
pub const RESERVED: [(&str, &str); 5] = [
    ("<|reserved_token_163595|>", "<|tool_calls_section_begin|>"),
    ("<|reserved_token_163596|>", "<|tool_calls_section_end|>"),
    ("<|reserved_token_163597|>", "<|tool_call_begin|>"),
    ("<|reserved_token_163598|>", "<|tool_call_argument_begin|>"),
    ("<|reserved_token_163599|>", "<|tool_call_end|>"),
];

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    if super::scan::find_from(text, "<|reserved_token_1635", 0).is_none() {
        return parse_named(text, cx);
    }
    // Read the reserved names as the tokens they stand for, then map positions back.
    let mut canon = String::with_capacity(text.len());
    let mut edits: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut copied = 0;
    for at in memchr::memmem::find_iter(text.as_bytes(), b"<|reserved_token_1635") {
        if at < copied {
            continue;
        }
        let Some(&(from, to)) = RESERVED.iter().find(|(r, _)| text[at..].starts_with(r)) else {
            continue;
        };
        canon.push_str(&text[copied..at]);
        edits.push((canon.len(), at, to.len(), from.len()));
        canon.push_str(to);
        copied = at + from.len();
    }
    canon.push_str(&text[copied..]);
    let orig = |p: usize| -> usize {
        let i = edits.partition_point(|e| e.0 <= p);
        match i.checked_sub(1).and_then(|i| edits.get(i)) {
            None => p,
            Some(&(c, o, cl, ol)) if p < c + cl => {
                if p == c {
                    o
                } else {
                    o + ol
                }
            }
            Some(&(c, o, cl, ol)) => p - (c + cl) + o + ol,
        }
    };
    let mut out = parse_named(&canon, cx);
    for b in &mut out.blocks {
        b.start = orig(b.start);
        b.end = orig(b.end);
    }
    out
}

fn parse_named(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut begins = SECTION_BEGINS.map(Finder::new);
    let mut ends = SECTION_ENDS.map(Finder::new);
    let mut lones = Finder::new(CALL_BEGIN);
    let mut call_ends = Finder::new(CALL_END);
    let mut at = 0;
    loop {
        let section = begins
            .iter_mut()
            .zip(SECTION_BEGINS)
            .filter_map(|(f, m)| f.find(text, at).map(|i| (i, m.len())))
            .min();
        let lone = lones.find(text, at);
        let use_section = match (section, lone) {
            (None, None) => break,
            (Some((s, _)), l) => l.is_none_or(|l| s < l),
            (None, Some(_)) => false,
        };
        let (start, body_at, body_end, end) = match (section, lone) {
            (Some((s, len)), _) if use_section => {
                let body_at = s + len;
                let close = ends
                    .iter_mut()
                    .zip(SECTION_ENDS)
                    .filter_map(|(f, m)| f.find(text, body_at).map(|i| (i, m.len())))
                    .min();
                match close {
                    Some((c, clen)) => (s, body_at, c, c + clen),
                    None => {
                        out.problems
                            .push(format!("{NAME}: section end missing (truncated reply)"));
                        (s, body_at, text.len(), text.len())
                    }
                }
            }
            (_, Some(l)) => match call_ends.find(text, l) {
                Some(c) => (l, l, c + CALL_END.len(), c + CALL_END.len()),
                None => (l, l, text.len(), text.len()),
            },
            (_, None) => break,
        };
        let calls = section_calls(&text[body_at..body_end], cx, &mut out.problems);
        if !calls.is_empty() {
            out.format = Some(NAME);
        }
        let block = Block::of_calls(start, end, calls, &mut out.problems, || {
            format!("{NAME}: section holds no readable call; raw text kept in content")
        });
        out.blocks.push(block);
        at = end.max(start + 1);
    }
    bare_id_calls(text, cx, &mut out);
    out
}

/// Where the bare call id `functions.NAME:IDX` (then spaces) that ends `before` starts, if it does.
pub fn bare_id_start(before: &str) -> Option<usize> {
    find_in_tail(&BARE_ID_RE, before)
}

/// The start of the match of `re` (anchored at the end) within the last 300 bytes of `s`.
fn find_in_tail(re: &Regex, s: &str) -> Option<usize> {
    let from = s.len().saturating_sub(300);
    let from = (from..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    re.find(&s[from..]).map(|m| from + m.start())
}

static BARE_ID_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"functions\.[A-Za-z0-9_.\-]+:\d+\s*$").expect("static regex"));

static PARTIAL_ID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:functions\.[A-Za-z0-9_.\-]*(?::\d*)?\s*|f(?:u(?:n(?:c(?:t(?:i(?:o(?:n(?:s)?)?)?)?)?)?)?)?)$")
        .expect("static regex")
});

/// Where a bare call id that may still be completing ends `tail` (a stream holds it back).
pub fn partial_id_start(tail: &str) -> Option<usize> {
    find_in_tail(&PARTIAL_ID_RE, tail)
}

/// Calls written `functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>` outside
/// every block found (their `<|tool_call_begin|>` stripped).
fn bare_id_calls(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut args = Finder::new(ARG_BEGIN);
    let mut call_ends = Finder::new(CALL_END);
    let mut at = 0;
    let mut found = Vec::new();
    while let Some(a) = args.find(text, at) {
        at = a + ARG_BEGIN.len();
        // The blocks of the main loop are sorted and do not overlap: one binary search.
        let before = out.blocks.partition_point(|b| b.start <= a);
        if before > 0 && out.blocks[before - 1].end > a {
            continue;
        }
        let Some(start) = bare_id_start(&text[..a]) else {
            continue;
        };
        let end = call_ends
            .find(text, at)
            .map_or(text.len(), |e| e + CALL_END.len());
        let body = format!("{CALL_BEGIN}{}", &text[start..end]);
        let calls = section_calls(&body, cx, &mut out.problems);
        if !calls.is_empty() {
            out.format = Some(NAME);
        }
        found.push(Block::of_calls(
            start,
            end,
            calls,
            &mut out.problems,
            || format!("{NAME}: call holds no readable arguments; raw text kept in content"),
        ));
        at = end.max(at);
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
}

fn section_calls(body: &str, cx: &Ctx, problems: &mut Vec<String>) -> Vec<RawCall> {
    let mut calls = Vec::new();
    let mut begins = Finder::new(CALL_BEGIN);
    let mut ends = Finder::new(CALL_END);
    let mut at = 0;
    while let Some(b) = find_from(body, CALL_BEGIN, at) {
        let id_at = b + CALL_BEGIN.len();
        let next_call = begins.find(body, id_at).unwrap_or(body.len());
        let call_end = match ends.find(body, id_at) {
            Some(e) if e < next_call => e,
            _ => {
                problems.push(format!("{NAME}: {CALL_END} missing (truncated reply)"));
                next_call
            }
        };
        at = call_end.max(id_at);
        let call = &body[id_at..call_end];
        let Some((id, raw_args)) = call.split_once(ARG_BEGIN) else {
            problems.push(format!("{NAME}: call without {ARG_BEGIN} skipped"));
            continue;
        };
        let id = id.trim();
        let arguments = normalize_json_args(raw_args, NAME, problems);
        if let Some(name) = id_name(id) {
            let name = name.strip_prefix("functions.").unwrap_or(name);
            calls.push(RawCall {
                name: name.to_owned(),
                arguments,
                id: Some(id.to_owned()),
            });
        } else if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
            match infer_name(cx.tools, &arguments) {
                Some(name) => calls.push(RawCall {
                    id: Some(format!("functions.{name}:{id}")),
                    name,
                    arguments,
                }),
                None => problems.push(format!(
                    "{NAME}: call id {id:?} names no function and no single tool fits; skipped"
                )),
            }
        } else {
            problems.push(format!("{NAME}: call id {id:?} has no :<index>; skipped"));
        }
    }
    calls
}

/// The only tool offered, or the one tool whose schema properties include every argument key.
fn infer_name(tools: Option<&Value>, arguments: &str) -> Option<String> {
    let tools = tools?.as_array()?;
    let fns: Vec<&Value> = tools
        .iter()
        .map(|t| t.get("function").unwrap_or(t))
        .collect();
    let name_of = |f: &Value| f.get("name").and_then(Value::as_str).map(str::to_owned);
    if fns.len() == 1 {
        return name_of(fns[0]);
    }
    let args: serde_json::Map<String, Value> = serde_json::from_str(arguments).ok()?;
    let mut fits = fns.iter().filter(|f| {
        let props = f.get("parameters").and_then(|p| p.get("properties"));
        args.keys().all(|k| props.and_then(|p| p.get(k)).is_some())
    });
    let first = fits.next()?;
    if fits.next().is_some() {
        return None;
    }
    name_of(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn id_names_are_the_regex_group() {
        for id in [
            "functions.read_file:3",
            "read_file:12",
            "functions.:1",
            "functions.functions.x:0",
            "a:b:7",
            ":1",
            "f:",
            "f:x",
            "f\nx:1",
            "f:١٢",
            "名字:1",
        ] {
            let want = ID_RE
                .captures(id)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str());
            assert_eq!(id_name(id), want, "{id:?}");
        }
    }

    #[test]
    fn keeps_model_ids_and_reads_names() {
        let t = "<|tool_calls_section_begin|>\n<|tool_call_begin|> functions.get_weather:0 <|tool_call_argument_begin|> {\"city\": \"Beijing\"} <|tool_call_end|>\n\
                 <|tool_call_begin|>search:7<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>";
        let p = parse(t, &Ctx::default());
        let c = &p.blocks[0].calls;
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].id.as_deref(), c[0].name.as_str()),
            (Some("functions.get_weather:0"), "get_weather")
        );
        assert_eq!(c[0].arguments, r#"{"city":"Beijing"}"#);
        assert_eq!(
            (c[1].id.as_deref(), c[1].name.as_str()),
            (Some("search:7"), "search")
        );
        assert_eq!(p.blocks[0].end, t.len());
    }

    #[test]
    fn id_without_index_is_skipped() {
        let t = "<|tool_call_section_begin|><|tool_call_begin|>functions.invalid.0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_section_end|>";
        let p = parse(t, &Ctx::default());
        assert!(p.blocks[0].keep_raw);
        assert_eq!(p.problems.len(), 2);
    }

    #[test]
    fn bare_counter_infers_the_tool() {
        let tools = json!([
            {"function": {"name": "a", "parameters": {"properties": {"x": {}}}}},
            {"function": {"name": "b", "parameters": {"properties": {"y": {}}}}}
        ]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>{\"y\": 1}<|tool_call_end|><|tool_calls_section_end|>";
        let c = &parse(t, &cx).blocks[0].calls;
        assert_eq!(
            (c[0].name.as_str(), c[0].id.as_deref()),
            ("b", Some("functions.b:0"))
        );
        assert!(parse(t, &Ctx::default()).blocks[0].calls.is_empty());
    }
}
