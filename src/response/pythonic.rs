//! Pythonic calls (reference §10): Llama-3.2's pythonic template, ToolACE and LFM2 write a Python
//! list of calls, `[get_weather(city="London", units="celsius"), get_time()]`; LFM2 wraps it in
//! `<|tool_call_start|>…<|tool_call_end|>`. Arguments are Python literals ([`super::pyliteral`]).
//!
//! A list of calls looks like ordinary code, so this family is read only when `options.format` is
//! `pythonic` or `options.model` names ToolACE or LFM2 (never in plain `auto`). Where the engines
//! disagree (vLLM requires the whole reply to be the list; SGLang and smg find it inside prose and
//! keep the prose), this follows SGLang and smg: a list anywhere in the text is read, the prose on
//! both sides is kept, and a Markdown fence around the list goes with it. A list that does not read
//! completely (truncated, positional arguments) is left in the text; inside the LFM2 wrapper it is
//! reported. The shared readers here ([`wrapped`], [`add_bare`]) also serve [`super::llama4_pythonic`] and [`super::olmo3`].

use super::json_calls::{calls_of_value, is_call_object};
use super::pyliteral::{call, call_list};
use super::scan::{find_from, widen_to_fence, Budget, Finder};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "pythonic";
const LFM2_OPEN: &str = "<|tool_call_start|>";
const LFM2_CLOSE: &str = "<|tool_call_end|>";

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = wrapped(text, LFM2_OPEN, LFM2_CLOSE, NAME, &mut out.problems);
    add_bare(text, &mut out);
    out.set_format_if_calls(NAME);
    out
}

/// Add the bare call lists found outside the blocks already in `out`.
pub fn add_bare(text: &str, out: &mut Parsed) {
    let mut found = Vec::new();
    for (s, e) in out.gaps(text.len()) {
        for mut b in bare(&text[s..e]) {
            b.start += s;
            b.end += s;
            found.push(b);
        }
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
}

/// Every complete call list `[f(…), …]` in `text`, each with a Markdown fence around it.
pub fn bare(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut budget = Budget::for_text(text);
    let mut skip_to = 0;
    for at in memchr::memchr_iter(b'[', text.as_bytes()) {
        if at < skip_to {
            continue;
        }
        // Only `[` followed by a name and `(` can start a call list.
        let rest = text[at + 1..].trim_start();
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(rest.len());
        if name_len == 0 || !rest[name_len..].trim_start().starts_with('(') {
            continue;
        }
        let Some(end) = budget.balanced_end(text, at, true) else {
            if budget.spent() {
                break;
            }
            continue;
        };
        if let Some((calls, stop)) = call_list(&text[..end], at) {
            let (start, stop) = widen_to_fence(text, at, stop);
            blocks.push(Block {
                start,
                end: stop,
                calls,
                keep_raw: false,
            });
            skip_to = stop;
        }
    }
    blocks
}

/// `OPEN calls CLOSE` blocks, where calls is a list or one call per line (Olmo-3). A missing
/// `CLOSE` runs to the end of the text (reported); a body that does not read is kept as text.
pub fn wrapped(
    text: &str,
    open: &str,
    close: &str,
    name: &str,
    problems: &mut Vec<String>,
) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut closes = Finder::new(close);
    let mut at = 0;
    while let Some(start) = find_from(text, open, at) {
        let body_at = start + open.len();
        let (body_end, end) = match closes.find(text, body_at) {
            Some(c) => (c, c + close.len()),
            None => {
                problems.push(format!("{name}: {close} missing (truncated reply)"));
                (text.len(), text.len())
            }
        };
        let body = &text[body_at..body_end];
        let calls = read_body(body);
        blocks.push(Block::of_calls(start, end, calls, problems, || {
            format!("{name}: call block does not read as Python calls; raw text kept in content")
        }));
        at = end.max(body_at);
    }
    blocks
}

/// A list of calls, or calls one after another (newline- or comma-separated), or the JSON form
/// some templates write inside the same wrapper (LFM2's JSON tool format, Llama 4 with Llama-3
/// JSON: `[{"name": …, "arguments": {…}}]` or one such object); all of the body must read
/// (trailing whitespace aside), otherwise no call.
fn read_body(body: &str) -> Vec<RawCall> {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body.trim()) {
        let shaped = match &v {
            serde_json::Value::Object(o) => is_call_object(o, None),
            serde_json::Value::Array(items) => {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|i| i.as_object().is_some_and(|o| is_call_object(o, None)))
            }
            _ => false,
        };
        return if shaped {
            calls_of_value(v, "pythonic", None, &mut Vec::new())
        } else {
            Vec::new()
        };
    }
    if let Some((calls, end)) = call_list(body, 0) {
        if body[end..].trim().is_empty() {
            return calls;
        }
        return Vec::new();
    }
    let mut calls = Vec::new();
    let mut pos = 0;
    loop {
        let rest = &body[pos..];
        let skipped = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == ',')
                .len();
        pos += skipped;
        if pos >= body.len() {
            return calls;
        }
        match call(body, pos) {
            Some((c, end)) => {
                calls.push(c);
                pos = end;
            }
            None => return Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn lists_in_prose_keep_the_prose() {
        let t = "Let me check.\n[get_weather(city=\"San Francisco\", metric=True), get_time(tz='Asia/Shanghai')]\nThese will help.";
        let c = run(t, Some("pythonic"), None, None);
        assert_eq!(c.format, Some("pythonic"));
        assert_eq!(c.content, "Let me check.\nThese will help.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"city": "San Francisco", "metric": true})
                ),
                ("get_time", json!({"tz": "Asia/Shanghai"}))
            ]
        );
    }

    #[test]
    fn values_with_special_characters_and_nesting() {
        let t = "[run(code='if a < b && c > d:\\n    print(\"北京 🚀\")', labels=[\"row[0]\", None], opts={'k': (1, 2.5)})]";
        let c = run(t, None, Some("liquid/LFM2-1.2B"), None);
        assert_eq!(
            named(&c),
            [(
                "run",
                json!({"code": "if a < b && c > d:\n    print(\"北京 🚀\")", "labels": ["row[0]", null], "opts": {"k": [1, 2.5]}})
            )]
        );
        assert_eq!(c.content, "");
    }

    #[test]
    fn lfm2_wrapper_and_truncation() {
        let t = "Sure <|tool_call_start|>[f(a=1)]<|tool_call_end|> done";
        let c = run(t, Some("pythonic"), None, None);
        assert_eq!(named(&c), [("f", json!({"a": 1}))]);
        assert_eq!(c.content, "Sure done");
        let t = "Sure <|tool_call_start|>[f(a='cut";
        let c = run(t, Some("pythonic"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "Sure");
        assert_eq!(c.problems.len(), 2);
        // A bare truncated list is simply text.
        let c = run("[f(a='cut", Some("pythonic"), None, None);
        assert_eq!(c.content, "[f(a='cut");
    }

    #[test]
    fn never_in_plain_auto() {
        let t = "Example: [get_weather(city=\"London\")]";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, t);
        let c = run(t, None, Some("openai/gpt-4o"), None);
        assert!(c.tool_calls.is_empty());
    }

    #[test]
    fn fenced_list_and_markdown_links_are_not_confused() {
        let t = "See [the docs](http://x) and:\n```python\n[f(x=1)]\n```\n";
        let c = run(t, Some("pythonic"), None, None);
        assert_eq!(named(&c), [("f", json!({"x": 1}))]);
        assert_eq!(c.content, "See [the docs](http://x) and:");
        // A fenced example with prose after it stays as written.
        let example = format!("{t}ok");
        let c = run(&example, Some("pythonic"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, example);
    }
}
