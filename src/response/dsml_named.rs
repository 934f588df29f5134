//! A DSML call whose tag is the tool's own name, as Cline models served as DeepSeek leaked it
//! (pi-free pull requests 377, 381, 382 and 383):
//!
//! ```text
//! <｜DSML｜read_file>
//!  <｜DSML｜path>C:/src/strategy-memory.ts</｜DSML｜path>
//! </｜DSML｜invoke>
//! ```
//!
//! The fields are `<｜DSML｜KEY>VALUE` closed by `</｜DSML｜KEY>` or the generic
//! `</｜DSML｜parameter>`, or plain `<KEY>VALUE</KEY>`; the call closes with `</｜DSML｜invoke>` or
//! `</｜DSML｜NAME>`. Nothing in the markup says it is a call but the tag, so it is read only when
//! `NAME` is exactly one of the offered tools (never one of DSML's own tag names), and only when
//! every field and the closing tag are there: anything else stays text. Values are trimmed and
//! typed by the tool's schema ([`Style::Glm`]: a string unless the schema or the value's JSON says
//! otherwise). This reader sees the canonical spelling of the bars ([`super::dsml`]).

use serde_json::Value;

use super::bare_json::offered;
use super::deepseek_v32::Written;
use super::scan::{find_from, Budget};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed};

/// The start of every DSML tag in the canonical spelling.
pub const OPEN: &str = "<｜DSML｜";
const INVOKE_END: &str = "</｜DSML｜invoke>";
const PARAM_END: &str = "</｜DSML｜parameter>";
/// DSML's own tag names, never a tool's tag here.
const RESERVED: &[&str] = &[
    "function_calls",
    "tool_calls",
    "invoke",
    "parameter",
    "toolcall",
];
/// The longest tool name read from a tag.
const MAX_NAME: usize = 64;

/// The tool named by a tag head at the start of `s` (`<｜DSML｜NAME>`): `Some(Some(name))` when it
/// names an offered tool, `Some(None)` when it cannot, `None` when `s` ends before that is known
/// (a stream's buffer).
pub fn head<'t>(s: &str, tools: Option<&'t Value>) -> Option<Option<&'t str>> {
    let Some(rest) = s.strip_prefix(OPEN) else {
        // Cut inside the tag's head: more text may still make it one.
        return if OPEN.starts_with(s) {
            None
        } else {
            Some(None)
        };
    };
    let window = &rest.as_bytes()[..rest.len().min(MAX_NAME + 1)];
    let Some(gt) = memchr::memchr(b'>', window) else {
        let could = window.len() <= MAX_NAME
            && super::bare_json::names(tools).any(|n| n.as_bytes().starts_with(window));
        return if could { None } else { Some(None) };
    };
    let name = &rest[..gt];
    if RESERVED.contains(&name) || !offered(tools, name) {
        return Some(None);
    }
    Some(super::bare_json::names(tools).find(|n| *n == name))
}

/// The named-tag calls of `text` (canonical DSML spelling) added to `out`; `written` gives each
/// value as the model wrote it (the map rewrites DSML tags named inside a value).
pub fn read(text: &str, cx: &Ctx, out: &mut Parsed, written: &Written) {
    if !super::tool_json::offers_tools(cx.tools) {
        return;
    }
    // Each call's fields are looked for up to their closing tags; the budget keeps many unclosed
    // tags linear (the search stops once it is spent).
    let mut budget = Budget::for_text(text);
    let mut at = 0;
    while let Some(start) = find_from(text, OPEN, at) {
        at = start + OPEN.len();
        let Some(Some(name)) = head(&text[start..], cx.tools) else {
            continue;
        };
        let body_at = start + OPEN.len() + name.len() + 1;
        let Some((pairs, end)) = fields(text, body_at, name, &mut budget) else {
            if budget.spent() {
                return;
            }
            continue;
        };
        let overlaps = |b: &Block| b.start < end && start < b.end;
        if out
            .blocks
            .iter()
            .any(|b| overlaps(b) && !b.calls.is_empty())
        {
            continue;
        }
        // What the DSML grammar made of its stray closing tags belongs to this call.
        out.blocks.retain(|b| !overlaps(b));
        let pairs: Vec<(&str, &str)> = pairs
            .into_iter()
            .map(|(k, v)| (k, written(v).unwrap_or(v)))
            .collect();
        let arguments = typed_arguments(pairs, cx.tools, name, Style::Glm);
        at = super::dsml::push_call(out, (start, end), name, arguments);
    }
    out.blocks.sort_by_key(|b| b.start);
}

/// The fields from `at` to the call's closing tag, and the end of that tag; `None` when anything
/// between is not a field (or the call never closes).
fn fields<'a>(
    text: &'a str,
    mut at: usize,
    name: &str,
    budget: &mut Budget,
) -> Option<(Vec<(&'a str, &'a str)>, usize)> {
    let name_end = format!("</｜DSML｜{name}>");
    let mut pairs = Vec::new();
    loop {
        let rest = text[at..].trim_start();
        at = text.len() - rest.len();
        if let Some(c) = [INVOKE_END, name_end.as_str()]
            .into_iter()
            .find(|c| rest.starts_with(c))
        {
            return Some((pairs, at + c.len()));
        }
        // `<｜DSML｜KEY>` or `<KEY>`.
        let (dsml, key_at) = match rest.strip_prefix(OPEN) {
            Some(_) => (true, at + OPEN.len()),
            None if rest.starts_with('<') && !rest.starts_with("</") => (false, at + 1),
            None => return None,
        };
        let gt = memchr::memchr(
            b'>',
            &text.as_bytes()[key_at..text.len().min(key_at + MAX_NAME + 1)],
        )?;
        let key = &text[key_at..key_at + gt];
        if key.is_empty() || !super::scan::is_name(key) || RESERVED.contains(&key) {
            return None;
        }
        let value_at = key_at + gt + 1;
        let own_close = if dsml {
            format!("</｜DSML｜{key}>")
        } else {
            format!("</{key}>")
        };
        let closes: &[&str] = if dsml {
            &[own_close.as_str(), PARAM_END]
        } else {
            &[own_close.as_str()]
        };
        let mut found = Vec::new();
        for c in closes {
            let hit = find_from(text, c, value_at);
            if !budget.charge(hit.unwrap_or(text.len()) - value_at) {
                return None;
            }
            found.extend(hit.map(|i| (i, c.len())));
        }
        let (value_end, close_len) = found.into_iter().min()?;
        let value = &text[value_at..value_end];
        // A value never holds the call's closing tag (a field left open would swallow the call).
        if value.contains(INVOKE_END) {
            return None;
        }
        pairs.push((key, value.trim()));
        at = value_end + close_len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Value {
        json!([{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
               {"type": "function", "function": {"name": "execute_command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}}}}}])
    }

    #[test]
    fn heads_need_an_offered_tool() {
        let t = tools();
        assert_eq!(
            head("<｜DSML｜read_file>", Some(&t)),
            Some(Some("read_file"))
        );
        assert_eq!(head("<｜DSML｜write_file>", Some(&t)), Some(None));
        assert_eq!(head("<｜DSML｜invoke>", Some(&t)), Some(None));
        assert_eq!(head("<｜DSML｜read_fi", Some(&t)), None);
        assert_eq!(head("<｜DS", Some(&t)), None);
        assert_eq!(head("<｜DSML｜read_file>", None), Some(None));
    }

    #[test]
    fn reads_mixed_fields_and_stays_off_anything_else() {
        let t = tools();
        let cx = Ctx {
            tools: Some(&t),
            unwrapped: false,
        };
        let text = "好的\n<｜DSML｜execute_command>\n <｜DSML｜command>ls -la</｜DSML｜parameter>\n <timeout>600</timeout>\n</｜DSML｜invoke>\n完成";
        let mut p = Parsed::default();
        read(text, &cx, &mut p, &|_| None);
        assert_eq!(
            p.call_pairs(),
            [(
                "execute_command".into(),
                r#"{"command":"ls -la","timeout":600}"#.into()
            )]
        );
        assert_eq!(&text[p.blocks[0].end..], "\n完成");
        // No closing tag, a stray word between fields, an unoffered tool: no call.
        for bad in [
            "<｜DSML｜read_file>\n<｜DSML｜path>a</｜DSML｜path>\n",
            "<｜DSML｜read_file> see <｜DSML｜path>a</｜DSML｜path></｜DSML｜invoke>",
            "<｜DSML｜open_file><｜DSML｜path>a</｜DSML｜path></｜DSML｜invoke>",
        ] {
            let mut p = Parsed::default();
            read(bad, &cx, &mut p, &|_| None);
            assert!(p.blocks.is_empty(), "{bad}");
        }
    }
}
