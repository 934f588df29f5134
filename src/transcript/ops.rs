//! The operations the boundary exposes, by name: each runs one rule (or the whole pass) on a
//! skeleton and returns what the caller needs besides the messages (counts, session entries).
//!
//! Keeping the dispatch here, in the core, means the JS side and the CLI name an operation and
//! pass its options as JSON; neither knows what the operation does.

use super::context::Ctx;
use super::model::num_json;
use super::model::Msg;
use super::pipeline;
use super::policy::{resolve_transcript_policy, SanitizeMode, ToolCallIdMode};
use super::policy_json;
use super::rules;
use super::rules::thought_signatures::StripOptions;
use crate::image::ImageLimits;
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

pub(crate) fn pairing_options(cfg: &Value) -> rules::pairing::PairingOptions {
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

fn session_entries(cfg: &Value) -> Option<Vec<(String, Value)>> {
    entries_from_json(cfg.get("sessionEntries")?)
}

/// The session entries the caller sent, `[[customType, data], …]` (`None` when not an array: no
/// session manager).
pub fn entries_from_json(list: &Value) -> Option<Vec<(String, Value)>> {
    let list = list.as_array()?;
    Some(
        list.iter()
            .filter_map(|e| {
                let t = e.get(0)?.as_str()?.to_string();
                Some((t, e.get(1).cloned().unwrap_or(Value::Null)))
            })
            .collect(),
    )
}

fn opt_string(cfg: &Value, k: &str) -> Option<String> {
    cfg.get(k).and_then(Value::as_str).map(str::to_string)
}

/// The image limits of the options (`maxDimensionPx`, `maxBytes`, `maxDecodeBytes`,
/// `openclawVersion`), the defaults for those not given.
pub(crate) fn limits(cfg: &Value) -> ImageLimits {
    let mut l = ImageLimits::default();
    if let Some(d) = cfg
        .get("maxDimensionPx")
        .and_then(Value::as_f64)
        .filter(|d| d.is_finite())
    {
        l.max_dimension_px = d.floor().clamp(1.0, u32::MAX as f64) as u32;
    }
    if let Some(b) = cfg
        .get("maxBytes")
        .and_then(Value::as_f64)
        .filter(|b| b.is_finite())
    {
        l.max_bytes = b.floor().clamp(1.0, usize::MAX as f64) as usize;
    }
    if let Some(b) = cfg
        .get("maxDecodeBytes")
        .and_then(Value::as_f64)
        .filter(|b| b.is_finite())
    {
        l.max_decode_bytes = b.floor().clamp(1.0, u64::MAX as f64) as u64;
    }
    l.release = crate::openclaw::resolve(version_of(cfg));
    l
}

pub fn history_params(cfg: &Value) -> pipeline::HistoryParams {
    // The base a given policy completes (resolved only then: the pass resolves its own).
    let base = || {
        resolve_transcript_policy(
            cfg.get("provider").and_then(Value::as_str),
            cfg.get("modelApi").and_then(Value::as_str),
            cfg.get("modelId").and_then(Value::as_str),
        )
    };
    pipeline::HistoryParams {
        provider: opt_string(cfg, "provider"),
        model_api: opt_string(cfg, "modelApi"),
        model_id: opt_string(cfg, "modelId"),
        allowed_tool_names: str_list(cfg.get("allowedToolNames")),
        policy: match cfg.get("policy").filter(|p| p.is_object()) {
            Some(p) => Some(policy_json::from_json(p, base())),
            // 2026.9.6 reads the resolved model too: resolved here, where the options are.
            None if crate::openclaw::resolve(version_of(cfg))
                == crate::openclaw::OpenClawVersion::V2026_9_6 =>
            {
                Some(resolve_2026_9(cfg).0)
            }
            None => None,
        },
        pairing: pairing_options(cfg),
        limits: limits(cfg),
        session_entries: session_entries(cfg),
        now: cfg.get("now").and_then(Value::as_f64).unwrap_or(0.0),
        session_id: opt_string(cfg, "sessionId"),
        version: version_of(cfg),
        policy_2026_9: policy_fields_2026_9(cfg),
    }
}

/// The `openclawVersion` a call names (`None`: the process default).
fn version_of(cfg: &Value) -> Option<crate::openclaw::OpenClawVersion> {
    cfg.get("openclawVersion")
        .and_then(Value::as_str)
        .and_then(crate::openclaw::OpenClawVersion::parse)
}

/// The 2026.9.6 policy fields: the caller's policy's (absent ones false, as OpenClaw reads a
/// given policy), else 2026.9.6's resolution when that release runs.
fn policy_fields_2026_9(cfg: &Value) -> super::v2026_9::PolicyFields {
    let given = cfg.get("policy").filter(|p| p.is_object());
    if given.is_none()
        && crate::openclaw::resolve(version_of(cfg)) == crate::openclaw::OpenClawVersion::V2026_9_6
    {
        return resolve_2026_9(cfg).1;
    }
    super::v2026_9::PolicyFields::from_json(given)
}

/// 2026.9.6's policy for the call's provider, API, model id and `model` object.
fn resolve_2026_9(
    cfg: &Value,
) -> (
    super::policy::TranscriptPolicy,
    super::v2026_9::PolicyFields,
) {
    let s = |k: &str| cfg.get(k).and_then(Value::as_str);
    super::v2026_9::policy::resolve_transcript_policy(
        s("provider"),
        s("modelApi"),
        s("modelId"),
        &model_fields(cfg.get("model")),
    )
}

/// The fields 2026.9.6's policy reads of a `model` option (`{ reasoning, compat:
/// { supportsReasoningEffort }, params: { canonicalModelId } }`, checked by js/options.js), as
/// OpenClaw reads them: `reasoning` only when `true`, `supportsReasoningEffort` only when `false`.
///
/// ```
/// use transcript_hygiene::transcript::ops::model_fields;
/// let m = serde_json::json!({"reasoning": true, "compat": {"supportsReasoningEffort": true}, "params": {"canonicalModelId": "claude-opus-4-6"}});
/// let f = model_fields(Some(&m));
/// assert!(f.reasoning && !f.disables_reasoning_effort);
/// assert_eq!(f.canonical_model_id.as_deref(), Some("claude-opus-4-6"));
/// assert_eq!(model_fields(None), Default::default());
/// ```
pub fn model_fields(model: Option<&Value>) -> super::v2026_9::policy::ModelFields {
    let at = |path: &str| model.and_then(|m| m.pointer(path));
    super::v2026_9::policy::ModelFields {
        reasoning: at("/reasoning").and_then(Value::as_bool) == Some(true),
        disables_reasoning_effort: at("/compat/supportsReasoningEffort").and_then(Value::as_bool)
            == Some(false),
        canonical_model_id: at("/params/canonicalModelId")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

fn image_options(cfg: &Value) -> rules::images::ImagePassOptions {
    let full = cfg.get("sanitizeMode").and_then(Value::as_str) != Some("images-only");
    rules::images::ImagePassOptions {
        label: opt_string(cfg, "label").unwrap_or_else(|| "session:history".into()),
        sanitize_mode: if full {
            SanitizeMode::Full
        } else {
            SanitizeMode::ImagesOnly
        },
        sanitize_tool_call_ids: cfg
            .get("sanitizeToolCallIds")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tool_call_id_mode: policy_json::parse_mode(cfg.get("toolCallIdMode")),
        preserve_signatures: cfg
            .get("preserveSignatures")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        sanitize_thought_signatures: policy_json::parse_thought_options(
            cfg.get("sanitizeThoughtSignatures"),
        )
        .map(|t| StripOptions {
            allow_base64_only: t.allow_base64_only,
            include_camel_case: t.include_camel_case,
        }),
        limits: limits(cfg),
    }
}

/// `sanitizeSessionHistory` with its options already read ([`history_params`]): the boundary
/// keeps them between calls with the same options.
pub fn run_history(
    params: &pipeline::HistoryParams,
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
) -> OpOutput {
    let mut out = OpOutput::default();
    let h = pipeline::sanitize_session_history(msgs, ctx, params);
    out.entries = h.entries;
    if !h.warnings.is_empty() {
        out.extra.insert("warnings".into(), json!(h.warnings));
    }
    out
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
            let version = crate::openclaw::resolve(version_of(cfg));
            let merge_users = cfg
                .get("mergeConsecutiveUserTurns")
                .and_then(Value::as_bool);
            let merge_users = merge_users.unwrap_or(true);
            rules::merge_turns::validate_anthropic_turns_as(msgs, ctx, version, merge_users);
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
            let version = crate::openclaw::resolve(version_of(cfg));
            rules::limit_history::limit_history_turns_as(msgs, ctx, limit, version);
        }
        "ensureAssistantUsageSnapshots" => {
            rules::usage_snapshots::normalize_usage_snapshots(msgs, ctx);
        }
        "sanitizeSessionHistory" => return Ok(run_history(&history_params(cfg), msgs, ctx)),
        "sanitizeContentBlocksImages" => {
            let opts = image_options(cfg);
            rules::images::sanitize_content_blocks_images(msgs, ctx, &opts);
        }
        "sanitizeImageBlocks" => {
            let opts = image_options(cfg);
            let dropped = rules::images::sanitize_image_blocks(msgs, ctx, &opts);
            out.extra.insert("dropped".into(), json!(dropped));
        }
        "sanitizeSessionMessagesImages" => {
            let opts = image_options(cfg);
            rules::images::sanitize_session_messages_images(msgs, ctx, &opts);
        }
        "applyGoogleTurnOrderingFix" => {
            let api = cfg.get("modelApi").and_then(Value::as_str).unwrap_or("");
            let mut did = false;
            if pipeline::GOOGLE_APIS.contains(&api)
                && msgs.first().is_some_and(|m| m.is_assistant())
            {
                did = rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx);
                let entries = session_entries(cfg);
                let marked = entries.as_ref().is_none_or(|s| {
                    s.iter()
                        .any(|(t, _)| t == pipeline::GOOGLE_BOOTSTRAP_MARKER)
                });
                if did && !marked {
                    let now = cfg.get("now").and_then(Value::as_f64).unwrap_or(0.0);
                    out.entries.push((
                        pipeline::GOOGLE_BOOTSTRAP_MARKER.to_string(),
                        json!({"timestamp": num_json(now)}),
                    ));
                    let sid = cfg.get("sessionId").and_then(Value::as_str).unwrap_or("");
                    out.extra.insert(
                        "warning".into(),
                        json!(format!("google turn ordering fixup: prepended user bootstrap (sessionId={sid})")),
                    );
                }
            }
            out.extra.insert("didPrepend".into(), json!(did));
        }
        _ => return Err(format!("unknown transcript operation {op:?}")),
    }
    Ok(out)
}

/// The whole answer of one operation: JSON `{n?, vals?, changes?, extra?, entries?}` (see
/// js/transcript.js), written without building a value tree for the plan, and the plan's numbers
/// (written into `nums`, a reusable buffer).
pub fn response_json(
    msgs: &[Msg],
    input_len: usize,
    ctx: &Ctx,
    out: &OpOutput,
    nums: Vec<f64>,
) -> (String, Option<(Vec<f64>, String)>) {
    let changes = ctx.changes.as_deref();
    // One buffer for the answer: the plan's values are written straight into it.
    let mut b: Vec<u8> = Vec::with_capacity(64 + msgs.len() * 8);
    b.push(b'{');
    let mut sep = "";
    let mut plan = None;
    if !super::plan::is_identity(msgs, input_len) {
        b.extend_from_slice(b"\"n\":");
        b.extend_from_slice(msgs.len().to_string().as_bytes());
        b.extend_from_slice(b",\"vals\":");
        plan = Some(super::plan::write(msgs, nums, &mut b));
        sep = ",";
    }
    // Only JSON text was written: strings through serde_json, the rest ASCII. Room for the texts
    // the caller appends.
    let mut s = String::from_utf8(b).unwrap_or_default();
    s.reserve(64 + plan.as_ref().map_or(0, |(_, t)| t.len()));
    if let Some(changes) = changes {
        let list: Vec<Value> = changes
            .iter()
            .map(|c| json!({"rule": c.rule, "path": c.path, "detail": c.detail}))
            .collect();
        s.push_str(sep);
        s.push_str("\"changes\":");
        s.push_str(&Value::Array(list).to_string());
        sep = ",";
    }
    if !out.extra.is_empty() {
        s.push_str(sep);
        s.push_str("\"extra\":");
        s.push_str(&serde_json::to_string(&out.extra).unwrap_or_default());
        sep = ",";
    }
    if !out.entries.is_empty() {
        let list: Vec<Value> = out.entries.iter().map(|(t, d)| json!([t, d])).collect();
        s.push_str(sep);
        s.push_str("\"entries\":");
        s.push_str(&Value::Array(list).to_string());
        sep = ",";
    }
    if !ctx.image_digests.is_empty() {
        // For the codec's per-block memo: [message, block, digest] of each payload hashed.
        let list: Vec<Value> = ctx
            .image_digests
            .iter()
            .map(|(m, b, d)| json!([m, b, crate::image::cache::digest_hex(d)]))
            .collect();
        s.push_str(sep);
        s.push_str("\"digests\":");
        s.push_str(&Value::Array(list).to_string());
    }
    s.push('}');
    (s, plan)
}
