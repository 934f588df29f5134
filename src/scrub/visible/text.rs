//! Small position helpers the 2026.9.6 scrubbers share (OpenClaw's `skipWhitespace`,
//! `skipHorizontalWhitespace`, `consumeLineBreak`), on byte positions of UTF-8 text.

use crate::js_text::is_js_whitespace;

/// The first position at or after `i` that is not JavaScript whitespace.
pub fn skip_ws(text: &str, mut i: usize) -> usize {
    while let Some(c) = text[i..].chars().next().filter(|&c| is_js_whitespace(c)) {
        i += c.len_utf8();
    }
    i
}

/// The first position at or after `i` that is not a space or a tab.
pub fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// The position after a line break (`\r\n`, `\n` or `\r`) at `i`, if one is there.
pub fn line_break(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i) {
        Some(b'\r') => Some(if b.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        }),
        Some(b'\n') => Some(i + 1),
        _ => None,
    }
}
