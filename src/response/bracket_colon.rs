//! Calls narrated as `[tool_call: NAME] key: value]`, as Qwen3.6-35B-A3B under llama-server wrote
//! three of them in a row into `content` (llama.cpp issue 26987):
//!
//! ```text
//! [[tool_call: read_file] path: "/path/to/file1.md"][tool_call: read_file] path: "/path/to/file2.md"]…
//! ```
//!
//! Nothing but the offered tool's name tells this from a bracket in prose, so a call is read only
//! when `NAME` is exactly one of the offered tools; without tools, or with another name, it is
//! text. The whole call sits on one line: `[tool_call:`, the name, `]`, then `key: value` pairs
//! (separated by spaces or commas; a value is a JSON string or bare text up to `,`, `]` or the
//! line's end, typed by the tool's schema as the XML families' values are, [`super::typing`]),
//! then the call's own `]`. The stray `[` the model wrote before its first call (`[[tool_call:`)
//! belongs to the call. Each call is read on its own, within its line, so many openers stay
//! linear; a call that does not close on its line is text. A call the reply ends inside (cut by
//! `max_tokens` after its first `key:`, within the bound) is removed to the end of the reply and
//! reported (`truncated`, the raw text kept); cut before a key it is text (`[tool_call: NAME]` at
//! the end of a sentence is a mention).

use serde_json::Value;

use super::bare_json::{names, offered};
use super::scan::{find_from, floor, is_name};
use super::tool_json::offers_tools;
use super::typing::{typed_arguments, Style};
use super::RawCall;

/// The opener (spaces may follow the colon).
pub const OPEN: &str = "[tool_call:";
/// The opener with the stray `[` before it.
pub const OPEN2: &str = "[[tool_call:";

/// The longest name read.
const MAX_NAME: usize = 64;

/// The longest call read: a narrated call is one short line, and a longer one is text. A stream
/// re-reads a held call from its opener on each delta, so this bound is what keeps a long line
/// after an opener (a value that never ends) linear when it arrives in small deltas.
const MAX_CALL: usize = 4096;

/// The call at the start of `s` (which starts with [`OPEN`] or [`OPEN2`]): `Some(Some((call,
/// len)))` when one is there whole, naming an offered tool; `Some(None)` when it is text; `None`
/// when `s` ends before that is known and more may come (`fin` false). Reads no further than the
/// first thing that is not part of the call (a line break among them), nor past [`MAX_CALL`].
pub fn call_at(s: &str, fin: bool, tools: Option<&Value>) -> Option<Option<(RawCall, usize)>> {
    if s.len() > MAX_CALL {
        // What would still need more text past the bound is too long to be a call.
        return Some(call_within(&s[..floor(s, MAX_CALL)], false, tools, false).unwrap_or(None));
    }
    call_within(s, fin, tools, false)
}

/// Whether the finished reply ends inside the call at the start of `s` (which starts with
/// [`OPEN`] or [`OPEN2`]), within [`MAX_CALL`], everything after the opener a call still
/// arriving; `placed`: the opener stands where a call does (a line's start, right after removed
/// markup), not inside a sentence. With tools offered: the name closed and offered with a `key:`
/// read (anywhere), or, where placed, the name or the text after it cut (`[tool_call: read_f`
/// naming the start of an offered tool, `[tool_call: read_file] p`). With no tools offered, only
/// the strong evidence where placed: the whole `[tool_call: NAME]` head and a `key:` after it.
pub fn cut(s: &str, tools: Option<&Value>, placed: bool) -> bool {
    if s.len() > MAX_CALL {
        return false;
    }
    let skip = usize::from(s.starts_with(OPEN2));
    let Some(rest) = s[skip..].strip_prefix(OPEN) else {
        return false;
    };
    let head = rest.trim_start_matches(' ');
    let Some(close) = memchr::memchr(b']', head.as_bytes()) else {
        // The name cut: the start of an offered tool's name.
        return placed
            && !head.is_empty()
            && head.len() <= MAX_NAME
            && names(tools).any(|n| n.starts_with(head));
    };
    let t = head[close + 1..].trim_start_matches([' ', ',', '\t']);
    let key_len = t
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        .unwrap_or(t.len());
    let keyed = key_len > 0 && t[key_len..].starts_with(':');
    if offers_tools(tools) {
        // Still arriving: the name is offered, the rest is a call's.
        call_within(s, false, tools, false).is_none() && (keyed || placed)
    } else {
        keyed && placed && call_within(s, false, tools, true).is_none()
    }
}

/// [`call_at`] without the bound.
/// `any`: any name is read, offered or not (to tell a cut call from text with no tools offered).
fn call_within(
    s: &str,
    fin: bool,
    tools: Option<&Value>,
    any: bool,
) -> Option<Option<(RawCall, usize)>> {
    let more = if fin { Some(None) } else { None };
    let skip = usize::from(s.starts_with(OPEN2));
    let Some(rest) = s[skip..].strip_prefix(OPEN) else {
        return Some(None);
    };
    let head = rest.trim_start_matches(' ');
    let window = &head.as_bytes()[..head.len().min(MAX_NAME + 1)];
    let Some(close) = memchr::memchr(b']', window) else {
        return if window.len() > MAX_NAME {
            Some(None)
        } else {
            more
        };
    };
    let name = head[..close].trim_end_matches(' ');
    if !is_name(name) || !(any || offered(tools, name)) {
        return Some(None);
    }
    let mut t = &head[close + 1..];
    let mut pairs: Vec<(&str, String)> = Vec::new();
    loop {
        t = t.trim_start_matches([' ', ',', '\t']);
        if t.is_empty() {
            return more;
        }
        if let Some(after) = t.strip_prefix(']') {
            let len = s.len() - after.len();
            let arguments = typed_arguments(
                pairs.iter().map(|(k, v)| (*k, v.as_str())),
                tools,
                name,
                Style::Schema { minimax: false },
            );
            let call = RawCall {
                name: name.to_owned(),
                arguments,
                id: None,
            };
            return Some(Some((call, len)));
        }
        let key_len = t
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .unwrap_or(t.len());
        if key_len == t.len() {
            return more;
        }
        let Some(v) = t[key_len..].strip_prefix(':').filter(|_| key_len > 0) else {
            return Some(None);
        };
        let key = &t[..key_len];
        let v = v.trim_start_matches(' ');
        if v.is_empty() {
            return more;
        }
        match value(v) {
            Ok((value, after)) => {
                pairs.push((key, value));
                t = after;
            }
            Err(true) => return more,
            Err(false) => return Some(None),
        }
    }
}

/// A value at the start of `s` and the rest: a JSON string, or bare text up to `,` or `]` (not
/// empty; a `[` or a line break first is no value). `Err(true)`: `s` ends inside the value.
fn value(s: &str) -> Result<(String, &str), bool> {
    if s.starts_with('"') {
        let mut it = serde_json::Deserializer::from_str(s).into_iter::<String>();
        return match it.next() {
            Some(Ok(v)) => Ok((v, &s[it.byte_offset()..])),
            Some(Err(e)) if e.is_eof() => Err(true),
            _ => Err(false),
        };
    }
    let Some(end) = s.find([',', ']', '[', '\n']) else {
        return Err(true);
    };
    let v = s[..end].trim_end();
    if matches!(s.as_bytes()[end], b'[' | b'\n') || v.is_empty() {
        return Err(false);
    }
    Ok((v.to_owned(), &s[end..]))
}

/// The calls of `text` added to `out`, each its own block, and a call the text ends inside
/// ([`cut`]: placed at the text's start, a line's start or right after a call read).
pub fn read(text: &str, tools: Option<&Value>, out: &mut super::Parsed) {
    let tooled = offers_tools(tools);
    let mut at = 0;
    while let Some(i) = find_from(text, OPEN, at) {
        let start = if i > 0 && text.as_bytes()[i - 1] == b'[' && i > at {
            i - 1
        } else {
            i
        };
        let call = if tooled {
            call_at(&text[start..], true, tools)
        } else {
            None
        };
        match call {
            Some(Some((call, len))) => {
                out.blocks.push(super::Block {
                    start,
                    end: start + len,
                    calls: vec![call],
                    keep_raw: false,
                });
                at = start + len;
            }
            _ if cut(&text[start..], tools, placed(text, start, at)) => {
                out.problems.push(format!(
                    "bracket_calls: {OPEN} call cut off by the end of the reply (truncated); no call"
                ));
                out.blocks.push(super::Block::of_calls(
                    start,
                    text.len(),
                    Vec::new(),
                    &mut out.problems,
                    || format!("bracket_calls: {OPEN} call cut off; raw text kept in content"),
                ));
                return;
            }
            _ => at = i + OPEN.len(),
        }
    }
}

/// Whether the opener at `start` of `text` stands where a call does: at the text's start or a
/// line's start (up to three spaces before it), or right after the call read up to `read_to`.
fn placed(text: &str, start: usize, read_to: usize) -> bool {
    let line = text[..start].rsplit('\n').next().unwrap_or_default();
    (start == read_to && start > 0) || (line.len() <= 3 && line.bytes().all(|b| b == b' '))
}

#[cfg(test)]
mod tests {
    use super::super::linearity::{assert_grows_linearly, stream_in_deltas};
    use super::super::{clean_response, Options};
    use super::*;
    use serde_json::json;

    fn tools() -> Value {
        json!([{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}}}}])
    }

    #[test]
    fn reads_one_line_calls_of_offered_tools_only() {
        let t = tools();
        let read =
            |s: &str, fin| call_at(s, fin, Some(&t)).map(|c| c.map(|(c, n)| (c.arguments, n)));
        let s = "[[tool_call: read_file] path: \"/a 北京.md\", limit: 5]x";
        assert_eq!(
            read(s, true),
            Some(Some((
                r#"{"path":"/a 北京.md","limit":5}"#.into(),
                s.len() - 1
            )))
        );
        assert_eq!(
            read("[tool_call: read_file] path: /tmp/a]", true).map(|c| c.map(|c| c.0)),
            Some(Some(r#"{"path":"/tmp/a"}"#.into()))
        );
        // Another name, no tools, a line break inside, or no closing `]`: text.
        assert_eq!(
            read("[tool_call: write_file] path: \"a\"]", true),
            Some(None)
        );
        assert_eq!(
            call_at("[tool_call: read_file] path: \"a\"]", true, None).map(|c| c.is_some()),
            Some(false)
        );
        assert_eq!(
            read("[tool_call: read_file] path: \"a\"\n]", true),
            Some(None)
        );
        assert_eq!(read("[tool_call: read_file] path: \"a\"", true), Some(None));
        assert_eq!(
            read("[tool_call: read_file for absolute_path 'a']", true),
            Some(None)
        );
        // Cut by the end of a stream's buffer: not known yet.
        assert_eq!(read("[tool_call: read_file] path: \"/a", false), None);
        assert_eq!(read("[tool_call: read_fi", false), None);
        // A value longer than a call can be: text, also while it is still arriving.
        let long = format!("[tool_call: read_file] path: \"{}", "北京".repeat(MAX_CALL));
        assert_eq!(read(&long, false), Some(None));
        assert_eq!(read(&format!("{long}\"]"), true), Some(None));
    }

    #[test]
    fn many_unclosed_openers_stay_linear() {
        let opts = Options {
            tools: Some(tools()),
            ..Options::default()
        };
        // Openers on one line that never close, and openers inside one long code span.
        let make = |n: usize| "[tool_call: read_file] path: \"北京\" ".repeat(n / 40 + 1);
        assert_grows_linearly("bracket_colon unclosed openers", &make, &|t| {
            let _ = clean_response(t, &opts);
        });
        let code = |n: usize| {
            format!(
                "`{}`",
                "[[tool_call: read_file] path: 北 ".repeat(n / 36 + 1)
            )
        };
        assert_grows_linearly("bracket_colon openers in code", &code, &|t| {
            let _ = clean_response(t, &opts);
        });
        // A value that never ends, arriving in 64-byte deltas: the held call is re-read on each
        // delta only up to its bound (it was re-read whole: 1 MB took ~50× its 100 KB time).
        let value = |n: usize| {
            format!(
                "[tool_call: read_file] path: \"{}",
                "北京abc ".repeat(n / 10)
            )
        };
        assert_grows_linearly("bracket_colon long value, streamed", &value, &|t| {
            stream_in_deltas(&opts, t, 64);
        });
        // Openers whose string values never close, each asked at the end of the reply whether
        // it was cut there (only the last 4,096 bytes can hold such a call).
        let cut = |n: usize| "[tool_call: read_file] path: \"北京 ".repeat(n / 36 + 1);
        assert_grows_linearly("bracket_colon cut calls, streamed", &cut, &|t| {
            stream_in_deltas(&opts, t, 64);
        });
    }
}
