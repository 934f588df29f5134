//! Exports that take and return small scalars: the policy, single tool-call ids.

use crate::openclaw::OpenClawVersion;
use crate::transcript::policy::{resolve_transcript_policy, ToolCallIdMode};
use crate::transcript::policy_json;
use crate::transcript::tool_call_id::{is_valid_cloud_code_assist_tool_id, sanitize_tool_call_id};
use crate::transcript::v2026_9;
use napi_derive::napi;

/// `resolveTranscriptPolicy`, as JSON; `model` is the checked `model` option as JSON (2026.9.6
/// reads it).
#[napi(catch_unwind, js_name = "resolveTranscriptPolicyJson")]
pub fn resolve_transcript_policy_json(
    provider: Option<String>,
    model_api: Option<String>,
    model_id: Option<String>,
    openclaw_version: Option<String>,
    model: Option<String>,
) -> napi::Result<String> {
    let (provider, model_api, model_id) = (
        provider.as_deref(),
        model_api.as_deref(),
        model_id.as_deref(),
    );
    Ok(
        match super::visible::version(openclaw_version.as_deref())? {
            OpenClawVersion::V2026_9_6 => {
                let model = match model
                    .as_deref()
                    .map(serde_json::from_str::<serde_json::Value>)
                {
                    Some(Ok(m)) => Some(m),
                    Some(Err(e)) => {
                        return Err(napi::Error::new(
                            napi::Status::InvalidArg,
                            format!("params.model: not JSON ({e})"),
                        ))
                    }
                    None => None,
                };
                let fields = crate::transcript::ops::model_fields(model.as_ref());
                let (p, extra) = v2026_9::policy::resolve_transcript_policy(
                    provider, model_api, model_id, &fields,
                );
                policy_json::to_json_2026_9(&p, &extra)
            }
            _ => policy_json::to_json(&resolve_transcript_policy(provider, model_api, model_id)),
        }
        .to_string(),
    )
}

/// OpenClaw's reading of a mode argument: `"strict9"` is strict9, anything else strict.
fn mode(m: Option<String>) -> ToolCallIdMode {
    match m.as_deref() {
        Some("strict9") => ToolCallIdMode::Strict9,
        _ => ToolCallIdMode::Strict,
    }
}

/// `sanitizeToolCallId(id, mode)`: one id in the provider's alphabet.
#[napi(catch_unwind, js_name = "sanitizeToolCallId")]
pub fn sanitize_tool_call_id_js(id: Option<String>, mode_name: Option<String>) -> String {
    sanitize_tool_call_id(id.as_deref(), mode(mode_name))
}

/// `isValidCloudCodeAssistToolId(id, mode)`.
#[napi(catch_unwind, js_name = "isValidCloudCodeAssistToolId")]
pub fn is_valid_tool_id_js(id: Option<String>, mode_name: Option<String>) -> bool {
    let m = mode(mode_name);
    id.is_some_and(|id| is_valid_cloud_code_assist_tool_id(&id, m))
}
