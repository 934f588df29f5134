//! [`Source`] over the caller's message array: a handful of Node-API reads, only for the values a
//! rule asks for (an image that must be re-encoded or hashed, which attachments of a call to
//! redact). Image payloads are read with one copy into a kept buffer (`string_read.rs`).

use super::string_read::with_utf8;
use crate::transcript::Source;
use napi::bindgen_prelude::{Array, JsObjectValue, Object, Unknown};
use napi::{JsValue, ValueType};

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
    fn with_image_data(&self, msg: usize, block: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        let Some(data) = self
            .block(msg, block)
            .and_then(|b| b.get::<Unknown>("data").ok().flatten())
        else {
            return false;
        };
        if data.get_type().ok() != Some(ValueType::String) {
            return false;
        }
        let v = data.value();
        with_utf8(v.env, v.value, |s| f(s)).is_some()
    }

    fn items_with_key(
        &self,
        msg: usize,
        block: usize,
        field: &str,
        list: &str,
        key: &str,
    ) -> Option<Vec<bool>> {
        let outer: Object = self.block(msg, block)?.get(field).ok()??;
        let items: Array = outer.get(list).ok()??;
        if !items.is_array().ok()? {
            return None;
        }
        let mut out = Vec::with_capacity(items.len() as usize);
        for i in 0..items.len() {
            let has = match items.get::<Unknown>(i).ok().flatten() {
                Some(v) if v.get_type().ok() == Some(ValueType::Object) => {
                    // SAFETY: the value was just checked to be an object.
                    let o: Object = unsafe { v.cast() }.ok()?;
                    !o.is_array().unwrap_or(true) && o.has_own_property(key).unwrap_or(false)
                }
                _ => false,
            };
            out.push(has);
        }
        Some(out)
    }
}
