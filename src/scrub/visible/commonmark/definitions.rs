//! Link reference definitions (`[label]: destination "title"`) at the start of a paragraph are
//! not inline content, so backticks in them are not code. Only one-line definitions are read: a
//! definition spread over lines is left as paragraph text (see [`super`]).

/// Where the paragraph `bytes[start..end]`'s inline content starts: past the whole lines at its
/// start that are definitions.
pub(super) fn inline_start(bytes: &[u8], start: usize, end: usize) -> usize {
    let mut at = start;
    while at < end && bytes[at] == b'[' {
        let line_end = memchr::memchr2(b'\n', b'\r', &bytes[at..end]).map_or(end, |k| at + k);
        if !is_definition(&bytes[at..line_end]) {
            break;
        }
        at = line_end;
        if bytes[at..end].starts_with(b"\r\n") {
            at += 2;
        } else if at < end {
            at += 1;
        }
        while at < end && matches!(bytes[at], b' ' | b'\t') {
            at += 1;
        }
    }
    at
}

fn is_definition(line: &[u8]) -> bool {
    let Some(label) = label_end(line) else {
        return false;
    };
    if line.get(label) != Some(&b':') {
        return false;
    }
    let mut i = skip_spaces(line, label + 1);
    let Some(dest) = destination_end(line, i) else {
        return false;
    };
    i = skip_spaces(line, dest);
    if i == line.len() {
        return true;
    }
    i > dest && title_end(line, i).is_some_and(|t| skip_spaces(line, t) == line.len())
}

fn skip_spaces(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && matches!(line[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// `[…]` of at most 999 characters, no unescaped `[`, something besides spaces.
fn label_end(line: &[u8]) -> Option<usize> {
    let mut i = 1;
    let mut seen = false;
    while i < line.len() && i <= 1000 {
        match line[i] {
            b']' => return seen.then_some(i + 1),
            b'[' => return None,
            b'\\' if matches!(line.get(i + 1), Some(b'[' | b'\\' | b']')) => {
                seen = true;
                i += 2;
                continue;
            }
            b' ' | b'\t' => {}
            _ => seen = true,
        }
        i += 1;
    }
    None
}

fn destination_end(line: &[u8], at: usize) -> Option<usize> {
    if line.get(at) == Some(&b'<') {
        let mut i = at + 1;
        while i < line.len() {
            match line[i] {
                b'>' => return Some(i + 1),
                b'<' => return None,
                b'\\' if matches!(line.get(i + 1), Some(b'<' | b'>' | b'\\')) => i += 2,
                _ => i += 1,
            }
        }
        return None;
    }
    let mut i = at;
    let mut depth = 0usize;
    while i < line.len() {
        match line[i] {
            b'(' if depth == 32 => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => return None,
            b')' => depth -= 1,
            b'\\' if matches!(line.get(i + 1), Some(b'(' | b')' | b'\\')) => i += 1,
            c if c <= b' ' || c == 0x7f => break,
            _ => {}
        }
        i += 1;
    }
    (i > at && depth == 0).then_some(i)
}

fn title_end(line: &[u8], at: usize) -> Option<usize> {
    let close = match line.get(at)? {
        b'"' => b'"',
        b'\'' => b'\'',
        b'(' => b')',
        _ => return None,
    };
    let mut i = at + 1;
    while i < line.len() {
        match line[i] {
            c if c == close => return Some(i + 1),
            b'(' if close == b')' => return None,
            b'\\' if line.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 2,
            _ => i += 1,
        }
    }
    None
}
