//! [`Source`] over the caller's message array: a handful of Node-API reads, only for the values a
//! rule asks for (an image that must be re-encoded, a tool call's arguments to redact).

use crate::transcript::Source;
use napi::bindgen_prelude::{Array, Object};
use serde_json::Value;

pub struct HandleSource<'a> {
    pub messages: Array<'a>,
}

impl HandleSource<'_> {
    fn block(&self, msg: usize, block: usize) -> Option<Object<'_>> {
        let m: Object = self.messages.get(u32::try_from(msg).ok()?).ok()??;
        let content: Array = m.get("content").ok()??;
        content.get(u32::try_from(block).ok()?).ok()?
    }
}

impl Source for HandleSource<'_> {
    fn image_data(&self, msg: usize, block: usize) -> Option<String> {
        self.block(msg, block)?.get::<String>("data").ok()?
    }

    fn block_field(&self, msg: usize, block: usize, field: &str) -> Option<Value> {
        self.block(msg, block)?.get::<Value>(field).ok()?
    }
}
