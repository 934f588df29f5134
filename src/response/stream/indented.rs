//! Markdown's indented code blocks in a stream ([`crate::response::indented_code`] says which
//! lines they are): a marker the visible-text scanner would act on, on a line of such a block, is
//! quoted, not written. The block then goes out as text line by line, as an example fence does
//! ([`super::code`]), up to the first line that is neither blank nor indented.
//!
//! The look stays bounded, so the scan stays linear: a marker's line start is looked for at most
//! [`LINE_REACH`] bytes back (a marker further into a longer line is not taken for code), and the
//! lines between the text already gone and that line are read once ([`Machine::indent_memo`]).

use super::code::{Fence, FenceEnd};
use super::Machine;
use crate::response::indented_code::{classify, has_text, LineKind, Tracker, HEAD};

/// How far back from a marker its line's start is looked for.
const LINE_REACH: usize = 256;

impl Machine {
    /// When the marker at `c` (in `buf`) lies on a line of an indented code block: where that
    /// line starts in `buf` (0 when it started before `buf`).
    pub(super) fn indented_code_line(&mut self, c: usize) -> Option<usize> {
        if self.ticks.off {
            return None;
        }
        let b = self.buf.as_bytes();
        let from = c.saturating_sub(LINE_REACH);
        let ls = match memchr::memrchr(b'\n', &b[from..c]) {
            Some(k) => from + k + 1,
            None if from > 0 => return None,
            None => 0,
        };
        // The line's start first: most markers stand on a line that is not indented.
        let start = if ls == 0 {
            self.line_start_before_buf(LINE_REACH - c)?
        } else {
            self.consumed + ls
        };
        let base = self.consumed - self.buf.head;
        let mut line = if start == self.indent_at {
            self.indent
        } else {
            Tracker::default()
        };
        line.pass(&self.buf.data.as_bytes()[start - base..self.consumed + c - base]);
        if line.line_kind(true) != LineKind::Indented {
            return None;
        }
        let t = self.tracker_at(start);
        t.context().is_code(LineKind::Indented).then_some(ls)
    }

    /// The context of the reply's lines up to absolute offset `at` (which `buf.data` still
    /// holds), read on from the last one asked for or from [`Machine::indent`].
    fn tracker_at(&mut self, at: usize) -> Tracker {
        let base = self.consumed - self.buf.head;
        let (from, mut t) = match self.indent_memo {
            Some((m, t)) if m <= at && m >= self.indent_at => (m, t),
            _ => (self.indent_at, self.indent),
        };
        if at > from {
            let d = self.buf.data.as_bytes();
            t.pass(&d[from - base..at - base]);
            self.indent_memo = Some((at, t));
        }
        t
    }

    /// The absolute start of the line `buf` starts in (or at), looked for at most `reach` bytes
    /// back: `None` past that.
    fn line_start_before_buf(&self, reach: usize) -> Option<usize> {
        let base = self.consumed - self.buf.head;
        let lo = self.indent_at.max(self.consumed.saturating_sub(reach));
        let d = &self.buf.data.as_bytes()[lo - base..self.buf.head];
        match memchr::memrchr(b'\n', d) {
            Some(k) => Some(lo + k + 1),
            None if lo == self.indent_at => Some(lo),
            None => None,
        }
    }

    /// Read the context on to absolute offset `at` (the buffer drops what lies before it).
    pub(super) fn pass_indent_to(&mut self, at: usize) {
        if at > self.indent_at {
            self.indent = self.tracker_at(at);
            self.indent_at = at;
            self.indent_memo = None;
        }
    }

    /// Whether `buf` starts at a line's start.
    fn buf_at_line_start(&self) -> bool {
        match self.buf.head.checked_sub(1) {
            Some(k) => self.buf.data.as_bytes()[k] == b'\n',
            None => self.consumed == 0 || self.indent.at_line_start(),
        }
    }

    /// `buf` starts at (or inside) a line of an indented code block: pass the block as text.
    pub(super) fn open_indented(&mut self) {
        let f = Fence {
            ch: b' ',
            n: 0,
            call: false,
            labelled: false,
            tool_code: false,
            json: false,
            invented: false,
            indented: true,
        };
        self.open_fence(f, 0);
    }

    /// The end of the indented code block `buf` is in, read from line start `at`: `Closed(p, p)`
    /// when the line at `p` is neither blank nor indented (the block's text ends before it),
    /// else `Open` with where the line still arriving starts. A line goes out whole, as a fence's
    /// does, so a marker in it is looked at whole ([`Machine::fence_lines`]); the search for its
    /// end reads on from where the last one stopped ([`Machine::indent_scan`]).
    pub(super) fn indented_end(&mut self, at: usize) -> FenceEnd {
        let b = self.buf.as_bytes();
        // `buf` starting inside a line whose start went by (and made it the block's).
        let judged = at == 0 && !self.buf_at_line_start();
        let mut p = at;
        while p < b.len() {
            let from = match self.indent_scan {
                Some((line, seen)) if line == self.consumed + p => seen - self.consumed,
                _ => p,
            };
            let Some(e) = memchr::memchr(b'\n', &b[from..]).map(|k| from + k) else {
                let head = &b[p..b.len().min(p + 4)];
                let text = head.iter().any(|&x| !matches!(x, b' ' | b'\t' | b'\r'));
                if !(judged && p == 0) && text && classify(head, true) != LineKind::Indented {
                    return FenceEnd::Closed(p, p);
                }
                if self.finished {
                    return FenceEnd::Open(b.len());
                }
                self.indent_scan = Some((self.consumed + p, self.consumed + b.len()));
                return FenceEnd::Open(p);
            };
            let line = &b[p..e];
            let kind = classify(&line[..line.len().min(HEAD)], has_text(line));
            if !(judged && p == 0) && matches!(kind, LineKind::ListItem | LineKind::Plain) {
                return FenceEnd::Closed(p, p);
            }
            p = e + 1;
        }
        FenceEnd::Open(b.len())
    }
}
