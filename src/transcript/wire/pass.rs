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
//! Leading system / developer messages are the system prompt, not turns: the rules run on the
//! messages after them, so "the first turn" is the first user or assistant message.

use super::{Protocol, WireOptions};
use crate::transcript::context::Ctx;
use crate::transcript::model::Msg;
use crate::transcript::policy::{resolve_transcript_policy, ToolCallIdMode, TranscriptPolicy};
use crate::transcript::rules;

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
