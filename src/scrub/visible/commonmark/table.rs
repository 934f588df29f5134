//! GFM table rows (micromark-extension-gfm-table, which OpenClaw 2026.9.6 turns on): a row's
//! cells are split at pipes before any inline parse, so a code span never crosses a `|` inside a
//! table, and a table's rows are single lines that end a paragraph and let an indented line after
//! them be code. A head row is any line whose next line is a delimiter row (`:?-+:?` cells with at
//! least one pipe or colon) with as many cells as the head has.

use std::ops::Range;

/// The cells of a row `bytes[start..end]`: ranges between unescaped pipes (a backslash escapes a
/// pipe or a backslash), trimmed of spaces and tabs, empty ones left out.
pub(super) fn cells(bytes: &[u8], start: usize, end: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut cell = start;
    let mut i = start;
    while i < end {
        match bytes[i] {
            b'\\' if i + 1 < end && matches!(bytes[i + 1], b'\\' | b'|') => i += 2,
            b'|' => {
                push_trimmed(bytes, cell, i, &mut out);
                i += 1;
                cell = i;
            }
            _ => i += 1,
        }
    }
    push_trimmed(bytes, cell, end, &mut out);
    out
}

fn push_trimmed(bytes: &[u8], mut start: usize, mut end: usize, out: &mut Vec<Range<usize>>) {
    while start < end && matches!(bytes[start], b' ' | b'\t') {
        start += 1;
    }
    while end > start && matches!(bytes[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    if start < end {
        out.push(start..end);
    }
}

/// Whether `row` (a head row candidate) can head a table: it has data (not pipes or spaces), or
/// two pipes.
pub(super) fn can_head(row: &[u8]) -> bool {
    row.iter().any(|&b| !matches!(b, b' ' | b'\t' | b'|'))
        || row.iter().filter(|&&b| b == b'|').count() > 1
}

/// The number of cells of a delimiter row (`row` past at most three columns of indentation), or
/// `None` when it is not one.
pub(super) fn delimiter_cells(row: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut cells = 0;
    let mut seen = false;
    let skip_ws = |i: &mut usize| {
        while *i < row.len() && matches!(row[*i], b' ' | b'\t') {
            *i += 1;
        }
    };
    if row.first() == Some(&b'|') {
        seen = true;
        i += 1;
        skip_ws(&mut i);
    }
    loop {
        if i == row.len() {
            break;
        }
        if row[i] == b':' {
            seen = true;
            i += 1;
        }
        let dashes = row[i..].iter().take_while(|&&b| b == b'-').count();
        if dashes == 0 {
            return None;
        }
        i += dashes;
        if row.get(i) == Some(&b':') {
            seen = true;
            i += 1;
        }
        cells += 1;
        skip_ws(&mut i);
        match row.get(i) {
            None => break,
            Some(b'|') => {
                seen = true;
                i += 1;
                skip_ws(&mut i);
            }
            Some(_) => return None,
        }
    }
    seen.then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_split_at_unescaped_pipes_and_delimiter_rows_count_theirs() {
        let row = "| `a|b` | c\\|d | |";
        let got: Vec<&str> = cells(row.as_bytes(), 0, row.len())
            .into_iter()
            .map(|r| &row[r])
            .collect();
        assert_eq!(got, ["`a", "b`", "c\\|d"]);
        assert_eq!(delimiter_cells(b"| - | :-: |"), Some(2));
        assert_eq!(delimiter_cells(b":-"), Some(1));
        assert_eq!(delimiter_cells(b"-"), None);
        assert_eq!(delimiter_cells(b"| - || - |"), None);
        assert_eq!(delimiter_cells(b"| - | x |"), None);
    }
}
