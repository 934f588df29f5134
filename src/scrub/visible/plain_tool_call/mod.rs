//! Plain-text tool calls on lines of their own (OpenClaw 2026.9.6, `stripPlainTextToolCallBlocks`
//! in `packages/tool-call-repair`, run on every delivered reply): models that lost their
//! tool-calling format write the call as text, and 2026.9.6 removes it from what the user sees —
//! Qwen3-Coder's `<function=NAME><parameter=K>v</parameter></function>`, a `[NAME]` line followed
//! by a JSON object and `[END_TOOL_REQUEST]`/`[/NAME]`, `[tool:NAME] {…}`, and OpenAI Harmony's
//! `commentary to=NAME code {…}`. A call is removed from the start of its line, with calls that
//! follow it on the same line, the indentation after it and one line break. A call must start a
//! line (after indentation); one that starts in Markdown code stays. When the reply ends inside
//! what could still become a call (a stream cut mid-call), the rest of the reply is kept as it is.

mod classify;
mod grammar;
mod json_call;
pub mod promote;
mod xmlish;

use std::borrow::Cow;

use classify::{classify, Verdict};

use super::markdown_code::LazyCode;
use super::needles::Needles;
use super::text::line_break;
use crate::js_text::is_js_whitespace;

/// What a reply needs for [`strip_plain_text_tool_calls`] to change it: every call has one of these
/// (a Harmony call's `to=` is found by its `=`: V8 finds one character in a fraction of the time
/// it takes to find `to=` in prose full of `t`).
pub const NEEDLES: Needles = Needles::exact(&["[", "<", "="]);

/// The first position at or after `i` that is not whitespace other than a line break (OpenClaw's
/// `skipLineIndentation`).
fn skip_indent(text: &str, mut i: usize) -> usize {
    while let Some(c) = text[i..]
        .chars()
        .next()
        .filter(|&c| c != '\r' && c != '\n' && is_js_whitespace(c))
    {
        i += c.len_utf8();
    }
    i
}

/// The start of the line after the one holding `i` (the text's end when there is none).
fn next_line(b: &[u8], i: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &b[i..]).map_or(b.len(), |k| i + k + 1)
}

/// Where each line starts: 0 and after every `\r` or `\n`.
fn line_starts(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(memchr::memchr2_iter(b'\n', b'\r', b).map(|i| i + 1))
}

/// A line that opens like a call: `[NAME]`/`[tool:NAME]`, a Harmony channel with `to=`, or
/// `<function=` (OpenClaw's three quick tests, read from each line start).
fn opens_like_call(b: &[u8], i: usize) -> bool {
    let rest = &b[i..];
    let bracketed = |from: usize| {
        let name = rest.get(from..).map_or(0, |r| {
            r.iter()
                .take_while(|&&c| grammar::is_tool_name_byte(c))
                .count()
        });
        name > 0 && rest.get(from + name) == Some(&b']')
    };
    if rest.first() == Some(&b'[') {
        return bracketed(1) || (rest[1..].starts_with(b"tool:") && bracketed(6));
    }
    if grammar::starts_ci(b, i, b"<function=") {
        return true;
    }
    let after_channel = rest.strip_prefix(b"<|channel|>".as_slice()).unwrap_or(rest);
    [b"commentary".as_slice(), b"analysis", b"final"]
        .iter()
        .find_map(|c| after_channel.strip_prefix(*c))
        .is_some_and(|r| {
            let blank = r.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
            blank > 0 && r[blank..].starts_with(b"to=")
        })
}

/// Whether some line of `text` opens like a call.
fn might_have_call(text: &str) -> bool {
    let b = text.as_bytes();
    line_starts(b).any(|i| opens_like_call(b, skip_indent(text, i)))
}

/// The text without plain-text tool-call lines; borrowed when it has none. With `code_aware`,
/// calls that start in Markdown code stay (as in OpenClaw's reply chain); without it, as
/// OpenClaw's function called with no options.
///
/// ```
/// use transcript_hygiene::scrub::visible::plain_tool_call::strip_plain_text_tool_calls;
/// let t = "我来查一下。\n[get_weather]\n{\"city\":\"北京\"}\n[END_TOOL_REQUEST]\n结果如下";
/// assert_eq!(strip_plain_text_tool_calls(t, true), "我来查一下。\n结果如下");
/// let code = "```\n[get_weather]\n{\"city\":\"北京\"}\n[END_TOOL_REQUEST]\n```";
/// assert_eq!(strip_plain_text_tool_calls(code, true), code);
/// ```
pub fn strip_plain_text_tool_calls(text: &str, code_aware: bool) -> Cow<'_, str> {
    if !might_have_call(text) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut code = LazyCode::new(text);
    let mut protected = |pos: usize| code_aware && code.get().contains(pos);
    let mut out = String::new();
    let (mut cursor, mut index) = (0, 0);
    let mut removed = false;
    while index < b.len() {
        if index > 0 && b[index - 1] != b'\n' && b[index - 1] != b'\r' {
            index = next_line(b, index);
            continue;
        }
        let block_start = skip_indent(text, index);
        if protected(block_start) {
            index += 1;
            continue;
        }
        let mut block_end = match classify(text, block_start) {
            Verdict::Call(end) | Verdict::Cut(Some(end)) => end,
            Verdict::Cut(None) => break,
            Verdict::Skip(next) => {
                index = next.max(index + 1);
                continue;
            }
        };
        out.push_str(&text[cursor..index]);
        removed = true;
        loop {
            let adjacent = skip_indent(text, block_end);
            if protected(adjacent) {
                break;
            }
            match classify(text, adjacent) {
                Verdict::Call(end) | Verdict::Cut(Some(end)) if end > block_end => block_end = end,
                _ => break,
            }
        }
        let after = skip_indent(text, block_end);
        cursor = if after == b.len() {
            after
        } else {
            line_break(b, after).unwrap_or(block_end)
        };
        index = cursor;
    }
    if !removed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[cursor..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests;
