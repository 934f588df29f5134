//! Text calls promoted to structured calls (OpenClaw 2026.9.6, `projectStandalonePlainTextToolCallMessage`
//! as its provider streams call it, `packages/tool-call-repair/src/promote.ts`): when a model
//! answers with nothing but plain-text calls to tools the request offered, 2026.9.6 runs them —
//! the message's text becomes `toolCall` blocks and its stop reason `toolUse`.
//!
//! The rule, read from 2026.9.6:
//! - a message that already has a `toolCall` block, or a request without tools, is left alone;
//! - the text (a string, or each run of adjacent text blocks joined, where the joins count as line
//!   breaks) must be calls and whitespace only: a JSON call (`[NAME]` line + object + closing
//!   marker, `[tool:NAME] {…}`, Harmony) or an XML-ish one (`<function=NAME>` with parameters),
//!   the JSON payload an object that parses, at most 256,000 UTF-8 bytes;
//! - no call may start in Markdown code, and every name must be one of the offered tools, exactly;
//! - a run of blank text blocks disappears; other blocks stay where they were;
//! - any text that is not wholly calls (or a block that is not an object) leaves the message alone.
//!
//! XML-ish parameter values lose one leading and one trailing line break. OpenClaw gives each call
//! a random `call_<24 hex>` id; here the id is derived from the text (the same reply always gets
//! the same ids).

use std::ops::Range;

use super::classify::MAX_PAYLOAD_BYTES;
use super::grammar::{line_end, Branch};
use super::{json_call, xmlish};
use crate::js_text::is_js_whitespace;
use crate::scrub::visible::markdown_code::MarkdownCode;
use crate::scrub::visible::text::{line_break, skip_blank, skip_ws};
use crate::session_file::is_json;

/// One block of a message's content, as far as promotion reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    /// A text block's text (or the whole content, when it is a string).
    Text(&'a str),
    /// A `toolCall` block.
    ToolCall,
    /// Any other block (kept where it is).
    Other,
    /// Not an object, or a text block whose text is not a string.
    Unreadable,
}

/// What a call's arguments are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arguments {
    /// A JSON object, as written.
    Json(String),
    /// Parameters and their values, in order (a repeated name: the last value, in the first place).
    Parameters(Vec<(String, String)>),
}

/// One promoted call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// `call_` and 24 hex digits, derived from the text and the call's place.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub arguments: Arguments,
}

/// One block of the promoted content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A call that replaced text.
    Call(Call),
    /// The source block at this index, kept.
    Keep(usize),
}

/// A call read at a position: its start, end, name and arguments.
struct Read {
    end: usize,
    name: Range<usize>,
    arguments: Arguments,
}

fn json_at(text: &str, start: usize, breaks: &[usize]) -> Option<Read> {
    let Branch::Complete { name, payload, end } = json_call::scan(text, start, breaks) else {
        return None;
    };
    let json = &text[payload];
    (json.len() <= MAX_PAYLOAD_BYTES && is_json(json.as_bytes())).then(|| Read {
        end,
        name,
        arguments: Arguments::Json(json.to_string()),
    })
}

/// OpenClaw's `extractXmlishParameterValue`: one leading line break (a block join counts) and one
/// trailing one dropped.
fn parameter_value(text: &str, value: Range<usize>, breaks: &[usize]) -> String {
    let b = text.as_bytes();
    let mut raw = text[value.clone()].to_string();
    if line_break(b, skip_blank(b, value.start)).is_none() {
        if let Some(join) = line_end(b, value.start, breaks) {
            raw.insert(join - value.start, '\n');
        }
    }
    let Some(from) = line_break(raw.as_bytes(), 0) else {
        return raw;
    };
    let rest = &raw[from..];
    let rest = rest
        .strip_suffix("\r\n")
        .or_else(|| rest.strip_suffix('\n'))
        .or_else(|| rest.strip_suffix('\r'))
        .unwrap_or(rest);
    rest.to_string()
}

fn xmlish_at(text: &str, start: usize, breaks: &[usize]) -> Option<Read> {
    let mut parameters = Vec::new();
    let Branch::Complete { name, payload, end } =
        xmlish::scan_call(text, start, breaks, &mut parameters)
    else {
        return None;
    };
    if payload.len() > MAX_PAYLOAD_BYTES {
        return None;
    }
    let mut values: Vec<(String, String)> = Vec::new();
    for (key, value) in parameters {
        let (key, value) = (text[key].to_string(), parameter_value(text, value, breaks));
        match values.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => values.push((key, value)),
        }
    }
    Some(Read {
        end,
        name,
        arguments: Arguments::Parameters(values),
    })
}

/// OpenClaw's `parseStandalonePlainTextToolCallBlocks` and the checks after it: the calls `text`
/// is made of (starts, names, arguments), or `None`.
fn standalone_calls(
    text: &str,
    breaks: &[usize],
    allowed: &dyn Fn(&str) -> bool,
) -> Option<Vec<(usize, Read)>> {
    let mut calls = Vec::new();
    let mut cursor = skip_ws(text, 0);
    while cursor < text.len() {
        let read = json_at(text, cursor, breaks).or_else(|| xmlish_at(text, cursor, breaks))?;
        let end = read.end;
        calls.push((cursor, read));
        cursor = skip_ws(text, end);
    }
    if calls.is_empty() {
        return None;
    }
    let code = MarkdownCode::find(text);
    if calls.iter().any(|(start, _)| code.contains(*start)) {
        return None;
    }
    calls
        .iter()
        .all(|(_, r)| allowed(&text[r.name.clone()]))
        .then_some(calls)
}

/// A call id derived from the text and the call's place in it.
fn call_id(text: &str, start: usize) -> String {
    let mut h = blake3::Hasher::new();
    h.update(text.as_bytes());
    h.update(&start.to_le_bytes());
    let hex = h.finalize().to_hex();
    format!("call_{}", &hex[..24])
}

/// The calls of one run of text blocks (`None`: not wholly calls). Blank text gives none.
fn run_calls(parts: &[&str], allowed: &dyn Fn(&str) -> bool) -> Option<Vec<Block>> {
    let text = parts.concat();
    if text.chars().all(is_js_whitespace) {
        return Some(Vec::new());
    }
    let mut breaks = Vec::new();
    let mut offset = 0;
    for part in &parts[..parts.len().saturating_sub(1)] {
        offset += part.len();
        if offset != text.len() {
            breaks.push(offset);
        }
    }
    let calls = standalone_calls(&text, &breaks, allowed)?;
    Some(
        calls
            .into_iter()
            .map(|(start, r)| {
                Block::Call(Call {
                    id: call_id(&text, start),
                    name: text[r.name].to_string(),
                    arguments: r.arguments,
                })
            })
            .collect(),
    )
}

/// The promoted content of a message whose content is `parts` (`string`: it was a string, the one
/// part), when the request offered the tools named `tools`; `None` when 2026.9.6 would leave the
/// message as it is.
///
/// ```
/// use transcript_hygiene::scrub::visible::plain_tool_call::promote::{promote, Arguments, Block, Part};
/// let reply = [Part::Text("[tool:get_weather] {\"city\":\"北京\"}")];
/// let Some(blocks) = promote(&reply, true, &["get_weather"]) else { panic!() };
/// let Block::Call(call) = &blocks[0] else { panic!() };
/// assert_eq!(call.arguments, Arguments::Json("{\"city\":\"北京\"}".into()));
/// assert!(promote(&[Part::Text("先查天气。\n[tool:get_weather] {}")], true, &["get_weather"]).is_none());
/// ```
pub fn promote(parts: &[Part<'_>], string: bool, tools: &[&str]) -> Option<Vec<Block>> {
    if tools.is_empty() || (parts.contains(&Part::ToolCall) && !string) {
        return None;
    }
    let allowed = &|name: &str| tools.contains(&name);
    if string {
        let [Part::Text(text)] = parts else {
            return None;
        };
        return run_calls(&[text], allowed).filter(|calls| !calls.is_empty());
    }
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut promoted = false;
    let mut flush = |run: &mut Vec<&str>, out: &mut Vec<Block>| -> Option<()> {
        let calls = run_calls(run, allowed)?;
        run.clear();
        promoted |= !calls.is_empty();
        out.extend(calls);
        Some(())
    };
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Text(t) => run.push(t),
            Part::Unreadable => return None,
            Part::ToolCall | Part::Other => {
                flush(&mut run, &mut out)?;
                out.push(Block::Keep(i));
            }
        }
    }
    flush(&mut run, &mut out)?;
    promoted.then_some(out)
}
