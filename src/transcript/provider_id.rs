//! Provider id normalisation.
//!
//! OpenClaw keys every provider decision (capabilities, transcript policy) on a
//! normalised provider id, so that `"Kimi-Code "`, `"kimi-coding"` and `"kimi"`
//! all reach the same rules. This module reproduces `normalizeProviderId` of
//! openclaw 2026.3.23-2 (`src/agents/provider-id.ts`): JavaScript `trim()`, then
//! lowercase, then a fixed alias table.

/// Aliases applied after trimming and lowercasing (openclaw 2026.3.23-2).
/// Later versions map `qwen` elsewhere; this table is the 2026.3.23-2 one.
const ALIASES: &[(&str, &str)] = &[
    ("z.ai", "zai"),
    ("z-ai", "zai"),
    ("opencode-zen", "opencode"),
    ("opencode-go-auth", "opencode-go"),
    ("qwen", "qwen-portal"),
    ("kimi-code", "kimi"),
    ("kimi-coding", "kimi"),
    ("bedrock", "amazon-bedrock"),
    ("aws-bedrock", "amazon-bedrock"),
    ("bytedance", "volcengine"),
    ("doubao", "volcengine"),
];

/// Normalise a provider id the way OpenClaw does: trim (JS whitespace set),
/// lowercase, then resolve the aliases (`z.ai`/`z-ai` → `zai`,
/// `opencode-zen` → `opencode`, `opencode-go-auth` → `opencode-go`,
/// `qwen` → `qwen-portal`, `kimi-code`/`kimi-coding` → `kimi`,
/// `bedrock`/`aws-bedrock` → `amazon-bedrock`, `bytedance`/`doubao` → `volcengine`).
use crate::js_text::js_trim;

pub fn normalize_provider_id(p: &str) -> String {
    let lowered = js_trim(p).to_lowercase();
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == lowered)
        .map_or(lowered, |(_, canonical)| (*canonical).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_lowercases() {
        assert_eq!(normalize_provider_id("  OpenRouter\t"), "openrouter");
        assert_eq!(normalize_provider_id("Anthropic"), "anthropic");
        assert_eq!(normalize_provider_id(""), "");
        assert_eq!(normalize_provider_id(" \u{FEFF}\u{3000}"), "");
    }

    #[test]
    fn resolves_every_alias() {
        let cases = [
            ("z.ai", "zai"),
            ("Z-AI", "zai"),
            ("zai", "zai"),
            ("opencode-zen", "opencode"),
            ("opencode-go-auth", "opencode-go"),
            ("qwen", "qwen-portal"),
            ("kimi", "kimi"),
            ("Kimi-Code", "kimi"),
            ("kimi-coding", "kimi"),
            ("bedrock", "amazon-bedrock"),
            ("aws-bedrock", "amazon-bedrock"),
            ("bytedance", "volcengine"),
            ("doubao", "volcengine"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize_provider_id(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn aliases_match_whole_ids_only() {
        assert_eq!(normalize_provider_id("qwen-portal"), "qwen-portal");
        assert_eq!(normalize_provider_id("my-bedrock"), "my-bedrock");
        assert_eq!(normalize_provider_id("kimi-k2"), "kimi-k2");
    }
}
