//! `<final>` markers as OpenClaw 2026.9.6 parses them (`src/shared/text/final-tags.ts`): some
//! agent prompts ask the model to wrap its answer in `<final>…</final>`; the markers are removed
//! and the answer kept. From 2026.9.6 on a marker is only `<final>`, `</final>`, `<final/>` or
//! `<final` with well-formed attributes (`<finally>`, `<final-answer>`, `<final x=">` stay), and
//! markers in Markdown code stay.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::MarkdownCode;
use crate::js_text::is_js_whitespace;

static CANDIDATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<[^<>]*>").expect("static regex"));

/// Whether `tag` (a whole `<…>` candidate) is a `<final>` marker.
fn is_final_tag(tag: &str) -> bool {
    let inner = &tag[1..tag.len() - 1];
    let mut body = inner.trim_start_matches(is_js_whitespace);
    let close = body.starts_with('/');
    if close {
        body = body[1..].trim_start_matches(is_js_whitespace);
    }
    if body.len() < 5 || !body.is_char_boundary(5) || !body[..5].eq_ignore_ascii_case("final") {
        return false;
    }
    let rest = &body[5..];
    if let Some(c) = rest.chars().next() {
        if !is_js_whitespace(c) && c != '/' {
            return false;
        }
    }
    if close {
        return rest.trim_matches(is_js_whitespace).is_empty();
    }
    let trimmed = rest.trim_end_matches(is_js_whitespace);
    let rest = trimmed.strip_suffix('/').unwrap_or(rest);
    attributes_ok(rest)
}

/// OpenClaw's `parseAttributeList`: names, each optionally `= value` (quoted or bare).
fn attributes_ok(text: &str) -> bool {
    let b: Vec<char> = text.chars().collect();
    let ws = |c: char| is_js_whitespace(c);
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return true;
        }
        let name = i;
        while i < b.len() {
            let c = b[i];
            if ws(c) || c == '=' {
                break;
            }
            if matches!(c, '/' | '"' | '\'' | '<' | '>') {
                return false;
            }
            i += 1;
        }
        if i == name {
            return false;
        }
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if b.get(i) != Some(&'=') {
            continue;
        }
        i += 1;
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        let Some(&q) = b.get(i) else {
            return false;
        };
        if q == '"' || q == '\'' {
            match b[i + 1..].iter().position(|&c| c == q) {
                Some(p) => i = i + 1 + p + 1,
                None => return false,
            }
            continue;
        }
        let value = i;
        while i < b.len() && !ws(b[i]) {
            if matches!(b[i], '"' | '\'' | '<' | '>') {
                return false;
            }
            i += 1;
        }
        if i == value {
            return false;
        }
    }
    true
}

/// What a text must hold for [`strip_final_tags`] to change it.
pub const NEEDLES: super::needles::Needles = super::needles::Needles::exact(&["<"]);

/// Whether the text has a `<final>` marker anywhere (code or not).
pub fn has_final_tags(text: &str) -> bool {
    text.contains('<') && CANDIDATE.find_iter(text).any(|m| is_final_tag(m.as_str()))
}

/// The text without `<final>` markers outside code; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::final_tags::strip_final_tags;
/// assert_eq!(strip_final_tags("<final>答案是 42。</final>"), "答案是 42。");
/// assert_eq!(strip_final_tags("<finally>"), "<finally>");
/// ```
pub fn strip_final_tags(text: &str) -> Cow<'_, str> {
    if !text.contains('<') {
        return Cow::Borrowed(text);
    }
    let mut code: Option<MarkdownCode> = None;
    let mut out = String::new();
    let mut last = 0;
    for m in CANDIDATE.find_iter(text) {
        if !is_final_tag(m.as_str()) {
            continue;
        }
        if code
            .get_or_insert_with(|| MarkdownCode::find(text))
            .contains(m.start())
        {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        last = m.end();
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_lookalikes() {
        for t in [
            "<final>",
            "</final>",
            "< FINAL >",
            "<final/>",
            "<final a=\"b\" c=d e>",
            "</ final >",
        ] {
            assert!(is_final_tag(t), "{t}");
        }
        for t in [
            "<finally>",
            "<final-answer>",
            "<final x=\">",
            "</final x>",
            "<final a=>",
            "<fin>",
        ] {
            assert!(!is_final_tag(t), "{t}");
        }
    }

    #[test]
    fn markers_in_code_stay() {
        assert_eq!(strip_final_tags("`<final>` x<final>y"), "`<final>` xy");
    }
}
