//! Which tool-call style a history is in, with the evidence: native blocks (`json`), or calls
//! and results written as text (`xml`: flattened by a resume, or genuine XML protocol). A
//! `mixed` history is the state seed 001 describes, and the one to migrate; Roo decided a task's
//! protocol from its last call's id, which a mixed history defeats. A native call answered by a
//! result text ([`super::text_result`]) makes a history mixed too: `text_result` evidence.

use serde_json::{json, Value};

use super::flat_call::{self, Parsed};
use super::model::{Block, Content, History};
use super::{call_less, flat_result, text_result, xml_call, xml_result};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub path: String,
    pub kind: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub style: &'static str,
    pub evidence: Vec<Evidence>,
}

impl Detected {
    pub fn to_json(&self) -> Value {
        json!({
            "style": self.style,
            "evidence": self.evidence.iter().map(|e| json!({"path": e.path, "kind": e.kind})).collect::<Vec<_>>(),
        })
    }
}

/// `xml_answered`: the next user message answers in the XML protocol (`[<desc>] Result:`) and has
/// no flattened result, so a padded call alone in its block is genuine XML (as recovery reads it).
fn text_kind(assistant: bool, xml_answered: bool, t: &str) -> Option<&'static str> {
    if assistant {
        match flat_call::parse(t) {
            Parsed::Call(_) | Parsed::Broken { .. } if !xml_answered => {
                return Some("flattened_call")
            }
            _ => {}
        }
        matches!(xml_call::find(t), xml_call::Found::Call(_)).then_some("xml_call")
    } else if flat_result::parse(t).is_some() {
        Some("flattened_result")
    } else {
        xml_result::parse(t).is_some().then_some("xml_result")
    }
}

pub fn detect(h: &History) -> Detected {
    let mut evidence = Vec::new();
    let (mut json, mut xml) = (false, false);
    for (m, msg) in h.msgs.iter().enumerate() {
        let assistant = msg.role == "assistant";
        let xml_answered = assistant
            && h.msgs.get(m + 1).is_some_and(|u| {
                u.role == "user"
                    && call_less::has_xml_result(h, m + 1)
                    && !u.blocks().iter().any(|b| {
                        matches!(b, Block::Text(ti) if flat_result::parse(h.text(*ti)).is_some())
                    })
            });
        // Result texts that answer the previous message's native calls (Cline).
        let answers: Vec<usize> = match m.checked_sub(1) {
            Some(a) if !assistant && h.msgs[a].role == "assistant" => {
                text_result::unanswered(h, a, m, &Default::default())
                    .into_iter()
                    .filter_map(|c| c.text)
                    .collect()
            }
            _ => Vec::new(),
        };
        match &msg.content {
            Content::Str(ti) => {
                if let Some(kind) = text_kind(assistant, xml_answered, h.text(*ti)) {
                    xml = true;
                    evidence.push(Evidence {
                        path: format!("history[{m}].content"),
                        kind,
                    });
                }
            }
            Content::Blocks(blocks) => {
                for (b, blk) in blocks.iter().enumerate() {
                    let kind = match blk {
                        Block::ToolUse { .. } => Some("tool_use"),
                        Block::ToolResult { .. } => Some("tool_result"),
                        Block::Text(_) if answers.contains(&b) => Some("text_result"),
                        Block::Text(ti) => text_kind(assistant, xml_answered, h.text(*ti)),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        if kind.starts_with("tool_") {
                            json = true;
                        } else {
                            xml = true;
                        }
                        evidence.push(Evidence {
                            path: format!("history[{m}].content[{b}]"),
                            kind,
                        });
                    }
                }
            }
            Content::Other => {}
        }
    }
    let style = match (json, xml) {
        (true, true) => "mixed",
        (true, false) => "json",
        (false, true) => "xml",
        (false, false) => "none",
    };
    Detected { style, evidence }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::model::build::{tool_use, B};
    use crate::tool_style::model::ResultContent;
    use serde_json::json;

    #[test]
    fn native_flattened_mixed_and_none() {
        let mut b = B::default();
        b.str_msg("user", "hi");
        assert_eq!(detect(&b.h).style, "none");
        b.msg("assistant", vec![tool_use("a", "read_file", json!({}))]);
        b.msg(
            "user",
            vec![Block::ToolResult {
                id: Some("a".into()),
                content: ResultContent::None,
                is_error: false,
            }],
        );
        assert_eq!(detect(&b.h).style, "json");
        let t = b.text("<read_file>\n<path>\na\n</path>\n</read_file>");
        b.msg("assistant", vec![t]);
        let d = detect(&b.h);
        assert_eq!(d.style, "mixed");
        assert_eq!(
            d.evidence.last(),
            Some(&Evidence {
                path: "history[3].content[0]".into(),
                kind: "flattened_call"
            })
        );
    }

    #[test]
    fn a_padded_call_answered_in_the_xml_protocol_is_an_xml_call() {
        let mut b = B::default();
        let t = b.text("<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>");
        b.msg("assistant", vec![t]);
        let r = b.text("[attempt_completion] Result:");
        b.msg("user", vec![r]);
        let kinds: Vec<&str> = detect(&b.h).evidence.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, vec!["xml_call", "xml_result"]);
    }

    #[test]
    fn genuine_xml_protocol_is_xml() {
        let mut b = B::default();
        b.str_msg(
            "assistant",
            "Reading.\n<read_file>\n<path>a</path>\n</read_file>",
        );
        let r = b.text("[read_file for 'a'] Result:");
        b.msg("user", vec![r]);
        let d = detect(&b.h);
        assert_eq!(d.style, "xml");
        assert_eq!(
            d.evidence.iter().map(|e| e.kind).collect::<Vec<_>>(),
            vec!["xml_call", "xml_result"]
        );
    }

    #[test]
    fn a_native_call_answered_by_a_result_text_is_mixed() {
        let mut b = B::default();
        b.msg(
            "assistant",
            vec![tool_use("t1", "execute_command", json!({"command": "ls"}))],
        );
        let r = b.text("[execute_command for 'ls'] Result:\n说明.md");
        b.msg("user", vec![r]);
        let d = detect(&b.h);
        assert_eq!(d.style, "mixed");
        assert_eq!(
            d.evidence.iter().map(|e| e.kind).collect::<Vec<_>>(),
            vec!["tool_use", "text_result"]
        );
        // Prose that is no result leaves the history native.
        let mut b = B::default();
        b.msg(
            "assistant",
            vec![tool_use("t1", "execute_command", json!({"command": "ls"}))],
        );
        let r = b.text("Please run [execute_command for 'ls'] Result: later");
        b.msg("user", vec![r]);
        assert_eq!(detect(&b.h).style, "json");
    }
}
