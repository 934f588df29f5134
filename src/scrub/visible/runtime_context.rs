//! OpenClaw 2026.9.6's `stripInternalRuntimeContext` (`src/agents/internal-runtime-context.ts`),
//! as its user-facing chain calls it: OpenClaw wraps what its runtime tells the model (task
//! completion events, child results, the active request's context) between
//! `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>` and `<<<END_OPENCLAW_INTERNAL_CONTEXT>>>` lines, or in
//! older releases under an `OpenClaw runtime context (internal):` header, and models repeat it.
//! A reply loses:
//! - each delimited block (markers alone on their lines, nesting counted) with the whitespace
//!   around it, the two sides joined by a blank line; an unclosed block takes the rest of the text;
//! - every stray end marker alone on its line;
//! - legacy blocks (header, `[Internal task completion event]`, the child result, `Action:`);
//! - the prompt preface lines (`OpenClaw runtime context for …` + the notice), after which runs of
//!   blank lines are squeezed to one and the text is trimmed.
//!
//! OpenClaw rescans the text from its start after each block; this reads it once, in order.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::cached_find::CachedFind;
use crate::js_text::{is_js_whitespace, js_trim, JS_WHITESPACE_CLASS as WS};

const BEGIN: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
const END: &str = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>";
const NOTICE: &str =
    "This context is runtime-generated, not user-authored. Keep internal details private.";
const LEGACY_HEADER: &str = "OpenClaw runtime context (internal):\nThis context is runtime-generated, not user-authored. Keep internal details private.\n\n";
const EVENT: &str = "[Internal task completion event]";
const EVENT_SEPARATOR: &str = "\n\n---\n\n";
const RESULT_BEGIN: &str = "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>";
const RESULT_END: &str = "<<<END_UNTRUSTED_CHILD_RESULT>>>";
const ACTION: &str = "\n\nAction:\n";
const PROMPT_HEADERS: [&str; 3] = [
    "OpenClaw runtime context for the active user request in this turn. Do not reply to or describe this context. Use it to continue answering the active user request now. Do not wait for another message.",
    "OpenClaw runtime context for the immediately preceding user message.",
    "OpenClaw runtime event.",
];

/// What a text must hold for this rule to change it (the notice's one word without a space in it
/// stands for the notice, whose spaces may be any whitespace).
pub const NEEDLES: super::needles::Needles =
    super::needles::Needles::exact(&[BEGIN, END, "runtime-generated,"]);

/// Words separated by runs of JavaScript whitespace (`\s+`).
fn words(s: &str) -> String {
    let escaped: Vec<String> = s
        .split(is_js_whitespace)
        .filter(|w| !w.is_empty())
        .map(regex::escape)
        .collect();
    escaped.join(&format!("{WS}+"))
}

/// The notice, any whitespace between its words.
static NOTICE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&words(NOTICE)).expect("static regex"));

/// A preface line from its start up to the spaces after the notice (what may follow is checked
/// by hand: JavaScript's multiline `$`).
static PREFACE: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives: Vec<String> = PROMPT_HEADERS
        .iter()
        .flat_map(|h| {
            let sentences: Vec<&str> = h.split(". ").collect();
            (0..sentences.len())
                .map(|i| words(&sentences[i..].join(". ")))
                .collect::<Vec<_>>()
        })
        .collect();
    Regex::new(&format!(
        r"\A[ \t]*(?:{}){WS}+{}[ \t]*",
        alternatives.join("|"),
        words(NOTICE)
    ))
    .expect("static regex")
});

/// Whether the text holds anything this rule removes.
fn applies(text: &str) -> bool {
    text.contains(BEGIN) || text.contains(END) || NOTICE_RE.is_match(text)
}

/// A marker alone on its line, its last search remembered so the nesting count stays linear.
struct Marker {
    token: &'static str,
    search: CachedFind,
}

impl Marker {
    fn new(token: &'static str) -> Self {
        Marker {
            token,
            search: CachedFind::new(token),
        }
    }

    /// The first marker alone on its line at or after `from` (OpenClaw's `findDelimitedTokenIndex`:
    /// only spaces and tabs around it, a line break or the text's edge on either side). `floor`:
    /// where the text begins for this search (a line starts there).
    fn find(&mut self, text: &str, from: usize, floor: usize) -> Option<usize> {
        let len = self.token.len();
        let b = text.as_bytes();
        self.search
            .find_by(text, from, |t| (!alone(b, t, len, floor)).then_some(t + 1))
    }
}

/// Whether the marker at `t..t + len` is alone on its line (see [`Marker::find`]).
fn alone(b: &[u8], t: usize, len: usize, floor: usize) -> bool {
    let mut k = t;
    while k > floor && (b[k - 1] == b' ' || b[k - 1] == b'\t') {
        k -= 1;
    }
    if k != floor && b[k - 1] != b'\n' {
        return false;
    }
    let mut j = t + len;
    while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    j == b.len() || b[j] == b'\n' || (b[j] == b'\r' && b.get(j + 1) == Some(&b'\n'))
}

/// Where a marker line's match starts: the line break before it, or the text's start.
fn match_start(b: &[u8], t: usize) -> usize {
    let mut k = t;
    while k > 0 && (b[k - 1] == b' ' || b[k - 1] == b'\t') {
        k -= 1;
    }
    if k == 0 {
        0
    } else if k >= 2 && b[k - 2] == b'\r' {
        k - 2
    } else {
        k - 1
    }
}

/// `before`, a blank line when `joined`, then `after`.
fn join(mut before: String, after: &str, joined: bool) -> String {
    if joined {
        before.push_str("\n\n");
    }
    before.push_str(after);
    before
}

fn trim_end_in_place(s: &mut String) {
    let keep = s.trim_end_matches(is_js_whitespace).len();
    s.truncate(keep);
}

/// The length of `s`'s last line.
fn last_line_len(s: &str) -> usize {
    s.len() - s.rfind('\n').map_or(0, |i| i + 1)
}

/// OpenClaw's `stripDelimitedBlocks` (surrounding whitespace not preserved).
///
/// The text is `before`, a blank line when `joined`, then `text[pos..]`. After a block,
/// `text[pos]` is not whitespace, so only a marker exactly at `pos` sits on another line than in
/// `text` (one starts there); and `before`'s last line can be a begin marker that now stands
/// alone (`before` was trimmed at its end).
fn strip_delimited_blocks(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut before = String::new();
    let mut joined = false;
    let mut pos = 0;
    let (mut begins, mut ends) = (Marker::new(BEGIN), Marker::new(END));
    loop {
        let last_line = last_line_len(&before);
        let in_before =
            pos > 0 && before[before.len() - last_line..].trim_start_matches([' ', '\t']) == BEGIN;
        let start = if in_before {
            None
        } else {
            match begins.find(text, pos, pos) {
                Some(t) => Some(t),
                None if pos == 0 => return Cow::Borrowed(text),
                None => return Cow::Owned(join(before, &text[pos..], joined)),
            }
        };
        let mut cursor = start.map_or(pos, |t| t + BEGIN.len());
        let mut depth = 1;
        let mut finish = None;
        while depth > 0 {
            let Some(next_end) = ends.find(text, cursor, pos) else {
                break;
            };
            if let Some(next_begin) = begins.find(text, cursor, pos).filter(|&nb| nb < next_end) {
                depth += 1;
                cursor = next_begin + BEGIN.len();
                continue;
            }
            depth -= 1;
            finish = Some(next_end);
            cursor = next_end + END.len();
        }
        match start {
            Some(t) => {
                if joined {
                    before.push_str("\n\n");
                }
                before.push_str(&text[pos..t]);
            }
            None => before.truncate(before.len() - last_line),
        }
        trim_end_in_place(&mut before);
        let Some(finish) = finish.filter(|_| depth == 0) else {
            return Cow::Owned(before);
        };
        let mut block_end = finish + END.len();
        while block_end < b.len() && (b[block_end] == b' ' || b[block_end] == b'\t') {
            block_end += 1;
        }
        let after = text[block_end..].trim_start_matches(is_js_whitespace);
        pos = text.len() - after.len();
        joined = !before.is_empty() && !after.is_empty();
        // The next block's searches start a new floor.
        begins.search.forget();
        ends.search.forget();
    }
}

/// Every end marker alone on its line removed with the line break before it.
fn strip_stray_ends(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut ends = Marker::new(END);
    let mut out = String::new();
    let mut kept = 0;
    let mut from = 0;
    while let Some(t) = ends.find(text, from, 0) {
        let start = match_start(b, t).max(kept);
        let mut end = t + END.len();
        while end < b.len() && (b[end] == b' ' || b[end] == b'\t') {
            end += 1;
        }
        out.push_str(&text[kept..start]);
        kept = end;
        from = end;
    }
    if kept == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

/// The searches of OpenClaw's `findLegacyInternalEventEnd`.
struct Legacy {
    result_begin: CachedFind,
    result_end: CachedFind,
    action: CachedFind,
    next_event: CachedFind,
    paragraph: CachedFind,
}

impl Legacy {
    /// Where the event that starts at `start` ends (OpenClaw's `findLegacyInternalEventEnd`).
    fn event_end(&mut self, text: &str, start: usize) -> Option<usize> {
        if !text[start..].starts_with(EVENT) {
            return None;
        }
        let result_begin = self.result_begin.at(text, start + EVENT.len())?;
        let result_end = self
            .result_end
            .at(text, result_begin + RESULT_BEGIN.len())?;
        let action = self.action.at(text, result_end + RESULT_END.len())?;
        let after_action = action + ACTION.len();
        if let Some(next) = self.next_event.at(text, after_action) {
            return Some(next);
        }
        Some(self.paragraph.at(text, after_action).unwrap_or(text.len()))
    }
}

static NEXT_EVENT: LazyLock<String> = LazyLock::new(|| format!("{EVENT_SEPARATOR}{EVENT}"));

/// OpenClaw's `stripLegacyInternalRuntimeContext`.
fn strip_legacy(text: &str) -> Cow<'_, str> {
    let mut headers = CachedFind::new(LEGACY_HEADER);
    let next_event: &'static str = NEXT_EVENT.as_str();
    let mut legacy = Legacy {
        result_begin: CachedFind::new(RESULT_BEGIN),
        result_end: CachedFind::new(RESULT_END),
        action: CachedFind::new(ACTION),
        next_event: CachedFind::new(next_event),
        paragraph: CachedFind::new("\n\n"),
    };
    let mut paragraphs = CachedFind::new("\n\n");
    let mut before = String::new();
    let mut joined = false;
    let mut pos = 0;
    let mut search = 0;
    while let Some(header) = headers.at(text, search) {
        let event_start = header + LEGACY_HEADER.len();
        if !text[event_start..].starts_with(EVENT) {
            search = event_start;
            continue;
        }
        let block_end = match legacy.event_end(text, event_start) {
            None => paragraphs
                .at(text, event_start + EVENT.len())
                .unwrap_or(text.len()),
            Some(mut end) => {
                while text[end..].starts_with(next_event) {
                    match legacy.event_end(text, end + EVENT_SEPARATOR.len()) {
                        Some(e) => end = e,
                        None => break,
                    }
                }
                end
            }
        };
        if joined {
            before.push_str("\n\n");
        }
        before.push_str(&text[pos..header]);
        trim_end_in_place(&mut before);
        let after = text[block_end..].trim_start_matches(is_js_whitespace);
        pos = text.len() - after.len();
        joined = !before.is_empty() && !after.is_empty();
        search = pos;
    }
    if pos == 0 {
        return Cow::Borrowed(text);
    }
    Cow::Owned(join(before, &text[pos..], joined))
}

/// Where a JavaScript multiline `$` may stand at `e`, and where the match then ends: `\r\n` and
/// `\n` are taken with it, another line terminator or the end stays.
fn preface_line_end(text: &str, e: usize) -> Option<usize> {
    let rest = &text[e..];
    if rest.starts_with("\r\n") {
        Some(e + 2)
    } else if rest.starts_with('\n') {
        Some(e + 1)
    } else if rest.is_empty() || rest.starts_with(['\r', '\u{2028}', '\u{2029}']) {
        Some(e)
    } else {
        None
    }
}

/// OpenClaw's `stripRuntimeContextPromptPreface`: every preface line removed (tried at each
/// JavaScript line start, after the last removal), then blank runs squeezed and the text trimmed.
fn strip_preface(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let mut kept = 0;
    let mut changed = false;
    let mut line = 0;
    loop {
        let matched = PREFACE
            .find(&text[line..])
            .and_then(|m| preface_line_end(text, line + m.end()));
        let from = match matched {
            Some(end) => {
                out.push_str(&text[kept..line]);
                kept = end;
                changed = true;
                if end == text.len() {
                    break;
                }
                if text[..end].ends_with(['\n', '\r', '\u{2028}', '\u{2029}']) {
                    line = end;
                    continue;
                }
                end
            }
            None => line,
        };
        match next_line_start(text, from) {
            Some(n) => line = n,
            None => break,
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[kept..]);
    Cow::Owned(js_trim(&squeeze_blank_lines(&out)).to_string())
}

/// The position after the next JavaScript line terminator after `at`.
fn next_line_start(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let i = rest.find(['\n', '\r', '\u{2028}', '\u{2029}'])?;
    let c = rest[i..].chars().next()?;
    Some(at + i + c.len_utf8())
}

/// Runs of three or more `\n` as two.
fn squeeze_blank_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run = 0;
    for c in s.chars() {
        if c == '\n' {
            run += 1;
            if run <= 2 {
                out.push(c);
            }
        } else {
            run = 0;
            out.push(c);
        }
    }
    out
}

/// The reply without OpenClaw's runtime context; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::runtime_context::strip_internal_runtime_context;
/// let t = "好的。\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n子任务完成\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n继续。";
/// assert_eq!(strip_internal_runtime_context(t), "好的。\n\n继续。");
/// ```
pub fn strip_internal_runtime_context(text: &str) -> Cow<'_, str> {
    if !applies(text) {
        return Cow::Borrowed(text);
    }
    let blocks = strip_delimited_blocks(text);
    let ends = match strip_stray_ends(&blocks) {
        Cow::Borrowed(_) => blocks,
        Cow::Owned(s) => Cow::Owned(s),
    };
    let legacy = match strip_legacy(&ends) {
        Cow::Borrowed(_) => ends,
        Cow::Owned(s) => Cow::Owned(s),
    };
    let preface = match strip_preface(&legacy) {
        Cow::Borrowed(_) => legacy,
        Cow::Owned(s) => Cow::Owned(s),
    };
    match preface {
        Cow::Owned(s) if s == text => Cow::Borrowed(text),
        other => other,
    }
}

/// [`strip_internal_runtime_context`] on a reply still arriving (OpenClaw's `streaming`
/// option): a last line that is only the beginning of a marker goes first, with the whitespace
/// before it.
///
/// ```
/// use transcript_hygiene::scrub::visible::runtime_context::strip_internal_runtime_context_streaming;
/// assert_eq!(strip_internal_runtime_context_streaming("好的。\n\n<<<BEGIN_OPEN"), "好的。");
/// assert_eq!(strip_internal_runtime_context_streaming("a <<<BEGIN"), "a <<<BEGIN");
/// ```
pub fn strip_internal_runtime_context_streaming(text: &str) -> Cow<'_, str> {
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    let tail = js_trim(&text[line_start..]);
    let begun = !tail.is_empty()
        && [BEGIN, END]
            .iter()
            .any(|m| tail.len() < m.len() && m.starts_with(tail));
    if !begun {
        return strip_internal_runtime_context(text);
    }
    let kept = text[..line_start].trim_end_matches(is_js_whitespace);
    Cow::Owned(strip_internal_runtime_context(kept).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_nest_and_an_unclosed_one_takes_the_rest() {
        let nested = format!("a\n{BEGIN}\n{BEGIN}\nx\n{END}\ny\n{END}\nb");
        assert_eq!(strip_internal_runtime_context(&nested), "a\n\nb");
        let unclosed = format!("答案\n{BEGIN}\n内部");
        assert_eq!(strip_internal_runtime_context(&unclosed), "答案");
        let stray = format!("a\n  {END}\nb");
        assert_eq!(strip_internal_runtime_context(&stray), "a\nb");
    }

    #[test]
    fn markers_inside_a_line_stay() {
        for same in [
            format!("use {BEGIN} to open"),
            format!("`{END}` closes"),
            "This is fine.".to_string(),
        ] {
            assert_eq!(strip_internal_runtime_context(&same), same);
        }
    }

    #[test]
    fn legacy_blocks_and_prefaces_go() {
        let legacy = format!(
            "前文\n\n{LEGACY_HEADER}{EVENT}\nchild\n{RESULT_BEGIN}\nout\n{RESULT_END}\n\nAction:\nreply\n\n后文"
        );
        assert_eq!(strip_internal_runtime_context(&legacy), "前文\n\n后文");
        let preface = format!("{}\n{NOTICE}\n\n\n\n答复", PROMPT_HEADERS[2]);
        assert_eq!(strip_internal_runtime_context(&preface), "答复");
    }
}
