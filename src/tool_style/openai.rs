//! The Anthropic-format history as OpenAI chat messages, as Kilo's `convertToOpenAiMessages` built
//! them (reference A5), with one repair: Kilo replaced each image of a tool result with the text
//! `(see following user message for image)` but, that code being commented out, never sent the
//! image. Here the text stays, as a pointer that is now true, and the images go in the user
//! message that follows the tool messages (OpenAI's tool messages cannot carry images).
//!
//! - String content: `{role, content}`.
//! - User side: one `tool` message per `tool_result`, in block order (string content as is, text
//!   parts joined with `\n`); then one `user` message with the tool results' images and the
//!   message's own text and image blocks, when there are any. Other blocks are dropped.
//! - A native call the next user message answers with no `tool_result` (Cline stored its result
//!   as user text): a `tool` message right after the others, holding that text, which leaves the
//!   user message; with no such text, `result missing`, as Cline sends ([`text_result`]).
//! - Assistant: `content` is the text blocks joined with `\n` (left out when there are none),
//!   `tool_calls` one per `tool_use` (left out when none); thinking blocks are dropped;
//!   `reasoning_details` passes through.
//!
//! The answer names blocks and texts of the input; js/tool_style.js builds the messages, and
//! `arguments` is `JSON.stringify(input)` there.

use std::collections::HashSet;

use super::model::{Block, Content, History, Part, ResultContent};
use super::plan::{write_pieces, write_str, Piece, Str};
use super::text_result;

pub const IMAGE_POINTER: &str = "(see following user message for image)";

fn joined(items: Vec<Str>, sep: &str) -> Str {
    let mut out = Vec::new();
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(Piece::Lit(sep.into()));
        }
        out.extend(s);
    }
    out
}

/// One part of a user message's array content.
#[derive(Debug, Clone, PartialEq)]
pub enum OutPart {
    Text(usize),
    /// Block `b` (and part `s` of its content, for a tool result's image); `url`: a URL source.
    Image {
        b: usize,
        s: Option<usize>,
        url: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The message as it is (content that is neither a string nor blocks).
    Copy,
    Text(Str),
    Assistant {
        content: Option<Str>,
        calls: Vec<usize>,
    },
    Tool {
        id: Option<String>,
        content: Str,
    },
    Parts(Vec<OutPart>),
}

/// One output message, built from input message `from`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutMsg {
    pub from: usize,
    pub role: String,
    pub kind: Kind,
}

/// The output messages.
pub fn to_openai(h: &History) -> Vec<OutMsg> {
    let mut out = Vec::new();
    for (m, msg) in h.msgs.iter().enumerate() {
        let push = |out: &mut Vec<OutMsg>, role: &str, kind| {
            out.push(OutMsg {
                from: m,
                role: role.to_string(),
                kind,
            })
        };
        // Native calls of the previous message answered by no tool_result: their result texts,
        // or Cline's `result missing` ([`text_result`]). OpenAI rejects a call with no reply.
        let unanswered = match m.checked_sub(1) {
            Some(a) if msg.role == "user" && h.msgs[a].role == "assistant" => {
                text_result::unanswered(h, a, m, &HashSet::new())
            }
            _ => Vec::new(),
        };
        let replies = |out: &mut Vec<OutMsg>| {
            for c in &unanswered {
                let content = match c.text.and_then(|b| msg.blocks().get(b)) {
                    Some(Block::Text(ti)) => vec![Piece::Whole(*ti)],
                    _ => vec![Piece::Lit(text_result::RESULT_MISSING.into())],
                };
                out.push(OutMsg {
                    from: m,
                    role: "tool".into(),
                    kind: Kind::Tool {
                        id: Some(c.id.clone()),
                        content,
                    },
                });
            }
        };
        let blocks = match &msg.content {
            Content::Str(ti) => {
                replies(&mut out);
                push(&mut out, &msg.role, Kind::Text(vec![Piece::Whole(*ti)]));
                continue;
            }
            Content::Other => {
                push(&mut out, &msg.role, Kind::Copy);
                continue;
            }
            Content::Blocks(b) => b,
        };
        if msg.role == "assistant" {
            let texts: Vec<Str> = blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Text(ti) => Some(vec![Piece::Whole(*ti)]),
                    Block::Image { .. } => Some(Vec::new()),
                    _ => None,
                })
                .collect();
            let has_text = blocks.iter().any(|b| matches!(b, Block::Text(_)));
            let calls: Vec<usize> = (0..blocks.len())
                .filter(|&b| matches!(blocks[b], Block::ToolUse { .. }))
                .collect();
            let content = has_text.then(|| joined(texts, "\n"));
            push(&mut out, "assistant", Kind::Assistant { content, calls });
            continue;
        }
        let mut parts = Vec::new();
        for (b, blk) in blocks.iter().enumerate() {
            let Block::ToolResult { id, content, .. } = blk else {
                continue;
            };
            let text: Str = match content {
                ResultContent::None => Vec::new(),
                ResultContent::Str(ti) => vec![Piece::Whole(*ti)],
                ResultContent::Parts(ps) => {
                    let mut items = Vec::new();
                    for (s, p) in ps.iter().enumerate() {
                        match p {
                            Part::Text(ti) => items.push(vec![Piece::Whole(*ti)]),
                            Part::Image { url } => {
                                items.push(vec![Piece::Lit(IMAGE_POINTER.into())]);
                                parts.push(OutPart::Image {
                                    b,
                                    s: Some(s),
                                    url: *url,
                                });
                            }
                            Part::Other => {}
                        }
                    }
                    joined(items, "\n")
                }
            };
            push(
                &mut out,
                "tool",
                Kind::Tool {
                    id: id.clone(),
                    content: text,
                },
            );
        }
        replies(&mut out);
        for (b, blk) in blocks.iter().enumerate() {
            match blk {
                Block::Text(_) if unanswered.iter().any(|c| c.text == Some(b)) => {}
                Block::Text(ti) => parts.push(OutPart::Text(*ti)),
                Block::Image { url } => parts.push(OutPart::Image {
                    b,
                    s: None,
                    url: *url,
                }),
                _ => {}
            }
        }
        if !parts.is_empty() {
            push(&mut out, &msg.role, Kind::Parts(parts));
        }
    }
    out
}

fn write_content(out: &mut String, s: &Str) {
    out.push_str(",\"content\":{\"s\":");
    write_pieces(out, s);
    out.push('}');
}

/// The answer as JSON text for js/tool_style.js: `{"messages": [...]}`, each message
/// `{from, role}` plus `copy`, `content: {s} | {parts}`, `toolCalls`, `toolCallId`, `reasoning`.
pub fn to_json_string(msgs: &[OutMsg]) -> String {
    let mut out = String::from("{\"messages\":[");
    for (k, m) in msgs.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"from\":{},\"role\":", m.from));
        write_str(&mut out, &m.role);
        match &m.kind {
            Kind::Copy => out.push_str(",\"copy\":true"),
            Kind::Text(s) => write_content(&mut out, s),
            Kind::Assistant { content, calls } => {
                out.push_str(",\"reasoning\":true");
                if let Some(c) = content {
                    write_content(&mut out, c);
                }
                if !calls.is_empty() {
                    let list: Vec<String> = calls.iter().map(usize::to_string).collect();
                    out.push_str(&format!(",\"toolCalls\":[{}]", list.join(",")));
                }
            }
            Kind::Tool { id, content } => {
                out.push_str(",\"toolCallId\":");
                match id {
                    Some(id) => write_str(&mut out, id),
                    None => out.push_str("null"),
                }
                write_content(&mut out, content);
            }
            Kind::Parts(parts) => {
                out.push_str(",\"content\":{\"parts\":[");
                for (j, p) in parts.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    match p {
                        OutPart::Text(ti) => out.push_str(&format!("{{\"text\":[[{ti}]]}}")),
                        OutPart::Image { b, s: Some(s), url } => {
                            out.push_str(&format!("{{\"image\":[{b},{s}],\"url\":{url}}}"))
                        }
                        OutPart::Image { b, s: None, url } => {
                            out.push_str(&format!("{{\"image\":[{b}],\"url\":{url}}}"))
                        }
                    }
                }
                out.push_str("]}");
            }
        }
        out.push('}');
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::model::build::{tool_use, B};
    use serde_json::{json, Value};

    fn answer(h: &History) -> Vec<Value> {
        let v: Value = serde_json::from_str(&to_json_string(&to_openai(h))).expect("valid JSON");
        v["messages"].as_array().cloned().unwrap_or_default()
    }

    #[test]
    fn tool_messages_first_then_one_user_message_with_the_tool_images() {
        let mut b = B::default();
        let prose = b.text("reading");
        b.msg(
            "assistant",
            vec![
                prose,
                tool_use("c1", "browser_action", json!({"action": "launch"})),
                Block::Other,
            ],
        );
        let shot = b.t("Screenshot taken");
        let note = b.text("<environment_details>x</environment_details>");
        b.msg(
            "user",
            vec![
                note,
                Block::ToolResult {
                    id: Some("c1".into()),
                    content: ResultContent::Parts(vec![
                        Part::Text(shot),
                        Part::Image { url: false },
                    ]),
                    is_error: false,
                },
            ],
        );
        let o = answer(&b.h);
        assert_eq!(
            o[0],
            json!({"from": 0, "role": "assistant", "reasoning": true, "content": {"s": [[0]]}, "toolCalls": [1]})
        );
        assert_eq!(
            o[1],
            json!({"from": 1, "role": "tool", "toolCallId": "c1", "content": {"s": [[1], "\n", IMAGE_POINTER]}})
        );
        assert_eq!(
            o[2],
            json!({"from": 1, "role": "user", "content": {"parts": [{"image": [1, 1], "url": false}, {"text": [[2]]}]}})
        );
        assert_eq!(o.len(), 3);
    }

    #[test]
    fn only_tool_results_give_no_user_message_and_no_text_gives_no_content() {
        let mut b = B::default();
        b.msg("assistant", vec![tool_use("c1", "x", json!({}))]);
        b.msg(
            "user",
            vec![Block::ToolResult {
                id: Some("c1".into()),
                content: ResultContent::None,
                is_error: false,
            }],
        );
        let o = answer(&b.h);
        assert_eq!(
            o[0],
            json!({"from": 0, "role": "assistant", "reasoning": true, "toolCalls": [0]})
        );
        assert_eq!(
            o[1],
            json!({"from": 1, "role": "tool", "toolCallId": "c1", "content": {"s": []}})
        );
        assert_eq!(o.len(), 2);
    }

    #[test]
    fn a_call_answered_by_result_text_gets_that_text_as_its_tool_message() {
        let mut b = crate::tool_style::text_result::two_calls_one_answered();
        b.msg("assistant", vec![tool_use("t3", "list_files", json!({}))]);
        b.str_msg("user", "继续");
        let o = answer(&b.h);
        assert_eq!(
            o[1],
            json!({"from": 1, "role": "tool", "toolCallId": "t1", "content": {"s": [[0]]}})
        );
        assert_eq!(
            o[2],
            json!({"from": 1, "role": "tool", "toolCallId": "t2", "content": {"s": ["result missing"]}})
        );
        assert_eq!(
            o[3],
            json!({"from": 1, "role": "user", "content": {"parts": [{"text": [[1]]}]}})
        );
        assert_eq!(
            o[5],
            json!({"from": 3, "role": "tool", "toolCallId": "t3", "content": {"s": ["result missing"]}})
        );
        assert_eq!(
            o[6],
            json!({"from": 3, "role": "user", "content": {"s": [[2]]}})
        );
        assert_eq!(o.len(), 7);
    }
}
