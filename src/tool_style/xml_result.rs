//! The XML protocol's result header: a text block `[<desc>] Result:` (Cline v2, Roo and Kilo in
//! XML mode; also Kilo v4.106–v4.111.0, which ran native calls but recorded only these results),
//! followed by the output blocks and then `<environment_details>`.
//!
//! [`parse`] reads the tool name and, for the common descriptions, the argument it names
//! (`[execute_command for 'npm test']` → `command`). That is all a call-less history keeps of its
//! calls; anything more would be a guess.

use serde_json::{json, Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub name: String,
    /// What the description states of the input (possibly nothing).
    pub input: Map<String, Value>,
}

/// The param a `[<name> for '<x>']` description names, per tool (XML param names).
fn param_for(name: &str) -> Option<&'static str> {
    Some(match name {
        "execute_command" | "run_slash_command" => "command",
        "write_to_file"
        | "apply_diff"
        | "list_files"
        | "list_code_definition_names"
        | "generate_image"
        | "delete_file"
        | "search_and_replace"
        | "insert_content" => "path",
        "search_files" => "regex",
        "browser_action" => "action",
        "use_mcp_tool" | "access_mcp_resource" => "server_name",
        "ask_followup_question" => "question",
        "codebase_search" => "query",
        "fetch_instructions" => "task",
        "edit_file" => "target_file",
        _ => return None,
    })
}

/// The quoted strings of `'a', 'b'` (a quote inside a value ends it early; then nothing is read).
fn quoted_list(s: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let r = rest.strip_prefix('\'')?;
        let end = r.find('\'')?;
        out.push(&r[..end]);
        rest = &r[end + 1..];
        if rest.is_empty() {
            return Some(out);
        }
        rest = rest.strip_prefix(", ")?;
    }
}

/// `'x'` → `x` (the value may hold quotes itself).
fn unquote(s: &str) -> Option<&str> {
    s.strip_prefix('\'')?.strip_suffix('\'')
}

/// Parses a whole text block `[<desc>] Result:`.
pub fn parse(text: &str) -> Option<Header> {
    if !text.starts_with('[') || !text.ends_with("] Result:") || text.contains('\n') {
        return None;
    }
    let desc = text.get(1..text.len() - "] Result:".len())?;
    let name_end = desc.find([' ', ']']).unwrap_or(desc.len());
    let name = desc.get(..name_end)?;
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    let mut input = Map::new();
    let rest = &desc[name_end..];
    if let Some(arg) = rest.strip_prefix(" for ") {
        if name == "read_file" {
            // One file: "'p'. Reading multiple files at once…"; two or three: "'a', 'b'".
            let list = arg.find("'. ").map_or(arg, |i| &arg[..i + 1]);
            if let Some(paths) = quoted_list(list) {
                let files: Vec<Value> = paths.iter().map(|p| json!({ "path": p })).collect();
                input.insert("files".into(), Value::Array(files));
            }
        } else if let Some(param) = param_for(name) {
            let (first, more) = match arg.find("' in '") {
                Some(i) if name == "search_files" => (&arg[..i + 1], Some(&arg[i + 5..])),
                _ => (arg, None),
            };
            if let Some(v) = unquote(first) {
                input.insert(param.into(), json!(v));
                if let Some(p) = more.and_then(unquote) {
                    input.insert("file_pattern".into(), json!(p));
                }
            }
        }
    }
    Some(Header {
        name: name.to_string(),
        input,
    })
}

/// Whether a text block opens the environment details the loop appends to each user turn.
pub fn is_environment_details(text: &str) -> bool {
    text.starts_with("<environment_details>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(t: &str) -> (String, Value) {
        let h = parse(t).unwrap();
        (h.name, Value::Object(h.input))
    }

    #[test]
    fn reads_the_tool_and_the_argument_its_description_states() {
        assert_eq!(
            h("[execute_command for 'npm test'] Result:"),
            ("execute_command".into(), json!({"command": "npm test"}))
        );
        assert_eq!(
            h("[attempt_completion] Result:"),
            ("attempt_completion".into(), json!({}))
        );
        assert_eq!(
            h("[search_files for 'fn main' in '*.rs'] Result:"),
            (
                "search_files".into(),
                json!({"regex": "fn main", "file_pattern": "*.rs"})
            )
        );
        assert_eq!(
            h("[read_file for 'src/a.ts'. Reading multiple files at once is more efficient for the LLM. If other files are relevant to your current task, please read them simultaneously.] Result:"),
            ("read_file".into(), json!({"files": [{"path": "src/a.ts"}]}))
        );
        assert_eq!(
            h("[read_file for 'a', 'b'] Result:").1,
            json!({"files": [{"path": "a"}, {"path": "b"}]})
        );
        assert_eq!(h("[read_file for 5 files] Result:").1, json!({}));
        assert_eq!(
            h("[execute_command for 'echo 'hi''] Result:").1,
            json!({"command": "echo 'hi'"})
        );
        assert_eq!(h("[switch_mode to 'code' because: x] Result:").1, json!({}));
    }

    #[test]
    fn other_text_is_not_a_header() {
        assert_eq!(parse("[read_file Result]\n\nx"), None);
        assert_eq!(parse("Result:"), None);
        assert_eq!(parse("[] Result:"), None);
        assert_eq!(parse("[execute_command for 'a'] Result: and more"), None);
    }
}
