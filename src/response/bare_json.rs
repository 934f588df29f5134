//! The tools a caller offered (`options.tools`), as evidence for calls written without markers.
//!
//! A call written as plain text (a stripped Gemma `call:NAME{…}`, a bare JSON object) looks like
//! ordinary prose or data; what makes it a call is that its name is one of the tools the request
//! offered. [`offered`] answers that, and [`resolve`] maps a name the model wrote with spaces or in
//! another case (`"get weather"`) to the offered tool it stands for (`get_weather`), so a call is
//! never made to a tool the caller does not have.

use serde_json::Value;

/// The names of the offered tools (`tools[].function.name`, or a flat `tools[].name`).
pub fn names(tools: Option<&Value>) -> impl Iterator<Item = &str> {
    tools
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("function").unwrap_or(t).get("name")?.as_str())
}

/// The parameters schema of the offered tool `name` (`function.parameters`, or an Anthropic-style
/// `input_schema`), if it has one.
pub fn schema<'t>(tools: Option<&'t Value>, name: &str) -> Option<&'t Value> {
    let tool = tools.and_then(Value::as_array)?.iter().find_map(|t| {
        let f = t.get("function").unwrap_or(t);
        (f.get("name")?.as_str()? == name).then_some(f)
    })?;
    tool.get("parameters").or_else(|| tool.get("input_schema"))
}

/// Whether `name` is exactly one of the offered tools.
pub fn offered(tools: Option<&Value>, name: &str) -> bool {
    names(tools).any(|n| n == name)
}

/// The offered tool `name` stands for: itself, or the one tool that equals it once spaces, `-`
/// and `_` are made the same and case is ignored. `None` when no tool (or more than one) matches.
pub fn resolve<'t>(tools: Option<&'t Value>, name: &str) -> Option<&'t str> {
    if let Some(n) = names(tools).find(|n| *n == name) {
        return Some(n);
    }
    let key = |s: &str| -> String {
        s.trim()
            .chars()
            .map(|c| match c {
                ' ' | '-' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    };
    let want = key(name);
    let mut hits = names(tools).filter(|n| key(n) == want);
    let first = hits.next()?;
    hits.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_resolve_against_the_tools() {
        let tools =
            json!([{"type": "function", "function": {"name": "get_weather"}}, {"name": "Read"}]);
        let t = Some(&tools);
        assert!(offered(t, "Read"));
        assert!(!offered(t, "read"));
        assert_eq!(resolve(t, "get weather"), Some("get_weather"));
        assert_eq!(resolve(t, "Get-Weather"), Some("get_weather"));
        assert_eq!(resolve(t, "read"), Some("Read"));
        assert_eq!(resolve(t, "write"), None);
        assert_eq!(resolve(None, "x"), None);
    }
}
