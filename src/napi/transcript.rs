//! `runTranscript(messages, nums, strs, op, config, out)`: the one native call behind every
//! transcript function of the JS API.

use super::source::HandleSource;
use crate::transcript::incremental::{self, Prefix};
use crate::transcript::model::Msg;
use crate::transcript::{ops, skeleton, Ctx, FIELD_NAMES};
use napi::bindgen_prelude::{Array, Either, Float64Array, Float64ArraySlice, Latin1String};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::Value;
use std::cell::RefCell;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}

thread_local! {
    /// The plan's numbers are written here first; kept across calls so a long transcript does
    /// not fault in fresh pages for it on every call (each Node thread has its own).
    static PLAN_NUMS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// What one operation answers: everything but the plan's numbers as JSON; the numbers in the
/// caller's buffer (`planLen` of them), or in `plan` when they did not fit.
#[napi(object)]
pub struct TranscriptAnswer {
    pub json: String,
    pub plan_len: u32,
    pub plan: Option<Float64Array>,
    /// The plan's new string values, each preceded by U+001F.
    pub texts: Option<Either<String, Latin1String>>,
    /// For a session's pass: where its cut now lies, or that it must fall back.
    pub session: Option<SessionStep>,
}

/// The texts as a JS string. All-ASCII texts (re-encoded image payloads are megabytes of base64)
/// go through Node-API's Latin-1 constructor, a plain copy, instead of UTF-8 validation: for 2 MB
/// of base64 that took the string's creation from ~1.2 ms to ~0.2 ms.
fn texts_value(texts: String) -> Either<String, Latin1String> {
    if texts.is_ascii() {
        Either::B(Latin1String::from(texts))
    } else {
        Either::A(texts)
    }
}

/// Runs transcript operation `op` on the skeleton of `messages`.
#[napi(catch_unwind, js_name = "runTranscript")]
pub fn run_transcript(
    messages: Array,
    nums: Float64ArraySlice,
    strs: String,
    op: String,
    config: String,
    out: Float64Array,
) -> Result<TranscriptAnswer> {
    let cfg = parse_config(&config)?;
    let mut msgs = skeleton::parse(&nums, &strs).map_err(invalid)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let mut ctx = Ctx::new(&source, reported(&cfg));
    let result = ops::run(&op, &cfg, &mut msgs, &mut ctx).map_err(invalid)?;
    Ok(answer(&msgs, input_len, &ctx, &result, out))
}

fn parse_config(config: &str) -> Result<Value> {
    serde_json::from_str(config).map_err(|e| invalid(format!("options: {e}")))
}

fn reported(cfg: &Value) -> bool {
    cfg.get("report").and_then(Value::as_bool).unwrap_or(false)
}

/// The answer to JS: the plan's numbers go into `out` when they fit.
fn answer(
    msgs: &[Msg],
    input_len: usize,
    ctx: &Ctx,
    result: &ops::OpOutput,
    mut out: Float64Array,
) -> TranscriptAnswer {
    let buf = PLAN_NUMS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let (json, plan) = ops::response_json(msgs, input_len, ctx, result, buf);
    let Some((plan, texts)) = plan else {
        return TranscriptAnswer {
            json,
            plan_len: 0,
            plan: None,
            texts: None,
            session: None,
        };
    };
    let len = plan.len();
    let answer = if len <= out.len() {
        // SAFETY: `out` is the codec's private Float64Array (never shared with another thread or
        // exposed to user code). JS can run during this call only inside `ops::run` (a getter
        // the source reads), which is over: no JS runs while this slice lives. A call made from
        // such a getter is given a buffer of its own (js/run.js, codec.enter), so nothing else
        // writes this one. The length was just checked.
        let dst = unsafe { out.as_mut() };
        dst[..len].copy_from_slice(&plan);
        TranscriptAnswer {
            json,
            plan_len: len as u32,
            plan: None,
            texts: Some(texts_value(texts)),
            session: None,
        }
    } else {
        TranscriptAnswer {
            json,
            plan_len: len as u32,
            plan: Some(Float64Array::new(plan.clone())),
            texts: Some(texts_value(texts)),
            session: None,
        }
    };
    PLAN_NUMS.with(|b| *b.borrow_mut() = plan);
    answer
}

/// What the pass of one session remembers between calls (see `transcript::incremental`): the
/// prefix before the last proven cut. The JS side keeps one per session, in a bounded LRU.
#[napi(js_name = "TranscriptSessionNative")]
pub struct TranscriptSession {
    prefix: Option<Prefix>,
}

#[napi]
impl TranscriptSession {
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        TranscriptSession { prefix: None }
    }

    /// The Rust-side memory this session holds (bytes, approximate).
    #[napi(catch_unwind, js_name = "heapBytes")]
    pub fn heap_bytes(&self) -> u32 {
        self.prefix.as_ref().map_or(0, |p| p.heap_bytes() as u32)
    }
}

/// Where a session's pass left its cut: input messages `..cut` and output messages `..out` are
/// the prefix the next call reuses (`cut` 0: none).
#[napi(object)]
pub struct SessionStep {
    pub fallback: bool,
    pub cut: u32,
    pub out: u32,
}

/// `sanitizeSessionHistory` for a session: with `start` 0, the full pass over `messages`; with
/// `start` the session's cut, the pass over the suffix `messages` (the history from the cut on),
/// answering `session.fallback` when it cannot be proven equal to the full pass.
#[napi(catch_unwind, js_name = "runTranscriptSession")]
pub fn run_transcript_session(
    session: &mut TranscriptSession,
    messages: Array,
    nums: Float64ArraySlice,
    strs: String,
    config: String,
    start: u32,
    out: Float64Array,
) -> Result<TranscriptAnswer> {
    let prior = if start == 0 {
        None
    } else {
        match session.prefix.take() {
            Some(p) if p.cut == start as usize => Some(p),
            _ => return Ok(fallback()),
        }
    };
    let cfg = parse_config(&config)?;
    let mut msgs = skeleton::parse(&nums, &strs).map_err(invalid)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let mut ctx = Ctx::new(&source, reported(&cfg));
    let params = ops::history_params(&cfg);
    let Ok((h, prefix)) = incremental::sanitize_tracked(&mut msgs, &mut ctx, &params, prior) else {
        return Ok(fallback());
    };
    let mut result = ops::OpOutput {
        entries: h.entries,
        ..ops::OpOutput::default()
    };
    if !h.warnings.is_empty() {
        result
            .extra
            .insert("warnings".into(), serde_json::json!(h.warnings));
    }
    let step = SessionStep {
        fallback: false,
        cut: prefix.as_ref().map_or(0, |p| p.cut as u32),
        out: prefix.as_ref().map_or(0, |p| p.out as u32),
    };
    session.prefix = prefix;
    let mut a = answer(&msgs, input_len, &ctx, &result, out);
    a.session = Some(step);
    Ok(a)
}

fn fallback() -> TranscriptAnswer {
    TranscriptAnswer {
        json: String::from("{}"),
        plan_len: 0,
        plan: None,
        texts: None,
        session: Some(SessionStep {
            fallback: true,
            cut: 0,
            out: 0,
        }),
    }
}

/// The field names the plan sends as indices (js/codec.js reads them once).
#[napi(catch_unwind, js_name = "transcriptFieldNames")]
pub fn transcript_field_names() -> Vec<&'static str> {
    FIELD_NAMES.to_vec()
}

/// The custom session entry types the pass reads, `[model snapshot, Google bootstrap marker]`:
/// js/transcript.js sends only the last of each, never the whole session.
#[napi(catch_unwind, js_name = "transcriptSessionEntryTypes")]
pub fn transcript_session_entry_types() -> Vec<&'static str> {
    use crate::transcript::pipeline::{GOOGLE_BOOTSTRAP_MARKER, MODEL_SNAPSHOT};
    vec![MODEL_SNAPSHOT, GOOGLE_BOOTSTRAP_MARKER]
}

/// The skeleton's codes, defined once in `transcript::skeleton` and read by js/codec.js at load.
#[napi(object)]
pub struct SkeletonCodes {
    pub vocab: Vec<String>,
    pub message: u32,
    pub block: u32,
    pub not_object: u32,
    pub text: u32,
    pub text_head: u32,
    pub array: u32,
    pub data: u32,
    pub lone_surrogate_base: u32,
}

/// The skeleton's vocabulary and structure codes (js/codec.js reads them once).
#[napi(catch_unwind, js_name = "transcriptSkeletonCodes")]
pub fn transcript_skeleton_codes() -> SkeletonCodes {
    SkeletonCodes {
        vocab: skeleton::VOCAB.iter().map(|w| w.to_string()).collect(),
        message: skeleton::MESSAGE,
        block: skeleton::BLOCK,
        not_object: skeleton::NOT_OBJECT,
        text: skeleton::TEXT,
        text_head: skeleton::TEXT_HEAD,
        array: skeleton::ARRAY,
        data: skeleton::DATA,
        lone_surrogate_base: skeleton::LONE_SURROGATE_BASE,
    }
}
