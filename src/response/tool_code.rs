//! Google's ```` ```tool_code ```` fence. Gemma 3's prompted function calling and Gemini writing a
//! call as text (googleapis/js-genai#607, gemini-2.0-flash-001) put the call in a fence labelled
//! `tool_code` as a line of Python, `print(default_api.NAME(k = "v"))`: `default_api` is the
//! namespace Google's own prompts give the tools, and `print` how its code runner shows a result.
//! An agent that does not read it shows the fence and never runs the call.
//!
//! Read only inside such a fence (the stream's fence rule, [`super::stream`], holds a fence with a
//! call label whole): every non-blank line of its body must be one call, `default_api.NAME(…)` or
//! `NAME(…)`, bare or inside `print(…)`, its arguments Python keywords ([`super::pyliteral`]).
//! - `default_api.NAME(…)` is Google's namespace, a call with or without `tools`; with `tools`,
//!   only when `NAME` is one of them.
//! - a plain `NAME(…)` only when `tools` offers `NAME` (without it, a line of Python).
//!
//! Anything else in the body (another statement, prose, a call that does not read) leaves the
//! fence an example; a fence labelled `python` is code whatever it holds.

use serde_json::Value;

use super::bare_json::resolve;
use super::tool_json::{offers_tools, NAME};
use super::{pyliteral, Parsed, RawCall};

/// The fence's info word.
pub const LABEL: &str = "tool_code";

/// Google's namespace for the tools.
const NS: &str = "default_api.";

/// The calls of a `tool_code` fence's `body`, one block over the whole body; `None` when a line
/// is not such a call.
pub fn read(body: &str, tools: Option<&Value>) -> Option<Parsed> {
    let mut calls = Vec::new();
    for line in body.lines() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        let inner = l
            .strip_prefix("print(")
            .and_then(|r| r.strip_suffix(')'))
            .map_or(l, str::trim);
        let (c, end) = pyliteral::call(inner, 0)?;
        if end != inner.len() {
            return None;
        }
        let (name, google) = match c.name.strip_prefix(NS) {
            Some(n) => (n, true),
            None => (c.name.as_str(), false),
        };
        let name = if offers_tools(tools) {
            resolve(tools, name)?
        } else if google && !name.contains('.') {
            name
        } else {
            return None;
        };
        calls.push(RawCall {
            name: name.to_owned(),
            arguments: c.arguments,
            id: None,
        });
    }
    if calls.is_empty() {
        return None;
    }
    let mut p = Parsed::whole(body.len(), calls);
    p.set_format_if_calls(NAME);
    Some(p)
}
