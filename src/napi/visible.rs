//! The OpenClaw release switch and the 2026.9.6 reply scrubbers at the JS boundary: the version
//! option arrives as a string (js/options.js checked it), the default lives in
//! [`crate::openclaw`]. Each scrubber returns `null` when the text is unchanged.

use super::text::{JsText, Text};
use crate::openclaw::{self, OpenClawVersion};
use crate::scrub::visible::needles::Needles;
use crate::scrub::visible::plain_tool_call::promote::{self, Arguments, Block, Part};
use crate::scrub::visible::prompt_echo::PromptEcho;
use crate::scrub::visible::reasoning::{self, Mode, Scope, Trim};
use crate::scrub::visible::{
    chain, downgraded, legacy_bracket, memories, minimax, plain_tool_call, special_tokens,
    tool_call_xml, trace_lines, user_facing,
};
use napi::bindgen_prelude::Either;
use napi::{check_status, sys, Error, JsString, JsValue, Result, Status};
use napi_derive::napi;
use std::collections::HashMap;

/// The release `name` asks for, or the process default when it is absent.
pub fn version(name: Option<&str>) -> Result<OpenClawVersion> {
    match name {
        None => Ok(openclaw::default_version()),
        Some(n) => OpenClawVersion::parse(n).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                format!("openclawVersion: expected '2026.3.23' or '2026.9.6', got {n:?}"),
            )
        }),
    }
}

#[napi(catch_unwind, js_name = "setOpenClawVersionNative")]
pub fn set_openclaw_version(name: String) -> Result<()> {
    openclaw::set_default_version(version(Some(&name))?);
    Ok(())
}

#[napi(catch_unwind, js_name = "getOpenClawVersionNative")]
pub fn get_openclaw_version() -> String {
    openclaw::default_version().as_str().to_string()
}

/// Runs `f` on the text; `None` when it changed nothing, or (before any transcoding) when none of
/// the `needs` bytes occurs (each rule removes nothing without one; empty: no such test).
fn run(
    text: JsString,
    needs: &[u8],
    f: impl FnOnce(&str) -> std::borrow::Cow<'_, str>,
) -> Result<Option<JsText>> {
    let raw = Text::read(text)?;
    if !needs.is_empty() && !raw.contains_any(needs) {
        return Ok(None);
    }
    let t = raw.decode();
    let input = t.as_str();
    match f(input) {
        std::borrow::Cow::Borrowed(_) => Ok(None),
        std::borrow::Cow::Owned(s) => Ok(Some(t.restore(s))),
    }
}

/// 2026.9.6's `stripModelSpecialTokens` (the 2026.3.23 one is in [`super::scrub`]).
pub fn strip_model_special_tokens_2026_9_6(text: JsString) -> Result<Option<JsText>> {
    run(text, b"<", special_tokens::strip_model_special_tokens)
}

/// 2026.9.6's `stripMinimaxToolCallXml` (the 2026.3.23 one is in [`super::scrub`]).
pub fn strip_minimax_tool_call_xml_2026_9_6(text: JsString) -> Result<Option<JsText>> {
    run(text, b"<:", minimax::strip_minimax_tool_call_xml)
}

/// 2026.9.6's `stripDowngradedToolCallText` (the 2026.3.23 one is in [`super::scrub`]).
pub fn strip_downgraded_tool_call_text_2026_9_6(text: JsString) -> Result<Option<JsText>> {
    run(text, b"[", |t| {
        downgraded::strip_downgraded_tool_call_text(t, false)
    })
}

#[napi(catch_unwind, js_name = "stripRelevantMemoriesTagsNative")]
pub fn strip_relevant_memories_tags(text: JsString) -> Result<Option<JsText>> {
    run(text, b"<", memories::strip_relevant_memories_tags)
}

/// `words_only`: js/scrub.js found none of the exact needles, so the text can change only if it
/// holds a case-blind one ([`case_blind_absent`]).
#[napi(catch_unwind, js_name = "stripAssistantInternalTraceLinesNative")]
pub fn strip_assistant_internal_trace_lines(
    text: JsString,
    words_only: bool,
) -> Result<Option<JsText>> {
    if words_only && case_blind_absent(text, [&trace_lines::NEEDLES])? {
        return Ok(None);
    }
    run(text, b"", trace_lines::strip_trace_lines)
}

/// Whether `text` holds none of the `needles`' case-blind ones. A long text is tested here rather
/// than with V8's case-blind regex (which tests every character against a class): the text is
/// read as Latin-1 (V8 copies a one-byte string as it is and cuts wider units to their low byte)
/// and searched by [`Needles::found_ignoring_case`].
fn case_blind_absent<'a>(
    text: JsString,
    needles: impl IntoIterator<Item = &'a Needles>,
) -> Result<bool> {
    let v = text.value();
    let mut len = 0usize;
    // SAFETY: a null buffer asks only for the length in Latin-1 units (one per UTF-16 unit).
    check_status!(unsafe {
        sys::napi_get_value_string_latin1(v.env, v.value, std::ptr::null_mut(), 0, &mut len)
    })?;
    let mut buf: Vec<u8> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    // SAFETY: `buf` has room for `len + 1` bytes; Node-API writes at most that many (the units
    // and a NUL) and reports how many it wrote, without the NUL.
    check_status!(unsafe {
        sys::napi_get_value_string_latin1(
            v.env,
            v.value,
            buf.as_mut_ptr().cast(),
            len + 1,
            &mut written,
        )
    })?;
    // SAFETY: the first `written` bytes were initialised by Node-API (`written <= len`).
    unsafe { buf.set_len(written.min(len)) };
    Ok(!needles.into_iter().any(|n| n.found_ignoring_case(&buf)))
}

#[napi(catch_unwind, js_name = "stripLegacyBracketToolCallBlocksNative")]
pub fn strip_legacy_bracket_tool_call_blocks(text: JsString) -> Result<Option<JsText>> {
    run(text, b"[", legacy_bracket::strip_legacy_bracket_blocks)
}

/// 2026.9.6's `stripReasoningTagsFromText` (js/scrub.js checked the option values).
pub fn strip_reasoning_tags_2026_9_6(
    text: JsString,
    mode: Option<String>,
    trim: Option<String>,
    scope: Option<String>,
    recover_unclosed: Option<bool>,
) -> Result<Option<JsText>> {
    let bad = |what: &str, v: &str| {
        Error::new(
            Status::InvalidArg,
            format!("options.{what}: unexpected {v:?}"),
        )
    };
    let options = reasoning::Options {
        mode: match mode.as_deref() {
            None | Some("strict") => Mode::Strict,
            Some("preserve") => Mode::Preserve,
            Some(m) => return Err(bad("mode", m)),
        },
        trim: match trim.as_deref() {
            None | Some("both") => Trim::Both,
            Some("start") => Trim::Start,
            Some("none") => Trim::None,
            Some(t) => return Err(bad("trim", t)),
        },
        scope: match scope.as_deref() {
            None | Some("all") => Scope::All,
            Some("leading") => Scope::Leading,
            Some(s) => return Err(bad("scope", s)),
        },
        recover_unclosed: recover_unclosed.unwrap_or(true),
    };
    run(text, b"<", |t| reasoning::strip_reasoning_tags(t, options))
}

/// `response_after_plural` / `plural_payloads`: see [`tool_call_xml::strip_tool_call_xml`].
#[napi(catch_unwind, js_name = "stripToolCallXmlTagsNative")]
pub fn strip_tool_call_xml_tags(
    text: JsString,
    response_after_plural: bool,
    plural_payloads: bool,
) -> Result<Option<JsText>> {
    run(text, b"<", |t| {
        tool_call_xml::strip_tool_call_xml(t, response_after_plural, plural_payloads)
    })
}

/// `code_aware`: calls that start in Markdown code stay (OpenClaw's reply chain); without it, as
/// OpenClaw's function called with no options.
#[napi(catch_unwind, js_name = "stripPlainTextToolCallBlocksNative")]
pub fn strip_plain_text_tool_call_blocks(
    text: JsString,
    code_aware: bool,
) -> Result<Option<JsText>> {
    run(text, b"[<=", |t| {
        plain_tool_call::strip_plain_text_tool_calls(t, code_aware)
    })
}

/// `words_only`: see [`strip_assistant_internal_trace_lines`] (and js/scrub.js found nothing to
/// trim).
#[napi(catch_unwind, js_name = "sanitizeAssistantVisibleTextNative")]
pub fn sanitize_assistant_visible_text(text: JsString, words_only: bool) -> Result<Option<JsText>> {
    if words_only && case_blind_absent(text, chain::DELIVERY.iter().map(|(_, n)| n))? {
        return Ok(None);
    }
    run(text, b"", chain::sanitize_assistant_visible_text)
}

/// `error_context`: the text is an error message (OpenClaw's `errorContext`: trace lines go too);
/// `words_only`: only the trace lines' case-blind needles are left to test (see
/// [`strip_assistant_internal_trace_lines`]); `conversation_context`: the prompt whose copies go;
/// `streaming`: the reply is still arriving.
#[napi(catch_unwind, js_name = "sanitizeUserFacingTextNative")]
pub fn sanitize_user_facing_text(
    text: JsString,
    error_context: bool,
    words_only: bool,
    conversation_context: Option<String>,
    streaming: bool,
) -> Result<Option<JsText>> {
    if words_only && case_blind_absent(text, [&trace_lines::NEEDLES])? {
        return Ok(None);
    }
    let prompt = conversation_context
        .as_deref()
        .and_then(PromptEcho::prepare);
    let options = user_facing::Options {
        error_context,
        streaming,
        prompt: prompt.as_ref(),
    };
    run(text, b"", |t| {
        user_facing::sanitize_user_facing_text_with(t, options)
    })
}

/// What a text must hold for a 2026.9.6 scrubber to change it (see
/// [`crate::scrub::visible::needles`]): `exact` strings, or `ignoreCase` ones (ASCII case ignored).
#[napi(object)]
pub struct NeedleList {
    pub exact: Vec<String>,
    pub ignore_case: Vec<String>,
}

fn needle_list<'a>(all: impl IntoIterator<Item = &'a Needles>) -> NeedleList {
    let mut list = NeedleList {
        exact: Vec::new(),
        ignore_case: Vec::new(),
    };
    for n in all {
        list.exact.extend(n.exact.iter().map(|s| s.to_string()));
        list.ignore_case
            .extend(n.ignore_case.iter().map(|s| s.to_string()));
    }
    list
}

/// Each 2026.9.6 scrubber's needles, by its JS name (js/scrub.js tests them first). A chain's
/// are its steps' together; both chains also trim (or drop leading blank lines), which the JS side
/// tests on its own, and the user-facing one's trace-line step (error text only) is tested
/// with that scrubber's needles.
#[napi(catch_unwind, js_name = "visibleNeedlesNative")]
pub fn visible_needles() -> HashMap<String, NeedleList> {
    let one = |n: &Needles| needle_list([n]);
    HashMap::from([
        (
            "stripModelSpecialTokens".into(),
            one(&special_tokens::NEEDLES),
        ),
        ("stripMinimaxToolCallXml".into(), one(&minimax::NEEDLES)),
        (
            "stripDowngradedToolCallText".into(),
            one(&downgraded::NEEDLES),
        ),
        ("stripRelevantMemoriesTags".into(), one(&memories::NEEDLES)),
        (
            "stripAssistantInternalTraceLines".into(),
            one(&trace_lines::NEEDLES),
        ),
        (
            "stripLegacyBracketToolCallBlocks".into(),
            one(&legacy_bracket::NEEDLES),
        ),
        ("stripToolCallXmlTags".into(), one(&tool_call_xml::NEEDLES)),
        (
            "stripReasoningTagsFromText".into(),
            one(&reasoning::NEEDLES),
        ),
        (
            "stripPlainTextToolCallBlocks".into(),
            one(&plain_tool_call::NEEDLES),
        ),
        (
            "sanitizeAssistantVisibleText".into(),
            needle_list(chain::DELIVERY.iter().map(|(_, n)| n)),
        ),
        (
            "sanitizeUserFacingText".into(),
            needle_list(
                user_facing::HEAD
                    .iter()
                    .chain(&user_facing::TAIL)
                    .map(|(_, n)| n),
            ),
        ),
    ])
}

/// One content block as js/scrub.js encodes it: a text block's text, or 0 (another block),
/// 1 (a `toolCall` block), 2 (not an object, or a text block without a string text).
type JsPart = Either<String, u32>;

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The promoted content as JSON (`[{id, name, arguments} | {keep: index}]`, arguments a JSON
/// object as the model wrote it), or `null` when the message stays as it is.
#[napi(catch_unwind, js_name = "promotePlainTextToolCallsNative")]
pub fn promote_plain_text_tool_calls(
    content: Either<String, Vec<JsPart>>,
    tools: Vec<String>,
) -> Option<String> {
    let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
    let (parts, string) = match &content {
        Either::A(text) => (vec![Part::Text(text)], true),
        Either::B(blocks) => (
            blocks
                .iter()
                .map(|b| match b {
                    Either::A(text) => Part::Text(text),
                    Either::B(1) => Part::ToolCall,
                    Either::B(0) => Part::Other,
                    Either::B(_) => Part::Unreadable,
                })
                .collect(),
            false,
        ),
    };
    let blocks = promote::promote(&parts, string, &tools)?;
    let entries: Vec<String> = blocks
        .into_iter()
        .map(|b| match b {
            Block::Keep(i) => format!("{{\"keep\":{i}}}"),
            Block::Call(c) => {
                let arguments = match c.arguments {
                    Arguments::Json(raw) => raw,
                    Arguments::Parameters(ps) => {
                        let fields: Vec<String> = ps
                            .iter()
                            .map(|(k, v)| format!("{}:{}", json_string(k), json_string(v)))
                            .collect();
                        format!("{{{}}}", fields.join(","))
                    }
                };
                format!(
                    "{{\"id\":{},\"name\":{},\"arguments\":{arguments}}}",
                    json_string(&c.id),
                    json_string(&c.name)
                )
            }
        })
        .collect();
    Some(format!("[{}]", entries.join(",")))
}
