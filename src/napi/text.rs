//! Reply text in and out of the addon without losing lone UTF-16 surrogates (see
//! [`crate::lone_surrogates`]). Fast path: the text is read as UTF-8 (what Node-API's conversion
//! gives, lone surrogates becoming U+FFFD); only when that has a U+FFFD is it read again as
//! UTF-16 and checked for lone surrogates, so ordinary text pays one `memmem` scan.

use crate::lone_surrogates::{self, LoneMap};
use napi::bindgen_prelude::{Either, Utf16String};
use napi::{JsString, JsStringUtf8, Result};

/// One JS string as Rust text.
pub enum Text<'env> {
    /// As Node-API gave it (no lone surrogate), not copied again.
    Utf8(JsStringUtf8<'env>),
    /// Decoded from UTF-16 with its lone surrogates mapped.
    Mapped(String, LoneMap),
}

/// The JS string returned to JS: UTF-8 when nothing was mapped, UTF-16 otherwise.
pub type JsText = Either<String, Utf16String>;

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

impl<'env> Text<'env> {
    pub fn read(s: JsString<'env>) -> Result<Text<'env>> {
        let utf8 = s.into_utf8()?;
        if memchr::memmem::find(utf8.as_slice(), REPLACEMENT).is_none() {
            return Ok(Text::Utf8(utf8));
        }
        let utf16 = utf8.into_value().into_utf16()?;
        // The buffer ends with the NUL Node-API writes.
        let units = utf16
            .as_slice()
            .split_last()
            .map_or(&[][..], |(_, units)| units);
        match lone_surrogates::decode(units) {
            (text, Some(map)) => Ok(Text::Mapped(text, map)),
            // No lone surrogate after all (a real U+FFFD): read as UTF-8 again.
            (_, None) => Ok(Text::Utf8(utf16.into_value().into_utf8()?)),
        }
    }

    pub fn as_str(&self) -> Result<&str> {
        match self {
            Text::Utf8(u) => u.as_str(),
            Text::Mapped(s, _) => Ok(s),
        }
    }

    /// `out` (derived from this text) as a JS string, lone surrogates restored.
    pub fn restore(&self, out: String) -> JsText {
        match self {
            Text::Mapped(_, map) => Either::B(Utf16String::from(map.to_utf16(&out))),
            Text::Utf8(_) => Either::A(out),
        }
    }

    /// JSON text (derived from this text) with lone surrogates restored as `\uXXXX` escapes.
    pub fn restore_json(&self, json: String) -> String {
        match self {
            Text::Mapped(_, map) => map.escape_json(&json),
            Text::Utf8(_) => json,
        }
    }
}
