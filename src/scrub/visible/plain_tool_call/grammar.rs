//! What the two plain-text call grammars share (OpenClaw 2026.9.6, `packages/tool-call-repair`):
//! the answer of one branch's scan and the byte tests both branches read names and markers with.
//! Positions are bytes of UTF-8 text; every marker is ASCII, so they move exactly as OpenClaw's
//! UTF-16 offsets do.

use std::ops::Range;

use crate::scrub::visible::text::{line_break, skip_blank};

/// How far one grammar got reading a call at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Branch {
    /// A whole call: its tool name, its payload and where it ends.
    Complete {
        name: Range<usize>,
        payload: Range<usize>,
        end: usize,
    },
    /// The text ends before the call could be decided. `named`: a tool name was read;
    /// `payload`: its payload so far; `complete_end`: a `[tool:NAME]` call whose parameters
    /// already make a whole call ending there.
    Prefix {
        named: bool,
        payload: Option<Range<usize>>,
        complete_end: Option<usize>,
    },
    /// Not a call; scanning may go on from `at`. `named`/`payload` as for `Prefix`.
    Invalid {
        at: usize,
        named: bool,
        payload: Option<Range<usize>>,
    },
}

impl Branch {
    /// A prefix with nothing read.
    pub(super) const PREFIX: Branch = Branch::Prefix {
        named: false,
        payload: None,
        complete_end: None,
    };

    /// Invalid at `at` with nothing read.
    pub(super) fn invalid(at: usize) -> Branch {
        Branch::Invalid {
            at,
            named: false,
            payload: None,
        }
    }
}

/// The longest tool name either grammar reads.
pub(super) const MAX_NAME: usize = 120;

/// `[A-Za-z0-9_-]`: tool names in bracket and Harmony calls.
pub(super) fn is_tool_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `[A-Za-z0-9_.:-]`: names in `<function=…>` and `<parameter=…>` tags.
pub(super) fn is_xmlish_name_byte(b: u8) -> bool {
    is_tool_name_byte(b) || b == b'.' || b == b':'
}

/// Whether `marker` (lower-case ASCII) is at `i`, ASCII case ignored.
pub(super) fn starts_ci(b: &[u8], i: usize, marker: &[u8]) -> bool {
    b.get(i..i + marker.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(marker))
}

/// Whether the text ends at `i` part way through `marker` (case ignored; nothing left counts).
pub(super) fn cut_ci(b: &[u8], i: usize, marker: &[u8]) -> bool {
    let rest = &b[i.min(b.len())..];
    rest.len() < marker.len() && marker[..rest.len()].eq_ignore_ascii_case(rest)
}

/// The position after a line break at `i` or after blanks from `i` (OpenClaw's
/// `consumeStructuralLineBreakAfterHorizontalWhitespace`); `breaks` are positions where a text
/// block ended, which count as line breaks too (the first at or after `i`, before any other byte).
pub(super) fn line_end(b: &[u8], i: usize, breaks: &[usize]) -> Option<usize> {
    let right = skip_blank(b, i);
    line_break(b, right).or_else(|| breaks.iter().copied().find(|&o| (i..=right).contains(&o)))
}

/// Whether the text ends at `i` part way through `literal` (case counts; nothing left counts).
pub(super) fn cut(b: &[u8], i: usize, literal: &[u8]) -> bool {
    let rest = &b[i.min(b.len())..];
    rest.len() < literal.len() && literal.starts_with(rest)
}
