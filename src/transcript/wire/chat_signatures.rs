//! Gemini's thought signature on an OpenAI chat tool call
//! (`tool_calls[k].extra_content.google.thought_signature`, what Gemini's OpenAI-compatible
//! endpoint returns and reads back; `extra_content.vertex.thought_signature` from Vertex AI's),
//! and the call's `extra_content` as a whole, for a target that is not Gemini.
//!
//! Strict OpenAI-compatible servers reject the field: Fireworks and Mistral answer "Extra inputs
//! are not permitted, field: 'messages[N].tool_calls[M].extra_content'"
//! (NousResearch/hermes-agent#38543), Gemma on Google's own endpoint "Request contains an invalid
//! argument" (NousResearch/hermes-agent#49218). Gemini is the only model that reads it, so a
//! request whose model id names another model loses the call's `extra_content` when it carries a
//! signature; a Gemini target keeps it, and the Gemini 3 stand-in for an unsigned current-turn
//! call is [`super::gemini_signatures::repair`]'s, written back by the chat writer.
//!
//! Mistral and Fireworks validate every message against a closed schema (Mistral's
//! `AssistantMessage` forbids extra properties: OpenMinis/OpenMinis#87), so for those targets a
//! call's `extra_content` goes whatever it holds (another vendor's extension, `null`). Other
//! servers ignore an extension they do not know (no report of one rejecting it was found), so
//! one without a signature stays for them.

use super::mistral_reasoning::mistral_target;
use crate::transcript::context::{block_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use crate::transcript::v2026_9::policy::{family, Family};

/// What a target does not take of the calls' extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallExtensions {
    /// Every `extra_content` (Mistral, Fireworks).
    All,
    /// The ones carrying a Gemini signature (a model that is not Gemini).
    Signatures,
}

/// What the target drops: every extension for a closed-schema server, the signed ones for a
/// model id that does not name Gemini (`gemini-3-pro`, `google/gemini-2.5-flash`; not Gemma);
/// `None` for a Gemini model or an unnamed one.
pub fn dropped_call_extensions(
    provider: Option<&str>,
    model_id: Option<&str>,
) -> Option<CallExtensions> {
    let fireworks = provider.and_then(family) == Some(Family::Fireworks);
    if fireworks || mistral_target(provider, model_id) {
        Some(CallExtensions::All)
    } else if model_id.is_some_and(|m| !m.to_ascii_lowercase().contains("gemini")) {
        Some(CallExtensions::Signatures)
    } else {
        None
    }
}

fn dropped(b: &Block, what: CallExtensions) -> bool {
    b.is_object
        && b.is_tool_call()
        && match what {
            CallExtensions::All => b.extension(),
            CallExtensions::Signatures => !matches!(b.thought_signature(), Val::Absent),
        }
}

/// Removes the calls' extensions `what` names: the thought signature with the `extra_content`
/// that carries it, or (`All`) every call's `extra_content`.
pub fn drop_call_signatures(turns: &mut [Msg], ctx: &mut Ctx, what: CallExtensions) {
    for m in turns.iter_mut().filter(|m| m.is_assistant()) {
        let Some(blocks) = m.blocks() else { continue };
        let hits: Vec<_> = (0..blocks.len())
            .filter(|&j| dropped(&blocks[j], what))
            .map(|j| (j, block_path(m, &blocks[j])))
            .collect();
        if hits.is_empty() {
            continue;
        }
        for (j, path) in hits {
            if let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) {
                b.del("thought_signature");
                b.del(super::openai_chat::EXTRA);
            }
            match what {
                CallExtensions::Signatures => ctx.change("geminiCallSignature", path, || {
                    "removed a tool call's extra_content (Gemini's thought signature; other servers answer \"Extra inputs are not permitted\")".into()
                }),
                CallExtensions::All => ctx.change("strictCallExtraContent", path, || {
                    "removed a tool call's extra_content (Mistral and Fireworks answer \"Extra inputs are not permitted\")".into()
                }),
            }
        }
        m.content_dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_schema_targets_drop_every_extension_others_the_signed_ones() {
        let all = Some(CallExtensions::All);
        let signed = Some(CallExtensions::Signatures);
        let cases = [
            (Some("mistral"), Some("mistral-large-latest"), all),
            (None, Some("devstral-2512"), all),
            (
                Some("fireworks-ai"),
                Some("accounts/fireworks/models/kimi-k2p5"),
                all,
            ),
            (Some("Fireworks"), None, all),
            (Some("openrouter"), Some("mistralai/mistral-large"), signed),
            (Some("vllm"), Some("qwen3-32b"), signed),
            (Some("google"), Some("gemini-3-pro-preview"), None),
            (None, None, None),
        ];
        for (p, m, want) in cases {
            assert_eq!(dropped_call_extensions(p, m), want, "{p:?} {m:?}");
        }
    }
}
