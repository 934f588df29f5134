//! The rules that run on a wire body, chosen by the target's transcript policy.
//!
//! These are the rules of `sanitizeSessionHistory` (and of the turn validators OpenClaw's runner
//! calls after it) that concern what a provider rejects on the wire, in the same order: tool-call
//! ids in the target's alphabet (calls and results renamed together), pairing (results moved to
//! their call, duplicates and orphans dropped, a synthetic error result for each unanswered
//! call), Gemini's first-turn rule, and merging consecutive same-role turns where the target
//! rejects them. What is a session's business and not the request's (usage snapshots,
//! `details`, inter-session provenance, session entries) does not run.
//!
//! Reasoning the target cannot take goes first, by the transcript pass's decisions for the same
//! target under its default release (see `ReasoningRules`): unsigned `thinking` /
//! `redacted_thinking` blocks for a signed-thinking target (the latest assistant keeps its own
//! when it is the last message or the current tool turn: Anthropic wants that turn to open with
//! its thinking), every earlier turn's reasoning under `dropThinkingBlocks`, and historical
//! reasoning for OpenAI-compatible chat completions.
//!
//! Leading system / developer messages are the system prompt, not turns: the rules run on the
//! messages after them, so "the first turn" is the first user or assistant message.

use super::{Protocol, WireOptions};
use crate::transcript::context::Ctx;
use crate::transcript::model::Msg;
use crate::transcript::policy::{resolve_transcript_policy, ToolCallIdMode, TranscriptPolicy};
use crate::transcript::rules;
use crate::transcript::v2026_9::{self, signatures};

/// Roles that are instructions rather than turns.
pub const SYSTEM_ROLES: &[&str] = &["system", "developer"];

/// The policy for `opts`' target: the caller's override, else resolved from provider / modelApi
/// (the protocol's own API when none is given) / modelId.
pub fn policy(opts: &WireOptions, protocol: Protocol) -> TranscriptPolicy {
    opts.policy.clone().unwrap_or_else(|| {
        resolve_transcript_policy(
            opts.provider.as_deref(),
            Some(
                opts.model_api
                    .as_deref()
                    .unwrap_or(protocol.default_model_api()),
            ),
            opts.model_id.as_deref(),
        )
    })
}

/// What the target accepts of replayed reasoning, as the transcript pass decides it under its
/// default release (OpenClaw 2026.9.6): the caller's `policy` override when given, else 2026.9.6's
/// policy for the same provider / modelApi / modelId.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReasoningRules {
    /// Signed-thinking target (Anthropic, Bedrock, Vertex, or `preserveSignatures`): a reasoning
    /// block with no signature is dropped ("Invalid `signature` in `thinking` block").
    pub unsigned: bool,
    /// `dropThinkingBlocks` (Claude behind a proxy that does not round-trip signatures).
    pub thinking: bool,
    /// `dropReasoningFromHistory` (OpenAI-compatible chat completions).
    pub history: bool,
}

/// The reasoning rules for `opts`' target.
pub(crate) fn reasoning_rules(opts: &WireOptions, protocol: Protocol) -> ReasoningRules {
    let (policy, fields) = match &opts.policy {
        Some(p) => (p.clone(), opts.policy_fields.clone()),
        None => v2026_9::policy::resolve_transcript_policy(
            opts.provider.as_deref(),
            Some(
                opts.model_api
                    .as_deref()
                    .unwrap_or(protocol.default_model_api()),
            ),
            opts.model_id.as_deref(),
            // The wire takes no `model` object: a model that sets none of its fields.
            &v2026_9::policy::ModelFields::default(),
        ),
    };
    ReasoningRules {
        unsigned: signatures::applies(opts.provider.as_deref(), policy.preserve_signatures),
        thinking: policy.drop_thinking_blocks,
        history: fields.drop_reasoning_from_history,
    }
}

/// Whether the target is a Gemini model behind any API (its first turn must be a user turn):
/// the policy says so for Google's own APIs; over OpenAI-compatible endpoints the model id does.
fn gemini_target(policy: &TranscriptPolicy, opts: &WireOptions) -> bool {
    policy.apply_google_turn_ordering
        || opts
            .model_id
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().contains("gemini"))
}

/// Runs the wire rules on `msgs` (the model of the body's messages, in input order).
pub fn run(msgs: &mut Vec<Msg>, ctx: &mut Ctx, opts: &WireOptions, protocol: Protocol) {
    let policy = policy(opts, protocol);
    let lead = msgs
        .iter()
        .take_while(|m| m.role().is_some_and(|r| SYSTEM_ROLES.contains(&r)))
        .count();
    // No copy of the messages when there is no system prompt to set aside (the common case).
    let mut turns = if lead == 0 {
        std::mem::take(msgs)
    } else {
        msgs.split_off(lead)
    };
    // Reasoning first, as the transcript pass does: a dropped block's call ids and turns are
    // then what the id and pairing rules see.
    let reasoning = reasoning_rules(opts, protocol);
    if reasoning.unsigned {
        signatures::strip_invalid_signatures(&mut turns, ctx);
    }
    if reasoning.history {
        v2026_9::drop_reasoning::drop_reasoning_from_history(&mut turns, ctx);
    }
    if reasoning.thinking {
        v2026_9::drop_thinking::drop_thinking_blocks(&mut turns, ctx);
    }
    if policy.sanitize_tool_call_ids {
        let mode = policy.tool_call_id_mode.unwrap_or(ToolCallIdMode::Strict);
        rules::tool_call_ids::sanitize_tool_call_ids(&mut turns, ctx, mode);
    }
    if policy.repair_tool_use_result_pairing {
        rules::pairing::repair_tool_use_result_pairing(&mut turns, ctx, &opts.pairing);
    }
    if gemini_target(&policy, opts) {
        rules::google_ordering::sanitize_google_turn_ordering(&mut turns, ctx);
    }
    if policy.validate_gemini_turns {
        rules::merge_turns::validate_gemini_turns(&mut turns, ctx);
    }
    if policy.validate_anthropic_turns {
        rules::merge_turns::validate_anthropic_turns(&mut turns, ctx);
    }
    if msgs.is_empty() {
        *msgs = turns;
    } else {
        msgs.append(&mut turns);
    }
}
