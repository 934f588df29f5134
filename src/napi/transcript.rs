//! `runTranscript(messages, codes, reals, strs, op, config, out)`: the one native call behind
//! every transcript function of the JS API. The skeleton (js/codec.js) crosses as three typed
//! arrays Rust borrows: `codes` (a `Uint32Array`: structure, kinds, counts), `reals` (a
//! `Float64Array`: the numbers values and usages hold) and `strs` (its strings' UTF-8).
//!
//! The answer costs as little to hand back as it can: one string (the plan's JSON, then its new
//! string values) and a few numbers written into the caller's buffer `out`, whose first
//! [`HEAD`] slots say what came back. Building a result object through Node-API (a property
//! set, a key internalised, a map transition per field) cost more than the rules of a 4-message
//! suffix.

use super::source::HandleSource;
use super::text::js_string;
use crate::transcript::history_options;
use crate::transcript::incremental::{self, Prefix};
use crate::transcript::model::Msg;
use crate::transcript::pipeline::HistoryParams;
use crate::transcript::{ops, read_set, skeleton, Ctx, Source, FIELD_NAMES};
use napi::bindgen_prelude::{
    Array, Either, Float64Array, Float64ArraySlice, Latin1String, Uint32ArraySlice, Uint8ArraySlice,
};
use napi::{Error, Result, Status};
use napi_derive::napi;
use serde_json::Value;
use std::cell::{Cell, RefCell};

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, msg.into())
}

thread_local! {
    /// The plan's numbers are written here first; kept across calls so a long transcript does
    /// not fault in fresh pages for it on every call (each Node thread has its own). When they
    /// do not fit in the caller's buffer they wait here for `takeTranscriptPlan`.
    static PLAN_NUMS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// The model of this thread's last call, kept until the next call parses over it
    /// (`skeleton::parse_into`): freed whole at the end of each call, a long transcript's model
    /// (~1 KB a message) was handed back to the system by glibc and faulted in again by the
    /// next call. At most [`KEEP_MAX`] messages are kept.
    static MODEL: RefCell<Vec<Msg>> = const { RefCell::new(Vec::new()) };
}

/// The longest model kept between calls (~1 KB a message).
const KEEP_MAX: usize = 20_000;

/// The skeleton's string channel: js/codec.js writes the strings' UTF-8 into a byte buffer that
/// crosses borrowed, checked here once. Sent as a JS string it was flattened, measured and
/// transcoded by Node-API into a fresh copy (~6% of a full pass's instructions at 1,000 messages).
fn skeleton_strs(strs: &[u8]) -> Result<&str> {
    std::str::from_utf8(strs).map_err(|e| invalid(format!("strs: not UTF-8 ({e})")))
}

/// The skeleton parsed over the model this thread's last call left.
fn parse_model(codes: &[u32], reals: &[f64], strs: &str) -> Result<Vec<Msg>> {
    let mut msgs = MODEL.with(|m| std::mem::take(&mut *m.borrow_mut()));
    skeleton::parse_into(codes, reals, strs, &mut msgs).map_err(invalid)?;
    Ok(msgs)
}

/// Keeps `msgs` for the next call on this thread to parse over.
fn keep_model(msgs: Vec<Msg>) {
    if msgs.len() <= KEEP_MAX {
        MODEL.with(|m| *m.borrow_mut() = msgs);
    }
}

/// The slots at the start of `out` that describe the answer (js/run.js reads them):
/// `[0]` how many numbers the plan has (-1: no plan, the output is the input), `[1]` 1 when they
/// did not fit after the header (then `takeTranscriptPlan` gives them), `[2]` a session's cut
/// (-1: it must fall back; -2: it must run again from the session's earlier cut `[0]`, whose
/// output position is `[1]`), `[3]` the output position of that cut. The plan's numbers follow.
pub const HEAD: usize = 4;

/// The answer as a JS string ([`js_string`]): the JSON, then the texts (each preceded by U+001F,
/// which JSON text never holds unescaped). Re-encoded image payloads are megabytes of base64.
fn answer_string(s: String) -> Either<String, Latin1String> {
    js_string(s)
}

/// Runs transcript operation `op` on the skeleton of `messages`.
#[napi(catch_unwind, js_name = "runTranscript")]
#[allow(clippy::too_many_arguments)]
pub fn run_transcript(
    messages: Array,
    codes: Uint32ArraySlice,
    reals: Float64ArraySlice,
    strs: Uint8ArraySlice,
    op: String,
    config: String,
    mut out: Float64ArraySlice,
) -> Result<Either<String, Latin1String>> {
    if op == "sanitizeSessionHistory" {
        if let Some(key) = history_options::Key::of(&config) {
            return run_history(
                messages,
                (&codes, &reals),
                skeleton_strs(&strs)?,
                &config,
                key,
                &mut out,
            );
        }
    }
    let cfg = parse_config(&config)?;
    let mut msgs = parse_model(&codes, &reals, skeleton_strs(&strs)?)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let mut ctx = Ctx::new(&source, reported(&cfg));
    let result = ops::run(&op, &cfg, &mut msgs, &mut ctx).map_err(invalid)?;
    let answer = answer(&msgs, input_len, &ctx, &result, plan_buffer(&mut out));
    keep_model(msgs);
    answer
}

/// `sanitizeSessionHistory` with options whose read form this thread may hold already
/// ([`history_options`]): read again only when they differ from the last call's but for `now`.
fn run_history(
    messages: Array,
    (codes, reals): (&[u32], &[f64]),
    strs: &str,
    config: &str,
    key: history_options::Key,
    out: &mut Float64ArraySlice,
) -> Result<Either<String, Latin1String>> {
    // Taken out for the call (a getter the rules run may call in again: it finds none).
    let read = match history_options::take(config, &key) {
        Some(r) => r,
        None => {
            let cfg = parse_config(config)?;
            history_options::Read::of(&cfg)
        }
    };
    let mut params = read.params;
    params.now = key.now;
    let mut msgs = parse_model(codes, reals, strs)?;
    let input_len = msgs.len();
    let source = HandleSource { messages };
    let mut ctx = Ctx::new(&source, read.report);
    let result = ops::run_history(&params, &mut msgs, &mut ctx);
    let answer = answer(&msgs, input_len, &ctx, &result, plan_buffer(out));
    keep_model(msgs);
    history_options::keep(
        config,
        &key,
        history_options::Read {
            params,
            report: read.report,
        },
    );
    answer
}

fn parse_config(config: &str) -> Result<Value> {
    serde_json::from_str(config).map_err(|e| invalid(format!("options: {e}")))
}

fn reported(cfg: &Value) -> bool {
    cfg.get("report").and_then(Value::as_bool).unwrap_or(false)
}

/// The caller's buffer for the answer's header and plan numbers, borrowed without a reference.
fn plan_buffer<'a>(out: &'a mut Float64ArraySlice) -> &'a mut [f64] {
    // SAFETY: `out` is the codec's private Float64Array (never shared with another thread or
    // exposed to user code), and it lives as long as this call. JS can run during a call only
    // inside the rules (a getter the source reads), which never touch this buffer; a call made
    // from such a getter is given a buffer of its own (js/run.js, codec.enter), so nothing else
    // reads or writes this one while the slice lives.
    unsafe { out.as_mut() }
}

/// The answer to JS: the header and, when they fit, the plan's numbers go into `out`.
fn answer(
    msgs: &[Msg],
    input_len: usize,
    ctx: &Ctx,
    result: &ops::OpOutput,
    out: &mut [f64],
) -> Result<Either<String, Latin1String>> {
    if out.len() < HEAD {
        return Err(invalid("out: expected a buffer of at least 4 numbers"));
    }
    let buf = PLAN_NUMS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let (mut json, plan) = ops::response_json(msgs, input_len, ctx, result, buf);
    out[2] = 0.0;
    out[3] = 0.0;
    let Some((plan, texts)) = plan else {
        out[0] = -1.0;
        out[1] = 0.0;
        return Ok(answer_string(json));
    };
    let len = plan.len();
    if HEAD + len <= out.len() {
        out[HEAD..HEAD + len].copy_from_slice(&plan);
        out[1] = 0.0;
    } else {
        out[1] = 1.0;
    }
    out[0] = len as f64;
    PLAN_NUMS.with(|b| *b.borrow_mut() = plan);
    json.push_str(&texts);
    Ok(answer_string(json))
}

/// The plan numbers of the last answer on this thread that did not fit in its buffer.
#[napi(catch_unwind, js_name = "takeTranscriptPlan")]
pub fn take_transcript_plan() -> Float64Array {
    PLAN_NUMS.with(|b| Float64Array::new(b.borrow().clone()))
}

/// What the pass of one session remembers between calls (see `transcript::incremental`): its
/// options, parsed and with the policy resolved once, and the prefix before the last proven cut.
/// The JS side keeps one per session, in a bounded LRU.
#[napi(js_name = "TranscriptSessionNative")]
pub struct TranscriptSession {
    params: HistoryParams,
    prefix: Option<Prefix>,
    /// The session entries' JSON behind `params.session_entries` (parsed again only when it
    /// differs: between an agent's turns it seldom does).
    entries: Option<String>,
    /// Whether a rule read a value the skeleton leaves out (an image's payload, a call's
    /// attachments) from a message before the cut: the prefix's output then depends on more than
    /// its skeleton, and a caller that sent new objects with the same skeleton cannot reuse it.
    read_before_cut: bool,
    /// The model of the last continued call (a few messages), parsed over by the next one
    /// (`skeleton::parse_into`): a turn's block lists, extras and usage boxes are the last
    /// turn's memory again instead of a fresh allocation and a free each. Not the thread's kept
    /// model, which a continued call would cut down to its few messages, freeing a whole
    /// transcript's model on the way. At most [`SESSION_KEEP_MAX`] messages.
    model: Vec<Msg>,
    /// The skeleton fields no rule of this session's pass reads (`transcript::read_set`).
    unread: u32,
}

/// The longest continued call's model a session keeps (a turn appends a few messages).
const SESSION_KEEP_MAX: usize = 64;

#[napi]
impl TranscriptSession {
    /// A session whose every call runs with `config` (the checked options as JSON).
    #[napi(constructor, catch_unwind)]
    pub fn new(config: String) -> Result<Self> {
        let mut params = ops::history_params(&parse_config(&config)?);
        params.policy = Some(params.resolved_policy());
        Ok(TranscriptSession {
            unread: read_set::unread_by_history(&params),
            params,
            prefix: None,
            entries: None,
            read_before_cut: false,
            model: Vec::new(),
        })
    }

    /// The skeleton fields no rule of this session's pass reads: js/codec.js leaves them out of
    /// every skeleton of the session (see `transcript::read_set`).
    #[napi(catch_unwind)]
    pub fn unread(&self) -> u32 {
        self.unread
    }

    /// Whether the prefix's output follows from its skeleton alone, so that messages whose
    /// skeleton begins with the prefix's, byte for byte, may reuse it (js/transcript-session.js's
    /// content-keyed path): no rule read a value the skeleton leaves out from a message before
    /// the cut.
    #[napi(catch_unwind, js_name = "contentKeyed")]
    pub fn content_keyed(&self) -> bool {
        self.prefix.is_some() && !self.read_before_cut
    }

    /// The Rust-side memory this session holds (bytes, approximate).
    #[napi(catch_unwind, js_name = "heapBytes")]
    pub fn heap_bytes(&self) -> u32 {
        self.prefix.as_ref().map_or(0, |p| p.heap_bytes() as u32)
    }
}

/// `sanitizeSessionHistory` for a session, with its options, the session entries the caller
/// read (`[[customType, data], …]` as JSON, or none without a session manager) and the time:
/// with `start` 0, the full pass over `messages`; with `start` the session's cut, the pass over
/// the suffix `messages` (the history from the cut on), answering a cut of -1 (fall back) when it
/// cannot be proven equal to the full pass.
#[napi(catch_unwind, js_name = "runTranscriptSession")]
#[allow(clippy::too_many_arguments)]
pub fn run_transcript_session(
    session: &mut TranscriptSession,
    messages: Array,
    codes: Uint32ArraySlice,
    reals: Float64ArraySlice,
    strs: Uint8ArraySlice,
    entries: Option<String>,
    now: f64,
    start: u32,
    mut out: Float64ArraySlice,
) -> Result<Either<String, Latin1String>> {
    let out = plan_buffer(&mut out);
    let prior = if start == 0 {
        None
    } else {
        match session.prefix.take() {
            Some(p) if p.cut == start as usize => Some(p),
            _ => return fallback(out),
        }
    };
    if entries != session.entries {
        session.params.session_entries = match &entries {
            Some(e) => ops::entries_from_json(&parse_config(e)?),
            None => None,
        };
        session.entries = entries;
    }
    session.params.now = now;
    let mut msgs = if start == 0 {
        Vec::new()
    } else {
        std::mem::take(&mut session.model)
    };
    skeleton::parse_into(&codes, &reals, skeleton_strs(&strs)?, &mut msgs).map_err(invalid)?;
    let input_len = msgs.len();
    let source = Watched {
        inner: HandleSource { messages },
        least: Cell::new(usize::MAX),
    };
    let mut ctx = Ctx::new(&source, false);
    let (h, prefix) =
        match incremental::sanitize_tracked(&mut msgs, &mut ctx, &session.params, prior) {
            Ok(r) => r,
            Err(f) => {
                let Some(earlier) = f.earlier else {
                    return fallback(out);
                };
                // Kept for the call that runs again from its cut.
                let head = [earlier.cut as f64, earlier.out as f64, -2.0, 0.0];
                session.prefix = Some(*earlier);
                return answer_head(out, head);
            }
        };
    if start == 0 {
        session.read_before_cut = false;
    }
    if let Some(p) = &prefix {
        // `least` is an index into this call's messages, which begin at `start`.
        session.read_before_cut |= source.least.get() < p.cut.saturating_sub(start as usize);
    }
    let mut result = ops::OpOutput {
        entries: h.entries,
        ..ops::OpOutput::default()
    };
    if !h.warnings.is_empty() {
        result
            .extra
            .insert("warnings".into(), serde_json::json!(h.warnings));
    }
    let (cut, cut_out) = prefix.as_ref().map_or((0, 0), |p| (p.cut, p.out));
    session.prefix = prefix;
    let a = answer(&msgs, input_len, &ctx, &result, out)?;
    out[2] = cut as f64;
    out[3] = cut_out as f64;
    if start > 0 && msgs.len() <= SESSION_KEEP_MAX {
        session.model = msgs;
    }
    Ok(a)
}

/// A [`Source`] that notes the least message index a rule read through it.
struct Watched<'a> {
    inner: HandleSource<'a>,
    least: Cell<usize>,
}

impl Source for Watched<'_> {
    fn with_image_data(&self, msg: usize, block: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        self.least.set(self.least.get().min(msg));
        self.inner.with_image_data(msg, block, f)
    }

    fn items_with_key(
        &self,
        msg: usize,
        block: usize,
        field: &str,
        list: &str,
        key: &str,
    ) -> Option<Vec<bool>> {
        self.least.set(self.least.get().min(msg));
        self.inner.items_with_key(msg, block, field, list, key)
    }
}

/// The answer of a session's pass that must fall back to the full pass.
fn fallback(out: &mut [f64]) -> Result<Either<String, Latin1String>> {
    answer_head(out, [-1.0, 0.0, -1.0, 0.0])
}

/// An answer that is its header alone.
fn answer_head(out: &mut [f64], head: [f64; HEAD]) -> Result<Either<String, Latin1String>> {
    if out.len() < HEAD {
        return Err(invalid("out: expected a buffer of at least 4 numbers"));
    }
    out[..HEAD].copy_from_slice(&head);
    Ok(Either::B(Latin1String::from(String::new())))
}

/// The skeleton fields no rule of operation `op` reads with options `config` (the checked
/// options as JSON): js/codec.js leaves them out (see `transcript::read_set`).
#[napi(catch_unwind, js_name = "transcriptUnread")]
pub fn transcript_unread(op: String, config: String) -> Result<u32> {
    Ok(read_set::unread(&op, &parse_config(&config)?))
}

/// The options [`transcript_unread`] depends on (js/read-set.js keys its cache by them).
#[napi(catch_unwind, js_name = "transcriptUnreadOptions")]
pub fn transcript_unread_options() -> Vec<&'static str> {
    read_set::OPTIONS.to_vec()
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
    /// A usage in the normalised shape, sent as its numbers (`usage_keys`, then `cost_keys`).
    pub usage: u32,
    /// What a call's `arguments` key count is when they are not an object.
    pub no_argument_keys: u32,
    pub usage_keys: Vec<String>,
    pub cost_keys: Vec<String>,
    pub lone_surrogate_base: u32,
    /// The message fields sent in 2026.9.6 mode only (mask bit 512, then a mask of these).
    pub extra_fields: Vec<String>,
    /// A `toolResult` or `tool` block's id fields besides `toolUseId`, sent in 2026.9.6 mode
    /// only (a mask of these, then the present ones).
    pub result_block_id_fields: Vec<String>,
    /// In 2026.9.6 mode, an assistant text holding one of these (ASCII case ignored) is sent
    /// whole: a rule reads it (a silent `NO_REPLY` reply, OpenClaw's metadata echoed).
    pub whole_assistant_text_needles: Vec<String>,
    /// ... or opening with one of these.
    pub whole_assistant_text_leads: Vec<String>,
    /// The bits of the fields a call may leave out (`transcript::read_set`): a thinking block's
    /// text, its `thinkingSignature`, every block's Gemini thought signatures.
    pub unread_thinking_text: u32,
    pub unread_thinking_signature: u32,
    pub unread_thought_signatures: u32,
}

/// The skeleton's vocabulary and structure codes (js/codec.js reads them once).
#[napi(catch_unwind, js_name = "transcriptSkeletonCodes")]
pub fn transcript_skeleton_codes() -> SkeletonCodes {
    use crate::transcript::v2026_9::replay_content;
    SkeletonCodes {
        vocab: skeleton::VOCAB.iter().map(|w| w.to_string()).collect(),
        message: skeleton::MESSAGE,
        block: skeleton::BLOCK,
        not_object: skeleton::NOT_OBJECT,
        text: skeleton::TEXT,
        text_head: skeleton::TEXT_HEAD,
        array: skeleton::ARRAY,
        data: skeleton::DATA,
        usage: skeleton::USAGE,
        no_argument_keys: skeleton::NO_ARGUMENT_KEYS,
        usage_keys: skeleton::USAGE_KEYS.map(String::from).to_vec(),
        cost_keys: skeleton::COST_KEYS.map(String::from).to_vec(),
        lone_surrogate_base: skeleton::LONE_SURROGATE_BASE,
        extra_fields: crate::transcript::model::EXTRA_FIELDS
            .iter()
            .map(|w| w.to_string())
            .collect(),
        result_block_id_fields: crate::transcript::model::RESULT_BLOCK_ID_FIELDS
            .map(String::from)
            .to_vec(),
        whole_assistant_text_needles: replay_content::whole_text_needles()
            .into_iter()
            .map(str::to_string)
            .collect(),
        whole_assistant_text_leads: replay_content::WHOLE_TEXT_LEADS
            .iter()
            .map(|w| w.to_string())
            .collect(),
        unread_thinking_text: read_set::THINKING_TEXT,
        unread_thinking_signature: read_set::THINKING_SIGNATURE,
        unread_thought_signatures: read_set::THOUGHT_SIGNATURES,
    }
}
