//! The JS shape of [`clean_response`]'s options and result (`cleanResponse` in index.d.ts): option
//! validation with errors that name the option, and OpenAI's `tool_calls` shape on the way out.

use super::{Cleaned, Mode, Options};
use serde_json::{json, Value};

fn mode(v: Option<&Value>, name: &str) -> Result<Mode, String> {
    match v {
        None | Some(Value::Null) => Ok(Mode::Extract),
        Some(Value::String(s)) => match s.as_str() {
            "extract" => Ok(Mode::Extract),
            "strip" => Ok(Mode::Strip),
            "keep" => Ok(Mode::Keep),
            other => Err(format!(
                "options.{name}: expected 'extract', 'strip' or 'keep', got {other:?}"
            )),
        },
        Some(other) => Err(format!("options.{name}: expected a string, got {other}")),
    }
}

fn opt_string(v: Option<&Value>, name: &str) -> Result<Option<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("options.{name}: expected a string, got {other}")),
    }
}

/// Reads `{format, model, tools, toolCalls, thinking, reasoningOpen}`.
pub fn options_from_json(v: &Value) -> Result<Options, String> {
    let tools = match v.get("tools") {
        None | Some(Value::Null) => None,
        Some(t @ Value::Array(_)) => Some(t.clone()),
        Some(_) => return Err("options.tools: expected an array of OpenAI function tools".into()),
    };
    Ok(Options {
        format: opt_string(v.get("format"), "format")?,
        model: opt_string(v.get("model"), "model")?,
        tools,
        tool_calls: mode(v.get("toolCalls"), "toolCalls")?,
        thinking: mode(v.get("thinking"), "thinking")?,
        reasoning_open: match v.get("reasoningOpen") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                return Err(format!(
                    "options.reasoningOpen: expected a boolean, got {other}"
                ))
            }
        },
        structured_calls: match v.get("structuredToolCalls") {
            None | Some(Value::Null) => super::shadow::Shadows::default(),
            Some(s) => super::shadow::Shadows::from_json(s)?,
        },
        markup_in_code: v.get("markupInCode").and_then(Value::as_bool) == Some(true),
    })
}

/// `{content, toolCalls: [{id, type: 'function', function: {name, arguments}}], reasoning, format, problems}`.
pub fn cleaned_to_json(c: &Cleaned) -> Value {
    let calls: Vec<Value> = c
        .tool_calls
        .iter()
        .map(|t| json!({"id": t.id, "type": "function", "function": {"name": t.name, "arguments": t.arguments}}))
        .collect();
    json!({
        "content": c.content,
        "toolCalls": calls,
        "reasoning": c.reasoning,
        "format": c.format,
        "problems": c.problems,
        "problemKinds": super::problem::kinds(&c.problems),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_modes_name_the_option() {
        let e = options_from_json(&json!({"toolCalls": "drop"}))
            .err()
            .unwrap_or_default();
        assert!(e.contains("options.toolCalls"), "{e}");
        let e = options_from_json(&json!({"thinking": 3}))
            .err()
            .unwrap_or_default();
        assert!(e.contains("options.thinking"), "{e}");
        assert!(options_from_json(&json!({"tools": {}})).is_err());
        let o = options_from_json(&json!({"toolCalls": "strip", "format": "hermes"}))
            .unwrap_or_default();
        assert_eq!(o.tool_calls, Mode::Strip);
        assert_eq!(o.format.as_deref(), Some("hermes"));
    }

    #[test]
    fn result_uses_openai_tool_call_shape() {
        let c = super::super::clean_response(
            "Hi<tool_call>{\"name\": \"read\", \"arguments\": {\"p\": 1}}</tool_call>",
            &Options::default(),
        );
        let v = cleaned_to_json(&c);
        assert_eq!(v["content"], "Hi");
        assert_eq!(v["toolCalls"][0]["type"], "function");
        assert_eq!(v["toolCalls"][0]["function"]["name"], "read");
        assert_eq!(v["toolCalls"][0]["function"]["arguments"], "{\"p\":1}");
        assert_eq!(v["format"], "hermes");
    }
}
