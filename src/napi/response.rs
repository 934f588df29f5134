//! `cleanResponseJson(content, options)`: one reply in, its cleaned parts out (as JSON).

use super::text::Text;
use crate::response::{clean_response, json};
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

/// Cleans one model reply; `options` and the result are JSON (see `cleanResponse` in index.d.ts).
/// When the content is unchanged it is left out of the JSON and `contentUnchanged: true` is set,
/// so a large reply without markers is not copied back through JSON (js/response.js fills it in).
#[napi(catch_unwind, js_name = "cleanResponseJson")]
pub fn clean_response_json(content: JsString, options: String) -> Result<String> {
    let v: serde_json::Value = serde_json::from_str(&options)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    let opts = json::options_from_json(&v).map_err(|e| Error::new(Status::InvalidArg, e))?;
    let text = Text::read(content)?;
    let input = text.as_str()?;
    let mut cleaned = clean_response(input, &opts);
    let unchanged = cleaned.content == input;
    if unchanged {
        cleaned.content = String::new();
    }
    let mut out = json::cleaned_to_json(&cleaned);
    if unchanged {
        if let Some(o) = out.as_object_mut() {
            o.insert("contentUnchanged".into(), true.into());
        }
    }
    Ok(text.restore_json(out.to_string()))
}
