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
//!
//! - Hermes Agent's text for a call in its history, `[Calling tool: NAME with arguments: {…}]`
//!   (hermes-studio's web UI converts a tool-call message to it), which models behind Hermes
//!   copy instead of calling (EKKOLearnAI/hermes-studio#942, MiniMax-M2.7, with the JSON's quotes
//!   typographic: `{“command”: “free -h”}`). The head names the form, so no tools need be
//!   offered; the arguments are one JSON object (typographic quotes read as its string
//!   delimiters only where they stand as delimiters, [`straight_quotes`]) then `]`. Arguments
//!   that do not read, or a reply cut inside them, give no call: the block is removed and
//!   reported. A reply cut right after the object (the `]` lost) still gives the call, reported
//!   truncated. In code, or followed by anything but `]`, it is text.

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
    if find_from(text, CALLING, 0).is_some() {
        calling_with_args(text, &mut out);
    }
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

/// Hermes Agent's call head (shared with MiniMax-M2.7's parameter form, [`super::minimax_m2`]).
pub(crate) const CALLING: &str = super::minimax_m2::CALLING;
/// The words between the name and the arguments.
const WITH_ARGS: &str = " with arguments: ";

/// What follows [`CALLING`] in `rest`: an ASCII name, [`WITH_ARGS`], spaces, then `{`.
/// `Some(Some(at))`: that head, its `{` at `rest[at]`; `Some(None)`: not that head; `None`: not
/// known before more text comes (`fin`: the reply ended). Decided within a name's length and the
/// words after it.
pub(crate) fn calling_args_head(rest: &str, fin: bool) -> Option<Option<usize>> {
    let wait = if fin { Some(None) } else { None };
    let n = name_len(rest);
    let after = &rest[n..];
    if after.is_empty() {
        return if n <= 256 { wait } else { Some(None) };
    }
    if n == 0 || !is_name(&rest[..n]) {
        return Some(None);
    }
    let Some(t) = after.strip_prefix(WITH_ARGS) else {
        return if WITH_ARGS.starts_with(after) {
            wait
        } else {
            Some(None)
        };
    };
    let body = t.trim_start_matches([' ', '\t']);
    match body.as_bytes().first() {
        Some(b'{') => Some(Some(rest.len() - body.len())),
        None => wait,
        Some(_) => Some(None),
    }
}

/// The length of the ASCII name that starts `rest` (at most 257 bytes are looked at).
fn name_len(rest: &str) -> usize {
    rest.bytes()
        .take(257)
        .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
        .count()
}

/// The spaces allowed between the arguments object and its `]`.
pub(crate) const ARGS_SPACES: usize = 8;

/// Where a call whose arguments object ends at `end` ends: past its `]` (`Ok`), or, in a reply
/// that ends there (`fin`; spaces aside), at the reply's end with the `]` lost (`Err(true)`).
/// `Err(false)`: no `]` follows (a stream asks only once more text cannot make one follow).
pub(crate) fn args_close(text: &str, end: usize, fin: bool) -> Result<usize, bool> {
    let rest = &text[end..];
    let t = rest.trim_start_matches([' ', '\t']);
    let spaces = rest.len() - t.len();
    if spaces > ARGS_SPACES {
        return Err(false);
    }
    match t.as_bytes().first() {
        Some(b']') => Ok(end + spaces + 1),
        None if fin => Err(true),
        _ => Err(false),
    }
}

/// `[Calling tool: NAME with arguments: {…}]` blocks outside the blocks already in `out`.
fn calling_with_args(text: &str, out: &mut Parsed) {
    let mut taken: Vec<(usize, usize)> = out.blocks.iter().map(|b| (b.start, b.end)).collect();
    taken.sort_unstable();
    let mut k = 0;
    let mut heads = Finder::new(CALLING);
    let mut at = 0;
    while let Some(i) = heads.find(text, at) {
        let head = i + CALLING.len();
        at = head;
        while taken.get(k).is_some_and(|b| b.1 <= i) {
            k += 1;
        }
        if taken.get(k).is_some_and(|b| b.0 <= i) {
            continue;
        }
        let Some(Some(off)) = calling_args_head(&text[head..], true) else {
            continue;
        };
        let json_at = head + off;
        let name = &text[head..head + name_len(&text[head..])];
        let (end, call) = match balanced_end(text, json_at, false) {
            None => {
                out.problems.push(format!(
                    "{NAME}: [Calling tool: {name}] arguments cut off (truncated reply)"
                ));
                (text.len(), None)
            }
            Some(obj_end) => match args_close(text, obj_end, true) {
                Ok(end) => (end, args_call(name, &text[json_at..obj_end])),
                Err(true) => {
                    out.problems.push(format!(
                        "{NAME}: ] missing after [Calling tool: {name}] (truncated reply)"
                    ));
                    (text.len(), args_call(name, &text[json_at..obj_end]))
                }
                Err(false) => continue,
            },
        };
        out.blocks.push(Block::of_calls(
            i,
            end,
            call.into_iter().collect(),
            &mut out.problems,
            || format!("{NAME}: [Calling tool: {name}] arguments do not read as a JSON object; raw text kept in content"),
        ));
        at = end.max(at);
    }
}

/// The call of `[Calling tool: NAME with arguments: ARGS]`, when `ARGS` reads as a JSON object.
fn args_call(name: &str, args: &str) -> Option<RawCall> {
    match serde_json::from_str::<Value>(&straight_quotes(args)) {
        Ok(Value::Object(obj)) => Some(RawCall {
            name: name.to_owned(),
            arguments: Value::Object(obj).to_string(),
            id: None,
        }),
        _ => None,
    }
}

/// `json` with typographic double quotes (`“`, `”`) read as string delimiters where they stand as
/// delimiters: outside a string, `“` or `”` opens one; inside a string a typographic opening
/// closes at a `”` (or `“`) followed, after spaces, by `:`, `,`, `}`, `]` or the end. Straight
/// quotes inside such a string are escaped; every other character (`‘…’` included) is kept.
/// Borrowed when `json` has no typographic double quote.
fn straight_quotes(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.contains(['“', '”']) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    // The string being read: opened by a straight quote, or by a typographic one.
    let mut open: Option<bool> = None;
    let mut escaped = false;
    for (i, ch) in json.char_indices() {
        match open {
            None => match ch {
                '"' => {
                    open = Some(false);
                    out.push('"');
                }
                '“' | '”' => {
                    open = Some(true);
                    out.push('"');
                }
                _ => out.push(ch),
            },
            Some(false) => {
                out.push(ch);
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == '"' {
                    open = None;
                }
            }
            Some(true) => match ch {
                '”' | '“' if closes_string(&json[i + ch.len_utf8()..]) => {
                    open = None;
                    out.push('"');
                }
                '"' if closes_string(&json[i + 1..]) => {
                    open = None;
                    out.push('"');
                }
                '"' => out.push_str("\\\""),
                _ => out.push(ch),
            },
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether a quote followed by `rest` ends a JSON string: spaces, then `:`, `,`, `}`, `]` or the
/// end.
fn closes_string(rest: &str) -> bool {
    matches!(
        rest.trim_start().as_bytes().first(),
        None | Some(b':' | b',' | b'}' | b']')
    )
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
    use super::{args_close, calling_args_head, straight_quotes};

    #[test]
    fn calling_tool_with_arguments_head_and_quotes() {
        assert_eq!(
            calling_args_head("terminal with arguments: {}]", true),
            Some(Some(25))
        );
        assert_eq!(calling_args_head("terminal with argu", false), None);
        assert_eq!(calling_args_head("terminal with argu", true), Some(None));
        assert_eq!(calling_args_head("search_files]\n", false), Some(None));
        assert_eq!(
            calling_args_head("名字 with arguments: {}", true),
            Some(None)
        );
        assert_eq!(args_close("{} ]", 2, false), Ok(4));
        assert_eq!(args_close("{}  ", 2, true), Err(true));
        assert_eq!(args_close("{} 好", 2, true), Err(false));
        assert_eq!(
            straight_quotes("{“cmd”: “echo ‘好’ \"x\"”}"),
            r#"{"cmd": "echo ‘好’ \"x\""}"#
        );
        // Inside a straight-quoted string typographic quotes are text.
        assert_eq!(
            straight_quotes("{\"a\": \"他说“好”\"}"),
            "{\"a\": \"他说“好”\"}"
        );
        assert_eq!(straight_quotes("{“a”: \"b\"}"), "{\"a\": \"b\"}");
    }

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
