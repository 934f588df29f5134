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
//!   its arguments can be read (reported in `problems`); a block that yields no call keeps its raw
//!   text in `content` in [`Mode::Extract`] (reported), and is removed in [`Mode::Strip`];
//! - malformed JSON arguments are kept as the raw string and reported, never dropped.
//!
//! The whole module never panics on input, is deterministic, and scans a reply without markers
//! with one `memchr`-style pass for `<` ([`scan`]) before any per-family work.

pub mod deepseek_v3;
pub mod deepseek_v31;
pub mod glm45;
pub mod hermes;
pub mod json;
pub mod kimi_k2;
pub mod minimax_m2;
pub mod qwen3_coder;
pub mod scan;
pub mod thinking;
pub mod typing;

use serde_json::Value;

/// One recovered tool call, in OpenAI's shape (`type` is always `"function"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Deterministic: `call_<index>_<8 hex of a hash of name and arguments>`, or the model's own id
    /// for Kimi-K2 (`functions.NAME:IDX`).
    pub id: String,
    pub name: String,
    /// JSON text; the raw text the model wrote when it is not valid JSON (see `problems`).
    pub arguments: String,
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
    /// `"provider/model-id"`; informs `auto` (e.g. Qwen3-Coder's unwrapped `<function=` form).
    pub model: Option<String>,
    /// The OpenAI `tools` array; types argument values of the XML-ish formats (see [`typing`]).
    pub tools: Option<Value>,
    pub tool_calls: Mode,
    pub thinking: Mode,
}

/// The format names this module implements.
pub const FORMATS: &[&str] = &[
    "hermes",
    "qwen3_coder",
    "glm45",
    "glm47",
    "minimax_m2",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
];

/// A tool-call family: the unit of detection and parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Hermes,
    Qwen3Coder,
    /// GLM-4.5 and GLM-4.7 share one tolerant parser.
    Glm,
    MinimaxM2,
    /// DeepSeek V3 and V3.1 share the outer tokens; each call's shape decides.
    DeepSeek,
    KimiK2,
}

impl Family {
    /// The family of a format name (`None` for an unknown or unimplemented name).
    pub fn from_format(name: &str) -> Option<Family> {
        Some(match name {
            "hermes" => Family::Hermes,
            "qwen3_coder" => Family::Qwen3Coder,
            "glm45" | "glm47" => Family::Glm,
            "minimax_m2" => Family::MinimaxM2,
            "deepseek_v3" | "deepseek_v31" => Family::DeepSeek,
            "kimi_k2" => Family::KimiK2,
            _ => return None,
        })
    }
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
    /// In [`Mode::Extract`], keep the raw text in `content` (nothing could be recovered from it).
    pub keep_raw: bool,
}

impl Block {
    /// The block of call markup at `start..end`. When no call could be read from it, its raw text
    /// stays in `content` (in [`Mode::Extract`]) and `problem` is reported.
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

/// Run one family's parser on a piece of visible (non-reasoning) text.
pub fn parse_family(family: Family, text: &str, cx: &Ctx) -> Parsed {
    match family {
        Family::Hermes => hermes::parse(text, cx),
        Family::Qwen3Coder => qwen3_coder::parse(text, cx),
        Family::Glm => glm45::parse(text, cx),
        Family::MinimaxM2 => minimax_m2::parse(text, cx),
        Family::DeepSeek => deepseek_v3::parse(text, cx),
        Family::KimiK2 => kimi_k2::parse(text, cx),
    }
}

/// Clean a whole reply. Never panics; the same input always gives the same output.
pub fn clean_response(content: &str, opts: &Options) -> Cleaned {
    let mut out = Cleaned::default();
    // Prefilter: every marker this module knows starts with `<`.
    if !content.contains('<') {
        out.content = content.to_owned();
        return out;
    }
    let thinks = thinking::find_blocks(content);
    // Visible pieces between reasoning blocks.
    let mut pieces: Vec<(usize, usize)> = Vec::with_capacity(thinks.len() + 1);
    let mut at = 0;
    for t in &thinks {
        pieces.push((at, t.outer.start));
        at = t.outer.end;
    }
    pieces.push((at, content.len()));

    let model = opts.model.as_deref().unwrap_or("").to_ascii_lowercase();
    let cx = Ctx {
        tools: opts.tools.as_ref(),
        unwrapped: model.contains("qwen") && model.contains("coder"),
    };
    let family = match opts.format.as_deref() {
        _ if opts.tool_calls == Mode::Keep => None,
        None | Some("auto") | Some("") => pieces
            .iter()
            .find_map(|&(s, e)| scan::detect(&content[s..e], cx.unwrapped)),
        Some(name) => {
            let f = Family::from_format(name);
            if f.is_none() {
                out.problems.push(format!(
                    "format {name:?} is not supported; tool calls left as text"
                ));
            }
            f
        }
    };
    let parsed: Vec<Parsed> = match family {
        Some(f) => pieces
            .iter()
            .map(|&(s, e)| parse_family(f, &content[s..e], &cx))
            .collect(),
        None => Vec::new(),
    };

    let mut removed = false;
    let mut raw_calls = Vec::new();
    let mut reasoning: Vec<&str> = Vec::new();
    for (i, &(s, e)) in pieces.iter().enumerate() {
        let piece = &content[s..e];
        let mut at = 0;
        if let Some(p) = parsed.get(i) {
            if out.format.is_none() {
                out.format = p.format;
            }
            out.problems.extend(p.problems.iter().cloned());
            for b in &p.blocks {
                raw_calls.extend(b.calls.iter().cloned());
                if opts.tool_calls == Mode::Extract && b.keep_raw {
                    continue;
                }
                out.content.push_str(&piece[at..b.start]);
                let kept = out.content.trim_end().len();
                out.content.truncate(kept);
                at = b.end;
                removed = true;
            }
        }
        out.content.push_str(&piece[at..]);
        if let Some(t) = thinks.get(i) {
            match opts.thinking {
                Mode::Keep => out.content.push_str(&content[t.outer.clone()]),
                mode => {
                    let inner = content[t.inner.clone()].trim();
                    if mode == Mode::Extract && !inner.is_empty() {
                        reasoning.push(inner);
                    }
                    removed = true;
                    let kept = out.content.trim_end().len();
                    out.content.truncate(kept);
                    if !t.closed {
                        out.problems.push(
                            "thinking: <think> is never closed; the rest is reasoning".into(),
                        );
                    }
                }
            }
        }
    }
    out.reasoning = reasoning.join("\n\n");
    if removed {
        let trimmed = out.content.trim();
        if trimmed.len() != out.content.len() {
            out.content = trimmed.to_owned();
        }
    }
    if opts.tool_calls == Mode::Extract {
        out.tool_calls = raw_calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.unwrap_or_else(|| call_id(i, &c.name, &c.arguments)),
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
    }
    out
}

/// `call_<index>_<8 hex>`: FNV-1a over name, a NUL and the arguments, folded to 32 bits.
pub fn call_id(index: usize, name: &str, arguments: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes().chain([0u8]).chain(arguments.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("call_{index}_{:08x}", (h ^ (h >> 32)) as u32)
}

/// Shared by the JSON-bodied families: parse a call's arguments text into canonical JSON text
/// (key order and non-ASCII kept). Invalid JSON is returned as written, with a problem message.
pub fn normalize_json_args(raw: &str, family: &str, problems: &mut Vec<String>) -> String {
    let raw = raw.trim();
    if raw.is_empty() {
        return "{}".to_owned();
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
