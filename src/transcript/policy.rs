//! Transcript policy: which hygiene rules run for a provider / API / model.
//!
//! Before replaying a stored conversation, OpenClaw decides per request which
//! repairs the target provider needs: Gemini rejects non-alternating turns and
//! unsigned thought blocks, Anthropic wants signed thinking and strict
//! user/assistant alternation, Mistral wants nine-character tool-call ids,
//! OpenAI-compatible gateways want `[a-zA-Z0-9]` ids, and so on. This module is
//! `resolveTranscriptPolicy({provider, modelApi, modelId})` of openclaw
//! 2026.3.23-2 (`src/agents/transcript-policy.ts`), derived from the provider
//! capabilities in [`crate::transcript::capabilities`]:
//!
//! - Google means the `google-gemini-cli` / `google-generative-ai` APIs (not
//!   `google-vertex`); Anthropic means the `anthropic-messages` /
//!   `bedrock-converse-stream` APIs or an Anthropic-family provider; OpenAI
//!   means an OpenAI-family provider, or no provider at all with an OpenAI API.
//! - OpenAI providers only get the image pass, plus `strict` ids over
//!   chat completions; everyone else gets the full pass when Google,
//!   Anthropic, Mistral or a Gemini model behind a proxy is involved.
//! - Strict OpenAI-compatible chat completions (providers that do not opt out)
//!   get Gemini-style turn ordering plus both turn validators.
//! - Pairing repair is always on; `sanitize_thinking_signatures` is always off
//!   in this version.

use crate::transcript::capabilities::{
    resolve_provider_capabilities, ProviderFamily, TranscriptToolCallIdMode,
};
use crate::transcript::provider_id::normalize_provider_id;

/// How much of the sanitiser runs: everything, or only the image pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanitizeMode {
    /// `"full"`
    Full,
    /// `"images-only"`
    ImagesOnly,
}

/// Tool-call id format required by the target provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolCallIdMode {
    /// `"strict"`: `[a-zA-Z0-9]+`
    Strict,
    /// `"strict9"`: exactly nine `[a-zA-Z0-9]` characters (Mistral)
    Strict9,
}

/// Options for stripping Gemini thought signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ThoughtSignatureOptions {
    pub allow_base64_only: bool,
    pub include_camel_case: bool,
}

/// OpenClaw's `TranscriptPolicy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranscriptPolicy {
    pub sanitize_mode: SanitizeMode,
    pub sanitize_tool_call_ids: bool,
    pub tool_call_id_mode: Option<ToolCallIdMode>,
    pub repair_tool_use_result_pairing: bool,
    pub preserve_signatures: bool,
    pub sanitize_thought_signatures: Option<ThoughtSignatureOptions>,
    pub sanitize_thinking_signatures: bool,
    pub drop_thinking_blocks: bool,
    pub apply_google_turn_ordering: bool,
    pub validate_gemini_turns: bool,
    pub validate_anthropic_turns: bool,
    pub allow_synthetic_tool_results: bool,
}

const GOOGLE_APIS: &[&str] = &["google-gemini-cli", "google-generative-ai"];
const ANTHROPIC_APIS: &[&str] = &["anthropic-messages", "bedrock-converse-stream"];
const OPENAI_APIS: &[&str] = &[
    "openai",
    "openai-completions",
    "openai-responses",
    "openai-codex-responses",
];
const OPENAI_RESPONSES_APIS: &[&str] = &["openai-responses", "openai-codex-responses"];

/// Resolve the policy for a provider id (normalised here), a model API and a
/// model id. Missing values behave like OpenClaw's `undefined`.
pub fn resolve_transcript_policy(
    provider: Option<&str>,
    model_api: Option<&str>,
    model_id: Option<&str>,
) -> TranscriptPolicy {
    let provider = normalize_provider_id(provider.unwrap_or(""));
    let model_id = model_id.unwrap_or("");
    let api = model_api.unwrap_or("");
    let api_in = |set: &[&str]| model_api.is_some_and(|a| set.contains(&a));
    let caps = resolve_provider_capabilities(&provider);

    let is_google = api_in(GOOGLE_APIS);
    let is_anthropic = api_in(ANTHROPIC_APIS) || caps.provider_family == ProviderFamily::Anthropic;
    let is_openai = caps.provider_family == ProviderFamily::OpenAi
        || (provider.is_empty() && api_in(OPENAI_APIS));
    let is_completions = api == "openai-completions";
    let is_strict_openai_compat =
        is_completions && !is_openai && caps.openai_compat_turn_validation;
    let is_mistral = caps.tool_call_id_mode_for(model_id) == TranscriptToolCallIdMode::Strict9;
    let gemini_signatures = caps.sanitizes_gemini_thought_signatures_for(model_id);
    let needs_openai_compat_ids = is_completions || (!is_openai && api_in(OPENAI_RESPONSES_APIS));

    let wants_ids = is_google || is_mistral || is_anthropic || needs_openai_compat_ids;
    let needs_full = is_google || is_anthropic || is_mistral || gemini_signatures;
    let tool_call_id_mode = if is_mistral {
        Some(ToolCallIdMode::Strict9)
    } else if wants_ids {
        Some(ToolCallIdMode::Strict)
    } else {
        None
    };
    let sanitize_thought_signatures =
        (!is_openai && (gemini_signatures || is_google)).then_some(ThoughtSignatureOptions {
            allow_base64_only: true,
            include_camel_case: true,
        });
    let google_like = !is_openai && (is_google || is_strict_openai_compat);

    TranscriptPolicy {
        sanitize_mode: if !is_openai && needs_full {
            SanitizeMode::Full
        } else {
            SanitizeMode::ImagesOnly
        },
        sanitize_tool_call_ids: (!is_openai && wants_ids) || needs_openai_compat_ids,
        tool_call_id_mode,
        repair_tool_use_result_pairing: true,
        preserve_signatures: is_anthropic && caps.preserve_anthropic_thinking_signatures,
        sanitize_thought_signatures,
        sanitize_thinking_signatures: false,
        drop_thinking_blocks: caps.drops_thinking_blocks_for(model_id),
        apply_google_turn_ordering: google_like,
        validate_gemini_turns: google_like,
        validate_anthropic_turns: !is_openai && (is_anthropic || is_strict_openai_compat),
        allow_synthetic_tool_results: !is_openai && (is_google || is_anthropic),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SanitizeMode::{Full, ImagesOnly};
    use ToolCallIdMode::{Strict, Strict9};

    /// One row of the reference table (§2.3): provider, modelApi, modelId,
    /// S, ids, pres, tsig, drop, gOrd, vG, vA, syn.
    type Row = (
        &'static str,
        Option<&'static str>,
        &'static str,
        SanitizeMode,
        Option<ToolCallIdMode>,
        [bool; 7],
    );

    const NONE7: [bool; 7] = [false; 7];
    const TURNS: [bool; 7] = [false, false, false, true, true, true, false];

    #[rustfmt::skip]
    const TABLE: &[Row] = &[
        ("anthropic", Some("anthropic-messages"), "claude-opus-4-6", Full, Some(Strict), [true, false, true, false, false, true, true]),
        ("amazon-bedrock", Some("bedrock-converse-stream"), "us.anthropic.claude-sonnet-4-5", Full, Some(Strict), [true, false, true, false, false, true, true]),
        ("anthropic-vertex", Some("anthropic-messages"), "claude-sonnet-4", Full, Some(Strict), [true, false, true, false, false, true, true]),
        ("minimax", Some("anthropic-messages"), "MiniMax-M2.5", Full, Some(Strict), [true, false, false, false, false, true, true]),
        ("kimi", Some("anthropic-messages"), "kimi-k2.5", Full, Some(Strict), [false, false, false, false, false, true, true]),
        ("kimi-coding", Some("anthropic-messages"), "k2p5", Full, Some(Strict), [false, false, false, false, false, true, true]),
        ("google", Some("google-generative-ai"), "gemini-2.5-pro", Full, Some(Strict), [false, true, false, true, true, false, true]),
        ("google-gemini-cli", Some("google-gemini-cli"), "gemini-3-pro-preview", Full, Some(Strict), [false, true, false, true, true, false, true]),
        ("google-vertex", Some("google-vertex"), "gemini-2.5-pro", ImagesOnly, None, NONE7),
        ("mistral", Some("openai-completions"), "mistral-large-latest", Full, Some(Strict9), TURNS),
        ("mistral", None, "mistral-large-latest", Full, Some(Strict9), NONE7),
        ("openrouter", Some("openai-completions"), "google/gemini-2.5-pro", Full, Some(Strict), [false, true, false, false, false, false, false]),
        ("openrouter", Some("openai-completions"), "mistralai/mistral-large", ImagesOnly, Some(Strict), NONE7),
        ("openrouter", Some("openai-completions"), "anthropic/claude-sonnet-4", ImagesOnly, Some(Strict), NONE7),
        ("opencode", Some("openai-completions"), "gemini-3-pro", Full, Some(Strict), [false, true, false, false, false, false, false]),
        ("kilocode", Some("openai-completions"), "gemini-2.5-flash", Full, Some(Strict), [false, true, false, true, true, true, false]),
        ("github-copilot", Some("openai-completions"), "claude-sonnet-4.5", ImagesOnly, Some(Strict), [false, false, true, true, true, true, false]),
        ("github-copilot", Some("openai-responses"), "gpt-5.2", ImagesOnly, Some(Strict), NONE7),
        ("vllm", Some("openai-completions"), "qwen3", ImagesOnly, Some(Strict), TURNS),
        ("moonshot", Some("openai-completions"), "kimi-k2.5", ImagesOnly, Some(Strict), TURNS),
        ("xai", Some("openai-completions"), "grok-4", ImagesOnly, Some(Strict), TURNS),
        ("zai", Some("openai-completions"), "glm-4.7", ImagesOnly, Some(Strict), TURNS),
        ("groq", Some("openai-completions"), "mistral-saba-24b", ImagesOnly, Some(Strict), TURNS),
        ("minimax", Some("openai-completions"), "MiniMax-M2.5", ImagesOnly, Some(Strict), TURNS),
        ("my-custom", Some("openai-responses"), "anything", ImagesOnly, Some(Strict), NONE7),
        ("openai", Some("openai-responses"), "gpt-5.2", ImagesOnly, None, NONE7),
        ("openai", Some("openai"), "gpt-4o", ImagesOnly, None, NONE7),
        ("openai", Some("openai-completions"), "gpt-4o", ImagesOnly, Some(Strict), NONE7),
        ("openai-codex", Some("openai-codex-responses"), "gpt-5.3-codex", ImagesOnly, None, NONE7),
        ("", Some("openai-responses"), "anything", ImagesOnly, None, NONE7),
        ("ollama", Some("ollama"), "llama3", ImagesOnly, None, NONE7),
        // Aliases resolve to the same rows.
        ("Kimi-Code", Some("anthropic-messages"), "k2p5", Full, Some(Strict), [false, false, false, false, false, true, true]),
        ("z.ai", Some("openai-completions"), "glm-4.7", ImagesOnly, Some(Strict), TURNS),
        ("z-ai", Some("openai-completions"), "glm-4.7", ImagesOnly, Some(Strict), TURNS),
        ("bedrock", Some("bedrock-converse-stream"), "anthropic.claude-3-7-sonnet", Full, Some(Strict), [true, false, true, false, false, true, true]),
        ("aws-bedrock", Some("bedrock-converse-stream"), "amazon.nova-pro", Full, Some(Strict), [true, false, false, false, false, true, true]),
        ("qwen", Some("openai-completions"), "qwen3-coder", ImagesOnly, Some(Strict), TURNS),
        ("doubao", Some("openai-completions"), "doubao-seed-1.6", ImagesOnly, Some(Strict), TURNS),
        ("bytedance", Some("openai-completions"), "doubao-seed-1.6", ImagesOnly, Some(Strict), TURNS),
        ("opencode-zen", Some("openai-completions"), "gemini-3-pro", Full, Some(Strict), [false, true, false, false, false, false, false]),
        ("opencode-go-auth", Some("openai-completions"), "glm-5", ImagesOnly, Some(Strict), NONE7),
        (" OpenAI ", Some("openai-responses"), "gpt-5.2", ImagesOnly, None, NONE7),
    ];

    #[test]
    fn reproduces_every_row_of_the_reference_table() {
        for &(provider, api, model, mode, ids, flags) in TABLE {
            let [pres, tsig, drop, g_ord, v_g, v_a, syn] = flags;
            let p = resolve_transcript_policy(Some(provider), api, Some(model));
            let row = format!("{provider:?} {api:?} {model:?}");
            assert_eq!(p.sanitize_mode, mode, "sanitize_mode {row}");
            assert_eq!(p.tool_call_id_mode, ids, "tool_call_id_mode {row}");
            assert_eq!(
                p.sanitize_tool_call_ids,
                ids.is_some(),
                "sanitize_tool_call_ids {row}"
            );
            assert!(p.repair_tool_use_result_pairing, "pairing {row}");
            assert_eq!(p.preserve_signatures, pres, "preserve_signatures {row}");
            let expected_tsig = tsig.then_some(ThoughtSignatureOptions {
                allow_base64_only: true,
                include_camel_case: true,
            });
            assert_eq!(
                p.sanitize_thought_signatures, expected_tsig,
                "thought signatures {row}"
            );
            assert!(!p.sanitize_thinking_signatures, "thinking signatures {row}");
            assert_eq!(p.drop_thinking_blocks, drop, "drop_thinking_blocks {row}");
            assert_eq!(p.apply_google_turn_ordering, g_ord, "google ordering {row}");
            assert_eq!(p.validate_gemini_turns, v_g, "gemini turns {row}");
            assert_eq!(p.validate_anthropic_turns, v_a, "anthropic turns {row}");
            assert_eq!(
                p.allow_synthetic_tool_results, syn,
                "synthetic results {row}"
            );
        }
    }

    #[test]
    fn nothing_known_gives_the_image_only_default() {
        let p = resolve_transcript_policy(None, None, None);
        assert_eq!(p.sanitize_mode, ImagesOnly);
        assert!(!p.sanitize_tool_call_ids);
        assert_eq!(p.tool_call_id_mode, None);
        assert!(p.repair_tool_use_result_pairing);
        assert!(!p.validate_anthropic_turns && !p.validate_gemini_turns);
    }

    #[test]
    fn no_provider_with_openai_completions_is_openai() {
        let p = resolve_transcript_policy(None, Some("openai-completions"), Some("gpt-4o"));
        assert_eq!(p.sanitize_mode, ImagesOnly);
        assert!(p.sanitize_tool_call_ids);
        assert_eq!(p.tool_call_id_mode, Some(Strict));
        assert!(!p.apply_google_turn_ordering && !p.validate_anthropic_turns);
    }

    #[test]
    fn openai_family_over_anthropic_api_keeps_a_mode_but_does_not_sanitize_ids() {
        // toolCallIdMode is computed before the OpenAI gate; sanitizeToolCallIds is not.
        let p = resolve_transcript_policy(Some("openai"), Some("anthropic-messages"), Some("x"));
        assert_eq!(p.tool_call_id_mode, Some(Strict));
        assert!(!p.sanitize_tool_call_ids);
        assert_eq!(p.sanitize_mode, ImagesOnly);
        assert!(p.preserve_signatures);
        assert!(!p.validate_anthropic_turns && !p.allow_synthetic_tool_results);
    }

    #[test]
    fn copilot_drop_thinking_is_not_gated_on_api() {
        let p = resolve_transcript_policy(
            Some("github-copilot"),
            Some("openai-responses"),
            Some("Claude-Opus-4.5"),
        );
        assert!(p.drop_thinking_blocks);
        assert_eq!(p.sanitize_mode, ImagesOnly);
    }
}
