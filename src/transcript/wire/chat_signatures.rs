//! Gemini's thought signature on an OpenAI chat tool call
//! (`tool_calls[k].extra_content.google.thought_signature`, what Gemini's OpenAI-compatible
//! endpoint returns and reads back), for a target that is not Gemini.
//!
//! Strict OpenAI-compatible servers reject the field: Fireworks and Mistral answer "Extra inputs
//! are not permitted, field: 'messages[N].tool_calls[M].extra_content'"
//! (NousResearch/hermes-agent#38543), Gemma on Google's own endpoint "Request contains an invalid
//! argument" (NousResearch/hermes-agent#49218). Gemini is the only model that reads it, so a
//! request whose model id names another model loses the call's `extra_content`; a Gemini target
//! keeps it, and the Gemini 3 stand-in for an unsigned current-turn call is
//! [`super::gemini_signatures::repair`]'s, written back by the chat writer.

use crate::transcript::context::{block_path, Ctx};
use crate::transcript::model::{Msg, Val};

/// Whether the target model reads Gemini's signatures back: its id names Gemini (`gemini-3-pro`,
/// `google/gemini-2.5-flash`; not Gemma). An unnamed model is not judged.
pub fn drops_call_signatures(model_id: Option<&str>) -> bool {
    model_id.is_some_and(|m| !m.to_ascii_lowercase().contains("gemini"))
}

/// Removes the thought signature (and with it, on the wire, `extra_content`) of every call.
pub fn drop_call_signatures(turns: &mut [Msg], ctx: &mut Ctx) {
    for m in turns.iter_mut().filter(|m| m.is_role("assistant")) {
        let Some(blocks) = m.blocks() else { continue };
        let hits: Vec<_> = (0..blocks.len())
            .filter(|&j| {
                let b = &blocks[j];
                b.is_object && b.is_tool_call() && !matches!(b.thought_signature(), Val::Absent)
            })
            .map(|j| (j, block_path(m, &blocks[j])))
            .collect();
        if hits.is_empty() {
            continue;
        }
        for (j, path) in hits {
            if let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) {
                b.del("thought_signature");
            }
            ctx.change("geminiCallSignature", path, || {
                "removed a tool call's extra_content (Gemini's thought signature; other servers answer \"Extra inputs are not permitted\")".into()
            });
        }
        m.content_dirty = true;
    }
}
