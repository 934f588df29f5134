//! Server-side tool follow-ups (issue #5): a gateway that runs a tool itself (`web_search`) must send
//! the model a third request carrying the tool's results. Built from a body that pre-processing
//! already changed, or by trusting an inner layer to order the messages, that request repeats
//! injected prompts and breaks the pairing between calls and results (seed 002). This module
//! decides that request for the chat, Responses and Anthropic protocols, and what the client may
//! see of the assistant's calls.
//!
//! Only a skeleton crosses from JS (ids, names, keys, tool names): the messages, the assistant
//! and the results (a tool output can be megabytes) stay JS objects. The answer is a small plan
//! (keys to drop, tools to keep, objects to append, where each result's content goes), which
//! js/followup.js applies generically.

pub mod pairing;
pub mod protocol;
pub mod strip;

use serde_json::{json, Value};

pub use protocol::Protocol;

/// The skeleton of a `buildServerToolFollowup` call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Followup {
    pub protocol: Protocol,
    /// Names of the tools the gateway runs itself.
    pub server_tools: Vec<String>,
    /// Answer a call that has no result with a synthetic error result instead of failing.
    pub synthesize: bool,
    pub synthetic_text: Option<String>,
    /// Top-level keys of `original`, in order.
    pub keys: Vec<String>,
    /// Keys of `original.parameters` when it is an object: the canonical chat envelope of a
    /// gateway (`{model, messages, tools, parameters}`) keeps `stream` and `tool_choice` there.
    pub parameter_keys: Option<Vec<String>>,
    /// Responses only: `original.input` is a string (it becomes a user message item).
    pub input_is_string: bool,
    /// The name of each entry of `original.tools` (`None` when it has none).
    pub tools: Option<Vec<Option<String>>>,
    /// Tool-call ids already in the original's messages, and ids already answered there.
    pub history_calls: Vec<String>,
    pub history_results: Vec<String>,
    /// The assistant's calls (`id`, `name`), in order; `None` for a missing or non-string id.
    pub calls: Vec<(Option<String>, Option<String>)>,
    /// The results' `toolCallId`s, in order.
    pub results: Vec<Option<String>>,
}

/// What JS does to build the follow-up: see [`plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Keys of `original` not copied (`tools` too when only server tools were in it).
    pub drop: Vec<&'static str>,
    /// Keys of `original.parameters` not copied (the follow-up gets a copy without them).
    pub drop_parameters: Vec<&'static str>,
    /// Indices of `original.tools` kept (`None`: the key is absent or not an array).
    pub keep_tools: Option<Vec<usize>>,
    /// Responses: the item that replaces a string `input`.
    pub prepend: Vec<Value>,
    pub append_assistant: bool,
    /// New messages (or items) appended after the assistant; results' contents are filled in JS.
    pub append: Vec<Value>,
    /// `(path inside append, result index)`: where `toolResults[i].content` goes, as a string.
    pub fills: Vec<(Vec<Value>, usize)>,
}

/// A pairing error, naming the call id it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingError {
    pub id: Option<String>,
    pub message: String,
}

/// The default text of a synthetic result for a call the gateway has no result for.
pub const DEFAULT_SYNTHETIC_TEXT: &str =
    "No result was produced for this tool call; it was not run or its result was lost.";

/// Keys a follow-up never carries: it must not stream (the gateway re-streams the outer answer)
/// and must not force another tool call.
pub const DROPPED_KEYS: &[&str] = &["stream", "stream_options", "tool_choice"];

/// Decides the follow-up request.
pub fn plan(f: &Followup) -> Result<Plan, PairingError> {
    let order = pairing::order(f)?;
    let present = |keys: &[String]| -> Vec<&'static str> {
        DROPPED_KEYS
            .iter()
            .copied()
            .filter(|k| keys.iter().any(|have| have == k))
            .collect()
    };
    let mut drop = present(&f.keys);
    let drop_parameters = f.parameter_keys.as_deref().map(present).unwrap_or_default();
    let mut keep_tools = f.tools.as_ref().map(|names| {
        names
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.as_ref().is_some_and(|n| f.server_tools.contains(n)))
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    });
    // Providers reject an empty `tools` array: when only server tools were there, the key goes.
    if keep_tools.as_ref().is_some_and(|k| k.is_empty()) {
        keep_tools = None;
        drop.push("tools");
    }
    let prepend = if f.protocol == Protocol::Responses && f.input_is_string {
        vec![json!({"role": "user", "content": null})]
    } else {
        Vec::new()
    };
    let text = f
        .synthetic_text
        .as_deref()
        .unwrap_or(DEFAULT_SYNTHETIC_TEXT);
    let (append, fills) = f.protocol.result_messages(&order, text);
    Ok(Plan {
        drop,
        drop_parameters,
        keep_tools,
        prepend,
        append_assistant: order.append_assistant,
        append,
        fills,
    })
}

/// The plan as JSON for js/followup.js.
pub fn plan_to_json(p: &Plan) -> Value {
    json!({
        "drop": p.drop,
        "dropParameters": p.drop_parameters,
        "keepTools": p.keep_tools,
        "prepend": p.prepend,
        "appendAssistant": p.append_assistant,
        "append": p.append,
        "fills": p.fills.iter().map(|(path, i)| json!({"path": path, "result": i})).collect::<Vec<_>>(),
    })
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Reads the skeleton js/followup.js writes.
pub fn followup_from_json(v: &Value) -> Result<Followup, String> {
    let protocol = Protocol::parse(v.get("protocol").and_then(Value::as_str))?;
    let list = |k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    Ok(Followup {
        protocol,
        server_tools: strings(v.get("serverTools")),
        synthesize: v.get("onMissing").and_then(Value::as_str) == Some("synthesize"),
        synthetic_text: v.get("syntheticText").and_then(opt_str),
        keys: strings(v.get("keys")),
        parameter_keys: v
            .get("parameterKeys")
            .filter(|k| k.is_array())
            .map(|k| strings(Some(k))),
        input_is_string: v.get("inputIsString").and_then(Value::as_bool) == Some(true),
        tools: v
            .get("tools")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(opt_str).collect()),
        history_calls: strings(v.get("historyCalls")),
        history_results: strings(v.get("historyResults")),
        calls: list("calls")
            .iter()
            .map(|c| (c.get(0).and_then(opt_str), c.get(1).and_then(opt_str)))
            .collect(),
        results: list("results").iter().map(opt_str).collect(),
    })
}

#[cfg(test)]
mod tests;
