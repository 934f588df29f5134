//! `sanitizeSessionHistory`: the whole replay-time pass, in OpenClaw 2026.3.23-2's order (§3.1).
//!
//! The order matters: ids are rewritten (inside the image pass) before pairing, so two turns that
//! reused a raw id do not collide; malformed calls are dropped before pairing, so they get no
//! synthetic result; Google's bootstrap turn comes last, after everything that could drop the
//! first message.

use super::census::Census;
use super::context::Ctx;
use super::incremental::Tracker;
use super::model::Msg;
use super::policy::{resolve_transcript_policy, SanitizeMode, TranscriptPolicy};
use super::rules;
use super::rules::images::ImagePassOptions;
use super::rules::thought_signatures::StripOptions;
use crate::image::ImageLimits;
use crate::openclaw::OpenClawVersion;
use serde_json::{json, Value};

pub const GOOGLE_APIS: &[&str] = &["google-gemini-cli", "google-generative-ai"];
const RESPONSES_APIS: &[&str] = &["openai-responses", "openai-codex-responses"];

/// Whether the pass over `api` runs the OpenAI Responses reasoning rules (the only ones of the
/// 2026.3.23 pass that read a thinking block's `thinkingSignature`; see
/// [`super::read_set`]).
pub(crate) fn runs_openai_reasoning_rules(api: &str) -> bool {
    RESPONSES_APIS.contains(&api)
}
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
    /// The session's custom entries the pass reads (`customType`, `data`), when a session manager
    /// was given: every `model-snapshot` (2026.9.6: of the current branch), oldest first, and the
    /// Google bootstrap marker, if any.
    pub session_entries: Option<Vec<(String, Value)>>,
    /// The time to stamp new session entries with (ms since the epoch).
    pub now: f64,
    /// For warnings only.
    pub session_id: Option<String>,
    /// The OpenClaw release whose pass runs (`openclawVersion`); `None`: the process default.
    pub version: Option<crate::openclaw::OpenClawVersion>,
    /// The 2026.9.6 policy fields the 2026.3.23 policy has no room for.
    pub policy_2026_9: super::v2026_9::PolicyFields,
}

impl HistoryParams {
    /// The policy the pass applies: the one given, else resolved from provider, API and model.
    pub fn resolved_policy(&self) -> TranscriptPolicy {
        self.policy.clone().unwrap_or_else(|| {
            let (provider, api, model) = (
                self.provider.as_deref(),
                self.model_api.as_deref(),
                self.model_id.as_deref(),
            );
            match crate::openclaw::resolve(self.version) {
                OpenClawVersion::V2026_9_6 => {
                    let none = super::v2026_9::policy::ModelFields::default();
                    super::v2026_9::policy::resolve_transcript_policy(provider, api, model, &none).0
                }
                _ => resolve_transcript_policy(provider, api, model),
            }
        })
    }
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

/// Whether snapshot `data` names another provider, API or model than this call.
pub(crate) fn snapshot_differs(data: &Value, p: &HistoryParams) -> bool {
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

/// The `model-snapshot` session entry to append: when the session's last one names another
/// provider, API or model, or there is none (both releases).
pub(crate) fn model_snapshot_entry(p: &HistoryParams) -> Option<(String, Value)> {
    let has_snapshot = p.provider.is_some() || p.model_api.is_some() || p.model_id.is_some();
    let session = p.session_entries.as_ref().filter(|_| has_snapshot)?;
    let last = session.iter().rev().find(|(t, _)| t == MODEL_SNAPSHOT);
    if last.is_some_and(|(_, data)| !snapshot_differs(data, p)) {
        return None;
    }
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
    Some((MODEL_SNAPSHOT.to_string(), data))
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
    run(msgs, ctx, p, None)
}

/// The pass, with `track` recording what the incremental pass needs (and, when it continues a
/// remembered prefix, `msgs` being the suffix after it: see [`super::incremental`]).
pub(crate) fn run(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
    mut track: Option<&mut Tracker>,
) -> HistoryOutput {
    if crate::openclaw::resolve(p.version) == crate::openclaw::OpenClawVersion::V2026_9_6 {
        return super::v2026_9::sanitize_session_history(msgs, ctx, p);
    }
    let policy = p.resolved_policy();
    let api = p.model_api.as_deref().unwrap_or("");
    let mut entries = NewEntries::new();
    let mut warnings = Vec::new();
    let sid = p.session_id.as_deref().unwrap_or("undefined");

    // The image pass only looks at images when it sanitizes no ids in images-only mode; the
    // reasoning rule runs on the Responses APIs only: the census reads blocks only for those.
    let images_only =
        policy.sanitize_mode == SanitizeMode::ImagesOnly && !policy.sanitize_tool_call_ids;
    let census = Census::of(msgs, images_only || runs_openai_reasoning_rules(api));
    if census.provenance {
        rules::inter_session::annotate_inter_session_user_turns(msgs, ctx);
    }
    let (count, kinds) = match track.as_deref_mut() {
        Some(t) => t.malformed(msgs),
        None if census.assistant_not_blocks => rules::canonicalize::malformed_kinds(msgs),
        None => (0, Vec::new()),
    };
    if count > 0 {
        warnings.push(format!(
            "sanitizeSessionHistory: canonicalized {count} malformed assistant message(s) before replay session={sid} contentKinds={}",
            kinds.join(",")
        ));
    }
    if census.assistant_not_blocks {
        rules::canonicalize::canonicalize_assistant_content(msgs, ctx);
    }
    if track.is_some() {
        ctx.id_trace = Some(Vec::new());
    }
    if census.images || !images_only {
        rules::images::sanitize_session_messages_images(
            msgs,
            ctx,
            &image_pass_options(&policy, p.limits),
        );
    }
    if let Some(t) = track.as_deref_mut() {
        t.take_id_trace(ctx);
    }
    if policy.drop_thinking_blocks {
        rules::drop_thinking::drop_thinking_blocks(msgs, ctx);
    }
    rules::tool_call_inputs::repair_tool_call_inputs(msgs, ctx, p.allowed_tool_names.as_deref());
    if let Some(t) = track.as_deref_mut() {
        t.before_pairing(msgs);
    }
    if policy.repair_tool_use_result_pairing {
        let r = rules::pairing::repair_tool_use_result_pairing(msgs, ctx, &p.pairing);
        if let Some(t) = track.as_deref_mut() {
            t.held = r.held;
        }
    }
    if census.details {
        rules::tool_result_details::strip_tool_result_details(msgs, ctx);
    }
    match track.as_deref_mut() {
        Some(t) => {
            let earlier = t.before_usage(msgs);
            rules::usage_snapshots::normalize_usage_snapshots_after(msgs, ctx, earlier);
        }
        None => {
            rules::usage_snapshots::normalize_usage_snapshots(msgs, ctx);
        }
    }
    if runs_openai_reasoning_rules(api) {
        if census.reasoning {
            rules::openai_reasoning::downgrade_openai_reasoning_blocks(msgs, ctx);
        }
        rules::openai_function_call_pairs::downgrade_openai_function_call_reasoning_pairs(
            msgs, ctx,
        );
    }

    entries.extend(model_snapshot_entry(p));

    if policy.apply_google_turn_ordering {
        let prepended = match track {
            // A continued run's first message is not the history's: the prefix decided.
            Some(t) if t.continuing() => t.prepended(),
            Some(t) => {
                let stamped = rules::google_ordering::stamped(msgs).and_then(Msg::src_index);
                let prepended = rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx);
                t.bootstrap(prepended, stamped);
                prepended
            }
            None => rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx),
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openclaw::OpenClawVersion::V2026_3_23;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn google() -> HistoryParams {
        HistoryParams {
            provider: Some("google".into()),
            model_api: Some("google-generative-ai".into()),
            model_id: Some("gemini-2.5-pro".into()),
            session_entries: Some(Vec::new()),
            now: 42.0,
            // 2026.3.23's pass (the package default is 2026.9.6).
            version: Some(V2026_3_23),
            ..HistoryParams::default()
        }
    }

    /// The reference's worked example (§5).
    #[test]
    fn google_worked_example() {
        let input = json!([
            {"role": "assistant", "stopReason": "toolUse", "timestamp": 1, "content": [
                {"type": "text", "text": "", "thought_signature": "msg_1"},
                {"type": "toolCall", "id": "call_a|fc_1", "name": "read", "arguments": {}, "thoughtSignature": "not base64!"}]},
            {"role": "toolResult", "toolCallId": "call_a|fc_1", "toolName": "read", "content": [{"type": "text", "text": "r"}], "timestamp": 2},
            {"role": "assistant", "stopReason": "toolUse", "timestamp": 3, "content": [
                {"type": "toolCall", "id": "call_b", "name": "read", "arguments": {}, "thoughtSignature": "Q2xhdWRl"}]},
            {"role": "user", "content": "next", "timestamp": 4},
        ]);
        let mut out = HistoryOutput::default();
        let (msgs, _) = run(&input, |m, c| {
            out = sanitize_session_history(m, c, &google())
        });
        assert_eq!(msgs.len(), 6);
        assert_eq!(
            msgs[0],
            json!({"role": "user", "content": "(session bootstrap)", "timestamp": 1})
        );
        assert_eq!(
            msgs[1]["content"],
            json!([{"type": "toolCall", "id": "callafc1", "name": "read", "arguments": {}}])
        );
        assert_eq!(msgs[1]["usage"]["totalTokens"], 0);
        assert_eq!(msgs[2]["toolCallId"], "callafc1");
        assert_eq!(msgs[3]["content"][0]["thoughtSignature"], "Q2xhdWRl");
        assert_eq!(msgs[3]["content"][0]["id"], "callb");
        assert_eq!(msgs[4]["toolCallId"], "callb");
        assert_eq!(msgs[4]["isError"], true);
        assert_eq!(msgs[5], input[3]);
        let types: Vec<&str> = out.entries.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(types, vec![MODEL_SNAPSHOT, GOOGLE_BOOTSTRAP_MARKER]);
        assert_eq!(
            out.entries[0].1,
            json!({"timestamp": 42, "provider": "google", "modelApi": "google-generative-ai", "modelId": "gemini-2.5-pro"})
        );
        assert_eq!(out.warnings.len(), 1);
    }

    #[test]
    fn no_new_entries_when_the_snapshot_matches_and_the_marker_exists() {
        let mut p = google();
        p.session_entries = Some(vec![
            (
                MODEL_SNAPSHOT.into(),
                json!({"provider": "google", "modelApi": "google-generative-ai", "modelId": "gemini-2.5-pro"}),
            ),
            (GOOGLE_BOOTSTRAP_MARKER.into(), json!({})),
        ]);
        let input = json!([{"role": "assistant", "content": [{"type": "text", "text": "hi"}], "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}}]);
        let mut out = HistoryOutput::default();
        let (msgs, _) = run(&input, |m, c| out = sanitize_session_history(m, c, &p));
        assert_eq!(msgs[0]["content"], "(session bootstrap)");
        assert!(out.entries.is_empty());
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn openai_is_images_only_and_a_clean_transcript_is_untouched() {
        let p = HistoryParams {
            provider: Some("openai".into()),
            model_api: Some("openai-completions".into()),
            model_id: Some("gpt-5".into()),
            version: Some(V2026_3_23),
            ..HistoryParams::default()
        };
        let zero = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
        let input = json!([
            {"role": "user", "content": "q", "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": ""}, {"type": "toolCall", "id": "call1", "name": "read", "arguments": {}}], "usage": zero, "stopReason": "toolUse"},
            {"role": "toolResult", "toolCallId": "call1", "toolName": "read", "content": []},
        ]);
        let (_, identity) = run(&input, |m, c| {
            sanitize_session_history(m, c, &p);
        });
        assert!(identity, "images-only mode keeps empty text and valid ids");
    }
}
