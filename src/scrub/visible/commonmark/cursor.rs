//! A position inside one line the way micromark (the CommonMark parser OpenClaw 2026.9.6 runs)
//! counts it: a tab is one character worth one column followed by "virtual spaces" up to the next
//! multiple of four, and consuming part of a tab moves the byte offset past the tab at once. Every
//! indentation rule (list content width, four columns of indented code, three of a fence) is in
//! columns, and a region starts at the byte offset micromark reports.

/// One line: `text[start..end]` without its line ending.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    /// Byte offset of the next character (past a partly consumed tab).
    pub pos: usize,
    /// End of the line's content (before `\n`, `\r\n` or `\r`).
    pub end: usize,
    /// Column of `pos` (virtual spaces included).
    col: usize,
    /// Virtual spaces left of a tab whose first column was consumed.
    virt: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8], start: usize, end: usize) -> Self {
        Cursor {
            bytes,
            pos: start,
            end,
            col: 0,
            virt: 0,
        }
    }

    /// The next character, a virtual space reading as `b' '`; `None` at the end of the line.
    pub fn peek(&self) -> Option<u8> {
        if self.virt > 0 {
            return Some(b' ');
        }
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    /// The byte at `pos + k` (no virtual spaces), if inside the line.
    pub fn byte(&self, k: usize) -> Option<u8> {
        let at = self.pos + k;
        (at < self.end).then(|| self.bytes[at])
    }

    /// Consumes one column of space or tab; false when the next character is not one.
    pub fn space(&mut self) -> bool {
        if self.virt > 0 {
            self.virt -= 1;
        } else {
            match self.peek() {
                Some(b' ') => self.pos += 1,
                Some(b'\t') => {
                    self.pos += 1;
                    self.virt = 3 - self.col % 4;
                }
                _ => return false,
            }
        }
        self.col += 1;
        true
    }

    /// Consumes up to `max` columns of space and tabs; returns how many.
    pub fn spaces(&mut self, max: usize) -> usize {
        let mut n = 0;
        while n < max && self.space() {
            n += 1;
        }
        n
    }

    /// The columns of space and tabs ahead, consuming nothing.
    pub fn indent(&self) -> usize {
        let mut probe = *self;
        probe.spaces(usize::MAX)
    }

    /// Consumes `n` bytes that are not spaces or tabs (a marker).
    pub fn bump(&mut self, n: usize) {
        debug_assert_eq!(self.virt, 0);
        self.pos += n;
        self.col += n;
    }

    /// Whether only spaces and tabs are left.
    pub fn is_blank(&self) -> bool {
        self.bytes[self.pos..self.end]
            .iter()
            .all(|&b| b == b' ' || b == b'\t')
    }

    /// The rest of the line (a partly consumed tab's virtual spaces are not in it).
    pub fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..self.end]
    }

    /// Whether a tab is partly consumed.
    pub fn in_tab(&self) -> bool {
        self.virt > 0
    }
}
