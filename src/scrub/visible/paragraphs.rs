//! The last two steps of OpenClaw 2026.9.6's user-facing chain (`stripLeadingEmptyLines` and
//! `collapseDuplicateParagraphs` in `src/shared/text/text-projection.ts`): models that lose track
//! of what they already sent repeat a paragraph word for word, and a reply that opens with blank
//! lines shows as an empty bubble on some channels. A paragraph (text between blank lines, `\n\n`)
//! equal to the one before it, whitespace runs counted as one space, is dropped; when one is, the
//! paragraphs are joined again with one blank line and trimmed at their edges. Markdown code
//! is compared as written: two equal inline code spans match, two code blocks never do.

use std::borrow::Cow;

use super::markdown_code::MarkdownCode;
use crate::js_text::is_js_whitespace;

/// What a text must hold for a paragraph to repeat: a blank line.
pub const NEEDLES: super::needles::Needles = super::needles::Needles::exact(&["\n\n"]);

/// The text without its leading blank lines (`""` when it is all whitespace); borrowed when it
/// has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::paragraphs::strip_leading_empty_lines;
/// assert_eq!(strip_leading_empty_lines(" \n\t\r\n  好的"), "  好的");
/// assert_eq!(strip_leading_empty_lines(" \n "), "");
/// ```
pub fn strip_leading_empty_lines(text: &str) -> Cow<'_, str> {
    if text.trim_matches(is_js_whitespace).is_empty() {
        return if text.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(String::new())
        };
    }
    let b = text.as_bytes();
    let (mut i, mut cut) = (0, 0);
    loop {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let line_end = match (b.get(i), b.get(i + 1)) {
            (Some(b'\n'), _) => i + 1,
            (Some(b'\r'), Some(b'\n')) => i + 2,
            _ => break,
        };
        cut = line_end;
        i = line_end;
    }
    if cut == 0 {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text[cut..].to_string())
}

/// Whitespace runs as one space (JavaScript's `s.replace(/\s+/g, " ")`).
fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if is_js_whitespace(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// Runs of `\n` and runs of anything else, in order.
fn parts(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= b.len() {
            return None;
        }
        let start = i;
        let newline = b[i] == b'\n';
        while i < b.len() && (b[i] == b'\n') == newline {
            i += 1;
        }
        Some(&text[start..i])
    })
}

/// OpenClaw's paragraph reader run on a whole text, code not protected: the collapsed text, or
/// `None` when no paragraph repeats the one before it.
fn collapse_plain(text: &str) -> Option<String> {
    if !text.contains("\n\n") {
        return None;
    }
    let mut completed = String::new();
    // The previous kept paragraph, normalised (`Some("")` after blank paragraphs were kept).
    let mut last: Option<String> = None;
    let mut pending_empty = 0usize;
    let mut paragraph = String::new();
    let mut pending = String::new();
    let mut normalized_len = 0usize;
    let mut equal = false;
    let mut has_duplicate = false;
    for part in parts(text) {
        if part.starts_with('\n') {
            if part.len() >= 2 {
                if paragraph.is_empty() {
                    pending_empty += usize::from(last.is_some());
                } else if equal && last.as_ref().map(String::len) == Some(normalized_len) {
                    has_duplicate = true;
                } else {
                    if !completed.is_empty() {
                        completed.push_str("\n\n");
                    }
                    completed.push_str(&paragraph);
                    last = Some(normalize(&paragraph));
                }
                paragraph.clear();
                pending.clear();
                normalized_len = 0;
                equal = last.as_ref().is_some_and(|l| !l.is_empty());
            } else if !paragraph.is_empty() {
                pending.push_str(part);
            }
            continue;
        }
        let raw = if paragraph.is_empty() {
            part.trim_start_matches(is_js_whitespace)
        } else {
            part
        };
        let content = raw.trim_end_matches(is_js_whitespace);
        if content.is_empty() {
            pending.push_str(raw);
            continue;
        }
        let mut piece = std::mem::take(&mut pending);
        piece.push_str(content);
        pending.push_str(&raw[content.len()..]);
        if paragraph.is_empty() && pending_empty > 0 {
            completed.push_str(&"\n\n".repeat(pending_empty));
            pending_empty = 0;
            last = Some(String::new());
            equal = false;
        }
        paragraph.push_str(&piece);
        if equal {
            let normalized = normalize(&piece);
            equal = last
                .as_deref()
                .and_then(|l| l.get(normalized_len..))
                .is_some_and(|rest| rest.starts_with(&normalized));
            normalized_len += normalized.len();
        }
    }
    let duplicate =
        !paragraph.is_empty() && equal && last.as_ref().map(String::len) == Some(normalized_len);
    if !has_duplicate && !duplicate {
        return None;
    }
    if !paragraph.is_empty() && !duplicate {
        if !completed.is_empty() {
            completed.push_str("\n\n");
        }
        completed.push_str(&paragraph);
    }
    Some(completed)
}

/// The text with each paragraph that repeats the one before it dropped; borrowed when none does.
///
/// ```
/// use transcript_hygiene::scrub::visible::paragraphs::collapse_duplicate_paragraphs;
/// let t = "北京今天晴。\n\n北京今天晴。\n\n明天下雨。";
/// assert_eq!(collapse_duplicate_paragraphs(t), "北京今天晴。\n\n明天下雨。");
/// let code = "```\nls\n```\n\n```\nls\n```";
/// assert_eq!(collapse_duplicate_paragraphs(code), code);
/// ```
pub fn collapse_duplicate_paragraphs(text: &str) -> Cow<'_, str> {
    let Some(collapsed) = collapse_plain(text) else {
        return Cow::Borrowed(text);
    };
    let code = MarkdownCode::find(text);
    if code.ranges().is_empty() {
        return Cow::Owned(collapsed);
    }
    // Each code region becomes a token no text holds (`\0…` index `\0…`); equal code spans
    // share one, so paragraphs that differ only in where their code sits still compare.
    // (The shortest run of NULs the text does not hold, found in one pass where OpenClaw grows the
    // marker and searches again.)
    let longest_run = text
        .as_bytes()
        .split(|&b| b != 0)
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let marker = "\0".repeat(longest_run + 1);
    let mut masked = String::with_capacity(text.len());
    let mut spans: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut cursor = 0;
    for (index, (range, block)) in code.ranges().iter().zip(code.blocks()).enumerate() {
        let source = &text[range.clone()];
        let token = if block {
            index
        } else {
            *spans.entry(source).or_insert(index)
        };
        masked.push_str(&text[cursor..range.start]);
        masked.push_str(&marker);
        masked.push_str(&token.to_string());
        masked.push_str(&marker);
        cursor = range.end;
    }
    masked.push_str(&text[cursor..]);
    let Some(collapsed) = collapse_plain(&masked) else {
        return Cow::Borrowed(text);
    };
    Cow::Owned(unmask(&collapsed, &marker, |i| {
        code.ranges().get(i).map(|r| &text[r.clone()])
    }))
}

/// `masked` with each `marker digits marker` token replaced by the code it stands for.
fn unmask<'a>(masked: &str, marker: &str, code: impl Fn(usize) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(masked.len());
    let mut rest = masked;
    while let Some(at) = rest.find(marker) {
        out.push_str(&rest[..at]);
        let after = &rest[at + marker.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let token = (digits > 0 && after[digits..].starts_with(marker))
            .then(|| after[..digits].parse().ok().and_then(&code))
            .flatten();
        match token {
            Some(source) => {
                out.push_str(source);
                rest = &after[digits + marker.len()..];
            }
            None => {
                // Not a token here: keep one byte of the marker and look again after it.
                out.push('\0');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_paragraph_equal_to_the_one_before_goes() {
        let cases = [
            ("a\n\na\n\nb\n\na", "a\n\nb\n\na"),
            ("  a  b \n\na b", "a  b"),
            ("a\nb\n\na b\n\nc", "a\nb\n\nc"),
            ("好的\n\n\n\n好的\n\n", "好的"),
            ("a\n\n\n\n\nb\n\nb", "a\n\nb"),
        ];
        for (input, want) in cases {
            assert_eq!(collapse_duplicate_paragraphs(input), want, "{input:?}");
        }
        for same in ["a\n\nb\n\na", "a\na", "a \n \na", "x\n\n`a`\n\n`b`", ""] {
            assert!(
                matches!(collapse_duplicate_paragraphs(same), Cow::Borrowed(_)),
                "{same:?}"
            );
        }
    }

    #[test]
    fn equal_code_spans_match_and_code_blocks_never_do() {
        assert_eq!(
            collapse_duplicate_paragraphs("run `ls`\n\nrun `ls`\n\ndone"),
            "run `ls`\n\ndone"
        );
        let fenced = "```\nx\n```\n\n```\nx\n```\n\nok\n\nok";
        assert_eq!(
            collapse_duplicate_paragraphs(fenced),
            "```\nx\n```\n\n```\nx\n```\n\nok"
        );
    }

    #[test]
    fn leading_blank_lines_go_and_an_indent_stays() {
        assert_eq!(strip_leading_empty_lines("\n\n    code"), "    code");
        assert_eq!(strip_leading_empty_lines("\r\n x"), " x");
        assert_eq!(strip_leading_empty_lines("x\n\n"), "x\n\n");
        assert_eq!(strip_leading_empty_lines("\u{3000}"), "");
    }
}
