//! `cleanResponseJson(content, options)`: one reply in, its cleaned parts out; and
//! `keepResponseOptions(options)`, which reads options once for many calls.

use std::cell::RefCell;

use super::text::{js_string, Changed, Decoded, Text};
use crate::response::{braced_call_units, clean_response_owned, json, scan, unmarked, Options};
use napi::bindgen_prelude::{Either, Latin1String, Utf16String};
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

thread_local! {
    /// The options of this thread's last call, by their JSON text. An agent passes the same tools
    /// with every reply; parsing them into a tree and copying it cost ~6 µs a tool, more than
    /// cleaning a short reply (benchmark/tools-offered.mjs), so equal options are read once.
    static LAST_OPTIONS: RefCell<Option<(String, Options)>> = const { RefCell::new(None) };
}

/// Options JSON longer than this is read every time rather than kept.
const KEEP_OPTIONS_UP_TO: usize = 1 << 20;

thread_local! {
    /// Options kept by [`keep_response_options`], by the number it returned, newest last.
    static KEPT_OPTIONS: RefCell<Vec<(u32, std::rc::Rc<Options>)>> = const { RefCell::new(Vec::new()) };
}

/// How many kept options a thread holds (an agent has a few tool sets, not dozens).
const KEPT_AT_MOST: usize = 8;

/// The numbers [`keep_response_options`] hands out: unique in the process, so a number kept on one
/// thread (or by another copy of the JS wrapper) is never taken for other options.
static NEXT_OPTIONS_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

fn read_options(text: &str) -> Result<Options> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::new(Status::InvalidArg, format!("options: {e}")))?;
    json::options_from_json(&v).map_err(|e| Error::new(Status::InvalidArg, e))
}

/// Reads options JSON once and keeps it on this thread under the number returned, which
/// `cleanResponseJson` then takes in place of the text: with tools offered, the text (~4.5 KB for
/// twenty tools) copied across each call cost ~2 µs, as much as cleaning a short reply.
#[napi(catch_unwind, js_name = "keepResponseOptions")]
pub fn keep_response_options(options: String) -> Result<u32> {
    let opts = std::rc::Rc::new(read_options(&options)?);
    let id = NEXT_OPTIONS_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    KEPT_OPTIONS.with(|k| {
        let mut k = k.borrow_mut();
        if k.len() >= KEPT_AT_MOST {
            k.remove(0);
        }
        k.push((id, opts));
    });
    Ok(id)
}

/// Run `f` with the options `text` holds, read once for a run of calls with the same options.
fn with_options<R>(text: &str, f: impl FnOnce(&Options) -> Result<R>) -> Result<R> {
    let read = read_options;
    if text.len() > KEEP_OPTIONS_UP_TO {
        return f(&read(text)?);
    }
    LAST_OPTIONS.with(|last| {
        let mut last = last.borrow_mut();
        if !matches!(&*last, Some((t, _)) if t == text) {
            *last = Some((text.to_owned(), read(text)?));
        }
        match &*last {
            Some((_, opts)) => f(opts),
            None => f(&read(text)?),
        }
    })
}

/// What `cleanResponseJson` returns: the cleaned content on its own (JSON-escaping a long reply
/// and parsing it back costs more than the cleaning) as a string ([`Changed`]), `null` when
/// unchanged (the caller's string is then the content), and the rest as JSON (with `content: ""`).
/// `calls`, when set, holds the calls' ids, names and arguments one after another, and `numbers`
/// the plan of slices of the caller's string that makes the content (when the JSON's `content` is
/// a count of them) then the lengths of the calls' pieces, three a call, two UTF-16 units a
/// number ([`json::cleaned_to_json_apart`]); when `calls` is `null` (a reply with lone
/// surrogates) `toolCalls` is written out in full. The texts go as Latin-1 when ASCII
/// ([`js_string`]).
#[napi(object)]
pub struct CleanedParts {
    pub content: Option<Changed>,
    pub json: Either<String, Latin1String>,
    pub calls: Option<Either<String, Latin1String>>,
    pub numbers: Option<Utf16String>,
}

/// Cleans one model reply; `options` is JSON (see `cleanResponse` in index.d.ts), or the number
/// [`keep_response_options`] kept it under: `null` then when this thread no longer holds it
/// (the caller keeps it again).
#[napi(catch_unwind, js_name = "cleanResponseJson")]
pub fn clean_response_json(
    content: JsString,
    options: Either<u32, String>,
) -> Result<Option<CleanedParts>> {
    match options {
        Either::A(id) => {
            let kept = KEPT_OPTIONS.with(|k| {
                k.borrow()
                    .iter()
                    .find(|(i, _)| *i == id)
                    .map(|(_, o)| o.clone())
            });
            kept.map(|opts| clean_with(content, &opts)).transpose()
        }
        Either::B(text) => with_options(&text, |opts| clean_with(content, opts)).map(Some),
    }
}

fn clean_with(content: JsString, opts: &Options) -> Result<CleanedParts> {
    let raw = Text::read(content)?;
    let (marked, brace) = scan::units_scan(raw.units(), opts.tools.is_some());
    if !marked {
        let has_brace = braced_call_units(opts, raw.units(), brace);
        if let Some(cleaned) = unmarked(opts, has_brace) {
            // Unchanged: the caller's string is the content; nothing was transcoded.
            let json = js_string(json::cleaned_to_json(&cleaned));
            return Ok(CleanedParts {
                content: None,
                json,
                calls: None,
                numbers: None,
            });
        }
    }
    let mut text = raw.decode();
    // The text is handed to the cleaner (not copied) and back; the content is not written, the
    // kept spans say what it is.
    let (mut cleaned, spans) = text.lend(|s| {
        let (c, spans, s) = clean_response_owned(s, opts);
        ((c, spans), s)
    });
    let content = match &spans {
        Some(spans) => text.changed_from_spans(spans),
        // Only when the machine failed (never expected): its empty content, as before.
        None => {
            let content = std::mem::take(&mut cleaned.content);
            (content != text.as_str()).then(|| text.changed(content))
        }
    };
    if let Decoded::Mapped(..) = text {
        let json = js_string(text.restore_json(json::cleaned_to_json(&cleaned)));
        return Ok(CleanedParts {
            content,
            json,
            calls: None,
            numbers: None,
        });
    }
    // A plan goes with the numbers: they cost less there than a JS array built element by element.
    let (content, plan) = match content {
        Some(Either::B(plan)) => (None, Some(plan)),
        other => (other, None),
    };
    let (json, calls, numbers) = json::cleaned_to_json_apart(&cleaned, plan.as_deref());
    Ok(CleanedParts {
        content,
        json: js_string(json),
        calls: Some(js_string(calls)),
        numbers: Some(Utf16String::from(numbers)),
    })
}
