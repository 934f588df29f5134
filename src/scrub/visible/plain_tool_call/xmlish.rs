//! The XML-ish plain-text call (OpenClaw 2026.9.6, `scanXmlishToolCall`): Qwen3-Coder's
//! `<function=NAME>` with `<parameter=KEY>value</parameter>` lines and `</function>`, and the
//! bracket spellings some fine-tunes write in its place: `[NAME]` on a line of its own followed by
//! parameters and `</function>`, or `[tool:NAME]` followed by parameters (no closing tag needed).
//! Markers are matched with ASCII case ignored.

use std::ops::Range;

use super::grammar::{
    cut_ci, is_tool_name_byte, is_xmlish_name_byte, line_end, starts_ci, Branch, MAX_NAME,
};
use crate::scrub::visible::text::skip_ws;

const FUNCTION_OPEN: &[u8] = b"<function=";
const FUNCTION_CLOSE: &[u8] = b"</function>";
const PARAMETER_OPEN: &[u8] = b"<parameter=";
const PARAMETER_CLOSE: &[u8] = b"</parameter>";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Function,
    NamedBracket,
    ToolBracket,
}

/// The end of a name run from `start` (at most one byte past [`MAX_NAME`]).
fn name_end(b: &[u8], start: usize, is_name: fn(u8) -> bool) -> usize {
    let mut i = start;
    while i < b.len() && is_name(b[i]) && i - start <= MAX_NAME {
        i += 1;
    }
    i
}

/// The opening (`<function=NAME>` or `[NAME]`/`[tool:NAME]`): the syntax and where the body
/// starts, or the branch's answer when the opening alone decides it.
fn opening(
    text: &str,
    start: usize,
    breaks: &[usize],
) -> Result<(Syntax, Range<usize>, usize), Branch> {
    let b = text.as_bytes();
    let named = |payload| Branch::Prefix {
        named: true,
        payload,
        complete_end: None,
    };
    match b.get(start) {
        Some(b'<') => {
            if !starts_ci(b, start, FUNCTION_OPEN) {
                return Err(if cut_ci(b, start, FUNCTION_OPEN) {
                    Branch::PREFIX
                } else {
                    Branch::invalid(start)
                });
            }
            let name_start = start + FUNCTION_OPEN.len();
            let cursor = name_end(b, name_start, is_xmlish_name_byte);
            if cursor - name_start > MAX_NAME {
                return Err(Branch::invalid(cursor));
            }
            if cursor == b.len() {
                return Err(named(None));
            }
            if cursor == name_start || b[cursor] != b'>' {
                return Err(Branch::invalid(cursor));
            }
            Ok((Syntax::Function, name_start..cursor, cursor + 1))
        }
        Some(b'[') => {
            let first_start = start + 1;
            let mut cursor = name_end(b, first_start, is_tool_name_byte);
            if cursor - first_start > MAX_NAME {
                return Err(Branch::invalid(cursor));
            }
            let first = &b[first_start..cursor];
            if cursor == b.len() && b"tool".starts_with(first) {
                return Err(Branch::PREFIX);
            }
            let mut syntax = Syntax::NamedBracket;
            let mut name_start = first_start;
            if b.get(cursor) == Some(&b':') && first == b"tool" {
                syntax = Syntax::ToolBracket;
                name_start = cursor + 1;
                cursor = name_end(b, name_start, is_tool_name_byte);
                if cursor - name_start > MAX_NAME {
                    return Err(Branch::invalid(cursor));
                }
            }
            if cursor == b.len() {
                return Err(named(None));
            }
            if cursor == name_start || b[cursor] != b']' {
                return Err(Branch::invalid(cursor));
            }
            let name_stop = cursor;
            cursor += 1;
            if syntax == Syntax::NamedBracket {
                if cursor == b.len() {
                    return Err(named(None));
                }
                match line_end(b, cursor, breaks) {
                    Some(after) => cursor = after,
                    None => return Err(Branch::invalid(cursor)),
                }
            }
            Ok((syntax, name_start..name_stop, cursor))
        }
        _ => Err(Branch::invalid(start)),
    }
}

/// The first `</parameter>` at or after `from`, case ignored.
fn parameter_close(b: &[u8], from: usize) -> Option<usize> {
    memchr::memchr_iter(b'<', &b[from..])
        .map(|i| from + i)
        .find(|&i| starts_ci(b, i, PARAMETER_CLOSE))
}

/// A parameter: its name and its raw value.
pub(super) type Parameter = (Range<usize>, Range<usize>);

/// Reads the call that may start at `start` (`breaks`: see [`line_end`]).
pub(super) fn scan(text: &str, start: usize, breaks: &[usize]) -> Branch {
    scan_call(text, start, breaks, &mut Vec::new())
}

/// [`scan`], with the parameters read put in `parameters`.
pub(super) fn scan_call(
    text: &str,
    start: usize,
    breaks: &[usize],
    parameters: &mut Vec<Parameter>,
) -> Branch {
    let b = text.as_bytes();
    let (syntax, name, body) = match opening(text, start, breaks) {
        Ok(o) => o,
        Err(branch) => return branch,
    };
    let tool_bracket = syntax == Syntax::ToolBracket;
    let mut cursor = body;
    let mut last_parameter_end = None;
    let prefix = |end: usize, last: Option<usize>| Branch::Prefix {
        named: true,
        payload: Some(body..end),
        complete_end: if tool_bracket { last } else { None },
    };
    let invalid = |at: usize| Branch::Invalid {
        at,
        named: true,
        payload: Some(body..at),
    };
    let complete = |end: usize| Branch::Complete {
        name: name.clone(),
        payload: body..end,
        end,
    };
    loop {
        let marker = skip_ws(text, cursor);
        if marker == b.len() {
            return match last_parameter_end {
                Some(end) if tool_bracket => complete(end),
                _ => prefix(b.len(), None),
            };
        }
        if starts_ci(b, marker, FUNCTION_CLOSE) {
            if syntax != Syntax::Function && parameters.is_empty() {
                return invalid(marker);
            }
            return Branch::Complete {
                name: name.clone(),
                payload: body..marker,
                end: marker + FUNCTION_CLOSE.len(),
            };
        }
        if cut_ci(b, marker, FUNCTION_CLOSE) {
            return prefix(marker, last_parameter_end);
        }
        if starts_ci(b, marker, PARAMETER_OPEN) {
            let name_start = marker + PARAMETER_OPEN.len();
            let end = name_end(b, name_start, is_xmlish_name_byte);
            if end - name_start > MAX_NAME {
                return invalid(marker);
            }
            if end == b.len() {
                return prefix(marker, last_parameter_end);
            }
            if end == name_start || b[end] != b'>' {
                return invalid(marker);
            }
            let Some(close) = parameter_close(b, end + 1) else {
                return prefix(b.len(), last_parameter_end);
            };
            parameters.push((name_start..end, end + 1..close));
            cursor = close + PARAMETER_CLOSE.len();
            last_parameter_end = Some(cursor);
            continue;
        }
        if cut_ci(b, marker, PARAMETER_OPEN) {
            return prefix(marker, last_parameter_end);
        }
        if let (true, Some(end)) = (tool_bracket, last_parameter_end) {
            return complete(end);
        }
        return invalid(marker);
    }
}
