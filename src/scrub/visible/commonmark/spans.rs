//! Code spans of one piece of inline content (a paragraph, a heading, a table cell), read left to
//! right the way CommonMark does: a backslash escapes the punctuation after it, an autolink
//! (`<scheme:…>`, `<user@host>`) keeps its backticks, and a run of n backticks opens a span that
//! the next run of exactly n backticks closes; an opener with no closer is text; an inline link's
//! destination and title keep their backticks ([`super::links`]).
//!
//! Linear: the runs are listed once, and for each length a cursor only moves forward (openers are
//! met in order, so the closer of a later opener is never before the closer of an earlier one).

use std::collections::HashMap;
use std::ops::Range;

use super::definitions::Labels;
use super::links::Openers;

/// Pushes the code spans of `bytes[start..end]` (delimiters included) to `out`; `labels`: the
/// labels the text's link definitions name.
pub(super) fn code_spans(
    bytes: &[u8],
    start: usize,
    end: usize,
    labels: &Labels,
    out: &mut Vec<Range<usize>>,
) {
    let text = &bytes[start..end];
    if memchr::memchr(b'`', text).is_none() {
        return;
    }
    let mut closers = Closers::new(text);
    let mut links = Openers::default();
    // Where the last escape ended: an escaped `!` does not make the `[` after it an image.
    let mut escaped = 0;
    let mut i = 0;
    while let Some(k) = text[i..]
        .iter()
        .position(|b| matches!(b, b'`' | b'\\' | b'<' | b'[' | b']'))
    {
        i += k;
        match text[i] {
            b'\\' => {
                i += if text.get(i + 1).is_some_and(u8::is_ascii_punctuation) {
                    escaped = i + 2;
                    2
                } else {
                    1
                }
            }
            b'<' => i = autolink_end(text, i).unwrap_or(i + 1),
            b'[' => {
                links.open(start + i, i > 0 && text[i - 1] == b'!' && escaped != i);
                i += 1;
            }
            b']' => match links.close(text, i, start, labels) {
                Some((end, image)) => {
                    if let Some(alt) = image {
                        while out.last().is_some_and(|r| r.start > alt) {
                            out.pop();
                        }
                    }
                    i = end;
                }
                None => i += 1,
            },
            _ => {
                let run = run_end(text, i);
                match closers.after(run - i, run) {
                    Some(close) => {
                        out.push(start + i..start + close);
                        i = close;
                    }
                    None => i = run,
                }
            }
        }
    }
}

fn run_end(text: &[u8], from: usize) -> usize {
    from + text[from..].iter().take_while(|&&b| b == b'`').count()
}

/// Every maximal backtick run by length (its end offset), each list with a forward-only cursor.
struct Closers {
    runs: HashMap<usize, (Vec<usize>, usize)>,
}

impl Closers {
    fn new(text: &[u8]) -> Self {
        let mut runs: HashMap<usize, (Vec<usize>, usize)> = HashMap::new();
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'`', &text[i..]) {
            let end = run_end(text, i + k);
            runs.entry(end - i - k).or_default().0.push(end);
            i = end;
        }
        Closers { runs }
    }

    /// The end of the first run of exactly `len` backticks that starts at or after `from`.
    fn after(&mut self, len: usize, from: usize) -> Option<usize> {
        let (ends, at) = self.runs.get_mut(&len)?;
        while *at < ends.len() && ends[*at] - len < from {
            *at += 1;
        }
        ends.get(*at).copied()
    }
}

/// The end of the autolink that starts at `text[at] == b'<'`, if one does (micromark's rules:
/// a scheme of 2–32 characters then `:` and no space, control or `<` before `>`; or an e-mail
/// address of atext, `@` and dot-separated labels of at most 63 letters, digits and inner `-`).
fn autolink_end(text: &[u8], at: usize) -> Option<usize> {
    let s = &text[at + 1..];
    let scheme = s
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    if s.first().is_some_and(u8::is_ascii_alphabetic)
        && (2..=32).contains(&scheme)
        && s.get(scheme) == Some(&b':')
    {
        let body = &s[scheme + 1..];
        let stop = body
            .iter()
            .position(|&b| b <= b' ' || b == 0x7f || b == b'<' || b == b'>')?;
        return (body[stop] == b'>').then_some(at + 1 + scheme + 1 + stop + 1);
    }
    email_end(s).map(|n| at + 1 + n)
}

fn email_end(s: &[u8]) -> Option<usize> {
    let local = s.iter().take_while(|&&b| is_atext(b)).count();
    if local == 0 || s.get(local) != Some(&b'@') {
        return None;
    }
    let mut i = local + 1;
    loop {
        let label = s[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
            .count();
        if label == 0 || label > 63 || s[i] == b'-' || s[i + label - 1] == b'-' {
            return None;
        }
        i += label;
        match s.get(i) {
            Some(b'>') => return Some(i + 1),
            Some(b'.') => i += 1,
            _ => return None,
        }
    }
}

fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"#$%&'*+-/=?^_`{|}~.".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(t: &str) -> Vec<&str> {
        let mut out = Vec::new();
        code_spans(t.as_bytes(), 0, t.len(), &Labels::new(), &mut out);
        out.into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn runs_close_on_the_same_length_escapes_and_autolinks_hide_backticks() {
        let cases: &[(&str, &[&str])] = &[
            ("a `b` c", &["`b`"]),
            ("``a ` b`` `", &["``a ` b``"]),
            ("`a`` b", &[]),
            ("\\`a` `b`", &["` `"]),
            ("\\``a`", &["`a`"]),
            ("`a\\`b`", &["`a\\`"]),
            ("<http://x`y> `z`", &["`z`"]),
            ("`<http://x`y>", &["`<http://x`"]),
            ("<a`b@c.d> `e`", &["`e`"]),
            ("<a b`c> `d`", &["`c> `"]),
            ("用 `<think>` 标签", &["`<think>`"]),
        ];
        for (text, want) in cases {
            assert_eq!(spans(text), *want, "{text:?}");
        }
    }
}
