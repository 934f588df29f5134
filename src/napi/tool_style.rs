//! `toolStyleJson(skeleton, texts)`: js/tool_style.js's skeleton (JSON) and texts in (see
//! [`crate::tool_style::model`]), the operation's answer out as JSON. Node-API turns a lone
//! surrogate into U+FFFD, one UTF-16 unit for one, so the answer's offsets still hold; it slices
//! the caller's own strings, which keep theirs.

use crate::tool_style;
use napi::{Error, Result, Status};
use napi_derive::napi;

#[napi(catch_unwind, js_name = "toolStyleJson")]
pub fn tool_style_json(skeleton: String, texts: Vec<Option<String>>) -> Result<String> {
    tool_style::run(&skeleton, texts).map_err(|e| Error::new(Status::InvalidArg, e))
}
