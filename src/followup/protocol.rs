//! The three wire protocols a gateway speaks, and how each carries tool results: chat completions
//! (`role: "tool"` messages), Responses (`function_call_output` items) and Anthropic messages (one
//! user message of `tool_result` blocks, right after the assistant's `tool_use` blocks).

use super::pairing::{Item, Order};
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `/v1/chat/completions`.
    #[default]
    Chat,
    /// `/v1/responses`.
    Responses,
    /// `/v1/messages`.
    Anthropic,
}

impl Protocol {
    pub fn parse(name: Option<&str>) -> Result<Protocol, String> {
        match name {
            None | Some("chat") => Ok(Protocol::Chat),
            Some("responses") => Ok(Protocol::Responses),
            Some("anthropic") => Ok(Protocol::Anthropic),
            Some(other) => Err(format!(
                "protocol: expected 'chat', 'responses' or 'anthropic', got {other:?}"
            )),
        }
    }

    /// The messages (items) that carry the results, and where each result's content goes.
    pub fn result_messages(
        self,
        order: &Order,
        text: &str,
    ) -> (Vec<Value>, Vec<(Vec<Value>, usize)>) {
        let mut out = Vec::new();
        let mut fills = Vec::new();
        match self {
            Protocol::Chat | Protocol::Responses => {
                for item in &order.items {
                    let (id, name, content) = parts(item, text);
                    let mut m = Map::new();
                    let slot = if self == Protocol::Chat {
                        m.insert("role".into(), json!("tool"));
                        m.insert("tool_call_id".into(), json!(id));
                        if let Some(n) = name {
                            m.insert("name".into(), json!(n));
                        }
                        "content"
                    } else {
                        m.insert("type".into(), json!("function_call_output"));
                        m.insert("call_id".into(), json!(id));
                        "output"
                    };
                    m.insert(slot.into(), content);
                    if let Item::Result { result, .. } = item {
                        fills.push((vec![json!(out.len()), json!(slot)], *result));
                    }
                    out.push(Value::Object(m));
                }
            }
            Protocol::Anthropic => {
                let mut blocks = Vec::new();
                for item in &order.items {
                    let (id, _, content) = parts(item, text);
                    let mut b =
                        json!({"type": "tool_result", "tool_use_id": id, "content": content});
                    match item {
                        Item::Result { result, .. } => fills.push((
                            vec![
                                json!(0),
                                json!("content"),
                                json!(blocks.len()),
                                json!("content"),
                            ],
                            *result,
                        )),
                        Item::Synthetic { .. } => b["is_error"] = json!(true),
                    }
                    blocks.push(b);
                }
                if !blocks.is_empty() {
                    out.push(json!({"role": "user", "content": blocks}));
                }
            }
        }
        (out, fills)
    }
}

/// Id, name and content (null where JS fills in the result) of one item.
fn parts<'a>(item: &'a Item, text: &str) -> (&'a str, Option<&'a str>, Value) {
    match item {
        Item::Result { id, name, .. } => (id, name.as_deref(), Value::Null),
        Item::Synthetic { id, name } => (id, name.as_deref(), json!(text)),
    }
}
