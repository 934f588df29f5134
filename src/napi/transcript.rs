//! `runTranscript(messages, nums, strs, op, config)`: the one native call behind every transcript
//! function of the JS API.

use super::source::HandleSource;
use crate::transcript::{ops, skeleton, Ctx};
use napi::bindgen_prelude::{Array, Float64Array, Float64ArraySlice};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::Value;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}

/// What one operation answers: the plan's numbers, and everything else as JSON.
#[napi(object)]
pub struct TranscriptAnswer {
    pub json: String,
    pub plan: Option<Float64Array>,
}

/// Runs transcript operation `op` on the skeleton of `messages`.
#[napi(catch_unwind, js_name = "runTranscript")]
pub fn run_transcript(
    messages: Array,
    nums: Float64ArraySlice,
    strs: String,
    op: String,
    config: String,
) -> Result<TranscriptAnswer> {
    let cfg: Value = serde_json::from_str(&config).map_err(|e| invalid(format!("options: {e}")))?;
    let mut msgs = skeleton::parse(&nums, &strs).map_err(invalid)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let report = cfg.get("report").and_then(Value::as_bool).unwrap_or(false);
    let mut ctx = Ctx::new(&source, report);
    let out = ops::run(&op, &cfg, &mut msgs, &mut ctx).map_err(invalid)?;
    let (json, plan) = ops::response_json(&msgs, input_len, ctx.changes.as_deref(), &out);
    Ok(TranscriptAnswer {
        json,
        plan: plan.map(Float64Array::new),
    })
}
