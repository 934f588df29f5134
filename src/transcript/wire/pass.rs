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
//! reasoning for OpenAI-compatible chat completions (a `thinking` part, or the message's
//! `reasoning_content` / `reasoning` field). For a Gemini target, model parts' thought signatures
//! that are not Gemini's go (`stripThoughtSignatures` under the policy's base64 rule, then
//! another provider's ids that pass it), and so do signatures on user parts; a Gemini 3
//! target's current-turn calls get the documented stand-in
//! when unsigned (see [`super::gemini_signatures`]), on OpenAI chat too (Gemini's
//! OpenAI-compatible endpoint), where a target model that is not Gemini loses the calls'
//! signatures instead, and a closed-schema server (Mistral, Fireworks) every call's
//! `extra_content` (see [`super::chat_signatures`]). A Mistral target loses every message's
//! reasoning fields (see [`super::mistral_reasoning`]). For a Responses target that is not OpenAI's,
//! reasoning items carrying `encrypted_content` go (see [`super::encrypted_reasoning`]).
//!
//! Leading system / developer messages are the system prompt, not turns: the rules run on the
//! messages after them, so "the first turn" is the first user or assistant message.

use super::chat_signatures::{self, CallExtensions};
use super::{encrypted_reasoning, gemini_signatures, mistral_reasoning, Protocol, WireOptions};
use crate::transcript::context::Ctx;
use crate::transcript::model::Msg;
use crate::transcript::policy::{resolve_transcript_policy, ToolCallIdMode, TranscriptPolicy};
use crate::transcript::rules;
use crate::transcript::rules::thought_signatures::{
    strip_message_thought_signatures, StripOptions,
};
use crate::transcript::v2026_9::{self, signatures};

/// Roles that are instructions rather than turns.
pub const SYSTEM_ROLES: &[&str] = &["system", "developer"];

/// The target's model API: the caller's `modelApi`, else the protocol's own.
fn model_api(opts: &WireOptions, protocol: Protocol) -> &str {
    opts.model_api
        .as_deref()
        .unwrap_or(protocol.default_model_api())
}

/// The policy for `opts`' target: the caller's override, else resolved from provider / modelApi
/// (the protocol's own API when none is given) / modelId.
pub fn policy(opts: &WireOptions, protocol: Protocol) -> TranscriptPolicy {
    opts.policy.clone().unwrap_or_else(|| {
        resolve_transcript_policy(
            opts.provider.as_deref(),
            Some(model_api(opts, protocol)),
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
    /// The policy's `sanitizeThoughtSignatures` (Gemini targets): model parts' signatures that
    /// are not Gemini's go.
    pub thought_signatures: Option<StripOptions>,
    /// Responses reasoning items with `encrypted_content` go: the target is not OpenAI's.
    pub encrypted: bool,
}

/// The reasoning rules for `opts`' target.
pub(crate) fn reasoning_rules(opts: &WireOptions, protocol: Protocol) -> ReasoningRules {
    let (policy, fields) = match &opts.policy {
        Some(p) => (p.clone(), opts.policy_fields.clone()),
        None => v2026_9::policy::resolve_transcript_policy(
            opts.provider.as_deref(),
            Some(model_api(opts, protocol)),
            opts.model_id.as_deref(),
            &opts.model,
        ),
    };
    ReasoningRules {
        unsigned: signatures::applies(opts.provider.as_deref(), policy.preserve_signatures),
        thinking: policy.drop_thinking_blocks,
        history: fields.drop_reasoning_from_history,
        thought_signatures: policy.sanitize_thought_signatures.map(|t| StripOptions {
            allow_base64_only: t.allow_base64_only,
            include_camel_case: t.include_camel_case,
        }),
        encrypted: protocol == Protocol::OpenAiResponses
            && !encrypted_reasoning::decrypts(opts.provider.as_deref()),
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
    if reasoning.encrypted {
        encrypted_reasoning::drop_encrypted_reasoning(&mut turns, ctx);
    }
    if let Some(o) = reasoning.thought_signatures {
        for m in turns.iter_mut().filter(|m| m.is_assistant()) {
            strip_message_thought_signatures(m, ctx, Some(o));
            // Google's rule (base64, both keys): what it keeps of another provider's ids.
            if o.allow_base64_only && o.include_camel_case {
                gemini_signatures::drop_foreign_ids(m, ctx);
            }
        }
    }
    let gemini3 = gemini_signatures::requires_call_signatures(opts.model_id.as_deref());
    if protocol == Protocol::Gemini {
        gemini_signatures::repair(&mut turns, ctx, gemini3);
    }
    if protocol == Protocol::OpenAiChat {
        let (provider, model_id) = (opts.provider.as_deref(), opts.model_id.as_deref());
        match chat_signatures::dropped_call_extensions(provider, model_id) {
            Some(CallExtensions::All) => {
                chat_signatures::drop_call_signatures(&mut turns, ctx, CallExtensions::All)
            }
            _ if gemini3 => gemini_signatures::repair(&mut turns, ctx, true),
            Some(what) => chat_signatures::drop_call_signatures(&mut turns, ctx, what),
            None => {}
        }
        if mistral_reasoning::mistral_target(provider, model_id) {
            mistral_reasoning::drop_reasoning_fields(&mut turns, ctx);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::{sanitize_bytes, Protocol, WireOptions};
    use serde_json::json;

    /// Bodies made of reasoning the target cannot take, grown to `n` bytes, for each protocol's
    /// reasoning rules: Gemini signatures (foreign, on user parts, missing in a long current
    /// turn of Gemini 3, on function responses, another provider's id that decodes), chat
    /// `reasoning_content` / `reasoning_details` in the history (and a `reasoning: null`) and
    /// Gemini signatures on chat calls for another model (and all of them for Mistral),
    /// encrypted Responses reasoning for another provider. The byte path's time grows linearly.
    #[test]
    fn the_reasoning_rules_grow_linearly_with_the_body() {
        let gemini = |n: usize| {
            let mut contents = vec![json!({"role": "user", "parts": [{"text": "开始"}]})];
            let mut k = 0;
            while contents.len() * 90 < n {
                contents.push(json!({"role": "model", "parts": [
                    {"text": "想", "thought_signature": if k % 2 == 0 { "msg_01X" } else { "msg_01XFDUDYJgAACzvnptvVoYEL" }},
                    {"functionCall": {"name": "f", "args": {}, "id": format!("c{k}")}}]}));
                let mut response = json!({"functionResponse": {"name": "f", "id": format!("c{k}"), "response": {}}});
                if k % 8 == 3 {
                    response["thoughtSignature"] = json!("c2ln");
                }
                let mut parts = vec![response];
                if k % 8 == 7 {
                    parts.push(json!({"text": "继续", "thoughtSignature": "c2ln"}));
                }
                contents.push(json!({"role": "user", "parts": parts}));
                k += 1;
            }
            json!({"contents": contents}).to_string()
        };
        let chat = |n: usize| {
            let mut msgs = Vec::new();
            let mut k = 0;
            while msgs.len() * 70 < n {
                msgs.push(json!({"role": "user", "content": "问"}));
                msgs.push(
                    json!({"role": "assistant", "content": "答", "reasoning_content": "推理过程", "reasoning": null}),
                );
                msgs.push(json!({"role": "assistant", "content": null,
                    "reasoning_details": [{"type": "reasoning.text", "text": "想"}],
                    "tool_calls": [{"id": format!("c{k}"), "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "extra_content": {"google": {"thought_signature": "c2ln"}}}]}));
                msgs.push(
                    json!({"role": "tool", "tool_call_id": format!("c{k}"), "content": "好"}),
                );
                k += 1;
            }
            json!({"messages": msgs}).to_string()
        };
        let responses = |n: usize| {
            let mut input = Vec::new();
            let mut k = 0;
            while input.len() * 70 < n {
                input.push(json!({"role": "user", "content": "问"}));
                input.push(json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}));
                input.push(json!({"type": "function_call", "call_id": format!("c{k}"), "name": "f", "arguments": "{}"}));
                input.push(json!({"type": "function_call_output", "call_id": format!("c{k}"), "output": "好"}));
                k += 1;
            }
            json!({"input": input}).to_string()
        };
        /// A body of about `n` bytes.
        type Make<'m> = &'m dyn Fn(usize) -> String;
        let cases: [(Protocol, Make, WireOptions); 4] = [
            (
                Protocol::Gemini,
                &gemini,
                WireOptions {
                    model_id: Some("gemini-3-pro-preview".into()),
                    ..WireOptions::default()
                },
            ),
            (
                Protocol::OpenAiChat,
                &chat,
                WireOptions {
                    model_id: Some("deepseek-reasoner".into()),
                    ..WireOptions::default()
                },
            ),
            // Mistral: every reasoning field and every call's extra_content go.
            (
                Protocol::OpenAiChat,
                &chat,
                WireOptions {
                    provider: Some("mistral".into()),
                    ..WireOptions::default()
                },
            ),
            (
                Protocol::OpenAiResponses,
                &responses,
                WireOptions {
                    provider: Some("xai".into()),
                    ..WireOptions::default()
                },
            ),
        ];
        for (protocol, make, opts) in cases {
            let out = sanitize_bytes(make(10_000).as_bytes(), protocol, &opts).unwrap();
            assert!(out.0.is_some(), "{protocol:?}: the body needs the rules");
            crate::response::linearity::assert_grows_linearly(
                &format!("{protocol:?} wire reasoning rules"),
                make,
                &|text| {
                    assert!(sanitize_bytes(text.as_bytes(), protocol, &opts).is_ok());
                },
            );
        }
    }
}
