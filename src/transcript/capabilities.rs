//! Per-provider capabilities that drive transcript policy.
//!
//! OpenClaw does not hard-code provider names in its transcript policy; it
//! asks `resolveProviderCapabilities(provider)` for a capability record and
//! derives the policy from that. In openclaw 2026.3.23-2
//! (`src/agents/provider-capabilities.ts` plus the bundled provider plugins)
//! the record is built in three layers, later layers overriding earlier ones:
//!
//! 1. defaults;
//! 2. core entries (`anthropic-vertex`, `amazon-bedrock`);
//! 3. the owning bundled plugin's `capabilities`, or, when no plugin declares
//!    any, a fallback table inside core.
//!
//! This module folds layers 2 and 3 into two static match arms, with the
//! values the 2026.3.23-2 build ships:
//!
//! | provider | capabilities |
//! |---|---|
//! | `anthropic`, `amazon-bedrock`, `anthropic-vertex` | family `anthropic`, drop-thinking hint `claude` |
//! | `openai`, `openai-codex` | family `openai` |
//! | `github-copilot` | drop-thinking hint `claude` |
//! | `kimi` (`kimi-code`, `kimi-coding`) | does not preserve Anthropic thinking signatures |
//! | `openrouter`, `opencode`, `opencode-go` | no OpenAI-compat turn validation; Gemini thought-signature sanitising for model ids containing `gemini` |
//! | `kilocode` | Gemini thought-signature sanitising for model ids containing `gemini` |
//! | `mistral` | tool-call ids `strict9` (+ Mistral model-id hints) |
//! | `moonshot` | Moonshot thinking payload normalisation (not used by transcript policy) |
//!
//! Provider ids are normalised with
//! [`normalize_provider_id`](crate::transcript::provider_id::normalize_provider_id)
//! first, so aliases reach the same entry. User-configured or third-party
//! plugins are out of scope: only the bundled set is modelled.

use crate::transcript::provider_id::normalize_provider_id;

/// Which provider family a provider belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderFamily {
    Default,
    OpenAi,
    Anthropic,
}

/// How tool schemas are sent over the Anthropic Messages API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnthropicToolSchemaMode {
    Native,
    OpenAiFunctions,
}

/// How `tool_choice` is sent over the Anthropic Messages API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnthropicToolChoiceMode {
    Native,
    OpenAiStringModes,
}

/// Payload normalisation for OpenAI-compatible requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenAiPayloadNormalizationMode {
    Default,
    MoonshotThinking,
}

/// The provider's own tool-call id requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TranscriptToolCallIdMode {
    Default,
    /// Exactly nine `[a-zA-Z0-9]` characters (Mistral).
    Strict9,
}

/// The capability record of one provider (OpenClaw's `ProviderCapabilities`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderCapabilities {
    pub anthropic_tool_schema_mode: AnthropicToolSchemaMode,
    pub anthropic_tool_choice_mode: AnthropicToolChoiceMode,
    pub openai_payload_normalization_mode: OpenAiPayloadNormalizationMode,
    pub provider_family: ProviderFamily,
    pub preserve_anthropic_thinking_signatures: bool,
    pub openai_compat_turn_validation: bool,
    pub gemini_thought_signature_sanitization: bool,
    pub transcript_tool_call_id_mode: TranscriptToolCallIdMode,
    pub transcript_tool_call_id_model_hints: &'static [&'static str],
    pub gemini_thought_signature_model_hints: &'static [&'static str],
    pub drop_thinking_block_model_hints: &'static [&'static str],
}

impl Default for ProviderCapabilities {
    fn default() -> Self {
        Self {
            anthropic_tool_schema_mode: AnthropicToolSchemaMode::Native,
            anthropic_tool_choice_mode: AnthropicToolChoiceMode::Native,
            openai_payload_normalization_mode: OpenAiPayloadNormalizationMode::Default,
            provider_family: ProviderFamily::Default,
            preserve_anthropic_thinking_signatures: true,
            openai_compat_turn_validation: true,
            gemini_thought_signature_sanitization: false,
            transcript_tool_call_id_mode: TranscriptToolCallIdMode::Default,
            transcript_tool_call_id_model_hints: &[],
            gemini_thought_signature_model_hints: &[],
            drop_thinking_block_model_hints: &[],
        }
    }
}

const CLAUDE_HINTS: &[&str] = &["claude"];
const GEMINI_HINTS: &[&str] = &["gemini"];
const MISTRAL_HINTS: &[&str] = &[
    "mistral",
    "mixtral",
    "codestral",
    "pixtral",
    "devstral",
    "ministral",
    "mistralai",
];

impl ProviderCapabilities {
    /// Whether the lowercased `model_id` contains one of `hints` (OpenClaw's
    /// `modelIncludesAnyHint`; an empty model id never matches).
    pub fn model_matches(model_id: &str, hints: &[&str]) -> bool {
        let lowered = model_id.to_lowercase();
        !lowered.is_empty() && hints.iter().any(|hint| lowered.contains(hint))
    }

    /// `strict9` when the provider requires it or the model id carries one of
    /// this provider's own hints (`resolveTranscriptToolCallIdMode`). Only
    /// `mistral` has hints, and it is strict9 already, so model-id detection
    /// on other providers never fires in 2026.3.23-2.
    pub fn tool_call_id_mode_for(&self, model_id: &str) -> TranscriptToolCallIdMode {
        if self.transcript_tool_call_id_mode == TranscriptToolCallIdMode::Strict9
            || Self::model_matches(model_id, self.transcript_tool_call_id_model_hints)
        {
            TranscriptToolCallIdMode::Strict9
        } else {
            TranscriptToolCallIdMode::Default
        }
    }

    /// `shouldSanitizeGeminiThoughtSignaturesForModel`.
    pub fn sanitizes_gemini_thought_signatures_for(&self, model_id: &str) -> bool {
        self.gemini_thought_signature_sanitization
            && Self::model_matches(model_id, self.gemini_thought_signature_model_hints)
    }

    /// `shouldDropThinkingBlocksForModel`.
    pub fn drops_thinking_blocks_for(&self, model_id: &str) -> bool {
        Self::model_matches(model_id, self.drop_thinking_block_model_hints)
    }
}

/// Core entries (layer 2).
fn apply_core(caps: &mut ProviderCapabilities, provider: &str) {
    if matches!(provider, "anthropic-vertex" | "amazon-bedrock") {
        caps.provider_family = ProviderFamily::Anthropic;
        caps.drop_thinking_block_model_hints = CLAUDE_HINTS;
    }
}

/// Bundled plugin capabilities, or core's fallback where the plugin declares
/// none (layer 3).
fn apply_bundled_plugin(caps: &mut ProviderCapabilities, provider: &str) {
    match provider {
        "anthropic" => {
            caps.provider_family = ProviderFamily::Anthropic;
            caps.drop_thinking_block_model_hints = CLAUDE_HINTS;
        }
        "openai" | "openai-codex" => caps.provider_family = ProviderFamily::OpenAi,
        "github-copilot" => caps.drop_thinking_block_model_hints = CLAUDE_HINTS,
        "kimi" => caps.preserve_anthropic_thinking_signatures = false,
        "openrouter" | "opencode" | "opencode-go" => {
            caps.openai_compat_turn_validation = false;
            caps.gemini_thought_signature_sanitization = true;
            caps.gemini_thought_signature_model_hints = GEMINI_HINTS;
        }
        "kilocode" => {
            caps.gemini_thought_signature_sanitization = true;
            caps.gemini_thought_signature_model_hints = GEMINI_HINTS;
        }
        "mistral" => {
            caps.transcript_tool_call_id_mode = TranscriptToolCallIdMode::Strict9;
            caps.transcript_tool_call_id_model_hints = MISTRAL_HINTS;
        }
        "moonshot" => {
            caps.openai_payload_normalization_mode =
                OpenAiPayloadNormalizationMode::MoonshotThinking;
        }
        _ => {}
    }
}

/// Resolve the capability record of `provider` (normalised first).
pub fn resolve_provider_capabilities(provider: &str) -> ProviderCapabilities {
    let id = normalize_provider_id(provider);
    let mut caps = ProviderCapabilities::default();
    apply_core(&mut caps, &id);
    apply_bundled_plugin(&mut caps, &id);
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_empty_providers_get_defaults() {
        assert_eq!(
            resolve_provider_capabilities("vllm"),
            ProviderCapabilities::default()
        );
        assert_eq!(
            resolve_provider_capabilities(""),
            ProviderCapabilities::default()
        );
        assert_eq!(
            resolve_provider_capabilities("google"),
            ProviderCapabilities::default()
        );
    }

    #[test]
    fn anthropic_family_and_claude_hint() {
        for provider in [
            "anthropic",
            "amazon-bedrock",
            "bedrock",
            "AWS-Bedrock",
            "anthropic-vertex",
        ] {
            let caps = resolve_provider_capabilities(provider);
            assert_eq!(
                caps.provider_family,
                ProviderFamily::Anthropic,
                "{provider}"
            );
            assert!(
                caps.drops_thinking_blocks_for("us.anthropic.Claude-Sonnet-4"),
                "{provider}"
            );
            assert!(!caps.drops_thinking_blocks_for("nova-pro"), "{provider}");
        }
    }

    #[test]
    fn openai_family() {
        for provider in ["openai", "openai-codex", " OpenAI "] {
            let caps = resolve_provider_capabilities(provider);
            assert_eq!(caps.provider_family, ProviderFamily::OpenAi, "{provider}");
        }
        assert_eq!(
            resolve_provider_capabilities("azure-openai").provider_family,
            ProviderFamily::Default
        );
    }

    #[test]
    fn copilot_drops_thinking_for_claude_only() {
        let caps = resolve_provider_capabilities("github-copilot");
        assert_eq!(caps.provider_family, ProviderFamily::Default);
        assert!(caps.drops_thinking_blocks_for("claude-sonnet-4.5"));
        assert!(!caps.drops_thinking_blocks_for("gpt-5.2"));
        assert!(!caps.drops_thinking_blocks_for(""));
    }

    #[test]
    fn kimi_aliases_do_not_preserve_signatures() {
        for provider in ["kimi", "kimi-code", "kimi-coding"] {
            assert!(
                !resolve_provider_capabilities(provider).preserve_anthropic_thinking_signatures
            );
        }
        assert!(resolve_provider_capabilities("minimax").preserve_anthropic_thinking_signatures);
    }

    #[test]
    fn gemini_proxies() {
        for provider in [
            "openrouter",
            "opencode",
            "opencode-zen",
            "opencode-go",
            "opencode-go-auth",
        ] {
            let caps = resolve_provider_capabilities(provider);
            assert!(!caps.openai_compat_turn_validation, "{provider}");
            assert!(
                caps.sanitizes_gemini_thought_signatures_for("google/Gemini-2.5-pro"),
                "{provider}"
            );
            assert!(
                !caps.sanitizes_gemini_thought_signatures_for("anthropic/claude"),
                "{provider}"
            );
        }
        let kilo = resolve_provider_capabilities("kilocode");
        assert!(kilo.openai_compat_turn_validation);
        assert!(kilo.sanitizes_gemini_thought_signatures_for("gemini-3-pro"));
    }

    #[test]
    fn mistral_is_strict9_and_hints_are_provider_local() {
        let caps = resolve_provider_capabilities("mistral");
        assert_eq!(
            caps.tool_call_id_mode_for(""),
            TranscriptToolCallIdMode::Strict9
        );
        assert_eq!(
            caps.tool_call_id_mode_for("gpt-4o"),
            TranscriptToolCallIdMode::Strict9
        );
        // The hints are only consulted for the provider being resolved.
        let openrouter = resolve_provider_capabilities("openrouter");
        assert_eq!(
            openrouter.tool_call_id_mode_for("mistralai/mistral-large"),
            TranscriptToolCallIdMode::Default
        );
    }

    #[test]
    fn moonshot_payload_mode() {
        assert_eq!(
            resolve_provider_capabilities("moonshot").openai_payload_normalization_mode,
            OpenAiPayloadNormalizationMode::MoonshotThinking
        );
    }
}
