//! Shared reading of JSON-bodied calls: `{"name": …, "arguments"|"parameters": {…}}` objects,
//! arrays of them, and sequences of them (one per line, or `;`-separated), behind a family's
//! opening marker ([`parse_tagged`]) or, for the bare-JSON families that are only read when named,
//! anywhere in the text ([`bare_blocks`]). Hermes, LongCat, ERNIE-4.5, MiniMax-M1, Hunyuan, Jamba,
//! InternLM2, Phi-4-mini, Granite, Granite-20B-FC, GigaChat3, Llama-3 JSON, xLAM and Mistral's
//! array form all read their bodies here, so they share one policy:
//!
//! - a JSON value is read with a streaming reader, so a closing tag inside a string value does not
//!   end the call, and a call cut off by `max_tokens` is recognised;
//! - invalid JSON that still has a readable `"name"` gives the call with its raw arguments text
//!   (reported, never dropped); a body with nothing readable stays in `content` (reported);
//! - except braces written twice (`{{…}}}`, see [`doubled_braces`]): the one call they plainly
//!   hold is read (reported), else the body gives no call and stays in `content` (reported);
//! - a missing closing tag after complete JSON still gives the call (reported when the format has
//!   a closing tag); text after the JSON and before a late closing tag is dropped (reported).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::bare_json::resolve;
use super::scan::{balanced_end, find_outside_strings, floor, widen_to_fence, Budget, Finder};
use super::{args_value_to_text, Block, Parsed, RawCall};

mod doubled_braces;

static NAME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""name"\s*:\s*"((?:[^"\\]|\\.)*)""#).expect("static regex"));
static ARGS_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""(?:arguments|parameters|args|input|tool_input)"\s*:\s*"#).expect("static regex")
});

/// The keys a call object's arguments go under, in the order they are looked for: OpenAI's and
/// Llama's `arguments`/`parameters`, and `args`/`input`/`tool_input`, which models trained on
/// other agents' transcripts (Gemini's `args`, Anthropic's `input`, `tool_name`/`tool_input`
/// pairs of agent logs) write as well.
pub const ARG_KEYS: &[&str] = &["arguments", "parameters", "args", "input", "tool_input"];

fn args_of(obj: &Map<String, Value>) -> Option<&Value> {
    ARG_KEYS.iter().find_map(|k| obj.get(*k))
}

/// `{"name": str, "arguments"|"parameters"|"args"|"input": …}` (or OpenAI's `{"function": {…}}`)
/// → a call.
/// Arguments that are missing or `null` become `{}`; a JSON string holding an object is unwrapped.
/// A value that is no call is reported with its text (written compactly), so a wrapper or array
/// holding one readable and one unreadable call loses nothing.
pub fn call_from_value(
    v: Value,
    family: &str,
    tools: Option<&Value>,
    problems: &mut Vec<String>,
) -> Option<RawCall> {
    let mut obj = match v {
        Value::Object(obj) => obj,
        other => {
            problems.push(format!(
                "bad-arguments: {family}: call JSON is not an object; dropped, raw text: {other}"
            ));
            return None;
        }
    };
    if !obj.contains_key("name") {
        if let Some(Value::Object(f)) = obj.remove("function") {
            obj = f;
        } else if let Some(n) = obj.remove("tool_name") {
            // Cohere's action list.
            obj.insert("name".into(), n);
        } else if let Some(n) = tool_key(&obj, tools) {
            obj.remove("tool");
            obj.insert("name".into(), Value::String(n.to_owned()));
        }
    }
    if !matches!(obj.get("name"), Some(Value::String(_))) {
        problems.push(format!(
            "bad-arguments: {family}: call JSON has no string \"name\"; dropped, raw text: {}",
            Value::Object(obj)
        ));
        return None;
    }
    let Some(Value::String(name)) = obj.remove("name") else {
        return None;
    };
    let args = ARG_KEYS
        .iter()
        .find_map(|k| obj.remove(*k))
        .unwrap_or(Value::Null);
    Some(RawCall {
        arguments: args_value_to_text(args, family, problems),
        name,
        id: None,
    })
}

/// The offered tool a call object names under `"tool"` (`{"tool": "get_weather", "arguments":
/// {…}}`, as models trained on agent logs write it; SharpMind PR 29), when it has no `"name"` and
/// its arguments are an object: a `"tool"` key is common in ordinary JSON, so only a name
/// [`resolve`]d against the offered tools makes it a call (none without `tools`).
fn tool_key<'t>(obj: &Map<String, Value>, tools: Option<&'t Value>) -> Option<&'t str> {
    if obj.contains_key("name") || !matches!(args_of(obj), Some(Value::Object(_))) {
        return None;
    }
    resolve(tools, obj.get("tool")?.as_str()?)
}

/// True for a call-shaped object: a non-empty string `"name"` (or `"tool_name"`, or `"tool"`
/// naming an offered tool, see [`tool_key`]), in any place among the keys, and an object of
/// arguments under one of [`ARG_KEYS`]. Used where a false positive would turn ordinary JSON into
/// a call.
pub fn is_call_object(obj: &Map<String, Value>, tools: Option<&Value>) -> bool {
    let name = obj.get("name").or_else(|| obj.get("tool_name"));
    (matches!(name, Some(Value::String(n)) if !n.is_empty()) || tool_key(obj, tools).is_some())
        && matches!(args_of(obj), Some(Value::Object(_)))
}

/// Best effort on invalid JSON: the `"name"` string and the raw text after `"arguments":`.
pub fn recover(body: &str) -> Option<RawCall> {
    let name_caps = NAME_RE.captures(body)?;
    let name = serde_json::from_str::<String>(&format!("\"{}\"", &name_caps[1])).ok()?;
    let arguments = match ARGS_RE.find(body) {
        Some(m) => {
            let rest = body[m.end()..].trim_end();
            rest.strip_suffix('}').unwrap_or(rest).trim_end().to_owned()
        }
        None => "{}".to_owned(),
    };
    Some(RawCall {
        name,
        arguments,
        id: None,
    })
}

/// The calls of one parsed JSON value: an object, or an array of objects.
pub fn calls_of_value(
    v: Value,
    family: &str,
    tools: Option<&Value>,
    problems: &mut Vec<String>,
) -> Vec<RawCall> {
    match v {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| call_from_value(item, family, tools, problems))
            .collect(),
        other => call_from_value(other, family, tools, problems)
            .into_iter()
            .collect(),
    }
}

/// One JSON value at `at` and its end, or `None` when the text there is not JSON.
pub fn read_value(text: &str, at: usize) -> Option<(Value, usize)> {
    let rest = text.get(at..)?;
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) => Some((v, at + stream.byte_offset())),
        _ => None,
    }
}

/// What [`read_calls`] found.
#[derive(Debug, Default)]
pub struct Read {
    pub calls: Vec<RawCall>,
    /// The end of the last value read (or of the text recovered from).
    pub end: usize,
    /// The text could not be read to its end (truncated: no complete value and no bound).
    pub truncated: bool,
}

/// Read the calls of the JSON value(s) starting at `at` (which holds `{` or `[`): several values
/// in a row are read when only whitespace, `;` or `,` separate them. Invalid JSON is recovered
/// within its brackets, or up to `bound` (a closing tag) when its brackets never close; the
/// bracket scan stops at `limit` (the next opener), which keeps many unclosed openers linear.
pub fn read_calls(
    text: &str,
    at: usize,
    bound: Option<usize>,
    limit: usize,
    family: &str,
    tools: Option<&Value>,
    problems: &mut Vec<String>,
) -> Read {
    let limit = limit.min(text.len());
    let mut out = Read {
        end: at,
        ..Read::default()
    };
    let mut pos = at;
    loop {
        // A plain call object is copied through; anything else is read as a `Value`.
        if let Some((name, arguments, end)) =
            super::canonical::call_object(text, pos, ARG_KEYS, tools)
        {
            out.calls.push(RawCall {
                name,
                arguments,
                id: None,
            });
            out.end = end;
        } else {
            match read_value(text, pos) {
                Some((v, end)) => {
                    let mut calls = calls_of_value(v, family, tools, problems);
                    out.calls.append(&mut calls);
                    out.end = end;
                }
                None => {
                    let stop = text
                        .get(..limit)
                        .and_then(|t| balanced_end(t, pos, false))
                        .filter(|&e| bound.is_none_or(|b| e <= b))
                        .or(bound);
                    let Some(stop) = stop else {
                        out.truncated = true;
                        return out;
                    };
                    let recovered = recover_span(&text[pos..stop], family, tools, problems);
                    if recovered.is_empty() && out.calls.is_empty() {
                        out.truncated = bound.is_none();
                    }
                    out.calls.extend(recovered);
                    out.end = stop;
                }
            }
        }
        // Another value after a separator?
        let rest = &text[out.end..];
        let skipped = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == ';' || c == ',')
                .len();
        let next = out.end + skipped;
        if bound.is_some_and(|b| next >= b) || !matches!(text.as_bytes().get(next), Some(b'{')) {
            return out;
        }
        pos = next;
    }
}

/// Calls recovered from invalid JSON: each top-level `{…}` of an array, or the one object.
fn recover_span(
    span: &str,
    family: &str,
    tools: Option<&Value>,
    problems: &mut Vec<String>,
) -> Vec<RawCall> {
    let mut parts = Vec::new();
    if span.starts_with('[') {
        let mut at = 1;
        while let Some(off) = span.get(at..).and_then(|s| s.find('{')) {
            let s = at + off;
            let e = balanced_end(span, s, false).unwrap_or(span.len());
            parts.push(&span[s..e]);
            at = e;
        }
    } else {
        parts.push(span);
    }
    let mut calls = Vec::new();
    for part in parts {
        if let Some((v, _)) = read_value(part, 0) {
            calls.extend(calls_of_value(v, family, tools, problems));
        } else if doubled_braces::is_doubled(part) {
            // Never a call with garbage arguments: the one call the braces plainly hold, or none.
            match doubled_braces::repaired(part, tools) {
                Some(v) => {
                    problems.push(format!(
                        "bad-arguments: {family}: call JSON written with doubled braces; read with them undone"
                    ));
                    calls.extend(calls_of_value(v, family, tools, problems));
                }
                None => problems.push(format!(
                    "bad-arguments: {family}: call JSON with doubled braces does not read as one call; dropped, raw text: {part}"
                )),
            }
        } else if let Some(call) = recover(part) {
            problems.push(format!(
                "{family}: call {:?} has invalid JSON; arguments kept as the raw text",
                call.name
            ));
            calls.push(call);
        }
    }
    calls
}

/// Where a block cut off inside its JSON (no value read, no closer) ends, given `next`, the next
/// opener after `at` (where the JSON opens). An opener inside one of the JSON's strings belongs
/// to the arguments (a call that writes about `[TOOL_CALLS]` or `<function_call>`, cut by
/// `max_tokens`): the block runs to the first opener outside strings, or to the end of the text,
/// so no half of the markup stays visible. Only when a complete call follows `next`
/// (`reads_at(text up to that end, next)`) is `next` taken as it stands (a call after one whose
/// quotes do not balance).
///
/// Linear: the opener at `next` is checked with one scan up to it. One inside a string (a cut
/// argument) is looked past in windows that double from `next`, each asking whether the call at
/// `next` already reads within it: the search stops within twice the end of that call, or at the
/// first opener outside strings (where the block then ends), never at the end of the text for
/// each block (replies of calls whose quotes stay open through every later opener, with a complete
/// call after each, were quadratic).
pub fn cut_block_end(
    text: &str,
    at: usize,
    next: Option<usize>,
    opens: &[&str],
    reads_at: impl Fn(&str, usize) -> bool,
) -> usize {
    let Some(n) = next else {
        return text.len();
    };
    // Most often the next opener stands outside strings: one scan up to it says so.
    if opens.iter().any(|m| {
        text[n..].starts_with(*m) && find_outside_strings(text, at, n + m.len(), m) == Some(n)
    }) {
        return n;
    }
    let longest = opens.iter().map(|m| m.len()).max().unwrap_or(1);
    let mut window = (n - at).max(FIRST_WINDOW);
    loop {
        let lim = floor(text, n.saturating_add(window).min(text.len()));
        let outside = opens
            .iter()
            .filter_map(|m| find_outside_strings(text, at, lim, m))
            .min();
        if let Some(o) = outside {
            return if o <= n || reads_at(&text[..o], n) {
                n
            } else {
                o
            };
        }
        if lim == text.len() {
            return if reads_at(text, n) { n } else { text.len() };
        }
        // No opener outside strings starts before `safe` (one may straddle `lim`).
        let safe = floor(text, (lim + 1).saturating_sub(longest).max(n));
        if reads_at(&text[..safe], n) {
            return n;
        }
        window = window.saturating_mul(2);
    }
}

/// The first window [`cut_block_end`] looks past an opener in a string with.
const FIRST_WINDOW: usize = 256;

/// Whether a JSON value follows the opener at `n` (one of `opens`) in `text`.
fn json_after(text: &str, n: usize, opens: &[&str]) -> bool {
    let Some(len) = opens
        .iter()
        .find(|m| text[n..].starts_with(**m))
        .map(|m| m.len())
    else {
        return false;
    };
    let after = &text[n + len..];
    let body = n + len + after.len() - after.trim_start().len();
    read_value(text, body).is_some()
}

/// What may follow a family's opening marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    Object,
    Array,
    Either,
}

impl Body {
    fn accepts(self, b: Option<&u8>) -> bool {
        matches!(
            (self, b),
            (Body::Object | Body::Either, Some(b'{')) | (Body::Array | Body::Either, Some(b'['))
        )
    }
}

/// A family's closing marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// The format has none: the block ends with the JSON.
    None,
    /// Consumed when it follows the JSON; its absence is normal.
    Optional(&'static str),
    /// Expected; its absence is reported (truncated reply).
    Required(&'static str),
}

/// A `MARKER JSON [CLOSE]` format.
#[derive(Debug, Clone, Copy)]
pub struct Tagged {
    pub name: &'static str,
    pub opens: &'static [&'static str],
    pub body: Body,
    pub close: Close,
    /// The JSON must follow the marker directly (`functools[`), not after whitespace.
    pub glued: bool,
}

/// Every block of `spec`'s format in `text`.
pub fn parse_tagged(text: &str, spec: &Tagged, tools: Option<&Value>) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Openers::new(spec.opens);
    let close_tag = match spec.close {
        Close::None => None,
        Close::Optional(c) | Close::Required(c) => Some(c),
    };
    let mut closes = close_tag.map(Finder::new);
    let mut at = 0;
    while let Some((start, len)) = opens
        .iter_mut()
        .zip(spec.opens)
        .filter_map(|(f, m)| f.find(text, at).map(|i| (i, m.len())))
        .min()
    {
        let body_at = start + len;
        let body = &text[body_at..];
        let lead = if spec.glued {
            0
        } else {
            body.len() - super::typing::trim_start(body).len()
        };
        let json_at = body_at + lead;
        if !spec.body.accepts(text.as_bytes().get(json_at)) {
            at = body_at;
            continue;
        }
        if let Some((call, end)) = close_tag.and_then(|c| plain_call(text, json_at, c, tools)) {
            if out.format.is_none() {
                out.format = Some(spec.name);
            }
            let block = Block {
                start,
                end,
                calls: vec![call],
                keep_raw: false,
            };
            // Most texts (a block a stream hands over) hold one: made to measure, not grown.
            if out.blocks.is_empty() {
                out.blocks = vec![block];
            } else {
                out.blocks.push(block);
            }
            at = end;
            continue;
        }
        // The next opener bounds this block, so one truncated call cannot swallow the next.
        let next_open = opens
            .iter_mut()
            .zip(spec.opens)
            .filter_map(|(f, _)| f.find(text, json_at))
            .min();
        let limit = next_open.unwrap_or(text.len());
        // A closing tag inside an argument's string does not end the block. With no closer outside
        // a string: while the reply is still arriving (the stream machine asks with a NUL after
        // the block, `Machine::block_done`) the string may yet close, so there is no closer; in a
        // finished reply the JSON is broken, and its first closer ends the block, so the text
        // after it stays text.
        let close = match spec.close {
            Close::Required(c) => find_outside_strings(text, json_at, limit, c).or_else(|| {
                if text.ends_with('\0') {
                    None
                } else {
                    closes
                        .as_mut()
                        .and_then(|f| f.find(text, json_at))
                        .filter(|&e| e < limit)
                }
            }),
            _ => None,
        };
        let read = read_calls(
            text,
            json_at,
            close,
            limit,
            spec.name,
            tools,
            &mut out.problems,
        );
        let after = &text[read.end..];
        let ws = after.len() - after.trim_start().len();
        let end = match close_tag {
            Some(c) if after[ws..].starts_with(c) => read.end + ws + c.len(),
            _ => match (spec.close, close) {
                (Close::Required(c), Some(found)) => {
                    if !read.truncated {
                        out.problems.push(format!(
                            "{}: text after the JSON and before {c} dropped",
                            spec.name
                        ));
                    }
                    found + c.len()
                }
                (Close::Required(_), None) if read.truncated && read.calls.is_empty() => {
                    cut_block_end(text, json_at, next_open, spec.opens, |t, n| {
                        json_after(t, n, spec.opens)
                    })
                }
                (Close::Required(c), None) => {
                    out.problems
                        .push(format!("{}: {c} missing (truncated reply)", spec.name));
                    read.end
                }
                _ if read.truncated && read.calls.is_empty() => {
                    cut_block_end(text, json_at, next_open, spec.opens, |t, n| {
                        json_after(t, n, spec.opens)
                    })
                }
                _ => read.end,
            },
        };
        if !read.calls.is_empty() && out.format.is_none() {
            out.format = Some(spec.name);
        }
        let name = spec.name;
        out.blocks.push(Block::of_calls(
            start,
            end,
            read.calls,
            &mut out.problems,
            || format!("{name}: call block holds no readable call (cut off or not a call); raw text kept in content"),
        ));
        at = end.max(body_at);
    }
    out
}

/// One [`Finder`] per opener of a format: the first [`HELD_OPENERS`] on the stack (every format
/// has fewer), where a list of them was an allocation for each block read.
struct Openers<'n> {
    held: [Finder<'n>; HELD_OPENERS],
    n: usize,
    more: Vec<Finder<'n>>,
}

const HELD_OPENERS: usize = 4;

impl<'n> Openers<'n> {
    fn new(opens: &[&'n str]) -> Self {
        Openers {
            held: std::array::from_fn(|k| Finder::new(opens.get(k).copied().unwrap_or(""))),
            n: opens.len().min(HELD_OPENERS),
            more: opens
                .iter()
                .skip(HELD_OPENERS)
                .map(|m| Finder::new(m))
                .collect(),
        }
    }

    /// The finders in the openers' order.
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Finder<'n>> {
        self.held[..self.n].iter_mut().chain(self.more.iter_mut())
    }
}

/// The usual block, read without searching it first: one plain call object at `json_at`
/// ([`super::canonical::call_object`]) followed, after whitespace, by the closing tag `close`;
/// the call and the block's end. Valid JSON holds no `<` outside its strings, so the closer after
/// it is the first one outside a string and the next opener (if any is inside a string) changes
/// nothing: [`parse_tagged`]'s general path reads the block the same (and still reads every other
/// block).
fn plain_call(
    text: &str,
    json_at: usize,
    close: &str,
    tools: Option<&Value>,
) -> Option<(RawCall, usize)> {
    let (name, arguments, end) = super::canonical::call_object(text, json_at, ARG_KEYS, tools)?;
    let after = text.get(end..)?;
    let rest = super::typing::trim_start(after);
    if !rest.starts_with(close) {
        return None;
    }
    let call = RawCall {
        name,
        arguments,
        id: None,
    };
    Some((call, end + (after.len() - rest.len()) + close.len()))
}

/// Bare JSON calls anywhere in `text` (families read only when named): each object (or array,
/// per `body`) that parses completely and is call-shaped ([`is_call_object`]) is a block; a
/// Markdown fence around it goes with it, and values separated only by `;` join one block.
/// Other JSON is skipped whole, so an object nested in ordinary JSON is never a call.
pub fn bare_blocks(
    text: &str,
    body: Body,
    family: &str,
    tools: Option<&Value>,
    problems: &mut Vec<String>,
) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut budget = Budget::for_text(text);
    let (a, b) = match body {
        Body::Object => (b'{', b'{'),
        Body::Array => (b'[', b'['),
        Body::Either => (b'{', b'['),
    };
    let mut skip_to = 0;
    for at in memchr::memchr2_iter(a, b, text.as_bytes()) {
        if at < skip_to {
            continue;
        }
        let Some(end) = budget.balanced_end(text, at, false) else {
            if budget.spent() {
                break;
            }
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&text[at..end]) else {
            continue;
        };
        skip_to = end;
        let shaped = match &v {
            Value::Object(o) => is_call_object(o, tools),
            Value::Array(items) => {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|i| i.as_object().is_some_and(|o| is_call_object(o, tools)))
            }
            _ => false,
        };
        if !shaped {
            continue;
        }
        let calls = calls_of_value(v, family, tools, problems);
        if let Some(last) = blocks.last_mut() {
            let between = &text[last.end..at];
            if between
                .trim_matches(|c: char| c.is_whitespace() || c == ';')
                .is_empty()
                && between.contains(';')
            {
                last.end = end;
                last.calls.extend(calls);
                continue;
            }
        }
        blocks.push(Block {
            start: at,
            end,
            calls,
            keep_raw: false,
        });
    }
    for b in &mut blocks {
        (b.start, b.end) = widen_to_fence(text, b.start, b.end);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERMES_LIKE: Tagged = Tagged {
        name: "t",
        opens: &["<x>"],
        body: Body::Either,
        close: Close::Required("</x>"),
        glued: false,
    };

    #[test]
    fn an_element_that_is_no_call_is_reported_with_its_text() {
        let t = "<x>[{\"name\": \"f\", \"arguments\": {}}, {\"nam\": \"g\", \"arguments\": {\"q\": \"北京\"}}, 3]</x>";
        let p = parse_tagged(t, &HERMES_LIKE, None);
        assert_eq!(p.call_pairs(), [("f".into(), "{}".into())]);
        assert_eq!(
            p.problems,
            [
                r#"bad-arguments: t: call JSON has no string "name"; dropped, raw text: {"nam":"g","arguments":{"q":"北京"}}"#,
                "bad-arguments: t: call JSON is not an object; dropped, raw text: 3"
            ]
        );
    }

    #[test]
    fn sequences_arrays_and_recovery() {
        let t = "a<x>{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"parameters\": {\"k\": 1}}</x>b";
        let p = parse_tagged(t, &HERMES_LIKE, None);
        assert_eq!(
            p.call_pairs(),
            [("f".into(), "{}".into()), ("g".into(), r#"{"k":1}"#.into())]
        );
        assert_eq!((p.blocks[0].start, p.blocks[0].end), (1, t.len() - 1));
        let t = "<x>[{\"name\": \"f\", \"arguments\": {\"a\": 1,}}, {\"name\": \"g\", \"arguments\": {}}]</x>";
        let p = parse_tagged(t, &HERMES_LIKE, None);
        assert_eq!(
            p.call_pairs(),
            [
                ("f".into(), r#"{"a": 1,}"#.into()),
                ("g".into(), "{}".into())
            ]
        );
        assert_eq!(p.problems.len(), 1);
    }

    #[test]
    fn truncated_block_is_bounded_by_the_next_opener() {
        let t = "<x>{\"name\": \"f\", \"arg <x>{\"name\": \"g\"}</x>";
        let p = parse_tagged(t, &HERMES_LIKE, None);
        assert!(p.blocks[0].keep_raw);
        assert_eq!(p.blocks[0].end, 22);
        assert_eq!(p.call_pairs(), [("g".into(), "{}".into())]);
    }

    #[test]
    fn bare_blocks_need_the_call_shape() {
        let mut pr = Vec::new();
        let t = "x {\"name\": \"f\"} y {\"data\": {\"name\": \"f\", \"arguments\": {}}} \
                 ```json\n{\"name\": \"g\", \"parameters\": {}}; {\"name\": \"h\", \"parameters\": {}}\n``` z";
        let b = bare_blocks(t, Body::Object, "t", None, &mut pr);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].calls.len(), 2);
        assert_eq!(&t[b[0].end..], " z");
        assert!(t[..b[0].start].ends_with("}} "));
    }

    #[test]
    fn bare_scan_is_linear_on_adversarial_text() {
        let t = "{\"a\": \"".repeat(200_000);
        let mut pr = Vec::new();
        assert!(bare_blocks(&t, Body::Either, "t", None, &mut pr).is_empty());
    }
}
