//! The image pass of OpenClaw 2026.9.6's history (`sanitizeSessionMessagesImages` in
//! `embedded-agent-helpers`), which no longer depends on the policy's `sanitizeMode`.
//!
//! Anthropic and Bedrock reject a message whose content is empty or only blank text, and Gemini
//! rejects thought signatures it did not issue; 2026.3.23 cleaned those only in `full` mode, so
//! OpenAI-compatible providers (`images-only`) still received them. 2026.9.6 cleans every
//! provider's history the same way:
//! - tool results and user turns with array content lose blank text blocks, and one left empty gets
//!   `[{type:"text", text:"[empty content omitted]"}]` (a tool result whose content is not an array
//!   counts as empty);
//! - assistant turns with array content lose their thought signatures (unless the policy preserves
//!   signatures or the turn errored) and their blank text blocks, even beside signed thinking; one
//!   left empty is dropped, errored or not, unless it carries `providerReplay` state (an object
//!   with a `type`: one without is not seen here, and its turn is dropped).
//!
//! - an `image` block without a string `data` and `mimeType` becomes the text note
//!   `[<label>] omitted image payload: missing data or mimeType` (2026.3.23 passed it on, and the
//!   provider rejected the request).
//!
//! The image step itself (decode, measure, re-encode) is 2026.3.23's, called as it is.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{extra, Block, Content, Msg};
use crate::transcript::rules::images::{
    drop_blank_text, note_if_empty, remove_noted, sanitize_content_blocks_images, ImagePassOptions,
};
use crate::transcript::rules::thought_signatures::strip_message_thought_signatures;

/// What an emptied tool result or user turn holds instead.
pub const EMPTY_CONTENT: &str = "[empty content omitted]";

fn images(m: &mut Msg, ctx: &mut Ctx, opts: &ImagePassOptions) -> bool {
    let noted = note_missing_payloads(m, ctx, &opts.label);
    sanitize_content_blocks_images(std::slice::from_mut(m), ctx, opts) | noted
}

fn missing_payload(b: &Block) -> bool {
    b.is_object && b.is_image() && (b.data().is_none() || b.mime_type().as_str().is_none())
}

/// Image blocks without a string `data` and `mimeType` become a text note.
fn note_missing_payloads(m: &mut Msg, ctx: &mut Ctx, label: &str) -> bool {
    if !m.blocks().is_some_and(|bs| bs.iter().any(missing_payload)) {
        return false;
    }
    let note = format!("[{label}] omitted image payload: missing data or mimeType");
    let path = msg_path(m);
    if let Some(bs) = m.blocks_mut() {
        for b in bs.iter_mut().filter(|b| missing_payload(b)) {
            ctx.change("sanitizeImages", path, || note.clone());
            *b = Block::new_text(&note);
        }
    }
    true
}

/// Blank text dropped; nothing left: the placeholder.
fn non_empty(m: &mut Msg, ctx: &mut Ctx) -> bool {
    let mut changed = drop_blank_text(m, ctx);
    if m.blocks().is_some_and(Vec::is_empty) {
        ctx.change("sanitizeImages", msg_path(m), || {
            format!("empty content became {EMPTY_CONTENT:?}")
        });
        m.set_blocks(vec![Block::new_text(EMPTY_CONTENT)]);
        changed = true;
    }
    changed
}

/// The pass over the whole history; `opts.sanitize_mode` and `opts.sanitize_tool_call_ids` are
/// not read (2026.9.6 rewrites ids after pairing).
pub fn sanitize_session_messages_images(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    opts: &ImagePassOptions,
) -> bool {
    let mut changed = false;
    let mut remove = Vec::new();
    for (i, m) in msgs.iter_mut().enumerate() {
        match m.role() {
            Some("toolResult") => {
                if !matches!(m.content, Content::Blocks(_)) {
                    m.set_blocks(Vec::new());
                    changed = true;
                }
                changed |= images(m, ctx, opts);
                changed |= non_empty(m, ctx);
            }
            Some("user") if m.blocks().is_some() => {
                changed |= images(m, ctx, opts);
                changed |= non_empty(m, ctx);
            }
            Some("assistant") if m.blocks().is_some() => {
                if m.stop_reason.as_str() != Some("error") && !opts.preserve_signatures {
                    changed |=
                        strip_message_thought_signatures(m, ctx, opts.sanitize_thought_signatures);
                }
                changed |= drop_blank_text(m, ctx);
                changed |= images(m, ctx, opts);
                // A turn with replay state stays, empty (its checkpoint goes with the blocks:
                // `super::compaction_replay`).
                if m.extra(extra::REPLAY_TYPE).is_absent() {
                    note_if_empty(m, i, ctx, &mut remove);
                }
            }
            _ => {}
        }
    }
    changed | remove_noted(msgs, remove)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn pass(input: &serde_json::Value) -> Vec<serde_json::Value> {
        let opts = ImagePassOptions {
            sanitize_mode: crate::transcript::policy::SanitizeMode::ImagesOnly,
            label: "session:history".into(),
            ..ImagePassOptions::default()
        };
        run(input, |m, c| {
            sanitize_session_messages_images(m, c, &opts);
        })
        .0
    }

    #[test]
    fn an_image_without_data_or_mime_type_becomes_a_note() {
        let input = json!([{"role": "user", "content": [
            {"type": "text", "text": "看图"},
            {"type": "image", "data": "iVBORw0KGgo="},
            {"type": "image", "mimeType": "image/png"},
        ]}]);
        let out = pass(&input);
        let note = "[session:history] omitted image payload: missing data or mimeType";
        assert_eq!(
            out[0]["content"],
            json!([{"type": "text", "text": "看图"}, {"type": "text", "text": note}, {"type": "text", "text": note}])
        );
    }

    #[test]
    fn images_only_mode_cleans_blank_text_and_empty_content_too() {
        let input = json!([
            {"role": "user", "content": [{"type": "text", "text": " "}]},
            {"role": "assistant", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "答"}]},
            {"role": "toolResult", "toolCallId": "c", "content": []},
            {"role": "toolResult", "toolCallId": "d", "content": "字符串内容"},
            {"role": "assistant", "stopReason": "error", "content": [{"type": "text", "text": "  "}]},
        ]);
        let out = pass(&input);
        let empty = json!([{"type": "text", "text": "[empty content omitted]"}]);
        assert_eq!(out.len(), 4, "the errored assistant left empty is dropped");
        assert_eq!(out[0]["content"], empty);
        assert_eq!(out[1]["content"], json!([{"type": "text", "text": "答"}]));
        assert_eq!(out[2]["content"], empty);
        assert_eq!(out[3]["content"], empty);
    }

    #[test]
    fn string_user_content_and_clean_turns_stay() {
        let input = json!([
            {"role": "user", "content": "  "},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "toolResult", "toolCallId": "c", "content": [{"type": "text", "text": "r"}]},
        ]);
        let (out, identity) = run(&input, |m, c| {
            sanitize_session_messages_images(m, c, &ImagePassOptions::default());
        });
        assert!(identity);
        assert_eq!(serde_json::Value::Array(out), input);
    }
}
