//! Genuine XML-protocol tool calls: the model wrote `<tool><param>value</param></tool>` inside its
//! prose (Cline v2, Roo and Kilo in XML mode). Converted only when the caller asks
//! (`xmlProtocol`), since such a history is consistent as it is.
//!
//! Read as the agents' own parser read it: a call starts only on the exact `<name>` of a known
//! tool; inside it a param starts on `<p>` for any known param name and ends at the first `</p>`
//! (for `content` of `write_to_file` / `new_rule`: the last `</content>` before the call closes,
//! so files holding that tag survive); values are trimmed, except `content`, which loses one
//! leading and one trailing newline. A call without its closing tag is partial and not a call.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::js_text::is_js_whitespace;

/// Tool names of Kilo main, Roo's additions and older releases (reference A8).
pub const TOOL_NAMES: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "apply_diff",
    "search_and_replace",
    "apply_patch",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "switch_mode",
    "new_task",
    "fetch_instructions",
    "codebase_search",
    "edit_file",
    "new_rule",
    "report_bug",
    "condense",
    "delete_file",
    "update_todo_list",
    "run_slash_command",
    "generate_image",
    "search_replace",
    "custom_tool",
    "read_command_output",
    "skill",
    "edit",
    "insert_content",
];

/// Param names the parser recognises inside any tool.
pub const PARAM_NAMES: &[&str] = &[
    "command",
    "path",
    "content",
    "regex",
    "file_pattern",
    "recursive",
    "action",
    "url",
    "coordinate",
    "text",
    "server_name",
    "tool_name",
    "arguments",
    "uri",
    "question",
    "result",
    "diff",
    "mode_slug",
    "reason",
    "line",
    "mode",
    "message",
    "cwd",
    "follow_up",
    "task",
    "size",
    "search",
    "replace",
    "use_regex",
    "ignore_case",
    "title",
    "description",
    "target_file",
    "instructions",
    "code_edit",
    "old_str",
    "new_str",
    "query",
    "args",
    "start_line",
    "end_line",
    "todos",
    "prompt",
    "image",
    "files",
    "operations",
    "patch",
    "line_count",
];

static TOOL_OPEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"<({})>", TOOL_NAMES.join("|"))).expect("static regex"));
static PARAM_OPEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"<({})>", PARAM_NAMES.join("|"))).expect("static regex"));

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlCall<'a> {
    pub name: &'a str,
    /// Bytes of the whole call, `<name>` to `</name>`.
    pub span: Range<usize>,
    pub params: Vec<(&'a str, Range<usize>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'a> {
    Call(XmlCall<'a>),
    /// `<name>` without its `</name>`.
    Partial {
        name: &'a str,
    },
    None,
}

fn trimmed(text: &str, r: Range<usize>, content: bool) -> Range<usize> {
    let v = &text[r.clone()];
    if content {
        let a = usize::from(v.starts_with('\n'));
        let b = v.len() - usize::from(v.len() > a && v.ends_with('\n'));
        return r.start + a..r.start + b.max(a);
    }
    let start = v.len() - v.trim_start_matches(is_js_whitespace).len();
    let end = v.trim_end_matches(is_js_whitespace).len().max(start);
    r.start + start..r.start + end
}

/// The first XML tool call in `text`.
pub fn find(text: &str) -> Found<'_> {
    if !text.contains('<') {
        return Found::None;
    }
    let Some(open) = TOOL_OPEN.captures(text) else {
        return Found::None;
    };
    let (Some(all), Some(name)) = (open.get(0), open.get(1)) else {
        return Found::None;
    };
    let name = name.as_str();
    let close = format!("</{name}>");
    let Some(close_at) = text[all.end()..].find(&close).map(|i| all.end() + i) else {
        return Found::Partial { name };
    };
    let inner_end = close_at;
    let mut params: Vec<(&str, Range<usize>)> = Vec::new();
    let mut p = all.end();
    while let Some(m) = PARAM_OPEN.captures_at(&text[..inner_end], p) {
        let (Some(o), Some(k)) = (m.get(0), m.get(1)) else {
            break;
        };
        let key = k.as_str();
        let pclose = format!("</{key}>");
        let region = &text[o.end()..inner_end];
        let found = if key == "content" && matches!(name, "write_to_file" | "new_rule") {
            region.rfind(&pclose)
        } else {
            region.find(&pclose)
        };
        let Some(rel) = found else { break };
        let value = trimmed(text, o.end()..o.end() + rel, key == "content");
        params.retain(|(k, _)| *k != key);
        params.push((key, value));
        p = o.end() + rel + pclose.len();
    }
    Found::Call(XmlCall {
        name,
        span: all.start()..close_at + close.len(),
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals<'a>(t: &'a str, c: &XmlCall<'a>) -> Vec<(&'a str, &'a str)> {
        c.params.iter().map(|(k, r)| (*k, &t[r.clone()])).collect()
    }

    #[test]
    fn finds_a_call_inside_prose_and_trims_values() {
        let t = "I'll run it.\n\n<execute_command>\n<command> npm test </command>\n<cwd>web</cwd>\n</execute_command>";
        let Found::Call(c) = find(t) else { panic!() };
        assert_eq!(c.name, "execute_command");
        assert_eq!(&t[c.span.clone()], &t[14..]);
        assert_eq!(vals(t, &c), vec![("command", "npm test"), ("cwd", "web")]);
    }

    #[test]
    fn content_keeps_inner_whitespace_and_its_own_closing_tag() {
        let t =
            "<write_to_file><path>a</path><content>\n  x</content>y\n</content></write_to_file>";
        let Found::Call(c) = find(t) else { panic!() };
        assert_eq!(
            vals(t, &c),
            vec![("path", "a"), ("content", "  x</content>y")]
        );
    }

    #[test]
    fn unknown_tags_are_text_and_unclosed_calls_are_partial() {
        assert_eq!(find("<div>x</div>"), Found::None);
        assert_eq!(
            find("<read_file><path>a</path>"),
            Found::Partial { name: "read_file" }
        );
        assert_eq!(find("no tags"), Found::None);
    }
}
