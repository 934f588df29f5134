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

use super::tokens::{Dialect, Next, Tokens};
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

/// Kimi-K2's tokens as [`Tokens`] reads them: the kinds are the indexes below.
const TOKENS: Dialect = Dialect {
    open: "<|",
    close: "|>",
    names: &[
        "tool_calls_section_begin",
        "tool_call_section_begin",
        "tool_calls_section_end",
        "tool_call_section_end",
        "tool_call_begin",
        "tool_call_argument_begin",
        "tool_call_end",
        "reserved_token_163595",
        "reserved_token_163596",
        "reserved_token_163597",
        "reserved_token_163598",
        "reserved_token_163599",
    ],
};
/// Kind masks of [`TOKENS`].
const K_SECTION_BEGIN: u32 = 0b11;
const K_SECTION_END: u32 = 0b1100;
const K_CALL_BEGIN: u32 = 1 << 4;
const K_ARG_BEGIN: u32 = 1 << 5;
const K_CALL_END: u32 = 1 << 6;
const K_RESERVED: u32 = 0b1_1111 << 7;

/// The length of a token of the kind in `mask` (one bit) of [`TOKENS`].
fn token_len(mask: u32) -> usize {
    TOKENS
        .names
        .get(mask.trailing_zeros() as usize)
        .map_or(0, |n| TOKENS.open.len() + n.len() + TOKENS.close.len())
}

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let tokens = Tokens::scan(text, &TOKENS);
    if !tokens.any(K_RESERVED) {
        return parse_named(text, &tokens, cx);
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
    let mut out = parse_named(&canon, &Tokens::scan(&canon, &TOKENS), cx);
    for b in &mut out.blocks {
        b.start = orig(b.start);
        b.end = orig(b.end);
    }
    out
}

fn parse_named(text: &str, tokens: &Tokens, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut begins = Next::new(K_SECTION_BEGIN);
    let mut ends = Next::new(K_SECTION_END);
    let mut lones = Next::new(K_CALL_BEGIN);
    let mut call_ends = Next::new(K_CALL_END);
    let mut at = 0;
    let mut cut_tail = None;
    loop {
        let section = begins.find(tokens, at).map(|(i, k)| (i, token_len(k)));
        let lone = lones.find(tokens, at).map(|(i, _)| i);
        let use_section = match (section, lone) {
            (None, None) => break,
            (Some((s, _)), l) => l.is_none_or(|l| s < l),
            (None, Some(_)) => false,
        };
        let (start, body_at, body_end, end) = match (section, lone) {
            (Some((s, len)), _) if use_section => {
                let body_at = s + len;
                match ends.find(tokens, body_at) {
                    Some((c, k)) => (s, body_at, c, c + token_len(k)),
                    None => match cut_end(text, body_at) {
                        Some(last) => {
                            out.problems.push(SECTION_END_CUT.to_owned());
                            cut_tail = Some(last);
                            (s, body_at, last, last)
                        }
                        None => {
                            out.problems
                                .push(format!("{NAME}: section end missing (truncated reply)"));
                            (s, body_at, text.len(), text.len())
                        }
                    },
                }
            }
            (_, Some(l)) => match call_ends.find(tokens, l) {
                Some((c, _)) => (l, l, c + CALL_END.len(), c + CALL_END.len()),
                None => (l, l, text.len(), text.len()),
            },
            (_, None) => break,
        };
        let calls = section_calls(text, tokens, (body_at, body_end), cx, &mut out.problems);
        if !calls.is_empty() {
            out.format = Some(NAME);
        }
        let block = Block::of_calls(start, end, calls, &mut out.problems, || {
            format!("{NAME}: section holds no readable call; raw text kept in content")
        });
        out.blocks.push(block);
        at = end.max(start + 1);
        if let Some(tail) = cut_tail.take() {
            // The cut end token: markup, removed with the section (its cut is reported).
            out.blocks.push(Block {
                start: tail,
                end: text.len(),
                calls: Vec::new(),
                keep_raw: false,
            });
            at = text.len();
        }
    }
    bare_id_calls(text, tokens, cx, &mut out);
    out
}

/// The problem reported for a section whose end token the reply cut off mid-token right after
/// its last complete call (`…<|tool_call_end|> <|tool_calls_section_end|`, opencode#8851): every
/// call is whole, so all are read; only the cut is reported. [`super::stream`]'s reading of
/// reasoning takes such a section as complete.
pub const SECTION_END_CUT: &str =
    "truncated: kimi_k2: the section's end token is cut off after its last complete call";

/// The end of the section's last `<|tool_call_end|>` when all that follows it (after spaces) is
/// the start of a section end token cut by the end of the text; `None` otherwise.
fn cut_end(text: &str, body_at: usize) -> Option<usize> {
    let last = body_at + text.get(body_at..)?.rfind(CALL_END)? + CALL_END.len();
    let rest = text[last..].trim_start();
    let cut = !rest.is_empty()
        && SECTION_CLOSERS
            .iter()
            .any(|c| c.len() > rest.len() && c.starts_with(rest));
    cut.then_some(last)
}

/// Where the bare call id `functions.NAME:IDX` (then spaces) that ends `before` starts, if it does.
///
/// Some servers strip the `functions.` prefix too (typeclaw#344:
/// `channel_reply:0<|tool_call_argument_begin|>{…}<|tool_calls_section_end|>`). Such an id,
/// `NAME:IDX`, is taken only alone on its line ([`Plain`] says which lines).
pub fn bare_id_start(before: &str, plain: Plain) -> Option<usize> {
    find_in_tail(&BARE_ID_RE, before).or_else(|| plain_start(&PLAIN_ID_RE, before, plain))
}

/// Where an unprefixed `NAME:IDX` id may be taken (the prefixed one is taken anywhere).
#[derive(Debug, Clone, Copy)]
pub struct Plain {
    /// When only spaces and line breaks come before it.
    pub first: bool,
    /// At the start of any line.
    pub lines: bool,
    /// What comes before the text searched (a stream's text already released) ends inside a
    /// line that holds more than spaces: an id with only spaces before it in the text searched
    /// neither comes first nor starts its line.
    pub mid_line: bool,
    /// Only glued to the token after it (no space between): a stream then holds a first word
    /// back only until a space follows it.
    pub tight: bool,
}

/// The start of `re`'s match ending `s` when the match is alone on its line as `plain` allows.
fn plain_start(re: &Regex, s: &str, plain: Plain) -> Option<usize> {
    if plain.tight && s.ends_with([' ', '\t']) {
        return None;
    }
    let i = find_in_tail(re, s)?;
    let lead = s[..i].trim_end_matches([' ', '\t']);
    let ok = if lead.trim_start().is_empty() && !plain.mid_line {
        plain.first || (plain.lines && lead.ends_with('\n'))
    } else {
        plain.lines && lead.ends_with('\n')
    };
    ok.then_some(i)
}

static PLAIN_ID_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_.\-]*:\d+[ \t]*$").expect("static regex"));

static PARTIAL_PLAIN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_][A-Za-z0-9_.\-]*(?::\d*)?[ \t]*$").expect("static regex")
});

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
pub fn partial_id_start(tail: &str, plain: Plain) -> Option<usize> {
    find_in_tail(&PARTIAL_ID_RE, tail).or_else(|| plain_start(&PARTIAL_PLAIN_RE, tail, plain))
}

/// Calls written `functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>` outside
/// every block found (their `<|tool_call_begin|>` stripped).
fn bare_id_calls(text: &str, tokens: &Tokens, cx: &Ctx, out: &mut Parsed) {
    let mut args = Next::new(K_ARG_BEGIN);
    let mut call_ends = Next::new(K_CALL_END);
    let mut section_ends = Next::new(K_SECTION_END);
    let mut at = 0;
    let mut found = Vec::new();
    while let Some((a, _)) = args.find(tokens, at) {
        at = a + ARG_BEGIN.len();
        // The blocks of the main loop are sorted and do not overlap: one binary search.
        let before = out.blocks.partition_point(|b| b.start <= a);
        if before > 0 && out.blocks[before - 1].end > a {
            continue;
        }
        let plain = Plain {
            first: true,
            lines: true,
            mid_line: false,
            tight: false,
        };
        let Some(start) = bare_id_start(&text[..a], plain) else {
            continue;
        };
        // The call ends at its end token, or at a section's end token when that comes first
        // (the section closer is then markup of the block, not part of the arguments).
        let call_end = call_ends.find(tokens, at).map(|(e, _)| (e, CALL_END.len()));
        let section_end = section_ends
            .find(tokens, at)
            .map(|(e, k)| (e, token_len(k)));
        let (body_end, end, closed) = match (call_end, section_end) {
            (Some((c, _)), Some((s, n))) if s < c => (s, s + n, true),
            (Some((c, n)), _) => (c + n, c + n, false),
            (None, Some((s, n))) => (s, s + n, true),
            (None, None) => (text.len(), text.len(), false),
        };
        // Ended by the section's closer: the call is complete (its end token is implied).
        let implied = if closed { CALL_END } else { "" };
        let body = format!("{CALL_BEGIN}{}{implied}", &text[start..body_end]);
        let body_tokens = Tokens::scan(&body, &TOKENS);
        let calls = section_calls(&body, &body_tokens, (0, body.len()), cx, &mut out.problems);
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

/// The calls of the section body `text[lo..hi]` (`hi` is the end of the text or the start of a
/// token, so every token that starts inside the body ends inside it).
fn section_calls(
    text: &str,
    tokens: &Tokens,
    (lo, hi): (usize, usize),
    cx: &Ctx,
    problems: &mut Vec<String>,
) -> Vec<RawCall> {
    let mut calls = Vec::new();
    let mut firsts = Next::new(K_CALL_BEGIN);
    let mut begins = Next::new(K_CALL_BEGIN);
    let mut ends = Next::new(K_CALL_END);
    let mut args = Next::new(K_ARG_BEGIN);
    let mut at = lo;
    while let Some(b) = firsts.find_before(tokens, at, hi) {
        let id_at = b + CALL_BEGIN.len();
        let next_call = begins.find_before(tokens, id_at, hi).unwrap_or(hi);
        let call_end = match ends.find_before(tokens, id_at, hi) {
            Some(e) if e < next_call => e,
            _ => {
                problems.push(format!("{NAME}: {CALL_END} missing (truncated reply)"));
                next_call
            }
        };
        at = call_end.max(id_at);
        let Some(a) = args.find_before(tokens, id_at, call_end) else {
            problems.push(format!("{NAME}: call without {ARG_BEGIN} skipped"));
            continue;
        };
        let (id, raw_args) = (&text[id_at..a], &text[a + ARG_BEGIN.len()..call_end]);
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
    fn token_table_spells_the_tokens() {
        let spelled = TOKENS.spelled();
        let mut want = [SECTION_BEGINS, SECTION_ENDS].concat();
        want.extend([CALL_BEGIN, ARG_BEGIN, CALL_END]);
        want.extend(RESERVED.map(|(r, _)| r));
        assert_eq!(spelled, want);
        assert_eq!(token_len(K_ARG_BEGIN), ARG_BEGIN.len());
    }

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
