//! Reply text in and out of the addon, fast and without losing lone UTF-16 surrogates (see
//! [`crate::lone_surrogates`]).
//!
//! The text is read as UTF-16 (a copy for V8's two-byte strings, a widening copy for one-byte
//! ones) rather than through Node-API's UTF-8 conversion, which goes character by character for
//! two-byte strings (most replies with any CJK or emoji) and turns lone surrogates into U+FFFD.
//! A scrubber first runs its prefilter on the UTF-16 units ([`Text::contains_any`]) and returns
//! "unchanged" without transcoding when no marker byte occurs; otherwise [`Text::decode`]
//! transcodes (ASCII runs eight units at a time), mapping lone surrogates only when there are any.
//!
//! The units go into a buffer this thread keeps from one call to the next: a fresh 100 KB buffer
//! per call (a 50 KB ASCII reply) was returned to the system when freed and faulted in again on
//! the next call, which cost more than the scrubber that read it (page faults were most of a
//! 50 KB `stripMinimaxToolCallXml` call in a profile).

use std::cell::Cell;
use std::marker::PhantomData;

use crate::lone_surrogates::{self, LoneMap};
use crate::response::stream::Spans;
use napi::bindgen_prelude::{Either, Latin1String, Utf16String};
use napi::{check_status, sys, JsString, JsValue, Result};

/// Buffers larger than this (in units: 2 MB) are freed after use instead of kept for the next
/// call, so a thread that once read a huge text does not hold its memory for good.
const KEEP_UNITS: usize = 1024 * 1024;

thread_local! {
    static KEPT: Cell<Vec<u16>> = const { Cell::new(Vec::new()) };
    /// The buffer of the last decoded text, for the same reason: the system allocator handed a
    /// 100 KB transcoding buffer back to the system at every call (glibc trims the top of its
    /// heap), and faulting its pages in again was a quarter of a half-Chinese `cleanResponse`.
    static KEPT_UTF8: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Keeps `buf` for the next call when it is not too large and larger than the one kept.
fn keep<T>(kept: &'static std::thread::LocalKey<Cell<Vec<T>>>, buf: Vec<T>, max: usize) {
    if buf.capacity() <= max {
        // Keep the larger of this buffer and one kept meanwhile (a nested read).
        let _ = kept.try_with(|k| {
            let old = k.take();
            k.set(if old.capacity() >= buf.capacity() {
                old
            } else {
                buf
            });
        });
    }
}

/// One JS string, as UTF-16 units.
pub struct Text<'env> {
    buf: Vec<u16>,
    _env: PhantomData<&'env ()>,
}

impl Drop for Text<'_> {
    fn drop(&mut self) {
        keep(&KEPT, std::mem::take(&mut self.buf), KEEP_UNITS);
    }
}

impl Drop for Decoded {
    fn drop(&mut self) {
        let (Decoded::Plain(s) | Decoded::Mapped(s, _)) = self;
        // Three bytes a unit: the transcoding buffer of a text of `KEEP_UNITS` units.
        keep(&KEPT_UTF8, std::mem::take(s).into_bytes(), 3 * KEEP_UNITS);
    }
}

/// A JS string decoded to Rust text.
pub enum Decoded {
    Plain(String),
    /// Lone surrogates mapped to private-use characters.
    Mapped(String, LoneMap),
}

/// The JS string returned to JS: UTF-8 when nothing was mapped, UTF-16 otherwise.
pub type JsText = Either<String, Utf16String>;

impl lone_surrogates::PieceMap {
    /// Text derived from a stream's deltas (decoded with this map) as a JS string, its lone
    /// surrogates restored: both stream wrappers answer through this. (An `impl` here, not in
    /// `lone_surrogates`, which names no napi type.)
    pub fn restore(&self, s: String) -> JsText {
        match self.map() {
            Some(map) => Either::B(Utf16String::from(map.to_utf16(&s))),
            None => Either::A(s),
        }
    }
}

/// A changed text for JS: a new string, or a plan made of slices of the caller's own string
/// (`[start, end, …]` in UTF-16 units, `-1, code` for one inserted ASCII character), which
/// js/args.js `joined` applies: V8 joins a few slices for next to nothing, where a 50 KB string
/// rebuilt here and copied again by V8 cost as much as the cleaning.
pub type Changed = Either<JsText, Vec<i32>>;

/// `s` for JS: an all-ASCII text goes through Node-API's Latin-1 constructor, a plain copy,
/// instead of its UTF-8 one, which validates and decodes (for 2 MB of base64 that took the
/// string's creation from ~1.2 ms to ~0.2 ms).
pub fn js_string(s: String) -> Either<String, Latin1String> {
    if s.is_ascii() {
        Either::B(Latin1String::from(s))
    } else {
        Either::A(s)
    }
}

/// At most this many pieces go back as a plan rather than as a new string.
pub const MAX_PIECES: usize = 128;

/// Whether a result of `out` units from an input of `input` units may be a plan: a slice keeps
/// the whole input alive in V8, so only a result that is most of its input is one.
pub fn plan_worth_it(out: usize, input: usize) -> bool {
    out >= input / 2
}

impl<'env> Text<'env> {
    pub fn read(s: JsString<'env>) -> Result<Text<'env>> {
        let v = s.value();
        let mut len = 0usize;
        // SAFETY: a null buffer asks only for the length in UTF-16 units.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(v.env, v.value, std::ptr::null_mut(), 0, &mut len)
        })?;
        let mut buf = KEPT.try_with(Cell::take).unwrap_or_default();
        buf.clear();
        // Room for the units and the NUL Node-API writes after them.
        buf.reserve(len + 1);
        let mut written = 0usize;
        // SAFETY: `buf` has room for `len + 1` units; Node-API writes at most that many (the
        // units and a NUL) and reports how many units it wrote, without the NUL.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(
                v.env,
                v.value,
                buf.as_mut_ptr(),
                len + 1,
                &mut written,
            )
        })?;
        // SAFETY: the first `written` units were initialised by Node-API (`written <= len`).
        unsafe { buf.set_len(written.min(len)) };
        Ok(Text {
            buf,
            _env: PhantomData,
        })
    }

    pub fn units(&self) -> &[u16] {
        &self.buf
    }

    /// Whether any of the ASCII `bytes` occurs (a scrubber's prefilter).
    pub fn contains_any(&self, bytes: &[u8]) -> bool {
        lone_surrogates::contains_any(self.units(), bytes)
    }

    /// One piece of a streamed text (see [`lone_surrogates::PieceMap`]).
    pub fn decode_piece(&self, map: &mut lone_surrogates::PieceMap) -> String {
        map.decode(self.units())
    }

    pub fn decode(&self) -> Decoded {
        let units = self.units();
        let buf = KEPT_UTF8.try_with(Cell::take).unwrap_or_default();
        if let Some(s) = lone_surrogates::transcode_into(units, buf) {
            return Decoded::Plain(s);
        }
        match lone_surrogates::decode(units) {
            (s, Some(map)) => Decoded::Mapped(s, map),
            (s, None) => Decoded::Plain(s),
        }
    }
}

impl Decoded {
    pub fn as_str(&self) -> &str {
        match self {
            Decoded::Plain(s) | Decoded::Mapped(s, _) => s,
        }
    }

    /// `out` (derived from this text) as a JS string, lone surrogates restored. ASCII text goes
    /// as UTF-8 (V8 makes a one-byte string of it quickly); other text as UTF-16.
    pub fn restore(&self, out: String) -> JsText {
        match self {
            Decoded::Mapped(_, map) => Either::B(Utf16String::from(map.to_utf16(&out))),
            Decoded::Plain(_) if out.is_ascii() => Either::A(out),
            Decoded::Plain(_) => Either::B(Utf16String::from(lone_surrogates::encode_utf16(&out))),
        }
    }

    /// `out` (derived from this text) for JS: a plan of slices of the caller's string when it
    /// is most of it and made of few pieces of it ([`crate::utf16_pieces`]), else a new string.
    pub fn changed(&self, out: String) -> Changed {
        if let Decoded::Plain(src) = self {
            // V8 makes a one-byte string of ASCII quickly: no plan needed.
            if plan_worth_it(out.len(), src.len()) && !out.is_ascii() {
                if let Some(plan) = crate::utf16_pieces::pieces(src, &out, MAX_PIECES) {
                    return Either::B(plan);
                }
            }
        }
        Either::A(self.restore(out))
    }

    /// The content a cleaner kept as `spans` of this text (it wrote no content of its own,
    /// [`crate::response::clean_response_owned`]), for JS as [`Decoded::changed`] would give it:
    /// `None` when it is the whole text, else a plan made of the spans (no matching) when it may
    /// be one, else a new string.
    pub(crate) fn changed_from_spans(&self, spans: &Spans) -> Option<Changed> {
        use crate::utf16_pieces::{kept_all, kept_is_ascii, kept_len, kept_plan, kept_text};
        let src = self.as_str();
        if kept_all(src, spans) {
            return None;
        }
        if let Decoded::Plain(src) = self {
            if plan_worth_it(kept_len(spans), src.len()) && !kept_is_ascii(src, spans) {
                return Some(match kept_plan(src, spans, MAX_PIECES) {
                    Some(plan) => Either::B(plan),
                    None => Either::A(self.restore(kept_text(src, spans))),
                });
            }
        }
        Some(self.changed(kept_text(src, spans)))
    }

    /// Runs `f` on this text handed over, and takes it back from what `f` returns.
    pub(crate) fn lend<R>(&mut self, f: impl FnOnce(String) -> (R, String)) -> R {
        let (Decoded::Plain(s) | Decoded::Mapped(s, _)) = self;
        let (r, back) = f(std::mem::take(s));
        *s = back;
        r
    }

    /// JSON text (derived from this text) with lone surrogates restored as `\uXXXX` escapes.
    pub fn restore_json(&self, json: String) -> String {
        match self {
            Decoded::Mapped(_, map) => map.escape_json(&json),
            Decoded::Plain(_) => json,
        }
    }
}
