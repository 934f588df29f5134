//! Link reference definitions (`[label]: destination "title"`) at the start of a paragraph are
//! not inline content, so backticks in them are not code. A definition may spread over the
//! paragraph's lines (label, destination and title each may start on a new line), so it is read
//! on the lines' content joined with `\n`, container prefixes left out.

//!
//! Their labels are collected for the whole text before any inline content is read, as micromark
//! does: a reference (`[a]`, `[t][a]`, `[a][]`) is a link only when a definition names `a`,
//! wherever that definition stands.

use std::collections::HashSet;
use std::ops::Range;

use super::link_parts::{destination, title};

/// The labels the text's definitions name, normalized ([`normalize`]).
pub(super) type Labels = HashSet<String>;

/// micromark's `normalizeIdentifier`: runs of spaces, tabs and line endings as one space, trimmed,
/// case folded (lower then upper case, as JavaScript does it).
pub(super) fn normalize(label: &[u8]) -> String {
    let text = String::from_utf8_lossy(label);
    let words: Vec<&str> = text
        .split([' ', '\t', '\n', '\r'])
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ").to_lowercase().to_uppercase()
}

/// Where the inline content of a paragraph made of `lines` (content ranges) starts: past the
/// whole lines at its start that are definitions, whose labels go to `labels`.
pub(super) fn inline_start(bytes: &[u8], lines: &[Range<usize>], labels: &mut Labels) -> usize {
    let first = lines.first().map_or(0, |l| l.start);
    if bytes.get(first) != Some(&b'[') {
        return first;
    }
    let mut joined = Vec::new();
    let mut ends = Vec::with_capacity(lines.len());
    for line in lines {
        joined.extend_from_slice(&bytes[line.clone()]);
        ends.push(joined.len());
        joined.push(b'\n');
    }
    joined.pop();
    let mut at = 0;
    let mut consumed = 0;
    while let Some((label, end)) = definition_end(&joined, at) {
        labels.insert(normalize(&joined[label]));
        // A definition ends at a line end: the paragraph goes on at the next line, if any.
        let line = ends.partition_point(|&e| e < end);
        consumed = line + 1;
        match ends.get(line) {
            Some(&e) if consumed < lines.len() => at = e + 1,
            _ => return lines[line].end,
        }
    }
    lines.get(consumed).map_or(first, |l| l.start)
}

/// The label (inside its brackets) and the end (at a line end) of the definition at `s[at]`, if
/// there is one.
fn definition_end(s: &[u8], at: usize) -> Option<(Range<usize>, usize)> {
    if s.get(at) != Some(&b'[') {
        return None;
    }
    let label = label_end(s, at)?;
    if s.get(label) != Some(&b':') {
        return None;
    }
    let name = at + 1..label - 1;
    let mut i = skip(s, label + 1, true);
    let dest = destination(s, i).ok()?;
    // A title is tried first (it may start on the next line and span lines), then none.
    let t = skip(s, dest, true);
    if t > dest {
        if let Some(end) = title(s, t).ok().map(|end| skip(s, end, false)) {
            if at_line_end(s, end) {
                return Some((name, end));
            }
        }
    }
    i = skip(s, dest, false);
    at_line_end(s, i).then_some((name, i))
}

fn at_line_end(s: &[u8], i: usize) -> bool {
    i == s.len() || s[i] == b'\n'
}

fn skip(s: &[u8], mut i: usize, newlines: bool) -> usize {
    while i < s.len() && (matches!(s[i], b' ' | b'\t') || (newlines && s[i] == b'\n')) {
        i += 1;
    }
    i
}

/// `[…]` of at most 999 characters, no unescaped `[`, something besides spaces: the end past `]`.
pub(super) fn label_end(s: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut seen = false;
    while i < s.len() && i - at <= 1000 {
        match s[i] {
            b']' => return seen.then_some(i + 1),
            b'[' => return None,
            b'\\' if matches!(s.get(i + 1), Some(b'[' | b'\\' | b']')) => {
                seen = true;
                i += 2;
                continue;
            }
            b' ' | b'\t' | b'\n' => {}
            _ => seen = true,
        }
        i += 1;
    }
    None
}
