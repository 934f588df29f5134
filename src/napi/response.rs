//! `cleanResponseJson(content, options)`: one reply in, its cleaned parts out (as JSON).

use crate::response::{clean_response, json};
use napi::{Error, Result, Status};
use napi_derive::napi;

/// Cleans one model reply; `options` and the result are JSON (see `cleanResponse` in index.d.ts).
#[napi(catch_unwind, js_name = "cleanResponseJson")]
pub fn clean_response_json(content: String, options: String) -> Result<String> {
    let v: serde_json::Value = serde_json::from_str(&options)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    let opts = json::options_from_json(&v).map_err(|e| Error::new(Status::InvalidArg, e))?;
    Ok(json::cleaned_to_json(&clean_response(&content, &opts)).to_string())
}
