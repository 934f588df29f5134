//! The JSON plain-text call (OpenClaw 2026.9.6, `scanPlainTextJsonToolCall`): a JSON object of
//! arguments after an opening that names the tool, and an optional closing marker:
//! - `[NAME]` on a line of its own, then `{…}` and `[END_TOOL_REQUEST]` or `[/NAME]` (required);
//! - `[tool:NAME] {…}`, closing marker optional;
//! - OpenAI Harmony: `<|channel|>commentary to=NAME code <|message|>{…}<|call|>` (the channel
//!   token and `<|message|>` optional, `analysis`/`final` too), closing marker optional.

use std::ops::Range;

use super::grammar::{cut, is_tool_name_byte, line_end, Branch, MAX_NAME};
use crate::response::scan::depth::{Brackets, Depth};
use crate::scrub::visible::text::{skip_blank, skip_ws};

const END_TOOL_REQUEST: &[u8] = b"[END_TOOL_REQUEST]";
const HARMONY_CALL: &[u8] = b"<|call|>";
const CHANNEL: &[u8] = b"<|channel|>";
const MESSAGE: &[u8] = b"<|message|>";
const CHANNELS: [&[u8]; 3] = [b"commentary", b"analysis", b"final"];

/// A name run from `start`; `None` past [`MAX_NAME`].
fn tool_name_end(b: &[u8], start: usize) -> Option<usize> {
    let mut end = start;
    while end < b.len() && is_tool_name_byte(b[end]) {
        if end - start == MAX_NAME {
            return None;
        }
        end += 1;
    }
    Some(end)
}

/// An opening that was read whole: whether it is `[NAME]` on its own line (which requires a
/// closing marker), the name, and where the payload may start.
struct Opening {
    own_line: bool,
    name: Range<usize>,
    cursor: usize,
}

const NAMED: Branch = Branch::Prefix {
    named: true,
    payload: None,
    complete_end: None,
};

/// A name was read but the text ended inside it: a prefix, named when the name is not empty.
fn cut_in_name(name: Range<usize>) -> Branch {
    if name.is_empty() {
        Branch::PREFIX
    } else {
        NAMED
    }
}

fn bracket(b: &[u8], start: usize, breaks: &[usize]) -> Result<Opening, Branch> {
    let mut cursor = start + 1;
    let own_line = !b[cursor.min(b.len())..].starts_with(b"tool:");
    if !own_line {
        cursor += 5;
    } else if cut(b, cursor, b"tool:") {
        return Err(Branch::PREFIX);
    }
    let name_start = cursor;
    let name_end = tool_name_end(b, name_start).ok_or(Branch::invalid(name_start + MAX_NAME))?;
    let name = name_start..name_end;
    cursor = name_end;
    if cursor == b.len() {
        return Err(cut_in_name(name));
    }
    if name.is_empty() || b[cursor] != b']' {
        return Err(Branch::invalid(cursor));
    }
    cursor += 1;
    if own_line {
        let blank_end = skip_blank(b, cursor);
        if blank_end == b.len() {
            return Err(NAMED);
        }
        cursor = line_end(b, cursor, breaks).ok_or(Branch::Invalid {
            at: blank_end,
            named: true,
            payload: None,
        })?;
    }
    Ok(Opening {
        own_line,
        name,
        cursor,
    })
}

fn harmony(text: &str, start: usize) -> Result<Opening, Branch> {
    let b = text.as_bytes();
    let mut cursor = start;
    if b[cursor..].starts_with(CHANNEL) {
        cursor += CHANNEL.len();
    } else if cut(b, cursor, CHANNEL) {
        return Err(Branch::PREFIX);
    } else if b.get(cursor) == Some(&b'<') {
        return Err(Branch::invalid(cursor));
    }
    let Some(channel) = CHANNELS.iter().find(|c| b[cursor..].starts_with(c)) else {
        return Err(if CHANNELS.iter().any(|c| cut(b, cursor, c)) {
            Branch::PREFIX
        } else {
            Branch::invalid(cursor)
        });
    };
    cursor += channel.len();
    if cursor == b.len() {
        return Err(Branch::PREFIX);
    }
    if b[cursor] != b' ' && b[cursor] != b'\t' {
        return Err(Branch::invalid(cursor));
    }
    cursor = skip_blank(b, cursor);
    if !b[cursor..].starts_with(b"to=") {
        return Err(if cut(b, cursor, b"to=") {
            Branch::PREFIX
        } else {
            Branch::invalid(cursor)
        });
    }
    let name_start = cursor + 3;
    let name_end = tool_name_end(b, name_start).ok_or(Branch::invalid(name_start + MAX_NAME))?;
    let name = name_start..name_end;
    cursor = name_end;
    if cursor == b.len() {
        return Err(cut_in_name(name));
    }
    if name.is_empty() || (b[cursor] != b' ' && b[cursor] != b'\t') {
        return Err(Branch::invalid(cursor));
    }
    cursor = skip_blank(b, cursor);
    let named_invalid = |at| Branch::Invalid {
        at,
        named: true,
        payload: None,
    };
    if !b[cursor..].starts_with(b"code") {
        return Err(if cut(b, cursor, b"code") {
            NAMED
        } else {
            named_invalid(cursor)
        });
    }
    cursor = skip_ws(text, cursor + 4);
    if b[cursor..].starts_with(MESSAGE) {
        cursor = skip_ws(text, cursor + MESSAGE.len());
    } else if cut(b, cursor, MESSAGE) {
        return Err(NAMED);
    } else if b.get(cursor) == Some(&b'<') {
        return Err(named_invalid(cursor));
    }
    Ok(Opening {
        own_line: false,
        name,
        cursor,
    })
}

/// The end of the JSON object at `start` (its braces balanced outside strings; brackets are not
/// counted), or `Err` with the text's end when it is not closed.
fn object_end(b: &[u8], start: usize) -> Result<usize, usize> {
    let end = Depth::new(Brackets::Braces).scan(&b[start..]);
    end.map(|n| start + n).ok_or(b.len())
}

/// Reads the call that may start at `start` (`breaks`: see [`line_end`]).
pub(super) fn scan(text: &str, start: usize, breaks: &[usize]) -> Branch {
    let b = text.as_bytes();
    let opening = if b.get(start) == Some(&b'[') {
        bracket(b, start, breaks)
    } else {
        harmony(text, start)
    };
    let opening = match opening {
        Ok(o) => o,
        Err(branch) => return branch,
    };
    let payload_start = skip_ws(text, opening.cursor);
    if payload_start == b.len() {
        return NAMED;
    }
    if b[payload_start] != b'{' {
        return Branch::Invalid {
            at: payload_start,
            named: true,
            payload: None,
        };
    }
    let end = match object_end(b, payload_start) {
        Ok(end) => end,
        Err(end) => {
            return Branch::Prefix {
                named: true,
                payload: Some(payload_start..end),
                complete_end: None,
            }
        }
    };
    let payload = payload_start..end;
    let closing_name = [b"[/", &b[opening.name.clone()], b"]"].concat();
    let closings: &[&[u8]] = if opening.own_line {
        &[END_TOOL_REQUEST, &closing_name]
    } else {
        &[HARMONY_CALL, END_TOOL_REQUEST, &closing_name]
    };
    let marker = skip_ws(text, end);
    let cut_here = Branch::Prefix {
        named: true,
        payload: Some(payload.clone()),
        complete_end: None,
    };
    if opening.own_line && marker == b.len() {
        return cut_here;
    }
    for closing in closings {
        if b[marker..].starts_with(closing) {
            return Branch::Complete {
                name: opening.name,
                payload,
                end: marker + closing.len(),
            };
        }
        if marker < b.len() && cut(b, marker, closing) {
            return cut_here;
        }
    }
    if opening.own_line {
        Branch::Invalid {
            at: marker,
            named: true,
            payload: Some(payload),
        }
    } else {
        Branch::Complete {
            name: opening.name,
            payload,
            end,
        }
    }
}
