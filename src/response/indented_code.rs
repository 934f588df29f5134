//! Markdown's indented code blocks: lines indented by four spaces (or a tab) after a blank line
//! that follows a paragraph. A reply that shows a template or a call this way is quoting it, as
//! with a fence (`工具调用的格式如下：`, a blank line, then the call indented), so what is in such a
//! block is text, never a call and never reasoning.
//!
//! Kept strict, so that a leak is not taken for an example: the block must follow a blank line
//! after a paragraph of plain text. A reply that starts indented, lines indented right under a
//! sentence (a paragraph's continuation), and anything after a list item (four spaces there are
//! the item's own paragraph, where a model may well write its call) are not code.
//!
//! One definition of what a line is ([`classify`]) and of where a block runs ([`Context`]),
//! used by the stream as text goes by ([`Tracker`]) and by the whole-reply readers ([`blocks`]).

use std::ops::Range;

/// What a line is, as far as indented code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// Only spaces, tabs or `\r`.
    Blank,
    /// Four spaces or more (a tab after at most three), then text.
    Indented,
    /// A list item's first line (up to three spaces, then `-`, `*`, `+` or one to nine digits and
    /// `.` or `)`, then a space, a tab or the line's end), or a line of text indented by one to
    /// three spaces (a list item's own paragraph, as often as not).
    ListItem,
    /// Any other line.
    Plain,
}

/// The bytes of a line's start that decide its kind (three spaces, nine digits, `.`, a space).
pub(crate) const HEAD: usize = 16;

/// Whether `b` is white space within a line.
fn blank_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// Whether `bytes` hold a byte other than white space.
pub(crate) fn has_text(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| !blank_byte(b))
}

/// The kind of the line whose first bytes are `head` (up to [`HEAD`] of them, no line break);
/// `text`: the line holds a byte other than white space ([`has_text`]).
pub(crate) fn classify(head: &[u8], text: bool) -> LineKind {
    if !text {
        return LineKind::Blank;
    }
    let spaces = head.iter().take_while(|&&b| b == b' ').count();
    if spaces >= 4 || head.get(spaces) == Some(&b'\t') {
        LineKind::Indented
    } else if spaces > 0 || list_item(&head[spaces..]) {
        LineKind::ListItem
    } else {
        LineKind::Plain
    }
}

/// Whether `t` (a line past its leading spaces) starts with a list item's marker.
fn list_item(t: &[u8]) -> bool {
    let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
    let after = match t.first() {
        Some(b'-' | b'*' | b'+') => 1,
        _ if (1..=9).contains(&digits) && matches!(t.get(digits), Some(b'.' | b')')) => digits + 1,
        _ => return false,
    };
    t.get(after).is_none_or(|&b| blank_byte(b))
}

/// Where a run of lines stands: what the last non-blank line was and whether a blank line came
/// after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Context {
    last: Option<LineKind>,
    blank_after: bool,
    in_block: bool,
}

impl Context {
    /// Whether a line of `kind` here belongs to an indented code block.
    pub(crate) fn is_code(&self, kind: LineKind) -> bool {
        kind == LineKind::Indented
            && (self.in_block || (self.blank_after && self.last == Some(LineKind::Plain)))
    }

    /// The context after a line of `kind`.
    pub(crate) fn feed(&mut self, kind: LineKind) {
        if kind == LineKind::Blank {
            self.blank_after = true;
            return;
        }
        self.in_block = self.is_code(kind);
        self.last = Some(kind);
        self.blank_after = false;
    }
}

/// The context of a stream's text as it goes by: complete lines fed to [`Context`], and the
/// start of the line still arriving.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tracker {
    ctx: Context,
    head: [u8; HEAD],
    head_len: u8,
    /// The line so far holds a byte other than white space.
    text: bool,
}

impl Tracker {
    /// `piece` went by. Read from its end: the context after a line of plain text or a list
    /// item does not depend on what came before it, so only the lines after the last such line
    /// are read forward (most pieces end in one: a few lines read, whatever the piece's length).
    pub(crate) fn pass(&mut self, piece: &[u8]) {
        let Some(last) = memchr::memrchr(b'\n', piece) else {
            self.take(piece);
            return;
        };
        // The piece's first line continues the line still arriving: it is read forward with it.
        let mut from = 0;
        let mut end = last;
        while let Some(k) = memchr::memrchr(b'\n', &piece[..end]) {
            let line = &piece[k + 1..end];
            let kind = classify(&line[..line.len().min(HEAD)], has_text(line));
            if matches!(kind, LineKind::Plain | LineKind::ListItem) {
                from = k + 1;
                self.head_len = 0;
                self.text = false;
                break;
            }
            end = k;
        }
        for line in piece[from..last].split(|&b| b == b'\n') {
            self.take(line);
            self.ctx.feed(classify(self.head(), self.text));
            self.head_len = 0;
            self.text = false;
        }
        self.take(&piece[last + 1..]);
    }

    fn take(&mut self, bytes: &[u8]) {
        // Read up to the line's first byte of text only.
        self.text = self.text || has_text(bytes);
        let have = usize::from(self.head_len);
        let n = bytes.len().min(HEAD - have);
        self.head[have..have + n].copy_from_slice(&bytes[..n]);
        // HEAD fits a u8.
        self.head_len = (have + n) as u8;
    }

    /// The start of the line still arriving (up to [`HEAD`] bytes).
    pub(crate) fn head(&self) -> &[u8] {
        &self.head[..usize::from(self.head_len)]
    }

    /// The kind of the line still arriving, `text`: it holds text beyond what went by.
    pub(crate) fn line_kind(&self, text: bool) -> LineKind {
        classify(self.head(), self.text || text)
    }

    /// Whether the text so far ends at a line's start.
    pub(crate) fn at_line_start(&self) -> bool {
        self.head_len == 0
    }

    /// The context before the line still arriving.
    pub(crate) fn context(&self) -> Context {
        self.ctx
    }
}

/// Whether `text` has a line that starts indented after another line (a block's first line
/// never starts the text): when not, it holds no block, found with two quick searches.
pub(crate) fn may_hold_blocks(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find(b, b"\n    ").is_some() || memchr::memmem::find(b, b"\n\t").is_some()
}

/// The indented code blocks of `text`, each from its first line's start to its last indented
/// line's end (blank lines after it are not part of it).
pub(crate) fn blocks(text: &str) -> Vec<Range<usize>> {
    if !may_hold_blocks(text) {
        return Vec::new();
    }
    let b = text.as_bytes();
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut ctx = Context::default();
    let mut at = 0;
    while at < b.len() {
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |k| at + k);
        let line = &b[at..end];
        let kind = classify(&line[..line.len().min(HEAD)], has_text(line));
        if ctx.is_code(kind) {
            match out.last_mut() {
                Some(r) if ctx.in_block => r.end = end,
                _ => out.push(at..end),
            }
        }
        ctx.feed(kind);
        at = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lines: &[&str]) -> Vec<LineKind> {
        lines
            .iter()
            .map(|l| classify(&l.as_bytes()[..l.len().min(HEAD)], has_text(l.as_bytes())))
            .collect()
    }

    #[test]
    fn line_kinds() {
        use LineKind::*;
        assert_eq!(
            kinds(&[
                "", "  \t", "    x", "\tx", "   \tx", "- a", "12. b", "3) c", "  x", "-x", "1.5",
                "文字"
            ]),
            [
                Blank, Blank, Indented, Indented, Indented, ListItem, ListItem, ListItem, ListItem,
                Plain, Plain, Plain
            ]
        );
        // Twenty spaces, then text: the head alone is spaces.
        assert_eq!(kinds(&[&format!("{}x", " ".repeat(20))]), [Indented]);
    }

    #[test]
    fn a_block_needs_a_paragraph_and_a_blank_line_before_it() {
        let t = "格式如下：\n\n    <tool_call>\n\n    {}\n\n照这个写。\n    不是代码";
        let r = blocks(t);
        assert_eq!(r.len(), 1);
        assert_eq!(&t[r[0].clone()], "    <tool_call>\n\n    {}");
        assert!(blocks("    <tool_call>\n    {}").is_empty());
        assert!(blocks("\n\n    <tool_call>").is_empty());
        assert!(blocks("好的。\n    <tool_call>").is_empty());
        assert!(blocks("1. 第一步\n\n    <tool_call>").is_empty());
        assert!(blocks("- 第一步\n\n   说明\n\n    <tool_call>").is_empty());
    }

    #[test]
    fn the_tracker_reads_lines_in_pieces_as_blocks_reads_them_whole() {
        let t = "说明：\n\n    <tool_call>\n    {}\n\n- 列表\n\n    不是代码\n结束";
        for cut in 1..t.len() {
            if !t.is_char_boundary(cut) {
                continue;
            }
            let mut a = Tracker::default();
            a.pass(&t.as_bytes()[..cut]);
            a.pass(&t.as_bytes()[cut..]);
            let mut b = Tracker::default();
            b.pass(t.as_bytes());
            assert_eq!(a.context(), b.context(), "cut at {cut}");
            assert_eq!(a.head(), b.head());
        }
    }
}
