//! Call JSON written with doubled braces, `{{"name": "f", "arguments": {"a": 1}}}` (Qwen's
//! Hermes `<tool_call>`, QwenLM/Qwen3 issue 918): a model that saw its call format inside a
//! Python format string, where `{{` stands for `{`, writes the braces twice. The text is no JSON,
//! and reading its `"name"` and the raw text after `"arguments":` gave a call whose arguments were
//! garbage. It exists so that such a body gives either the one call it plainly holds or none.
//!
//! `{{` is never JSON outside a string (an object's members start with a key), so each `{{` there
//! is one brace written twice, and the `}` that closes it is written twice too (or once, by a
//! model that doubled only the opening). The repair pairs the braces as it reads (a stack of the
//! open ones, each marked single or doubled) and writes each doubled pair once; every other byte
//! stays. The pairing is unique, so the repair is unambiguous; it counts when the text then reads
//! as one JSON value, to its end, that is a call object. Otherwise (a `}` that closes nothing,
//! invalid JSON inside, no call) the body gives no call (the caller reports it).

use serde_json::Value;

use super::{is_call_object, read_value};

/// Whether `body` has a `{{` outside its strings: the doubled-brace form.
pub(super) fn is_doubled(body: &str) -> bool {
    let mut doubled = false;
    outside_strings(body, |b, next| doubled |= b == b'{' && next == Some(b'{'));
    doubled
}

/// The call value `body` holds once its doubled braces are written once, when they pair up.
pub(super) fn repaired(body: &str, tools: Option<&Value>) -> Option<Value> {
    let text = undoubled(body.trim())?;
    let (v, end) = read_value(&text, 0)?;
    let is_call = matches!(&v, Value::Object(o) if is_call_object(o, tools));
    (is_call && text[end..].trim().is_empty()).then_some(v)
}

/// `body` with each `{{` outside strings, and the `}}` that closes it, written once (a single `}`
/// closing it stays); `None` when a `}` closes nothing.
fn undoubled(body: &str) -> Option<String> {
    let bytes = body.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    // The open braces: true for a doubled one.
    let mut open: Vec<bool> = Vec::new();
    let mut strings = Strings::default();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        out.push(b);
        i += 1;
        if strings.inside_after(b) {
            continue;
        }
        match b {
            b'{' => {
                let doubled = bytes.get(i) == Some(&b'{');
                i += usize::from(doubled);
                open.push(doubled);
            }
            b'}' => {
                let doubled = open.pop()?;
                i += usize::from(doubled && bytes.get(i) == Some(&b'}'));
            }
            _ => {}
        }
    }
    // Only ASCII braces were left out: the bytes are still UTF-8.
    String::from_utf8(out).ok()
}

/// Where a byte-by-byte reading of JSON text stands: inside a string or not.
#[derive(Default)]
struct Strings {
    quote: bool,
    escaped: bool,
}

impl Strings {
    /// Steps over `b`: whether `b` belongs to a string (its quotes included).
    fn inside_after(&mut self, b: u8) -> bool {
        if self.quote {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.quote = false;
            }
            return true;
        }
        self.quote = b == b'"';
        self.quote
    }
}

/// Calls `each(byte, next byte)` for every byte of `text` outside its JSON strings.
fn outside_strings(text: &str, mut each: impl FnMut(u8, Option<u8>)) {
    let bytes = text.as_bytes();
    let mut strings = Strings::default();
    for (i, &b) in bytes.iter().enumerate() {
        if !strings.inside_after(b) {
            each(b, bytes.get(i + 1).copied());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(body: &str) -> Option<String> {
        repaired(body, None).map(|v| v["arguments"].to_string())
    }

    #[test]
    fn a_call_wrapped_in_one_more_pair_reads() {
        let b = r#"{{"name": "get_weather", "arguments": {"city": "北京"}}}"#;
        assert!(is_doubled(b));
        assert_eq!(args(b).as_deref(), Some(r#"{"city":"北京"}"#));
        // Only the opening doubled.
        let b = r#"{{"name": "get_weather", "arguments": {"city": "北京"}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"city":"北京"}"#));
    }

    #[test]
    fn doubled_arguments_and_fully_doubled_bodies_read() {
        let b = r#"{"name": "add", "arguments": {{"a": 1, "b": 1}}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"a":1,"b":1}"#));
        let b = r#"{{"name": "add", "arguments": {{"a": 1, "b": 1}}}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"a":1,"b":1}"#));
        // Nested objects inside and outside the doubled pair.
        let b = r#"{{"name": "f", "arguments": {"q": {"城市": "上海"}}}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"q":{"城市":"上海"}}"#));
        let b = r#"{"name": "f", "arguments": {{"q": {"城市": "上海"}}}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"q":{"城市":"上海"}}"#));
    }

    #[test]
    fn braces_inside_strings_are_text() {
        let b = r#"{"name": "f", "arguments": {"t": "{{x}}", "n": {"a": 1}}}"#;
        assert!(!is_doubled(b));
        let b = r#"{{"name": "f", "arguments": {"t": "{{用户}}"}}}"#;
        assert_eq!(args(b).as_deref(), Some(r#"{"t":"{{用户}}"}"#));
    }

    #[test]
    fn what_does_not_repair_to_one_call_gives_none() {
        // A closer too many, a doubled body that is no call, invalid JSON inside.
        assert_eq!(args(r#"{{"name": "f", "arguments": {"a": 1}}}}}"#), None);
        assert_eq!(args(r#"{{"城市": "北京"}}"#), None);
        assert_eq!(args(r#"{{"name": "f", "arguments": {"a": 1,}}}"#), None);
    }
}
