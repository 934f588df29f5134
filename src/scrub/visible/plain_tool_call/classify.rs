//! One verdict from the two grammars read at the same position (OpenClaw 2026.9.6,
//! `scanPlainTextToolCall`): a whole XML-ish call wins, then a whole JSON call whose payload is a
//! JSON object (or too large to check), then "the text may still become a call", else how far the
//! scan may skip.

use std::ops::Range;

use super::grammar::Branch;
use super::{json_call, xmlish};
use crate::session_file::is_json;

/// The largest payload whose JSON is checked (UTF-8 bytes).
pub(super) const MAX_PAYLOAD_BYTES: usize = 256_000;

/// The verdict at one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// A call ending at this position.
    Call(usize),
    /// The text ends inside a possible call; a `[tool:NAME]` call may already be whole up to here.
    Cut(Option<usize>),
    /// No call; go on from this position.
    Skip(usize),
}

fn over_cap(payload: &Option<Range<usize>>) -> bool {
    payload
        .as_ref()
        .is_some_and(|p| p.len() > MAX_PAYLOAD_BYTES)
}

/// What stands at `start` of `text`.
pub(super) fn classify(text: &str, start: usize) -> Verdict {
    let xml = xmlish::scan(text, start, &[]);
    let json = json_call::scan(text, start, &[]);
    if let Branch::Complete { end, .. } = xml {
        return Verdict::Call(end);
    }
    if let Branch::Complete { payload, end, .. } = &json {
        let big = payload.len() > MAX_PAYLOAD_BYTES;
        return if big || is_json(&text.as_bytes()[payload.clone()]) {
            Verdict::Call(*end)
        } else {
            Verdict::Skip(*end)
        };
    }
    for branch in [&xml, &json] {
        if let Branch::Invalid {
            at,
            named: true,
            payload,
        } = branch
        {
            if over_cap(payload) {
                return Verdict::Skip(*at);
            }
        }
    }
    let xml_cut = match &xml {
        Branch::Prefix { complete_end, .. } => Some(*complete_end),
        _ => None,
    };
    if let Some(complete_end) = xml_cut {
        return Verdict::Cut(complete_end);
    }
    if matches!(json, Branch::Prefix { .. }) {
        return Verdict::Cut(None);
    }
    let mut next = start + 1;
    for branch in [&xml, &json] {
        if let Branch::Invalid {
            at, named: true, ..
        } = branch
        {
            next = next.max(*at);
        }
    }
    Verdict::Skip(next)
}
