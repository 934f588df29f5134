//! Inline links, as far as code depends on them: `[label](destination "title")` is read when its
//! `]` is met (left to right, so a code span opened inside the label wins), and the destination
//! and title keep their backticks. Openers are `[` and `![`; a link (not an image) makes every
//! link opener before it inactive, as links cannot nest; an image's alt text is not code.
//! Without a resource, `]` closes a reference (`[t][a]`, `[a][]`, `[a]`) when a definition of the
//! text names its label (micromark's order: a resource, then a full reference, then a collapsed
//! one, then the shortcut).

use super::definitions::{label_end, normalize, Labels};
use super::link_parts::{destination, title};

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

    /// At the `]` at `text[at]` (`text` starts at `base` of the whole text, where the openers'
    /// offsets count from): when `]` closes a link or an image, with an inline resource or as a
    /// reference to one of `labels`, where the link ends and, for an image, where its `![` is (its
    /// alt text is plain text in the tree OpenClaw reads, so code spans in it are not code); else
    /// `None` (the `]` is text).
    pub fn close(
        &mut self,
        text: &[u8],
        at: usize,
        base: usize,
        labels: &Labels,
    ) -> Option<(usize, Option<usize>)> {
        let (opener, image) = self.openers.pop()?;
        let index = self.openers.len();
        let active = image || index >= self.active_from;
        self.active_from = self.active_from.min(index);
        if !active || self.spent > 8 * text.len() + 4096 {
            return None;
        }
        let (end, read) = resource_end(text, at + 1);
        let end = match end {
            Some(end) => end,
            None if labels.is_empty() => {
                self.spent += read;
                return None;
            }
            None => {
                // The link text is read only when it can be a label (under 1,000 bytes), and it
                // counts against the bound (nested openers read the same bytes again).
                let own_text = &text[opener - base + 1..at];
                self.spent += read + own_text.len().min(1000);
                let own = || own_text.len() < 1000 && labels.contains(&normalize(own_text));
                self.reference_end(text, at + 1, labels, own)?
            }
        };
        if image {
            return Some((end, Some(opener)));
        }
        self.active_from = index;
        Some((end, None))
    }

    /// After `]` at `text[at]`, no resource: the end of a full reference to a defined label, of a
    /// collapsed one (`[]`) or of a shortcut when the link text itself (`own`) is defined.
    fn reference_end(
        &mut self,
        text: &[u8],
        at: usize,
        labels: &Labels,
        own: impl Fn() -> bool,
    ) -> Option<usize> {
        if text.get(at) != Some(&b'[') {
            return own().then_some(at);
        }
        match label_end(text, at) {
            Some(end) if labels.contains(&normalize(&text[at + 1..end - 1])) => return Some(end),
            Some(end) => self.spent += end - at,
            None => self.spent += (text.len() - at).min(1000),
        }
        (own() && text[at..].starts_with(b"[]")).then_some(at + 2)
    }
}

/// The end of `(destination "title")` starting at `text[at]`, if it is one, and how far it read.
fn resource_end(text: &[u8], at: usize) -> (Option<usize>, usize) {
    match resource(text, at) {
        Ok(end) => (Some(end), end - at),
        Err(stop) => (None, stop.saturating_sub(at)),
    }
}

fn resource(text: &[u8], at: usize) -> Result<usize, usize> {
    if text.get(at) != Some(&b'(') {
        return Err(at);
    }
    let mut i = skip_whitespace(text, at + 1);
    if text.get(i) != Some(&b')') {
        let dest = destination(text, i)?;
        i = skip_whitespace(text, dest);
        if text.get(i) != Some(&b')') {
            if i == dest {
                return Err(i);
            }
            i = skip_whitespace(text, title(text, i)?);
        }
    }
    if text.get(i) == Some(&b')') {
        Ok(i + 1)
    } else {
        Err(i)
    }
}

fn skip_whitespace(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}
