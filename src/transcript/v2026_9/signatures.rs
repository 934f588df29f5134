//! Thinking signatures the provider would refuse, removed before replay (OpenClaw 2026.9.6's
//! `stripStaleThinkingSignaturesForCompactionReplay` and `stripInvalidThinkingSignatures`, both
//! new in that release).
//!
//! Anthropic (and Bedrock, Vertex) sign each thinking block; a replayed block must carry its
//! signature, and a signature is bound to the exact prompt prefix it was made under. So, for the
//! signed-thinking providers or a policy with `preserveSignatures`:
//! - assistant turns older than the latest compaction (by timestamp) lose their reasoning blocks'
//!   `thinkingSignature`, `signature` and `thought_signature` (and a `redacted_thinking` block its
//!   `data`): the prefix they were signed under was replaced by the summary;
//! - reasoning blocks with no non-blank signature (a `redacted_thinking` block's `data` counts)
//!   are removed, leaving `[assistant reasoning omitted]` where nothing else is left; the latest
//!   assistant is exempt when it is the last message or the current tool turn (the provider is
//!   mid-answer and owns it).

use super::drop_reasoning::is_current_tool_turn;
use super::{is_reasoning, REASONING_OMITTED};
use crate::transcript::context::{block_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use crate::transcript::rules::drop_thinking::drop_blocks;
use crate::transcript::usage::{timestamp_ms, TimestampValue};

/// The providers whose thinking must be signed to be replayed.
const SIGNED_THINKING_PROVIDERS: &[&str] = &["anthropic", "amazon-bedrock", "anthropic-vertex"];

/// Whether the signature rules run for this provider and policy.
pub fn applies(provider: Option<&str>, preserve_signatures: bool) -> bool {
    let id = crate::transcript::provider_id::normalize_provider_id(provider.unwrap_or(""));
    preserve_signatures || SIGNED_THINKING_PROVIDERS.contains(&id.as_str())
}

/// A message timestamp in ms (2026.9.6's `parseDateFirstTimestampMs`).
pub(super) fn timestamp(v: &Val) -> Option<f64> {
    timestamp_ms(&match v {
        Val::Num(n) => TimestampValue::Num(*n),
        Val::Str(s) => TimestampValue::Str(s.to_string()),
        _ => TimestampValue::None,
    })
}

fn is_redacted(b: &Block) -> bool {
    b.is_type("redacted_thinking")
}

/// The signature fields a reasoning block carries (`!= null`), by name.
fn signature_fields(b: &Block) -> Vec<&'static str> {
    let Some(x) = b.x.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if x.thinking_signature.is_present() || x.redacted_signature.is_present() {
        out.push("thinkingSignature");
    }
    if x.signature.is_present() {
        out.push("signature");
    }
    if x.thought_signature.is_present() {
        out.push("thought_signature");
    }
    if is_redacted(b) && x.redacted_data.is_present() {
        out.push("data");
    }
    out
}

/// The latest compaction time the signature rule reads from `m` (a compaction summary with a
/// timestamp that parses).
pub fn compaction_time(m: &Msg) -> Option<f64> {
    m.is_role("compactionSummary")
        .then(|| timestamp(&m.timestamp))
        .flatten()
}

/// Removes the signatures of reasoning blocks in assistant turns older than the latest
/// compaction.
pub fn strip_stale_signatures(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    strip_stale_signatures_after(msgs, ctx, None)
}

/// [`strip_stale_signatures`] on the part of a history after a prefix whose latest compaction
/// time ([`compaction_time`]) was `earlier`, for the incremental pass.
pub fn strip_stale_signatures_after(msgs: &mut [Msg], ctx: &mut Ctx, earlier: Option<f64>) -> bool {
    let Some(latest) = msgs
        .iter()
        .filter_map(compaction_time)
        .chain(earlier)
        .reduce(f64::max)
    else {
        return false;
    };
    let mut changed = false;
    for m in msgs.iter_mut() {
        if !m.is_assistant() || m.blocks().is_none() {
            continue;
        }
        if timestamp(&m.timestamp).is_none_or(|t| t >= latest) {
            continue;
        }
        let stale: Vec<(usize, Vec<&str>)> = m
            .blocks()
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, b)| is_reasoning(b))
            .map(|(j, b)| (j, signature_fields(b)))
            .filter(|(_, f)| !f.is_empty())
            .collect();
        for (j, fields) in stale {
            let Some(b) = m.blocks().and_then(|bs| bs.get(j)) else {
                continue;
            };
            ctx.change("stripStaleThinkingSignatures", block_path(m, b), || {
                "removed a thinking signature older than the latest compaction".into()
            });
            if let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) {
                for f in fields {
                    b.del(f);
                }
            }
            changed = true;
        }
    }
    changed
}

/// A reasoning block with a non-blank string signature (a redacted block's `data` counts).
fn replayable(b: &Block) -> bool {
    let Some(x) = b.x.as_deref() else {
        return false;
    };
    let str_sig = |v: &Val| v.non_blank_str().is_some();
    x.signature.is_non_blank_str()
        || str_sig(&x.thinking_signature)
        || x.redacted_signature.is_non_blank_str()
        || str_sig(&x.thought_signature)
        || (is_redacted(b) && x.redacted_data.is_non_blank_str())
}

fn unsigned_reasoning(b: &Block) -> bool {
    is_reasoning(b) && !replayable(b)
}

/// Whether the latest assistant keeps its reasoning as it is: it is the last message, or the
/// current tool turn (2026.9.6's `shouldPreserveLatestAssistantThinking`).
fn latest_exempt(msgs: &[Msg], latest: usize, after_assistant: bool) -> bool {
    let user = msgs.iter().rposition(|m| m.is_user());
    latest == msgs.len() - 1 || is_current_tool_turn(msgs, latest, user, after_assistant)
}

/// Removes reasoning blocks that carry no signature, except in an exempt latest assistant.
pub fn strip_invalid_signatures(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    strip_invalid_signatures_after(msgs, ctx, false)
}

/// [`strip_invalid_signatures`] on the part of a history after a prefix that ends, looking back,
/// with an assistant before any user turn (`after_assistant`), for the incremental pass.
pub(crate) fn strip_invalid_signatures_after(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    after_assistant: bool,
) -> bool {
    let latest = msgs
        .iter()
        .rposition(|m| m.is_assistant() && m.blocks().is_some());
    let exempt = latest.filter(|&i| latest_exempt(msgs, i, after_assistant));
    let mut changed = false;
    for (i, m) in msgs.iter_mut().enumerate() {
        if !m.is_assistant() || Some(i) == exempt {
            continue;
        }
        changed |= drop_blocks(
            m,
            ctx,
            "stripInvalidThinkingSignatures",
            unsigned_reasoning,
            "dropped a reasoning block without a signature",
            REASONING_OMITTED,
        );
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn said(ts: u64, content: Value) -> Value {
        json!({"role": "assistant", "content": content, "stopReason": "stop", "timestamp": ts})
    }

    #[test]
    fn unsigned_reasoning_goes_except_in_the_latest_turn() {
        let input = json!([
            {"role": "user", "content": "问"},
            said(2, json!([{"type": "thinking", "thinking": "未签名"}, {"type": "text", "text": "x"}])),
            said(3, json!([{"type": "thinking", "thinking": "空签名", "signature": "  "}])),
            said(4, json!([{"type": "thinking", "thinking": "签了", "signature": "c2ln"}, {"type": "redacted_thinking", "data": "ZGF0YQ=="}])),
            said(5, json!([{"type": "thinking", "thinking": "最新"}])),
        ]);
        let out = run(&input, |m, c| {
            strip_invalid_signatures(m, c);
        })
        .0;
        assert_eq!(out[1]["content"], json!([{"type": "text", "text": "x"}]));
        assert_eq!(
            out[2]["content"],
            json!([{"type": "text", "text": REASONING_OMITTED}])
        );
        assert_eq!(out[3], input[3]);
        assert_eq!(out[4], input[4]);
    }

    #[test]
    fn signatures_before_the_latest_compaction_are_removed() {
        let input = json!([
            said(1, json!([{"type": "thinking", "thinking": "a", "thinkingSignature": "s1", "signature": "s2"}, {"type": "redacted_thinking", "data": "ZA=="}, {"type": "text", "text": "x"}])),
            {"role": "compactionSummary", "summary": "s", "timestamp": 5},
            said(9, json!([{"type": "thinking", "thinking": "b", "thinkingSignature": "s3"}])),
        ]);
        let out = run(&input, |m, c| {
            strip_stale_signatures(m, c);
        })
        .0;
        assert_eq!(
            out[0]["content"],
            json!([{"type": "thinking", "thinking": "a"}, {"type": "redacted_thinking"}, {"type": "text", "text": "x"}])
        );
        assert_eq!(out[2], input[2]);
        // Without a compaction, nothing changes.
        let input = json!([input[0].clone(), input[2].clone()]);
        let (_, identity) = run(&input, |m, c| {
            strip_stale_signatures(m, c);
        });
        assert!(identity);
    }

    #[test]
    fn applies_to_signed_thinking_providers_or_preserved_signatures() {
        assert!(applies(Some("anthropic"), false));
        assert!(applies(Some("amazon-bedrock"), false));
        assert!(applies(Some("ollama"), true));
        assert!(!applies(Some("ollama"), false));
        assert!(!applies(None, false));
    }
}
