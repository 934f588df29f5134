//! Exports that take and return small scalars: the policy, single tool-call ids.

use crate::transcript::policy::resolve_transcript_policy;
use crate::transcript::policy_json;
use crate::transcript::tool_call_id::{is_valid_cloud_code_assist_tool_id, sanitize_tool_call_id};
use napi_derive::napi;

/// `resolveTranscriptPolicy`, as JSON.
#[napi(catch_unwind, js_name = "resolveTranscriptPolicyJson")]
pub fn resolve_transcript_policy_json(
    provider: Option<String>,
    model_api: Option<String>,
    model_id: Option<String>,
) -> String {
    let p = resolve_transcript_policy(
        provider.as_deref(),
        model_api.as_deref(),
        model_id.as_deref(),
    );
    policy_json::to_json(&p).to_string()
}

fn mode(m: Option<String>) -> napi::Result<crate::transcript::policy::ToolCallIdMode> {
    let v = m.map(serde_json::Value::String);
    match v {
        None => Ok(crate::transcript::policy::ToolCallIdMode::Strict),
        Some(v) => policy_json::parse_mode(Some(&v)).ok_or_else(|| {
            napi::Error::new(
                napi::Status::InvalidArg,
                format!("mode: expected \"strict\" or \"strict9\", got {v}"),
            )
        }),
    }
}

/// `sanitizeToolCallId(id, mode)`: one id in the provider's alphabet.
#[napi(catch_unwind, js_name = "sanitizeToolCallId")]
pub fn sanitize_tool_call_id_js(
    id: Option<String>,
    mode_name: Option<String>,
) -> napi::Result<String> {
    Ok(sanitize_tool_call_id(id.as_deref(), mode(mode_name)?))
}

/// `isValidCloudCodeAssistToolId(id, mode)`.
#[napi(catch_unwind, js_name = "isValidCloudCodeAssistToolId")]
pub fn is_valid_tool_id_js(id: Option<String>, mode_name: Option<String>) -> napi::Result<bool> {
    let m = mode(mode_name)?;
    Ok(id.is_some_and(|id| is_valid_cloud_code_assist_tool_id(&id, m)))
}
