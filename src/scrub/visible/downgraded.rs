//! `stripDowngradedToolCallText` as OpenClaw 2026.9.6 does it
//! (`src/shared/text/downgraded-tool-call-text.ts`): when a history is replayed to a provider that
//! cannot take its tool calls, OpenClaw writes them as text (`[Tool Call: name (ID: …)]` +
//! `Arguments: {…}`, `[Tool Result for ID …]`, `[Historical context: …]`), and models copy that
//! text into replies. What changed from 2026.3.23 ([`crate::scrub::downgraded`]): markers in
//! Markdown code (CommonMark) stay, a removed call at the start of a line takes its line break
//! with it, and the final trim keeps a leading code block's indentation ([`super::trim`]). As in
//! the 2026.3.23 port, unclosed `Arguments: {` values stop being scanned once a few passes over
//! the text are spent (OpenClaw rescans the rest of the text for each: quadratic).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::LazyCode;
use super::needles::Needles;
use super::text::{line_break, skip_blank};
use super::trim::trim_preserving_code;
use crate::response::scan::Budget;
use crate::scrub::downgraded::{after_arguments_label, consume_jsonish};

/// What a reply needs for [`strip_downgraded_tool_call_text`] to change it.
pub const NEEDLES: Needles = Needles::exact(&["["]);

static QUICK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i-u:\[Tool (?:Call|Result)|\[Historical context)").expect("static regex")
});
static CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i-u:\[Tool Call:)[^\]]*\]").expect("static regex"));
static RESULT_HEAD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i-u:\[Tool Result for ID)[^\]]*\]\n?").expect("static regex"));
static HISTORY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i-u:\[Historical context:)[^\]]*\]\n?").expect("static regex"));

/// `[Tool Call: …]` markers with their arguments.
fn strip_calls(input: &str) -> Cow<'_, str> {
    let b = input.as_bytes();
    let mut code = LazyCode::new(input);
    let mut budget = Budget::for_text(input);
    let mut out = String::new();
    let mut cursor = 0;
    let mut changed = false;
    for m in CALL.find_iter(input) {
        if m.start() < cursor || code.get().contains(m.start()) {
            continue;
        }
        changed = true;
        out.push_str(&input[cursor..m.start()]);
        let mut i = skip_blank(b, m.end());
        i = skip_blank(b, line_break(b, i).unwrap_or(i));
        if let Some(after) = after_arguments_label(b, i) {
            i = after;
            i = consume_jsonish(b, i, &mut budget).unwrap_or(i);
        }
        if out.is_empty() || out.ends_with('\n') || out.ends_with('\r') {
            i = line_break(b, i).unwrap_or(i);
        }
        cursor = i;
    }
    if !changed {
        return Cow::Borrowed(input);
    }
    out.push_str(&input[cursor..]);
    Cow::Owned(out)
}

/// The end of a `[Tool Result for ID …]` body starting at `from`: the first position followed by
/// line breaks and then `[Tool ` (any case) or the end of the text.
fn result_body_end(text: &str, from: usize) -> usize {
    let b = text.as_bytes();
    let mut p = from;
    loop {
        let mut q = p;
        while q < b.len() && b[q] == b'\n' {
            q += 1;
        }
        if q == b.len() || (b.len() >= q + 6 && b[q..q + 6].eq_ignore_ascii_case(b"[Tool ")) {
            return p;
        }
        p += text[p..].chars().next().map_or(1, char::len_utf8);
    }
}

/// Removes the matches of a pattern outside code (a match in code is kept whole).
fn strip_outside_code(
    input: &str,
    find: impl Fn(&str, usize) -> Option<(usize, usize)>,
) -> Cow<'_, str> {
    let mut code = LazyCode::new(input);
    let mut out = String::new();
    let mut last = 0;
    let mut from = 0;
    let mut changed = false;
    while let Some((start, end)) = find(input, from) {
        if !code.get().contains(start) {
            out.push_str(&input[last..start]);
            last = end;
            changed = true;
        }
        from = if end > start { end } else { end + 1 };
        if from > input.len() {
            break;
        }
    }
    if !changed {
        return Cow::Borrowed(input);
    }
    out.push_str(&input[last..]);
    Cow::Owned(out)
}

/// The text without downgraded tool-call text outside code, trimmed (see the module doc); borrowed
/// when it has no marker. `keep_trailing_whitespace`: OpenClaw's `preserveTrailingWhitespace`.
///
/// ```
/// use transcript_hygiene::scrub::visible::downgraded::strip_downgraded_tool_call_text;
/// let t = "[Tool Call: read (ID: 1)]\nArguments: {\"path\":\"a\"}\n读完了。";
/// assert_eq!(strip_downgraded_tool_call_text(t, false), "读完了。");
/// ```
pub fn strip_downgraded_tool_call_text(text: &str, keep_trailing_whitespace: bool) -> Cow<'_, str> {
    if !QUICK.is_match(text) {
        return Cow::Borrowed(text);
    }
    let calls = strip_calls(text);
    let results = strip_outside_code(&calls, |t, from| {
        RESULT_HEAD
            .find_at(t, from)
            .map(|m| (m.start(), result_body_end(t, m.end())))
    })
    .into_owned();
    let history = strip_outside_code(&results, |t, from| {
        HISTORY.find_at(t, from).map(|m| (m.start(), m.end()))
    })
    .into_owned();
    let trimmed = trim_preserving_code(&history, !keep_trailing_whitespace);
    if trimmed == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(trimmed.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_downgraded_tool_call_text(t, false).into_owned()
    }

    #[test]
    fn calls_results_and_history_markers_go() {
        assert_eq!(
            s("a\n[Tool Call: f (ID: 1)]\nArguments: {\"x\":[1,{}]}\nb"),
            "a\nb"
        );
        // The call goes first; the result's body then runs to the end (no `[Tool ` follows).
        assert_eq!(s("[Tool Result for ID 1]\nok\n\n[Tool Call: g]\n结果"), "");
        assert_eq!(
            s("[Tool Result for ID 1]\nok\n[Tool Note]\n结果"),
            "[Tool Note]\n结果"
        );
        assert_eq!(s("[Historical context: earlier]\n继续"), "继续");
    }

    #[test]
    fn markers_in_code_stay() {
        let t = "`[Tool Call: f]` is how it looks";
        assert!(matches!(
            strip_downgraded_tool_call_text(t, false),
            Cow::Borrowed(_)
        ));
    }
}
