//! Calls written as XML elements named after the tool, their arguments as attributes, inside a
//! `<tool_calls>` wrapper:
//!
//! ```text
//! <tool_calls><read path="/etc/hostname" /></tool_calls>
//! ```
//!
//! Why: Qwen 3.6 now and then writes its call so into the content instead of calling
//! (oh-my-pi issue 8945, with the harness's `read` tool offered): the element's name is the
//! tool, each attribute an argument. Nothing in the markup says it is a call but the name, and
//! `<tool_calls>` around XML is what a person may have asked for, so it is read only when the
//! element's name is exactly one of the offered `tools` ([`head`]); without tools, or with a
//! name no tool has, the text stays as written. Part of the [`super::named_tool_call`] family
//! (agent harnesses' XML renderings of calls, same wrapper and closer).
//!
//! An element is `<NAME key="value" …/>` or `<NAME key="value" …></NAME>`, values in double or
//! single quotes, XML entities decoded, typed by the tool's schema ([`Style::Glm`]: a string
//! unless the schema or the value's JSON says otherwise). Several elements may share a wrapper.
//! Bad input: an element cut off by the end of the reply is no call (reported `truncated`, its
//! raw text kept in the problem); an element that does not read as one ends the calls read
//! before it, and what follows is text; a wrapper whose closer never comes ends after its last
//! call (not reported: the calls are complete).

use serde_json::Value;

use super::bare_json::{names, offered};
use super::minimax_m2::decode_entities;
use super::named_tool_call::{WRAP_CLOSE, WRAP_OPEN};
use super::scan::{head_window, Finder};
use super::tool_json::offers_tools;
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "named_tool_call";

/// One element read at a `<`.
enum Elem<'t> {
    /// A call of the offered tool: its name, its `(key, raw value)` attributes, where it ends.
    Call(&'t str, Vec<(&'t str, &'t str)>, usize),
    /// The text ends inside the element (a cut call, or more may come).
    Cut,
    /// Not such an element.
    No,
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

fn space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The element at `at` (`text[at]` is `<`).
fn element<'t>(text: &'t str, at: usize, tools: Option<&Value>) -> Elem<'t> {
    let b = text.as_bytes();
    let mut i = at + 1;
    while i < b.len() && name_byte(b[i]) {
        i += 1;
    }
    let name = &text[at + 1..i];
    if i >= b.len() {
        let could = names(tools).any(|n| n.starts_with(name));
        return if could { Elem::Cut } else { Elem::No };
    }
    if name.is_empty() || !offered(tools, name) || !(space(b[i]) || matches!(b[i], b'/' | b'>')) {
        return Elem::No;
    }
    let mut attrs = Vec::new();
    loop {
        let start = i;
        while i < b.len() && space(b[i]) {
            i += 1;
        }
        let Some(&c) = b.get(i) else {
            return Elem::Cut;
        };
        if c == b'/' {
            return match b.get(i + 1) {
                Some(b'>') => Elem::Call(name, attrs, i + 2),
                Some(_) => Elem::No,
                None => Elem::Cut,
            };
        }
        if c == b'>' {
            // An empty element with its own closing tag.
            let rest = text[i + 1..].trim_start();
            let close_at = text.len() - rest.len();
            let close = rest
                .strip_prefix("</")
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| r.starts_with('>'));
            if close {
                return Elem::Call(name, attrs, close_at + 3 + name.len());
            }
            let cut = rest.len() < name.len() + 3
                && format!("</{name}>").as_bytes().starts_with(rest.as_bytes());
            return if cut { Elem::Cut } else { Elem::No };
        }
        if i == start || !(c.is_ascii_alphabetic() || c == b'_') {
            // Attributes are separated by whitespace and start with a letter.
            return Elem::No;
        }
        let k = i;
        while i < b.len() && name_byte(b[i]) {
            i += 1;
        }
        let key = &text[k..i];
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        match b.get(i) {
            None => return Elem::Cut,
            Some(b'=') => i += 1,
            Some(_) => return Elem::No,
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let q = match b.get(i) {
            None => return Elem::Cut,
            Some(&q @ (b'"' | b'\'')) => q,
            Some(_) => return Elem::No,
        };
        let v = i + 1;
        let Some(len) = memchr::memchr(q, &b[v..]) else {
            return Elem::Cut;
        };
        attrs.push((key, &text[v..v + len]));
        i = v + len + 1;
    }
}

/// Whether the text `after` a `<tool_calls>` wrapper starts a call of an offered tool: whitespace,
/// then an element named after one ([`element`]), whole as far as [`head_window`] reaches (a
/// longer opening tag counts once its name is read). `None` when the text ends before that is
/// known and more may come (`finished` false); at the end of the reply, an element cut off is a
/// cut call. Without tools: never.
pub fn head(after: &str, finished: bool, tools: Option<&Value>) -> Option<bool> {
    if !offers_tools(tools) {
        return Some(false);
    }
    let view = head_window(after);
    let more = view.len() < after.len();
    let t = view.trim_start();
    let Some(first) = t.bytes().next() else {
        return if more || finished { Some(false) } else { None };
    };
    if first != b'<' {
        return Some(false);
    }
    match element(t, 0, tools) {
        Elem::Call(..) => Some(true),
        Elem::No => Some(false),
        // Longer than the window: a call once its name is whole (then it is an offered one).
        Elem::Cut if more => {
            Some(1 + t.bytes().skip(1).take_while(|&b| name_byte(b)).count() < t.len())
        }
        Elem::Cut if finished => Some(true),
        Elem::Cut => None,
    }
}

/// The wrapped element calls of `text`, added to `out` (nothing without tools).
pub fn read(text: &str, cx: &Ctx, out: &mut Parsed) {
    if !offers_tools(cx.tools) {
        return;
    }
    let mut wraps = Finder::new(WRAP_OPEN);
    let mut at = 0;
    let before = out.blocks.len();
    while let Some(open) = wraps.find(text, at) {
        at = open + WRAP_OPEN.len();
        let mut calls = Vec::new();
        let mut end = at;
        let mut cut = None;
        loop {
            let rest = text[end..].trim_start();
            let next = text.len() - rest.len();
            if !rest.starts_with('<') {
                break;
            }
            match element(text, next, cx.tools) {
                Elem::Call(name, attrs, e) => {
                    let pairs = attrs.into_iter().map(|(k, v)| (k, decode_entities(v)));
                    calls.push(RawCall {
                        name: name.to_owned(),
                        arguments: typed_arguments(pairs, cx.tools, name, Style::Glm),
                        id: None,
                    });
                    end = e;
                }
                Elem::Cut => {
                    cut = Some(next);
                    break;
                }
                Elem::No => break,
            }
        }
        if let Some(s) = cut {
            // Cut off by the end of the reply: the calls before it are kept, the cut one is a
            // block of its own (or, in the stream machine's check, more may still come).
            let start = if calls.is_empty() {
                open
            } else {
                out.blocks.push(Block::of_calls(
                    open,
                    s,
                    calls,
                    &mut out.problems,
                    String::new,
                ));
                s
            };
            out.problems.push(format!(
                "{NAME}: a call element was cut off (truncated reply)"
            ));
            out.problems
                .push(format!("{NAME}: no call; raw text kept in content"));
            out.blocks.push(Block {
                start,
                end: text.len(),
                calls: Vec::new(),
                keep_raw: true,
            });
            break;
        }
        if calls.is_empty() {
            continue;
        }
        let rest = text[end..].trim_start();
        if let Some(after) = rest.strip_prefix(WRAP_CLOSE) {
            end = text.len() - after.len();
        } else if let Some(so_far) = rest.strip_suffix('\0') {
            // The stream machine asks with a NUL after the text: the wrapper's closer may still
            // come.
            if WRAP_CLOSE.starts_with(so_far) {
                end = text.len();
            }
        }
        out.blocks.push(Block::of_calls(
            open,
            end,
            calls,
            &mut out.problems,
            String::new,
        ));
        at = end;
    }
    if out.blocks.len() > before {
        out.blocks.sort_by_key(|b| b.start);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::response::linearity::assert_linear;
    use crate::response::{clean_response, Options};

    #[test]
    fn wrappers_that_never_close_stay_linear() {
        let o = Options {
            tools: Some(json!([{"type": "function", "function": {"name": "read"}}])),
            ..Options::default()
        };
        for unit in [
            "<tool_calls><read path=\"",
            "<tool_calls>\n<read path=\"北京\" ",
            "<tool_calls><read path=\"北京\"/>",
        ] {
            assert_linear("tool_elements", unit, &|t| {
                clean_response(t, &o);
            });
        }
    }
}
