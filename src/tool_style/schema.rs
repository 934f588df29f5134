//! Restoring input value types from the tools' JSON schemas. Flattening wrote every value with
//! `String(v)`, so `cwd: null`, `recursive: true` and `line_count: 42` came back as the strings
//! `"null"`, `"true"` and `"42"`. With the tool's schema the type is known and the text converts
//! back exactly; without one, or when the text cannot be the declared type, the value stays the
//! string it is and the caller is told, never a guess. Objects were written as `[object Object]`
//! and are gone for good.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::js_string::js_number;

/// The JSON types a schema allows for one value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Types {
    pub string: bool,
    pub number: bool,
    pub integer: bool,
    pub boolean: bool,
    pub null: bool,
    pub object: bool,
    /// `Some(items)` when arrays are allowed (`items` may allow nothing known).
    pub array: Option<Box<Types>>,
}

impl Types {
    fn known(&self) -> bool {
        self.string
            || self.number
            || self.integer
            || self.boolean
            || self.null
            || self.object
            || self.array.is_some()
    }

    pub fn from_schema(s: &Value) -> Types {
        let mut t = Types::default();
        t.add(s);
        t
    }

    fn add(&mut self, s: &Value) {
        let Some(o) = s.as_object() else { return };
        let mut names: Vec<&str> = match o.get("type") {
            Some(Value::String(n)) => vec![n],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if o.get("nullable") == Some(&Value::Bool(true)) {
            names.push("null");
        }
        for n in names {
            match n {
                "string" => self.string = true,
                "number" => self.number = true,
                "integer" => self.integer = true,
                "boolean" => self.boolean = true,
                "null" => self.null = true,
                "object" => self.object = true,
                "array" => {
                    let items = o.get("items").map(Types::from_schema).unwrap_or_default();
                    self.array = Some(Box::new(items));
                }
                _ => {}
            }
        }
        for k in ["anyOf", "oneOf"] {
            for sub in o.get(k).and_then(Value::as_array).into_iter().flatten() {
                self.add(sub);
            }
        }
    }
}

/// A value read back from its text.
#[derive(Debug, Clone, PartialEq)]
pub enum Restored {
    Value(Value),
    /// The text cannot be restored to the declared type; `kind` says why.
    Lossy(&'static str),
}

pub const OBJECT_LOST: &str = "object_lost";
pub const TYPE_MISMATCH: &str = "type_mismatch";

fn number(text: &str, integer_only: bool) -> Option<Value> {
    let x: f64 = text.parse().ok()?;
    if !x.is_finite() || js_number(x) != text || (integer_only && x.fract() != 0.0) {
        return None;
    }
    serde_json::Number::from_f64(x).map(|n| {
        if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
            Value::from(x as i64)
        } else {
            Value::Number(n)
        }
    })
}

/// [`restore`] without a schema, without copying the text: `Value(Null)` stands for "the text".
pub fn restore_untyped(text: &str) -> Restored {
    if text.contains("[object Object]") {
        Restored::Lossy(OBJECT_LOST)
    } else {
        Restored::Value(Value::String(String::new()))
    }
}

/// The value `text` stands for, given the types its schema allows (`None`: no schema).
pub fn restore(text: &str, types: Option<&Types>) -> Restored {
    let t = match types {
        Some(t) if t.known() => t,
        _ => {
            return if text.contains("[object Object]") {
                Restored::Lossy(OBJECT_LOST)
            } else {
                Restored::Value(Value::String(text.into()))
            }
        }
    };
    if t.null && text == "null" {
        return Restored::Value(Value::Null);
    }
    if t.string {
        return Restored::Value(Value::String(text.into()));
    }
    if t.boolean && (text == "true" || text == "false") {
        return Restored::Value(Value::Bool(text == "true"));
    }
    if t.number || t.integer {
        if let Some(v) = number(text, !t.number) {
            return Restored::Value(v);
        }
    }
    if text.contains("[object Object]") {
        return Restored::Lossy(OBJECT_LOST);
    }
    if let Some(items) = &t.array {
        if text.is_empty() {
            return Restored::Value(Value::Array(Vec::new()));
        }
        let mut out = Vec::new();
        for part in text.split(',') {
            match restore(part, Some(items)) {
                Restored::Value(v) => out.push(v),
                lossy => return lossy,
            }
        }
        return Restored::Value(Value::Array(out));
    }
    Restored::Lossy(TYPE_MISMATCH)
}

/// The tools of `options.tools`: Anthropic (`name`, `input_schema`), OpenAI chat
/// (`function.name`, `function.parameters`) or bare (`name`, `parameters`).
#[derive(Debug, Clone, Default)]
pub struct Tools {
    pub given: bool,
    params: HashMap<String, HashMap<String, Types>>,
}

impl Tools {
    pub fn from_json(v: Option<&Value>) -> Tools {
        let Some(list) = v.and_then(Value::as_array) else {
            return Tools::default();
        };
        let mut params = HashMap::new();
        for t in list {
            let f = t.get("function").filter(|f| f.is_object()).unwrap_or(t);
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                continue;
            };
            let schema = ["input_schema", "parameters", "inputSchema"]
                .iter()
                .find_map(|k| f.get(*k));
            let props: HashMap<String, Types> = schema
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p: &Map<String, Value>| {
                    p.iter()
                        .map(|(k, s)| (k.clone(), Types::from_schema(s)))
                        .collect()
                })
                .unwrap_or_default();
            params.insert(name.to_string(), props);
        }
        Tools {
            given: true,
            params,
        }
    }

    pub fn has(&self, name: &str) -> bool {
        self.params.contains_key(name)
    }

    pub fn types(&self, tool: &str, param: &str) -> Option<&Types> {
        self.params.get(tool)?.get(param)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(s: Value) -> Types {
        Types::from_schema(&s)
    }

    #[test]
    fn restores_declared_scalar_types() {
        let nullable = ty(json!({"type": ["string", "null"]}));
        assert_eq!(
            restore("null", Some(&nullable)),
            Restored::Value(json!(null))
        );
        assert_eq!(
            restore("web", Some(&nullable)),
            Restored::Value(json!("web"))
        );
        assert_eq!(
            restore("true", Some(&ty(json!({"type": "boolean"})))),
            Restored::Value(json!(true))
        );
        assert_eq!(
            restore("42", Some(&ty(json!({"type": "integer"})))),
            Restored::Value(json!(42))
        );
        assert_eq!(
            restore("0.5", Some(&ty(json!({"type": "number"})))),
            Restored::Value(json!(0.5))
        );
        assert_eq!(
            restore("42", Some(&ty(json!({"type": "string"})))),
            Restored::Value(json!("42"))
        );
    }

    #[test]
    fn never_guesses() {
        assert_eq!(
            restore("0.5", Some(&ty(json!({"type": "integer"})))),
            Restored::Lossy(TYPE_MISMATCH)
        );
        assert_eq!(
            restore("042", Some(&ty(json!({"type": "number"})))),
            Restored::Lossy(TYPE_MISMATCH)
        );
        assert_eq!(
            restore("yes", Some(&ty(json!({"type": "boolean"})))),
            Restored::Lossy(TYPE_MISMATCH)
        );
        assert_eq!(
            restore("[object Object]", None),
            Restored::Lossy(OBJECT_LOST)
        );
        let files = ty(json!({"type": "array", "items": {"type": "object"}}));
        assert_eq!(
            restore("[object Object],[object Object]", Some(&files)),
            Restored::Lossy(OBJECT_LOST)
        );
        assert_eq!(restore("null", None), Restored::Value(json!("null")));
    }

    #[test]
    fn arrays_of_scalars_split_on_commas() {
        let a = ty(json!({"type": "array", "items": {"type": "integer"}}));
        assert_eq!(restore("1,50", Some(&a)), Restored::Value(json!([1, 50])));
        assert_eq!(restore("", Some(&a)), Restored::Value(json!([])));
        let nested = ty(
            json!({"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "string"}}]}),
        );
        assert_eq!(restore("null", Some(&nested)), Restored::Value(json!(null)));
    }

    #[test]
    fn reads_anthropic_and_openai_tool_lists() {
        let t = Tools::from_json(Some(&json!([
            {"name": "list_files", "input_schema": {"properties": {"recursive": {"type": "boolean"}}}},
            {"type": "function", "function": {"name": "execute_command", "parameters": {"properties": {"cwd": {"type": ["string", "null"]}}}}}
        ])));
        assert!(t.has("list_files") && t.has("execute_command") && !t.has("read_file"));
        assert!(t.types("list_files", "recursive").unwrap().boolean);
        assert!(t.types("execute_command", "cwd").unwrap().null);
    }
}
