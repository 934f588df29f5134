//! The policy object as JS sees it (`resolveTranscriptPolicy`'s field names), both ways: callers
//! may pass their own `policy` to `sanitizeSessionHistory`.

use super::policy::{SanitizeMode, ThoughtSignatureOptions, ToolCallIdMode, TranscriptPolicy};
use serde_json::{json, Map, Value};

pub fn mode_name(m: ToolCallIdMode) -> &'static str {
    match m {
        ToolCallIdMode::Strict => "strict",
        ToolCallIdMode::Strict9 => "strict9",
    }
}

pub fn parse_mode(v: Option<&Value>) -> Option<ToolCallIdMode> {
    match v?.as_str()? {
        "strict" => Some(ToolCallIdMode::Strict),
        "strict9" => Some(ToolCallIdMode::Strict9),
        _ => None,
    }
}

pub fn parse_thought_options(v: Option<&Value>) -> Option<ThoughtSignatureOptions> {
    let o = v?.as_object()?;
    let flag = |k: &str| o.get(k).and_then(Value::as_bool).unwrap_or(false);
    Some(ThoughtSignatureOptions {
        allow_base64_only: flag("allowBase64Only"),
        include_camel_case: flag("includeCamelCase"),
    })
}

pub fn to_json(p: &TranscriptPolicy) -> Value {
    let mut o = Map::new();
    let mode = match p.sanitize_mode {
        SanitizeMode::Full => "full",
        SanitizeMode::ImagesOnly => "images-only",
    };
    o.insert("sanitizeMode".into(), json!(mode));
    o.insert(
        "sanitizeToolCallIds".into(),
        json!(p.sanitize_tool_call_ids),
    );
    if let Some(m) = p.tool_call_id_mode {
        o.insert("toolCallIdMode".into(), json!(mode_name(m)));
    }
    o.insert(
        "repairToolUseResultPairing".into(),
        json!(p.repair_tool_use_result_pairing),
    );
    o.insert("preserveSignatures".into(), json!(p.preserve_signatures));
    if let Some(t) = p.sanitize_thought_signatures {
        o.insert(
            "sanitizeThoughtSignatures".into(),
            json!({"allowBase64Only": t.allow_base64_only, "includeCamelCase": t.include_camel_case}),
        );
    }
    o.insert(
        "sanitizeThinkingSignatures".into(),
        json!(p.sanitize_thinking_signatures),
    );
    o.insert("dropThinkingBlocks".into(), json!(p.drop_thinking_blocks));
    o.insert(
        "applyGoogleTurnOrdering".into(),
        json!(p.apply_google_turn_ordering),
    );
    o.insert("validateGeminiTurns".into(), json!(p.validate_gemini_turns));
    o.insert(
        "validateAnthropicTurns".into(),
        json!(p.validate_anthropic_turns),
    );
    o.insert(
        "allowSyntheticToolResults".into(),
        json!(p.allow_synthetic_tool_results),
    );
    Value::Object(o)
}

/// A policy as OpenClaw 2026.9.6 returns it: its field set and order (`sanitizeThinkingSignatures`
/// gone; `preserveNativeAnthropicToolUseIds`, `appendOnlyRuntimeContext` and
/// `dropReasoningFromHistory` added).
pub fn to_json_2026_9(
    p: &TranscriptPolicy,
    extra: &crate::transcript::v2026_9::PolicyFields,
) -> Value {
    const ORDER: &[&str] = &[
        "sanitizeMode",
        "sanitizeToolCallIds",
        "toolCallIdMode",
        "preserveNativeAnthropicToolUseIds",
        "repairToolUseResultPairing",
        "preserveSignatures",
        "appendOnlyRuntimeContext",
        "sanitizeThoughtSignatures",
        "dropThinkingBlocks",
        "dropReasoningFromHistory",
        "applyGoogleTurnOrdering",
        "validateGeminiTurns",
        "validateAnthropicTurns",
        "allowSyntheticToolResults",
    ];
    let added = [
        (
            "preserveNativeAnthropicToolUseIds",
            extra.preserve_native_anthropic_tool_use_ids,
        ),
        (
            "appendOnlyRuntimeContext",
            extra.append_only_runtime_context,
        ),
        (
            "dropReasoningFromHistory",
            extra.drop_reasoning_from_history,
        ),
    ];
    let old = to_json(p);
    let field = |k: &str| match added.iter().find(|(a, _)| *a == k) {
        Some((_, b)) => Some(json!(b)),
        None => old.get(k).cloned(),
    };
    Value::Object(
        ORDER
            .iter()
            .filter_map(|k| field(k).map(|v| (k.to_string(), v)))
            .collect(),
    )
}

/// A caller's policy object; fields it leaves out take `base`'s values.
pub fn from_json(v: &Value, base: TranscriptPolicy) -> TranscriptPolicy {
    let flag = |k: &str, d: bool| v.get(k).and_then(Value::as_bool).unwrap_or(d);
    TranscriptPolicy {
        sanitize_mode: match v.get("sanitizeMode").and_then(Value::as_str) {
            Some("full") => SanitizeMode::Full,
            Some("images-only") => SanitizeMode::ImagesOnly,
            _ => base.sanitize_mode,
        },
        sanitize_tool_call_ids: flag("sanitizeToolCallIds", base.sanitize_tool_call_ids),
        tool_call_id_mode: if v.get("toolCallIdMode").is_some() {
            parse_mode(v.get("toolCallIdMode"))
        } else {
            base.tool_call_id_mode
        },
        repair_tool_use_result_pairing: flag(
            "repairToolUseResultPairing",
            base.repair_tool_use_result_pairing,
        ),
        preserve_signatures: flag("preserveSignatures", base.preserve_signatures),
        sanitize_thought_signatures: if v.get("sanitizeThoughtSignatures").is_some() {
            parse_thought_options(v.get("sanitizeThoughtSignatures"))
        } else {
            base.sanitize_thought_signatures
        },
        sanitize_thinking_signatures: flag(
            "sanitizeThinkingSignatures",
            base.sanitize_thinking_signatures,
        ),
        drop_thinking_blocks: flag("dropThinkingBlocks", base.drop_thinking_blocks),
        apply_google_turn_ordering: flag(
            "applyGoogleTurnOrdering",
            base.apply_google_turn_ordering,
        ),
        validate_gemini_turns: flag("validateGeminiTurns", base.validate_gemini_turns),
        validate_anthropic_turns: flag("validateAnthropicTurns", base.validate_anthropic_turns),
        allow_synthetic_tool_results: flag(
            "allowSyntheticToolResults",
            base.allow_synthetic_tool_results,
        ),
    }
}
