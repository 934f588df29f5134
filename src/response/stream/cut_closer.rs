//! A reply cut by `max_tokens` inside the closer of a complete call (`[TOOL_CALL]{…}}\n[/T`,
//! `<tool_call>list_mailboxes</to`, `[TOOL_REQUEST]{…}\n[`): the call itself was written whole,
//! only the last few bytes of its closing token are missing. Left to the parser, the block has no
//! closer and its markup stayed visible. At the end of the reply (whole and streamed alike: the
//! machine decides it once, when it is finished inside a block), the closer is completed and the
//! block read again; the call is returned and the cut reported (`truncated`).
//!
//! Only when that reading is certain: the completed block must read as one or more calls with no
//! problem, and the cut piece must say it is a closer (three bytes or more, `[/T`, `</to`), or
//! follow a JSON body's `}` (the one-byte `[` of `[END_TOOL_REQUEST]`). A reply cut inside an
//! argument value (`<parameter=html>\n<div>a</`) is never completed: a call with half a value is
//! worse than none.

use super::super::{parse_family, Ctx, Family, Parsed};

/// How the message reporting such a cut begins ([`is_cut`]).
const CUT: &str = "truncated: the reply was cut off inside the closer ";

/// Whether `message` reports a call returned whole from a block cut inside its closer.
pub(super) fn is_cut(message: &str) -> bool {
    message.starts_with(CUT)
}

/// Where, in `rest` (the end of the finished reply), one of `closers` starts and is cut: the
/// longest suffix that is a strict prefix of one (at most a closer's length is looked at).
pub(super) fn cut_at(rest: &str, closers: &[&str]) -> Option<usize> {
    let longest = closers.iter().map(|c| c.len()).max()?;
    (rest.len().saturating_sub(longest)..rest.len())
        .filter(|&i| rest.is_char_boundary(i))
        .find(|&i| {
            let piece = &rest[i..];
            closers
                .iter()
                .any(|c| c.len() > piece.len() && c.starts_with(piece))
        })
}

/// The reading of `block` (a call block at the end of the reply, from its opener) whose last
/// bytes, from `cut`, are a strict prefix of one of `closers`: the completed text and its reading,
/// or `None` when it is not certain (see the module doc).
pub(super) fn complete(
    f: Family,
    block: &str,
    cut: usize,
    closers: &[&str],
    cx: &Ctx,
) -> Option<(String, Parsed)> {
    let (body, piece) = (block.get(..cut)?, block.get(cut..)?);
    if piece.is_empty() || (piece.len() < 3 && !body.trim_end().ends_with('}')) {
        return None;
    }
    for cl in closers
        .iter()
        .filter(|cl| cl.len() > piece.len() && cl.starts_with(piece))
    {
        let mut text = String::with_capacity(body.len() + cl.len());
        text.push_str(body);
        text.push_str(cl);
        let mut p = parse_family(f, &text, cx);
        let whole = p
            .blocks
            .last()
            .is_some_and(|b| b.end == text.len() && !b.calls.is_empty())
            && p.blocks.iter().all(|b| !b.keep_raw);
        if !whole || !p.problems.is_empty() || in_value(f, block, cl, &p, cx) {
            continue;
        }
        p.problems.push(message(cl, piece));
        return Some((text, p));
    }
    None
}

/// The problem reported for a complete call whose closer `closer` the reply's end cut to `piece`.
pub(super) fn message(closer: &str, piece: &str) -> String {
    format!("{CUT}{closer:?} (it ends with {piece:?}); the call before it is complete")
}

/// Whether the cut piece may be the end of an argument value rather than the start of the
/// closer: the block read with the piece kept as it is and the closer after it gives other calls
/// (`<parameter=content>\n<b>标题</b></too` then `</tool_call>` gives the value `<b>标题</b></too`).
fn in_value(f: Family, block: &str, cl: &str, completed: &Parsed, cx: &Ctx) -> bool {
    let mut text = String::with_capacity(block.len() + cl.len());
    text.push_str(block);
    text.push_str(cl);
    let kept = parse_family(f, &text, cx);
    let calls = |p: &Parsed| {
        p.blocks
            .iter()
            .flat_map(|b| {
                b.calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
            })
            .collect::<Vec<_>>()
    };
    let other = calls(&kept);
    !other.is_empty() && other != calls(completed)
}
