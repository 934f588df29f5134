//! What the client sees of the assistant's answer: the calls of tools the gateway ran itself are
//! removed, the client's own calls kept (the mixed case), in any of the three protocols.

use serde_json::{json, Value};

/// The lists of an assistant answer that can hold tool calls, as JS reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Chat: the function name of each `tool_calls` entry.
    pub tool_calls: Option<Vec<Option<String>>>,
    /// Anthropic: `(type, name)` of each `content` block.
    pub content: Option<Vec<(Option<String>, Option<String>)>>,
    /// Responses: `(type, name)` of each output item (`array`: the answer is the item array).
    pub output: Option<Vec<(Option<String>, Option<String>)>>,
    pub array: bool,
}

/// Which list to filter, the indices kept, and whether to delete the key when nothing is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strip {
    /// `tool_calls`, `content`, `output`, or `None` for an answer that is the item array.
    pub key: Option<&'static str>,
    pub keep: Vec<usize>,
    pub delete_if_empty: bool,
}

fn is_server(name: &Option<String>, server: &[String]) -> bool {
    name.as_ref().is_some_and(|n| server.contains(n))
}

fn keep_where<T>(list: &[T], drop: impl Fn(&T) -> bool) -> Option<Vec<usize>> {
    let keep: Vec<usize> = (0..list.len()).filter(|&i| !drop(&list[i])).collect();
    (keep.len() != list.len()).then_some(keep)
}

/// The strip to apply, or `None` when the answer holds no server tool call (it is returned as is).
pub fn strip(a: &Answer, server: &[String]) -> Option<Strip> {
    if let Some(calls) = &a.tool_calls {
        return keep_where(calls, |n| is_server(n, server)).map(|keep| Strip {
            key: Some("tool_calls"),
            keep,
            delete_if_empty: true,
        });
    }
    let call_of = |ty: &'static str| {
        move |(t, n): &(Option<String>, Option<String>)| {
            t.as_deref() == Some(ty) && is_server(n, server)
        }
    };
    if let Some(blocks) = &a.content {
        return keep_where(blocks, call_of("tool_use")).map(|keep| Strip {
            key: Some("content"),
            keep,
            delete_if_empty: false,
        });
    }
    let items = a.output.as_ref()?;
    keep_where(items, call_of("function_call")).map(|keep| Strip {
        key: if a.array { None } else { Some("output") },
        keep,
        delete_if_empty: false,
    })
}

fn pair(v: &Value) -> (Option<String>, Option<String>) {
    let s = |i: usize| v.get(i).and_then(Value::as_str).map(str::to_string);
    (s(0), s(1))
}

/// Reads the skeleton js/followup.js writes: `{toolCalls?, content?, output?, array, serverTools}`.
pub fn answer_from_json(v: &Value) -> (Answer, Vec<String>) {
    let list = |k: &str| v.get(k).and_then(Value::as_array);
    let answer = Answer {
        tool_calls: list("toolCalls")
            .map(|a| a.iter().map(|n| n.as_str().map(str::to_string)).collect()),
        content: list("content").map(|a| a.iter().map(pair).collect()),
        output: list("output").map(|a| a.iter().map(pair).collect()),
        array: v.get("array").and_then(Value::as_bool) == Some(true),
    };
    let server = list("serverTools")
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    (answer, server)
}

pub fn strip_to_json(s: Option<&Strip>) -> Value {
    match s {
        None => Value::Null,
        Some(s) => json!({"key": s.key, "keep": s.keep, "deleteIfEmpty": s.delete_if_empty}),
    }
}
