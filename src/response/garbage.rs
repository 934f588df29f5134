//! Never a garbage call: whatever a family parser read, a call is returned only when a tool could
//! really be called with it. A call is dropped (reported as `skipped-call`, with the raw text of
//! its block, so nothing is lost) when
//!
//! - its name carries quotes, backslashes, markup or whitespace (`"f`, `f\"`, `<f>`, `get weather`
//!   unless `tools` resolves it: a name with spaces that names one offered tool becomes that tool);
//! - the tools say which parameters it requires and its arguments hold none of them (a call whose
//!   arguments the reply lost).
//!
//! A block whose every call is dropped leaves the visible text all the same: its markup is removed
//! (the user never sees it) and its raw text is in `problems`.

use serde_json::Value;

use super::bare_json::resolve;
use super::{Ctx, Parsed};

/// Drop the calls of `p` (read from `text`) that no tool could run.
pub fn drop_garbage(p: &mut Parsed, text: &str, cx: &Ctx) {
    for b in &mut p.blocks {
        let before = b.calls.len();
        let mut dropped: Vec<String> = Vec::new();
        b.calls.retain_mut(|c| {
            if !clean_name(&c.name) {
                match resolve(cx.tools, &c.name) {
                    Some(n) => c.name = n.to_owned(),
                    None => {
                        dropped.push(format!("name {:?} is not a tool name", c.name));
                        return false;
                    }
                }
            }
            if misses_every_required(cx.tools, &c.name, &c.arguments) {
                dropped.push(format!(
                    "call {:?} has none of the parameters its tool requires",
                    c.name
                ));
                return false;
            }
            true
        });
        if dropped.is_empty() {
            continue;
        }
        let raw = text.get(b.start..b.end).unwrap_or("");
        p.problems.push(format!(
            "skipped-call: {}; raw text: {raw}",
            dropped.join("; ")
        ));
        if b.calls.is_empty() && before > 0 {
            b.keep_raw = false;
        }
    }
}

/// A name a tool can have: no quotes, backslashes, angle brackets, braces or whitespace.
fn clean_name(name: &str) -> bool {
    !name.is_empty()
        && !name.chars().any(|c| {
            c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '<' | '>' | '{' | '}' | '`')
        })
}

/// Whether the offered tool `name` requires parameters and `arguments` (a JSON object) has none.
fn misses_every_required(tools: Option<&Value>, name: &str, arguments: &str) -> bool {
    let Some(tool) = tools.and_then(Value::as_array).and_then(|ts| {
        ts.iter().find_map(|t| {
            let f = t.get("function").unwrap_or(t);
            (f.get("name")?.as_str()? == name).then_some(f)
        })
    }) else {
        return false;
    };
    let schema = tool.get("parameters").or_else(|| tool.get("input_schema"));
    let Some(required) = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty())
    else {
        return false;
    };
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        // Arguments that are not an object were reported by the parser; keep the call.
        return false;
    };
    !required
        .iter()
        .filter_map(Value::as_str)
        .any(|k| args.contains_key(k))
}
