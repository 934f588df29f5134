//! `stripDowngradedToolCallText` (OpenClaw `src/agents/pi-embedded-utils.ts`): when a history is
//! replayed to Gemini, tool calls that lack a `thought_signature` are downgraded to text
//! (`[Tool Call: name (ID: …)]` + `Arguments: {…}`, `[Tool Result for ID …]`, `[Historical
//! context: …]`), and the model may echo that text back. This removes, in order:
//!
//! 1. every `[Tool Call: …]` marker (any case), the blanks and one line break after it, and an
//!    `Arguments` value after that: a balanced `{…}`/`[…]` (strings respected), a `"…"` string,
//!    or the rest of the line; plus the line break that follows when the output so far is empty
//!    or ends with a line break (so no blank line is left);
//! 2. every `[Tool Result for ID …]` marker with one line break and the text after it, up to the
//!    line breaks before the next `[Tool ` (any case) or the trailing line breaks of the text;
//! 3. every `[Historical context: …]` marker and one line break after it;
//!
//! then trims (JavaScript's `trim`). Text without `[Tool Call`, `[Tool Result` or
//! `[Historical context` (any case) is returned as it is, untrimmed.

use std::borrow::Cow;

use super::splice::Spliced;
use super::text::{any_after, find_ci};
use crate::js_text::{is_js_whitespace, js_trim};
use crate::response::scan::depth::{Brackets, Depth};
use crate::response::scan::Budget;

/// Text with none of these bytes is returned unchanged (every marker starts with `[`, and text without one is returned untrimmed).
pub const PREFILTER: &[u8] = b"[";

const CALL: &str = "[tool call:";
const RESULT: &str = "[tool result for id";
const HISTORICAL: &str = "[historical context:";
const ANY_TOOL: &str = "[tool ";

/// The text without downgraded tool-call markup; borrowed when it has no marker.
pub fn strip_downgraded_tool_call_text(text: &str) -> Cow<'_, str> {
    strip_spliced(Spliced::new(text)).into_text()
}

/// The same on a [`Spliced`] text (the addon runs it on a proxy of the JS string).
pub fn strip_spliced(text: Spliced<'_>) -> Spliced<'_> {
    if !any_after(
        text.as_str(),
        b'[',
        &["tool call", "tool result", "historical context"],
    ) {
        return text;
    }
    let historical = strip_historical(strip_tool_results(strip_tool_calls(text)));
    let h = historical.as_str();
    let start = h.len() - h.trim_start_matches(is_js_whitespace).len();
    let end = start + js_trim(h).len();
    historical.slice(start..end)
}

fn is_blank(b: Option<&u8>) -> bool {
    matches!(b, Some(b' ' | b'\t'))
}

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while is_blank(b.get(i)) {
        i += 1;
    }
    i
}

/// Step 1: `[Tool Call: …]` markers and their arguments.
fn strip_tool_calls(text: Spliced<'_>) -> Spliced<'_> {
    let input = text.as_str();
    let b = input.as_bytes();
    let mut out = text.builder();
    let mut cursor = 0;
    let mut from = 0;
    let mut found = false;
    let mut budget = Budget::for_text(input);
    while let Some(start) = find_ci(input, CALL, from) {
        let Some(close) = memchr::memchr(b']', &b[start + CALL.len()..]) else {
            break;
        };
        let marker_end = start + CALL.len() + close + 1;
        from = marker_end;
        if start < cursor {
            continue;
        }
        found = true;
        out.keep(cursor..start);
        let mut i = skip_blanks(b, marker_end);
        match b.get(i) {
            Some(b'\r') => {
                i += 1;
                if b.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            Some(b'\n') => i += 1,
            _ => {}
        }
        i = skip_blanks(b, i);
        if let Some(after) = after_arguments_label(b, i) {
            i = after;
            if let Some(end) = consume_jsonish(b, i, &mut budget) {
                i = end;
            }
        }
        if matches!(b.get(i), Some(b'\n' | b'\r'))
            && (out.text().is_empty() || out.text().ends_with('\n') || out.text().ends_with('\r'))
        {
            if b.get(i) == Some(&b'\r') {
                i += 1;
            }
            if b.get(i) == Some(&b'\n') {
                i += 1;
            }
        }
        cursor = i;
    }
    if !found {
        drop(out);
        return text;
    }
    out.keep(cursor..b.len());
    out.finish()
}

/// After an `Arguments` label at `i` (any case), its `:` and one space when present: where the
/// value starts. `None` when no label is there. Both releases' scrubbers read the label so.
pub(crate) fn after_arguments_label(b: &[u8], i: usize) -> Option<usize> {
    let label = b.get(i..i + 9)?;
    if !label.eq_ignore_ascii_case(b"arguments") {
        return None;
    }
    let mut i = i + 9;
    if b.get(i) == Some(&b':') {
        i += 1;
    }
    if b.get(i) == Some(&b' ') {
        i += 1;
    }
    Some(i)
}

/// The end of a JSON-ish value starting at `start` (after blanks and line breaks): a balanced
/// `{…}`/`[…]`, a `"…"` string, or the rest of the line. `None` when the text ends first or the
/// value is not closed.
///
/// Each scan is charged to `budget`: text of many unclosed values (`Arguments: {` ×100 000) would
/// otherwise rescan the rest of the text per marker (quadratic: 3.5 MB took 110 s). Once a few
/// passes over the text are spent, later bracketed values count as not closed, which is what
/// such text holds anyway.
pub(crate) fn consume_jsonish(b: &[u8], start: usize, budget: &mut Budget) -> Option<usize> {
    let mut i = start;
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    match *b.get(i)? {
        b'{' | b'[' | b'"' => {
            if budget.spent() {
                return None;
            }
            let end = Depth::new(Brackets::Json).scan(&b[i..]);
            budget.charge(end.unwrap_or(b.len() - i));
            end.map(|n| i + n)
        }
        _ => Some(
            memchr::memchr2(b'\n', b'\r', &b[i..])
                .map(|k| i + k)
                .unwrap_or(b.len()),
        ),
    }
}

/// Step 2: `/\[Tool Result for ID[^\]]*\]\n?[\s\S]*?(?=\n*\[Tool |\n*$)/gi` removed.
fn strip_tool_results(text: Spliced<'_>) -> Spliced<'_> {
    let input = text.as_str();
    let b = input.as_bytes();
    let mut out = text.builder();
    let mut cursor = 0;
    // The next `[Tool ` at or after some position, remembered (searches only move forward).
    let mut next_tool: Option<(usize, Option<usize>)> = None;
    while let Some(start) = find_ci(input, RESULT, cursor) {
        let Some(close) = memchr::memchr(b']', &b[start + RESULT.len()..]) else {
            break;
        };
        let mut body = start + RESULT.len() + close + 1;
        if b.get(body) == Some(&b'\n') {
            body += 1;
        }
        let tool = match next_tool {
            Some((_, Some(t))) if t >= body => Some(t),
            Some((_, None)) => None,
            _ => find_ci(input, ANY_TOOL, body),
        };
        next_tool = Some((body, tool));
        let mut end = tool.unwrap_or(b.len());
        while end > body && b[end - 1] == b'\n' {
            end -= 1;
        }
        out.keep(cursor..start);
        cursor = end;
    }
    if cursor == 0 {
        drop(out);
        return text;
    }
    out.keep(cursor..b.len());
    out.finish()
}

/// Step 3: `/\[Historical context:[^\]]*\]\n?/gi` removed.
fn strip_historical(text: Spliced<'_>) -> Spliced<'_> {
    let input = text.as_str();
    let b = input.as_bytes();
    let mut out = text.builder();
    let mut cursor = 0;
    while let Some(start) = find_ci(input, HISTORICAL, cursor) {
        let Some(close) = memchr::memchr(b']', &b[start + HISTORICAL.len()..]) else {
            break;
        };
        let mut end = start + HISTORICAL.len() + close + 1;
        if b.get(end) == Some(&b'\n') {
            end += 1;
        }
        out.keep(cursor..start);
        cursor = end;
    }
    if cursor == 0 {
        drop(out);
        return text;
    }
    out.keep(cursor..b.len());
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_downgraded_tool_call_text(t).into_owned()
    }

    #[test]
    fn removes_call_marker_and_json_arguments() {
        let t = "Let me look.\n[Tool Call: read (ID: toolu_1)]\nArguments: {\n  \"path\": \"a}b.txt\",\n  \"n\": [1, {\"x\": 2}]\n}\nDone.";
        assert_eq!(s(t), "Let me look.\nDone.");
    }

    #[test]
    fn arguments_forms() {
        assert_eq!(s("[Tool Call: f]\nArguments: \"a \\\" b\" tail"), "tail");
        assert_eq!(s("[tool call: f] arguments:\n\n{\"a\":1} x"), "x");
        assert_eq!(s("[Tool Call: f]\nArguments: plain words\nnext"), "next");
        // Unbalanced JSON: only the marker and the `Arguments: ` label go.
        assert_eq!(s("[Tool Call: f]\nArguments: {\"a\": 1"), "{\"a\": 1");
        assert_eq!(s("[Tool Call: f]\nArgs: 1"), "Args: 1");
    }

    #[test]
    fn blank_line_after_marker_is_dropped_only_at_line_start() {
        assert_eq!(s("a\n[Tool Call: f]\n\nb"), "a\nb");
        assert_eq!(s("a [Tool Call: f]\n\nb"), "a \nb");
    }

    #[test]
    fn tool_result_runs_to_the_next_tool_marker_or_end() {
        let t = "A\n[Tool Result for ID 1]\nout\n\n[Tool Result for ID 2]\ntwo\n\n";
        assert_eq!(strip_tool_results(Spliced::new(t)).as_str(), "A\n\n\n\n\n");
        assert_eq!(s(t), "A");
        // Step 1 runs first, so a call marker after a result no longer bounds it.
        let t = "[Tool Result for ID 1]\nout\n\n[Tool Call: g]\nArguments: {}\nAfter";
        assert_eq!(s(t), "");
        assert_eq!(
            s("Before\n[Tool Result for ID x]\nall the rest\n\n"),
            "Before"
        );
        assert_eq!(
            s("x [Tool Result for ID 1] y [tool other] z"),
            "x [tool other] z"
        );
    }

    #[test]
    fn historical_context_marker() {
        assert_eq!(
            s("[Historical context: earlier turn]\nHello [historical context: x]there"),
            "Hello there"
        );
    }

    #[test]
    fn unterminated_markers_are_left() {
        assert_eq!(
            s("  [Tool Call: never closed  "),
            "[Tool Call: never closed"
        );
        assert_eq!(s("[Tool Result for ID 1"), "[Tool Result for ID 1");
    }

    #[test]
    fn no_marker_is_borrowed_untrimmed() {
        assert!(matches!(
            strip_downgraded_tool_call_text("  [Tool] x "),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn unclosed_arguments_stay_linear() {
        for unit in [
            "[Tool Call: f (ID: 1)]\nArguments: {",
            "[Tool Call: f (ID: 1)]\nArguments: \"",
            "[Tool Call: f (ID: 1)]\nArguments: [{\"",
        ] {
            crate::response::linearity::assert_linear("downgraded", unit, &|t| {
                assert!(s(t).len() <= t.len());
            });
        }
    }

    #[test]
    fn nested_call_marker_inside_consumed_arguments_is_skipped() {
        let t = "[Tool Call: a]\nArguments: {\"s\": \"[Tool Call: b]\"}\nok";
        assert_eq!(s(t), "ok");
    }
}
