//! `runTranscript(messages, nums, strs, op, config)`: the one native call behind every transcript
//! function of the JS API.

use super::source::HandleSource;
use crate::transcript::{ops, plan, skeleton, Ctx};
use napi::bindgen_prelude::{Array, Float64ArraySlice};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::{json, Map, Value};

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}

/// Runs transcript operation `op` on the skeleton of `messages`; returns the plan as JSON.
#[napi(catch_unwind, js_name = "runTranscript")]
pub fn run_transcript(
    messages: Array,
    nums: Float64ArraySlice,
    strs: String,
    op: String,
    config: String,
) -> Result<String> {
    let cfg: Value = serde_json::from_str(&config).map_err(|e| invalid(format!("options: {e}")))?;
    let mut msgs = skeleton::parse(&nums, &strs).map_err(invalid)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let report = cfg.get("report").and_then(Value::as_bool).unwrap_or(false);
    let mut ctx = Ctx::new(&source, report);
    let out = ops::run(&op, &cfg, &mut msgs, &mut ctx).map_err(invalid)?;
    let mut result = Map::new();
    if let Some(p) = plan::encode(&msgs, input_len) {
        result.insert("msgs".into(), p);
    }
    if let Some(changes) = ctx.changes {
        let list: Vec<Value> = changes
            .into_iter()
            .map(|c| json!({"rule": c.rule, "path": c.path, "detail": c.detail}))
            .collect();
        result.insert("changes".into(), Value::Array(list));
    }
    if !out.extra.is_empty() {
        result.insert("extra".into(), Value::Object(out.extra));
    }
    if !out.entries.is_empty() {
        let list: Vec<Value> = out
            .entries
            .into_iter()
            .map(|(t, d)| json!([t, d]))
            .collect();
        result.insert("entries".into(), Value::Array(list));
    }
    Ok(Value::Object(result).to_string())
}
