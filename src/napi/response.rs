//! `cleanResponseJson(content, options)`: one reply in, its cleaned parts out.

use super::text::{JsText, Text};
use crate::response::{clean_response, json, scan, unmarked};
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

/// What `cleanResponseJson` returns: the cleaned content as a string of its own (JSON-escaping a
/// long reply and parsing it back costs more than the cleaning), `null` when unchanged (the
/// caller's string is then the content), and the rest as JSON (with `content: ""`).
#[napi(object)]
pub struct CleanedParts {
    pub content: Option<JsText>,
    pub json: String,
}

/// Cleans one model reply; `options` is JSON (see `cleanResponse` in index.d.ts).
#[napi(catch_unwind, js_name = "cleanResponseJson")]
pub fn clean_response_json(content: JsString, options: String) -> Result<CleanedParts> {
    let v: serde_json::Value = serde_json::from_str(&options)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    let opts = json::options_from_json(&v).map_err(|e| Error::new(Status::InvalidArg, e))?;
    let raw = Text::read(content)?;
    if !scan::units_may_hold_markers(raw.units()) {
        let has_brace = opts.tools.is_some() && raw.contains_any(b"{");
        if let Some(cleaned) = unmarked(&opts, has_brace) {
            // Unchanged: the caller's string is the content; nothing was transcoded.
            let json = json::cleaned_to_json(&cleaned).to_string();
            return Ok(CleanedParts {
                content: None,
                json,
            });
        }
    }
    let text = raw.decode();
    let input = text.as_str();
    let mut cleaned = clean_response(input, &opts);
    let content = std::mem::take(&mut cleaned.content);
    let content = (content != input).then(|| text.restore(content));
    let json = text.restore_json(json::cleaned_to_json(&cleaned).to_string());
    Ok(CleanedParts { content, json })
}
