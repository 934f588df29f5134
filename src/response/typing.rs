//! Typing of argument values for the formats that send every value as untyped text
//! (Qwen3-Coder, MiniMax-M2, GLM; reference §0.2), so `<parameter=count>42</parameter>` becomes
//! `{"count": 42}` when the tool's schema says integer, and stays `"42"` when it says string.
//!
//! [`Style::Schema`] is vLLM's qwen3coder / minimax_m2 rule set (newer vLLM: `anyOf`, `oneOf`,
//! `allOf`, type arrays and `enum` value types are read too). With no schema for a parameter it
//! infers the type as smg and SGLang do ([`infer_untyped`]). [`Style::Glm`] is vLLM's GLM rule:
//! string schema keeps the text, anything else is decoded as JSON when it parses.
//!
//! Where the schema allows a string among other types, the text is kept as a string: that is the
//! only choice that never changes the value (smg issue #1743: a string `taskId` of `3` stays `"3"`).
//! Python-literal decoding (`ast.literal_eval`) is not done: such text stays a string.

use serde_json::{Map, Number, Value};

use super::canonical::push_json_str;

/// Which reference's rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// vLLM qwen3coder / seed_oss / step3; `minimax` adds `none`/`nil` nulls and
    /// `1/yes/on`, `0/no/off` booleans.
    Schema { minimax: bool },
    /// vLLM glm45 / glm47.
    Glm,
}

/// `tools[].function.parameters.properties[param]` of the tool named `func` (a flat
/// `{name, parameters}` or Anthropic-style `{name, input_schema}` entry is read too).
pub fn param_schema<'a>(tools: Option<&'a Value>, func: &str, param: &str) -> Option<&'a Value> {
    let tool = tools?.as_array()?.iter().find_map(|t| {
        let f = t.get("function").unwrap_or(t);
        (f.get("name")?.as_str()? == func).then_some(f)
    })?;
    let params = tool
        .get("parameters")
        .or_else(|| tool.get("input_schema"))?;
    params.get("properties")?.get(param)
}

/// The JSON value of `raw` under `schema` (a property schema, `None` when unknown).
pub fn type_value(raw: &str, schema: Option<&Value>, style: Style) -> Value {
    match style {
        Style::Glm => glm_value(raw, schema),
        Style::Schema { minimax } => match schema {
            None => infer_untyped(raw),
            Some(s) => schema_value(raw, s, minimax),
        },
    }
}

/// How many members [`typed_arguments`] holds on the stack (looked up pairwise) before it
/// takes a map.
const INLINE: usize = 8;

/// Build the arguments object of a call from `(key, raw value)` pairs, typed by the tools' schema.
pub fn typed_arguments<'k, V: AsRef<str>>(
    pairs: impl IntoIterator<Item = (&'k str, V)>,
    tools: Option<&Value>,
    func: &str,
    style: Style,
) -> String {
    // Written straight out rather than through a `Map` (a hash per key, then serialised again): a
    // key given twice keeps its first place and its last value, as the map's insert does (it
    // keeps insertion order: `preserve_order`), so past [`INLINE`] keys the map writes the same.
    // The members wait on the stack: a list of them was an allocation per call.
    let mut members: [Option<(&str, V, Typed)>; INLINE] = [const { None }; INLINE];
    let mut n = 0;
    let mut map: Option<Map<String, Value>> = None;
    for (k, v) in pairs {
        let value = type_text(v.as_ref(), param_schema(tools, func, k), style);
        if let Some(m) = map.as_mut() {
            m.insert(k.to_owned(), value.into_value(v.as_ref()));
            continue;
        }
        if let Some(m) = members[..n].iter_mut().flatten().find(|m| m.0 == k) {
            (m.1, m.2) = (v, value);
            continue;
        }
        if n == INLINE {
            let mut m: Map<String, Value> = (members.iter_mut().filter_map(Option::take))
                .map(|(k, v, t)| (k.to_owned(), t.into_value(v.as_ref())))
                .collect();
            m.insert(k.to_owned(), value.into_value(v.as_ref()));
            map = Some(m);
            continue;
        }
        members[n] = Some((k, v, value));
        n += 1;
    }
    if let Some(m) = map {
        return Value::Object(m).to_string();
    }
    // Room for the name and the generated id the call's buffer takes after its arguments
    // ([`super::ToolCall`]): without it most calls were moved by a `realloc`.
    let mut out = Vec::with_capacity(64 + func.len() + super::CALL_ID_LEN + 3);
    out.push(b'{');
    for (i, (k, v, t)) in members[..n].iter().flatten().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_str(&mut out, k);
        out.push(b':');
        match t {
            Typed::Text => push_json_str(&mut out, v.as_ref()),
            Typed::Trimmed => out.extend_from_slice(trim(v.as_ref()).as_bytes()),
            Typed::Lit(t) => out.extend_from_slice(t.as_bytes()),
            Typed::Value(v) => {
                // Writing to a Vec cannot fail, and a Value always serialises.
                let _ = serde_json::to_writer(&mut out, v);
            }
        }
    }
    out.push(b'}');
    // Only whole UTF-8 strings and ASCII were written.
    String::from_utf8(out).unwrap_or_default()
}

/// A typed value as [`typed_arguments`] writes it, given its raw text: most values (paths,
/// prose, small integers, with no schema to read) are written from the text itself, without a
/// [`Value`] built, parsed into and dropped for each of them.
enum Typed {
    /// The JSON string of the raw text.
    Text,
    /// The trimmed raw text, which is JSON already written as serde writes it (`42`, `true`).
    Trimmed,
    /// This literal (`true`, `false`, `null`).
    Lit(&'static str),
    Value(Value),
}

impl Typed {
    fn into_value(self, raw: &str) -> Value {
        match self {
            Typed::Text => Value::String(raw.to_owned()),
            // Only literals and integers that parse as themselves are written from their text.
            Typed::Trimmed => serde_json::from_str(raw.trim()).unwrap_or(Value::Null),
            Typed::Lit(t) => serde_json::from_str(t).unwrap_or(Value::Null),
            Typed::Value(v) => v,
        }
    }
}

/// [`type_value`] as a [`Typed`]: the same value, written the same. Without a schema, a value
/// that is a string, a literal or an integer serde writes digit for digit is told from its text;
/// anything else (a fraction, JSON text, any schema) takes [`type_value`].
fn type_text(raw: &str, schema: Option<&Value>, style: Style) -> Typed {
    if schema.is_some() {
        return Typed::Value(type_value(raw, schema, style));
    }
    let t = trim(raw);
    match style {
        Style::Schema { .. } => match t {
            "true" | "True" => Typed::Lit("true"),
            "false" | "False" => Typed::Lit("false"),
            "null" | "None" => Typed::Lit("null"),
            // As `infer_untyped`: only text starting as a number may be one.
            t if !t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => Typed::Text,
            t if plain_integer(t) => Typed::Trimmed,
            _ => Typed::Value(infer_untyped(raw)),
        },
        // `glm_value` without a schema: the text's JSON value when it parses, else the text.
        Style::Glm => match t.as_bytes().first() {
            Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                if plain_integer(t) || matches!(t, "true" | "false" | "null") {
                    Typed::Trimmed
                } else {
                    Typed::Value(glm_value(raw, None))
                }
            }
            // No JSON value starts otherwise: serde would fail (and allocate its error).
            _ => Typed::Text,
        },
    }
}

/// `s.trim()`, with the bytes at its ends looked at as bytes while they are ASCII (keys, names
/// and most values): `str::trim` decodes a character at each end and asks Unicode's table, a few
/// per cent of reading a reply dense with calls. A non-ASCII end is left to `str::trim`.
pub(crate) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    let (mut i, mut j) = (0, b.len());
    while i < j && ascii_space(b[i]) {
        i += 1;
    }
    while j > i && ascii_space(b[j - 1]) {
        j -= 1;
    }
    if i < j && (b[i] >= 0x80 || b[j - 1] >= 0x80) {
        return s.trim();
    }
    // Only ASCII bytes were passed over: `i` and `j` are character boundaries.
    s.get(i..j).unwrap_or_default()
}

/// `s.trim_start()`, as [`trim`] does it.
pub(crate) fn trim_start(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && ascii_space(b[i]) {
        i += 1;
    }
    match b.get(i) {
        Some(&c) if c >= 0x80 => s.trim_start(),
        // Only ASCII bytes were passed over.
        _ => s.get(i..).unwrap_or_default(),
    }
}

/// `char::is_whitespace` of an ASCII byte (vertical tab included).
fn ascii_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// An integer serde reads as an `i64`/`u64` and writes back digit for digit: no leading zero, no
/// `-0`, at most 18 digits (the rule of [`super::canonical`]'s integers).
fn plain_integer(t: &str) -> bool {
    let d = t.strip_prefix('-').unwrap_or(t).as_bytes();
    let neg = d.len() < t.len();
    match d {
        [] => false,
        [b'0'] => !neg,
        [b'0', ..] => false,
        _ => d.len() <= 18 && d.iter().all(u8::is_ascii_digit),
    }
}

/// smg / SGLang inference: `true/false/True/False` → bool, `null/None` → null, a JSON number →
/// number (so `007` stays a string), anything else a string (a JSON object or array included).
pub fn infer_untyped(raw: &str) -> Value {
    match raw.trim() {
        "true" | "True" => Value::Bool(true),
        "false" | "False" => Value::Bool(false),
        "null" | "None" => Value::Null,
        // Only text starting as a JSON number can read as one: the rest (most values, paths and
        // prose) is a string without a parse that fails (and allocates its error).
        t if !t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => {
            Value::String(raw.to_owned())
        }
        t => match serde_json::from_str::<Value>(t) {
            Ok(n @ Value::Number(_)) => n,
            _ => Value::String(raw.to_owned()),
        },
    }
}

fn glm_value(raw: &str, schema: Option<&Value>) -> Value {
    if let Some(s) = schema {
        let mut types = Vec::new();
        schema_types(s, &mut types);
        if types.iter().any(|t| t == "string") {
            return Value::String(raw.to_owned());
        }
    }
    serde_json::from_str::<Value>(raw.trim()).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

fn schema_value(raw: &str, schema: &Value, minimax: bool) -> Value {
    let t = raw.trim();
    let lower = t.to_ascii_lowercase();
    if lower == "null" || (minimax && (lower == "none" || lower == "nil")) {
        return Value::Null;
    }
    let mut types = Vec::new();
    schema_types(schema, &mut types);
    types.retain(|t| t != "null");
    if types.is_empty() {
        return infer_untyped(raw);
    }
    if types.iter().any(|t| is_string_type(t)) {
        return Value::String(raw.to_owned());
    }
    for ty in &types {
        let v = if is_int_type(ty) {
            parse_int(t)
        } else if ty.starts_with("num") || ty.starts_with("float") || ty == "double" {
            parse_number(t)
        } else if is_bool_type(ty) {
            strict_bool(&lower, minimax)
        } else if is_container_type(ty) {
            serde_json::from_str::<Value>(t).ok()
        } else {
            None
        };
        if let Some(v) = v {
            return v;
        }
    }
    // qwen3coder: a boolean that is not `true` is false.
    if types.iter().any(|t| is_bool_type(t)) {
        return Value::Bool(false);
    }
    Value::String(raw.to_owned())
}

/// The lower-cased type names a property schema allows.
fn schema_types(s: &Value, out: &mut Vec<String>) {
    match s.get("type") {
        Some(Value::String(t)) => out.push(t.to_ascii_lowercase()),
        Some(Value::Array(ts)) => out.extend(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase),
        ),
        _ => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(alts)) = s.get(key) {
            for alt in alts {
                schema_types(alt, out);
            }
        }
    }
    if s.get("type").is_none() {
        if let Some(Value::Array(vals)) = s.get("enum") {
            for v in vals {
                out.push(
                    match v {
                        Value::String(_) => "string",
                        Value::Number(n) if n.is_f64() => "number",
                        Value::Number(_) => "integer",
                        Value::Bool(_) => "boolean",
                        Value::Null => "null",
                        Value::Array(_) => "array",
                        Value::Object(_) => "object",
                    }
                    .to_owned(),
                );
            }
        }
    }
}

fn is_string_type(t: &str) -> bool {
    matches!(t, "string" | "str" | "text" | "varchar" | "char" | "enum")
}

fn is_int_type(t: &str) -> bool {
    ["int", "uint", "long", "short", "unsigned"]
        .iter()
        .any(|p| t.starts_with(p))
}

fn is_bool_type(t: &str) -> bool {
    matches!(t, "boolean" | "bool" | "binary")
}

fn is_container_type(t: &str) -> bool {
    t == "object" || t == "array" || t.starts_with("dict") || t.starts_with("list")
}

fn parse_int(t: &str) -> Option<Value> {
    let t = t.strip_prefix('+').unwrap_or(t);
    if let Ok(i) = t.parse::<i64>() {
        return Some(Value::from(i));
    }
    t.parse::<u64>().ok().map(Value::from)
}

/// A float, written as an integer when integral (`"5.0"` → `5`); non-finite values are refused.
fn parse_number(t: &str) -> Option<Value> {
    let f = t.strip_prefix('+').unwrap_or(t).parse::<f64>().ok()?;
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
        return Some(Value::from(f as i64));
    }
    Number::from_f64(f).map(Value::Number)
}

fn strict_bool(lower: &str, minimax: bool) -> Option<Value> {
    match lower {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "1" | "yes" | "on" if minimax => Some(Value::Bool(true)),
        "0" | "no" | "off" if minimax => Some(Value::Bool(false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const Q: Style = Style::Schema { minimax: false };
    const M: Style = Style::Schema { minimax: true };

    fn ty(raw: &str, schema: Value, style: Style) -> Value {
        type_value(raw, Some(&schema), style)
    }

    #[test]
    fn trim_is_str_trim() {
        for s in [
            "",
            " ",
            "\u{b}\u{c}\r\n\t ",
            "a",
            " 42 ",
            "\n路径\n",
            "\u{3000}x\u{3000}",
            "\u{a0}1",
            "1\u{85}",
            "x\u{1f}",
            "\u{1f}x",
            " 中 ",
            "\u{b}true\u{c}",
            "é ",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
            assert_eq!(trim_start(s), s.trim_start(), "{s:?}");
        }
    }

    #[test]
    fn arguments_are_written_as_a_map_would_be() {
        // A key given twice keeps its first place and its last value, below and past the
        // pairwise lookup's limit.
        let map_text = |pairs: &[(&str, &str)]| {
            let mut m = Map::new();
            for (k, v) in pairs {
                m.insert((*k).to_owned(), infer_untyped(v));
            }
            Value::Object(m).to_string()
        };
        let few = [
            ("a", "1"),
            ("路径", "x \"y\""),
            ("a", "true"),
            ("b", "null"),
        ];
        let keys: Vec<String> = (0..40).map(|i| format!("k{}", i % 35)).collect();
        let many: Vec<(&str, &str)> = keys.iter().map(|k| (k.as_str(), "7")).collect();
        for pairs in [&few[..], &many[..]] {
            let ours = typed_arguments(
                pairs.iter().copied(),
                None,
                "f",
                Style::Schema { minimax: false },
            );
            assert_eq!(ours, map_text(pairs));
        }
        assert_eq!(
            typed_arguments(
                few.iter().copied(),
                None,
                "f",
                Style::Schema { minimax: false }
            ),
            r#"{"a":true,"路径":"x \"y\"","b":null}"#
        );
    }

    /// Values written from their text (no schema) are written exactly as their `Value` would be,
    /// in both styles: literals, integers serde keeps digit for digit, and everything it reads
    /// otherwise (leading zeros, `-0`, fractions, long integers, JSON text, Unicode spaces).
    #[test]
    fn values_written_from_their_text_equal_the_value_path() {
        let raws = [
            "",
            " ",
            "北京",
            "src/file_3.rs",
            "42",
            " 42\n",
            "\u{3000}42",
            "-7",
            "-0",
            "0",
            "007",
            "1.5",
            "1e3",
            "123456789012345678",
            "1234567890123456789",
            "-",
            "true",
            "True",
            "false",
            "False",
            "null",
            "None",
            "nil",
            "tru",
            "{\"a\": 1}",
            "[1, 2]",
            "\"q\"",
            "nothing",
            "fa",
            "-x",
            "a \"b\" \\ c\u{1}",
        ];
        for style in [Q, M, Style::Glm] {
            for raw in raws {
                let ours = typed_arguments([("k", raw)], None, "f", style);
                let mut m = Map::new();
                m.insert("k".to_owned(), type_value(raw, None, style));
                assert_eq!(ours, Value::Object(m).to_string(), "{raw:?} {style:?}");
            }
        }
    }

    #[test]
    fn schema_rules() {
        assert_eq!(ty("42", json!({"type": "integer"}), Q), json!(42));
        assert_eq!(ty("4x", json!({"type": "integer"}), Q), json!("4x"));
        assert_eq!(ty("2.5", json!({"type": "number"}), Q), json!(2.5));
        assert_eq!(ty("5.0", json!({"type": "number"}), Q), json!(5));
        assert_eq!(ty("inf", json!({"type": "number"}), Q), json!("inf"));
        assert_eq!(ty("True", json!({"type": "boolean"}), Q), json!(true));
        assert_eq!(ty("yes", json!({"type": "boolean"}), Q), json!(false));
        assert_eq!(ty("yes", json!({"type": "boolean"}), M), json!(true));
        assert_eq!(ty("NULL", json!({"type": "string"}), Q), Value::Null);
        assert_eq!(ty("nil", json!({"type": "string"}), M), Value::Null);
        assert_eq!(ty("nil", json!({"type": "string"}), Q), json!("nil"));
        assert_eq!(ty("3", json!({"type": "string"}), Q), json!("3"));
        assert_eq!(
            ty("{\"key\": \"value\"}", json!({"type": "object"}), Q),
            json!({"key": "value"})
        );
        assert_eq!(ty("[1,", json!({"type": "array"}), Q), json!("[1,"));
    }

    #[test]
    fn unions_and_enums() {
        assert_eq!(ty("7", json!({"type": ["integer", "null"]}), Q), json!(7));
        assert_eq!(
            ty(
                "Alice",
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                Q
            ),
            json!("Alice")
        );
        assert_eq!(ty("2", json!({"enum": [1, 2, 3]}), Q), json!(2));
        assert_eq!(ty("2", json!({"enum": ["1", "2"]}), Q), json!("2"));
    }

    #[test]
    fn untyped_inference() {
        assert_eq!(infer_untyped("42"), json!(42));
        assert_eq!(infer_untyped("-1.5"), json!(-1.5));
        assert_eq!(infer_untyped("007"), json!("007"));
        assert_eq!(infer_untyped("False"), json!(false));
        assert_eq!(infer_untyped("None"), Value::Null);
        assert_eq!(infer_untyped("{\"a\":1}"), json!("{\"a\":1}"));
        assert_eq!(infer_untyped("北京"), json!("北京"));
    }

    #[test]
    fn glm_rules() {
        let s = json!({"type": "string"});
        assert_eq!(ty("{\"a\": 1}", s, Style::Glm), json!("{\"a\": 1}"));
        assert_eq!(type_value("42", None, Style::Glm), json!(42));
        assert_eq!(type_value("{\"a\": 1}", None, Style::Glm), json!({"a": 1}));
        assert_eq!(type_value("rust", None, Style::Glm), json!("rust"));
    }

    #[test]
    fn schema_lookup() {
        let tools = json!([
            {"type": "function", "function": {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}}
        ]);
        assert_eq!(
            typed_arguments([("n", "1"), ("x", "y")], Some(&tools), "f", Q),
            r#"{"n":1,"x":"y"}"#
        );
        assert!(param_schema(Some(&tools), "g", "n").is_none());
        assert!(param_schema(Some(&json!({"not": "array"})), "f", "n").is_none());
        let flat =
            json!([{"name": "g", "input_schema": {"properties": {"n": {"type": "integer"}}}}]);
        assert!(param_schema(Some(&flat), "g", "n").is_some());
    }
}
