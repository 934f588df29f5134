//! The operations the boundary exposes, by name: each runs one rule (or the whole pass) on a
//! skeleton and returns what the caller needs besides the messages (counts, session entries).
//!
//! Keeping the dispatch here, in the core, means the JS side and the CLI name an operation and
//! pass its options as JSON; neither knows what the operation does.

use super::context::Ctx;
use super::model::Msg;
use super::policy::ToolCallIdMode;
use super::policy_json;
use super::rules;
use super::rules::thought_signatures::StripOptions;
use serde_json::{json, Map, Value};

/// What an operation returns besides the messages.
#[derive(Debug, Default)]
pub struct OpOutput {
    /// Extra result fields (`droppedToolCalls`, `added` …), merged into the JS result object.
    pub extra: Map<String, Value>,
    /// Session entries to append through `sessionManager.appendCustomEntry(customType, data)`.
    pub entries: Vec<(String, Value)>,
}

fn str_list(v: Option<&Value>) -> Option<Vec<String>> {
    let list = v?.as_array()?;
    Some(
        list.iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
    )
}

fn pairing_options(cfg: &Value) -> rules::pairing::PairingOptions {
    let mut o = rules::pairing::PairingOptions::default();
    if let Some(b) = cfg
        .get("preserveErroredAssistantResults")
        .and_then(Value::as_bool)
    {
        o.preserve_errored_assistant_results = b;
    }
    if let Some(t) = cfg.get("syntheticToolResultText").and_then(Value::as_str) {
        o.synthetic_text = t.to_string();
    }
    o
}

/// Runs operation `op` with options `cfg`.
pub fn run(op: &str, cfg: &Value, msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> Result<OpOutput, String> {
    let mut out = OpOutput::default();
    match op {
        "repairToolCallInputs" | "sanitizeToolCallInputs" => {
            let allow = str_list(cfg.get("allowedToolNames"));
            let r = rules::tool_call_inputs::repair_tool_call_inputs(msgs, ctx, allow.as_deref());
            out.extra
                .insert("droppedToolCalls".into(), json!(r.dropped_tool_calls));
            out.extra.insert(
                "droppedAssistantMessages".into(),
                json!(r.dropped_assistant_messages),
            );
        }
        "repairToolUseResultPairing" | "sanitizeToolUseResultPairing" => {
            let r =
                rules::pairing::repair_tool_use_result_pairing(msgs, ctx, &pairing_options(cfg));
            out.extra.insert("added".into(), json!(r.added));
            out.extra.insert(
                "droppedDuplicateCount".into(),
                json!(r.dropped_duplicate_count),
            );
            out.extra
                .insert("droppedOrphanCount".into(), json!(r.dropped_orphan_count));
            out.extra.insert("moved".into(), json!(r.moved));
        }
        "sanitizeToolCallIdsForCloudCodeAssist" => {
            let mode = policy_json::parse_mode(cfg.get("mode")).unwrap_or(ToolCallIdMode::Strict);
            rules::tool_call_ids::sanitize_tool_call_ids(msgs, ctx, mode);
        }
        "validateGeminiTurns" => {
            rules::merge_turns::validate_gemini_turns(msgs, ctx);
        }
        "validateAnthropicTurns" => {
            rules::merge_turns::validate_anthropic_turns(msgs, ctx);
        }
        "mergeConsecutiveUserTurns" => {
            if msgs.len() != 2 {
                return Err("mergeConsecutiveUserTurns takes two messages".into());
            }
            let current = msgs.pop().ok_or("missing message")?;
            let previous = msgs.pop().ok_or("missing message")?;
            msgs.push(rules::merge_turns::merge_consecutive_user_turns(
                previous, current,
            ));
        }
        "sanitizeGoogleTurnOrdering" => {
            rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx);
        }
        "stripThoughtSignatures" => {
            let opts =
                policy_json::parse_thought_options(cfg.get("options")).map(|t| StripOptions {
                    allow_base64_only: t.allow_base64_only,
                    include_camel_case: t.include_camel_case,
                });
            for m in msgs.iter_mut() {
                rules::thought_signatures::strip_message_thought_signatures(m, ctx, opts);
            }
        }
        "dropThinkingBlocks" => {
            rules::drop_thinking::drop_thinking_blocks(msgs, ctx);
        }
        "downgradeOpenAIReasoningBlocks" => {
            rules::openai_reasoning::downgrade_openai_reasoning_blocks(msgs, ctx);
        }
        "downgradeOpenAIFunctionCallReasoningPairs" => {
            rules::openai_function_call_pairs::downgrade_openai_function_call_reasoning_pairs(
                msgs, ctx,
            );
        }
        "stripToolResultDetails" => {
            rules::tool_result_details::strip_tool_result_details(msgs, ctx);
        }
        "annotateInterSessionUserMessages" => {
            rules::inter_session::annotate_inter_session_user_turns(msgs, ctx);
        }
        "limitHistoryTurns" => {
            let limit = cfg.get("limit").and_then(Value::as_f64);
            rules::limit_history::limit_history_turns(msgs, ctx, limit);
        }
        "ensureAssistantUsageSnapshots" => {
            rules::usage_snapshots::normalize_usage_snapshots(msgs, ctx);
        }
        _ => return Err(format!("unknown transcript operation {op:?}")),
    }
    Ok(out)
}
