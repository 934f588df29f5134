//! The gateway entry points for `js/request.js`.
//!
//! - `sanitizeRequestSkeleton(protocol, nums, strs, options)`: the body crosses as the skeleton
//!   `js/request.js` wrote of it (only the fields the readers read, see
//!   `transcript::wire::skeleton`); the answer is the plan over the body's own structure (see
//!   `transcript::wire::edit`), which JS applies to the caller's objects. An image payload the
//!   skeleton's head does not settle is read from `body` itself, by its path (one copy).
//! - `sanitizeRequestBuffer(protocol, bytes, options)`: the body as the gateway holds it; the
//!   answer is the repaired bytes, or none when the body needs nothing.
//!
//! Neither reads the body into a `serde_json::Value`. A body that is not JSON or not the protocol's shape is answered with
//! `{error}` (JS throws a TypeError naming the path).

use super::string_read::with_utf8;
use crate::transcript::context::Change;
use crate::transcript::wire::edit::{self, Seg};
use crate::transcript::wire::skeleton::{self, SNode, Skeleton};
use crate::transcript::wire::{plan_with, sanitize_bytes, Protocol, WireOptions};
use napi::bindgen_prelude::{
    Buffer, Float64ArraySlice, JsObjectValue, Object, Uint8ArraySlice, Unknown,
};
use napi::{Error, JsValue, Result, Status, ValueType};
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

/// Calls `f` with the UTF-8 of the string at `path` in the caller's `body`; false when there is
/// none.
fn string_at(body: Object, path: &[Seg], f: &mut dyn FnMut(&[u8])) -> bool {
    let mut cur = body;
    for (n, seg) in path.iter().enumerate() {
        let v = match seg {
            Seg::Key(k) => cur.get_named_property::<Unknown>(k),
            Seg::Idx(i) => match u32::try_from(*i) {
                Ok(i) => cur.get_element::<Unknown>(i),
                Err(_) => return false,
            },
        };
        let Ok(v) = v else {
            return false;
        };
        let ty = v.get_type().ok();
        if n + 1 == path.len() {
            if ty != Some(ValueType::String) {
                return false;
            }
            let raw = v.value();
            return with_utf8(raw.env, raw.value, |s| f(s)).is_some();
        }
        if ty != Some(ValueType::Object) {
            return false;
        }
        // SAFETY: the value was just checked to be an object (arrays are objects).
        match unsafe { v.cast::<Object>() } {
            Ok(o) => cur = o,
            Err(_) => return false,
        }
    }
    false
}

/// The plan and changes as JSON: `{plan: {...} | null, changes: [{rule, path, detail}]}`, or
/// `{error: "body.messages[2]: expected …"}`.
#[napi(catch_unwind, js_name = "sanitizeRequestSkeleton")]
pub fn sanitize_request_skeleton(
    protocol: String,
    nums: Float64ArraySlice,
    strs: String,
    options: String,
    body: Object,
) -> Result<String> {
    let (protocol, opts) = read_args(&protocol, &options)?;
    let skel = Skeleton::parse(&nums, &strs).map_err(|e| Error::new(Status::InvalidArg, e))?;
    let fetch = |_: SNode, path: &[Seg], f: &mut dyn FnMut(&[u8])| string_at(body, path, f);
    let answer = match plan_with(skel.root(), protocol, &opts, &fetch) {
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

/// What `js/request.js` needs to write a skeleton: `{keys: [[key, flags]], text, shallow,
/// depth}` (the one definition is `transcript::wire::skeleton`).
#[napi(catch_unwind, js_name = "wireSkeletonCodes")]
pub fn wire_skeleton_codes() -> String {
    let keys: Vec<Value> = skeleton::KEYS.iter().map(|(k, f)| json!([k, f])).collect();
    json!({
        "keys": keys,
        "text": skeleton::TEXT,
        "shallow": skeleton::SHALLOW,
        "head": skeleton::HEAD,
        "headChars": skeleton::HEAD_CHARS,
        "depth": skeleton::DEPTH,
        "sep": skeleton::SEP.to_string(),
        "codes": {
            "null": skeleton::NULL, "true": skeleton::TRUE, "false": skeleton::FALSE,
            "num": skeleton::NUM, "str": skeleton::STR, "strJson": skeleton::STR_JSON,
            "text": skeleton::TEXT_INFO, "arr": skeleton::ARR, "obj": skeleton::OBJ,
            "shallowArr": skeleton::SHALLOW_ARR, "shallowObj": skeleton::SHALLOW_OBJ,
            "skipped": skeleton::SKIPPED, "textHead": skeleton::TEXT_HEAD,
        },
    })
    .to_string()
}

/// The protocols `sanitizeRequest` accepts (the one list; js/request.js checks against it).
#[napi(catch_unwind, js_name = "wireProtocolNames")]
pub fn wire_protocol_names() -> Vec<String> {
    crate::transcript::wire::PROTOCOL_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect()
}
