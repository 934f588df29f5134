//! Shadow text: some servers return a call as structured `tool_calls` **and** leave its markup in
//! the text (vLLM and SGLang with a tool parser that reads the call but does not cut it from
//! `content`, gateways that re-stream the raw text). Read again, that text would run the call a
//! second time. Given the calls the API already returned ([`super::Options::structured_calls`]),
//! a call read from the text that matches one of them (same name, equal arguments as JSON) is not
//! returned again; its markup is removed from `content` like any call's. Each structured call
//! shadows at most one textual call, so a model that really repeats a call still gets the second.

use std::collections::HashMap;

use serde_json::Value;

/// The structured calls not yet matched: how many of each `(name, canonical arguments)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shadows(HashMap<(String, String), usize>);

impl Shadows {
    /// Read `structuredToolCalls`: an array of OpenAI-shaped `{id?, type?, function: {name,
    /// arguments}}` or plain `{name, arguments}` calls, `arguments` a JSON string or a JSON value.
    ///
    /// ```
    /// use serde_json::json;
    /// use transcript_hygiene::response::shadow::Shadows;
    /// let mut s = Shadows::from_json(&json!([
    ///     {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}
    /// ]))
    /// .unwrap();
    /// assert!(s.take("f", r#"{"a":1}"#));
    /// assert!(!s.take("f", r#"{"a":1}"#));
    /// ```
    pub fn from_json(v: &Value) -> Result<Shadows, String> {
        let at = |i: usize, what: &str| format!("options.structuredToolCalls[{i}]: {what}");
        let Value::Array(items) = v else {
            return Err("options.structuredToolCalls: expected an array of tool calls".into());
        };
        let mut out = HashMap::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let f = item.get("function").unwrap_or(item);
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                return Err(at(i, "expected a call with a string name"));
            };
            let args = match f.get("arguments") {
                None | Some(Value::Null) => Value::Object(Default::default()),
                Some(Value::String(s)) => as_json(s),
                Some(v) => v.clone(),
            };
            *out.entry((name.to_owned(), canonical(&args))).or_insert(0) += 1;
        }
        Ok(Shadows(out))
    }

    /// Whether the call `name(arguments)` read from the text is one of the structured calls (that
    /// call is then used up).
    pub fn take(&mut self, name: &str, arguments: &str) -> bool {
        if self.0.is_empty() {
            return false;
        }
        let key = (name.to_owned(), canonical(&as_json(arguments)));
        match self.0.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

/// Arguments text as JSON (an empty text is `{}`; text that is not JSON stays a string).
fn as_json(s: &str) -> Value {
    if s.trim().is_empty() {
        return Value::Object(Default::default());
    }
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_owned()))
}

/// JSON text with every object's keys sorted: equal values give equal texts whatever the key order.
fn canonical(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&m[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}
