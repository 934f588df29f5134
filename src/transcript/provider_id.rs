//! Provider id normalisation.
//!
//! OpenClaw keys every provider decision (capabilities, transcript policy) on a
//! normalised provider id, so that `"Kimi-Code "`, `"kimi-coding"` and `"kimi"`
//! all reach the same rules. This module reproduces `normalizeProviderId` of
//! openclaw 2026.3.23-2 (`src/agents/provider-id.ts`): JavaScript `trim()`, then
//! lowercase, then a fixed alias table.
//!
//! It also exports [`js_trim`], the exact whitespace set of JavaScript's
//! `String.prototype.trim`, which differs from Rust's `str::trim` (JS trims
//! U+FEFF and not U+0085). The session file repair uses it for its
//! blank-line test.

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
pub fn normalize_provider_id(p: &str) -> String {
    let lowered = js_trim(p).to_lowercase();
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == lowered)
        .map_or(lowered, |(_, canonical)| (*canonical).to_string())
}

/// Whether `c` is removed by JavaScript's `String.prototype.trim`
/// (ECMAScript WhiteSpace and LineTerminator code points).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trim()` with JavaScript's whitespace set.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
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

    #[test]
    fn js_trim_uses_the_ecmascript_whitespace_set() {
        assert_eq!(js_trim("\u{FEFF} x \u{00A0}"), "x");
        assert_eq!(js_trim("\u{2028}x\u{2029}"), "x");
        // U+0085 (NEL) is whitespace for Rust but not for JavaScript.
        assert_eq!(js_trim("\u{0085}x"), "\u{0085}x");
        assert_eq!("\u{0085}x".trim(), "x");
    }
}
