//! The reasoning fields of OpenAI chat messages (`reasoning_content`, `reasoning`,
//! `reasoning_details`) removed for a Mistral target, from every turn.
//!
//! Mistral's chat API validates each message against a closed schema and rejects the whole
//! request when a replayed assistant message carries one of them: `422 extra_forbidden`,
//! `"loc": ["body", "messages", 2, "assistant", "reasoning_content"], "msg": "Extra inputs are
//! not permitted"` (BerriAI/litellm#30835, charmbracelet/crush#1590, OpenMinis/OpenMinis#87).
//! They come from another model's turns (DeepSeek, Kimi, an OpenRouter session) or from a
//! gateway that stored Mistral's own reasoning as a field. OpenClaw 2026.9.6's Mistral policy
//! sets only the ids, and a Mistral model behind an OpenAI-compatible provider keeps the current
//! tool turn's reasoning under `dropReasoningFromHistory`, so this is a wire rule beyond the
//! policy. Mistral replays reasoning as `thinking` content chunks (its own format), which stay.
//!
//! A Mistral target is the `mistral` provider, or a Mistral model id (OpenClaw's own test, which
//! also makes OpenRouter's Mistral ids strict9, plus Mistral's `magistral-…` reasoning models)
//! behind any provider but OpenRouter, whose API takes `reasoning` / `reasoning_details` back by
//! design and translates them for the model.
//!
//! The schema rejects the key whatever its value, so a field that holds no reasoning
//! (`reasoning_content: null`, `reasoning_details: []`: no block in the model) goes too: the
//! reader records it in the message's layout and [`drop_void_fields`] deletes it from the output.

use super::edit::{Op, Out};
use super::layout::{Layout, REASONING_FIELDS};
use crate::transcript::context::{block_path, Change, Ctx};
use crate::transcript::model::{Block, Msg};
use crate::transcript::v2026_9::policy::{family, is_openrouter_mistral, Family};

/// Whether `model_id` names a Mistral model: OpenClaw's prefixes (`mistralai/`, `mistral-`,
/// `codestral-`, `devstral-`, `ministral-` …) or a `magistral-` id, which they leave out.
pub fn is_mistral_model(model_id: &str) -> bool {
    let last = model_id.rsplit('/').next().unwrap_or(model_id);
    is_openrouter_mistral(model_id) || last.to_ascii_lowercase().starts_with("magistral-")
}

/// Whether the request goes to Mistral's API (see the module doc).
pub fn mistral_target(provider: Option<&str>, model_id: Option<&str>) -> bool {
    match provider.and_then(family) {
        Some(Family::Mistral) => true,
        Some(Family::OpenRouter) => false,
        _ => model_id.is_some_and(is_mistral_model),
    }
}

/// A reasoning field read as a block: the OpenAI chat reader gives only these thinking text
/// (a content part of type `thinking` is a block of that type without it).
fn is_field(b: &Block) -> bool {
    b.is_object && b.ty() == Some("thinking") && b.thinking().is_some()
}

/// Removes every assistant's reasoning fields (the blocks the reader made of them).
pub fn drop_reasoning_fields(turns: &mut [Msg], ctx: &mut Ctx) {
    for m in turns.iter_mut().filter(|m| m.is_assistant()) {
        if !m.blocks().is_some_and(|bs| bs.iter().any(is_field)) {
            continue;
        }
        if let Some(bs) = m.blocks() {
            for b in bs.iter().filter(|b| is_field(b)) {
                ctx.change("mistralReasoningFields", block_path(m, b), || {
                    "removed a reasoning field (Mistral rejects it: \"Extra inputs are not permitted\")"
                        .into()
                });
            }
        }
        if let Some(bs) = m.blocks_mut() {
            bs.retain(|b| !is_field(b));
        }
    }
}

/// Deletes, from each output message that is an input message, the reasoning fields whose value
/// was no reasoning (the layout's `void_fields`); each is a change when `report`.
pub fn drop_void_fields(out: &mut [Out], layout: &Layout, report: bool, changes: &mut Vec<Change>) {
    for o in out.iter_mut() {
        let own = match o {
            Out::Keep(i) | Out::Edit { from: Some(i), .. } => *i,
            _ => continue,
        };
        let void = layout.msgs.get(own).map_or(0, |l| l.void_fields);
        if void == 0 {
            continue;
        }
        if let Out::Keep(i) = *o {
            *o = Out::Edit {
                from: Some(i),
                ops: Vec::new(),
            };
        }
        let Out::Edit { ops, .. } = o else {
            continue;
        };
        for (f, &key) in REASONING_FIELDS.iter().enumerate() {
            if void & (1 << f) == 0 || ops.contains(&Op::Del(key)) {
                continue;
            }
            ops.push(Op::Del(key));
            if report {
                changes.push(Change {
                    rule: "mistralReasoningFields",
                    path: format!("{}[{own}].{key}", layout.key),
                    detail: "removed an empty reasoning field (Mistral rejects the key: \"Extra inputs are not permitted\")".into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistral_targets_are_the_provider_or_a_mistral_model_not_behind_openrouter() {
        let yes = [
            (Some(" Mistral "), None),
            (Some("mistral"), Some("gpt-4o")),
            (None, Some("mistral-medium-3-5")),
            (None, Some("devstral-2512")),
            (Some("litellm"), Some("mistral/mistral-large-latest")),
            (Some("vllm"), Some("mistralai/Magistral-Small-2509")),
            (None, Some("magistral-medium-latest")),
        ];
        for (p, m) in yes {
            assert!(mistral_target(p, m), "{p:?} {m:?}");
        }
        let no = [
            (None, None),
            (Some("openrouter"), Some("mistralai/mistral-large")),
            (None, Some("deepseek-reasoner")),
            (Some("deepseek"), Some("deepseek-chat")),
            (None, Some("gemini-2.5-flash")),
        ];
        for (p, m) in no {
            assert!(!mistral_target(p, m), "{p:?} {m:?}");
        }
    }
}
