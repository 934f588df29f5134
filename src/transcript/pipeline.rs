//! `sanitizeSessionHistory`: the whole replay-time pass, in OpenClaw 2026.3.23-2's order (§3.1).
//!
//! The order matters: ids are rewritten (inside the image pass) before pairing, so two turns that
//! reused a raw id do not collide; malformed calls are dropped before pairing, so they get no
//! synthetic result; Google's bootstrap turn comes last, after everything that could drop the
//! first message.

use super::context::Ctx;
use super::model::Msg;
use super::policy::{resolve_transcript_policy, TranscriptPolicy};
use super::rules;
use super::rules::images::ImagePassOptions;
use super::rules::thought_signatures::StripOptions;
use crate::image::ImageLimits;
use serde_json::{json, Value};

pub const GOOGLE_APIS: &[&str] = &["google-gemini-cli", "google-generative-ai"];
const RESPONSES_APIS: &[&str] = &["openai-responses", "openai-codex-responses"];
pub const MODEL_SNAPSHOT: &str = "model-snapshot";
pub const GOOGLE_BOOTSTRAP_MARKER: &str = "google-turn-ordering-bootstrap";

/// The parameters of one pass (JS `params`, minus the messages).
#[derive(Clone, Debug, Default)]
pub struct HistoryParams {
    pub provider: Option<String>,
    pub model_api: Option<String>,
    pub model_id: Option<String>,
    pub allowed_tool_names: Option<Vec<String>>,
    pub policy: Option<TranscriptPolicy>,
    pub pairing: rules::pairing::PairingOptions,
    pub limits: ImageLimits,
    /// The session's custom entries (`customType`, `data`), oldest first, when a session manager
    /// was given.
    pub session_entries: Option<Vec<(String, Value)>>,
    /// The time to stamp new session entries with (ms since the epoch).
    pub now: f64,
    /// For warnings only.
    pub session_id: Option<String>,
}

/// Session entries the pass asks the caller to append.
pub type NewEntries = Vec<(String, Value)>;

/// What a pass produces besides the messages.
#[derive(Debug, Default)]
pub struct HistoryOutput {
    pub entries: NewEntries,
    /// The warnings OpenClaw logs, for the caller's `warn`.
    pub warnings: Vec<String>,
}

fn snapshot_differs(data: &Value, p: &HistoryParams) -> bool {
    let field = |k: &str| {
        data.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let own = |v: &Option<String>| v.clone().unwrap_or_default();
    field("provider") != own(&p.provider)
        || field("modelApi") != own(&p.model_api)
        || field("modelId") != own(&p.model_id)
}

pub fn image_pass_options(policy: &TranscriptPolicy, limits: ImageLimits) -> ImagePassOptions {
    ImagePassOptions {
        label: "session:history".into(),
        sanitize_mode: policy.sanitize_mode,
        sanitize_tool_call_ids: policy.sanitize_tool_call_ids,
        tool_call_id_mode: policy.tool_call_id_mode,
        preserve_signatures: policy.preserve_signatures,
        sanitize_thought_signatures: policy.sanitize_thought_signatures.map(|t| StripOptions {
            allow_base64_only: t.allow_base64_only,
            include_camel_case: t.include_camel_case,
        }),
        limits,
    }
}

pub fn sanitize_session_history(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
) -> HistoryOutput {
    let policy = p.policy.clone().unwrap_or_else(|| {
        resolve_transcript_policy(
            p.provider.as_deref(),
            p.model_api.as_deref(),
            p.model_id.as_deref(),
        )
    });
    let api = p.model_api.as_deref().unwrap_or("");
    let mut entries = NewEntries::new();
    let mut warnings = Vec::new();
    let sid = p.session_id.as_deref().unwrap_or("undefined");

    rules::inter_session::annotate_inter_session_user_turns(msgs, ctx);
    let (count, kinds) = rules::canonicalize::malformed_kinds(msgs);
    if count > 0 {
        warnings.push(format!(
            "sanitizeSessionHistory: canonicalized {count} malformed assistant message(s) before replay session={sid} contentKinds={}",
            kinds.join(",")
        ));
    }
    rules::canonicalize::canonicalize_assistant_content(msgs, ctx);
    rules::images::sanitize_session_messages_images(
        msgs,
        ctx,
        &image_pass_options(&policy, p.limits),
    );
    if policy.drop_thinking_blocks {
        rules::drop_thinking::drop_thinking_blocks(msgs, ctx);
    }
    rules::tool_call_inputs::repair_tool_call_inputs(msgs, ctx, p.allowed_tool_names.as_deref());
    if policy.repair_tool_use_result_pairing {
        rules::pairing::repair_tool_use_result_pairing(msgs, ctx, &p.pairing);
    }
    rules::tool_result_details::strip_tool_result_details(msgs, ctx);
    rules::usage_snapshots::normalize_usage_snapshots(msgs, ctx);
    if RESPONSES_APIS.contains(&api) {
        rules::openai_reasoning::downgrade_openai_reasoning_blocks(msgs, ctx);
        rules::openai_function_call_pairs::downgrade_openai_function_call_reasoning_pairs(
            msgs, ctx,
        );
    }

    let has_snapshot = p.provider.is_some() || p.model_api.is_some() || p.model_id.is_some();
    if let (true, Some(session)) = (has_snapshot, &p.session_entries) {
        let last = session.iter().rev().find(|(t, _)| t == MODEL_SNAPSHOT);
        if last.is_none_or(|(_, data)| snapshot_differs(data, p)) {
            let mut data = json!({"timestamp": super::model::num_json(p.now)});
            for (k, v) in [
                ("provider", &p.provider),
                ("modelApi", &p.model_api),
                ("modelId", &p.model_id),
            ] {
                if let Some(v) = v {
                    data[k] = json!(v);
                }
            }
            entries.push((MODEL_SNAPSHOT.to_string(), data));
        }
    }

    if policy.apply_google_turn_ordering {
        let prepended = rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx);
        if prepended && GOOGLE_APIS.contains(&api) {
            let marked = p
                .session_entries
                .as_ref()
                .is_none_or(|s| s.iter().any(|(t, _)| t == GOOGLE_BOOTSTRAP_MARKER));
            if !marked {
                warnings.push(format!(
                    "google turn ordering fixup: prepended user bootstrap (sessionId={sid})"
                ));
                entries.push((
                    GOOGLE_BOOTSTRAP_MARKER.to_string(),
                    json!({"timestamp": super::model::num_json(p.now)}),
                ));
            }
        }
    }
    HistoryOutput { entries, warnings }
}
