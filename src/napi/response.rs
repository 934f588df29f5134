//! `cleanResponseJson(content, options)`: one reply in, its cleaned parts out.

use super::text::{Changed, Text};
use crate::response::{clean_response, json, scan, unmarked};
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

/// What `cleanResponseJson` returns: the cleaned content on its own (JSON-escaping a long reply
/// and parsing it back costs more than the cleaning) as a string or a plan of slices of the
/// caller's string ([`Changed`]), `null` when unchanged (the caller's string is then the
/// content), and the rest as JSON (with `content: ""`).
#[napi(object)]
pub struct CleanedParts {
    pub content: Option<Changed>,
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
            let json = json::cleaned_to_json(&cleaned);
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
    let content = (content != input).then(|| text.changed(content));
    let json = text.restore_json(json::cleaned_to_json(&cleaned));
    Ok(CleanedParts { content, json })
}
