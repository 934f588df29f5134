//! Calls written between bracketed words, as agents' text-only tool protocols and older MiniMax
//! models leave them in `content` (OpenClaw strips both: its "legacy `[TOOL_CALL]`" and
//! "plain-text tool calls" scrubbers):
//!
//! - MiniMax's `[TOOL_CALL]{tool => "read", args => {--path "a.txt" --limit 20}}[/TOOL_CALL]`, and
//!   its JSON variant `[TOOL_CALL]{"tool": "read", "args": {…}}[/TOOL_CALL]` (or `name` /
//!   `arguments`);
//! - LM Studio's `[TOOL_REQUEST]{"name": …, "arguments": {…}}[END_TOOL_REQUEST]`, and the form
//!   with the name in brackets on its own line: `[read]\n{"path": "a.txt"}\n[END_TOOL_REQUEST]`;
//! - Qwen 3.6's narrated `[tool_call: NAME] key: "value"]`, only for an offered tool
//!   ([`super::bracket_colon`]).
//!
//! The closing words are what makes them calls: a block is read only up to its closing word, the
//! closing word must come, and the whole body must read. The one exception is the reply's last
//! opener whose `{` never closes before the reply ends ([`cut_body`]): a call cut by `max_tokens`,
//! removed from `content` and reported (`truncated`), never returned. `--key value` arguments are
//! strings (a JSON-quoted value is decoded; an unquoted one runs to the end of its line or to the
//! next ` --key` on it, as in `--command echo "hello"`), typed by the tools' schemas as the XML
//! families' values are ([`super::typing`]).

use serde_json::Value;

use super::json_calls::{call_from_value, ARG_KEYS};
use super::scan::{balanced_end, find_from, is_name, Finder};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "bracket_calls";
const TC_OPEN: &str = "[TOOL_CALL]";
const TC_CLOSE: &str = "[/TOOL_CALL]";
const TR_OPEN: &str = "[TOOL_REQUEST]";
const TR_CLOSE: &str = "[END_TOOL_REQUEST]";

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    tagged(text, TC_OPEN, TC_CLOSE, cx, &mut out);
    tagged(text, TR_OPEN, TR_CLOSE, cx, &mut out);
    named_requests(text, cx, &mut out);
    super::bracket_colon::read(text, cx.tools, &mut out);
    out.blocks.sort_by_key(|b| b.start);
    out.set_format_if_calls(NAME);
    out
}

/// `OPEN body CLOSE` blocks.
fn tagged(text: &str, open: &str, close: &str, cx: &Ctx, out: &mut Parsed) {
    let mut opens = Finder::new(open);
    let mut closes = Finder::new(close);
    let mut at = 0;
    while let Some(start) = opens.find(text, at) {
        let body_at = start + open.len();
        let next = opens.find(text, body_at);
        let Some(c) = closes
            .find(text, body_at)
            .filter(|&c| next.is_none_or(|n| c < n))
        else {
            out.problems.push(format!(
                "{NAME}: {close} missing (truncated reply); no call"
            ));
            if next.is_none() && cut_body(&text[body_at..]) {
                out.blocks.push(Block::of_calls(
                    start,
                    text.len(),
                    Vec::new(),
                    &mut out.problems,
                    || format!("{NAME}: {open} block cut off inside its arguments; raw text kept in content"),
                ));
                return;
            }
            at = body_at;
            continue;
        };
        let end = c + close.len();
        let call = read_body(text[body_at..c].trim(), None, cx);
        out.blocks.push(Block::of_calls(
            start,
            end,
            call.into_iter().collect(),
            &mut out.problems,
            || format!("{NAME}: {open} block does not read as a call; raw text kept in content"),
        ));
        at = end;
    }
}

/// Whether `body` (what follows the last opener of a reply that has no closing word after it) is
/// a call cut off by the end of the reply: a `{` whose braces never close. Such a block is the
/// reply's end cut by `max_tokens`, removed and reported (a block whose braces close but whose
/// closing word never comes is kept as text: nothing says it is a call).
pub fn cut_body(body: &str) -> bool {
    let t = body.trim_start();
    t.starts_with('{') && balanced_end(t, 0, false).is_none()
}

/// `[NAME]\n{json}\n[END_TOOL_REQUEST]`: the name on its own line before the arguments. Each
/// closing word looks back only to the previous one, so many of them stay linear.
fn named_requests(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut tagged_ends: Vec<usize> = out.blocks.iter().map(|b| b.end).collect();
    tagged_ends.sort_unstable();
    let mut from = 0;
    let mut at = 0;
    while let Some(c) = find_from(text, TR_CLOSE, at) {
        at = c + TR_CLOSE.len();
        let region_at = from;
        from = at;
        if tagged_ends.binary_search(&at).is_ok() {
            continue;
        }
        let before = text[region_at..c].trim_end();
        let Some(line_end) = before.rfind("]\n") else {
            continue;
        };
        let Some(open) = before[..line_end].rfind('[') else {
            continue;
        };
        let name = &before[open + 1..line_end];
        let line_start = region_at + open == 0 || text[..region_at + open].ends_with('\n');
        if !line_start || !is_name(name) || name == "TOOL_REQUEST" {
            continue;
        }
        let body = before[line_end + 1..].trim();
        let Some(call) = read_body(body, Some(name), cx) else {
            continue;
        };
        out.blocks.push(Block {
            start: region_at + open,
            end: at,
            calls: vec![call],
            keep_raw: false,
        });
    }
}

/// The call of one body: JSON, or MiniMax's `{tool => "x", args => {--k "v"}}`. With `name`
/// given (the bracketed-name form), the body is the arguments object.
fn read_body(body: &str, name: Option<&str>, cx: &Ctx) -> Option<RawCall> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return match (name, v) {
            (Some(n), Value::Object(args)) => Some(RawCall {
                name: n.to_owned(),
                arguments: Value::Object(args).to_string(),
                id: None,
            }),
            (None, Value::Object(mut obj)) => {
                if let Some(tool) = obj.remove("tool") {
                    obj.insert("name".into(), tool);
                }
                let call = call_from_value(Value::Object(obj), NAME, None, &mut Vec::new())?;
                is_name(&call.name).then_some(call)
            }
            _ => None,
        };
    }
    if name.is_some() {
        return None;
    }
    arrow_call(body, cx)
}

/// `{tool => "x", args => {--k "v" --k2 v2}}`.
fn arrow_call(body: &str, cx: &Ctx) -> Option<RawCall> {
    let inner = body.strip_prefix('{')?.strip_suffix('}')?.trim();
    let rest = inner
        .strip_prefix("tool")?
        .trim_start()
        .strip_prefix("=>")?;
    let (name, rest) = word(rest.trim_start())?;
    if !is_name(&name) {
        return None;
    }
    let rest = rest.trim_start();
    if rest.is_empty() {
        return Some(RawCall {
            name,
            arguments: "{}".into(),
            id: None,
        });
    }
    let rest = rest.strip_prefix(',')?.trim_start();
    let key = ARG_KEYS.iter().find(|k| rest.starts_with(**k))?;
    let rest = rest[key.len()..]
        .trim_start()
        .strip_prefix("=>")?
        .trim_start();
    let args = rest.strip_prefix('{')?.strip_suffix('}')?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut rest = args.trim_start();
    while !rest.is_empty() {
        let r = rest.strip_prefix("--")?;
        let k_end = r.find(char::is_whitespace).unwrap_or(r.len());
        let key = &r[..k_end];
        if key.is_empty() {
            return None;
        }
        let (value, after) = flag_value(r[k_end..].trim_start())?;
        pairs.push((key.to_owned(), value));
        rest = after.trim_start();
    }
    let typed = typed_arguments(
        pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        cx.tools,
        &name,
        Style::Schema { minimax: true },
    );
    Some(RawCall {
        name,
        arguments: typed,
        id: None,
    })
}

/// The value of a `--key` at the start of `s`, and the rest: a JSON string, or unquoted text up to
/// the end of its line or to the whitespace before the next `--key` on it (MiniMax writes
/// `--command echo "hello"` as well as `--path "a.txt" --limit 20`). Read in one pass over the
/// value's own bytes, so a block of many pairs stays linear.
fn flag_value(s: &str) -> Option<(String, &str)> {
    if s.starts_with('"') {
        return word(s);
    }
    let b = s.as_bytes();
    if b.starts_with(b"--") {
        // A key where its value belongs: the pair before it has none.
        return None;
    }
    let mut end = 0;
    while end < b.len() && b[end] != b'\n' {
        let next_key = b[end].is_ascii_whitespace()
            && b[end + 1..].starts_with(b"--")
            && b.get(end + 3)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
        if next_key {
            break;
        }
        end += 1;
    }
    let value = s[..end].trim_end();
    (!value.is_empty()).then(|| (value.to_owned(), &s[end..]))
}

/// A JSON string or a bare word at the start of `s`, and the rest.
fn word(s: &str) -> Option<(String, &str)> {
    if s.starts_with('"') {
        let mut stream = serde_json::Deserializer::from_str(s).into_iter::<String>();
        let v = stream.next()?.ok()?;
        return Some((v, &s[stream.byte_offset()..]));
    }
    let end = s
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(s.len());
    (end > 0).then(|| (s[..end].to_owned(), &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::super::{clean_response, linearity::assert_grows_linearly, Options};

    #[test]
    fn unquoted_flag_values_on_one_line_stay_linear() {
        // One block whose arguments are many unquoted `--key value` pairs on a single line: each
        // value is read up to the next ` --key`, never to the end of the line again.
        let make = |n: usize| {
            let pairs = "--a 北京 x ".repeat(n / 14 + 1);
            format!("[TOOL_CALL]{{tool => \"f\", args => {{{pairs}}}}}[/TOOL_CALL]")
        };
        assert_grows_linearly("bracket_calls unquoted values", &make, &|t| {
            let _ = clean_response(t, &Options::default());
        });
    }
}
