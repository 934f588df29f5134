//! A call written as an offered tool's name glued to a JSON object of its arguments:
//! `让我正确执行：exec{"command": "ls -la"}`.
//!
//! Why: with the call markup lost (a model that imitates the transcript's rendering of earlier
//! calls, or a server that stripped the special tokens around `NAME` and `{…}`), some models write
//! a call as the bare tool name followed directly by its arguments object, in the middle of a
//! sentence (OpenClaw#39626, in Chinese). A person reading the chat sees a command that never ran.
//!
//! The evidence must be strong, because a word followed by braces is also code people write
//! (`fn{`, `exec{…}` in a DSL): the word is exactly the name of a tool the request offered
//! (`options.tools`), glued to the `{` (no space), not part of a longer word; the braces hold one
//! complete JSON object; and when the tool has a JSON schema, every key of the object is one of
//! its `properties` and every `required` one is there (without a schema, the object must not be
//! empty). Inline code and fenced examples never get here (the stream machine treats them as
//! text). In a stream, a trailing word that may still become such a name is held back (at most as
//! long as the longest tool name), so a streamed reply is cut exactly as the whole one.

use serde_json::{Map, Value};

use super::bare_json::{names, offered, schema};
use super::json_calls::read_value;
use super::scan::{balanced_end, Budget};
use super::{args_value_to_text, Block, RawCall};

/// The bytes a tool name may hold here: ASCII letters, digits, `_`, `-` and `.`.
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The length of the run of [`name_byte`]s that ends `text`, when it is no longer than the
/// longest offered name (only that much is looked at, so a stream asking again at the same `{`
/// is not charged for a long run each time).
fn word_run(text: &str, tools: Option<&Value>) -> Option<usize> {
    let longest = names(tools).map(str::len).max()?;
    let run = text
        .as_bytes()
        .iter()
        .rev()
        .take(longest + 1)
        .take_while(|&&b| name_byte(b))
        .count();
    (run <= longest).then_some(run)
}

/// The start of the word that ends `before` (the maximal run of [`name_byte`]s), when that word
/// is exactly an offered tool's name.
pub fn name_before(before: &str, tools: Option<&Value>) -> Option<usize> {
    let start = before.len() - word_run(before, tools)?;
    // A name starts with a letter or `_` (`3{`, `-{` are not calls).
    let first = *before.as_bytes().get(start)?;
    ((first.is_ascii_alphabetic() || first == b'_') && offered(tools, &before[start..]))
        .then_some(start)
}

/// Where a word at the end of `text` that may still grow into an offered tool's name starts
/// (`None`: no such word). Only a run no longer than the longest offered name is considered.
pub fn partial_name_start(text: &str, tools: Option<&Value>) -> Option<usize> {
    let start = text.len() - word_run(text, tools)?;
    let word = &text[start..];
    (!word.is_empty() && names(tools).any(|n| n.starts_with(word))).then_some(start)
}

/// Whether `args` fit the offered tool `name`'s parameters: never an empty object; with a schema,
/// every `required` key is present and, when it lists `properties`, every key is one of them.
pub fn fits(tools: Option<&Value>, name: &str, args: &Map<String, Value>) -> bool {
    if args.is_empty() {
        return false;
    }
    let Some(params) = schema(tools, name) else {
        return true;
    };
    let required_there = params
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .all(|k| args.contains_key(k))
        });
    let keys_known = params
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|props| args.keys().all(|k| props.contains_key(k)));
    required_there && keys_known
}

/// The call of the object at `at` (`text[at]` is `{`, its value ends at `end`) after the offered
/// tool named `text[name_at..at]`, when the object fits the tool.
pub fn call_at(
    text: &str,
    name_at: usize,
    at: usize,
    end: usize,
    tools: Option<&Value>,
) -> Option<RawCall> {
    let (Value::Object(args), e) = read_value(&text[..end], at)? else {
        return None;
    };
    let name = &text[name_at..at];
    (e == end && fits(tools, name, &args)).then(|| RawCall {
        name: name.to_owned(),
        arguments: args_value_to_text(Value::Object(args), "named_json", &mut Vec::new()),
        id: None,
    })
}

/// Every `NAME{…}` call in `text` (the reading [`super::tool_json::parse`] adds to bare JSON).
pub fn blocks(text: &str, tools: Option<&Value>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut budget = Budget::for_text(text);
    let mut skip_to = 0;
    for at in memchr::memchr_iter(b'{', text.as_bytes()) {
        if at < skip_to {
            continue;
        }
        let Some(name_at) = name_before(&text[..at], tools) else {
            continue;
        };
        let Some(end) = balanced_end(text, at, false) else {
            if !budget.charge(text.len() - at) {
                break;
            }
            continue;
        };
        if !budget.charge(end - at) {
            break;
        }
        if let Some(call) = call_at(text, name_at, at, end, tools) {
            out.push(Block {
                start: name_at,
                end,
                calls: vec![call],
                keep_raw: false,
            });
            skip_to = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Value {
        json!([
            {"type": "function", "function": {"name": "exec", "parameters": {"type": "object",
                "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
                "required": ["command"]}}},
            {"name": "note"}
        ])
    }

    #[test]
    fn the_name_is_a_whole_offered_word() {
        let t = tools();
        let t = Some(&t);
        assert_eq!(
            name_before("让我正确执行：exec", t),
            Some("让我正确执行：".len())
        );
        assert_eq!(name_before("run exec", t), Some(4));
        assert_eq!(name_before("myexec", t), None);
        assert_eq!(name_before("exe", t), None);
        assert_eq!(name_before("exec", None), None);
        assert_eq!(partial_name_start("执行：ex", t), Some("执行：".len()));
        assert_eq!(partial_name_start("执行：exec", t), Some("执行：".len()));
        assert_eq!(partial_name_start("执行：exex", t), None);
        assert_eq!(partial_name_start("a ", t), None);
    }

    #[test]
    fn the_object_must_fit_the_schema() {
        let t = tools();
        let t = Some(&t);
        let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(fits(t, "exec", &obj(json!({"command": "ls"}))));
        assert!(!fits(t, "exec", &obj(json!({"cmd": "ls"}))));
        assert!(!fits(t, "exec", &obj(json!({"timeout": 3}))));
        assert!(fits(t, "note", &obj(json!({"text": "x"}))));
        assert!(!fits(t, "note", &obj(json!({}))));
    }

    #[test]
    fn blocks_start_at_the_name() {
        let t = tools();
        let text = "让我正确执行：exec{\"command\": \"ls\"} 然后 exec{\"cmd\": 1} exec {\"command\": \"x\"}";
        let b = blocks(text, Some(&t));
        assert_eq!(b.len(), 1);
        assert_eq!(&text[b[0].start..b[0].end], "exec{\"command\": \"ls\"}");
        assert_eq!(b[0].calls[0].arguments, r#"{"command":"ls"}"#);
    }
}
