//! Response cleaning (issue #3): open-weight models served through OpenAI-compatible APIs often
//! write their tool calls into `content` as text (`<minimax:tool_call>`, `<tool_call>…`,
//! `<｜tool▁calls▁begin｜>`, `<|tool_calls_section_begin|>`, …) with `<think>` reasoning around
//! them, so the user sees garbled markup and the agent never runs the call (seed 000).
//! [`clean_response`] turns such a whole reply into visible text, structured tool calls and
//! reasoning. The behaviour follows `../shared/reference/pseudo-tool-call-formats.md`.
//!
//! Policy chosen where the references disagree (§0.3 and §0.5 of the formats reference):
//! - text before, between and after calls is kept; only the markup is removed;
//! - reasoning is split off first, and nothing inside it is ever taken for a call;
//! - a call block whose closing tag is missing still yields a call when its name is complete and
//!   its arguments were written to their end (reported in `problems`); a call cut off inside its
//!   arguments, or otherwise unusable, is not returned (`garbage.rs`); a block that yields no call
//!   is removed from `content` all the same, its raw text reported ([`unreadable`]), so what
//!   [`Mode::Strip`] removes, [`Mode::Extract`] returns or reports;
//! - a call block inside reasoning is returned only when no call block exists outside it
//!   ([`stream`]'s `in_reasoning`); calls the API returned already are not returned again
//!   ([`shadow`]);
//! - malformed JSON arguments are kept as the raw string and reported, never dropped;
//! - whitespace (a local rule a stream can follow, see [`stream`]): whitespace right before removed
//!   markup is dropped; whitespace right after it is dropped when nothing visible precedes it or
//!   nothing visible follows it before the next removed markup or the end; all other text is kept
//!   exactly, so a reply without markup comes back unchanged;
//! - a closing reasoning tag with no opening tag is R1-style (the text before it is reasoning) only
//!   when the format or model names a family that writes it so ([`thinking::r1_hint`]); otherwise
//!   it is a stray tag and removed;
//! - [`clean_response`] is the stream machine ([`stream::Machine`]) fed the whole reply, so
//!   [`stream::StreamCleaner`] gives exactly the same result for any chunking;
//! - `auto` detects every family whose markers are special tokens or fixed tags ([`scan::detect`]);
//!   the families written as plain JSON or Python (`llama3_json`, `pythonic`, `llama4_pythonic`,
//!   `xlam`, `olmo3`) are read only when `options.format` names them or `options.model` names
//!   their model ([`Family::from_model`]), so ordinary JSON or code is never taken for a call
//!   (with tools offered, a line that is only a Python call of one is, [`offered_pythonic`]). The
//!   model hint also picks between families that share a grammar (`<tool_call>{` is ERNIE-4.5 for an
//!   ERNIE model, `<tool_calls>[` is Jamba for a Jamba model) and turns on prose reasoning forms
//!   (Granite, gpt-oss with stripped markers). When nothing is detected, the hinted family's
//!   parser still runs (it may find bare calls or wrapper tags such as Hunyuan's `<answer>`);
//! - ids are `call_<index>_<8 hex>`, except Kimi-K2's own `functions.NAME:IDX` and Mistral's
//!   9-character alphanumeric ids (its templates reject others, see [`mistral`]).
//!
//! The whole module never panics on input, is deterministic, and scans a reply without markers
//! with one `memchr2` pass for `<` and `[` ([`scan::may_hold_markers`]) before any per-family work
//! (unless a plain-text family is named). Shared readers: [`json_calls`] (JSON-bodied calls),
//! [`pyliteral`] (Python literals), [`xml_invoke`] (MiniMax-M2 / Step-3 / DSML / MiniCPM5 invokes), [`typing`] (values).

#[cfg(test)]
mod agree;
pub mod apertus;
pub mod attr_tool_call;
pub mod bare_json;
pub mod bracket_calls;
pub mod bracket_colon;
pub(crate) mod byte_positions;
pub(crate) mod call_in_sentence;
pub mod canonical;
#[cfg(test)]
pub(crate) mod cases;
pub mod cdata;
#[cfg(test)]
mod code_sweep;
pub mod command_r;
pub mod deepseek_v3;
pub mod deepseek_v31;
pub mod deepseek_v32;
pub mod doubao;
pub mod dsml;
pub mod dsml_function;
pub mod dsml_garbled_opener;
pub mod dsml_lost_head;
pub mod dsml_named;
pub mod dsml_reopened;
pub mod dsml_self_closing;
pub mod dsml_toolcall;
pub mod dsml_values;
pub mod ernie45;
pub(crate) mod example_lead;
pub mod family;
pub mod functionary;
pub mod functiongemma;
pub mod functiongemma_chain;
pub(crate) mod garbage;
pub mod gemma4;
pub(crate) mod gemma_channel;
pub mod gemma_unused;
pub mod gigachat3;
pub mod glm45;
pub mod glm4_line;
pub mod gpt_oss;
pub mod granite;
pub mod granite_20b_fc;
pub mod hermes;
pub mod hunyuan_a13b;
pub(crate) mod indented_code;
pub mod internlm2;
pub mod invented_turn;
pub mod jamba;
pub mod json;
pub mod json_calls;
pub mod kimi_k2;
pub mod kimi_k3;
pub(crate) mod kimi_think;
pub mod late_think;
#[cfg(test)]
pub(crate) mod linearity;
pub mod llama3_json;
pub mod llama4_pythonic;
pub mod longcat;
pub mod minicpm5;
pub mod minimax_m1;
pub mod minimax_m2;
pub mod minimax_m3;
pub mod mistral;
pub mod named_json;
pub mod named_tool_call;
pub mod nemotron_v2;
pub mod offered_pythonic;
pub mod olmo3;
pub mod orphan;
pub mod phi4_mini;
pub mod problem;
pub mod pyliteral;
pub mod pythonic;
pub mod qwen3_coder;
pub mod scan;
pub mod seed_oss;
pub(crate) mod sentence;
pub mod shadow;
pub mod step3;
pub mod stray_word;
pub mod stream;
#[cfg(test)]
mod stream_sweep;
#[cfg(test)]
mod test_util;
pub mod thinking;
pub mod tokens;
pub mod tool_code;
pub mod tool_elements;
pub mod tool_json;
pub mod tool_result;
pub(crate) mod turn_end;
pub mod typing;
pub mod units_scan;
pub mod unreadable;
pub mod xlam;
pub mod xml_invoke;

use serde_json::Value;

pub use family::{parse_family, Family, FORMATS};

/// One recovered tool call, in OpenAI's shape (`type` is always `"function"`).
///
/// Its id, name and arguments are one buffer (the arguments, then the name, then the id), read
/// through [`ToolCall::id`], [`ToolCall::name`] and [`ToolCall::arguments`]: three strings a call
/// that lived to the end of the reply were three allocations and three frees, ~14% of cleaning a
/// reply dense with calls with `malloc` and `free` (callgrind); the arguments a parser wrote are
/// kept as the buffer, the name and the generated id written after them.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolCall {
    text: String,
    /// Where the name starts in `text` (the arguments end).
    name_at: usize,
    /// Where the id starts in `text` (the name ends).
    id_at: usize,
}

impl ToolCall {
    /// A call of these parts (read back by [`ToolCall::id`], [`ToolCall::name`] and
    /// [`ToolCall::arguments`]).
    pub fn new(id: &str, name: &str, arguments: &str) -> ToolCall {
        let mut text = String::with_capacity(id.len() + name.len() + arguments.len());
        text.push_str(arguments);
        ToolCall::after_arguments(text, name, id.len(), |t| t.push_str(id))
    }

    /// The call whose arguments are `arguments` (kept as the buffer), named `name`, its id (of
    /// `id_len` bytes) written by `id` after the name. The buffer grows only when its spare room
    /// is short of the two: a `realloc` that moved it cost more than the allocations it saved
    /// ([`typed_arguments`](typing::typed_arguments) leaves that room).
    fn after_arguments(
        mut text: String,
        name: &str,
        id_len: usize,
        id: impl FnOnce(&mut String),
    ) -> ToolCall {
        let name_at = text.len();
        text.reserve(name.len() + id_len);
        text.push_str(name);
        let id_at = text.len();
        id(&mut text);
        ToolCall {
            text,
            name_at,
            id_at,
        }
    }

    /// The id a call gets: the model's own when it gave one, else generated from its place `index`
    /// in the reply, its name and its arguments ([`call_id`], or [`mistral::call_id`] for
    /// Mistral's 9-character ids).
    pub(crate) fn of_raw(c: RawCall, index: usize, mistral: bool) -> ToolCall {
        let RawCall {
            name,
            arguments,
            id,
        } = c;
        match id {
            Some(id) => ToolCall::after_arguments(arguments, &name, id.len(), |t| t.push_str(&id)),
            None if mistral => {
                let id = mistral::call_id(index, &name, &arguments);
                ToolCall::after_arguments(arguments, &name, id.len(), |t| t.push_str(&id))
            }
            None => {
                let h = call_hash(&name, &arguments);
                let len = CALL_ID_LEN + decimal_len(index);
                ToolCall::after_arguments(arguments, &name, len, |t| push_call_id(t, index, h))
            }
        }
    }

    /// `call_<index>_<8 hex>`, the model's own id (Kimi-K2's `functions.NAME:IDX`), or 9 letters
    /// and digits for Mistral.
    pub fn id(&self) -> &str {
        self.text.get(self.id_at..).unwrap_or("")
    }

    pub fn name(&self) -> &str {
        self.text.get(self.name_at..self.id_at).unwrap_or("")
    }

    /// JSON text; the raw text the model wrote when it is not valid JSON (see `problems`).
    pub fn arguments(&self) -> &str {
        self.text.get(..self.name_at).unwrap_or("")
    }
}

impl ToolCall {
    /// Whether the id, the name and the arguments are all ASCII (one test of the buffer).
    pub(crate) fn is_ascii(&self) -> bool {
        self.text.is_ascii()
    }
}

impl std::fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall")
            .field("id", &self.id())
            .field("name", &self.name())
            .field("arguments", &self.arguments())
            .finish()
    }
}

/// The result of [`clean_response`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cleaned {
    /// The text to show the user.
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    /// Reasoning text (only filled in [`Mode::Extract`] for thinking).
    pub reasoning: String,
    /// The tool-call format found (or forced), e.g. `"hermes"`, `"glm47"`; `None` when none.
    pub format: Option<&'static str>,
    /// What could not be cleaned as expected: truncated calls, malformed JSON arguments, …
    pub problems: Vec<String>,
}

/// What to do with tool-call markup or with reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Take it out of `content` into its own field.
    #[default]
    Extract,
    /// Take it out of `content` and drop it.
    Strip,
    /// Leave `content` as it is.
    Keep,
}

/// Options of [`clean_response`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `None` or `"auto"`: detect from unambiguous markers; otherwise one of [`FORMATS`].
    pub format: Option<String>,
    /// `"provider/model-id"`; informs `auto` (see [`Family::from_model`]).
    pub model: Option<String>,
    /// The OpenAI `tools` array; types argument values of the XML-ish formats (see [`typing`]).
    pub tools: Option<Value>,
    pub tool_calls: Mode,
    pub thinking: Mode,
    /// Whether the prompt left the reply inside reasoning (the chat template ended it with
    /// `<think>`): `Some(true)` reads the reply as reasoning up to the first closing tag and
    /// holds nothing back; `Some(false)` never reads a lone closing tag as the end of reasoning;
    /// `None` follows the model's template ([`thinking::r1_hint`]) and, when neither `model` nor
    /// `format` is given, takes a closing tag alone on its line within the first
    /// [`stream::START_REGION`] bytes as the end of reasoning begun in the prompt.
    pub reasoning_open: Option<bool>,
    /// The calls the API already returned as structured `tool_calls`: their textual duplicates
    /// are removed from `content` and not returned again ([`shadow`]).
    pub structured_calls: shadow::Shadows,
    /// Read markup inside code like any other text, as the cleaner did before it tracked code
    /// spans and fences. Only for measuring what that tracking costs (`benchmark/code-spans.mjs`
    /// passes `markupInCode` to the native call); the JS options table does not offer it.
    pub markup_in_code: bool,
    /// `tools`' names indexed on first use, so a reply whose `{` name no offered tool is answered
    /// without the full pass ([`bare_json::OfferedNames`]; rebuilt if `tools` changes).
    pub offered: bare_json::OfferedNames,
}

/// A call as a family parser reads it, before ids are assigned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCall {
    pub name: String,
    pub arguments: String,
    /// The model's own id (Kimi-K2 only).
    pub id: Option<String>,
}

/// A run of call markup found by a family parser, as a byte range of the text it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub calls: Vec<RawCall>,
    /// Nothing could be recovered from it: its raw text goes to `problems` ([`unreadable`]).
    pub keep_raw: bool,
}

impl Block {
    /// The block of call markup at `start..end`. When no call could be read from it, `problem` is
    /// reported (with the raw text, see [`unreadable`]).
    pub fn of_calls(
        start: usize,
        end: usize,
        calls: Vec<RawCall>,
        problems: &mut Vec<String>,
        problem: impl FnOnce() -> String,
    ) -> Block {
        if calls.is_empty() {
            problems.push(problem());
        }
        Block {
            start,
            end,
            keep_raw: calls.is_empty(),
            calls,
        }
    }
}

/// What a family parser returns for one piece of visible text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub blocks: Vec<Block>,
    pub problems: Vec<String>,
    /// The precise format name seen (e.g. `glm45` vs `glm47`), from the first call.
    pub format: Option<&'static str>,
}

impl Parsed {
    /// One block `len` bytes long holding `calls` (a piece read whole as one call block): its
    /// markup is removed even when `calls` is empty.
    pub fn whole(len: usize, calls: Vec<RawCall>) -> Self {
        Parsed {
            blocks: vec![Block {
                start: 0,
                end: len,
                calls,
                keep_raw: false,
            }],
            ..Parsed::default()
        }
    }

    /// Add a markup-only block (removed from `content`, no call) for each occurrence of `tags`
    /// outside the blocks already found: wrappers such as Hunyuan's `<answer>`, ERNIE's
    /// `<response>`, Llama's `<|eom_id|>`. A tag is looked for only where it could start outside
    /// every block, not through the blocks' own text (a call block read alone is then one short
    /// search); no tag may overlap itself (`abab` would: the same hits either way for the rest).
    pub fn strip_markup(&mut self, text: &str, tags: &[&str]) {
        // Most parsers return their blocks in order (a call block read alone is one block).
        if !self.blocks.is_sorted_by_key(|b| b.start) {
            self.blocks.sort_by_key(|b| b.start);
        }
        let mut extra = Vec::new();
        for tag in tags {
            debug_assert!(
                (1..tag.len()).all(|k| !tag.is_char_boundary(k) || !tag.ends_with(&tag[..k])),
                "{tag:?} overlaps itself"
            );
            // Outside every block: `[lo.max(far), hi)` between consecutive block starts, `far`
            // the largest block end so far (blocks may overlap until `normalize`).
            let ceil = |i: usize| {
                (i.min(text.len())..=text.len())
                    .find(|&j| text.is_char_boundary(j))
                    .unwrap_or(text.len())
            };
            let (mut lo, mut far, mut at) = (0, 0, 0);
            for k in 0..=self.blocks.len() {
                let hi = self.blocks.get(k).map_or(text.len(), |b| b.start);
                let from_at = lo.max(far).max(at);
                // A gap shorter than the tag holds no hit (a block read alone, its stream
                // machine's one byte after it): no search set up for it.
                if from_at >= hi
                    || text.len().min(hi + tag.len()).saturating_sub(from_at) < tag.len()
                {
                    if let Some(b) = self.blocks.get(k) {
                        lo = b.start;
                        far = far.max(b.end);
                    }
                    continue;
                }
                let lim = ceil(hi + tag.len());
                let mut from = ceil(from_at);
                while from < hi {
                    match scan::find_from(&text[..lim], tag, from).filter(|&i| i < hi) {
                        Some(i) => {
                            at = i + tag.len();
                            extra.push(Block {
                                start: i,
                                end: at,
                                calls: Vec::new(),
                                keep_raw: false,
                            });
                            from = at;
                        }
                        None => break,
                    }
                }
                if let Some(b) = self.blocks.get(k) {
                    lo = b.start;
                    far = far.max(b.end);
                }
            }
        }
        if !extra.is_empty() {
            self.blocks.append(&mut extra);
            self.blocks.sort_by_key(|b| b.start);
        }
    }

    /// Sort the blocks, clamp them to `len`, and drop (and report) any that overlaps an earlier one.
    pub fn normalize(&mut self, len: usize) {
        self.blocks.sort_by_key(|b| (b.start, b.end));
        let mut end = 0;
        let mut dropped = 0;
        self.blocks.retain_mut(|b| {
            b.end = b.end.min(len);
            if b.start < end || b.start > b.end {
                dropped += 1;
                return false;
            }
            end = b.end;
            true
        });
        if dropped > 0 {
            self.problems.push(format!(
                "{dropped} call block(s) overlapped an earlier one and were ignored"
            ));
        }
    }

    /// The byte ranges of `text` (of length `len`) outside every block, in order.
    pub fn gaps(&self, len: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        for b in &self.blocks {
            if b.start > at {
                out.push((at, b.start));
            }
            at = at.max(b.end);
        }
        if at < len {
            out.push((at, len));
        }
        out
    }

    /// Set the format to `name` when a call was read.
    pub fn set_format_if_calls(&mut self, name: &'static str) {
        if self.format.is_none() && self.blocks.iter().any(|b| !b.calls.is_empty()) {
            self.format = Some(name);
        }
    }

    /// `(name, arguments)` of every call, in order (tests).
    #[cfg(test)]
    pub fn call_pairs(&self) -> Vec<(String, String)> {
        self.blocks
            .iter()
            .flat_map(|b| {
                b.calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
            })
            .collect()
    }
}

/// What every family parser sees besides the text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx<'a> {
    pub tools: Option<&'a Value>,
    /// Allow a family's unwrapped form (Qwen3-Coder `<function=` without `<tool_call>`).
    pub unwrapped: bool,
}

/// Clean a whole reply. Never panics; the same input always gives the same output. This is the
/// stream machine ([`stream`]) fed the whole reply in one piece, so a [`stream::StreamCleaner`]
/// gives the same result for any chunking of the reply.
pub fn clean_response(content: &str, opts: &Options) -> Cleaned {
    let r1 = thinking::r1_hint(opts.format.as_deref(), opts.model.as_deref());
    clean_response_r1(content, opts, r1)
}

/// What [`clean_response`] returns, its content aside (empty), for a reply that holds no marker
/// byte ([`scan::may_hold_markers`] false), when the options let that be decided without reading
/// it: every special-token marker holds `<` or `[` (or is `◁think▷`); only the families read from
/// plain JSON, Python or prose, and a reply that starts inside reasoning, need the full pass.
/// `has_brace`: the reply holds a `{` or `(` and may name an offered tool ([`braced_call`]). `None` when
/// the reply must be read. (The addon asks this before transcoding the JS string.)
pub fn unmarked(opts: &Options, has_brace: bool) -> Option<Cleaned> {
    let hint = match opts.format.as_deref() {
        None | Some("auto") | Some("") => opts.model.as_deref().and_then(Family::from_model),
        Some(name) => Family::from_format(name),
    };
    // With tools, a bare JSON call (`{`) may name one of them (see [`tool_json`]).
    if hint.is_some_and(Family::reads_plain_text)
        || opts.reasoning_open == Some(true)
        || (has_brace && tool_json::offers_tools(opts.tools.as_ref()))
    {
        return None;
    }
    let mut out = Cleaned::default();
    if let Some(name) = opts.format.as_deref() {
        if !matches!(name, "auto" | "") && Family::from_format(name).is_none() {
            out.problems.push(unsupported(name));
        }
    }
    Some(out)
}

/// Whether a reply without markers may hold a call the offered tools make readable: a `{` or a
/// `(` (every such call has one: JSON arguments, or a pythonic line, [`offered_pythonic`]) and a
/// name that may be an offered tool's ([`bare_json::OfferedNames`]).
pub(crate) fn braced_call(opts: &Options, content: &str) -> bool {
    opts.tools.is_some()
        && content.contains(['{', '('])
        && opts.offered.may_name(opts.tools.as_ref(), content)
}

/// [`braced_call`] on a reply's UTF-16 units (the addon asks before transcoding), `brace`: a `{`
/// was seen ([`scan::units_scan`]).
pub fn braced_call_units(opts: &Options, units: &[u16], brace: bool) -> bool {
    opts.tools.is_some()
        && (brace || units.contains(&u16::from(b'(')))
        && opts.offered.may_name_units(opts.tools.as_ref(), units)
}

/// [`clean_response`] with the reading of a lone closing reasoning tag given (`r1`: R1-style)
/// rather than taken from the format and model; the seed API (`sanitizeThinkingTags`) reads it
/// R1-style whatever the model, as the seed did.
pub(crate) fn clean_response_r1(content: &str, opts: &Options, r1: bool) -> Cleaned {
    clean_whole(content, opts, r1, false).0
}

/// [`clean_response`], with the byte ranges of `content` that spell the cleaned content
/// ([`stream::Spans`]): the tests check them against the content, which the addon does not
/// write ([`clean_response_owned`]) but hands JavaScript as slices of the caller's own string.
/// `None` only when the machine gave no answer (never in practice).
#[cfg(test)]
pub(crate) fn clean_response_spans(
    content: &str,
    opts: &Options,
) -> (Cleaned, Option<stream::Spans>) {
    let r1 = thinking::r1_hint(opts.format.as_deref(), opts.model.as_deref());
    clean_whole(content, opts, r1, true)
}

fn clean_whole(
    content: &str,
    opts: &Options,
    r1: bool,
    spans: bool,
) -> (Cleaned, Option<stream::Spans>) {
    if !scan::may_hold_markers(content) {
        if let Some(out) = unmarked(opts, braced_call(opts, content)) {
            let whole = spans.then(|| stream::Spans(vec![(0, content.len())]));
            let out = Cleaned {
                content: content.to_owned(),
                ..out
            };
            return (out, whole);
        }
    }
    let tools = opts.tools.as_ref();
    let mut m = stream::Machine::with_r1(opts, r1);
    if spans {
        m.keep_spans();
    }
    let first = m.push(content, tools);
    finish_whole(&mut m, first, tools)
}

/// [`clean_response_spans`] as the addon runs it: the reply handed over, not copied into the
/// machine, and given back (third); the content not written (left empty): the spans, always
/// given, say what it is, and the addon hands JavaScript slices of its own string
/// ([`crate::utf16_pieces::kept_plan`]). A 50 KB reply was copied in, its content copied out,
/// checked against the spans and dropped.
pub(crate) fn clean_response_owned(
    content: String,
    opts: &Options,
) -> (Cleaned, Option<stream::Spans>, String) {
    if !scan::may_hold_markers(&content) {
        if let Some(out) = unmarked(opts, braced_call(opts, &content)) {
            let whole = stream::Spans(vec![(0, content.len())]);
            return (out, Some(whole), content);
        }
    }
    let r1 = thinking::r1_hint(opts.format.as_deref(), opts.model.as_deref());
    let tools = opts.tools.as_ref();
    let mut m = stream::Machine::with_r1(opts, r1);
    m.keep_spans_only();
    let first = m.push_owned(content, tools);
    let (out, spans) = finish_whole(&mut m, first, tools);
    (out, spans, m.take_text())
}

/// The end of [`clean_whole`]: the machine finished, its two outputs joined.
fn finish_whole(
    m: &mut stream::Machine,
    first: Result<stream::StreamChunk, &'static str>,
    tools: Option<&Value>,
) -> (Cleaned, Option<stream::Spans>) {
    let (first, end) = match (first, m.finish(tools)) {
        (Ok(first), Ok(end)) => (first, end),
        // A fresh machine is never finished; kept total rather than unwrapped.
        _ => return (Cleaned::default(), None),
    };
    let mut out = Cleaned {
        content: first.content,
        tool_calls: first.tool_calls,
        reasoning: first.reasoning,
        format: end.format,
        problems: end.problems,
    };
    out.content.push_str(&end.chunk.content);
    out.reasoning.push_str(&end.chunk.reasoning);
    out.tool_calls.extend(end.chunk.tool_calls);
    (out, m.take_spans())
}

fn unsupported(name: &str) -> String {
    format!("format {name:?} is not supported; tool calls left as text")
}

/// FNV-1a over name, a NUL and the arguments (the hash behind every generated id).
/// Three plain folds, not one chained iterator: the chain's per-byte checks made this a few per
/// cent of a reply dense with calls (callgrind).
pub fn call_hash(name: &str, arguments: &str) -> u64 {
    let step = |h: u64, b: &u8| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
    let h = name.as_bytes().iter().fold(0xcbf2_9ce4_8422_2325, step);
    arguments.as_bytes().iter().fold(step(h, &0), step)
}

/// `call_<index>_<8 hex>`: FNV-1a over name, a NUL and the arguments, folded to 32 bits.
pub fn call_id(index: usize, name: &str, arguments: &str) -> String {
    let mut out = String::with_capacity(24);
    push_call_id(&mut out, index, call_hash(name, arguments));
    out
}

/// Length of a generated id (`call_<index>_<8 hex>`) but its index's digits.
pub(crate) const CALL_ID_LEN: usize = "call__".len() + 8;

/// How many decimal digits `n` has.
fn decimal_len(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// [`call_id`] of a call whose [`call_hash`] is `h`, written at the end of `out`.
fn push_call_id(out: &mut String, index: usize, h: u64) {
    let h = (h ^ (h >> 32)) as u32;
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut i = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    // Written byte by byte: `format!` was a few per cent of a reply dense with calls (perf), and
    // a copy of a few bytes whose count is not known at compile time is a call to `memmove`.
    out.reserve(5 + digits.len() - at + 9);
    out.push_str("call_");
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
    out.push('_');
    for k in (0..8).rev() {
        out.push(char::from(
            b"0123456789abcdef"[((h >> (4 * k)) & 0xF) as usize],
        ));
    }
}

/// Shared by the JSON-bodied families: parse a call's arguments text into canonical JSON text
/// (key order and non-ASCII kept). Invalid JSON is returned as written, with a problem message.
pub fn normalize_json_args(raw: &str, family: &str, problems: &mut Vec<String>) -> String {
    let raw = raw.trim();
    if raw.is_empty() {
        return "{}".to_owned();
    }
    if let Some(text) = canonical::object(raw) {
        return text;
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => args_value_to_text(v, family, problems),
        Err(e) => {
            problems.push(format!(
                "{family}: arguments are not valid JSON ({e}); kept as a string"
            ));
            raw.to_owned()
        }
    }
}

/// Canonical text of an already-parsed arguments value: an object as is, `null` as `{}`, a string
/// that holds a JSON object as that object; anything else is kept and reported.
pub fn args_value_to_text(v: Value, family: &str, problems: &mut Vec<String>) -> String {
    match v {
        Value::Object(_) => v.to_string(),
        Value::Null => "{}".to_owned(),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(inner @ Value::Object(_)) => inner.to_string(),
            _ => {
                problems.push(format!(
                    "{family}: arguments are a string, not a JSON object; kept as written"
                ));
                s
            }
        },
        other => {
            problems.push(format!("{family}: arguments are not a JSON object"));
            other.to_string()
        }
    }
}

#[cfg(test)]
mod tests;
