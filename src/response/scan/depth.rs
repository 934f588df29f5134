//! Where a bracketed value written as text ends: brackets counted outside strings, resumable.
//!
//! Why: every reader of a call written as text finds where its `{…}` (or `[…]`, `NAME(…)`) ends
//! without parsing it (the value may be invalid JSON, or cut off), skipping brackets inside
//! strings; a stream asks again as each delta comes, and must go on where it stopped rather than
//! rescan. Five loops did this, each with its own small differences; they now share this one
//! state machine, and differ only in which [`Brackets`] they count.

/// Which bytes open and close a level, and which quotes start a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Brackets {
    /// `{` and `}` only (OpenClaw 2026.9.6's plain-text call object, `scanJsonObject`).
    Braces,
    /// `{}` and `[]`: a JSON object or array.
    Json,
    /// `{}`, `[]` and `()`: JSON, or a call's argument list around it (`call:NAME({…})`).
    Parens,
    /// As [`Brackets::Parens`], with strings in `'` too (Python literals).
    Python,
}

/// A byte's part in a scan (outside strings), by [`Brackets`].
const OTHER: u8 = 0;
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const QUOTE: u8 = 3;

const fn table(brackets: Brackets) -> [u8; 256] {
    let mut t = [OTHER; 256];
    t[b'{' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b'"' as usize] = QUOTE;
    if !matches!(brackets, Brackets::Braces) {
        t[b'[' as usize] = OPEN;
        t[b']' as usize] = CLOSE;
    }
    if matches!(brackets, Brackets::Parens | Brackets::Python) {
        t[b'(' as usize] = OPEN;
        t[b')' as usize] = CLOSE;
    }
    if matches!(brackets, Brackets::Python) {
        t[b'\'' as usize] = QUOTE;
    }
    t
}

/// One table per [`Brackets`], in its order.
static TABLES: [[u8; 256]; 4] = [
    table(Brackets::Braces),
    table(Brackets::Json),
    table(Brackets::Parens),
    table(Brackets::Python),
];

/// The scan of one value, from its first byte: depth, the quote of the string it is in (0: none)
/// and whether the last byte was a backslash in that string. Bracket kinds are counted, not
/// matched against each other; a closing bracket at depth 0 ends the value too (no level goes
/// below 0), and so does the end of a string at depth 0 (a value that is a string).
#[derive(Clone, Copy, Debug)]
pub struct Depth {
    depth: usize,
    brackets: Brackets,
    quote: u8,
    escaped: bool,
}

impl Depth {
    /// A scan before the value's first byte.
    pub const fn new(brackets: Brackets) -> Self {
        Depth {
            depth: 0,
            brackets,
            quote: 0,
            escaped: false,
        }
    }

    /// Reads the next piece of the value: `Some(n)` when the value ends with `piece[n - 1]` (the
    /// state is then back where [`Depth::new`] starts), `None` when the piece ends first (the
    /// state is kept for the next piece). Linear in the bytes read.
    pub fn scan(&mut self, piece: &[u8]) -> Option<usize> {
        let table = &TABLES[self.brackets as usize];
        let (mut depth, mut quote) = (self.depth, self.quote);
        let n = piece.len();
        let mut i = 0;
        if self.escaped && n > 0 {
            // The byte after a backslash that ended the last piece.
            self.escaped = false;
            i = 1;
        }
        while i < n {
            let b = piece[i];
            i += 1;
            if quote != 0 {
                if b == b'\\' {
                    if i == n {
                        self.escaped = true;
                        break;
                    }
                    i += 1;
                } else if b == quote {
                    quote = 0;
                    if depth == 0 {
                        return self.ended(i);
                    }
                }
                continue;
            }
            match table[usize::from(b)] {
                OPEN => depth += 1,
                CLOSE => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return self.ended(i);
                    }
                }
                QUOTE => quote = b,
                _ => {}
            }
        }
        (self.depth, self.quote) = (depth, quote);
        None
    }

    /// The value ended after `n` bytes of this piece: back to the start.
    fn ended(&mut self, n: usize) -> Option<usize> {
        (self.depth, self.quote, self.escaped) = (0, 0, false);
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(brackets: Brackets, t: &str) -> Option<usize> {
        Depth::new(brackets).scan(t.as_bytes())
    }

    #[test]
    fn brackets_count_by_kind() {
        let t = r#"{"k": 1]} 尾"#;
        assert_eq!(end(Brackets::Braces, t), Some(9));
        assert_eq!(end(Brackets::Json, t), Some(8));
        assert_eq!(end(Brackets::Parens, "(1) [2]"), Some(3));
        assert_eq!(end(Brackets::Json, "(1) [2]"), Some(7));
        // Python's quotes: `scan::balanced_end`'s test.
        // A string value, escapes kept; a value never closed.
        assert_eq!(end(Brackets::Json, r#""引\"号" x"#), Some(10));
        assert_eq!(end(Brackets::Json, r#"{"a": ["#), None);
    }

    /// Cut anywhere (inside a string, after a backslash), the pieces read as the whole does.
    #[test]
    fn pieces_read_as_the_whole() {
        let t = r#"{"a\"}": ["中\\", {"b": "]"}], "c": 1} {"d": 2}"#.as_bytes();
        let whole = Depth::new(Brackets::Parens).scan(t);
        assert_eq!(whole, Some(t.len() - 9));
        for cut in 0..=t.len() {
            let mut d = Depth::new(Brackets::Parens);
            let got = d
                .scan(&t[..cut])
                .or_else(|| d.scan(&t[cut..]).map(|n| cut + n));
            assert_eq!(got, whole, "cut at {cut}");
        }
    }
}
