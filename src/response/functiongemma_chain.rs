//! FunctionGemma calls written again after a closed block without their opener:
//! `<start_function_call>call:get_time{}<end_function_call>call:get_time{}<end_function_call>call:get_ti`
//! (docker/model-runner#1045: the server did not stop at `<end_function_call>`, so the model
//! wrote the call over and over until `max_tokens`, `<start_function_call>` only before the first).
//!
//! Why its own rule: such a `call:NAME{…}` looks like prose once the opener is gone; what makes it
//! a call is where it stands, right after a block's closing token (whitespace between), and the
//! closing token after it. Each one read so is a call (when `tools` is given, only a tool of
//! them; another name ends the run and stays text), and the run goes on from its closing token.
//! One that the end of the reply cuts (`call:get_ti`, or `call:f{}` with no closing token, or
//! half of one) ends the run: a whole call is still read, a cut one removed, both reported
//! `truncated`. Anything else after a closing token (prose, `call:` in a sentence) is text.

use super::bare_json::offered;
use super::gemma4::{call_at, CallAt, Syntax, CALL};
use super::{Block, Ctx, Parsed};

/// Whether the text after a closed block (`rest`) says a chained call follows: `Some(true)` it
/// starts (after whitespace) with `call:`, `Some(false)` it cannot, `None` not known yet (only
/// whitespace, or the start of `call:`). The stream machine waits on `None` (`stream::call_chain`).
pub(crate) fn continues(rest: &str) -> Option<bool> {
    let t = rest.trim_start();
    if t.starts_with(CALL) {
        Some(true)
    } else if CALL.starts_with(t) {
        None
    } else {
        Some(false)
    }
}

/// The calls chained after each block of `out` that its closing token ended, added as blocks.
pub(crate) fn add_chained(text: &str, syn: &Syntax, cx: &Ctx, out: &mut Parsed) {
    let mut found = Vec::new();
    let mut done = 0;
    let ends: Vec<usize> = out.blocks.iter().map(|b| b.end).collect();
    for e in ends {
        let closed = syn
            .closes
            .iter()
            .any(|c| text.get(..e).is_some_and(|t| t.ends_with(c)));
        if e < done || !closed {
            continue;
        }
        done = chain_from(text, e, syn, cx, &mut found, &mut out.problems);
    }
    if !found.is_empty() {
        out.blocks.append(&mut found);
        out.blocks.sort_by_key(|b| b.start);
    }
}

/// The run of chained calls after the closing token ending at `e`; where the run ends.
fn chain_from(
    text: &str,
    e: usize,
    syn: &Syntax,
    cx: &Ctx,
    found: &mut Vec<Block>,
    problems: &mut Vec<String>,
) -> usize {
    let name = syn.name;
    let mut at = e;
    loop {
        let start = skip_ws(text, at);
        if !text.get(start..).is_some_and(|t| t.starts_with(CALL)) {
            return at;
        }
        match call_at(text, start, syn) {
            CallAt::Read(call, k) => {
                if cx.tools.is_some() && !offered(cx.tools, &call.name) {
                    return at;
                }
                let m = skip_ws(text, k);
                let Some(rest) = text.get(m..) else {
                    return at;
                };
                if let Some(c) = syn.closes.iter().find(|c| rest.starts_with(**c)) {
                    at = m + c.len();
                    found.push(block(start, at, vec![call]));
                    continue;
                }
                // The reply ends after the call, or inside its closing token.
                if syn.closes.iter().any(|c| c.starts_with(rest)) {
                    problems.push(format!(
                        "{name}: {} missing after call {:?} (truncated reply)",
                        syn.closes[0], call.name
                    ));
                    // The call ends at its object (a block ending in half a token reads as cut
                    // inside its arguments); the half token goes on its own.
                    found.push(block(start, k, vec![call]));
                    if !rest.is_empty() {
                        found.push(block(k, text.len(), Vec::new()));
                    }
                    return text.len();
                }
                return at;
            }
            CallAt::Cut => {
                problems.push(format!(
                    "{name}: a call cut off by the end of the reply was removed (truncated reply)"
                ));
                found.push(block(start, text.len(), Vec::new()));
                return text.len();
            }
            CallAt::No => return at,
        }
    }
}

/// The first byte at or after `at` that is not whitespace (`at` itself when it is no char boundary).
fn skip_ws(text: &str, at: usize) -> usize {
    text.get(at..)
        .map_or(at, |r| text.len() - r.trim_start().len())
}

fn block(start: usize, end: usize, calls: Vec<super::RawCall>) -> Block {
    Block {
        start,
        end,
        calls,
        keep_raw: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_follows_a_closed_block() {
        assert_eq!(continues("call:f{}"), Some(true));
        assert_eq!(continues("\n  call:"), Some(true));
        assert_eq!(continues(""), None);
        assert_eq!(continues(" \n"), None);
        assert_eq!(continues("\ncal"), None);
        assert_eq!(continues("calm"), Some(false));
        assert_eq!(continues("好的"), Some(false));
        assert_eq!(continues("\u{0}"), Some(false));
    }
}
