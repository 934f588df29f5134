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
//! - Assistant: `content` is the text blocks joined with `\n` (left out when there are none),
//!   `tool_calls` one per `tool_use` (left out when none); thinking blocks are dropped;
//!   `reasoning_details` passes through.
//!
//! The answer names blocks and texts of the input; js/tool_style.js builds the messages, and
//! `arguments` is `JSON.stringify(input)` there.

use serde_json::{json, Value};

use super::model::{Block, Content, History, Part, ResultContent};
use super::plan::{str_json, Piece, Str};

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

/// The answer: one entry per output message (`from`: the input message it came from).
pub fn to_openai(h: &History) -> Vec<Value> {
    let mut out = Vec::new();
    for (m, msg) in h.msgs.iter().enumerate() {
        let blocks = match &msg.content {
            Content::Str(ti) => {
                out.push(json!({"from": m, "role": msg.role, "content": {"s": [[ti]]}}));
                continue;
            }
            Content::Other => {
                out.push(json!({"from": m, "role": msg.role, "copy": true}));
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
            let mut o = json!({"from": m, "role": "assistant", "reasoning": true});
            if has_text {
                o["content"] = json!({"s": str_json(&joined(texts, "\n"))});
            }
            if !calls.is_empty() {
                o["toolCalls"] = json!(calls);
            }
            out.push(o);
            continue;
        }
        let mut images = Vec::new();
        for (b, blk) in blocks.iter().enumerate() {
            let Block::ToolResult { id, content, .. } = blk else {
                continue;
            };
            let text: Str = match content {
                ResultContent::None => Vec::new(),
                ResultContent::Str(ti) => vec![Piece::Whole(*ti)],
                ResultContent::Parts(parts) => {
                    let mut items = Vec::new();
                    for (s, p) in parts.iter().enumerate() {
                        match p {
                            Part::Text(ti) => items.push(vec![Piece::Whole(*ti)]),
                            Part::Image { url } => {
                                items.push(vec![Piece::Lit(IMAGE_POINTER.into())]);
                                images.push(json!({"image": [b, s], "url": url}));
                            }
                            Part::Other => {}
                        }
                    }
                    joined(items, "\n")
                }
            };
            out.push(json!({"from": m, "role": "tool", "toolCallId": id, "content": {"s": str_json(&text)}}));
        }
        let mut parts = images;
        for (b, blk) in blocks.iter().enumerate() {
            match blk {
                Block::Text(ti) => parts.push(json!({"text": [[ti]]})),
                Block::Image { url } => parts.push(json!({"image": [b], "url": url})),
                _ => {}
            }
        }
        if !parts.is_empty() {
            out.push(json!({"from": m, "role": msg.role, "content": {"parts": parts}}));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::model::build::{tool_use, B};

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
        let o = to_openai(&b.h);
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
        let o = to_openai(&b.h);
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
}
