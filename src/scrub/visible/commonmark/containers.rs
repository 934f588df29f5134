//! Block quotes and list items, the containers code can sit in: how a line continues them and
//! how one starts (micromark's `blockQuote` and `list` constructs). A list item's content width is
//! counted in columns from where the item's line starts (indent + marker + 1–4 spaces, or marker +
//! 1 when more follow); a line continues the item when it is blank (at most one blank line may
//! open an item) or indented by that width, and otherwise may start a sibling item with the same
//! marker. While a paragraph is open (`interrupt`), an item cannot start empty, and an ordered one
//! must be `1.` or `1)`.

use super::cursor::Cursor;
use super::leaves::thematic_break;

/// An open container.
#[derive(Debug, Clone)]
pub(super) enum Container {
    Quote,
    List(List),
}

/// The list an item belongs to, and the open item.
#[derive(Debug, Clone)]
pub(super) struct List {
    marker: u8,
    ordered: bool,
    /// Content width of the open item, in columns.
    size: usize,
    initial_blank: bool,
    further_blank: bool,
}

/// How a line continues an open container.
pub(super) enum Cont {
    Yes,
    /// A new item of the same list (its content starts after the marker).
    Sibling(List),
    No,
}

impl Container {
    /// Continues `self` on the line at `cur`, moving `cur` past its prefix on success.
    pub fn cont(&mut self, cur: &mut Cursor<'_>) -> Cont {
        match self {
            Container::Quote => match quote_start(cur) {
                Some(after) => {
                    *cur = after;
                    Cont::Yes
                }
                None => Cont::No,
            },
            Container::List(list) => list.cont(cur),
        }
    }
}

impl List {
    fn cont(&mut self, cur: &mut Cursor<'_>) -> Cont {
        if cur.is_blank() {
            self.further_blank |= self.initial_blank;
            cur.spaces(self.size);
            return Cont::Yes;
        }
        let after_blank = self.further_blank;
        self.further_blank = false;
        self.initial_blank = false;
        if !after_blank && matches!(cur.peek(), Some(b' ' | b'\t')) {
            let mut probe = *cur;
            if probe.spaces(self.size) == self.size {
                *cur = probe;
                return Cont::Yes;
            }
        }
        match item_start(cur, false, Some((self.marker, self.ordered))) {
            Some((list, after)) => {
                *cur = after;
                Cont::Sibling(list)
            }
            None => Cont::No,
        }
    }
}

/// A container that starts at `cur` (after at most three columns of indentation), and where its
/// content starts.
pub(super) fn start<'a>(cur: &Cursor<'a>, interrupt: bool) -> Option<(Container, Cursor<'a>)> {
    if let Some(after) = quote_start(cur) {
        return Some((Container::Quote, after));
    }
    item_start(cur, interrupt, None).map(|(list, after)| (Container::List(list), after))
}

fn quote_start<'a>(cur: &Cursor<'a>) -> Option<Cursor<'a>> {
    let mut p = *cur;
    p.spaces(3);
    if p.in_tab() || p.peek() != Some(b'>') {
        return None;
    }
    p.bump(1);
    if matches!(p.peek(), Some(b' ' | b'\t')) {
        p.space();
    }
    Some(p)
}

/// A list item at `cur`; `same` is the list it must continue (marker, ordered).
fn item_start<'a>(
    cur: &Cursor<'a>,
    interrupt: bool,
    same: Option<(u8, bool)>,
) -> Option<(List, Cursor<'a>)> {
    let mut p = *cur;
    let indent = p.spaces(3);
    if p.in_tab() {
        return None;
    }
    let c = p.peek()?;
    let (marker, ordered, width) = match c {
        b'*' | b'+' | b'-' => {
            if same.is_some_and(|s| s != (c, false)) || thematic_break(p.rest()) {
                return None;
            }
            (c, false, 1)
        }
        b'0'..=b'9' => {
            if same.is_some_and(|(_, ordered)| !ordered) {
                return None;
            }
            let digits = p.rest().iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 9 || (interrupt && (c != b'1' || digits > 1)) {
                return None;
            }
            let m = p.byte(digits)?;
            if !matches!(m, b'.' | b')') || same.is_some_and(|(s, _)| s != m) {
                return None;
            }
            (m, true, digits + 1)
        }
        _ => return None,
    };
    p.bump(width);
    let mut list = List {
        marker,
        ordered,
        size: indent + width + 1,
        initial_blank: false,
        further_blank: false,
    };
    if p.is_blank() {
        if interrupt {
            return None;
        }
        list.initial_blank = true;
        return Some((list, p));
    }
    let mut q = p;
    let gap = q.spaces(4);
    if gap > 0 && !matches!(q.peek(), Some(b' ' | b'\t')) {
        list.size = indent + width + gap;
        return Some((list, q));
    }
    if !p.space() {
        return None;
    }
    Some((list, p))
}
