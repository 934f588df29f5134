//! The destination and title of an inline link (`[a](dest "title")`) and of a link definition
//! (`[a]: dest "title"`): both keep their backticks, so both must be read to know what is code.
//! Each reader answers `Ok(end)`, or `Err(where it stopped)` so a caller can bound its work.

/// `<…>` (no `<` or line ending inside), or a run without spaces or controls whose parentheses
/// balance (at most 32 deep); a backslash escapes the brackets and itself.
pub(super) fn destination(s: &[u8], at: usize) -> Result<usize, usize> {
    let mut i = at;
    if s.get(at) == Some(&b'<') {
        i += 1;
        while i < s.len() {
            match s[i] {
                b'>' => return Ok(i + 1),
                b'<' | b'\n' | b'\r' => return Err(i),
                b'\\' if matches!(s.get(i + 1), Some(b'<' | b'>' | b'\\')) => i += 2,
                _ => i += 1,
            }
        }
        return Err(i);
    }
    let mut depth = 0usize;
    while i < s.len() {
        match s[i] {
            b'(' if depth == 32 => return Err(i),
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b'\\' if matches!(s.get(i + 1), Some(b'(' | b')' | b'\\')) => i += 1,
            c if c <= b' ' || c == 0x7f => break,
            _ => {}
        }
        i += 1;
    }
    if i > at && depth == 0 {
        Ok(i)
    } else {
        Err(i)
    }
}

/// `"…"`, `'…'` or `(…)`, lines allowed; like micromark, a `(` inside `(…)` is text.
pub(super) fn title(s: &[u8], at: usize) -> Result<usize, usize> {
    let close = match s.get(at) {
        Some(b'"') => b'"',
        Some(b'\'') => b'\'',
        Some(b'(') => b')',
        _ => return Err(at),
    };
    let mut i = at + 1;
    while i < s.len() {
        match s[i] {
            c if c == close => return Ok(i + 1),
            b'\\' if s.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 2,
            _ => i += 1,
        }
    }
    Err(i)
}
