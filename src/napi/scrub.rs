//! The outbound scrubbers and the seed's sanitizer API. Each returns `null` when the text is
//! unchanged (js/scrub.js then returns the caller's own string, so nothing is copied back), and
//! keeps lone surrogates (see [`super::text`]).

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

use super::text::{plan_worth_it, Changed, Text, MAX_PIECES};
use crate::openclaw::OpenClawVersion;
use crate::response::scan;
use crate::scrub::reasoning_tags::{self, TagMode, Trim};
use crate::scrub::seed::{self, Fallback, Steps};
use crate::scrub::seed_config::SanitizerConfig;
use crate::scrub::splice::{self, Alphabet, Piece, Spliced};
use crate::scrub::{code_regions, downgraded, minimax_xml, special_tokens};
use napi::bindgen_prelude::{Either, Utf16String};
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}

/// Runs `f` on the text; `None` when it returned its input, or when none of the `prefilter`
/// bytes occurs (the core function documents that it then changes nothing; empty: no prefilter).
fn run_read(
    raw: Text<'_>,
    prefilter: &[u8],
    f: impl FnOnce(&str) -> Cow<'_, str>,
) -> Result<Option<Changed>> {
    if !prefilter.is_empty() && !raw.contains_any(prefilter) {
        return Ok(None);
    }
    let t = raw.decode();
    let input = t.as_str();
    match f(input) {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(s) if s == input => Ok(None),
        Cow::Owned(s) => Ok(Some(t.changed(s))),
    }
}

/// Runs a scrubber on the proxy of the JS string (see [`crate::scrub::splice`]): no transcoding
/// either way; the result is rebuilt from the caller's own UTF-16 units. `None` when unchanged.
/// With `code_aware`, markup inside code is hidden from the scrubber ([`code_regions::mask`]).
/// `proxy` builds the stand-in: [`splice::proxy_into`], or [`splice::ascii_proxy_into`] for a
/// rule that reads ASCII markup only.
fn run_spliced(
    text: JsString,
    prefilter: &[u8],
    code_aware: bool,
    proxy: fn(&[u16], &mut Vec<u8>),
    f: impl for<'a> FnOnce(Spliced<'a>) -> Spliced<'a>,
) -> Result<Option<Changed>> {
    spliced(Text::read(text)?, prefilter, code_aware, proxy, f)
}

/// Proxy buffers larger than this are freed after use instead of kept for the next call.
const KEEP_PROXY: usize = 1024 * 1024;

thread_local! {
    /// The proxy's buffer, kept from one call to the next (see [`super::text`] for why).
    static PROXY: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

fn spliced(
    raw: Text<'_>,
    prefilter: &[u8],
    code_aware: bool,
    proxy: fn(&[u16], &mut Vec<u8>),
    f: impl for<'a> FnOnce(Spliced<'a>) -> Spliced<'a>,
) -> Result<Option<Changed>> {
    if !prefilter.is_empty() && !raw.contains_any(prefilter) {
        return Ok(None);
    }
    let units = raw.units();
    Ok(with_proxy(units, proxy, code_aware, |text| {
        let out = f(Spliced::of(text, Alphabet::Proxy));
        if out.is_source() {
            return None;
        }
        Some(changed(out.pieces(), out.as_str().len(), units))
    }))
}

/// Runs a rule that only removes ranges of its input ([`minimax_xml::removed`]) on the proxy of
/// the JS string: the result is made from those ranges alone, with no text built on the way.
/// `None` when nothing is removed.
fn run_removing(
    text: JsString,
    prefilter: &[u8],
    code_aware: bool,
    proxy: fn(&[u16], &mut Vec<u8>),
    f: fn(&str) -> Vec<Range<usize>>,
) -> Result<Option<Changed>> {
    let raw = Text::read(text)?;
    if !prefilter.is_empty() && !raw.contains_any(prefilter) {
        return Ok(None);
    }
    let units = raw.units();
    Ok(with_proxy(units, proxy, code_aware, |text| {
        let removed = f(text);
        if removed.is_empty() {
            return None;
        }
        let gone: usize = removed.iter().map(Range::len).sum();
        let starts = std::iter::once(0).chain(removed.iter().map(|r| r.end));
        let ends = removed.iter().map(|r| r.start).chain([units.len()]);
        let kept = starts
            .zip(ends)
            .filter(|(a, b)| a < b)
            .map(|(a, b)| Piece::Source(a..b));
        Some(changed(kept, units.len() - gone, units))
    }))
}

/// Calls `f` with the proxy of `units` (built by `proxy` into this thread's kept buffer), code
/// masked when `code_aware` ([`code_regions::mask`]).
fn with_proxy<R>(
    units: &[u16],
    proxy: fn(&[u16], &mut Vec<u8>),
    code_aware: bool,
    f: impl FnOnce(&str) -> R,
) -> R {
    let mut buf = PROXY.try_with(Cell::take).unwrap_or_default();
    proxy(units, &mut buf);
    debug_assert!(buf.is_ascii());
    // SAFETY: every byte of a proxy is ASCII ([`splice::proxy_into`] and
    // [`splice::ascii_proxy_into`] write only bytes below 0x80, tested for every unit), so it is
    // not checked again (the check was 9% of a `stripMinimaxToolCallXml` call).
    let text = unsafe { String::from_utf8_unchecked(buf) };
    let masked = if code_aware {
        code_regions::mask(&text)
    } else {
        None
    };
    let out = f(masked.as_deref().unwrap_or(&text));
    let buf = text.into_bytes();
    if buf.capacity() <= KEEP_PROXY {
        let _ = PROXY.try_with(|k| k.set(buf));
    }
    out
}

/// A text of `len` units made of `pieces` of `units` (the caller's string) and inserted ASCII
/// literals, for JS: a plan of slices when there are few and they are most of the input,
/// otherwise the string itself (UTF-8 when ASCII: V8 makes a one-byte string of it quickly).
fn changed<'p>(
    pieces: impl Iterator<Item = Piece<'p>> + Clone,
    len: usize,
    units: &[u16],
) -> Changed {
    if let Some(plan) = few_pieces(pieces.clone(), len, units.len()) {
        return Either::B(plan);
    }
    let result = splice::units_of(pieces, len, units);
    if result.iter().fold(0, |acc, &u| acc | u) < 0x80 {
        let ascii: Vec<u8> = result.iter().map(|&u| u as u8).collect();
        if let Ok(s) = String::from_utf8(ascii) {
            return Either::A(Either::A(s));
        }
    }
    Either::A(Either::B(Utf16String::from(result)))
}

/// `pieces` (a text of `len` units) as a plan ([`Changed`]) when there are few and they are most
/// of the input; `None` otherwise (the string is rebuilt) or when an offset does not fit.
fn few_pieces<'p>(
    pieces: impl Iterator<Item = Piece<'p>>,
    len: usize,
    input: usize,
) -> Option<Vec<i32>> {
    if !plan_worth_it(len, input) {
        return None;
    }
    let mut plan = Vec::new();
    for piece in pieces {
        if plan.len() >= 2 * MAX_PIECES {
            return None;
        }
        match piece {
            Piece::Source(r) => {
                plan.push(i32::try_from(r.start).ok()?);
                plan.push(i32::try_from(r.end).ok()?);
            }
            Piece::Inserted(lit) => {
                for b in lit.bytes() {
                    plan.push(-1);
                    plan.push(i32::from(b));
                }
            }
        }
    }
    Some(plan)
}

/// For each 2026.3.23 scrubber (by its JS name), strings of which a text must hold at least one
/// for the scrubber to change it (each rule's own prefilter). js/scrub.js asks V8 for them
/// (`includes`, a vectorised search) before crossing: reading a 50 KB reply into the addon costs
/// several times that search, and most replies hold no markup at all.
#[napi(catch_unwind, js_name = "scrubberNeedlesNative")]
pub fn scrubber_needles() -> HashMap<String, Vec<String>> {
    let bytes = |b: &[u8]| b.iter().map(|&c| char::from(c).to_string()).collect();
    let strs = |s: &[&str]| s.iter().map(|&n| n.to_string()).collect();
    HashMap::from([
        (
            "stripMinimaxToolCallXml".into(),
            bytes(minimax_xml::PREFILTER),
        ),
        (
            "stripModelSpecialTokens".into(),
            strs(special_tokens::NEEDLES),
        ),
        (
            "stripDowngradedToolCallText".into(),
            bytes(downgraded::PREFILTER),
        ),
        (
            "stripReasoningTagsFromText".into(),
            bytes(reasoning_tags::PREFILTER),
        ),
    ])
}

/// `code_aware`: markup inside code is left as written (see js/scrub.js); `openclaw_version`: the
/// release whose rule runs (absent: the process default).
#[napi(catch_unwind, js_name = "stripMinimaxToolCallXmlNative")]
pub fn strip_minimax_tool_call_xml(
    text: JsString,
    code_aware: bool,
    openclaw_version: Option<String>,
) -> Result<Option<Changed>> {
    if super::visible::version(openclaw_version.as_deref())? == OpenClawVersion::V2026_9_6 {
        return Ok(super::visible::strip_minimax_tool_call_xml_2026_9_6(text)?.map(Either::A));
    }
    // The rule reads ASCII markup only (no whitespace, no full-width bar).
    run_removing(
        text,
        minimax_xml::PREFILTER,
        code_aware,
        splice::ascii_proxy_into,
        minimax_xml::removed,
    )
}

/// `code_aware`: markup inside code is left as written (see js/scrub.js).
/// `openclaw_version`: the release whose rule runs (absent: the process default).
#[napi(catch_unwind, js_name = "stripModelSpecialTokensNative")]
pub fn strip_model_special_tokens(
    text: JsString,
    code_aware: bool,
    openclaw_version: Option<String>,
) -> Result<Option<Changed>> {
    if super::visible::version(openclaw_version.as_deref())? == OpenClawVersion::V2026_9_6 {
        return Ok(super::visible::strip_model_special_tokens_2026_9_6(text)?.map(Either::A));
    }
    // The scrubber's own quick test (a `<` right before `|` or `｜`) on the UTF-16 units, before
    // the proxy is built: the usual reply has `<` but no token.
    let raw = Text::read(text)?;
    let u = raw.units();
    let token = raw.contains_any(special_tokens::PREFILTER)
        && u.chunks(64)
            .zip(u.get(1..).unwrap_or(&[]).chunks(64))
            .any(|(a, b)| {
                a.iter().zip(b).fold(false, |hit, (&x, &y)| {
                    hit | ((x == 0x3C) & ((y == 0x7C) | (y == 0xFF5C)))
                })
            });
    if !token {
        return Ok(None);
    }
    spliced(
        raw,
        special_tokens::PREFILTER,
        code_aware,
        splice::proxy_into,
        special_tokens::strip_spliced,
    )
}

/// `code_aware`: markup inside code is left as written (see js/scrub.js); `openclaw_version`: the
/// release whose rule runs (absent: the process default).
#[napi(catch_unwind, js_name = "stripDowngradedToolCallTextNative")]
pub fn strip_downgraded_tool_call_text(
    text: JsString,
    code_aware: bool,
    openclaw_version: Option<String>,
) -> Result<Option<Changed>> {
    if super::visible::version(openclaw_version.as_deref())? == OpenClawVersion::V2026_9_6 {
        return Ok(super::visible::strip_downgraded_tool_call_text_2026_9_6(text)?.map(Either::A));
    }
    run_spliced(
        text,
        downgraded::PREFILTER,
        code_aware,
        splice::proxy_into,
        downgraded::strip_spliced,
    )
}

/// `mode`: `"strict"` (default) or `"preserve"`; `trim`: `"both"` (default), `"start"`, `"none"`;
/// `code_aware`: the reply rules and CommonMark fences (default), or OpenClaw's bytes.
/// `openclaw_version`: the release whose rule runs (absent: the process default); `scope` and
/// `recover_unclosed` are 2026.9.6's (see [`super::visible::strip_reasoning_tags_2026_9_6`]).
#[napi(catch_unwind, js_name = "stripReasoningTagsNative")]
pub fn strip_reasoning_tags(
    text: JsString,
    mode: Option<String>,
    trim: Option<String>,
    code_aware: Option<bool>,
    openclaw_version: Option<String>,
    scope: Option<String>,
    recover_unclosed: Option<bool>,
) -> Result<Option<Changed>> {
    if super::visible::version(openclaw_version.as_deref())? == OpenClawVersion::V2026_9_6 {
        return Ok(super::visible::strip_reasoning_tags_2026_9_6(
            text,
            mode,
            trim,
            scope,
            recover_unclosed,
        )?
        .map(Either::A));
    }
    let mode = match mode.as_deref() {
        None | Some("strict") => TagMode::Strict,
        Some("preserve") => TagMode::Preserve,
        Some(m) => {
            return Err(invalid(format!(
                "options.mode: expected 'strict' or 'preserve', got {m:?}"
            )))
        }
    };
    let trim = match trim.as_deref() {
        None | Some("both") => Trim::Both,
        Some("start") => Trim::Start,
        Some("none") => Trim::None,
        Some(t) => {
            return Err(invalid(format!(
                "options.trim: expected 'none', 'start' or 'both', got {t:?}"
            )))
        }
    };
    // Code is found by the scrubber itself (OpenClaw's regions, or CommonMark's fences too).
    let aware = code_aware.unwrap_or(true);
    run_spliced(
        text,
        reasoning_tags::PREFILTER,
        false,
        splice::proxy_into,
        |t| {
            if aware {
                reasoning_tags::strip_spliced_code_aware(t, mode, trim)
            } else {
                reasoning_tags::strip_spliced(t, mode, trim)
            }
        },
    )
}

/// Checks a `createResponseSanitizer` config (JSON); the error names the bad field.
#[napi(catch_unwind, js_name = "checkSanitizerConfig")]
pub fn check_sanitizer_config(config: String) -> Result<()> {
    let v: serde_json::Value =
        serde_json::from_str(&config).map_err(|e| invalid(format!("config: {e}")))?;
    SanitizerConfig::from_json(&v).map_err(invalid)?;
    Ok(())
}

/// The seed API in one call. `steps`: 1 = tool calls, 2 = thinking tags, 3 = both. `config`
/// (JSON, optional) turns steps off per provider. `fallback`: the text for a reply left blank,
/// `None` for the default; `use_fallback = false` returns a blank text as it is.
#[napi(catch_unwind, js_name = "sanitizeResponseNative")]
pub fn sanitize_response(
    model: String,
    content: JsString,
    steps: u32,
    config: Option<String>,
    use_fallback: bool,
    fallback: Option<String>,
) -> Result<Option<Changed>> {
    let mut tool_calls = steps & 1 != 0;
    let mut thinking = steps & 2 != 0;
    if let Some(c) = config {
        let v: serde_json::Value =
            serde_json::from_str(&c).map_err(|e| invalid(format!("config: {e}")))?;
        let flags = SanitizerConfig::from_json(&v)
            .map_err(invalid)?
            .flags_for(&model);
        tool_calls &= flags.strip_tool_calls;
        thinking &= flags.strip_thinking_tags;
    }
    let fb = match fallback.as_deref() {
        Some(t) => Fallback::Text(t),
        None => Fallback::Auto,
    };
    let steps = Steps {
        tool_calls,
        thinking,
        fallback: use_fallback.then_some(fb),
    };
    let prefilter = if steps.tool_calls {
        &[][..]
    } else {
        seed::THINKING_PREFILTER
    };
    let raw = Text::read(content)?;
    // The model's family is asked last: reading it (dozens of substring searches) cost more than
    // the scans, and a reply with markup needs none of it here.
    if steps.tool_calls
        && !scan::units_may_hold_markers(raw.units())
        && !raw.contains_any(b"`")
        && (!steps.thinking || !raw.contains_any(seed::THINKING_PREFILTER))
        && seed::tool_calls_skip_unmarked(&model)
    {
        return Ok(None);
    }
    run_read(raw, prefilter, |t| seed::sanitize(&model, t, steps))
}
