//! `sanitizeRequestJson(protocol, body, options)`: the wire repair of a request body for
//! `js/request.js`. The body crosses as the JSON text JS made of it; the answer is the plan over
//! the body's own structure (see `transcript::wire::edit`), which JS applies to the caller's
//! objects, or `{error}` for a body that is not the protocol's shape (JS throws a TypeError).

use crate::transcript::wire::{edit, plan_json, Protocol, WireOptions};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::{json, Value};

/// The plan and changes as JSON: `{plan: {...} | null, changes: [{rule, path, detail}]}`, or
/// `{error: "body.messages[2]: expected …"}`.
#[napi(catch_unwind, js_name = "sanitizeRequestJson")]
pub fn sanitize_request_json(protocol: String, body: String, options: String) -> Result<String> {
    let protocol = Protocol::from_name(&protocol)
        .ok_or_else(|| Error::new(Status::InvalidArg, format!("protocol: {protocol:?}")))?;
    let cfg: Value = serde_json::from_str(&options)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    let body: Value = match serde_json::from_str(&body) {
        Ok(b) => b,
        Err(e) => return Ok(json!({"error": format!("body: could not be read ({e})")}).to_string()),
    };
    let opts = WireOptions::from_json(&cfg, protocol);
    let answer = match plan_json(&body, protocol, &opts) {
        Ok(d) => {
            let changes: Vec<Value> = d
                .changes
                .iter()
                .map(|c| json!({"rule": c.rule, "path": c.path, "detail": c.detail}))
                .collect();
            json!({"plan": d.plan.as_ref().map(edit::to_json), "changes": changes})
        }
        Err(e) => json!({"error": e.to_string()}),
    };
    Ok(answer.to_string())
}

/// The protocols `sanitizeRequest` accepts (the one list; js/request.js checks against it).
#[napi(catch_unwind, js_name = "wireProtocolNames")]
pub fn wire_protocol_names() -> Vec<String> {
    crate::transcript::wire::PROTOCOL_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect()
}
