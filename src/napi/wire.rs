//! The gateway entry points for `js/request.js`.
//!
//! - `sanitizeRequestJson(protocol, json, options)`: the body crosses as the JSON text JS made of
//!   it; the answer is the plan over the body's own structure (see `transcript::wire::edit`),
//!   which JS applies to the caller's objects.
//! - `sanitizeRequestBuffer(protocol, bytes, options)`: the body as the gateway holds it; the
//!   answer is the repaired bytes, or none when the body needs nothing.
//!
//! Both read the body with the tape reader (`transcript::wire::tape`), never into a
//! `serde_json::Value`. A body that is not JSON or not the protocol's shape is answered with
//! `{error}` (JS throws a TypeError naming the path).

use crate::transcript::context::Change;
use crate::transcript::wire::{edit, plan_json, sanitize_bytes, tape::Tape, Protocol, WireOptions};
use napi::bindgen_prelude::{Buffer, Uint8ArraySlice};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::{json, Value};

fn read_args(protocol: &str, options: &str) -> Result<(Protocol, WireOptions)> {
    let p = Protocol::from_name(protocol)
        .ok_or_else(|| Error::new(Status::InvalidArg, format!("protocol: {protocol:?}")))?;
    let cfg: Value = serde_json::from_str(options)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    Ok((p, WireOptions::from_json(&cfg, p)))
}

fn changes_json(changes: &[Change]) -> Value {
    changes
        .iter()
        .map(|c| json!({"rule": c.rule, "path": c.path, "detail": c.detail}))
        .collect()
}

/// The plan and changes as JSON: `{plan: {...} | null, changes: [{rule, path, detail}]}`, or
/// `{error: "body.messages[2]: expected …"}`.
#[napi(catch_unwind, js_name = "sanitizeRequestJson")]
pub fn sanitize_request_json(protocol: String, body: String, options: String) -> Result<String> {
    let (protocol, opts) = read_args(&protocol, &options)?;
    let answer = match Tape::parse(body.as_bytes())
        .and_then(|t| plan_json(t.root(), protocol, &opts))
    {
        Ok(d) => {
            json!({"plan": d.plan.as_ref().map(edit::to_json), "changes": changes_json(&d.changes)})
        }
        Err(e) => json!({"error": e.to_string()}),
    };
    Ok(answer.to_string())
}

/// What `sanitizeRequestBuffer` answers.
#[napi(object)]
pub struct WireBytes {
    /// The repaired body; absent when the body needs nothing.
    pub body: Option<Buffer>,
    /// The changes as JSON (`[{rule, path, detail}]`), under `report`.
    pub changes: Option<String>,
    /// Why the body could not be read (`body.messages[3]: expected … (byte 812)`).
    pub error: Option<String>,
}

/// The repair of a request body held as bytes (UTF-8 JSON).
#[napi(catch_unwind, js_name = "sanitizeRequestBuffer")]
pub fn sanitize_request_buffer(
    protocol: String,
    body: Uint8ArraySlice,
    options: String,
) -> Result<WireBytes> {
    let (protocol, opts) = read_args(&protocol, &options)?;
    Ok(match sanitize_bytes(&body, protocol, &opts) {
        Ok((out, changes)) => WireBytes {
            body: out.map(Buffer::from),
            changes: opts.report.then(|| changes_json(&changes).to_string()),
            error: None,
        },
        Err(e) => WireBytes {
            body: None,
            changes: None,
            error: Some(e.to_string()),
        },
    })
}

/// The protocols `sanitizeRequest` accepts (the one list; js/request.js checks against it).
#[napi(catch_unwind, js_name = "wireProtocolNames")]
pub fn wire_protocol_names() -> Vec<String> {
    crate::transcript::wire::PROTOCOL_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect()
}
