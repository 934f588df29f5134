//! Helpers for the family tests: run [`clean_response`] with a format, a model and tools, and read
//! the calls back as `(name, arguments value)` pairs.

use serde_json::Value;

use super::{clean_response, Cleaned, Options};

pub fn run(text: &str, format: Option<&str>, model: Option<&str>, tools: Option<Value>) -> Cleaned {
    clean_response(
        text,
        &Options {
            format: format.map(str::to_owned),
            model: model.map(str::to_owned),
            tools,
            ..Options::default()
        },
    )
}

/// `(name, parsed arguments)` of every call; arguments that are not JSON read as their string.
pub fn named(c: &Cleaned) -> Vec<(&str, Value)> {
    c.tool_calls
        .iter()
        .map(|t| {
            (
                t.name(),
                serde_json::from_str(t.arguments())
                    .unwrap_or_else(|_| Value::String(t.arguments().to_owned())),
            )
        })
        .collect()
}
