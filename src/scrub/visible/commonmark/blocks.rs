//! The line-by-line block pass: which container each line continues or opens, and which leaf block
//! (paragraph, fenced or indented code, table, heading) it belongs to, in the order micromark
//! decides it (containers first, then a fence in progress, then what may interrupt a paragraph,
//! then a new leaf). Each line is looked at a bounded number of times (a table head once more
//! with the line after it), so the pass is linear in the text. Inline content (where code spans
//! are) is read after the pass, once every link definition's label is known.

use std::mem;
use std::ops::Range;

use super::containers::{self, Cont, Container};
use super::cursor::Cursor;
use super::definitions::{self, Labels};
use super::leaves::{atx_heading, fence_close, fence_open, setext_underline, thematic_break};
use super::spans::code_spans;
use super::table;

/// Containers open at once, at most. Every list continues on a blank line, so a blank line costs
/// one step per open list: without a bound, one line of 100,000 nested items followed by as many
/// blank lines would take 10^10 steps. Past it, a container marker is text (micromark has no
/// bound; no reply nests 256 deep).
pub(super) const MAX_DEPTH: usize = 256;

/// The leaf block a line may continue.
#[derive(Debug, Default)]
enum Leaf {
    #[default]
    None,
    /// A paragraph: its range, and the content of its lines when it may start with definitions.
    Paragraph(Range<usize>, Vec<Range<usize>>),
    Fence {
        ch: u8,
        len: usize,
        span: Range<usize>,
    },
    Indented(Range<usize>),
    /// The line before headed a table: this line is its delimiter row.
    Delimiter,
    /// A table row ended the line before: this one may be a body row.
    Table,
}

struct Doc<'a> {
    bytes: &'a [u8],
    /// Each line's start and content end (before its line ending).
    lines: Vec<(usize, usize)>,
    stack: Vec<Container>,
    leaf: Leaf,
    blocks: Vec<Range<usize>>,
    /// The pieces of inline content (paragraphs, headings, table cells), read after the pass.
    inline: Vec<Range<usize>>,
    labels: Labels,
}

/// The code blocks and the code spans of `text`, each in text order.
pub(super) fn scan(text: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut doc = Doc {
        bytes,
        lines: lines(bytes),
        stack: Vec::new(),
        leaf: Leaf::None,
        blocks: Vec::new(),
        inline: Vec::new(),
        labels: Labels::new(),
    };
    for li in 0..doc.lines.len() {
        doc.line(li);
    }
    doc.close_leaf();
    let mut spans = Vec::new();
    for piece in &doc.inline {
        code_spans(bytes, piece.start, piece.end, &doc.labels, &mut spans);
    }
    (doc.blocks, spans)
}

/// Lines end at `\n`, `\r\n` or `\r`; text ending with a line ending has an empty last line.
fn lines(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(k) = memchr::memchr2(b'\n', b'\r', &bytes[start..]) {
        let end = start + k;
        out.push((start, end));
        start = end
            + if bytes[end..].starts_with(b"\r\n") {
                2
            } else {
                1
            };
    }
    out.push((start, bytes.len()));
    out
}

impl<'a> Doc<'a> {
    fn cursor(&self, li: usize) -> Cursor<'a> {
        let (start, end) = self.lines[li];
        Cursor::new(self.bytes, start, end)
    }

    fn line(&mut self, li: usize) {
        let mut cur = self.cursor(li);
        let mut continued = 0;
        let mut sibling = false;
        while continued < self.stack.len() {
            match self.stack[continued].cont(&mut cur) {
                Cont::Yes => continued += 1,
                Cont::Sibling(list) => {
                    self.close_flow(li);
                    self.stack.truncate(continued);
                    self.stack.push(Container::List(list));
                    continued += 1;
                    sibling = true;
                    break;
                }
                Cont::No => break,
            }
        }
        let all = continued == self.stack.len() && !sibling;
        if all && matches!(self.leaf, Leaf::Fence { .. }) {
            let last = li + 1 == self.lines.len();
            self.fence_line(cur, last.then_some(self.lines[li].0));
            return;
        }
        if matches!(self.leaf, Leaf::Delimiter) {
            // The head row's look-ahead checked this line: containers continued, no new one.
            self.leaf = Leaf::Table;
            return;
        }
        let interrupt = all && matches!(self.leaf, Leaf::Paragraph(..) | Leaf::Indented(_));
        let mut opened = false;
        while (if opened { self.stack.len() } else { continued }) < MAX_DEPTH {
            let Some((container, after)) = containers::start(&cur, interrupt) else {
                break;
            };
            if !opened {
                self.close_flow(li);
                self.stack.truncate(continued);
                opened = true;
            }
            self.stack.push(container);
            cur = after;
        }
        let lazy = !opened && continued < self.stack.len();
        self.flow(cur, li, lazy, continued);
    }

    /// A line inside an open fence, all containers continued.
    /// (`last_start`: where the line starts, before its container prefix, if it is the last.)
    fn fence_line(&mut self, cur: Cursor<'a>, last_start: Option<usize>) {
        let Leaf::Fence { ch, len, span } = &mut self.leaf else {
            return;
        };
        let mut p = cur;
        if p.indent() < 4 {
            p.spaces(3);
            if fence_close(p.rest(), *ch, *len) {
                span.end = cur.end;
                self.close_leaf();
                return;
            }
        }
        // A last line with nothing past its container prefix adds only the line ending before it.
        span.end = match last_start {
            Some(start) if cur.pos == cur.end && !cur.in_tab() => start,
            _ => cur.end,
        };
    }

    /// The rest of the line, past its containers: continue the open leaf or start a new one.
    fn flow(&mut self, cur: Cursor<'a>, li: usize, lazy: bool, continued: usize) {
        let blank = cur.is_blank();
        match &mut self.leaf {
            Leaf::Paragraph(..) if !blank => {
                let mut p = cur;
                if p.spaces(usize::MAX) < 4 {
                    if !lazy && setext_underline(p.rest()) && !self.only_definitions() {
                        self.close_leaf();
                        return;
                    }
                    if self.interrupts(&p, li) {
                        self.close_leaf();
                        if lazy {
                            self.stack.truncate(continued);
                        }
                        self.new_leaf(cur, li);
                        return;
                    }
                }
                if let Leaf::Paragraph(range, lines) = &mut self.leaf {
                    range.end = cur.end;
                    if !lines.is_empty() {
                        lines.push(p.pos..cur.end);
                    }
                }
                return;
            }
            Leaf::Indented(range) if !lazy && (blank || cur.indent() >= 4) => {
                // A line of four columns of spaces or more is code too (its rest is content).
                if cur.indent() >= 4 {
                    range.end = cur.end;
                }
                return;
            }
            Leaf::Table if !lazy && !blank && cur.indent() < 4 => {
                let mut p = cur;
                p.spaces(3);
                if !starts_leaf(p.rest()) {
                    self.row(p.pos, cur.end);
                    return;
                }
            }
            _ => {}
        }
        self.close_leaf();
        if lazy {
            self.stack.truncate(continued);
        }
        self.new_leaf(cur, li);
        // Indented code never continues from a lazy line (micromark checks the line it stands
        // on before taking the next one), so a block begun on one ends with it: after an empty
        // list item and a blank line, or a quote's heading, `    a\n    b` is two blocks.
        if lazy && matches!(self.leaf, Leaf::Indented(_)) {
            self.close_leaf();
        }
    }

    /// Whether the line at `p` (past its indentation) ends an open paragraph.
    fn interrupts(&self, p: &Cursor<'a>, li: usize) -> bool {
        starts_leaf(p.rest()) || self.table_head(p, li)
    }

    fn new_leaf(&mut self, cur: Cursor<'a>, li: usize) {
        if cur.is_blank() {
            return;
        }
        if cur.indent() >= 4 {
            self.leaf = Leaf::Indented(cur.pos..cur.end);
            return;
        }
        let mut p = cur;
        p.spaces(3);
        let rest = p.rest();
        if let Some((ch, len)) = fence_open(rest) {
            self.leaf = Leaf::Fence {
                ch,
                len,
                span: p.pos..cur.end,
            };
        } else if atx_heading(rest) {
            self.inline.push(p.pos..cur.end);
        } else if thematic_break(rest) {
        } else if self.table_head(&p, li) {
            self.row(p.pos, cur.end);
            self.leaf = Leaf::Delimiter;
        } else {
            let mut lines = Vec::new();
            if rest[0] == b'[' {
                lines.push(p.pos..cur.end);
            }
            self.leaf = Leaf::Paragraph(p.pos..cur.end, lines);
        }
    }

    /// Whether the row at `p` heads a table: the next line continues every open container
    /// (it is not lazy), opens none, and is a delimiter row with as many cells.
    fn table_head(&self, p: &Cursor<'a>, li: usize) -> bool {
        if li + 1 >= self.lines.len() || !table::can_head(p.rest()) {
            return false;
        }
        let mut next = self.cursor(li + 1);
        // Blank: no delimiter row. Checked first, as every list continues on a blank line.
        if next.is_blank()
            || !self
                .stack
                .iter()
                .all(|c| matches!(c.clone().cont(&mut next), Cont::Yes))
            || containers::start(&next, true).is_some()
            || next.indent() >= 4
        {
            return false;
        }
        next.spaces(3);
        table::delimiter_cells(next.rest()) == Some(table::cells(self.bytes, p.pos, p.end).len())
    }

    /// The code spans of one table row, cell by cell.
    fn row(&mut self, start: usize, end: usize) {
        self.inline.extend(table::cells(self.bytes, start, end));
    }

    /// Ends the open leaf because line `li` ends its container or opens a new one: a fence
    /// then keeps the line ending before that line (micromark has consumed it).
    fn close_flow(&mut self, li: usize) {
        if let Leaf::Fence { span, .. } = &mut self.leaf {
            span.end = self.lines[li].0;
        }
        self.close_leaf();
    }

    /// Whether the open paragraph is made only of link definitions (then a setext underline is
    /// no underline: there is no paragraph to make a heading of).
    fn only_definitions(&self) -> bool {
        match &self.leaf {
            Leaf::Paragraph(range, lines) if !lines.is_empty() => {
                definitions::inline_start(self.bytes, lines, &mut Labels::new()) >= range.end
            }
            _ => false,
        }
    }

    fn close_leaf(&mut self) {
        match mem::take(&mut self.leaf) {
            Leaf::Paragraph(range, lines) => {
                let start = definitions::inline_start(self.bytes, &lines, &mut self.labels);
                self.inline.push(start.max(range.start)..range.end);
            }
            Leaf::Fence { span, .. } | Leaf::Indented(span) => self.blocks.push(span),
            _ => {}
        }
    }
}

/// A fence, an ATX heading or a thematic break: each ends a paragraph or a table.
fn starts_leaf(rest: &[u8]) -> bool {
    fence_open(rest).is_some() || atx_heading(rest) || thematic_break(rest)
}
