//! Streamed response cleaning (issue #3 item 2): [`StreamCleaner`] takes a reply delta by delta
//! and gives, per delta, the visible text that is safe to show now, reasoning text, and the tool
//! calls completed by that delta. [`super::clean_response`] is this same machine fed the whole
//! reply at once, so for **any** chunking of a reply the concatenated pieces equal what
//! `clean_response` gives for the whole of it: the machine's decisions depend only on the text,
//! never on where the deltas were cut.
//!
//! How the text is cut (every cut point is a function of the text alone):
//! - **Visible text** is scanned for the bytes that begin a marker (`<`, `[`, `◁`). Text before
//!   the first byte that could begin a marker is emitted at once; a partial marker at the end of
//!   the buffer (`"<minimax:tool_c"`) is held back until it is complete or ruled out, and so are
//!   the words `functools` / `function call` that Phi-4-mini / GigaChat write before `[` / `<`.
//! - **Reasoning** (`<think>`, `<seed:think>`, `[THINK]`, `◁think▷`, `<|START_THINKING|>`, Harmony
//!   `analysis`) is streamed as it comes, holding back only what could be the start of its closing
//!   tag. Markup inside reasoning is never a call. With an R1 hint ([`thinking::r1_hint`]: the
//!   model writes reasoning without its opening tag) the reply's start is held back until the first
//!   reasoning tag (or the end) says whether it was reasoning.
//! - **A call block** starts at an opener of the family (detected as in [`scan::detect`], or
//!   forced, or hinted) and ends at the first of the family's closing tokens after which the
//!   family's parser, given the block so far plus one more character, reads every block as ending
//!   there (a block that would run on to the end of the text is not finished). Only then is the
//!   block parsed for output, once: its calls are emitted with that delta. A block whose closing
//!   token never comes ends with the reply (truncated output) or at the next reasoning tag. Each
//!   check parses the block so far; checks stop after a budget of a few passes over the block, so
//!   adversarial input stays linear. Families with no closing token (Mistral, Phi-4-mini,
//!   Granite, GigaChat, Granite-20B-FC) run to the end of the reply, and the families read from
//!   plain JSON, Python or prose (`llama3_json`, `pythonic`, `llama4_pythonic`, `xlam`, `olmo3`,
//!   and `granite` / `gpt_oss` when named, for their prose reasoning) are cleaned at `finish`.
//!
//! Whitespace rule (the same for whole replies and streams, applied by `Emitter`): whitespace
//! right before removed markup (a call block, reasoning, a stray tag) is dropped; whitespace right
//! after removed markup is dropped when nothing visible precedes it or nothing visible follows it
//! before the next removed markup or the end; all other text is kept exactly. A reply with no
//! markup comes back exactly as it is. The stream holds whitespace back until it knows which case
//! applies. Reasoning blocks are trimmed and joined by a blank line (`"\n\n"`), which the stream
//! emits at the start of the second and later non-empty blocks, so reasoning pieces concatenate
//! as they are.
//!
//! Work is linear in the reply: visible text and reasoning are scanned once (plus the length of
//! the longest marker around each delta's end), and a call block is parsed at its closing tokens.

use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;

use super::scan::{self, classify_tool_call, floor};
use super::thinking::{self, ALWAYS, GEMMA_CHANNEL, KIMI, PROSE_PAIRS};
use super::{
    mistral, parse_family, problem, Block, Ctx, Family, Mode, Options, Parsed, RawCall, ToolCall,
};
use block_scan::BlockScan;
use reply_end::cut_marker;

/// What one `push` (or the last part of `finish`) yields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamChunk {
    /// Visible text that is safe to show now.
    pub content: String,
    /// Reasoning text (pieces concatenate as they are).
    pub reasoning: String,
    /// The calls completed by this delta, in order.
    pub tool_calls: Vec<ToolCall>,
}

/// What `finish` yields: the rest, plus the format found and every problem met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamEnd {
    pub chunk: StreamChunk,
    pub format: Option<&'static str>,
    pub problems: Vec<String>,
}

/// The error of a `push` or `finish` after `finish`.
pub const FINISHED: &str =
    "the stream is finished: push() and finish() cannot be called after finish()";

/// A streaming cleaner that owns its options (the tools schema included).
#[derive(Debug)]
pub struct StreamCleaner {
    machine: Machine,
    tools: Option<Value>,
}

impl StreamCleaner {
    pub fn new(mut opts: Options) -> Self {
        let tools = opts.tools.take();
        StreamCleaner {
            machine: Machine::new(&opts),
            tools,
        }
    }

    /// Feed one delta; `Err(FINISHED)` after `finish`.
    pub fn push(&mut self, delta: &str) -> Result<StreamChunk, &'static str> {
        self.machine.push(delta, self.tools.as_ref())
    }

    /// Flush everything left; `Err(FINISHED)` when called twice.
    pub fn finish(&mut self) -> Result<StreamEnd, &'static str> {
        self.machine.finish(self.tools.as_ref())
    }
}

/// Held bytes past which an undecided candidate is asked again only after a quarter more text
/// (see `Machine::recheck`).
const RECHECK_FROM: usize = 4096;

/// Longest window read after an opener to tell what it opens (`<tool_call>` + a GLM name, …).
const WINDOW: usize = super::scan::HEAD_WINDOW;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// The literal alone names the family.
    Fam(Family),
    /// `<tool_call>`: what follows tells Hermes, Qwen3-Coder, Granite and GLM apart.
    ToolCall,
    /// `<tool_calls>`: `{` is MiniMax-M1, `[` Hunyuan/Jamba.
    ToolCalls,
    /// `<|action_start|>` then `<|plugin|>` (InternLM2).
    ActionStart,
    /// A `{` must follow (after spaces).
    Brace(Family),
    /// `[TOOL_CALLS]` followed by something that reads as calls.
    Mistral,
    /// Counts only when this marker comes somewhere later (Kimi's lone `<|tool_call_begin|>`,
    /// Qwen3-Coder's unwrapped `<function=` needing `</function>`).
    Later(&'static str, Family),
    /// A DSML section or invoke tag in any of its bar spellings ([`super::dsml`]).
    Dsml,
    /// `[NAME]` on its own line, then `{`, with `[END_TOOL_REQUEST]` somewhere later (LM Studio).
    NamedRequest,
    /// Qwen3-Coder's `<function=NAME>` without its wrapper, unambiguous by its shape
    /// ([`super::qwen3_coder::strong_head`]) and with `</function>` later.
    Function,
    /// A Qwen3-Coder call whose `<function=NAME>` the model garbled into `<name>NAME` or
    /// `<parameter=NAME>` ([`super::qwen3_coder::garbled_head`]), at a line's start, with
    /// `</function>` later.
    Garbled,
    /// A bare JSON call (or array of calls) naming an offered tool ([`super::tool_json`]); settled
    /// only once its value is complete.
    ToolJson,
    /// Mistral's call array with its `[TOOL_CALLS]` token stripped, at the start of the reply.
    MistralArray,
    /// `<function_calls>` then `<invoke name=`, with `</invoke>` later (MiniMax-M2's grammar), or
    /// it (or `<tool_use>`) then a bare JSON call of an offered tool.
    InvokeWrapper,
    /// Hermes' `[Calling tool: NAME]` head with MiniMax's parameter lines after it
    /// ([`super::minimax_m2::calling_head`]).
    CallingTool,
    /// A MiniMax-M3 namespace token before a tag, with `</tool_call>` later: a fragment whose
    /// head was lost ([`super::minimax_m3`]).
    M3Fragment,
    /// `<function>` then `<name>NAME</name>`, with a DSML invoke closer later
    /// ([`super::dsml_function`]).
    DsmlFunction,
    /// `[tool_call: NAME] key: value]` naming an offered tool (`true`: with the stray `[` before
    /// it), settled whole ([`super::bracket_colon`]).
    Colon(bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ThinkOpen(usize),
    ThinkClose(usize),
    Call(Check),
    /// A call wrapper's closing tag outside any block ([`super::orphan`]).
    Orphan,
    /// A marker of the `<final>` answer wrapper; `true`: its closer ([`final_tag`]).
    Final(bool),
    /// A lone `<parameter name="…">` line around text, with no call around it, and its
    /// `</parameter>` line ([`super::xml_invoke::lone_param_tag`]).
    WrapOpen,
    WrapClose,
    /// A call's opener with nothing of a call after it, or a GLM argument pair outside every
    /// call ([`super::orphan`]): removed and reported.
    Lone,
    /// The reply ends inside the call this opener starts ([`cut_body`]): removed to the end and
    /// reported (`true`), or only the opener, a wrapper, when the call in it is one (`false`).
    CutCall(bool),
}

/// A marker the visible-text scanner looks for: `pre` (a word before the marker byte, possibly
/// empty) then `s` (which starts with `<`, `[` or `◁`).
#[derive(Debug, Clone, Copy)]
struct Lit {
    pre: &'static str,
    s: &'static str,
    kind: Kind,
}

impl Lit {
    /// `pre` and `s` together (the markers that have a `pre`).
    fn whole(&self) -> &'static str {
        match self.pre {
            "functools" => "functools[",
            "function call" => "function call<|role_sep|>",
            "]" => "]<]minimax[>[<tool_call>",
            super::deepseek_v3::STRIPPED_TYPE => super::deepseek_v3::STRIPPED_OPEN,
            _ => self.s,
        }
    }
}

enum Decision {
    No,
    More,
    /// The reply ends inside a call marker (cut by `max_tokens` mid-token).
    Cut,
    Yes {
        start: usize,
        len: usize,
        kind: Kind,
    },
}

enum Verdict {
    No,
    More,
    Yes(Family),
}

/// The openers of a family's call blocks (and its markup-only tags).
fn openers(f: Family, unwrapped: bool) -> Vec<(&'static str, &'static str)> {
    let v: &[&str] = match f {
        Family::Hermes | Family::Glm => &["<tool_call>"],
        Family::Qwen3Coder if unwrapped => &["<tool_call>", "<function="],
        Family::Qwen3Coder => &["<tool_call>"],
        Family::SeedOss => &["<seed:tool_call>"],
        Family::Ernie45 => &["<tool_call>", "<response>", "</response>"],
        Family::Granite => &["<tool_call>", "<|tool_call|>"],
        Family::MinimaxM1 | Family::Jamba => &["<tool_calls>"],
        Family::HunyuanA13b => &["<tool_calls>", "<answer>", "</answer>"],
        Family::MinimaxM2 => &["<minimax:tool_call>", "<invoke name=", "<function_calls>"],
        Family::DeepSeek => {
            return vec![
                ("", "<｜tool▁calls▁begin｜>"),
                ("", "<｜tool▁call▁begin｜>"),
                ("", "<｜end▁of▁sentence｜>"),
                ("", super::deepseek_v3::CALLS_END),
                // A V3 call whose begin tokens the server stripped.
                (super::deepseek_v3::STRIPPED_TYPE, super::deepseek_v3::SEP),
            ];
        }
        Family::DeepSeekV32 => &[
            "<｜DSML｜function_calls>",
            "<｜DSML｜invoke",
            super::dsml_toolcall::OPEN,
        ],
        Family::KimiK2 => &[
            "<|tool_calls_section_begin|>",
            "<|tool_call_section_begin|>",
            "<|tool_call_begin|>",
            "<|reserved_token_163595|>",
            "<|reserved_token_163597|>",
        ],
        Family::GptOss => &["<|channel|>", "<|start|>"],
        Family::KimiK3 => super::kimi_k3::OPENERS,
        Family::Step3 => &[
            "<｜tool_calls_begin｜>",
            "<｜tool_call_begin｜>",
            "<steptml:invoke",
        ],
        Family::Longcat => &["<longcat_tool_call>"],
        Family::Internlm2 => &["<|action_start|>"],
        Family::Mistral => &["[TOOL_CALLS"],
        Family::Granite20bFc => &["<function_call>"],
        Family::Gemma4 => &["<|tool_call>", "<tool_call|>"],
        Family::FunctionGemma => &[super::functiongemma::OPEN],
        Family::CommandR => &["<|START_ACTION|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>"],
        // Its openers need a look ahead (`bracket_lits`).
        Family::BracketCalls => &[],
        Family::Phi4Mini => return vec![("functools", "[")],
        Family::Gigachat3 => {
            return vec![
                ("function call", "<|role_sep|>"),
                ("", super::gigachat3::GCML_OPEN),
                ("", super::gigachat3::FUNCTION_CALL),
            ]
        }
        Family::MinimaxM3 => return vec![("]", "<]minimax[>[<tool_call>"), ("", "<tool_call>")],
        Family::Apertus => &["<|tools_prefix|>"],
        Family::NemotronV2 => &["<TOOLCALL>"],
        Family::Doubao => &[super::doubao::OPEN],
        Family::FunctionaryV31 => &["<function=", "<|python_tag|>", "<|eom_id|>", "<|eot_id|>"],
        Family::Minicpm5 => &[super::minicpm5::OPEN],
        Family::NamedToolCall => &[
            super::named_tool_call::WRAP_OPEN,
            super::named_tool_call::OPEN,
        ],
        Family::AttrToolCall => &[super::attr_tool_call::OPEN],
        // Their special-token wrappers, when `auto` found one; named, they are read at `finish`
        // (see the module doc).
        Family::Pythonic => &["<|tool_call_start|>"],
        Family::Llama4Pythonic => &["<|python_start|>"],
        Family::Llama3Json
        | Family::Xlam
        | Family::Olmo3
        | Family::FunctionaryV32
        | Family::ToolJson => &[],
    };
    v.iter().map(|s| ("", *s)).collect()
}

/// The tokens after which a family's block may be finished.
fn closers(f: Family) -> &'static [&'static str] {
    match f {
        Family::Hermes | Family::Glm | Family::Granite => &["</tool_call>"],
        Family::Ernie45 => &["</tool_call>", "<response>", "</response>"],
        Family::Qwen3Coder => &["</tool_call>", "</function>"],
        Family::SeedOss => &["</seed:tool_call>"],
        Family::MinimaxM1 | Family::Jamba => &["</tool_calls>"],
        Family::HunyuanA13b => &["</tool_calls>", "<answer>", "</answer>"],
        Family::MinimaxM2 => &["</minimax:tool_call>", "</invoke>"],
        Family::DeepSeek => &[
            "<｜tool▁calls▁end｜>",
            "<｜tool▁call▁end｜>",
            "<｜end▁of▁sentence｜>",
        ],
        Family::DeepSeekV32 => super::dsml::CLOSERS,
        Family::KimiK2 => &[
            "<|tool_calls_section_end|>",
            "<|tool_call_section_end|>",
            "<|tool_call_end|>",
            "<|reserved_token_163596|>",
            "<|reserved_token_163599|>",
        ],
        Family::GptOss => &["<|call|>", "<|return|>", "<|end|>"],
        Family::KimiK3 => super::kimi_k3::CLOSERS,
        Family::Step3 => &[
            "<｜tool_calls_end｜>",
            "<｜tool_call_end｜>",
            "</steptml:invoke>",
        ],
        Family::Longcat => &["</longcat_tool_call>"],
        Family::Internlm2 => &["<|action_end|>"],
        Family::Gemma4 => &["<tool_call|>"],
        Family::FunctionGemma => super::functiongemma::CLOSES,
        Family::Pythonic => &["<|tool_call_end|>"],
        Family::BracketCalls => &["[/TOOL_CALL]", "[END_TOOL_REQUEST]"],
        Family::CommandR => &["<|END_ACTION|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>"],
        Family::Llama4Pythonic => &["<|python_end|>"],
        Family::MinimaxM3 => &["</tool_call>"],
        Family::Apertus => &["<|tools_suffix|>"],
        Family::NemotronV2 => &["</TOOLCALL>"],
        Family::Doubao => &[super::doubao::CLOSE],
        Family::Gigachat3 => &["</｜GCML｜tool_calls>"],
        Family::FunctionaryV31 => &["</function>", "<|eom_id|>", "<|eot_id|>"],
        Family::Minicpm5 => &[super::minicpm5::CLOSE],
        Family::NamedToolCall => &[
            super::named_tool_call::CLOSE,
            super::named_tool_call::WRAP_CLOSE,
        ],
        Family::AttrToolCall => &[super::attr_tool_call::CLOSE],
        _ => &[],
    }
}

/// Every marker of the families and of reasoning (openers, closers, wrapper tags and the words
/// before them), longest first: the one vocabulary a check of cleaned text uses. Leaves out the
/// one- and two-byte starts that only a look-ahead settles (a bare `[`, DSML's `<|`).
#[cfg(test)]
pub(crate) fn vocabulary() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for name in super::FORMATS {
        if let Some(f) = Family::from_format(name) {
            for (pre, s) in openers(f, true) {
                let lit = Lit {
                    pre,
                    s,
                    kind: Kind::ThinkOpen(0),
                };
                v.extend([s, lit.whole()]);
            }
            v.extend(closers(f));
        }
    }
    v.extend(bracket_lits().iter().map(|l| l.s));
    v.extend(super::dsml::CLOSERS);
    for p in ALWAYS {
        v.extend(p.opens.iter().chain(p.closes));
    }
    v.retain(|s| s.chars().count() > 2);
    v.sort_unstable();
    v.dedup();
    v.sort_by_key(|s| std::cmp::Reverse(s.len()));
    v
}

/// The openers `auto` recognises before a family is known (as [`scan::detect`] does).
fn detect_lits(hint: Option<Family>, unwrapped: bool) -> Vec<Lit> {
    let call = |s: &'static str, c: Check| Lit {
        pre: "",
        s,
        kind: Kind::Call(c),
    };
    let mut v = vec![
        call("<minimax:tool_call>", Check::Fam(Family::MinimaxM2)),
        call("<|tool_calls_section_begin|>", Check::Fam(Family::KimiK2)),
        call("<|tool_call_section_begin|>", Check::Fam(Family::KimiK2)),
        call(
            "<|tool_call_begin|>",
            Check::Later("<|tool_call_argument_begin|>", Family::KimiK2),
        ),
        call("<|reserved_token_163595|>", Check::Fam(Family::KimiK2)),
        call(
            "<|reserved_token_163597|>",
            Check::Later("<|reserved_token_163598|>", Family::KimiK2),
        ),
        call("<｜tool▁calls▁begin｜>", Check::Fam(Family::DeepSeek)),
        Lit {
            pre: super::deepseek_v3::STRIPPED_TYPE,
            s: super::deepseek_v3::SEP,
            kind: Kind::Call(Check::Fam(Family::DeepSeek)),
        },
        call("<｜tool▁call▁begin｜>", Check::Fam(Family::DeepSeek)),
        call("<seed:tool_call>", Check::Fam(Family::SeedOss)),
        call(super::doubao::OPEN, Check::Fam(Family::Doubao)),
        call("<｜tool_calls_begin｜>", Check::Fam(Family::Step3)),
        call("<｜tool_call_begin｜>", Check::Fam(Family::Step3)),
        call("<steptml:invoke", Check::Fam(Family::Step3)),
        call("<longcat_tool_call>", Check::Fam(Family::Longcat)),
        call("<|tool_call|>", Check::Fam(Family::Granite)),
        call("<|channel|>", Check::Fam(Family::GptOss)),
        call("<|start|>assistant", Check::Fam(Family::GptOss)),
        call("<|tool_call>", Check::Fam(Family::Gemma4)),
        call(
            super::functiongemma::OPEN,
            Check::Fam(Family::FunctionGemma),
        ),
        call("<|python_start|>", Check::Fam(Family::Llama4Pythonic)),
        call("<|tool_call_start|>", Check::Fam(Family::Pythonic)),
        call("<|START_ACTION|>", Check::Fam(Family::CommandR)),
        call("<|START_RESPONSE|>", Check::Fam(Family::CommandR)),
        call("<|tools_prefix|>", Check::Fam(Family::Apertus)),
        call(super::gigachat3::GCML_OPEN, Check::Fam(Family::Gigachat3)),
        call(
            super::gigachat3::FUNCTION_CALL,
            Check::Brace(Family::Gigachat3),
        ),
        call(
            "<TOOLCALL>",
            Check::Later("</TOOLCALL>", Family::NemotronV2),
        ),
        Lit {
            pre: "]",
            s: "<]minimax[>[<tool_call>",
            kind: Kind::Call(Check::Fam(Family::MinimaxM3)),
        },
        call(
            super::kimi_k3::CALL_OPEN,
            Check::Later(super::kimi_k3::CALL_CLOSE, Family::KimiK3),
        ),
        call("<tool_call>", Check::ToolCall),
        call("<tool_calls>", Check::ToolCalls),
        call("<|action_start|>", Check::ActionStart),
        call("<function_call>", Check::Brace(Family::Granite20bFc)),
        call("[TOOL_CALLS]", Check::Mistral),
        Lit {
            pre: "functools",
            s: "[",
            kind: Kind::Call(Check::Brace(Family::Phi4Mini)),
        },
        Lit {
            pre: "function call",
            s: "<|role_sep|>",
            kind: Kind::Call(Check::Fam(Family::Gigachat3)),
        },
    ];
    v.extend(dsml_lits());
    v.extend(bracket_lits());
    // Kimi K3's section and markup tokens name it (its lone call needs its closing tag later).
    for s in super::kimi_k3::OPENERS
        .iter()
        .filter(|s| **s != super::kimi_k3::CALL_OPEN)
    {
        v.push(call(s, Check::Fam(Family::KimiK3)));
    }
    // MiniMax's invoke without its wrapper (the server stripped it), or in Anthropic's.
    v.push(call(
        "<invoke name=",
        Check::Later("</invoke>", Family::MinimaxM2),
    ));
    v.extend(minimax_lits(None));
    v.push(call("<function_calls>", Check::InvokeWrapper));
    v.push(call(super::tool_json::TOOL_USE, Check::InvokeWrapper));
    v.push(call(super::tool_json::FUNCTIONCALL, Check::InvokeWrapper));
    v.push(call(super::tool_json::INVOKE, Check::InvokeWrapper));
    // Hunyuan's `<answer>` wrapper counts when a call block follows (`auto` would then detect
    // Hunyuan and strip it, as the whole-reply parse of the family does).
    for tag in ["<answer>", "</answer>"] {
        v.push(call(tag, Check::Later("<tool_calls>", Family::HunyuanA13b)));
    }
    if hint == Some(Family::Qwen3Coder) {
        v.push(call(
            "<function=",
            Check::Later("</function>", Family::Qwen3Coder),
        ));
    }
    v.push(call("<function=", Check::Function));
    v.extend(garbled_lits());
    // MiniCPM5's unwrapped element, only with the template's body after its tag.
    v.push(call(super::minicpm5::OPEN, Check::Fam(Family::Minicpm5)));
    // A call element named by its attribute, only with its JSON arguments (or nothing) after it.
    v.push(call(
        super::named_tool_call::OPEN,
        Check::Fam(Family::NamedToolCall),
    ));
    v.push(call(
        super::attr_tool_call::OPEN,
        Check::Fam(Family::AttrToolCall),
    ));
    v.extend(tool_json_lits());
    if hint == Some(Family::Mistral) {
        v.push(call("[", Check::MistralArray));
    }
    // What the hinted family's parser would take when nothing else is detected.
    if let Some(h) = hint {
        for (pre, s) in openers(h, unwrapped) {
            v.push(Lit {
                pre,
                s,
                kind: Kind::Call(Check::Fam(h)),
            });
        }
    }
    v
}

/// MiniMax's call forms whose head was lost or written otherwise, settled by a look at what
/// follows ([`Check::CallingTool`], [`Check::M3Fragment`]): for `lock` (both before a family is
/// chosen).
fn minimax_lits(lock: Option<Family>) -> Vec<Lit> {
    let mut v = Vec::new();
    if matches!(lock, None | Some(Family::MinimaxM2)) {
        v.push(Lit {
            pre: "",
            s: super::minimax_m2::CALLING,
            kind: Kind::Call(Check::CallingTool),
        });
    }
    if matches!(lock, None | Some(Family::MinimaxM3)) {
        v.push(Lit {
            pre: "]",
            s: &super::minimax_m3::NS[1..],
            kind: Kind::Call(Check::M3Fragment),
        });
    }
    v
}

/// The garbled Qwen3-Coder heads ([`Check::Garbled`]).
fn garbled_lits() -> Vec<Lit> {
    [super::qwen3_coder::NAME_TAG, "<parameter="]
        .into_iter()
        .map(|s| Lit {
            pre: "",
            s,
            kind: Kind::Call(Check::Garbled),
        })
        .collect()
}

/// The openers of a bare JSON call ([`Check::ToolJson`]).
fn tool_json_lits() -> Vec<Lit> {
    ["{", "["]
        .into_iter()
        .map(|s| Lit {
            pre: "",
            s,
            kind: Kind::Call(Check::ToolJson),
        })
        .collect()
}

/// The lone openers and GLM's argument key ([`Kind::Lone`]), settled by [`Machine::lone_at`].
fn lone_lits() -> Vec<Lit> {
    (super::orphan::LONE.iter())
        .chain([&super::glm45::KEY, &super::tool_result::OPEN])
        .map(|s| Lit {
            pre: "",
            s,
            kind: Kind::Lone,
        })
        .collect()
}

/// The orphan closing tags ([`super::orphan`]), Gemma's `<unusedNNNN>` tokens
/// ([`super::gemma_unused`]) and the starts of DSML's closers ([`super::orphan::DSML_STARTS`]),
/// the last two's length read by [`Machine::decide_at`].
fn orphan_lits() -> Vec<Lit> {
    super::orphan::CLOSERS
        .iter()
        .map(|&(c, _)| c)
        .chain([super::gemma_unused::PREFIX])
        .chain(super::orphan::DSML_STARTS.iter().copied())
        .map(|s| Lit {
            pre: "",
            s,
            kind: Kind::Orphan,
        })
        .collect()
}

/// The tags of a lone parameter wrapper ([`Kind::WrapOpen`]).
fn wrap_lits() -> Vec<Lit> {
    [
        (super::xml_invoke::PARAM_OPEN, Kind::WrapOpen),
        (super::xml_invoke::PARAM_END, Kind::WrapClose),
    ]
    .into_iter()
    .map(|(s, kind)| Lit { pre: "", s, kind })
    .collect()
}

/// The DSML openers in every bar spelling: `<` and the first character of the head, settled by
/// [`Check::Dsml`].
fn dsml_lits() -> Vec<Lit> {
    let mut v: Vec<Lit> = super::dsml::STARTS
        .iter()
        .map(|&s| Lit {
            pre: "",
            s,
            kind: Kind::Call(Check::Dsml),
        })
        .collect();
    v.push(Lit {
        pre: "",
        s: super::dsml_function::OPEN,
        kind: Kind::Call(Check::DsmlFunction),
    });
    v
}

/// The openers of [`Family::BracketCalls`], each counted only when its closing word follows.
fn bracket_lits() -> Vec<Lit> {
    let call = |s: &'static str, c: Check| Lit {
        pre: "",
        s,
        kind: Kind::Call(c),
    };
    vec![
        call(
            "[TOOL_CALL]",
            Check::Later("[/TOOL_CALL]", Family::BracketCalls),
        ),
        call(
            "[TOOL_REQUEST]",
            Check::Later("[END_TOOL_REQUEST]", Family::BracketCalls),
        ),
        call("[", Check::NamedRequest),
        call(super::bracket_colon::OPEN2, Check::Colon(true)),
        call(super::bracket_colon::OPEN, Check::Colon(false)),
    ]
}

/// The reasoning markers: every opening tag, and the closing tags of R1-style pairs.
fn think_lits() -> Vec<Lit> {
    let mut v = Vec::new();
    for (i, p) in ALWAYS.iter().enumerate() {
        for s in p.opens {
            v.push(Lit {
                pre: "",
                s,
                kind: Kind::ThinkOpen(i),
            });
        }
    }
    for (i, p) in ALWAYS.iter().enumerate().filter(|(_, p)| p.r1) {
        for s in p.closes {
            v.push(Lit {
                pre: "",
                s,
                kind: Kind::ThinkClose(i),
            });
        }
    }
    v
}

/// [`next_cand`] inside a call block, where only closers and reasoning markers are looked for:
/// none of those starts with `0xE2` unless `◁` follows (`0xE2 0x97`), so the other `0xE2` bytes
/// (the `▁` of every DeepSeek token, `‖`, typographic quotes) are passed over here rather than
/// each asked about (`block_markers_after_e2_are_triangles` checks the premise).
///
/// The search is [`find_any`]'s inlined one, not `memchr3`: the stops inside a block are a few
/// bytes apart (a call's inner tags), where a call set up per stop cost more than the search.
fn next_block_cand(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let c = at + find_any::find_any(b.get(at..)?, &find_any::MARKER_BYTES)?;
        if b[c] == 0xE2 && b.get(c + 1).is_some_and(|&x| x != 0x97) {
            at = c + 1;
            continue;
        }
        return Some(c);
    }
}

/// Whether `rest` may start `marker` (or be cut inside its start): their first two bytes agree
/// as far as `rest` goes. A shortcut before comparing the whole marker.
fn same_start(rest: &[u8], marker: &[u8]) -> bool {
    rest.iter().zip(marker).take(2).all(|(a, b)| a == b)
}

/// The first byte at or after `from` that can begin a marker (`<`, `[`, or the lead byte of `◁`).
fn next_cand(s: &str, from: usize) -> Option<usize> {
    let b = s.as_bytes().get(from..)?;
    memchr::memchr3(b'<', b'[', 0xE2, b).map(|i| i + from)
}

use super::tool_json::offers_tools as has_tools;

/// The first non-space character within `WINDOW` bytes of `s`.
fn first_solid(s: &str) -> Option<char> {
    s[..floor(s, WINDOW)].trim_start().chars().next()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// R1 hint, no reasoning tag yet: hold everything (it may all be reasoning).
    R1Pending,
    Visible,
    /// Inside a call block of this family; `buf` starts at the block.
    Block(Family),
    /// Inside a reasoning block of this pair; `buf` starts in its body.
    Think(usize),
    /// Inside a fenced code block ([`code`]).
    Fence(code::Fence),
    /// The reply's start may be Gemma 4's stripped thought channel ([`gemma_lead`]).
    GemmaLead,
}

/// Applies the whitespace rule and collects output (see the module doc).
#[derive(Debug, Default)]
struct Emitter {
    out: StreamChunk,
    held: String,
    after_removed: bool,
    any_visible: bool,
    r_any: bool,
    r_started: bool,
    r_held: String,
    calls: usize,
    extract_calls: bool,
    extract_reasoning: bool,
    format: Option<&'static str>,
    problems: Vec<String>,
    /// A call block was met outside reasoning (read, unreadable or skipped).
    call_block_seen: bool,
    /// The last markup removed was a block with calls, and nothing visible came after it
    /// ([`invented`]).
    after_call: bool,
    /// Calls the API returned already: not returned again ([`super::shadow`]).
    shadows: super::shadow::Shadows,
    /// Where the content came from, when asked for ([`Machine::keep_spans`]).
    spans: Option<Spans>,
    /// Where `held` came from (kept only while `spans` is).
    held_spans: Spans,
    /// Only the spans are kept, the content is not written ([`Machine::keep_spans_only`]).
    content_off: bool,
    /// The last visible character written (a lone token right after a colon is named).
    last: Option<char>,
    /// A reasoning block ended (read or not): Hunyuan's `<answer>` right after it is its wrapper
    /// ([`answer_tag`]).
    reasoned: bool,
}

/// Byte ranges of the reply, in order, that spell a text (adjacent ranges merged): the content
/// as the reply's own pieces, so the addon hands JavaScript slices of the caller's string
/// without matching the content against the reply again ([`crate::utf16_pieces`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Spans(pub(crate) Vec<(usize, usize)>);

impl Spans {
    fn push(&mut self, start: usize, end: usize) {
        if start == end {
            return;
        }
        match self.0.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => self.0.push((start, end)),
        }
    }

    /// Whether the ranges of `src` spell exactly `text` (the tests' check).
    #[cfg(test)]
    pub(crate) fn spell(&self, src: &str, text: &str) -> bool {
        let mut at = 0;
        for &(a, b) in &self.0 {
            let (Some(piece), Some(want)) = (
                src.as_bytes().get(a..b),
                text.as_bytes().get(at..at + (b - a)),
            ) else {
                return false;
            };
            if piece != want {
                return false;
            }
            at += b - a;
        }
        at == text.len()
    }
}

impl Emitter {
    /// Visible text `s`, which starts at byte `at` of the reply.
    fn text(&mut self, s: &str, at: usize) {
        if s.is_empty() {
            return;
        }
        let t = s.trim_start();
        let write = !self.content_off;
        if t.is_empty() {
            if write {
                self.held.push_str(s);
            }
            self.hold(at, at + s.len());
            return;
        }
        let lead = s.len() - t.len();
        if self.after_removed && !self.any_visible {
            self.held.clear();
            self.held_spans.0.clear();
        } else {
            if write {
                self.out.content.push_str(&self.held);
                self.held.clear();
                self.out.content.push_str(&s[..lead]);
            }
            if let Some(spans) = &mut self.spans {
                for &(a, b) in &self.held_spans.0 {
                    spans.push(a, b);
                }
                self.held_spans.0.clear();
                spans.push(at, at + lead);
            }
        }
        let body = t.trim_end();
        self.last = body.chars().next_back().or(self.last);
        if write {
            self.out.content.push_str(body);
            self.held.push_str(&t[body.len()..]);
        }
        let (body_end, end) = (at + lead + body.len(), at + s.len());
        if let Some(spans) = &mut self.spans {
            spans.push(at + lead, body_end);
        }
        self.hold(body_end, end);
        self.any_visible = true;
        self.after_removed = false;
        self.after_call = false;
    }

    /// No trailing whitespace is held back (its text when the content is written, else its
    /// spans, which are kept with it).
    fn held_is_empty(&self) -> bool {
        if self.content_off {
            self.held_spans.0.is_empty()
        } else {
            self.held.is_empty()
        }
    }

    /// `start..end` of the reply was added to `held`.
    fn hold(&mut self, start: usize, end: usize) {
        if self.spans.is_some() {
            self.held_spans.push(start, end);
        }
    }

    fn removed(&mut self) {
        self.held.clear();
        self.held_spans.0.clear();
        self.after_removed = true;
    }

    fn reasoning_begin(&mut self) {
        self.r_started = false;
        self.r_held.clear();
    }

    fn reasoning(&mut self, s: &str) {
        if !self.extract_reasoning {
            return;
        }
        let s = if self.r_started { s } else { s.trim_start() };
        if s.is_empty() {
            return;
        }
        let body = s.trim_end();
        if body.is_empty() {
            self.r_held.push_str(s);
            return;
        }
        if self.r_started {
            self.out.reasoning.push_str(&self.r_held);
        } else {
            if self.r_any {
                self.out.reasoning.push_str("\n\n");
            }
            self.r_started = true;
        }
        self.r_held.clear();
        self.out.reasoning.push_str(body);
        self.r_held.push_str(&s[body.len()..]);
    }

    fn reasoning_end(&mut self) {
        self.reasoned = true;
        self.r_held.clear();
        if self.r_started {
            self.r_any = true;
        }
        self.r_started = false;
    }

    fn calls(&mut self, calls: Vec<RawCall>, family: Family) {
        if !self.extract_calls {
            return;
        }
        for c in calls {
            if self.shadows.take(&c.name, &c.arguments) {
                continue;
            }
            let i = self.calls;
            self.calls += 1;
            (self.out.tool_calls).push(ToolCall::of_raw(c, i, family == Family::Mistral));
        }
    }

    /// The end of the reply: trailing whitespace stays unless markup was removed right before it.
    fn end(&mut self) {
        if !self.after_removed {
            if !self.content_off {
                self.out.content.push_str(&self.held);
            }
            if let Some(spans) = &mut self.spans {
                for &(a, b) in &self.held_spans.0 {
                    spans.push(a, b);
                }
            }
        }
        self.held.clear();
        self.held_spans.0.clear();
    }

    /// Text and blocks of one parsed piece of visible text, which starts at byte `base` of the
    /// reply.
    fn parsed(&mut self, text: &str, base: usize, p: Parsed, family: Family) {
        self.parsed_with(text, base, p, family, |em, s, at| em.text(s, at));
    }

    /// [`Emitter::parsed`] with the text between blocks given to `visible` (the emitter, the
    /// piece, where it starts in the reply).
    fn parsed_with(
        &mut self,
        text: &str,
        base: usize,
        mut p: Parsed,
        family: Family,
        mut visible: impl FnMut(&mut Emitter, &str, usize),
    ) {
        if self.format.is_none() {
            self.format = p.format;
        }
        self.call_block_seen |= p.blocks.iter().any(|b| !b.calls.is_empty() || b.keep_raw)
            || p.problems
                .iter()
                .any(|m| problem::kind(m) == "skipped-call");
        super::unreadable::report(&mut p.problems, text, &p.blocks);
        self.problems.extend(p.problems);
        let mut at = 0;
        for b in p.blocks {
            let (s, e) = block_range(&b, at, text.len());
            let called = !b.calls.is_empty();
            self.calls(b.calls, family);
            visible(self, &text[at..s], base + at);
            self.removed();
            self.after_call = called;
            at = e;
        }
        visible(self, &text[at..], base + at);
    }
}

/// A block's range clamped to `at..len` and to char boundaries (parsers return exact ranges; this
/// only keeps a mistake from panicking).
fn block_range(b: &Block, at: usize, len: usize) -> (usize, usize) {
    let s = b.start.clamp(at, len);
    let e = b.end.clamp(s, len);
    (s, e)
}

/// The markers of one configuration, indexed by their second byte.
#[derive(Debug)]
struct Table {
    lits: Vec<Lit>,
    /// Bucket `b` (markers whose second byte is `b`, in priority order) is
    /// `order[starts[b]..starts[b + 1]]`; `shorts` are the one-byte markers.
    order: Vec<u16>,
    starts: [u16; 257],
    shorts: Vec<u16>,
    /// Per marker, its first (up to) eight bytes as a little-endian word and the mask of those
    /// bytes ([`super::tokens::head`]): most candidates (`<` of HTML or of a call's inner tags, the `▁` of
    /// DeepSeek's tokens) are ruled out against a whole bucket with one compare per marker.
    heads: Vec<(u64, u64)>,
    /// `heads` in `order`'s order: a bucket's heads read in a row beside its markers (through
    /// `order` to `heads`, a bounds check and a branch a marker: ~700 instructions a call opener
    /// in the `<|` bucket of a Kimi-K2 reply, ~800 in Qwen3-Coder's `<t`; callgrind).
    order_heads: Vec<(u64, u64)>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            lits: Vec::new(),
            order: Vec::new(),
            starts: [0; 257],
            shorts: Vec::new(),
            heads: Vec::new(),
            order_heads: Vec::new(),
        }
    }
}

impl Table {
    fn new(lits: Vec<Lit>) -> Self {
        let mut t = Table {
            heads: lits
                .iter()
                .map(|l| super::tokens::head(l.s.as_bytes()))
                .collect(),
            ..Table::default()
        };
        let mut keyed: Vec<(u8, u16)> = Vec::with_capacity(lits.len());
        for (i, lit) in lits.iter().enumerate() {
            let i = u16::try_from(i).unwrap_or(u16::MAX);
            match lit.s.as_bytes().get(1) {
                Some(&b) => keyed.push((b, i)),
                None => t.shorts.push(i),
            }
        }
        keyed.sort_unstable();
        t.order = keyed.iter().map(|&(_, i)| i).collect();
        t.order_heads = (t.order.iter())
            .map(|&i| t.heads.get(usize::from(i)).copied().unwrap_or((0, 0)))
            .collect();
        let mut at = 0usize;
        for b in 0..256usize {
            t.starts[b] = u16::try_from(at).unwrap_or(u16::MAX);
            while at < keyed.len() && usize::from(keyed[at].0) == b {
                at += 1;
            }
        }
        t.starts[256] = u16::try_from(at).unwrap_or(u16::MAX);
        t.lits = lits;
        t
    }

    /// Bucket `b`: its markers and, beside them, their heads.
    #[inline]
    fn bucket(&self, b: usize) -> (&[u16], &[(u64, u64)]) {
        let (lo, hi) = (usize::from(self.starts[b]), usize::from(self.starts[b + 1]));
        (
            self.order.get(lo..hi).unwrap_or(&[]),
            self.order_heads.get(lo..hi).unwrap_or(&[]),
        )
    }
}

/// Key: `(calls on, locked family, hinted family, unwrapped)`.
type TableKey = (bool, Option<u8>, Option<u8>, bool);

/// Tables built so far (a few dozen configurations at most), so a machine costs no table build.
static TABLES: LazyLock<Mutex<Tables>> = LazyLock::new(|| Mutex::new(Vec::new()));

type Tables = Vec<(TableKey, Arc<Table>)>;

/// The table a machine starts with, before its own is looked up.
static EMPTY: LazyLock<Arc<Table>> = LazyLock::new(|| Arc::new(Table::default()));

/// How many reasoning markers lead every table.
static N_THINK: LazyLock<usize> = LazyLock::new(|| think_lits().len());

/// The unconsumed text: a string whose consumed front is dropped lazily (amortised O(1) a byte;
/// dropping it at each marker would make a reply of many markers quadratic).
#[derive(Debug, Default)]
struct Buf {
    data: String,
    head: usize,
}

impl std::ops::Deref for Buf {
    type Target = str;
    fn deref(&self) -> &str {
        self.data.get(self.head..).unwrap_or("")
    }
}

impl Buf {
    fn push_str(&mut self, s: &str) {
        if self.head > 0 && self.head >= self.data.len() / 2 {
            self.data.drain(..self.head);
            self.head = 0;
        }
        self.data.push_str(s);
    }

    /// Drop the first `n` bytes (a char boundary).
    fn advance(&mut self, n: usize) {
        self.head = (self.head + n).min(self.data.len());
    }

    /// A whole reply handed over ([`Machine::push_owned`]): kept as it is, not copied.
    fn set_owned(&mut self, s: String) {
        *self = Buf { data: s, head: 0 };
    }
}

/// The cleaning machine behind [`StreamCleaner`] and [`super::clean_response`]. The tools schema
/// is passed to each call so that `clean_response` can borrow it.
#[derive(Debug)]
pub struct Machine {
    buf: Buf,
    /// Absolute offset of `buf[0]` in the reply.
    consumed: usize,
    state: State,
    /// Scan position in `buf` (its meaning depends on `state`).
    pos: usize,
    /// After a visible candidate needed more text: the length `buf` must reach before it is
    /// asked again (0: none). A check reads its candidate from the start, so asking on every
    /// delta made a long undecided stretch (spaces after `<tool_call>`, a value still arriving)
    /// quadratic in small deltas; past [`RECHECK_FROM`] held bytes it is asked again only after
    /// a quarter more, which keeps it linear (a decision comes at most that much later; below,
    /// on every delta, so a call comes as soon as its markup closes), and `finish` always asks.
    recheck: usize,
    hint: Option<Family>,
    lock: Option<Family>,
    calls_on: bool,
    unwrapped: bool,
    /// A family read from plain text: everything is cleaned at `finish`.
    batch: bool,
    /// A user-turn token on its own line was just read as the end of the reply
    /// ([`super::invented_turn`]), and then the raw text of the turn the model invented, which
    /// every later delta joins.
    turn_ends: bool,
    invented: Option<String>,
    extra: thinking::Extra,
    think_mode: Mode,
    /// The markers looked for now (shared between machines of the same configuration).
    table: Arc<Table>,
    /// The last `Later` search: `(marker, from, hit, searched up to)`, absolute positions.
    /// One per marker (a handful), so markers that alternate do not evict each other.
    memo: Vec<(&'static str, usize, Option<usize>, usize)>,
    /// Bytes parsed so far to test whether the current block is finished.
    spent: usize,
    /// Bytes read again to split blocks that ran to the reply's end at an invented result
    /// ([`Machine::split_at_invented`]), over the whole reply.
    split_spent: usize,
    /// The current block was asked about at one of its family's section closers
    /// ([`sections::ends_section`]): its section is closed ([`sections::unclosed`]).
    section_closed: bool,
    /// A DSML block not finished at its last closer, which ends at `.0`, because a section closer
    /// may follow it (a bare invoke, [`super::dsml::section_end`]); `.1`: where the whitespace
    /// after it was read up to. Text that cannot be that closer finishes it there.
    dsml_trail: Option<(usize, usize)>,
    /// A FunctionGemma block finished at a closing token, waiting to see whether a chained call
    /// follows it ([`call_chain`]): its end, where the whitespace after it was read up to, and
    /// its reading.
    chain: Option<(usize, usize, Parsed)>,
    finished: bool,
    /// An opener was asked whether the finished reply ends inside its closer
    /// ([`Machine::ends_in_closer`]): asked once, so openers that never close stay linear.
    cut_asked: bool,
    em: Emitter,
    scratch: String,
    /// Spaces since the last line break at `buf[0]` (`usize::MAX`: other text), for fences.
    col: usize,
    /// The line before `buf[0]` holds words, then spaces, and the words do not end a sentence:
    /// a closing reasoning tag here that ends its line is named in a sentence
    /// ([`thinking::named_at_line_end`]).
    spaced_words: thinking::LineTail,
    /// The end of the line before `buf[0]`, for a word introducing an example before a call
    /// opener ([`super::example_lead`]).
    example_tail: super::example_lead::LeadTail,
    /// The lines of the reply up to `indent_at` (absolute, never past the text `buf.data` still
    /// holds), for Markdown's indented code blocks ([`indented`]): read only when the buffer
    /// drops consumed text or a marker stands on an indented line, not as text goes by.
    indent: super::indented_code::Tracker,
    indent_at: usize,
    /// The same advanced over `buf` to an absolute line start, the last time one was asked
    /// ([`Machine::indented_code_line`]): asked again further on, it reads on from there.
    indent_memo: Option<(usize, super::indented_code::Tracker)>,
    /// The line of an indented code block still arriving: its absolute start, and how far it was
    /// searched for its end ([`Machine::indented_end`]).
    indent_scan: Option<(usize, usize)>,
    /// The last search for a backtick or tilde: `(from, hit, searched up to)`, absolute.
    code_memo: Option<(usize, Option<usize>, usize)>,
    /// Backtick runs indexed while looking for inline spans' closers.
    ticks: code::Ticks,
    /// A fence skipped while the start may be reasoning: `(opener, next line)`, absolute.
    r1_fence: Option<(usize, usize)>,
    /// How far a fence's last line was read ([`code::FenceTail`]).
    fence_tail: Option<code::FenceTail>,
    /// A fence's opening line not ended yet: `(where its info string starts, searched up to)`,
    /// absolute.
    info_seen: Option<(usize, usize)>,
    /// Absolute start of the current fence's body, and whether it holds markup so far.
    fence_body: usize,
    fence_markup: bool,
    /// Absolute offset in an example fence before which every candidate marker is settled as not
    /// markup ([`Machine::fence_lines`] goes on from there).
    fence_seen: usize,
    /// A marker of the current example fence waiting for its confirming word
    /// ([`fence_wait`]).
    fence_wait: Option<fence_wait::FenceWait>,
    /// The caller offered tools (a data fence then needs a call naming one).
    has_tools: bool,
    /// A reasoning opener after visible text was kept as text: its closer is text too.
    think_as_text: bool,
    /// The table holds bare-JSON openers and tools were offered: `{` is a candidate too.
    braces: bool,
    /// Stripped Harmony calls (`assistant to=functions.NAME json{…}`) can be read: no other
    /// family was found (or gpt-oss was).
    harmony: bool,
    /// Bare JSON scanning state ([`leaks`]).
    json: leaks::JsonState,
    /// [`State::R1Pending`] by the start-region rule (no hint): only a closing tag that ends
    /// its line within [`START_REGION`] bytes ends reasoning begun in the prompt.
    region: bool,
    /// Reasoning kept for the calls it may hold ([`in_reasoning`]).
    held: in_reasoning::Held,
    /// What a block's scan may pass over ([`block_scan`]), for the last family seen.
    block_scan: Option<Arc<BlockScan>>,
    /// A `<final>` opener was removed and its closer has not come ([`final_tag`]).
    final_open: bool,
    /// A marker was read (reasoning, markup): the reply no longer opens here ([`leaks`]' Kimi ids).
    marked: bool,
    /// A Hunyuan `<answer>` opener was removed and its closer has not come ([`answer_tag`]).
    answer_open: bool,
    /// Inside reasoning, `buf` starts at a `<final>` whose block's end has not come: held until
    /// the reply's end says whether it opens the answer ([`final_tag`]).
    final_in_think: bool,
    /// Where [`State::GemmaLead`] stands ([`gemma_lead`]).
    lead: gemma_lead::Lead,
    /// A lone parameter wrapper's opening line was removed: its `</parameter>` line goes too.
    wrapped: bool,
    /// At `finish`, whether the reply ends as one cut inside a MiniMax-M3 fragment does
    /// ([`Machine::m3_cut`]).
    m3_tail: Option<bool>,
}

/// How far into a reply, for a model no family names, a lone closing reasoning tag still ends
/// reasoning the prompt opened (the stream holds back at most this much of the reply's start).
pub const START_REGION: usize = 1024;

impl Machine {
    pub fn new(opts: &Options) -> Self {
        let r1 = thinking::r1_hint(opts.format.as_deref(), opts.model.as_deref());
        Self::with_r1(opts, r1)
    }

    /// A machine whose reading of a lone closing reasoning tag is given (`r1`: R1-style, the text
    /// before it is reasoning) instead of taken from the format and model
    /// ([`thinking::r1_hint`]); the seed API reads it R1-style for every model.
    pub(crate) fn with_r1(opts: &Options, r1: bool) -> Self {
        let model_hint = opts.model.as_deref().and_then(Family::from_model);
        let mut em = Emitter {
            extract_calls: opts.tool_calls == Mode::Extract,
            extract_reasoning: opts.thinking == Mode::Extract,
            shadows: opts.structured_calls.clone(),
            ..Emitter::default()
        };
        let forced = match opts.format.as_deref() {
            None | Some("auto") | Some("") => None,
            Some(name) => Some(Family::from_format(name).ok_or(name)),
        };
        if let Some(Err(name)) = forced {
            em.problems.push(super::unsupported(name));
        }
        let hint = match forced {
            Some(f) => f.ok(),
            None => model_hint,
        };
        let lock = match forced {
            Some(Ok(f)) => Some(f),
            _ => None,
        };
        let calls_on = opts.tool_calls != Mode::Keep && !matches!(forced, Some(Err(_)));
        let extra = thinking::Extra {
            granite: hint == Some(Family::Granite),
            harmony_stripped: hint == Some(Family::GptOss),
            r1: opts.reasoning_open.unwrap_or(r1),
            r1_sentence: opts.reasoning_open.is_none(),
        };
        // Where the reply starts (see `Options::reasoning_open`).
        let (start, region) = match opts.reasoning_open {
            Some(true) => (
                State::Think(thinking::pair_of(match hint {
                    Some(Family::SeedOss) => "<seed:think>",
                    Some(Family::MinimaxM3) => "<mm:think>",
                    Some(Family::Apertus) => "<|inner_prefix|>",
                    _ => thinking::OPEN,
                })),
                false,
            ),
            Some(false) => (State::Visible, false),
            None if r1 => (State::R1Pending, false),
            None if forced.is_none() && opts.model.as_deref().is_none_or(str::is_empty) => {
                (State::R1Pending, true)
            }
            None => (State::Visible, false),
        };
        if matches!(start, State::Think(_)) && opts.thinking != Mode::Keep {
            em.removed();
            em.reasoning_begin();
        }
        // Gemma 4's stripped thought channel ([`gemma_lead`]): looked for in `auto` and when the
        // format names Gemma 4; its form without the word only when Gemma 4 is named.
        let gemma = lock == Some(Family::Gemma4);
        let lead = gemma_lead::Lead::new(
            start,
            (gemma
                || opts
                    .model
                    .as_deref()
                    .is_some_and(super::gemma4::names_gemma4))
                && opts.reasoning_open != Some(false),
        );
        let start = if (forced.is_none() || gemma) && !matches!(start, State::Think(_)) {
            State::GemmaLead
        } else {
            start
        };
        let mut m = Machine {
            buf: Buf::default(),
            consumed: 0,
            state: start,
            region,
            pos: 0,
            recheck: 0,
            hint,
            lock,
            calls_on,
            unwrapped: model_hint == Some(Family::Qwen3Coder) || lock == Some(Family::Gemma4),
            batch: hint.is_some_and(Family::reads_plain_text),
            turn_ends: false,
            invented: None,
            extra,
            think_mode: opts.thinking,
            table: EMPTY.clone(),
            memo: Vec::new(),
            spent: 0,
            split_spent: 0,
            section_closed: false,
            dsml_trail: None,
            chain: None,
            finished: false,
            em,
            scratch: String::new(),
            cut_asked: false,
            col: 0,
            spaced_words: thinking::LineTail::default(),
            example_tail: super::example_lead::LeadTail::default(),
            indent: super::indented_code::Tracker::default(),
            indent_at: 0,
            indent_memo: None,
            indent_scan: None,
            code_memo: None,
            ticks: code::Ticks::new(opts.markup_in_code),
            r1_fence: None,
            fence_tail: None,
            info_seen: None,
            fence_body: 0,
            fence_markup: false,
            fence_seen: 0,
            fence_wait: None,
            has_tools: false,
            think_as_text: false,
            braces: false,
            harmony: false,
            json: leaks::JsonState::default(),
            held: in_reasoning::Held::new(opts, calls_on),
            block_scan: None,
            final_open: false,
            marked: false,
            answer_open: false,
            final_in_think: false,
            lead,
            wrapped: false,
            m3_tail: None,
        };
        m.rebuild_lits();
        m
    }

    /// Record where the content comes from ([`Spans`], for [`Machine::take_spans`]).
    pub(crate) fn keep_spans(&mut self) {
        self.em.spans = Some(Spans::default());
    }

    /// The byte ranges of the reply that spell the content emitted so far, when
    /// [`Machine::keep_spans`] asked for them.
    pub(crate) fn take_spans(&mut self) -> Option<Spans> {
        self.em.spans.take()
    }

    /// [`Machine::keep_spans`] without writing the content: the spans alone say what it is
    /// (the addon hands JavaScript slices of its string, so a content string built here was
    /// copied, checked against the spans and dropped). `content` then stays empty.
    pub(crate) fn keep_spans_only(&mut self) {
        self.keep_spans();
        self.em.content_off = true;
    }

    /// [`Machine::push`] of a whole reply handed over rather than copied, to a machine not fed
    /// before (`clean_response`'s way); [`Machine::take_text`] gives it back once finished.
    pub(crate) fn push_owned(
        &mut self,
        text: String,
        tools: Option<&Value>,
    ) -> Result<StreamChunk, &'static str> {
        debug_assert!(
            self.consumed == 0 && self.buf.data.is_empty(),
            "a fed machine"
        );
        if !self.em.content_off {
            self.em.out.content.reserve(text.len());
        }
        self.buf.set_owned(text);
        self.push("", tools)
    }

    /// The reply [`Machine::push_owned`] handed over, after [`Machine::finish`] (the machine
    /// only moves its start over it: it is given back whole).
    pub(crate) fn take_text(&mut self) -> String {
        std::mem::take(&mut self.buf.data)
    }

    fn rebuild_lits(&mut self) {
        let key = (
            self.calls_on,
            self.lock.map(|f| f as u8),
            self.hint.map(|f| f as u8),
            self.unwrapped,
        );
        self.braces = self.calls_on && matches!(self.lock, None | Some(Family::ToolJson));
        self.harmony = self.calls_on && matches!(self.lock, None | Some(Family::GptOss));
        let cached = TABLES
            .lock()
            .ok()
            .and_then(|t| t.iter().find(|(k, _)| *k == key).map(|(_, t)| t.clone()));
        if let Some(t) = cached {
            self.table = t;
            return;
        }
        let mut v = think_lits();
        if self.calls_on {
            // Before the call openers: settled first, a lone opener never opens a block.
            v.extend(lone_lits());
            match self.lock {
                Some(f) => {
                    v.extend(openers(f, self.unwrapped).into_iter().map(|(pre, s)| Lit {
                        pre,
                        s,
                        kind: Kind::Call(Check::Fam(f)),
                    }));
                    if f == Family::DeepSeekV32 {
                        v.extend(dsml_lits());
                    }
                    if f == Family::BracketCalls {
                        v.extend(bracket_lits());
                    }
                    v.extend(minimax_lits(Some(f)));
                    if f == Family::Qwen3Coder && !self.unwrapped {
                        v.push(Lit {
                            pre: "",
                            s: "<function=",
                            kind: Kind::Call(Check::Function),
                        });
                    }
                    if f == Family::Qwen3Coder {
                        v.extend(garbled_lits());
                    }
                    if f != Family::HunyuanA13b
                        && openers(f, self.unwrapped).contains(&("", "<tool_call>"))
                    {
                        // Hunyuan's `</answer>` after the call its removed `<answer>` wrapped.
                        v.push(Lit {
                            pre: "",
                            s: answer_tag::CLOSE,
                            kind: Kind::Call(Check::Fam(Family::HunyuanA13b)),
                        });
                    }
                    if f == Family::ToolJson {
                        // Mistral's call of a tool not offered ([`unoffered_mistral`]).
                        v.push(Lit {
                            pre: "",
                            s: super::mistral::TOKEN,
                            kind: Kind::Call(Check::Mistral),
                        });
                        v.extend(tool_json_lits());
                        v.extend(super::tool_json::WRAPPERS.iter().map(|(open, _)| Lit {
                            pre: "",
                            s: open,
                            kind: Kind::Call(Check::InvokeWrapper),
                        }));
                    }
                }
                None => v.extend(detect_lits(self.hint, self.unwrapped)),
            }
            // The wrapper's closer first: `</parameter>` is an orphan closer too when no wrapper is open.
            v.extend(wrap_lits());
            v.extend(orphan_lits());
        }
        // After every other marker: the reasoning markers lead the table.
        v.extend(final_tag::final_lits());
        let table = Arc::new(Table::new(v));
        if let Ok(mut t) = TABLES.lock() {
            t.push((key, table.clone()));
        }
        self.table = table;
    }

    pub fn push(
        &mut self,
        delta: &str,
        tools: Option<&Value>,
    ) -> Result<StreamChunk, &'static str> {
        if self.finished {
            return Err(FINISHED);
        }
        if self.consumed == 0 && self.buf.is_empty() && !self.em.content_off {
            // Most of a reply comes back as content, emitted in pieces (code, text between):
            // one allocation for them instead of a string doubled again and again.
            self.em.out.content.reserve(delta.len());
        }
        if self.buf.head > 0 && self.buf.head >= self.buf.data.len() / 2 {
            // The consumed front is about to be dropped: what the indented-code context has not
            // read of it is read now ([`indented`]).
            self.pass_indent_to(self.consumed);
        }
        self.buf.push_str(delta);
        self.has_tools = has_tools(tools);
        if !self.batch {
            self.run(tools);
        }
        Ok(std::mem::take(&mut self.em.out))
    }

    pub fn finish(&mut self, tools: Option<&Value>) -> Result<StreamEnd, &'static str> {
        if self.finished {
            return Err(FINISHED);
        }
        self.finished = true;
        self.has_tools = has_tools(tools);
        if self.batch {
            while self.state == State::GemmaLead && self.step_gemma_lead() {}
            // The text is lent to the reading, not copied, and kept (all consumed) afterwards:
            // a whole reply handed over is given back by `take_text`.
            let data = std::mem::take(&mut self.buf.data);
            let head = self.buf.head.min(data.len());
            self.batch_clean(&data[head..], tools);
            self.buf = Buf {
                head: data.len(),
                data,
            };
        } else {
            self.run(tools);
        }
        if let Some(raw) = self.invented.take() {
            self.em.problems.push(super::invented_turn::problem(&raw));
        }
        self.calls_from_reasoning(tools);
        self.em.end();
        Ok(StreamEnd {
            chunk: std::mem::take(&mut self.em.out),
            format: self.em.format,
            problems: std::mem::take(&mut self.em.problems),
        })
    }

    fn drain(&mut self, n: usize) {
        self.track_columns(n);
        self.json
            .data
            .pass(&self.buf.as_bytes()[..n], self.consumed);
        self.buf.advance(n);
        self.consumed += n;
    }

    fn run(&mut self, tools: Option<&Value>) {
        loop {
            if let Some(raw) = self.invented.as_mut() {
                // The reply ended at an invented turn: the rest is that turn's.
                raw.push_str(&self.buf);
                let n = self.buf.len();
                self.drain(n);
                return;
            }
            let moved = match self.state {
                State::R1Pending => self.step_r1(),
                State::Visible => self.step_visible(tools),
                State::Block(f) => self.step_block(f, tools),
                State::Think(p) => self.step_think(p),
                State::Fence(f) => self.step_fence(f, tools),
                State::GemmaLead => self.step_gemma_lead(),
            };
            if !moved {
                break;
            }
        }
    }

    /// What starts at candidate byte `c` among `lits[..n]`.
    fn decide(&mut self, c: usize, n: usize, tools: Option<&Value>) -> Decision {
        // A token cut by the finished reply's end right after removed markup is no marker's
        // head: the shortcut does not see it ([`Machine::cut_after_removed`]).
        if self.none_starts(c, n) && !self.cut_after_removed(c) {
            // Debug builds (every test) check the shortcut against the full answer.
            debug_assert!(matches!(self.decide_at(c, n, tools), Decision::No));
            return Decision::No;
        }
        self.decide_at(c, n, tools)
    }

    /// [`Machine::decide`] without its shortcut.
    fn decide_at(&mut self, c: usize, n: usize, tools: Option<&Value>) -> Decision {
        let bytes = self.buf.as_bytes();
        // The markers that can start here: those whose second byte is the next byte (one bucket,
        // so most `<` in prose or code, `<div>`, `a < b`, cost one lookup), plus one-byte ones.
        let mut cands = [0u16; 64];
        let mut m = 0;
        match (bytes.get(c), bytes.get(c + 1)) {
            (Some(&first), Some(&second)) => {
                let b = usize::from(second);
                let t = &*self.table;
                let (bucket, bucket_heads) = t.bucket(b);
                let mut shorts = t
                    .shorts
                    .iter()
                    .copied()
                    .filter(|&k| {
                        t.lits
                            .get(usize::from(k))
                            .is_some_and(|l| l.s.as_bytes().first() == Some(&first))
                    })
                    .peekable();
                // With eight bytes at `c`, a marker whose head differs from them cannot start
                // or be cut there: left out (a call's opener in a big bucket, `<|` with its
                // dozens of markers, was compared with each of them).
                let word = bytes
                    .get(c..c + 8)
                    .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
                let fits = |k: u16| {
                    word.is_none_or(|w| {
                        (t.heads.get(usize::from(k))).is_none_or(|&(h, mask)| w & mask == h)
                    })
                };
                // Both lists are in table order: merged as they are read, in place (no vector
                // per candidate, and `<` and `[` are most of them); the first 64 are looked at.
                // Once a family is chosen its table has no one-byte markers: the bucket alone.
                let mut taken = 0;
                if shorts.peek().is_none() {
                    let firsts = bucket.iter().zip(bucket_heads).take(cands.len());
                    match word {
                        Some(w) => {
                            for (&k, &(h, mask)) in firsts {
                                if w & mask == h {
                                    cands[m] = k;
                                    m += 1;
                                }
                            }
                        }
                        None => {
                            for (&k, _) in firsts {
                                cands[m] = k;
                                m += 1;
                            }
                        }
                    }
                    taken = cands.len();
                }
                let mut bucket = bucket.iter().copied().peekable();
                while taken < cands.len() {
                    let next = match (bucket.peek(), shorts.peek()) {
                        (Some(&a), Some(&b)) if b < a => shorts.next(),
                        (Some(_), _) => bucket.next(),
                        (None, _) => shorts.next(),
                    };
                    let Some(k) = next else { break };
                    taken += 1;
                    if fits(k) {
                        cands[m] = k;
                        m += 1;
                    }
                }
            }
            (Some(&first), None) => {
                // The buffer's last byte: the one-byte markers it is and the longer ones it may
                // start (one of those is enough to hold it). Every marker that starts with it,
                // not the table's first 64: `{`, a bare JSON call's opener, sits far down.
                let t = &*self.table;
                let starts = |k: usize| t.lits[k].s.as_bytes().first() == Some(&first);
                let mut ks: Vec<u16> = t
                    .shorts
                    .iter()
                    .copied()
                    .filter(|&k| starts(usize::from(k)))
                    .collect();
                let room = cands.len() - ks.len().min(cands.len());
                ks.extend(
                    (0..t.lits.len())
                        .filter(|&k| t.lits[k].s.len() > 1 && starts(k))
                        .take(room)
                        .map(|k| k as u16),
                );
                ks.sort_unstable();
                for k in ks.into_iter().take(cands.len()) {
                    cands[m] = k;
                    m += 1;
                }
            }
            (None, _) => {}
        }
        let mut more = false;
        let mut cut = false;
        // The finished reply ends inside the call this opener starts ([`cut_body`]).
        let mut cut_call = None;
        for &k in &cands[..m] {
            let k = usize::from(k);
            if k >= n {
                continue;
            }
            let Some(&lit) = self.table.lits.get(k) else {
                continue;
            };
            if !lit.pre.is_empty() && !self.buf[..c].ends_with(lit.pre) {
                continue;
            }
            let rest = &self.buf[c..];
            if rest.len() < lit.s.len() {
                if lit.s.as_bytes().starts_with(rest.as_bytes()) {
                    if !self.finished {
                        more = true;
                    } else if lit.s == super::stray_word::INVOKE
                        && super::stray_word::cut_invoke(rest)
                        && self.stray_start(c) < c
                    {
                        // An invoke cut in its opener after a stray word: the word's call.
                        cut_call = cut_call.or(Some((rest.len(), true)));
                    } else if lit.pre.is_empty() && matches!(lit.kind, Kind::Call(_)) {
                        cut |= cut_marker(rest);
                    } else if matches!(lit.kind, Kind::ThinkOpen(_) | Kind::ThinkClose(_))
                        && self.think_mode != Mode::Keep
                        && thinking::cut_shows_token(rest)
                    {
                        // A reasoning marker cut after a whole special token of it
                        // (`<|open|>thi`, `<|close|>`): removed as a cut call opener is.
                        cut = true;
                    } else if matches!(lit.kind, Kind::Orphan)
                        && super::invented_turn::OPENERS.contains(&lit.s)
                        && self.at_line_start(c)
                    {
                        // A user-turn header on its own line, cut ([`super::invented_turn`]).
                        cut |= cut_marker(rest);
                    }
                }
                continue;
            }
            if !rest.starts_with(lit.s) {
                continue;
            }
            let mut start = c - lit.pre.len();
            let mut len = lit.pre.len() + lit.s.len();
            if lit.s == super::gemma_unused::PREFIX {
                match super::gemma_unused::token_at(rest, self.finished) {
                    Some(Some(n)) => len = n,
                    Some(None) => continue,
                    None => {
                        more = true;
                        continue;
                    }
                }
            }
            if matches!(lit.kind, Kind::Orphan) && super::orphan::DSML_STARTS.contains(&lit.s) {
                // Another family's reply: its DSML openers are never candidates, so one kept as
                // text is not known; DSML's closers stay text there.
                if self.lock.is_some_and(|f| f != Family::DeepSeekV32) {
                    continue;
                }
                match super::orphan::dsml_closer(rest, self.finished, WINDOW) {
                    Some(Some((_, n))) => len = n,
                    Some(None) => continue,
                    None => {
                        more = true;
                        continue;
                    }
                }
            }
            if self.finished
                && matches!(lit.kind, Kind::Call(Check::Dsml))
                && super::dsml::cut_opener(&rest[1..])
            {
                // A DSML opener the reply's end cut before its attributes.
                cut = true;
                continue;
            }
            if matches!(lit.kind, Kind::Call(Check::Fam(Family::GptOss))) && lit.s == "<|start|>" {
                // A Harmony user header is no message of the reply: a turn the model invented,
                // read as such by its lone token below ([`super::invented_turn`]).
                match super::invented_turn::harmony_user(rest, self.finished) {
                    Some(true) => continue,
                    None => {
                        more = true;
                        continue;
                    }
                    Some(false) => {}
                }
            }
            let kind = match lit.kind {
                Kind::Call(check) => match self.check(check, c + lit.s.len(), tools) {
                    Verdict::Yes(f) => Kind::Call(Check::Fam(f)),
                    Verdict::No => {
                        if self.finished && cut_call.is_none() {
                            cut_call = self.cut_call_at(c, tools.filter(|_| self.has_tools));
                        }
                        continue;
                    }
                    Verdict::More => {
                        more = true;
                        continue;
                    }
                },
                Kind::WrapOpen => match self.wrap_open_len(c) {
                    Some(Some(l)) => {
                        len = l;
                        Kind::WrapOpen
                    }
                    Some(None) => continue,
                    None => {
                        more = true;
                        continue;
                    }
                },
                Kind::Lone => match self.lone_at(c, lit.s) {
                    Some(Some(n)) => {
                        len = n;
                        Kind::Lone
                    }
                    Some(None) => continue,
                    None => {
                        more = true;
                        continue;
                    }
                },
                Kind::WrapClose if !self.wrapped => continue,
                k => k,
            };
            if more {
                return Decision::More;
            }
            if matches!(kind, Kind::Call(Check::Fam(Family::GptOss)))
                && lit.s == "<|channel|>"
                && self.consumed == 0
                && super::gpt_oss::lead_is_recipient(&self.buf[..c])
            {
                // A header continued from the prompt: its recipient opens the block.
                len += start;
                start = 0;
            }
            if matches!(kind, Kind::Call(Check::Fam(Family::MinimaxM2)))
                && lit.s == super::stray_word::INVOKE
            {
                // A stray word in place of the wrapper's opener, right before, opens the block.
                let h = self.stray_start(c);
                len += start - h;
                start = h;
            }
            if matches!(lit.kind, Kind::Call(Check::Dsml)) {
                // A garbled section opener on the line before opens the block.
                let h = self.garbled_opener_start(c);
                len += start - h;
                start = h;
            }
            if matches!(kind, Kind::Call(Check::Fam(Family::Qwen3Coder))) && lit.s == "<parameter="
            {
                // A Qwen3-Coder head that lost its `<`, on the line before, opens the block.
                let h = self.lost_head_start(c);
                len += start - h;
                start = h;
            }
            return Decision::Yes { start, len, kind };
        }
        if more {
            Decision::More
        } else if let Some((len, whole)) = cut_call {
            // A stray word in place of the wrapper's opener goes with the cut invoke after it.
            let rest = &self.buf[c..];
            let start = if rest.starts_with(super::stray_word::INVOKE)
                || super::stray_word::cut_invoke(rest)
            {
                self.stray_start(c)
            } else {
                c
            };
            Decision::Yes {
                start,
                len: len + (c - start),
                kind: Kind::CutCall(whole),
            }
        } else if cut || self.cut_after_removed(c) {
            Decision::Cut
        } else {
            Decision::No
        }
    }

    /// Whether none of `lits[..n]` can start at candidate `c`, nor be cut there by the end of
    /// the buffer, told from the eight bytes at `c` alone (`false` when fewer remain): then
    /// [`Machine::decide`] would answer [`Decision::No`], and is not asked.
    fn none_starts(&self, c: usize, n: usize) -> bool {
        let bytes = self.buf.as_bytes();
        let Some(word) = bytes.get(c..c + 8) else {
            return false;
        };
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let t = &*self.table;
        let (bucket, heads) = t.bucket(usize::from(bytes[c + 1]));
        // Bucket and shorts are in table order: the markers past `n` (all but the reasoning
        // ones inside a call block) are not walked at all.
        let below = |k: &&u16| usize::from(**k) < n;
        (bucket.iter().zip(heads))
            .take_while(|(k, _)| below(k))
            .all(|(_, &(h, mask))| w & mask != h)
            && t.shorts.iter().take_while(below).all(|&k| {
                t.heads
                    .get(usize::from(k))
                    .is_some_and(|&(h, mask)| w & mask != h)
            })
    }

    /// Whether an opener (ending at `after`) really opens a call, and of which family.
    fn check(&mut self, check: Check, after: usize, tools: Option<&Value>) -> Verdict {
        let fin = self.finished;
        let rest = &self.buf[after..];
        let full = fin || rest.len() >= WINDOW;
        let hint = self.hint;
        let yes = |f: Family| Verdict::Yes(scan::refine(f, hint));
        let brace = |want: &[char], f: &[Family]| match first_solid(rest) {
            Some(ch) => match want.iter().position(|w| *w == ch) {
                Some(i) => yes(f[i]),
                None => Verdict::No,
            },
            None if full => Verdict::No,
            None => Verdict::More,
        };
        match check {
            // Its opener is ordinary XML too: a call only with the template's shape after it.
            Check::Fam(Family::Minicpm5) => match super::minicpm5::head(rest, fin) {
                Some(true) => yes(Family::Minicpm5),
                Some(false) => Verdict::No,
                None => Verdict::More,
            },
            // Prose names this tag too: a call only with the arguments' `{` after it.
            Check::Fam(Family::NamedToolCall) => {
                match super::named_tool_call::head_offered(rest, fin, tools) {
                    Some(true) => yes(Family::NamedToolCall),
                    Some(false) => Verdict::No,
                    None => Verdict::More,
                }
            }
            Check::Fam(Family::AttrToolCall) => match super::attr_tool_call::head(rest, fin) {
                Some(true) => yes(Family::AttrToolCall),
                Some(false) => Verdict::No,
                None => Verdict::More,
            },
            Check::Fam(f) => yes(f),
            Check::CallingTool => match super::minimax_m2::calling_head(rest, fin) {
                Some(Some(_)) => yes(Family::MinimaxM2),
                Some(None) => self.check_calling_args(after),
                None => Verdict::More,
            },
            Check::M3Fragment => {
                let ns = super::minimax_m3::NS;
                if rest.starts_with('<') || rest.starts_with(ns) {
                    if self.later("</tool_call>", after) {
                        yes(Family::MinimaxM3)
                    } else if fin && self.m3_cut(after - ns.len()) {
                        // The reply was cut inside the fragment: removed and reported.
                        yes(Family::MinimaxM3)
                    } else if fin {
                        Verdict::No
                    } else {
                        Verdict::More
                    }
                } else if !fin && ns.starts_with(rest) {
                    Verdict::More
                } else {
                    Verdict::No
                }
            }
            Check::DsmlFunction => match super::dsml_function::head(rest, fin) {
                Some(Some(_)) => {
                    let closers = super::dsml::CLOSERS
                        .iter()
                        .filter(|c| c.ends_with("invoke>"));
                    if closers.into_iter().any(|c| self.later(c, after)) {
                        yes(Family::DeepSeekV32)
                    } else if fin && self.dsml_function_closed(after) {
                        // Closed in a spelling the closer list leaves out (spaced bars).
                        yes(Family::DeepSeekV32)
                    } else if fin
                        && !self.later(super::dsml_function::OPEN, after)
                        && self.dsml_function_cut(after, tools)
                    {
                        // The reply's last head, cut inside its parameters: removed, reported.
                        yes(Family::DeepSeekV32)
                    } else if fin {
                        Verdict::No
                    } else {
                        Verdict::More
                    }
                }
                Some(None) => Verdict::No,
                None => Verdict::More,
            },
            Check::Colon(stray) => {
                let open = if stray {
                    super::bracket_colon::OPEN2
                } else {
                    super::bracket_colon::OPEN
                };
                let start = after - open.len();
                match super::bracket_colon::call_at(&self.buf[start..], fin, tools) {
                    Some(Some((_, len))) => {
                        // The block is the call, settled here.
                        self.json.fixed = Some((self.consumed + start, len));
                        yes(Family::BracketCalls)
                    }
                    // Cut by the end of the reply: the rest of it is the block.
                    Some(None)
                        if fin
                            && super::bracket_colon::cut(
                                &self.buf[start..],
                                tools,
                                self.at_line_start(start)
                                    || (self.em.after_removed
                                        && self.buf[..start].trim().is_empty()),
                            ) =>
                    {
                        self.json.fixed = Some((self.consumed + start, self.buf.len() - start));
                        yes(Family::BracketCalls)
                    }
                    Some(None) => Verdict::No,
                    None => Verdict::More,
                }
            }
            Check::Function => self.check_function(after),
            Check::Garbled => self.check_garbled(after, tools),
            Check::ToolJson => self.check_tool_json(after, tools),
            Check::MistralArray => self.check_mistral_array(after),
            Check::InvokeWrapper => self.check_invoke_wrapper(after, tools),
            Check::ToolCall => {
                if let Some(f @ (Family::Hermes | Family::Qwen3Coder | Family::Granite)) =
                    classify_tool_call(rest, tools)
                {
                    return yes(f);
                }
                let t = rest.trim_start();
                if t.starts_with(super::qwen3_coder::NAME_TAG) || t.starts_with("<parameter=") {
                    // A garbled Qwen3-Coder head: its name may take a while to end.
                    match super::qwen3_coder::garbled_head(t, fin || t.len() >= WINDOW) {
                        Some(true) => return yes(Family::Qwen3Coder),
                        None => return Verdict::More,
                        Some(false) => {}
                    }
                }
                let lead = rest.len() - t.len();
                // What follows the name decides: up to `\n</tool_call>` (13 bytes) after it.
                let settled = t
                    .find(['<', '\n'])
                    .is_some_and(|p| lead + p + 13 <= WINDOW && rest.len() >= lead + p + 13);
                if full || settled {
                    match classify_tool_call(&rest[..floor(rest, WINDOW)], tools) {
                        Some(f) => yes(f),
                        None if fin && self.ends_in_closer(Family::Glm, after, tools) => {
                            yes(Family::Glm)
                        }
                        // A name, then a closing tag cut after `</` ([`super::glm45::cut_head`]).
                        None if fin && super::glm45::cut_head(&self.buf[after..], tools) => {
                            yes(Family::Glm)
                        }
                        None => Verdict::No,
                    }
                } else {
                    Verdict::More
                }
            }
            Check::ToolCalls => match super::named_tool_call::head_offered(rest, fin, tools) {
                Some(true) => yes(Family::NamedToolCall),
                None if first_solid(rest) == Some('<') => Verdict::More,
                _ => brace(&['{', '['], &[Family::MinimaxM1, Family::HunyuanA13b]),
            },
            Check::Brace(f) => brace(&['{'], &[f]),
            Check::ActionStart => {
                let t = rest[..floor(rest, WINDOW)].trim_start();
                if t.starts_with("<|plugin|>") {
                    yes(Family::Internlm2)
                } else if !full && "<|plugin|>".starts_with(t) {
                    Verdict::More
                } else {
                    Verdict::No
                }
            }
            Check::Mistral if self.lock == Some(Family::ToolJson) => {
                self.check_unoffered_mistral(after, tools)
            }
            Check::Mistral => match mistral::follows(rest, fin) {
                Some(mistral::Follows::Calls) => yes(Family::Mistral),
                // Removed and reported as its own block, the family left unchosen.
                Some(mistral::Follows::Abandoned(n)) => {
                    let start = self.consumed + after - mistral::TOKEN.len();
                    self.json.fixed = Some((start, mistral::TOKEN.len() + n));
                    self.json.unchosen = Some(start);
                    yes(Family::Mistral)
                }
                Some(mistral::Follows::No) if full => {
                    let head = &rest[..floor(rest, WINDOW)];
                    if mistral::follows(head, false) == Some(mistral::Follows::Calls) {
                        yes(Family::Mistral)
                    } else {
                        Verdict::No
                    }
                }
                // A call id still arriving after a name longer than the window: no call.
                _ if full => Verdict::No,
                _ => Verdict::More,
            },
            Check::Dsml => {
                let back = self.buf[..after]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
                let head = &self.buf[after - back..];
                let head = &head[..floor(head, WINDOW)];
                let lost = super::dsml_lost_head::lost_head(head, full);
                match super::dsml::head(head) {
                    Some((n, "invoke")) => match super::dsml::empty_name(&head[n..]) {
                        Some(true) => Verdict::No,
                        None if !full => Verdict::More,
                        _ => yes(Family::DeepSeekV32),
                    },
                    Some((_, "function_calls" | "toolcall")) => yes(Family::DeepSeekV32),
                    None if !full && super::dsml::head_prefix(head) => Verdict::More,
                    // `< calls>` before an invoke ([`super::dsml_lost_head`]).
                    None if lost != Some(0) => {
                        lost.map_or(Verdict::More, |_| yes(Family::DeepSeekV32))
                    }
                    // A tag named after an offered tool ([`super::dsml_named`]).
                    _ => match super::dsml_named::head(&self.buf[after - back - 1..], tools) {
                        Some(Some(_)) => yes(Family::DeepSeekV32),
                        None if !full => Verdict::More,
                        _ => Verdict::No,
                    },
                }
            }
            Check::NamedRequest => {
                let r = &rest[..floor(rest, WINDOW)];
                let Some(close) = r.find(']') else {
                    return if full { Verdict::No } else { Verdict::More };
                };
                let t = r[close + 1..].trim_start_matches([' ', '\t', '\r']);
                let named = scan::is_name(&r[..close]) && &r[..close] != "TOOL_REQUEST";
                if !named || !(t.is_empty() || t.starts_with('\n')) {
                    return Verdict::No;
                }
                match t.trim_start().chars().next() {
                    Some('{') if self.later("[END_TOOL_REQUEST]", after) => {
                        yes(Family::BracketCalls)
                    }
                    Some('{') if fin => Verdict::No,
                    Some('{') => Verdict::More,
                    None if !full => Verdict::More,
                    _ => Verdict::No,
                }
            }
            Check::Later(marker, f) => {
                if self.later(marker, after) || (fin && self.ends_in_closer(f, after, tools)) {
                    yes(f)
                } else if f == Family::HunyuanA13b && self.answer_after_reasoning(after) {
                    // Hunyuan's `<answer>` right after reasoning, no call seen ([`answer_tag`]):
                    // its wrapper, the family left unchosen (a call later is read as before).
                    let tag = if self.buf[..after].ends_with(answer_tag::OPEN) {
                        answer_tag::OPEN.len()
                    } else {
                        answer_tag::CLOSE.len()
                    };
                    self.json.unchosen = Some(self.consumed + after - tag);
                    yes(f)
                } else if f == Family::HunyuanA13b && self.answer_wraps_call(after) {
                    // Its `<answer>` around a `<tool_call>` ([`answer_tag`]): the wrapper, the
                    // family left to the call.
                    self.json.unchosen = Some(self.consumed + after - answer_tag::OPEN.len());
                    yes(f)
                } else if fin && f == Family::BracketCalls {
                    // The last opener, cut inside its arguments by the end of the reply.
                    let open = ["[TOOL_CALL]", "[TOOL_REQUEST]"]
                        .into_iter()
                        .find(|o| self.buf[..after].ends_with(o));
                    let last = open.is_some_and(|o| !self.later(o, after));
                    if last && super::bracket_calls::cut_body(&self.buf[after..]) {
                        yes(f)
                    } else {
                        Verdict::No
                    }
                } else if fin {
                    Verdict::No
                } else {
                    Verdict::More
                }
            }
        }
    }

    /// Whether `marker` occurs at or after `after` in `buf`. Remembers its last answer per marker
    /// (as [`scan::Finder`] does), so many openers waiting for one marker stay linear.
    fn later(&mut self, marker: &'static str, after: usize) -> bool {
        self.later_at(marker, after).is_some()
    }

    /// [`Machine::later`]'s answer: where in `buf` that `marker` starts.
    fn later_at(&mut self, marker: &'static str, after: usize) -> Option<usize> {
        let from = self.consumed + after;
        let end = self.consumed + self.buf.len();
        let mut search_from = from;
        let slot = self.memo.iter().position(|e| e.0 == marker);
        if let Some(&(_, last_from, hit, searched_to)) = slot.and_then(|i| self.memo.get(i)) {
            if from >= last_from {
                match hit {
                    Some(h) if h >= from => return Some(h - self.consumed),
                    Some(_) => {}
                    None => {
                        search_from = from.max(searched_to.saturating_sub(marker.len() - 1));
                    }
                }
            }
        }
        let rel = floor(&self.buf, search_from.saturating_sub(self.consumed));
        let hit = scan::find_from(&self.buf, marker, rel).map(|i| i + self.consumed);
        let entry = (marker, from, hit, end);
        match slot.and_then(|i| self.memo.get_mut(i)) {
            Some(e) => *e = entry,
            None => self.memo.push(entry),
        }
        hit.map(|h| h - self.consumed)
    }

    /// A lone `<parameter name="…">` line at candidate `c` (openclaw#98557: Qwen 3.6 wrapped a
    /// list in one, no call around it): the tag's length when it starts and ends its line and a
    /// `</parameter>` comes later; `Some(None)`: not such a tag; `None`: not known yet.
    fn wrap_open_len(&mut self, c: usize) -> Option<Option<usize>> {
        if !self.at_line_start(c) {
            return Some(None);
        }
        let Some(len) = super::xml_invoke::lone_param_tag(&self.buf[c..], self.finished)? else {
            return Some(None);
        };
        if self.later(super::xml_invoke::PARAM_END, c + len) {
            Some(Some(len))
        } else if self.finished {
            Some(None)
        } else {
            None
        }
    }

    /// Whether the reply so far may be a gpt-oss header continued from the prompt
    /// (` to=functions.NAME<|channel|>…`), which the call block then starts with.
    fn holds_header(&self) -> bool {
        self.consumed == 0
            && self.calls_on
            && self.lock.is_none_or(|f| f == Family::GptOss)
            && super::gpt_oss::may_continue_header(&self.buf)
    }

    /// How much of `buf` before candidate `c` can surely not belong to a marker starting later.
    fn before_pre(&self, c: usize) -> usize {
        if self.holds_header() {
            return 0;
        }
        let mut s = c;
        for lit in &self.table.lits {
            if !lit.pre.is_empty() && self.buf[..c].ends_with(lit.pre) {
                s = s.min(c - lit.pre.len());
            }
        }
        s
    }

    /// Where to stop emitting plain text at the end of the buffer: before a word that may be the
    /// `pre` of a marker (`functools` before `[`).
    fn hold_pre(&self) -> usize {
        if self.holds_header() {
            return 0;
        }
        let len = self.buf.len();
        let mut keep = self.hold_harmony().min(self.hold_kimi_id());
        for lit in self.table.lits.iter().filter(|l| !l.pre.is_empty()) {
            let whole = lit.whole();
            let from = floor(&self.buf, len.saturating_sub(whole.len() - 1));
            let first = whole.as_bytes()[0];
            for i in memchr::memchr_iter(first, &self.buf.as_bytes()[from..]) {
                if whole
                    .as_bytes()
                    .starts_with(&self.buf.as_bytes()[from + i..])
                {
                    keep = keep.min(from + i);
                    break;
                }
            }
        }
        keep
    }

    fn step_visible(&mut self, tools: Option<&Value>) -> bool {
        let mut i = self.pos;
        let n = self.table.lits.len();
        let recheck = std::mem::take(&mut self.recheck);
        loop {
            // The next candidate or (code tracking on) backtick or tilde: one search for both.
            let m = self.next_visible_cand(i);
            if let Some(k) = m.filter(|&k| matches!(self.buf.as_bytes()[k], b'`' | b'~')) {
                // The usual inline span, told here without a call; `markup`: a candidate byte
                // lies inside.
                let (at, markup) =
                    match code::single_tick_span(self.buf.as_bytes(), k, self.finished) {
                        Some((e, markup)) => (code::CodeAt::Span(e), markup),
                        None => (self.code_run_at(k), true),
                    };
                match at {
                    code::CodeAt::Literal(len) => {
                        i = k + len;
                        continue;
                    }
                    code::CodeAt::More => {
                        self.emit_text(k);
                        self.pos = 0;
                        return false;
                    }
                    code::CodeAt::Span(e) => {
                        // Text like any other, just never scanned for markers: no emission
                        // needed here (the text goes out with what follows it). Checked for
                        // markup only when a candidate byte may lie inside.
                        if markup && self.mentions_marker(&self.buf[k..e]) {
                            self.code_problem("inline code");
                        }
                        i = e;
                        continue;
                    }
                    code::CodeAt::Fence(f, body) => {
                        let f = self.invented_fence(k, f);
                        if let Some(end) = (!f.invented)
                            .then(|| self.pass_example_fence(k, f, body))
                            .flatten()
                        {
                            i = end;
                            continue;
                        }
                        self.emit_text(k);
                        self.open_fence(f, body - k);
                        return true;
                    }
                }
            }
            let Some(c) = m else {
                if let Some(h) = self.held_cut_call(tools) {
                    // A held head the reply's end cut ([`held_cut`]).
                    self.emit_text(h);
                    self.open_cut_call(self.buf.len(), true);
                    self.pos = 0;
                    return false;
                }
                let keep = if self.finished {
                    self.buf.len()
                } else {
                    self.hold_pre()
                        .min(self.hold_tool_name(tools))
                        .min(self.hold_lost_head())
                        .min(self.hold_stray_word())
                        .min(self.hold_garbled_opener())
                };
                self.emit_text(keep);
                // A held Harmony header is scanned again when the rest of it comes.
                self.pos = if self.harmony && self.has_tools {
                    0
                } else {
                    self.buf.len()
                };
                return false;
            };
            if c == self.pos && !self.finished && self.buf.len() < recheck {
                // The candidate that needed more text, with too little more yet.
                self.recheck = recheck;
                return false;
            }
            let decision = if self.buf.as_bytes()[c] == b't' {
                self.decide_harmony(c, tools)
            } else if let Some(d) = self.decide_kimi_bare(c, tools) {
                d
            } else if let Some(d) = self.decide_offered_line(c, tools) {
                d
            } else if let Some(d) = (self.buf.as_bytes()[c] == b'{')
                .then(|| self.decide_named_json(c, tools))
                .flatten()
            {
                d
            } else {
                self.decide(c, n, tools)
            };
            // A candidate that is text may open what an orphan closer later closes: wait until
            // that opener is complete or ruled out.
            let decision = match decision {
                Decision::No if self.note_text_opener(c) => Decision::More,
                d => d,
            };
            // Markup on a line of an indented code block is quoted: the block is text.
            if !matches!(decision, Decision::No) {
                if let Some(ls) = self.indented_code_line(c) {
                    self.emit_text(ls);
                    self.open_indented();
                    return true;
                }
            }
            match decision {
                Decision::No => {
                    i = c + self.buf[c..].chars().next().map_or(1, char::len_utf8);
                }
                Decision::Cut => {
                    self.emit_text(c);
                    let p = reply_end::cut_problem(&self.buf);
                    self.em.problems.push(p);
                    self.em.removed();
                    let n = self.buf.len();
                    self.drain(n);
                    self.pos = 0;
                    return false;
                }
                Decision::More => {
                    let s = self
                        .before_pre(c)
                        .min(self.harmony_start(c))
                        .min(self.kimi_id_start(c))
                        .min(self.named_start(c, tools))
                        .min(self.lost_head_start(c))
                        .min(self.stray_start(c))
                        .min(self.garbled_opener_start(c))
                        .min(self.offered_line_start(c, tools));
                    self.emit_text(s);
                    self.pos = c - s;
                    let held = self.buf.len();
                    self.recheck = if held > RECHECK_FROM {
                        held + held / 4
                    } else {
                        0
                    };
                    return false;
                }
                Decision::Yes { start, len, kind } => {
                    self.emit_text(start);
                    self.pos = 0;
                    match self.reasoning_tag_is_text(kind, len, tools) {
                        Some(true) => {
                            self.emit_text(len);
                            return true;
                        }
                        Some(false) => {}
                        None => return false,
                    }
                    self.open(len, kind);
                    return true;
                }
            }
        }
    }

    /// A reasoning opener after visible text is text (reasoning is where a reply starts, as
    /// vLLM's and SGLang's reasoning parsers read it; people write `<think>` in prose), and so is
    /// a closer once an opener was kept as text. Only the pairs that look like prose or HTML
    /// (`<think>`, `<seed:think>`, `[THINK]`); special-token pairs (Harmony's analysis channel
    /// after a visible commentary preamble, `◁think▷`, Cohere's) open reasoning anywhere.
    ///
    /// Gemma 4's `<|channel>` and Kimi's `◁think▷` named inside a sentence (words both sides) are
    /// text ([`super::gemma_channel`], [`super::kimi_think`]); a `◁/think▷` with no reasoning open
    /// after such a `◁think▷` is text too. So is gpt-oss's `<|channel|>` with no channel word after it
    /// ([`super::gpt_oss::channel_in_sentence`]). A call opener named in a sentence is text
    /// ([`super::call_in_sentence`]).
    ///
    /// A closing tag with no reasoning open (at the start of `buf`, `len` bytes) is a stray tag,
    /// removed, only when it ends its line (spaces, then a line break or the end of the reply), as
    /// models write it; inside a sentence (`输出仅有</think>，没有<think>`, or after words and a
    /// space at a line's end, `…思考内容 + </think>`) it is text. `None`:
    /// wait for the next byte.
    fn reasoning_tag_is_text(
        &mut self,
        kind: Kind,
        len: usize,
        tools: Option<&Value>,
    ) -> Option<bool> {
        match kind {
            Kind::Orphan => self.orphan_is_text(len),
            Kind::Final(close) => self.final_is_text(close, len),
            Kind::Call(Check::Fam(Family::GptOss))
                if self.buf.starts_with(super::gpt_oss::CHANNEL) =>
            {
                super::gpt_oss::channel_in_sentence(
                    self.col == usize::MAX,
                    &self.buf,
                    self.finished,
                )
            }
            // Kimi K3's closing token (`<|close|>call<|sep|>`) named in a sentence.
            Kind::Call(Check::Fam(Family::KimiK3))
                if self.buf.get(..len) == Some(super::kimi_k3::CLOSE) =>
            {
                let before = self.spaced_words_before(0);
                super::kimi_k3::closer_named(before, &self.buf, self.finished)
            }
            Kind::Call(_) => self.answer_is_text(kind).unwrap_or_else(|| {
                super::call_in_sentence::in_sentence(
                    self.buf.get(..len).unwrap_or(""),
                    &self.buf,
                    self.words_before(0),
                    self.spaced_words_before(0),
                    self.example_tail.introduces(),
                    tools.filter(|_| self.has_tools),
                    self.finished,
                )
            }),
            Kind::WrapClose if !self.at_line_start(0) => Some(true),
            Kind::WrapClose => self.ends_line(len).map(|e| !e),
            // `col` is `usize::MAX` once the line holds more than spaces.
            Kind::ThinkOpen(GEMMA_CHANNEL) => {
                super::gemma_channel::in_sentence(self.col == usize::MAX, &self.buf, self.finished)
            }
            Kind::ThinkOpen(KIMI) => {
                let named = super::kimi_think::in_sentence(
                    self.col == usize::MAX,
                    &self.buf,
                    self.finished,
                );
                self.think_as_text |= named == Some(true);
                named
            }
            Kind::ThinkOpen(p)
                if p < PROSE_PAIRS && self.em.any_visible && self.think_mode != Mode::Keep =>
            {
                self.think_as_text = true;
                Some(true)
            }
            Kind::ThinkClose(KIMI) if self.think_as_text => Some(true),
            // The special-token pairs' markers named in a sentence ([`thinking::named_marker`]).
            Kind::ThinkOpen(p) | Kind::ThinkClose(p) if thinking::named_marker(p) => {
                let before = self.spaced_words_before(0);
                thinking::marker_named(before, &self.buf[len..], self.finished)
            }
            Kind::ThinkClose(p) if p < PROSE_PAIRS && self.think_mode != Mode::Keep => {
                if self.think_as_text {
                    return Some(true);
                }
                // MiniMax-M3's template writes a turn without reasoning as `</mm:think>` and the
                // answer, so its reply may start so: removed there, wherever its line ends.
                let m3 = self.hint == Some(Family::MinimaxM3)
                    && ALWAYS
                        .get(p)
                        .is_some_and(|q| q.closes.contains(&"</mm:think>"));
                if m3 && !self.em.any_visible {
                    return Some(false);
                }
                if self.spaced_words.named() {
                    return Some(true);
                }
                self.ends_line(len).map(|e| !e)
            }
            _ => Some(false),
        }
    }

    /// Whether `buf[at..]` starts with spaces then a line break or the end of the reply (`None`:
    /// not known before more text comes).
    fn ends_line(&self, at: usize) -> Option<bool> {
        let rest = self.buf[at..].trim_start_matches([' ', '\t']);
        match rest.as_bytes().first() {
            None if !self.finished => None,
            None | Some(b'\n' | b'\r') => Some(true),
            Some(_) => Some(false),
        }
    }

    /// Emit `buf[..n]` as visible text and drop it.
    fn emit_text(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let Machine {
            em, buf, consumed, ..
        } = self;
        em.text(&buf[..n], *consumed);
        self.drain(n);
    }

    /// A marker of `len` bytes at the start of `buf`.
    fn open(&mut self, len: usize, kind: Kind) {
        self.marked = true;
        match kind {
            Kind::ThinkOpen(p) => {
                if self.think_mode == Mode::Keep {
                    let Machine {
                        em, buf, consumed, ..
                    } = self;
                    em.text(&buf[..len], *consumed);
                } else {
                    self.em.removed();
                }
                self.em.reasoning_begin();
                self.drain(len);
                self.state = State::Think(p);
            }
            Kind::ThinkClose(_) => {
                if self.think_mode == Mode::Keep {
                    let Machine {
                        em, buf, consumed, ..
                    } = self;
                    em.text(&buf[..len], *consumed);
                } else {
                    self.em.removed();
                }
                self.drain(len);
                self.state = State::Visible;
            }
            Kind::Orphan if std::mem::take(&mut self.turn_ends) => {
                self.em.removed();
                self.invented = Some(String::new());
            }
            Kind::Orphan | Kind::Final(_) => {
                self.em.removed();
                self.drain(len);
            }
            Kind::WrapOpen | Kind::WrapClose => {
                self.em.removed();
                self.drain(len);
                self.wrapped = matches!(kind, Kind::WrapOpen);
            }
            Kind::Lone => {
                let raw = &self.buf[..len];
                let m = if raw.starts_with(super::tool_result::OPEN) {
                    super::tool_result::problem(raw)
                } else {
                    let what = if raw.starts_with(super::glm45::KEY) {
                        // The arguments of a call whose head was lost.
                        self.em.call_block_seen = true;
                        "glm: an argument pair outside any call"
                    } else {
                        "a call opener with no call after it"
                    };
                    format!("unreadable-block: {what}; removed from content, raw text: {raw}")
                };
                self.em.problems.push(m);
                self.em.removed();
                self.drain(len);
            }
            Kind::CutCall(whole) => self.open_cut_call(len, whole),
            Kind::Call(check) => {
                let f = match check {
                    Check::Fam(f) => f,
                    // `decide` only returns settled families.
                    _ => self.hint.unwrap_or(Family::Hermes),
                };
                // A block that does not choose the family (Mistral's call abandoned after its id).
                let unchosen = self.json.unchosen.take() == Some(self.consumed);
                if self.lock.is_none() && !unchosen {
                    self.lock = Some(f);
                    self.rebuild_lits();
                }
                self.spent = 0;
                self.section_closed = false;
                self.dsml_trail = None;
                self.state = State::Block(f);
            }
        }
        self.pos = 0;
    }

    fn step_block(&mut self, f: Family, tools: Option<&Value>) -> bool {
        if let Some((e, from, p)) = self.chain.take() {
            match self.chain_end(f, e, from, p) {
                Some(moved) => return moved,
                // A chained call follows: the block runs on, scanned from its last closer.
                None => self.pos = e,
            }
        }
        if let Some(end) = self.json.fixed_block(self.consumed) {
            // Settled whole by its check (a bare JSON call, a stripped Harmony call), read
            // already by some (a pythonic line).
            let end = end.min(self.buf.len());
            match self.json.parsed.take() {
                Some(p) => self.emit_parsed(f, end, p),
                None => self.emit_block(f, end, tools),
            }
            return true;
        }
        if let Some((e, p)) = self.dsml_trail_done(f, tools) {
            self.emit_parsed(f, e, p);
            return true;
        }
        let n_think = *N_THINK;
        let scan = self.block_scan(f, n_think);
        let mut i = self.pos;
        // Where the reply, finished, ends inside one of the block's closers ([`cut_closer`]).
        let mut cut = None;
        loop {
            // `buf` read once a stop (each read checks its start is a char boundary).
            let b = self.buf.as_bytes();
            let Some(c) = next_block_cand(b, i) else {
                self.pos = b.len();
                if self.finished {
                    if let Some(c) = cut {
                        if self.emit_cut_closer(f, c, tools) {
                            return true;
                        }
                    }
                    self.emit_last_block(f, tools);
                    return true;
                }
                return false;
            };
            // Most candidates (the block's inner tags) start neither a reasoning marker nor a
            // closer, told from the two bytes after them ([`block_scan`]).
            let maybe = scan.at(b, c);
            // Candidates are `<`, `[` or the lead byte of a three-byte character.
            let step = if b[c] < 0x80 { 1 } else { 3 };
            let closer = maybe.closer.then(|| scan.closer(&b[c..]));
            // Debug builds (every test) check what was passed over against the full answers.
            debug_assert!(
                maybe.closer
                    || closers(f).iter().all(|cl| {
                        let (cl, rest) = (cl.as_bytes(), &b[c..]);
                        !rest.starts_with(cl) && !cl.starts_with(rest)
                    }),
                "a closer passed over"
            );
            debug_assert!(
                maybe.think || matches!(self.decide_at(c, n_think, tools), Decision::No),
                "a reasoning marker passed over"
            );
            if maybe.think {
                match self.decide(c, n_think, tools) {
                    Decision::More => {
                        self.pos = c;
                        return false;
                    }
                    Decision::Yes { start, .. } => {
                        self.emit_block(f, start, tools);
                        return true;
                    }
                    Decision::No | Decision::Cut => {}
                }
            }
            match closer {
                Some(Ok(len)) => {
                    let e = c + len;
                    if let Some((p, done)) = self.block_done(f, e, tools) {
                        // A DSML section reopened after an invented fence: the piece before it
                        // is done ([`crate::response::dsml_reopened`]).
                        if f == Family::DeepSeekV32 && self.split_at_invented(f, &p, e, tools) {
                            return true;
                        }
                        if done && f != Family::FunctionGemma {
                            self.emit_parsed(f, e, p);
                            return true;
                        }
                        if done {
                            if let Some(moved) = self.chain_end(f, e, e, p) {
                                return moved;
                            }
                        }
                    }
                    if f == Family::DeepSeekV32 && self.bare_dsml_call() {
                        // What follows the invoke decides ([`Machine::dsml_trail_done`]), here
                        // as in a stream that ended at this closer.
                        self.dsml_trail = Some((e, e));
                        self.pos = c + step;
                        return true;
                    }
                }
                Some(Err(true)) if !self.finished => {
                    self.pos = c;
                    return false;
                }
                Some(Err(true)) => {
                    cut = cut.or(Some(c));
                }
                _ => {}
            }
            i = c + step;
        }
    }

    /// The scan tables of a block of `f` ([`block_scan`]), built when the family changes.
    fn block_scan(&mut self, f: Family, n_think: usize) -> Arc<BlockScan> {
        match &self.block_scan {
            Some(s) if s.family == f => s.clone(),
            _ => {
                let think = self.table.lits.get(..n_think).unwrap_or(&[]);
                // The lone tokens too: one cut by the reply's end right after removed markup
                // is a decision inside a block as well ([`Machine::cut_after_removed`]).
                let asked = think
                    .iter()
                    .map(|l| l.s)
                    .chain(super::orphan::lone_tokens());
                let s = Arc::new(BlockScan::new(f, asked, closers(f)));
                self.block_scan = Some(s.clone());
                s
            }
        }
    }

    fn ctx<'a>(&self, tools: Option<&'a Value>) -> Ctx<'a> {
        Ctx {
            tools,
            unwrapped: self.unwrapped,
        }
    }

    /// Whether the block `buf[..e]` is finished: every block the parser reads ends by `e` even
    /// with more text after it. When it is, what the parser read is the block's reading (it is
    /// not parsed a second time to be emitted), with `true`. A section still open is not parsed
    /// at all ([`sections`]; debug builds parse it to check that answer). A DSML block's reading
    /// comes back unfinished too (`false`): its first pieces may be done.
    fn block_done(&mut self, f: Family, e: usize, tools: Option<&Value>) -> Option<(Parsed, bool)> {
        // `step_block` asks at every closer of the block in order, so a section closer inside
        // `buf[..e]` was asked about before: remembered, the block is not searched for one.
        self.section_closed |= sections::ends_section(f, &self.buf[..e]);
        self.spent = self.spent.saturating_add(e);
        if self.spent > e.saturating_mul(16).saturating_add(1 << 20) {
            return None;
        }
        let unclosed = sections::unclosed(f, &self.buf[..e], self.section_closed);
        if unclosed && !cfg!(debug_assertions) {
            return None;
        }
        self.scratch.clear();
        self.scratch.push_str(&self.buf[..e]);
        self.scratch.push('\u{0}');
        let p = parse_family(f, &self.scratch, &self.ctx(tools));
        let done = p.blocks.iter().all(|b| b.end <= e);
        debug_assert!(!(unclosed && done), "an unclosed section ended early");
        (done || f == Family::DeepSeekV32).then_some((p, done))
    }

    fn emit_block(&mut self, f: Family, end: usize, tools: Option<&Value>) {
        let p = parse_family(f, &self.buf[..end], &self.ctx(tools));
        self.emit_parsed(f, end, p);
    }

    /// Emit the block `buf[..end]` as `p` read it.
    fn emit_parsed(&mut self, f: Family, end: usize, p: Parsed) {
        let Machine {
            em, buf, consumed, ..
        } = self;
        em.parsed(&buf[..end], *consumed, p, f);
        self.drain(end);
        self.state = State::Visible;
        self.pos = 0;
    }

    fn step_think(&mut self, p: usize) -> bool {
        let Some(pair) = ALWAYS.get(p) else {
            self.state = State::Visible;
            return true;
        };
        let mut best: Option<(usize, usize, bool)> = None;
        let from = floor(&self.buf, self.pos);
        let wrapper = p < PROSE_PAIRS && self.think_mode != Mode::Keep;
        for (marks, close) in [(pair.closes, true), (pair.ends, false)] {
            for m in marks {
                if let Some(i) = scan::find_from(&self.buf, m, from) {
                    let better = match best {
                        None => true,
                        Some((b, _, bc)) => i < b || (i == b && close && !bc),
                    };
                    if better {
                        best = Some((i, m.len(), close));
                    }
                }
            }
        }
        if wrapper && !self.final_in_think {
            // A `<final>` before the block's end: the answer may start there ([`final_tag`]).
            let end = best.map_or(self.buf.len(), |(c, ..)| c);
            if let Some(f) = scan::find_from(&self.buf[..end], final_tag::OPEN, from) {
                self.think_text(f);
                self.final_in_think = true;
                self.pos = 0;
                return true;
            }
        }
        match best {
            Some((c, len, close)) => {
                self.final_in_think = false;
                self.think_text(c);
                let used = if close {
                    if self.think_mode == Mode::Keep {
                        let Machine {
                            em, buf, consumed, ..
                        } = self;
                        em.text(&buf[..len], *consumed);
                    }
                    len
                } else {
                    0
                };
                self.drain(used);
                self.em.reasoning_end();
                self.held.end_block();
                self.state = State::Visible;
                self.pos = 0;
                true
            }
            None if self.finished && self.final_in_think && self.final_ends_reasoning() => true,
            None if self.finished => {
                self.final_in_think = false;
                self.think_text(self.buf.len());
                self.em.reasoning_end();
                self.held.end_block();
                if self.think_mode != Mode::Keep {
                    self.em.problems.push(
                        "thinking: a reasoning block is never closed; the rest is reasoning".into(),
                    );
                }
                self.state = State::Visible;
                self.pos = 0;
                true
            }
            None => {
                // Hold back only a tail that may still become a closing or ending marker.
                let len = self.buf.len();
                let mut safe = len;
                let opener: &[&str] = if wrapper { &[final_tag::OPEN] } else { &[] };
                for m in pair.closes.iter().chain(pair.ends).chain(opener) {
                    let from = floor(&self.buf, len.saturating_sub(m.len() - 1));
                    for (i, _) in self.buf[from..].char_indices() {
                        if m.as_bytes().starts_with(&self.buf.as_bytes()[from + i..]) {
                            safe = safe.min(from + i);
                            break;
                        }
                    }
                }
                if self.final_in_think {
                    // Held from the `<final>` until the block's end or the reply's says what
                    // it is; the next search starts where this one could not match.
                    self.pos = safe;
                } else {
                    self.think_text(safe);
                    self.pos = 0;
                }
                false
            }
        }
    }

    /// `buf[..n]` is reasoning: extract, strip or keep it, then drop it.
    fn think_text(&mut self, n: usize) {
        let mode = self.think_mode;
        let Machine {
            em,
            buf,
            held,
            consumed,
            ..
        } = self;
        // Once a call block was met outside reasoning, what reasoning holds stays reasoning.
        if !em.call_block_seen {
            held.text(&buf[..n]);
        }
        match mode {
            Mode::Keep => em.text(&buf[..n], *consumed),
            _ => em.reasoning(&buf[..n]),
        }
        self.drain(n);
    }

    fn step_r1(&mut self) -> bool {
        let n = *N_THINK;
        let mut i = self.pos;
        loop {
            // Markers are looked for only before the next code: a held fence still open is not
            // searched again to its end on every delta.
            let code = self.next_code(i);
            let m = next_cand(&self.buf[..code.unwrap_or(self.buf.len())], i);
            if let Some(k) = code.filter(|_| m.is_none()) {
                match self.skip_code(k) {
                    Some(next) => {
                        i = next;
                        continue;
                    }
                    None => {
                        // A fence still open (it is code up to its closer or the reply's end)
                        // reaching past the start region: no closing tag can end reasoning now
                        // (every one comes after the fence). Waiting for it to close re-read its
                        // last line and the text after `k` on every delta (an unclosed ```json
                        // line and 200 KB more in 16-byte deltas: ~100× the 20 KB time).
                        let open = self.r1_fence.is_some_and(|(o, _)| o == self.consumed + k);
                        if open && self.region && self.consumed + self.buf.len() > START_REGION {
                            self.r1_fence = None;
                            self.state = State::Visible;
                            self.pos = 0;
                            return true;
                        }
                        self.pos = k;
                        return false;
                    }
                }
            }
            let past = |at: usize| self.region && self.consumed + at > START_REGION;
            let Some(c) = m.filter(|&c| !past(c)) else {
                self.pos = self.buf.len();
                if self.finished || past(self.buf.len()) {
                    self.state = State::Visible;
                    self.pos = 0;
                    return true;
                }
                return false;
            };
            let decision = match self.decide(c, n, None) {
                // A closing tag quoted in an indented code block ends no reasoning.
                Decision::Yes { .. } | Decision::More if self.indented_code_line(c).is_some() => {
                    Decision::No
                }
                d => d,
            };
            match decision {
                Decision::No | Decision::Cut => {
                    i = c + self.buf[c..].chars().next().map_or(1, char::len_utf8);
                }
                Decision::More => {
                    self.pos = c;
                    return false;
                }
                Decision::Yes {
                    kind: Kind::ThinkClose(_),
                    start,
                    len,
                } if self.ends_line(start + len).is_some_and(|e| e)
                    && !thinking::named_at_line_end(&self.buf[..start])
                    || !self.region
                        && self.ends_line(start + len).is_some()
                        && thinking::ends_opened_reasoning(
                            &self.buf[..start],
                            &self.buf[start + len..],
                        ) =>
                {
                    // R1 style: everything before the first closing tag was reasoning.
                    self.marked = true;
                    self.held.text(&self.buf[..start]);
                    self.held.end_block();
                    if self.think_mode == Mode::Keep {
                        let Machine {
                            em, buf, consumed, ..
                        } = self;
                        em.text(&buf[..start + len], *consumed);
                    } else {
                        self.em.removed();
                        self.em.reasoning_begin();
                        let Machine { em, buf, .. } = self;
                        em.reasoning(&buf[..start]);
                        self.em.reasoning_end();
                    }
                    self.drain(start + len);
                    self.state = State::Visible;
                    self.pos = 0;
                    return true;
                }
                Decision::Yes {
                    kind: Kind::ThinkClose(_),
                    start,
                    len,
                } if self.ends_line(start + len).is_none() => {
                    self.pos = start;
                    return false;
                }
                Decision::Yes { .. } => {
                    // An opening tag first (or, by the start-region rule, a closing tag inside a
                    // sentence): the text before it is visible; scan it again.
                    self.state = State::Visible;
                    self.pos = 0;
                    return true;
                }
            }
        }
    }

    /// The families read from plain text: the whole-reply algorithm, on the whole text.
    fn batch_clean(&mut self, content: &str, tools: Option<&Value>) {
        // Where `content` starts in the reply (after a stripped thought channel, [`gemma_lead`]).
        let base = self.consumed;
        // A reasoning marker in code (an inline span, a fenced example) is text.
        let all_code = if self.ticks.off {
            Vec::new()
        } else if memchr::memchr2(b'`', b'~', content.as_bytes()).is_none() {
            super::indented_code::blocks(content)
        } else {
            crate::scrub::code_regions::CodeRegions::find(content)
                .with(super::indented_code::blocks(content))
                .ranges()
                .to_vec()
        };
        let mut thinks = super::late_think::reasoning_blocks(
            content,
            thinking::find_blocks_outside(content, self.extra, &all_code),
            self.extra.r1,
        );
        let keep = self.think_mode == Mode::Keep;
        final_tag::batch_reasoning_end(content, &mut thinks, keep);
        // The reply ends at a turn the model invented (read on the whole text here: the stream's
        // lone-token rules do not run for these families, [`super::invented_turn::find`]).
        let turn = if self.calls_on {
            let inside = |k: usize, r: &[std::ops::Range<usize>]| {
                let i = r.partition_point(|x| x.start <= k);
                i > 0 && k < r[i - 1].end
            };
            let outer: Vec<_> = thinks.iter().map(|t| t.outer.clone()).collect();
            super::invented_turn::find(content, |k| inside(k, &all_code) || inside(k, &outer))
        } else {
            None
        };
        // A reasoning marker the reply's end cut after a whole token of it, outside code and
        // reasoning: removed, as the stream removes it ([`thinking::cut_shows_token`]).
        let cut_think = (turn.is_none() && self.think_mode != Mode::Keep)
            .then(|| thinking::cut_at_end(content))
            .flatten();
        let cut_think = cut_think.filter(|&k| {
            !all_code.iter().any(|r| r.contains(&k)) && thinks.iter().all(|t| t.outer.end <= k)
        });
        let end = turn.map_or(cut_think.unwrap_or(content.len()), |t| t.end);
        thinks.retain(|t| t.outer.start < end);
        // The `<final>` wrapper is read in the text between blocks as the stream reads it.
        let whole = final_tag::Whole {
            text: content,
            base,
            code: &all_code,
            keep,
        };
        let mut fin = false;
        let mut pieces: Vec<(usize, usize)> = Vec::with_capacity(thinks.len() + 1);
        let mut at = 0;
        for t in &thinks {
            pieces.push((at, t.outer.start));
            at = t.outer.end;
        }
        pieces.push((at, end));
        let cx = self.ctx(tools);
        let family = if !self.calls_on {
            None
        } else if let Some(f) = self.lock {
            Some(f)
        } else {
            pieces
                .iter()
                .find_map(|&(s, e)| scan::detect(&content[s..e], self.hint))
                .or(self.hint)
        };
        let code = match family {
            // Harmony's calls are special tokens a model does not fence: a fenced one is an
            // example (`模板如下：` then the fence), whatever follows it.
            Some(f) => batch_code(content, &all_code, |fence| {
                f != Family::GptOss
                    && parse_family(f, fence, &cx)
                        .blocks
                        .iter()
                        .any(|b| !b.calls.is_empty())
            }),
            None => Vec::new(),
        };
        for (i, &(s, e)) in pieces.iter().enumerate() {
            match family {
                Some(f) => {
                    // Code (inline spans, fenced examples) is text; what lies between is read.
                    // An empty region at `e` reads what follows the last one.
                    let quoted = code.iter().filter(|r| r.end > s && r.start < e);
                    let regions = quoted.map(|r| (r.start.max(s), r.end.min(e)));
                    let mut at = s;
                    for (cs, ce) in regions.chain([(e, e)]) {
                        if cs > at {
                            let part = &content[at..cs];
                            let p = parse_family(f, part, &cx);
                            // The markers named in a sentence stay; the rest is read around them.
                            let named = batch_named::ranges(f, part, &p);
                            let mut whole_part = named.is_empty().then_some(p);
                            let mut k = 0;
                            for r in named.iter().chain([&(part.len()..part.len())]) {
                                if r.start > k {
                                    let piece = &part[k..r.start];
                                    let p = whole_part
                                        .take()
                                        .unwrap_or_else(|| parse_family(f, piece, &cx));
                                    self.em.parsed_with(piece, base + at + k, p, f, |em, t, a| {
                                        final_tag::batch_text(
                                            em,
                                            &mut fin,
                                            &whole,
                                            a - base,
                                            a - base + t.len(),
                                        )
                                    });
                                }
                                if r.end > r.start {
                                    let (s, e) = (at + r.start, at + r.end);
                                    final_tag::batch_text(&mut self.em, &mut fin, &whole, s, e);
                                }
                                k = r.end;
                            }
                        }
                        if ce > cs {
                            let quoted = &content[cs..ce];
                            // Reported when it holds one of the family's openers, as a stream
                            // reports an opener in code, or would have been a call (or a broken
                            // one); a turn end the family only strips is not (nor in `auto`).
                            let p = parse_family(f, quoted, &cx);
                            if !p.problems.is_empty()
                                || p.blocks.iter().any(|b| b.keep_raw || !b.calls.is_empty())
                                || openers(f, cx.unwrapped).iter().any(|&(pre, o)| {
                                    (quoted.match_indices(o))
                                        .any(|(i, _)| quoted[..i].ends_with(pre))
                                })
                            {
                                self.code_problem("code");
                            }
                            self.em.text(quoted, base + cs);
                        }
                        at = ce;
                    }
                }
                None => final_tag::batch_text(&mut self.em, &mut fin, &whole, s, e),
            }
            if let Some(t) = thinks.get(i) {
                self.held.text(&content[t.inner.clone()]);
                self.held.end_block();
                if self.think_mode == Mode::Keep {
                    self.em
                        .text(&content[t.outer.clone()], base + t.outer.start);
                    continue;
                }
                self.em.removed();
                self.em.reasoning_begin();
                self.em.reasoning(&content[t.inner.clone()]);
                self.em.reasoning_end();
                if !t.closed {
                    self.em.problems.push(
                        "thinking: a reasoning block is never closed; the rest is reasoning".into(),
                    );
                }
            }
        }
        if let Some(k) = cut_think {
            self.em.problems.push(reply_end::cut_problem(&content[k..]));
            self.em.removed();
        }
        match turn {
            Some(t) if t.cut => {
                self.em
                    .problems
                    .push(reply_end::cut_problem(&content[t.at..]));
                self.em.removed();
            }
            Some(t) => {
                // Reported at `finish`, as the stream reports it.
                self.em.removed();
                self.invented = Some(content[t.at..].to_owned());
            }
            None => {}
        }
    }
}

/// The code regions of a reply read as a whole by a plain-text family (inline spans and fenced
/// blocks, found as the scrubbers find them), except a fence that ends the reply (whitespace
/// aside) and holds a call (`calls`, asked of the fence's text): with the model named, a fence
/// with nothing after it is how the model wrote its call (`Calling:` and a fenced JSON array),
/// while an example has prose after it. A fence that holds no call is an example wherever it
/// stands: a template shown after `Harmony 模板：` (its `<|start|>`, `<|message|>`, `<|end|>`), a
/// lone `<|eot|>`, an opener with nothing after it stay as written.
fn batch_code(
    content: &str,
    regions: &[std::ops::Range<usize>],
    calls: impl Fn(&str) -> bool,
) -> Vec<std::ops::Range<usize>> {
    let end = content.trim_end().len();
    let ends_reply = |r: &std::ops::Range<usize>| {
        let t = &content[r.start..];
        r.end >= end && (t.starts_with("```") || t.starts_with("~~~")) && calls(&content[r.clone()])
    };
    regions.iter().filter(|r| !ends_reply(r)).cloned().collect()
}

mod answer_tag;
mod batch_named;
mod block_scan;
mod call_chain;
mod code;
#[cfg(test)]
mod code_props;
mod cut_body;
mod cut_closer;
mod fence_wait;
mod final_tag;
mod find_any;
mod gemma_lead;
mod held_cut;
mod in_reasoning;
mod indented;
mod invented;
mod json_data;
mod leaks;
mod offered_line;
mod reply_end;
mod sections;
#[cfg(test)]
mod tests;
mod unoffered_mistral;
