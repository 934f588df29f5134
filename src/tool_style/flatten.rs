//! `'xml'` style: native `tool_use` / `tool_result` blocks become text exactly as
//! `resumeTaskFromHistory` wrote them (Cline 2024-10 to 2025-03, Kilo up to v4.118, Roo for XML
//! tasks), so an agent that talks XML to its model can produce the same history, and so the
//! recovery can be tested against the real format.
//!
//! - `tool_use` → `<NAME>\n` + for each input entry `<k>\n` + `String(v)` + `\n</k>` joined with
//!   `\n` + `\n</NAME>`.
//! - `tool_result` → `[NAME Result]\n\n` + the content's text (a string as is; text parts joined
//!   with `\n\n`; images and `is_error` dropped), NAME found by id among the history's tool_use
//!   blocks, `Unknown Tool` when none has that id.
//!
//! Every other block, and string contents, stay as they are; block order is kept.

use std::collections::HashMap;

use super::js_string::js_string;
use super::model::{Block, History, Part, ResultContent};
use super::plan::{write_edits, Edit, Piece, Spec, Str};
use serde_json::Value;

pub const UNKNOWN_TOOL: &str = "Unknown Tool";

pub struct Flattened(pub Vec<Edit>);

impl Flattened {
    pub fn to_json_string(&self) -> String {
        let mut out = String::from("{\"edits\":");
        write_edits(&mut out, &self.0);
        out.push('}');
        out
    }
}

/// The text of a flattened call.
pub fn call_text(name: &str, input: Option<&Value>) -> String {
    let mut s = format!("<{name}>\n");
    if let Some(Value::Object(o)) = input {
        for (i, (k, v)) in o.iter().enumerate() {
            if i > 0 {
                s.push('\n');
            }
            s.push('<');
            s.push_str(k);
            s.push_str(">\n");
            s.push_str(&js_string(v));
            s.push_str("\n</");
            s.push_str(k);
            s.push('>');
        }
    }
    s.push_str("\n</");
    s.push_str(name);
    s.push('>');
    s
}

/// The pieces of a flattened result's text.
pub fn result_text(name: &str, content: &ResultContent) -> Str {
    let mut s = vec![Piece::Lit(format!("[{name} Result]\n\n"))];
    match content {
        ResultContent::None => {}
        ResultContent::Str(i) => s.push(Piece::Whole(*i)),
        ResultContent::Parts(parts) => {
            let mut first = true;
            for p in parts {
                if let Part::Text(i) = p {
                    if !first {
                        s.push(Piece::Lit("\n\n".into()));
                    }
                    first = false;
                    s.push(Piece::Whole(*i));
                }
            }
        }
    }
    s
}

/// The first tool_use name per id, as `findToolName` scans the original history.
pub fn names_by_id(h: &History) -> HashMap<&str, &str> {
    let mut names = HashMap::new();
    for m in &h.msgs {
        for b in m.blocks() {
            if let Block::ToolUse {
                id: Some(id),
                name: Some(name),
                ..
            } = b
            {
                names.entry(id.as_str()).or_insert(name.as_str());
            }
        }
    }
    names
}

pub fn flatten(h: &History) -> Flattened {
    let names = names_by_id(h);
    let mut edits = Vec::new();
    for (mi, m) in h.msgs.iter().enumerate() {
        let blocks = m.blocks();
        if !blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. } | Block::ToolResult { .. }))
        {
            continue;
        }
        let content = blocks
            .iter()
            .enumerate()
            .map(|(bi, b)| match b {
                Block::ToolUse { name, input, .. } => Spec::Text(vec![Piece::Lit(call_text(
                    name.as_deref().unwrap_or("undefined"),
                    input.as_ref(),
                ))]),
                Block::ToolResult { id, content, .. } => {
                    let name = id
                        .as_deref()
                        .and_then(|id| names.get(id).copied())
                        .unwrap_or(UNKNOWN_TOOL);
                    Spec::Text(result_text(name, content))
                }
                _ => Spec::Keep(bi),
            })
            .collect();
        edits.push(Edit { msg: mi, content });
    }
    Flattened(edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::model::build::{tool_use, B};
    use serde_json::json;

    #[test]
    fn a_call_becomes_the_exact_resume_text() {
        let input = json!({"path": "src/a.ts", "content": "x\ny", "line_count": 2, "cwd": null});
        assert_eq!(
            call_text("write_to_file", Some(&input)),
            "<write_to_file>\n<path>\nsrc/a.ts\n</path>\n<content>\nx\ny\n</content>\n<line_count>\n2\n</line_count>\n<cwd>\nnull\n</cwd>\n</write_to_file>"
        );
        assert_eq!(
            call_text("attempt_completion", Some(&json!({}))),
            "<attempt_completion>\n\n</attempt_completion>"
        );
    }

    #[test]
    fn results_name_their_call_by_id_and_unknown_ids_say_unknown_tool() {
        let mut b = B::default();
        let p = b.text("prose");
        let out = b.t("file body");
        b.msg(
            "assistant",
            vec![p, tool_use("t1", "read_file", json!({"path": "a"}))],
        );
        b.msg(
            "user",
            vec![
                Block::ToolResult {
                    id: Some("t1".into()),
                    content: ResultContent::Str(out),
                    is_error: false,
                },
                Block::ToolResult {
                    id: Some("zz".into()),
                    content: ResultContent::None,
                    is_error: true,
                },
            ],
        );
        let f = flatten(&b.h).0;
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].content[0], Spec::Keep(0));
        assert_eq!(
            f[1].content[0],
            Spec::Text(vec![
                Piece::Lit("[read_file Result]\n\n".into()),
                Piece::Whole(out)
            ])
        );
        assert_eq!(
            f[1].content[1],
            Spec::Text(vec![Piece::Lit("[Unknown Tool Result]\n\n".into())])
        );
    }

    #[test]
    fn array_results_keep_text_parts_joined_and_drop_images() {
        let mut b = B::default();
        let a = b.t("[read_file for 'a'] Result:");
        let c = b.t("<files/>");
        let r = result_text(
            "read_file",
            &ResultContent::Parts(vec![
                Part::Text(a),
                Part::Image { url: false },
                Part::Text(c),
            ]),
        );
        assert_eq!(
            r,
            vec![
                Piece::Lit("[read_file Result]\n\n".into()),
                Piece::Whole(a),
                Piece::Lit("\n\n".into()),
                Piece::Whole(c)
            ]
        );
    }

    #[test]
    fn messages_without_tool_blocks_are_not_edited() {
        let mut b = B::default();
        let t = b.text("hello");
        b.msg("user", vec![t])
            .str_msg("assistant", "<read_file>\n</read_file>");
        assert!(flatten(&b.h).0.is_empty());
    }
}
