//! The first step of OpenClaw 2026.9.6's history pass (`normalizeAssistantReplayContent`), for
//! the parts decided by block types alone.
//!
//! 2026.9.6 stopped replaying what the model never needs to see again:
//! - media blocks in assistant turns (`attachment`, `attachment_error`, `audio`, `image`,
//!   `video`): they are what OpenClaw displayed, not what the model wrote, and providers reject
//!   images in assistant content; a turn holding nothing else is dropped;
//! - a turn cut by the length limit (`stopReason: "length"`) that holds only reasoning (and blank
//!   text): replaying it makes the model continue a thought it never finished.
//!
//! The rest of that step (NO_REPLY text, OpenClaw's internal metadata in text, delivery mirrors,
//! stream-error placeholders, blank user turns) reads message text or fields the skeleton does not
//! carry; `__test__/openclaw96-history.spec.mjs` lists them as not done.

use super::is_reasoning;
use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{Block, Msg};

/// Block types OpenClaw shows but does not replay from an assistant turn.
const DISPLAY_ONLY: &[&str] = &["attachment", "attachment_error", "audio", "image", "video"];

fn display_only(b: &Block) -> bool {
    b.is_object && b.ty().is_some_and(|t| DISPLAY_ONLY.contains(&t))
}

/// Only reasoning blocks and blank text, with at least one reasoning block (2026.9.6's
/// `hasOnlyAssistantReasoningContent`, on array content).
fn only_reasoning(blocks: &[Block]) -> bool {
    let blank_text = |b: &Block| b.is_type("text") && b.text.as_ref().is_some_and(|t| t.blank);
    blocks
        .iter()
        .all(|b| b.is_object && (is_reasoning(b) || blank_text(b)))
        && blocks.iter().any(is_reasoning)
}

/// Removes display-only blocks from assistant turns and drops the turns the step drops.
pub fn normalize_assistant_replay_content(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    let mut changed = false;
    let mut remove = Vec::new();
    for (i, m) in msgs.iter_mut().enumerate() {
        if !m.is_role("assistant") {
            continue;
        }
        let Some(blocks) = m.blocks() else { continue };
        if blocks.iter().any(display_only) {
            for b in blocks.iter().filter(|b| display_only(b)) {
                ctx.change("normalizeAssistantReplayContent", block_path(m, b), || {
                    "dropped a display-only block from an assistant turn".into()
                });
            }
            if let Some(bs) = m.blocks_mut() {
                bs.retain(|b| !display_only(b));
            }
            changed = true;
            if m.blocks().is_some_and(Vec::is_empty) {
                remove.push(i);
                continue;
            }
        }
        let length_cut = m.stop_reason.as_str() == Some("length");
        if length_cut && m.blocks().is_some_and(|bs| only_reasoning(bs)) {
            ctx.change("normalizeAssistantReplayContent", msg_path(m), || {
                "dropped a reasoning-only turn cut by the length limit".into()
            });
            remove.push(i);
        }
    }
    for i in remove.iter().rev() {
        msgs.remove(*i);
    }
    changed || !remove.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn pass(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            normalize_assistant_replay_content(m, c);
        })
    }

    #[test]
    fn media_blocks_leave_assistant_turns_only() {
        let input = json!([
            {"role": "user", "content": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "猫"}, {"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            {"role": "assistant", "content": [{"type": "audio", "data": "x"}, {"type": "video"}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], input[0]);
        assert_eq!(out[1]["content"], json!([{"type": "text", "text": "猫"}]));
    }

    #[test]
    fn a_length_cut_turn_of_reasoning_only_is_dropped_and_one_with_text_stays() {
        let input = json!([
            {"role": "assistant", "stopReason": "length", "content": [{"type": "thinking", "thinking": "想"}, {"type": "text", "text": " "}]},
            {"role": "assistant", "stopReason": "length", "content": [{"type": "thinking", "thinking": "想"}, {"type": "text", "text": "半句"}]},
            {"role": "assistant", "stopReason": "stop", "content": [{"type": "thinking", "thinking": "想"}]},
            {"role": "assistant", "stopReason": "length", "content": [{"type": "text", "text": ""}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out, input.as_array().unwrap()[1..].to_vec());
    }

    #[test]
    fn nothing_to_do_is_the_same_transcript() {
        let input = json!([{"role": "assistant", "content": "text"}, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]);
        assert!(pass(&input).1);
    }
}
