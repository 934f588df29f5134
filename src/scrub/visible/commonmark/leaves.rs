//! The one-line leaf blocks that end a paragraph or open a fence, each read from the first
//! character after at most three columns of indentation: fence openers and closers, ATX headings,
//! thematic breaks and setext underlines (CommonMark 0.31, as micromark reads them).

/// A fence opener: its character and length. A backtick fence's info string has no backtick.
pub(super) fn fence_open(rest: &[u8]) -> Option<(u8, usize)> {
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.iter().take_while(|&&b| b == ch).count();
    if len < 3 || (ch == b'`' && rest[len..].contains(&b'`')) {
        return None;
    }
    Some((ch, len))
}

/// Whether `rest` closes a fence of `ch` × `len`: at least `len` of `ch`, then only spaces.
pub(super) fn fence_close(rest: &[u8], ch: u8, len: usize) -> bool {
    let n = rest.iter().take_while(|&&b| b == ch).count();
    n >= len && is_blank(&rest[n..])
}

/// Whether `rest` is an ATX heading: one to six `#`, then a space, a tab or the end.
pub(super) fn atx_heading(rest: &[u8]) -> bool {
    let n = rest.iter().take_while(|&&b| b == b'#').count();
    (1..=6).contains(&n) && matches!(rest.get(n), None | Some(b' ' | b'\t'))
}

/// Whether `rest` is a thematic break: three or more of one of `*-_`, spaces and tabs between.
pub(super) fn thematic_break(rest: &[u8]) -> bool {
    let Some(&ch) = rest.first() else {
        return false;
    };
    if !matches!(ch, b'*' | b'-' | b'_') {
        return false;
    }
    let mut n = 0;
    for &b in rest {
        match b {
            b' ' | b'\t' => {}
            _ if b == ch => n += 1,
            _ => return false,
        }
    }
    n >= 3
}

/// Whether `rest` is a setext underline: a run of `=` or of `-`, then only spaces.
pub(super) fn setext_underline(rest: &[u8]) -> bool {
    let Some(&ch) = rest.first() else {
        return false;
    };
    let n = rest.iter().take_while(|&&b| b == ch).count();
    matches!(ch, b'=' | b'-') && is_blank(&rest[n..])
}

pub(super) fn is_blank(rest: &[u8]) -> bool {
    rest.iter().all(|&b| b == b' ' || b == b'\t')
}
