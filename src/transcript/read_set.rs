//! What of the skeleton a call's rules read: the fields js/codec.js may leave out.
//!
//! The codec's encode is a third of a full pass at 1,000 messages, and every field it writes the
//! parser reads back. The policy is known before the encode (it follows from the options), and
//! some fields no rule of that policy ever reads: a thinking block's text (no rule of the
//! 2026.3.23 pass reads it), its `thinkingSignature` (only the OpenAI Responses reasoning rules
//! do), Gemini's thought signatures (only full mode's strip of assistant turns does). For a call
//! whose rules do not read them, the codec writes each as an absent value (code 0) instead of
//! reading and encoding it, and the model holds what [`leave_out`] makes of it.
//!
//! The read set is decided here, from the same predicates the rules run under
//! (`pipeline::runs_openai_reasoning_rules`, `images::strips_thought_signatures`), and reaches
//! the codec through `transcriptUnread` (cached per options there) or a session's `unread()`.
//! The test below runs every policy on a varied corpus with and without the fields left out and
//! compares the plans: a rule that reads a field its policy's set leaves out fails it.

use super::model::{Content, Msg, Val};
use super::ops::history_params;
use super::pipeline::{image_pass_options, runs_openai_reasoning_rules, HistoryParams};
use super::rules::images::strips_thought_signatures;
use crate::openclaw::{resolve, OpenClawVersion};
use serde_json::Value;

/// A thinking block's `thinking` (its length and blankness).
pub const THINKING_TEXT: u32 = 1;
/// A thinking block's `thinkingSignature` (a string, or an object's `id` and `type`).
pub const THINKING_SIGNATURE: u32 = 2;
/// Every block's Gemini thought signatures (`thought_signature`, `thoughtSignature`).
pub const THOUGHT_SIGNATURES: u32 = 4;

/// The options the read set depends on (js/codec.js keys its cache by their values and the
/// release it runs).
pub const OPTIONS: &[&str] = &[
    "openclawVersion",
    "provider",
    "modelApi",
    "modelId",
    "policy",
    "model",
];

/// The fields no rule of operation `op` reads with options `cfg` (the checked options as JSON):
/// an OR of the constants above. Only the full pass leaves anything out.
pub fn unread(op: &str, cfg: &Value) -> u32 {
    if op == "sanitizeSessionHistory" {
        unread_by_history(&history_params(cfg))
    } else {
        0
    }
}

/// [`unread`] of the full pass with parameters `p`.
pub fn unread_by_history(p: &HistoryParams) -> u32 {
    if resolve(p.version) == OpenClawVersion::V2026_9_6 {
        // 2026.9.6's rules are not covered yet: it reads every field.
        return 0;
    }
    let policy = p.resolved_policy();
    let mut bits = THINKING_TEXT;
    if !runs_openai_reasoning_rules(p.model_api.as_deref().unwrap_or("")) {
        bits |= THINKING_SIGNATURE;
    }
    if !strips_thought_signatures(&image_pass_options(&policy, p.limits)) {
        bits |= THOUGHT_SIGNATURES;
    }
    bits
}

/// The model as the codec sends it with the `unread` fields left out: each as absent.
pub fn leave_out(msgs: &mut [Msg], unread: u32) {
    for m in msgs {
        let Content::Blocks(blocks) = &mut m.content else {
            continue;
        };
        for b in blocks {
            let thinking = b.is_type("thinking");
            let Some(x) = b.x.as_deref_mut() else {
                continue;
            };
            if thinking && unread & THINKING_TEXT != 0 {
                x.thinking = None;
            }
            if thinking && unread & THINKING_SIGNATURE != 0 {
                x.thinking_signature = Val::Absent;
                x.signature_object = None;
            }
            if unread & THOUGHT_SIGNATURES != 0 {
                x.thought_signature = Val::Absent;
                x.thought_signature_camel = Val::Absent;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::context::{Ctx, JsonSource};
    use crate::transcript::ops;
    use crate::transcript::skeleton;
    use serde_json::json;

    /// Provider, API and model of the policies compared: each policy family of 2026.3.23 (full
    /// and images-only, preserved and stripped signatures, dropped thinking, Responses and
    /// completions, Gemini behind a proxy, strict9 ids), and no provider at all.
    const CALLS: &[(&str, &str, &str)] = &[
        ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
        ("openai", "openai-responses", "gpt-5.2"),
        ("openai", "openai-codex-responses", "gpt-5.2-codex"),
        ("openai", "openai-completions", "gpt-5"),
        ("google", "google-generative-ai", "gemini-2.5-pro"),
        ("google-gemini-cli", "google-gemini-cli", "gemini-3-pro"),
        ("mistral", "openai-completions", "mistral-large"),
        ("openrouter", "openai-completions", "google/gemini-2.5-pro"),
        (
            "openrouter",
            "openai-responses",
            "anthropic/claude-sonnet-4-5",
        ),
        ("kimi", "anthropic-messages", "kimi-k2"),
        ("amazon-bedrock", "bedrock-converse-stream", "claude-opus-4"),
        ("github-copilot", "openai-responses", "claude-sonnet-4"),
        ("xai", "openai-completions", "grok-4"),
        ("deepseek", "openai-responses", "deepseek-chat"),
        ("", "openai-responses", ""),
        ("", "", ""),
    ];

    /// Policies given by the caller (`params.policy`), over every API above: each flag the read
    /// set depends on, both ways.
    fn given_policies() -> Vec<Value> {
        let mut out = vec![Value::Null];
        for mode in ["full", "images-only"] {
            for preserve in [false, true] {
                for thought in [
                    Value::Null,
                    json!({"allowBase64Only": true, "includeCamelCase": true}),
                ] {
                    out.push(json!({
                        "sanitizeMode": mode,
                        "sanitizeToolCallIds": true,
                        "toolCallIdMode": "strict",
                        "repairToolUseResultPairing": true,
                        "preserveSignatures": preserve,
                        "sanitizeThoughtSignatures": thought,
                        "dropThinkingBlocks": false,
                        "applyGoogleTurnOrdering": true,
                        "validateGeminiTurns": false,
                        "validateAnthropicTurns": false,
                        "allowSyntheticToolResults": true,
                    }));
                }
            }
        }
        out
    }

    /// A deterministic history mixing what the left-out fields hold: thinking blocks with blank
    /// and non-blank text, no / blank / opaque / Responses-reasoning (string and object)
    /// signatures, Gemini thought signatures (base64, `msg_…`, not base64) on text, thinking and
    /// tool-call blocks of every role, errored turns, redacted thinking, calls and results.
    fn corpus(seed: u32, len: usize) -> Vec<Value> {
        let mut s = seed;
        let mut pick = |n: u32| {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0x7fff_ffff;
            (s >> 8) % n
        };
        let thoughts = [
            None,
            Some(json!("Q2xhdWRl")),
            Some(json!("msg_abc")),
            Some(json!("not base64!")),
            Some(json!("")),
        ];
        let signatures = [
            None,
            Some(json!("")),
            Some(json!("c2lnbmF0dXJl")),
            Some(json!("{\"id\":\"rs_1\",\"type\":\"reasoning\"}")),
            Some(json!(" {\"id\":\"rs_2\",\"type\":\"reasoning.summary\"} ")),
            Some(json!({"id": "rs_3", "type": "reasoning"})),
            Some(json!({"id": "x", "type": "other"})),
        ];
        let with_thought = |mut b: Value, pick: &mut dyn FnMut(u32) -> u32| {
            if let Some(t) = &thoughts[pick(thoughts.len() as u32) as usize] {
                b["thought_signature"] = t.clone();
            }
            if let Some(t) = &thoughts[pick(thoughts.len() as u32) as usize] {
                b["thoughtSignature"] = t.clone();
            }
            b
        };
        let mut out = Vec::new();
        let mut k = 0;
        while out.len() < len {
            k += 1;
            let user = with_thought(json!({"type": "text", "text": format!("q{k}")}), &mut pick);
            out.push(json!({"role": "user", "content": [user], "timestamp": k}));
            let mut blocks = Vec::new();
            for _ in 0..pick(3) {
                let text = ["", "  ", "thinking about it"][pick(3) as usize];
                let mut b = json!({"type": "thinking", "thinking": text});
                if let Some(sig) = &signatures[pick(signatures.len() as u32) as usize] {
                    b["thinkingSignature"] = sig.clone();
                }
                blocks.push(with_thought(b, &mut pick));
            }
            if pick(4) == 0 {
                blocks.push(json!({"type": "redacted_thinking", "data": "opaque"}));
            }
            let text = ["", "answer", " "][pick(3) as usize];
            blocks.push(with_thought(
                json!({"type": "text", "text": text}),
                &mut pick,
            ));
            let id = format!("call_{k}|fc_{k}");
            let calls = pick(3);
            for c in 0..calls {
                let call = json!({"type": "toolCall", "id": format!("{id}{c}"), "name": "read", "arguments": {}});
                blocks.push(with_thought(call, &mut pick));
            }
            if pick(4) == 0 {
                // A trailing reasoning item (what the Responses downgrade drops).
                let sig = &signatures[3 + pick(4) as usize];
                blocks.push(
                    json!({"type": "thinking", "thinking": "late", "thinkingSignature": sig}),
                );
            }
            let stop = ["toolUse", "stop", "error", "aborted"][pick(4) as usize];
            out.push(
                json!({"role": "assistant", "content": blocks, "stopReason": stop, "timestamp": k}),
            );
            for c in 0..calls {
                if pick(5) == 0 {
                    continue;
                }
                let r = with_thought(json!({"type": "text", "text": "ok"}), &mut pick);
                out.push(json!({"role": "toolResult", "toolCallId": format!("{id}{c}"), "toolName": "read", "content": [r], "isError": false, "timestamp": k}));
            }
        }
        out
    }

    /// The answer `runTranscript` would give (the plan's JSON and numbers, the report, the
    /// entries) for `input`, with the `unread` fields left out of the model.
    fn answer(input: &[Value], cfg: &Value, unread: u32) -> (String, Option<(Vec<f64>, String)>) {
        let src = JsonSource(input);
        let mut ctx = Ctx::new(&src, true);
        let mut msgs = skeleton::from_values(input);
        leave_out(&mut msgs, unread);
        let result = ops::run("sanitizeSessionHistory", cfg, &mut msgs, &mut ctx)
            .unwrap_or_else(|e| panic!("{e}"));
        ops::response_json(&msgs, input.len(), &ctx, &result, Vec::new())
    }

    /// Every policy's plans are the same with the fields its read set leaves out as with the
    /// whole skeleton: no rule of a policy reads what its set omits.
    #[test]
    fn every_policy_plans_the_same_without_its_unread_fields() {
        let transcripts: Vec<Vec<Value>> = (1..=12).map(|s| corpus(s, 40)).collect();
        let mut compared = 0;
        let mut left_out = [0; 3];
        for (provider, api, model) in CALLS {
            for policy in given_policies() {
                let mut cfg =
                    json!({"openclawVersion": "2026.3.23", "sessionEntries": [], "now": 7});
                for (k, v) in [
                    ("provider", provider),
                    ("modelApi", api),
                    ("modelId", model),
                ] {
                    if !v.is_empty() {
                        cfg[k] = json!(v);
                    }
                }
                if !policy.is_null() {
                    cfg["policy"] = policy;
                }
                let bits = unread("sanitizeSessionHistory", &cfg);
                for (k, bit) in [THINKING_TEXT, THINKING_SIGNATURE, THOUGHT_SIGNATURES]
                    .iter()
                    .enumerate()
                {
                    left_out[k] += usize::from(bits & bit != 0);
                }
                for (k, t) in transcripts.iter().enumerate() {
                    // Not assert_eq: the answers are pages long.
                    let same = answer(t, &cfg, bits) == answer(t, &cfg, 0);
                    assert!(same, "{cfg} leaving out {bits}: transcript {k}");
                    compared += 1;
                }
            }
        }
        assert_eq!(
            compared,
            CALLS.len() * given_policies().len() * transcripts.len()
        );
        // Each field is left out for some policies and read by others (else the test proves
        // nothing about it).
        let calls = CALLS.len() * given_policies().len();
        assert!(left_out.iter().all(|&n| n > 0), "{left_out:?}");
        assert!(left_out[1..].iter().all(|&n| n < calls), "{left_out:?}");
    }

    /// The test above would notice a read set that leaves out what a rule reads: leaving every
    /// field out changes some policy's plan on the corpus.
    #[test]
    fn leaving_out_a_read_field_changes_a_plan() {
        let t = corpus(3, 60);
        for (provider, api, bit) in [
            ("openai", "openai-responses", THINKING_SIGNATURE),
            ("google", "google-generative-ai", THOUGHT_SIGNATURES),
        ] {
            let cfg = json!({"openclawVersion": "2026.3.23", "provider": provider, "modelApi": api, "modelId": "m"});
            assert_eq!(unread("sanitizeSessionHistory", &cfg) & bit, 0, "{api}");
            let differs = answer(&t, &cfg, bit) != answer(&t, &cfg, 0);
            assert!(differs, "{api}: leaving out {bit} changed nothing");
        }
    }

    /// Other operations, and 2026.9.6's pass, read every field.
    #[test]
    fn only_the_2026_3_23_full_pass_leaves_fields_out() {
        let cfg = json!({"openclawVersion": "2026.3.23", "provider": "mistral", "modelApi": "openai-completions", "modelId": "mistral-large"});
        assert_eq!(
            unread("sanitizeSessionHistory", &cfg),
            THINKING_TEXT | THINKING_SIGNATURE
        );
        assert_eq!(unread("dropThinkingBlocks", &cfg), 0);
        let mut newer = cfg.clone();
        newer["openclawVersion"] = json!("2026.9.6");
        assert_eq!(unread("sanitizeSessionHistory", &newer), 0);
    }
}
