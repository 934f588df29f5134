//! `serverToolFollowupJson(skeleton)` and `stripServerToolCallsJson(skeleton)`: the skeletons of
//! js/followup.js in, the plans out (as JSON). A pairing error is an answer, not an exception, so
//! JS can throw it with the call id attached.

use crate::followup::{self, strip};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::{json, Value};

fn parse(skeleton: &str) -> Result<Value> {
    serde_json::from_str(skeleton).map_err(|e| Error::new(Status::InvalidArg, e.to_string()))
}

#[napi(catch_unwind, js_name = "serverToolFollowupJson")]
pub fn server_tool_followup_json(skeleton: String) -> Result<String> {
    let f = followup::followup_from_json(&parse(&skeleton)?)
        .map_err(|e| Error::new(Status::InvalidArg, e))?;
    Ok(match followup::plan(&f) {
        Ok(p) => followup::plan_to_json(&p),
        Err(e) => json!({"error": {"id": e.id, "message": e.message}}),
    }
    .to_string())
}

#[napi(catch_unwind, js_name = "stripServerToolCallsJson")]
pub fn strip_server_tool_calls_json(skeleton: String) -> Result<String> {
    let (answer, server) = strip::answer_from_json(&parse(&skeleton)?);
    Ok(strip::strip_to_json(strip::strip(&answer, &server).as_ref()).to_string())
}
