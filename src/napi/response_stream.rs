//! `ResponseStreamCleanerNative`: the state of one streamed reply, owned by Rust. One native call
//! per delta; the answer is a string: `"c"` + the visible text when the delta gave nothing else
//! (the common case, no JSON to build or parse), otherwise `"j"` + the chunk as JSON.

use super::text::{JsText, Text};
use crate::lone_surrogates::PieceMap;
use crate::poison::Poison;
use crate::response::stream::{StreamChunk, StreamCleaner};
use crate::response::{json, ToolCall};
use napi::bindgen_prelude::Either;
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;
use serde_json::{json, Value};

fn calls_json(calls: &[ToolCall]) -> Vec<Value> {
    calls
        .iter()
        .map(|t| json!({"id": t.id(), "type": "function", "function": {"name": t.name(), "arguments": t.arguments()}}))
        .collect()
}

fn chunk_json(c: &StreamChunk) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("content".into(), Value::String(c.content.clone()));
    m.insert("reasoning".into(), Value::String(c.reasoning.clone()));
    m.insert("toolCalls".into(), Value::Array(calls_json(&c.tool_calls)));
    m
}

fn finished(msg: &str) -> Error {
    Error::new(
        Status::GenericFailure,
        format!("ResponseStreamCleaner: {msg}"),
    )
}

/// One streamed reply being cleaned (see `ResponseStreamCleaner` in index.d.ts). The deltas cross
/// as UTF-16 with lone surrogates mapped to one private-use block for the whole stream and back
/// (as `cleanResponse` does for a whole reply, see [`crate::lone_surrogates`]); the JS wrapper
/// rejoins a surrogate pair split across two deltas before they get here.
#[napi(js_name = "ResponseStreamCleanerNative")]
pub struct ResponseStreamCleanerNative {
    inner: Poison<StreamCleaner>,
    lone: PieceMap,
}

impl ResponseStreamCleanerNative {
    /// JSON derived from the deltas, lone surrogates restored as `\uXXXX` escapes.
    fn restore_json(&self, json: String) -> String {
        match self.lone.map() {
            Some(map) => map.escape_json(&json),
            None => json,
        }
    }
}

#[napi]
impl ResponseStreamCleanerNative {
    /// `options` is the JSON of `cleanResponse`'s options.
    #[napi(constructor, catch_unwind)]
    pub fn new(options: String) -> Result<Self> {
        let v: Value = serde_json::from_str(&options)
            .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
        let opts = json::options_from_json(&v).map_err(|e| Error::new(Status::InvalidArg, e))?;
        Ok(ResponseStreamCleanerNative {
            inner: Poison::new(StreamCleaner::new(opts)),
            lone: PieceMap::default(),
        })
    }

    /// One delta in; `"c" + content` or `"j" + {content, reasoning, toolCalls}` out.
    #[napi(catch_unwind)]
    pub fn push(&mut self, delta: JsString) -> Result<JsText> {
        let delta = Text::read(delta)?.decode_piece(&mut self.lone);
        let c = self.inner.run(|s| s.push(&delta)).map_err(finished)?;
        if c.reasoning.is_empty() && c.tool_calls.is_empty() {
            let mut s = String::with_capacity(c.content.len() + 1);
            s.push('c');
            s.push_str(&c.content);
            return Ok(self.lone.restore(s));
        }
        let json = format!("j{}", Value::Object(chunk_json(&c)));
        Ok(Either::A(self.restore_json(json)))
    }

    /// The rest: `{content, reasoning, toolCalls, format, problems}` as JSON.
    #[napi(catch_unwind)]
    pub fn finish(&mut self) -> Result<String> {
        let end = self.inner.run(|s| s.finish()).map_err(finished)?;
        let mut m = chunk_json(&end.chunk);
        m.insert("format".into(), json!(end.format));
        m.insert("problems".into(), json!(end.problems));
        m.insert(
            "problemKinds".into(),
            json!(crate::response::problem::kinds(&end.problems)),
        );
        Ok(self.restore_json(Value::Object(m).to_string()))
    }
}
