//! Bare JSON calls for any model, read when the evidence is strong: a JSON object
//! `{"name": N, "arguments"|"parameters"|"args"|"input": {…}}` (or an array of them) whose `N` is
//! one of the tools the request offered (`options.tools`, OpenAI- or Anthropic-style entries; a
//! name written with spaces or in another case resolves to the one tool it stands for, see
//! [`super::bare_json::resolve`]).
//!
//! Why: models that were not trained on their server's tool markup (Qwen2.5-Coder through Ollama,
//! Llama-4 through MLX servers, small models behind LM Studio) write the call as plain JSON in
//! `content`, and the server passes it on as text; the agent never runs it. Plain JSON is also what
//! people paste and what models quote, so without tools no JSON is read here (the Llama-family
//! reading by model name is [`super::llama3_json`]'s), and with tools only an object that opens
//! with its `"name"` key (after Llama's `"type": "function",`) naming an offered tool, parses completely and has an object of arguments
//! is a call; JSON that names no offered tool, JSON in inline code and fenced examples stay text.
//! An array counts only when every item is such a call. OpenAI's parallel-call wrapper, which GPT
//! models leak as text (`{"tool_uses": [{"recipient_name": "functions.f", "parameters": {…}}]}`),
//! is read by the same rule: every recipient must be an offered tool, and so is the
//! `{"tool_calls": [{"name": …, "arguments": {…}, "id": …}]}` wrapper Devstral writes as text
//! (llama.cpp#14697), when that array is all the object holds. A call that names its tool
//! under `"tool"` (`{"tool": "get_weather", "arguments": {…}}`) is read the same way, bare or
//! inside any JSON family's markup, only when that name is an offered tool.

use serde_json::{Map, Value};

use super::bare_json::{resolve, OfferedNames};
use super::json_calls::{bare_blocks, calls_of_value, is_call_object, read_value, Body, ARG_KEYS};
use super::named_json;
use super::scan::Budget;
use super::{args_value_to_text, Block, Ctx, Parsed, RawCall};

/// The format name reported.
pub const NAME: &str = "tool_json";

/// Tags models write around a bare JSON call, `(opening, closing)`: Anthropic's call wrapper
/// (`<function_calls>\n[{"tool_name": …}]\n</function_calls>`, OpenClaw#26942) and its block
/// name (`<tool_use>{"name": …, "input": {…}}</tool_use>`, MiniMax-M3 in MaiBot#1882), and
/// `<functioncall {…}>` (the JSON inside the tag, its `>` after the object), and a nameless
/// `<invoke>` ([`INVOKE`]). The block
/// then runs from the opening tag through the closing one when it follows.
pub const WRAPPERS: &[(&str, &str)] = &[
    ("<function_calls>", "</function_calls>"),
    (TOOL_USE, "</tool_use>"),
    (FUNCTIONCALL, ">"),
    (INVOKE, "</invoke>"),
];

/// An `<invoke>` with no name wrapping a JSON call (zeroclaw#746: `<invoke>\n{"name": "shell",
/// "arguments": {…}}\n</invoke>`); MiniMax's `<invoke name=…>` is its own grammar.
pub const INVOKE: &str = "<invoke>";

/// The opening of `<functioncall {json}>`, the call element Home Assistant's local-LLM guides
/// teach (its JSON inside the tag, maxi1134/Home-Assistant-Config#66).
pub const FUNCTIONCALL: &str = "<functioncall";

/// The wrapper tag that only ever wraps JSON here.
pub const TOOL_USE: &str = "<tool_use>";

/// The wrapper whose opening tag ends `before` (after spaces): its start and closing tag.
pub fn wrapper_before(before: &str) -> Option<(usize, &'static str)> {
    let t = before.trim_end();
    WRAPPERS
        .iter()
        .find_map(|(open, close)| Some((t.strip_suffix(open)?.len(), *close)))
}

/// The end of `close` when only spaces separate it from `at` in `text`.
pub fn closer_after(text: &str, at: usize, close: &str) -> Option<usize> {
    let rest = &text[at..];
    let t = rest.trim_start();
    t.starts_with(close)
        .then(|| at + (rest.len() - t.len()) + close.len())
}

/// Every bare JSON call in `text` whose name is an offered tool (renamed to that tool).
pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    if !offers_tools(cx.tools) {
        out.blocks = wrapped_blocks(text);
        out.set_format_if_calls(NAME);
        return out;
    }
    let mut scratch = Vec::new();
    let mut blocks = named_json::blocks(text, cx.tools, &mut out.problems);
    in_gaps(text, &mut blocks, tool_uses_blocks);
    in_gaps(text, &mut blocks, |t| {
        tool_calls_blocks(t, cx.tools, &mut out.problems)
    });
    in_gaps(text, &mut blocks, |t| {
        bare_blocks(t, Body::Either, NAME, cx.tools, &mut scratch)
    });
    for b in &mut blocks {
        if let Some((start, close)) = wrapper_before(&text[..b.start]) {
            b.start = start;
            b.end = closer_after(text, b.end, close).unwrap_or(b.end);
        }
    }
    for mut b in blocks {
        let all_offered = b
            .calls
            .iter_mut()
            .all(|c| match resolve(cx.tools, &c.name) {
                Some(n) => {
                    c.name = n.to_owned();
                    true
                }
                None => false,
            });
        // A block without calls only for the empty wrapper that is all the rest of the text.
        let empty_wrapper = || empty_tool_calls(&text[b.start..]) == Some(true);
        if all_offered && (!b.calls.is_empty() || empty_wrapper()) {
            out.blocks.push(b);
        }
    }
    cut_tail(text, cx.tools, &mut out);
    out.set_format_if_calls(NAME);
    out
}

/// The wrappers whose call object alone is read without `tools` ([`wrapped_blocks`]). Not
/// `<functioncall {…}>`: a tag closed by `>` is what Home Assistant's guides show people.
pub const ALONE: &[&str] = &[INVOKE, "<function_calls>", TOOL_USE];

/// Without `tools`, the one form read here: a call wrapper ([`ALONE`]: a nameless `<invoke>`,
/// `<function_calls>`, `<tool_use>`) opening its line (up to three spaces
/// before it) that holds one JSON object of exactly two keys, `"name"` (a string with no spaces)
/// and `"arguments"` (an object), its closing tag right after it (spaces between) and then the
/// end of the line (zeroclaw#746: `<invoke>\n{"name": "shell", "arguments": {…}}\n</invoke>`).
/// A call tag around a call object alone is how a model writes a call, not how a person shows
/// one: a sample in prose has no tag around it or sits inside a sentence, and one in code is
/// code's. Linear: each value is scanned once, within a budget of a few passes over the text.
fn wrapped_blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut budget = Budget::for_text(text);
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'<', &text.as_bytes()[at..]) {
        let s = at + k;
        at = s + 1;
        let Some((open, close)) = WRAPPERS
            .iter()
            .find(|(o, _)| ALONE.contains(o) && text[s..].starts_with(o))
        else {
            continue;
        };
        if !opens_line(text, s) {
            continue;
        }
        let after = s + open.len();
        let json_at = text.len() - text[after..].trim_start().len();
        if strict_head(&text[json_at..]) != Some(true) {
            continue;
        }
        let Some(vend) = budget.balanced_end(text, json_at, false) else {
            if budget.spent() {
                break;
            }
            continue;
        };
        let Some((Value::Object(o), vend)) = read_value(&text[..vend], json_at) else {
            continue;
        };
        let Some(call) = strict_call(o) else {
            continue;
        };
        let Some(end) = closer_after(text, vend, close) else {
            continue;
        };
        let rest = text[end..].trim_start_matches([' ', '\t']);
        if !(rest.is_empty() || rest.starts_with(['\n', '\r'])) {
            continue;
        }
        out.push(Block {
            start: s,
            end,
            calls: vec![call],
            keep_raw: false,
        });
        at = end;
    }
    out
}

/// Whether only up to three spaces stand between the line's start and `at`.
fn opens_line(text: &str, at: usize) -> bool {
    let line = &text[..at];
    let lead = line.len() - line.rfind('\n').map_or(0, |i| i + 1);
    lead <= 3
        && line.as_bytes()[line.len() - lead..]
            .iter()
            .all(|&b| b == b' ')
}

/// Whether the text at a `{` (`rest` starts with it) opens `{"name"` or `{"arguments"`, the head
/// of [`wrapped_blocks`]'s object. `None`: more text is needed to tell.
pub fn strict_head(rest: &str) -> Option<bool> {
    let Some(r) = rest.strip_prefix('{') else {
        return Some(false);
    };
    let r = r.trim_start();
    for k in ["\"name\"", "\"arguments\""] {
        if r.starts_with(k) {
            return Some(true);
        }
        if r.len() < k.len() && k.starts_with(r) {
            return None;
        }
    }
    Some(false)
}

/// The call of an object holding exactly `"name"` (a string with no whitespace) and
/// `"arguments"` (an object).
fn strict_call(mut o: Map<String, Value>) -> Option<RawCall> {
    if o.len() != 2 {
        return None;
    }
    let args @ Value::Object(_) = o.remove("arguments")? else {
        return None;
    };
    let Value::String(name) = o.remove("name")? else {
        return None;
    };
    if name.is_empty() || name.len() > 256 || name.contains(char::is_whitespace) {
        return None;
    }
    Some(RawCall {
        name,
        arguments: args.to_string(),
        id: None,
    })
}

/// A call cut off by the end of the reply (`max_tokens`) after the last block: a `{` that never
/// closes, whose head is as strong evidence as a whole call's ([`opens_call`]: `{"name": N` with
/// `N` offered; or an offered tool's name glued before it, or another lead of
/// [`named_json::lead_before`], with a first key its tool takes, [`named_json::cut_evidence`]).
/// Its text is removed and reported, never a call; a `{` that names no offered tool (a JSON
/// sample, a sentence that ends in `{`) stays text. Linear: a `{` that closes is skipped whole,
/// and the first that never closes ends the search.
fn cut_tail(text: &str, tools: Option<&Value>, out: &mut Parsed) {
    let from = out.blocks.iter().map(|b| b.end).max().unwrap_or(0);
    let mut skip_to = from;
    for at in memchr::memchr_iter(b'{', &text.as_bytes()[from..]).map(|k| from + k) {
        if at < skip_to {
            continue;
        }
        let start = match named_json::lead_before(&text[..at], tools) {
            Some(lead) if named_json::cut_evidence(text, &lead, at, tools) => lead.start,
            _ if opens_call(&text[at..], tools, true) == Some(true) => at,
            _ => continue,
        };
        if let Some(end) = super::scan::balanced_end(text, at, false) {
            skip_to = end;
            continue;
        }
        // The arguments written before the name: a cut object is a call only when it names an
        // offered tool (`{"arguments": {…}, "na` is a JSON sample), as a whole reply with no
        // such name is never read ([`super::unmarked`]).
        if start == at
            && args_first(text[at + 1..].trim_start())
            && !OfferedNames::default().may_name(tools, &text[at..])
        {
            return;
        }
        let start = cut_opening(text, start).max(from);
        out.problems.push(format!(
            "{NAME}: a call of an offered tool was cut off before its object closed (truncated reply)"
        ));
        out.blocks.push(Block::of_calls(
            start,
            text.len(),
            Vec::new(),
            &mut out.problems,
            || format!("{NAME}: cut-off call; raw text kept in content"),
        ));
        return;
    }
}

/// Whether an object whose text after its `{` (spaces skipped) is `r` writes the arguments
/// before the name.
fn args_first(r: &str) -> bool {
    ARG_KEYS.iter().any(|k| {
        r.strip_prefix('"')
            .and_then(|q| q.strip_prefix(k))
            .is_some_and(|q| q.starts_with('"'))
    })
}

/// Where the cut call at `start` opens: at the `[` of the call array it starts (spaces between),
/// and at the wrapper tag before that (`<function_calls>`, `<tool_use>`), so neither stays
/// visible without the call it opened.
fn cut_opening(text: &str, start: usize) -> usize {
    let before = text[..start].trim_end();
    let start = before.strip_suffix('[').map_or(start, str::len);
    wrapper_before(&text[..start]).map_or(start, |(s, _)| s)
}

/// Add the blocks `find` reads in the text between `blocks` (sorted by start), shifted into place.
fn in_gaps(text: &str, blocks: &mut Vec<Block>, mut find: impl FnMut(&str) -> Vec<Block>) {
    let mut gaps = Vec::new();
    let mut at = 0;
    for b in blocks.iter() {
        gaps.push((at, b.start));
        at = b.end;
    }
    gaps.push((at, text.len()));
    for (s, e) in gaps {
        for mut b in find(&text[s..e]) {
            b.start += s;
            b.end += s;
            blocks.push(b);
        }
    }
    blocks.sort_by_key(|b| b.start);
}

/// The blocks of the objects in `text` whose first key is `key` (quoted), each read whole:
/// `each(start, end, object)` gives the calls of the block it makes, if it makes one (the search
/// then goes on after it). Bounded first, so openers that never close stay linear.
fn keyed_objects(
    text: &str,
    key: &str,
    mut each: impl FnMut(usize, usize, Map<String, Value>) -> Option<Vec<RawCall>>,
) -> Vec<Block> {
    let mut out = Vec::new();
    let mut budget = Budget::for_text(text);
    let mut at = 0;
    while let Some(k) = memchr::memmem::find(&text.as_bytes()[at..], key.as_bytes()) {
        let found = at + k;
        at = found + key.len();
        let open = text[..found].trim_end();
        if !open.ends_with('{') {
            continue;
        }
        let start = open.len() - 1;
        let Some(close) = budget.balanced_end(text, start, false) else {
            if budget.spent() {
                break;
            }
            continue;
        };
        let Some((Value::Object(o), end)) = read_value(&text[..close], start) else {
            continue;
        };
        if let Some(calls) = each(start, end, o) {
            out.push(Block {
                start,
                end,
                calls,
                keep_raw: false,
            });
            at = end;
        }
    }
    out
}

/// OpenAI's parallel-call wrapper objects: `{"tool_uses": [{"recipient_name": "functions.f",
/// "parameters": {…}}, …]}`, each read as its calls (names checked by [`parse`]).
fn tool_uses_blocks(text: &str) -> Vec<Block> {
    keyed_objects(text, TOOL_USES, |_, _, mut o| {
        let Some(Value::Array(items)) = o.remove("tool_uses") else {
            return None;
        };
        let calls: Option<Vec<RawCall>> = items
            .into_iter()
            .map(|i| {
                let name = i.get("recipient_name")?.as_str()?;
                let name = name.strip_prefix("functions.").unwrap_or(name).to_owned();
                let args = i.get("parameters").cloned().unwrap_or(Value::Null);
                Some(RawCall {
                    arguments: args_value_to_text(args, NAME, &mut Vec::new()),
                    name,
                    id: None,
                })
            })
            .collect();
        calls.filter(|c| !c.is_empty())
    })
}

/// The wrapper Devstral writes its calls in as text (llama.cpp#14697): `{"tool_calls": [{"name":
/// …, "arguments": {…}, "id": …}, …]}`, read as its calls when the array is all the object holds
/// and every item is a call (names checked by [`parse`]); an object with other keys beside it is
/// data (a message quoted whole), never a call.
fn tool_calls_blocks(text: &str, tools: Option<&Value>, problems: &mut Vec<String>) -> Vec<Block> {
    keyed_objects(text, TOOL_CALLS, |start, end, mut o| {
        if o.len() != 1 {
            return None;
        }
        let Some(items @ Value::Array(_)) = o.remove("tool_calls") else {
            return None;
        };
        if items.as_array().is_some_and(Vec::is_empty) {
            // The wrapper with no call ([`empty_tool_calls`]): markup only as the whole reply.
            let whole = text[..start].trim().is_empty() && text[end..].trim().is_empty();
            return whole.then(Vec::new);
        }
        let all_calls = items.as_array().is_some_and(|a| {
            !a.is_empty()
                && a.iter()
                    .all(|i| i.as_object().is_some_and(|c| is_call_object(c, tools)))
        });
        all_calls.then(|| calls_of_value(items, NAME, tools, problems))
    })
}

const TOOL_USES: &str = "\"tool_uses\"";
const TOOL_CALLS: &str = "\"tool_calls\"";

/// The keys a call object names its tool with, quoted: `name`, Cohere's `tool_name`, which
/// other models write too, and `tool` (read only when it names an offered tool, as every name here).
const NAME_KEYS: &[&str] = &["\"name\"", "\"tool_name\"", "\"tool\""];

/// Whether the caller offered any tool (a non-empty `tools` array).
pub fn offers_tools(tools: Option<&Value>) -> bool {
    tools
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

/// Whether the text at a `{` or `[` (`rest` starts with it) opens a call of an offered tool:
/// `{` then `"name": "N"` with `N` offered (an array: `[` then such an object). `None` when more
/// text is needed to tell; `full` says no more will come (or enough was seen).
pub fn opens_call(rest: &str, tools: Option<&Value>, full: bool) -> Option<bool> {
    let more = if full { Some(false) } else { None };
    let mut t = rest;
    if let Some(r) = t.strip_prefix('[') {
        t = r.trim_start();
        if t.is_empty() {
            return more;
        }
    }
    let Some(r) = t.strip_prefix('{') else {
        return Some(false);
    };
    let mut r = r.trim_start();
    if let Some(after) = r.strip_prefix(TOOL_USES) {
        return tool_uses_head(after, tools, more);
    } else if let Some(after) = r.strip_prefix(TOOL_CALLS) {
        return tool_calls_head(after, tools, full);
    } else if [TOOL_USES, TOOL_CALLS]
        .iter()
        .any(|k| r.len() < k.len() && k.starts_with(r))
    {
        return more;
    }
    // Llama 3.x writes `{"type": "function", "name": …}`.
    const TYPE: &str = "\"type\": \"function\",";
    if let Some(after) = r.strip_prefix(TYPE) {
        r = after.trim_start();
    } else if r.len() < TYPE.len() && TYPE.starts_with(r) {
        return more;
    }
    let Some(r) = NAME_KEYS.iter().find_map(|k| r.strip_prefix(k)) else {
        // The arguments written before the name: the whole object decides, once complete.
        if args_first(r) {
            return Some(true);
        }
        let quoted = |k: &str| format!("\"{k}\"");
        let may_grow = NAME_KEYS.iter().any(|k| k.starts_with(r))
            || ARG_KEYS.iter().any(|k| quoted(k).starts_with(r));
        return if may_grow { more } else { Some(false) };
    };
    let r = r.trim_start();
    let Some(r) = r.strip_prefix(':') else {
        return if r.is_empty() { more } else { Some(false) };
    };
    let r = r.trim_start();
    let Some(r) = r.strip_prefix('"') else {
        return if r.is_empty() { more } else { Some(false) };
    };
    match r.find(['"', '\\', '\n']) {
        Some(i) if r.as_bytes()[i] == b'"' => Some(resolve(tools, &r[..i]).is_some()),
        Some(_) => Some(false),
        None if r.len() > 256 => Some(false),
        None => more,
    }
}

/// Whether `s` (from a `{`) is `{"tool_calls": []}` and nothing but whitespace after it: the call
/// wrapper with no call, which Qwen3-Coder on llama.cpp writes as a whole reply
/// (ggml-org/llama.cpp#15012). Offered tools and nothing else in the reply make it markup,
/// removed with nothing reported (it holds no call); after prose or in code it is an example.
/// `None`: `s` may still grow into it.
pub fn empty_tool_calls(s: &str) -> Option<bool> {
    let mut r = s;
    for lit in ["{", TOOL_CALLS, ":", "[", "]", "}"] {
        let t = r.trim_start();
        match t.strip_prefix(lit) {
            Some(after) => r = after,
            None if t.len() < lit.len() && lit.starts_with(t) => return None,
            None => return Some(false),
        }
    }
    Some(r.trim().is_empty())
}

/// After `{"tool_calls"`: `:` then an array that opens a call ([`opens_call`]).
fn tool_calls_head(rest: &str, tools: Option<&Value>, full: bool) -> Option<bool> {
    let t = rest.trim_start();
    match t.strip_prefix(':') {
        Some(r) if r.trim_start().starts_with('[') => opens_call(r.trim_start(), tools, full),
        Some(r) if r.trim_start().is_empty() && !full => None,
        None if t.is_empty() && !full => None,
        _ => Some(false),
    }
}

/// After `{"tool_uses"`: `: [{"recipient_name": "functions.N"` with `N` offered.
fn tool_uses_head(rest: &str, tools: Option<&Value>, more: Option<bool>) -> Option<bool> {
    let mut r = rest;
    for lit in [":", "[", "{", "\"recipient_name\"", ":", "\""] {
        let t = r.trim_start();
        match t.strip_prefix(lit) {
            Some(after) => r = after,
            None if t.len() < lit.len() && lit.starts_with(t) => return more,
            None => return Some(false),
        }
    }
    match r.find(['"', '\\', '\n']) {
        Some(i) if r.as_bytes()[i] == b'"' => {
            let name = &r[..i];
            let name = name.strip_prefix("functions.").unwrap_or(name);
            Some(resolve(tools, name).is_some())
        }
        Some(_) => Some(false),
        None if r.len() > 256 => Some(false),
        None => more,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_head_must_name_an_offered_tool() {
        let tools = json!([{"type": "function", "function": {"name": "read_file"}}]);
        let t = Some(&tools);
        assert_eq!(opens_call("{\"name\": \"read_file\"", t, false), Some(true));
        assert_eq!(
            opens_call("[ {\"name\":\"read file\"", t, false),
            Some(true)
        );
        assert_eq!(opens_call("{\"name\": \"write\"", t, false), Some(false));
        assert_eq!(opens_call("{\"data\": 1}", t, false), Some(false));
        assert_eq!(opens_call("{\"na", t, false), None);
        assert_eq!(opens_call("{\"na", t, true), Some(false));
        assert_eq!(opens_call("{{{{", t, false), Some(false));
        assert_eq!(
            opens_call("{\"type\": \"function\", \"name\": \"read_file\"", t, false),
            Some(true)
        );
    }

    #[test]
    fn only_offered_names_are_calls() {
        let tools = json!([{"name": "get_weather"}]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "a {\"name\": \"get weather\", \"arguments\": {\"city\": \"北京\"}} b \
                 {\"name\": \"other\", \"arguments\": {}}";
        let p = parse(t, &cx);
        assert_eq!(
            p.call_pairs(),
            [("get_weather".into(), r#"{"city":"北京"}"#.into())]
        );
        assert!(parse(t, &Ctx::default()).blocks.is_empty());
    }

    /// Every rule of this branch on adversarial replies, with tools offered (the rules that need
    /// them) and without: time grows linearly.
    #[test]
    fn leak_rules_grow_linearly_on_adversarial_replies() {
        use crate::response::linearity::assert_linear;
        use crate::response::{clean_response, Options};
        let tools = json!([{"type": "function", "function": {"name": "read_file"}}]);
        let with_tools = |text: &str| {
            let o = Options {
                tools: Some(tools.clone()),
                ..Options::default()
            };
            let c = clean_response(text, &o);
            assert!(c.content.len() <= text.len());
        };
        let bare = |text: &str| {
            let c = clean_response(text, &Options::default());
            assert!(c.content.len() <= text.len());
        };
        let mistral = |text: &str| {
            let o = Options {
                model: Some("mistralai/Ministral-8B-Instruct-2410".into()),
                ..Options::default()
            };
            let c = clean_response(text, &o);
            assert!(c.content.len() <= text.len());
        };
        for unit in [
            "{\"name\": \"read_file\", ",
            "{\"name\": \"read_file\", \"arguments\": {\"a\": \"",
            "[{\"name\": \"read_file\", \"arguments\": {",
            "{{{{[[[[",
            "{\"name\": \"read_file\", \"arguments\": {}} ",
            "<functioncall {\"name\": \"read_file\", \"arguments\": {}} ",
            "<functioncall ",
            "assistant to=functions.read_file json{\"a\": ",
            "to=functions.read_file {",
            "commentary to=functions.read_file ",
            "{\"tool_uses\": [{\"recipient_name\": \"functions.read_file\", ",
            "read_file{\"path\": \"",
            "read_file{",
            "read_fil",
            "Called Tool: 'read_file' with arguments: {'path': '",
            "Called Tool: 'read_file' with arguments: ",
            "Called Tool: 'read_fi",
            "执行：read_file{\"path\": \"a\"} ",
            "{\"arguments\": {\"path\": \"a\"}, ",
            "{\"tool_name\": \"read_file\", \"tool_input\": {",
            "<function_calls>\n[{\"tool_name\": \"read_file\", \"arguments\": {",
            "<function_calls>\n[{\"name\": \"read_file\", \"arguments\": {}}]\n</function_calls>\n",
            // DSML tags named after the tool (dsml_named).
            "<｜DSML｜read_file><｜DSML｜path>",
            "<｜DSML｜read_file>\n<path>a</path>",
            "<｜DSML｜read_file><｜DSML｜path>a</｜DSML｜parameter></｜DSML｜invoke>",
            "<｜DSML｜read_fi",
            // The "tool" key, Gemma's glued notation, and calls cut by the end of the reply.
            "{\"tool\": \"read_file\", \"arguments\": {\"a\": \"",
            "{\"tool\": \"read_file\", ",
            "read_file{path:<|\"|>北京",
            "Action: read_file\nAction Input: {\"path\": \"",
            // GLM-4's name alone on its line, the object on the next (glm4_line).
            "read_file\n{\"path\": \"",
            "read_file\n{",
            "read_file\r\n",
            "\nread_file\n",
            "default_api:read_file{path:",
            // Gemma's `call:NAME({json})` and Mistral's `NAME[ARGS]{json}`, tokens stripped.
            "call:read_file({\"path\": \"北京",
            "call:read_file(",
            "read_file[ARGS]{\"path\": \"北京",
            "read_file[AR",
            // Mistral's id form and Gemma's call whose `)` never comes, tokens stripped.
            "read_file[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"北京",
            "read_file[CALL_ID]a1B2c3D4e[AR",
            "read_file[CALL_ID]a1B2",
            "call:read_file({\"path\": \"北京\"} 好",
            // Cut calls inside their wrapper.
            "<tool_use>\n[{\"name\": \"read_file\", \"input\": {\"a\": \"",
            "<function_calls>\n[ ",
            // Devstral's wrapper, and call-shaped values inside JSON data (stream/json_data.rs).
            "{\"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"a\": \"",
            "{\"k\": [{\"name\": \"read_file\", \"arguments\": {}}, ",
            // GLM heads: the name glued to its first key, a word that is not ASCII.
            "<tool_call>read_filepath</arg_key><arg_value>北京",
            "<tool_call>读取文件\n",
        ] {
            assert_linear("tool_json", unit, &with_tools);
        }
        for unit in [
            "<function=f>\n<parameter=a>",
            "<function=f>\n<parameter=a>1</parameter></function>\n</tool_call>\n",
            "</tool_call>\n",
            "x </minimax:tool_call> ",
            "<function_calls><invoke name=\"f\">",
            "<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>",
            "<|open|>call tool=\"f\"<|sep|>",
            "function<｜tool▁sep｜>f\n```json\n{\"a\": ",
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜>",
            "<|FunctionCallBegin|>[{\"name\": \"f\", ",
            "<|open|>response<|sep|>x",
            "functions.f:0<|tool_call_argument_begin|>{\"a\": ",
            "<|reserved_token_163595|><|reserved_token_163597|>functions.f:0<|reserved_token_163598|>{",
        ] {
            assert_linear("leaks", unit, &bare);
        }
        assert_linear("mistral array", "[{\"name\": \"f\", ", &mistral);
    }
}
