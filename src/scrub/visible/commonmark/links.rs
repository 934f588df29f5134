//! Inline links, as far as code depends on them: `[label](destination "title")` is read when its
//! `]` is met (left to right, so a code span opened inside the label wins), and the destination
//! and title keep their backticks. Openers are `[` and `![`; a link (not an image) makes every
//! link opener before it inactive, as links cannot nest; an image's alt text is not code. Reference links need definitions, which this
//! reading does not collect (see [`super`]).

/// The `[` / `![` openers seen so far in one piece of inline content.
#[derive(Debug, Default)]
pub(super) struct Openers {
    /// Per opener: where it is and whether it is an image.
    openers: Vec<(usize, bool)>,
    /// Link openers below this index are inactive (a link closed after them); image openers
    /// stay active.
    active_from: usize,
    /// Bytes read by failed resource attempts, bounded to keep the reading linear on text
    /// built to defeat it (`[a](bbb[a](bbb…`); past the bound a `](` is text.
    spent: usize,
}

impl Openers {
    pub fn open(&mut self, at: usize, image: bool) {
        self.openers.push((at, image));
    }

    /// At the `]` at `text[at]`: when `]` closes a link or an image with an inline resource, the
    /// end of the resource and, for an image, where its `![` is (its alt text is plain text in the
    /// tree OpenClaw reads, so code spans in it are not code); else `None` (the `]` is text).
    pub fn close(&mut self, text: &[u8], at: usize) -> Option<(usize, Option<usize>)> {
        let (opener, image) = self.openers.pop()?;
        let index = self.openers.len();
        let active = image || index >= self.active_from;
        self.active_from = self.active_from.min(index);
        if !active || self.spent > 8 * text.len() + 4096 {
            return None;
        }
        let (end, read) = resource_end(text, at + 1);
        let Some(end) = end else {
            self.spent += read;
            return None;
        };
        if image {
            return Some((end, Some(opener)));
        }
        self.active_from = index;
        Some((end, None))
    }
}

/// The end of `(destination "title")` starting at `text[at]`, if it is one, and how far it read.
fn resource_end(text: &[u8], at: usize) -> (Option<usize>, usize) {
    let mut i = at;
    let end = resource(text, &mut i);
    (end, i - at)
}

/// Each reader moves `i` as it reads and says whether what it read is well formed.
fn resource(text: &[u8], i: &mut usize) -> Option<usize> {
    if text.get(*i) != Some(&b'(') {
        return None;
    }
    *i += 1;
    skip_whitespace(text, i);
    if text.get(*i) != Some(&b')') {
        destination(text, i)?;
        let before = *i;
        skip_whitespace(text, i);
        if text.get(*i) != Some(&b')') {
            if *i == before {
                return None;
            }
            title(text, i)?;
            skip_whitespace(text, i);
        }
    }
    (text.get(*i) == Some(&b')')).then_some(*i + 1)
}

fn skip_whitespace(text: &[u8], i: &mut usize) {
    while *i < text.len() && matches!(text[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
}

fn destination(text: &[u8], i: &mut usize) -> Option<()> {
    if text.get(*i) == Some(&b'<') {
        *i += 1;
        while *i < text.len() {
            match text[*i] {
                b'>' => {
                    *i += 1;
                    return Some(());
                }
                b'<' | b'\n' | b'\r' => return None,
                b'\\' if matches!(text.get(*i + 1), Some(b'<' | b'>' | b'\\')) => *i += 2,
                _ => *i += 1,
            }
        }
        return None;
    }
    let start = *i;
    let mut depth = 0usize;
    while *i < text.len() {
        match text[*i] {
            b'(' if depth == 32 => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b'\\' if matches!(text.get(*i + 1), Some(b'(' | b')' | b'\\')) => *i += 1,
            c if c <= b' ' || c == 0x7f => break,
            _ => {}
        }
        *i += 1;
    }
    (*i > start && depth == 0).then_some(())
}

fn title(text: &[u8], i: &mut usize) -> Option<()> {
    let close = match text.get(*i)? {
        b'"' => b'"',
        b'\'' => b'\'',
        b'(' => b')',
        _ => return None,
    };
    *i += 1;
    while *i < text.len() {
        match text[*i] {
            c if c == close => {
                *i += 1;
                return Some(());
            }
            b'(' if close == b')' => return None,
            b'\\' if text.get(*i + 1).is_some_and(u8::is_ascii_punctuation) => *i += 2,
            _ => *i += 1,
        }
    }
    None
}
