//! The stream machine's checks for calls whose markers the server stripped: Qwen3-Coder's
//! `<function=` without `<tool_call>` ([`Check::Function`]), bare JSON calls naming an offered
//! tool ([`Check::ToolJson`], [`crate::response::tool_json`]), Mistral's call array without
//! `[TOOL_CALLS]` ([`Check::MistralArray`]), and orphan closing tags ([`Kind::Orphan`],
//! [`crate::response::orphan`]).
//!
//! A bare JSON call is settled only once its value is complete, so the scan for its end resumes
//! where it stopped across deltas, and the bytes scanned for candidates that are settled are
//! charged to a budget of a few passes over the reply up to the candidate: openers that never
//! close (`{"name": "read_file", ` repeated) stay linear. Charges depend on the text alone, so a
//! stream decides as the whole reply does.

use serde_json::Value;

use super::find_any::find_stop;
use super::json_data;
use super::{Check, Decision, Kind, Machine, Verdict, WINDOW};
use crate::response::scan::depth::{Brackets, Depth};
use crate::response::{
    bare_json, bracket_calls, dsml_garbled_opener, gemma_unused, glm45, invented_turn, kimi_k2,
    named_json, orphan, qwen3_coder, stray_word, tool_json, tool_result, Family,
};

/// A stripped Harmony call's recipient.
const TO: &str = "to=functions.";
/// The header words that may come right before [`TO`] in a stripped Harmony call, longest first
/// (each with the spacing gpt-oss writes).
const HARMONY_PRES: &[&str] = &[
    "assistant commentary ",
    "assistantcommentary ",
    "assistant ",
    "commentary ",
];

/// Where the scan for the end of a bare JSON value stands.
#[derive(Debug, Default)]
pub(super) struct JsonState {
    /// The value being scanned: `(absolute start, absolute scanned-to, its scan)`.
    scan: Option<(usize, usize, Depth)>,
    /// Bytes charged so far, and the first position not charged yet.
    spent: usize,
    charged_to: usize,
    /// The last `{` search: `(from, hit, searched up to)`, absolute.
    brace_memo: Option<(usize, Option<usize>, usize)>,
    /// The last `to=functions.` search, likewise.
    to_memo: Option<(usize, Option<usize>, usize)>,
    /// The last `(` search, likewise ([`super::offered_line`]).
    paren_memo: Option<(usize, Option<usize>, usize)>,
    /// The last marker-byte search, likewise.
    cand_memo: Option<(usize, Option<usize>, usize)>,
    /// The end (in `buf`) of the value [`Machine::settle_json`] settled last.
    settled: usize,
    /// Which orphan closers' opening tags were kept as text (bit `i` for `orphan::CLOSERS[i]`,
    /// then one per DSML tag name: [`orphan::closer_at`]).
    texts_open: orphan::CloserBits,
    /// A GLM-V answer-box opener was kept as text: its closer is that text's too.
    box_kept: bool,
    /// Where (absolute) a lone token kept as text ends: a lone token written right there is
    /// text too, the run being one (`结尾：<|end|><|endoftext|>` names both).
    lone_text_end: Option<usize>,
    /// The call settled last, `(absolute start, length)`: the block [`Machine::step_block`]
    /// emits when it opens there.
    pub(super) fixed: Option<(usize, usize)>,
    /// The absolute start of a settled block that leaves the family unchosen (Mistral's call
    /// abandoned after its id: another format's call after it is still read).
    pub(super) unchosen: Option<usize>,
    /// The JSON object of visible text whose values are data, not calls ([`json_data`]).
    pub(super) data: json_data::DataObject,
    /// The reading of the block settled last when its check read it already (a pythonic line,
    /// [`super::offered_line`]): emitted as it is.
    pub(super) parsed: Option<crate::response::Parsed>,
}

impl JsonState {
    /// The length of the block settled whole that starts at absolute `at`, if any.
    pub(super) fn fixed_block(&mut self, at: usize) -> Option<usize> {
        match self.fixed.take() {
            Some((s, n)) if s == at => Some(n),
            _ => None,
        }
    }
}

impl Machine {
    /// The next candidate byte of visible text: a marker byte, or `{` when bare JSON calls can
    /// be read (remembered, so scanning from one `<` to the next does not rescan to a far `{`).
    pub(super) fn next_visible_cand(&mut self, i: usize) -> Option<usize> {
        // With code tracking on, a backtick or tilde stops the scan too.
        let code = !self.ticks.off;
        if !self.has_tools {
            let b = self.buf.as_bytes().get(i..)?;
            return find_stop(code, b).map(|k| i + k);
        }
        // With more kinds of candidate, each kind's search is remembered: the next `<` may lie
        // far past many `{` (and the other way round), and must not be searched for again.
        let (consumed, from) = (self.consumed, self.consumed + i);
        let buf = &self.buf;
        let j = &mut self.json;
        let mut m = remembered(buf, consumed, from, 1, &mut j.cand_memo, |b| {
            find_stop(code, b)
        });
        let mut hits = [None, None, None];
        if self.braces {
            hits[0] = remembered(buf, consumed, from, 1, &mut j.brace_memo, |b| {
                memchr::memchr(b'{', b)
            });
            hits[2] = remembered(buf, consumed, from, 1, &mut j.paren_memo, |b| {
                memchr::memchr(b'(', b)
            });
        }
        if self.harmony {
            hits[1] = remembered(buf, consumed, from, TO.len(), &mut j.to_memo, |b| {
                memchr::memmem::find(b, TO.as_bytes())
            });
        }
        for h in hits.into_iter().flatten() {
            m = Some(m.map_or(h, |m| m.min(h)));
        }
        m
    }

    /// `<|tool_call_argument_begin|>` (or the start of it at the end of `buf`) at `c` right after
    /// a bare Kimi call id `functions.NAME:IDX`: the call whose `<|tool_call_begin|>` was stripped,
    /// starting at the id. `None`: not that, decide as usual.
    /// After words on its line, with sentence text after the token and naming no offered tool, it
    /// is the call's shape named in a sentence
    /// ([`crate::response::call_in_sentence::kimi_args_named`]): text.
    pub(super) fn decide_kimi_bare(&mut self, c: usize, tools: Option<&Value>) -> Option<Decision> {
        if !(self.calls_on && matches!(self.lock, None | Some(Family::KimiK2))) {
            return None;
        }
        let rest = &self.buf[c..];
        let full = rest.starts_with(kimi_k2::ARG_BEGIN);
        if !full && (self.finished || !kimi_k2::ARG_BEGIN.starts_with(rest)) {
            return None;
        }
        let start = kimi_k2::bare_id_start(&self.buf[..c], self.kimi_plain())?;
        if !full {
            return Some(Decision::More);
        }
        let words = self.words_before(start);
        if words {
            let id = self.buf[start..c].trim_end();
            let args = &self.buf[c + kimi_k2::ARG_BEGIN.len()..];
            let tools = tools.filter(|_| self.has_tools);
            let named = crate::response::call_in_sentence::kimi_args_named;
            match named(id, args, tools, self.finished) {
                Some(true) => return None,
                Some(false) => {}
                None => return Some(Decision::More),
            }
        }
        Some(Decision::Yes {
            start,
            len: c + kimi_k2::ARG_BEGIN.len() - start,
            kind: Kind::Call(Check::Fam(Family::KimiK2)),
        })
    }

    /// Where a bare Kimi call id ending at candidate `c` starts (`c` when there is none).
    pub(super) fn kimi_id_start(&self, c: usize) -> usize {
        if !(self.calls_on && matches!(self.lock, None | Some(Family::KimiK2))) {
            return c;
        }
        kimi_k2::bare_id_start(&self.buf[..c], self.kimi_plain()).unwrap_or(c)
    }

    /// How much of `buf` may be emitted without cutting a bare Kimi call id still completing.
    pub(super) fn hold_kimi_id(&self) -> usize {
        let len = self.buf.len();
        if !(self.calls_on && matches!(self.lock, None | Some(Family::KimiK2))) {
            return len;
        }
        kimi_k2::partial_id_start(&self.buf, self.kimi_plain()).unwrap_or(len)
    }

    /// Where a Kimi call id without its `functions.` prefix is read: first in the reply (nothing
    /// visible before it) when `tools` are offered or the format names Kimi K2; opening the
    /// reply (nothing before it but spaces, not even reasoning) and glued to the token after it
    /// whatever the options (Kimi's `<|tool_call_argument_begin|>` is the evidence:
    /// typeclaw#344); at any line's start once a Kimi block was read. Elsewhere `NAME:0` is an
    /// ordinary word. So a stream holds back the reply's first word while the text so far is
    /// that one word with nothing after it (`Answer` until the space or `,` after it comes; with
    /// no model or format named the start of the reply is held longer anyway, for a closing
    /// reasoning tag); the first word after reasoning and every other line's go out at once.
    fn kimi_plain(&self) -> kimi_k2::Plain {
        let kimi = self.lock == Some(Family::KimiK2);
        let asked = self.has_tools || self.hint == Some(Family::KimiK2);
        let opens = !(self.em.any_visible || self.marked);
        kimi_k2::Plain {
            first: (!self.em.any_visible && asked) || opens || kimi,
            lines: kimi,
            // Released text ends mid-line: `buf`'s start is not a line's (whole and streamed alike).
            mid_line: self.col == usize::MAX,
            tight: !asked && !kimi,
        }
    }

    /// Where a stripped Harmony header that ends at candidate `c` (a `t` of [`TO`]) begins.
    pub(super) fn harmony_start(&self, c: usize) -> usize {
        if !self.buf[c..].starts_with(TO) {
            return c;
        }
        HARMONY_PRES
            .iter()
            .find(|p| self.buf[..c].ends_with(**p))
            .map_or(c, |p| c - p.len())
    }

    /// How much of `buf` may be emitted without cutting a stripped Harmony header that may still
    /// be completing at its end (`assistant to=func`).
    pub(super) fn hold_harmony(&self) -> usize {
        let len = self.buf.len();
        if !(self.harmony && self.has_tools) {
            return len;
        }
        let bytes = self.buf.as_bytes();
        let longest = HARMONY_PRES[0].len() + TO.len();
        let from = super::floor(&self.buf, len.saturating_sub(longest));
        for k in from..len {
            let tail = &bytes[k..];
            let starts = HARMONY_PRES.iter().chain(&[""]).any(|p| {
                let whole = [p.as_bytes(), TO.as_bytes()].concat();
                whole.len() > tail.len() && whole.starts_with(tail)
            });
            if starts {
                return k;
            }
        }
        len
    }

    /// `to=functions.NAME` at `c`, NAME an offered tool, then the header's words and a JSON
    /// object: a gpt-oss call whose special tokens the server stripped (settled once the object
    /// is complete; the block starts at the header's first word).
    pub(super) fn decide_harmony(&mut self, c: usize, tools: Option<&Value>) -> Decision {
        let rest = &self.buf[c..];
        if !rest.starts_with(TO) {
            return Decision::No;
        }
        let name_at = c + TO.len();
        let r = &self.buf[name_at..];
        let Some(n) = r.find(|ch: char| !(ch.is_alphanumeric() || "_-.".contains(ch))) else {
            return if self.finished || r.len() > 256 {
                Decision::No
            } else {
                Decision::More
            };
        };
        if bare_json::resolve(tools, &r[..n]).is_none() {
            return Decision::No;
        }
        // The rest of the header line (`commentary`, `<|constrain|>json`, or noise the model
        // wrote there), at most 64 bytes, then the JSON object on that line or the next.
        let k = name_at + n;
        let line = &self.buf.as_bytes()[k..];
        let Some(stop) = memchr::memchr2(b'{', b'\n', &line[..line.len().min(65)]) else {
            return if self.finished || line.len() > 64 {
                Decision::No
            } else {
                Decision::More
            };
        };
        let t = &self.buf[k + stop..];
        let lead = t.len() - t.trim_start().len();
        match t.as_bytes().get(lead) {
            Some(b'{') => {}
            None if !self.finished => return Decision::More,
            _ => return Decision::No,
        }
        let json_at = k + stop + lead;
        let end = match self.settle_json(json_at) {
            Verdict::Yes(_) => self.json.settled,
            Verdict::More => return Decision::More,
            Verdict::No => return Decision::No,
        };
        let start = self.harmony_start(c);
        self.json.fixed = Some((self.consumed + start, end - start));
        Decision::Yes {
            start,
            len: end - start,
            kind: Kind::Call(Check::Fam(Family::GptOss)),
        }
    }

    /// `{` at `c` right after an offered tool's name (`exec{"command": …}`, or the log line
    /// `Called Tool: 'NAME' with arguments: `, [`crate::response::named_json`]): the call, settled
    /// once its object is complete, starting at the name (or the line). `None`: decide as usual.
    pub(super) fn decide_named_json(
        &mut self,
        c: usize,
        tools: Option<&Value>,
    ) -> Option<Decision> {
        if !(self.braces && self.has_tools) || self.over_budget(self.consumed + c) {
            return None;
        }
        let lead = named_json::lead_before(&self.buf[..c], tools)?;
        let start = lead.start;
        let end = match self.settle_json(c) {
            Verdict::Yes(_) => self.json.settled,
            Verdict::More => return Some(Decision::More),
            // Cut off by the end of the reply: removed and reported when its head is evidence
            // enough (`tool_json`'s `cut_tail` reads the block the same way).
            Verdict::No
                if self.cut_at(c) && named_json::cut_evidence(&self.buf, &lead, c, tools) =>
            {
                let len = self.buf.len() - start;
                self.json.fixed = Some((self.consumed + start, len));
                return Some(Decision::Yes {
                    start,
                    len,
                    kind: Kind::Call(Check::Fam(Family::ToolJson)),
                });
            }
            Verdict::No => return None,
        };
        named_json::call_at(&self.buf, &lead, c, end, tools)?;
        // Gemini's wrapped form: its `/>` goes with the call; Gemma's `call:NAME({…})` needs its
        // `)`, unless the reply ends where it would come (the block's reading reports the cut).
        let end = match named_json::tail_end(&self.buf, end, lead.tail, self.finished) {
            named_json::TailEnd::At(end) | named_json::TailEnd::Cut(end) => end,
            named_json::TailEnd::More => return Some(Decision::More),
            named_json::TailEnd::Missing => return None,
        };
        self.json.fixed = Some((self.consumed + start, end - start));
        Some(Decision::Yes {
            start,
            len: end - start,
            kind: Kind::Call(Check::Fam(Family::ToolJson)),
        })
    }

    /// Hermes Agent's `[Calling tool: NAME with arguments: {…}]` whose head ends at `after`
    /// ([`crate::response::bracket_calls`]): settled whole once its object and `]` are there (or
    /// the reply ends inside or right after the object), the family left unchosen (the head is
    /// Hermes', whatever model wrote it).
    pub(super) fn check_calling_args(&mut self, after: usize) -> Verdict {
        let fin = self.finished;
        let off = match bracket_calls::calling_args_head(&self.buf[after..], fin) {
            Some(Some(off)) => off,
            Some(None) => return Verdict::No,
            None => return Verdict::More,
        };
        let json_at = after + off;
        let end = match self.settle_json(json_at) {
            Verdict::Yes(_) => {
                let settled = self.json.settled;
                let rest = &self.buf.as_bytes()[settled..];
                if !fin
                    && rest.len() <= bracket_calls::ARGS_SPACES
                    && rest.iter().all(|&b| b == b' ' || b == b'\t')
                {
                    return Verdict::More;
                }
                match bracket_calls::args_close(&self.buf, settled, fin) {
                    Ok(end) => end,
                    Err(true) => self.buf.len(),
                    Err(false) => return Verdict::No,
                }
            }
            Verdict::More => return Verdict::More,
            Verdict::No if self.cut_at(json_at) => self.buf.len(),
            Verdict::No => return Verdict::No,
        };
        let start = self.consumed + after - bracket_calls::CALLING.len();
        self.json.fixed = Some((start, self.consumed + end - start));
        self.json.unchosen = Some(start);
        Verdict::Yes(Family::BracketCalls)
    }

    /// Where the lead naming a tool that ends at candidate `c` begins (`c` when none): before a
    /// `{`, the whole lead; at a `[`, an offered name right before it (Mistral's `NAME[ARGS]`
    /// may be arriving).
    pub(super) fn named_start(&self, c: usize, tools: Option<&Value>) -> usize {
        if !(self.braces && self.has_tools) {
            return c;
        }
        match self.buf.as_bytes().get(c) {
            Some(b'{') => named_json::lead_before(&self.buf[..c], tools).map_or(c, |l| l.start),
            Some(b'[') => named_json::args_lead_start(&self.buf[..c], tools).unwrap_or(c),
            _ => c,
        }
    }

    /// How much of `buf` may be emitted without cutting a word (or log line) at its end that may
    /// still become the lead of a named call.
    pub(super) fn hold_tool_name(&self, tools: Option<&Value>) -> usize {
        let len = self.buf.len();
        if !(self.braces && self.has_tools) {
            return len;
        }
        named_json::partial_lead_start(&self.buf, tools).unwrap_or(len)
    }

    /// `<function=` (ending at `after`): Qwen3-Coder when its head is unambiguous and
    /// `</function>` comes later.
    pub(super) fn check_function(&mut self, after: usize) -> Verdict {
        let at = after - "<function=".len();
        let full = self.finished || self.buf.len() - after >= WINDOW;
        // A strong head with no `</function>` by the end of the reply is a call cut off there.
        match qwen3_coder::strong_head(&self.buf[at..], full) {
            Some(true) if self.later("</function>", after) || self.finished => {
                Verdict::Yes(Family::Qwen3Coder)
            }
            Some(true) | None => Verdict::More,
            Some(false) => Verdict::No,
        }
    }

    /// `<name>` or `<parameter=` (ending at `after`) at a line's start: a Qwen3-Coder call whose
    /// `<function=NAME>` the model garbled, when its head reads as one; with no `</function>` by
    /// the end of the reply, a call cut off there (as [`Machine::check_function`] reads it).
    pub(super) fn check_garbled(&mut self, after: usize, tools: Option<&Value>) -> Verdict {
        let tag = if self.buf[..after].ends_with(qwen3_coder::NAME_TAG) {
            qwen3_coder::NAME_TAG
        } else {
            "<parameter="
        };
        let at = after - tag.len();
        if tag != qwen3_coder::NAME_TAG && self.lost_head_start(at) < at {
            // The head written `function=NAME">`, its `<` lost, on the line before.
            return if self.later("</function>", after) || self.finished {
                Verdict::Yes(Family::Qwen3Coder)
            } else {
                Verdict::More
            };
        }
        if !self.at_line_start(at) {
            return Verdict::No;
        }
        let full = self.finished || self.buf.len() - at >= WINDOW;
        match qwen3_coder::garbled_head(&self.buf[at..], full) {
            Some(true) if self.later("</function>", after) || self.finished => {
                Verdict::Yes(Family::Qwen3Coder)
            }
            Some(true) | None => Verdict::More,
            // Cut by the end of the reply inside its head ([`qwen3_coder::garbled_cut`]).
            Some(false) if self.finished && qwen3_coder::garbled_cut(&self.buf[at..], tools) => {
                Verdict::Yes(Family::Qwen3Coder)
            }
            Some(false) => Verdict::No,
        }
    }

    /// `find`'s answer on `buf` when it starts a line and a call of family `f` is still looked
    /// for; `or` otherwise (the heads that open a block on the line before their tag).
    pub(super) fn line_head_of(
        &self,
        f: Family,
        or: usize,
        find: impl FnOnce(&str) -> Option<usize>,
    ) -> usize {
        if !(self.calls_on && self.lock.is_none_or(|l| l == f)) {
            return or;
        }
        match find(&self.buf) {
            Some(h) if self.at_line_start(h) => h,
            _ => or,
        }
    }

    /// Where the Qwen3-Coder head that lost its `<` ([`qwen3_coder::lost_head_before`]), at a
    /// line's start, begins before candidate `c`; `c` when none (or no such call is looked for).
    pub(super) fn lost_head_start(&self, c: usize) -> usize {
        self.line_head_of(Family::Qwen3Coder, c, |b| {
            qwen3_coder::lost_head_before(&b[..c])
        })
    }

    /// Where a stray word before the invoke at `c` starts ([`stray_word`]; `c` when there is
    /// none): the word's line opens the block.
    pub(super) fn stray_start(&self, c: usize) -> usize {
        self.line_head_of(Family::MinimaxM2, c, |b| stray_word::start_before(&b[..c]))
    }

    /// Where a garbled DSML section opener's line before the invoke at `c` starts
    /// ([`dsml_garbled_opener`]; `c` when there is none, or no invoke may start at `c`).
    pub(super) fn garbled_opener_start(&self, c: usize) -> usize {
        let head = self.buf.get(c + 1..).unwrap_or("");
        let invoke = match crate::response::dsml::head(head) {
            Some((_, name)) => name == "invoke",
            None => crate::response::dsml::head_prefix(head),
        };
        if !invoke {
            return c;
        }
        self.line_head_of(Family::DeepSeekV32, c, |b| {
            dsml_garbled_opener::start_before(&b[..c])
        })
    }

    /// How much of `buf` may be emitted without cutting off a last line that may still become a
    /// garbled DSML section opener ([`dsml_garbled_opener::partial`]).
    pub(super) fn hold_garbled_opener(&self) -> usize {
        let len = self.buf.len();
        self.line_head_of(Family::DeepSeekV32, len, dsml_garbled_opener::partial)
    }

    /// How much of `buf` may be emitted without cutting off a last line that may still become a
    /// stray word before an invoke ([`stray_word::partial`]).
    pub(super) fn hold_stray_word(&self) -> usize {
        let len = self.buf.len();
        self.line_head_of(Family::MinimaxM2, len, stray_word::partial)
    }

    /// How much of `buf` may be emitted without cutting off a last line that may still become a
    /// lost-`<` head ([`qwen3_coder::lost_head_partial`]).
    pub(super) fn hold_lost_head(&self) -> usize {
        let len = self.buf.len();
        self.line_head_of(Family::Qwen3Coder, len, qwen3_coder::lost_head_partial)
    }

    /// `<function_calls>` (ending at `after`) wrapping an invoke: MiniMax-M2's grammar in
    /// Anthropic's wrapper; or it (or `<tool_use>`) wrapping a JSON call of an offered tool (the
    /// whole wrapper is then the bare JSON call's block, [`tool_json::WRAPPERS`]).
    pub(super) fn check_invoke_wrapper(&mut self, after: usize, tools: Option<&Value>) -> Verdict {
        const INVOKE: &str = "<invoke name=";
        let t = self.buf[after..].trim_start();
        if matches!(t.as_bytes().first(), Some(b'[' | b'{')) {
            let json_at = self.buf.len() - t.len();
            let Some((open, _)) = tool_json::wrapper_before(&self.buf[..after]) else {
                return Verdict::No;
            };
            if !self.has_tools {
                return self.settle_wrapped(open, json_at);
            }
            return self.settle_call_json(open, json_at, tools);
        }
        if self.buf[..after].ends_with(tool_json::TOOL_USE) {
            // `<tool_use>` wraps JSON only.
            return if t.is_empty() && !self.finished {
                Verdict::More
            } else {
                Verdict::No
            };
        }
        if t.starts_with(INVOKE) && self.lock.is_none() {
            if self.later("</invoke>", after) {
                Verdict::Yes(Family::MinimaxM2)
            } else if self.finished {
                Verdict::No
            } else {
                Verdict::More
            }
        } else if !self.finished && t.len() < INVOKE.len() && INVOKE.starts_with(t) {
            Verdict::More
        } else {
            Verdict::No
        }
    }

    /// `[` (ending at `after`) at the very start of a Mistral reply, then `{"name"`: the call
    /// array whose `[TOOL_CALLS]` the server stripped.
    pub(super) fn check_mistral_array(&mut self, after: usize) -> Verdict {
        // Nothing visible before it: neither emitted nor still in `buf` (whole or streamed alike).
        if self.em.any_visible || !self.buf[..after - 1].trim().is_empty() {
            return Verdict::No;
        }
        let r = self.buf[after..].trim_start();
        let Some(r) = r.strip_prefix('{') else {
            return if r.is_empty() && !self.finished {
                Verdict::More
            } else {
                Verdict::No
            };
        };
        let r = r.trim_start();
        if r.starts_with("\"name\"") {
            Verdict::Yes(Family::Mistral)
        } else if !self.finished && "\"name\"".starts_with(r) {
            Verdict::More
        } else {
            Verdict::No
        }
    }

    /// `{` or `[` (ending at `after`): a bare JSON call naming an offered tool, settled once the
    /// value is complete.
    /// A value inside an object that is no call is that object's data ([`json_data`]).
    pub(super) fn check_tool_json(&mut self, after: usize, tools: Option<&Value>) -> Verdict {
        let c = after - 1;
        let q = self.consumed + c;
        if self.json.data.holds(self.buf.as_bytes(), self.consumed, q) {
            return Verdict::No;
        }
        let v = self.settle_call_json(c, c, tools);
        let text = matches!(v, Verdict::No);
        if text && self.buf.as_bytes()[c] == b'{' && self.braces && self.has_tools {
            // The empty call wrapper as the whole reply: held to the end, which decides.
            let first = !self.em.any_visible && self.buf[..c].trim().is_empty();
            match first.then(|| tool_json::empty_tool_calls(&self.buf[c..])) {
                Some(Some(true)) if self.finished => {
                    self.json.fixed = Some((q, self.buf.len() - c));
                    return Verdict::Yes(Family::ToolJson);
                }
                Some(Some(true) | None) if !self.finished => return Verdict::More,
                _ => {}
            }
            match json_data::object_head(&self.buf[c..], self.finished) {
                Some(true) => self.json.data.start(q),
                Some(false) => {}
                None => return Verdict::More,
            }
        }
        v
    }

    /// The bare JSON call whose value opens at `json_at` and whose block starts at `open` (the
    /// value itself, or a wrapper tag before it): `Yes` once the value is complete and it is one
    /// call block of offered tools from `open` to its end.
    fn settle_call_json(&mut self, open: usize, json_at: usize, tools: Option<&Value>) -> Verdict {
        let q = self.consumed + open;
        if !(self.braces && self.has_tools) || self.over_budget(q) {
            return Verdict::No;
        }
        let full = self.finished || self.buf.len() - json_at >= WINDOW;
        match tool_json::opens_call(&self.buf[json_at..], tools, full) {
            None => return Verdict::More,
            Some(false) => return Verdict::No,
            Some(true) => {}
        }
        let mut end = match self.settle_json(json_at) {
            Verdict::Yes(_) => self.json.settled,
            // Cut off by the end of the reply: the block runs to the end (read by the parse
            // below as `tool_json`'s cut block).
            Verdict::No if self.cut_at(json_at) => self.buf.len(),
            v => return v,
        };
        let wrapper = (open < json_at)
            .then(|| tool_json::wrapper_before(&self.buf[..json_at]))
            .flatten();
        if let Some((_, close)) = wrapper {
            // The wrapper's closing tag goes with the block: wait to see whether it follows.
            match tool_json::closer_after(&self.buf, end, close) {
                Some(e) => end = e,
                None => {
                    let t = self.buf[end..].trim_start();
                    if !self.finished && t.len() < close.len() && close.starts_with(t) {
                        return Verdict::More;
                    }
                }
            }
        }
        let span = &self.buf[open..end];
        let p = tool_json::parse(span, &self.ctx(tools));
        if p.blocks.len() == 1 && p.blocks[0].start == 0 && p.blocks[0].end == span.len() {
            self.json.fixed = Some((q, end - open));
            Verdict::Yes(Family::ToolJson)
        } else {
            Verdict::No
        }
    }

    /// Without tools: the wrapper at `open` (its JSON at `json_at`) holding one call object alone
    /// ([`tool_json::parse`]'s one form without tools), settled once its closing tag and the end
    /// of its line came.
    fn settle_wrapped(&mut self, open: usize, json_at: usize) -> Verdict {
        let q = self.consumed + open;
        let alone = tool_json::ALONE
            .iter()
            .any(|o| self.buf[open..].starts_with(o));
        if !alone || !self.braces || self.over_budget(q) || !self.at_line_start(open) {
            return Verdict::No;
        }
        match tool_json::strict_head(&self.buf[json_at..]) {
            Some(true) => {}
            None if !self.finished => return Verdict::More,
            _ => return Verdict::No,
        }
        let end = match self.settle_json(json_at) {
            Verdict::Yes(_) => self.json.settled,
            v => return v,
        };
        let Some((_, close)) = tool_json::wrapper_before(&self.buf[..json_at]) else {
            return Verdict::No;
        };
        let Some(end) = tool_json::closer_after(&self.buf, end, close) else {
            let t = self.buf[end..].trim_start();
            let more = !self.finished && t.len() < close.len() && close.starts_with(t);
            return if more { Verdict::More } else { Verdict::No };
        };
        match self.ends_line(end) {
            None => return Verdict::More,
            Some(false) => return Verdict::No,
            Some(true) => {}
        }
        let span = &self.buf[open..end];
        let p = tool_json::parse(span, &self.ctx(None));
        if p.blocks.len() == 1 && p.blocks[0].start == 0 && p.blocks[0].end == span.len() {
            self.json.fixed = Some((q, end - open));
            Verdict::Yes(Family::ToolJson)
        } else {
            Verdict::No
        }
    }

    /// The bracketed value at `at`: `Yes` once complete (its end in `self.json.settled`), `More`
    /// while it may still close, `No` when it never closes or the budget is spent. The bytes
    /// scanned are charged once it is settled.
    fn settle_json(&mut self, at: usize) -> Verdict {
        let q = self.consumed + at;
        if self.over_budget(q) {
            return Verdict::No;
        }
        match self.json_end(at) {
            Some(end) => {
                self.charge(q, end - at);
                self.json.settled = end;
                Verdict::Yes(Family::ToolJson)
            }
            None if self.finished => {
                self.charge(q, self.buf.len() - at);
                Verdict::No
            }
            None => Verdict::More,
        }
    }

    /// Whether the bracketed value at `c` was scanned to the end of a finished reply without
    /// closing ([`Machine::settle_json`] said no for that reason, not for the budget).
    fn cut_at(&self, c: usize) -> bool {
        self.finished
            && matches!(self.json.scan, Some((s, to, ..)) if s == self.consumed + c
                && to == self.consumed + self.buf.len())
    }

    /// Whether the bytes charged so far exceed a few passes over the reply up to absolute `q`.
    fn over_budget(&self, q: usize) -> bool {
        self.json.spent > q.saturating_mul(16).saturating_add(1 << 20)
    }

    /// Charge the candidate at absolute `q` for `n` bytes, once.
    fn charge(&mut self, q: usize, n: usize) {
        if q >= self.json.charged_to {
            self.json.spent = self.json.spent.saturating_add(n);
            self.json.charged_to = q + 1;
        }
    }

    /// The end (exclusive, in `buf`) of the bracketed value at `c`, as
    /// [`crate::response::scan::balanced_end`] finds it, resuming an earlier scan of the same value.
    fn json_end(&mut self, c: usize) -> Option<usize> {
        let q = self.consumed + c;
        let (at, mut depth) = match self.json.scan {
            Some((s, to, d)) if s == q => (to - self.consumed, d),
            _ => (c, Depth::new(Brackets::Parens)),
        };
        let bytes = self.buf.as_bytes();
        if let Some(n) = depth.scan(bytes.get(at..).unwrap_or_default()) {
            self.json.scan = None;
            return Some(at + n);
        }
        self.json.scan = Some((q, self.consumed + at.max(bytes.len()), depth));
        None
    }

    /// An orphan closing tag (`len` bytes at the start of `buf`) is removed right after removed
    /// markup or alone on its line, and a lone token also right before a call section's begin
    /// token or at the end of the reply; otherwise it is text (`None`: wait for the next byte).
    pub(super) fn orphan_is_text(&mut self, len: usize) -> Option<bool> {
        if self.json.box_kept && self.buf.starts_with(orphan::BOX_END) {
            return Some(true);
        }
        let lone = orphan::closer_at(&self.buf).is_some_and(|(_, opened)| !opened);
        // A lone token glued to one kept as text: the run is one, named as a whole.
        let text = if lone && self.json.lone_text_end == Some(self.consumed) {
            Some(true)
        } else {
            self.lone_is_text(len)
        };
        if text == Some(true) && self.buf.starts_with(orphan::BOX_BEGIN) {
            self.json.box_kept = true;
        }
        if text == Some(true) && lone {
            self.json.lone_text_end = Some(self.consumed + len);
        }
        text
    }

    /// [`Machine::orphan_is_text`] but for the answer box's pairing.
    fn lone_is_text(&mut self, len: usize) -> Option<bool> {
        // A user turn opened on its own line: the reply ends there ([`invented_turn`]).
        if invented_turn::opens(&self.buf) && (self.em.after_removed || self.at_line_start(0)) {
            // Granite's and Harmony's headers carry their message on their line: right after
            // removed markup (the end token glued before them) they open the turn as they are.
            if self.em.after_removed && invented_turn::opens_inline(&self.buf) {
                self.turn_ends = true;
                return Some(false);
            }
            match self.ends_line(len) {
                None => return None,
                Some(true) => {
                    self.turn_ends = true;
                    return Some(false);
                }
                Some(false) => {}
            }
        }
        if self.em.after_removed {
            return Some(false);
        }
        let closer = orphan::closer_at(&self.buf);
        if closer.is_some_and(|(i, _)| self.json.texts_open & (1 << i) != 0) {
            return Some(true);
        }
        // A lone token: an end token, or one of Gemma's `<unusedNNNN>` (the one orphan marker
        // that is not in the list).
        if closer.is_none_or(|(_, opened)| !opened) {
            // A run of Gemma's `<unusedNNNN>` tokens (ollama/ollama#17459): each before the next.
            if closer.is_none() {
                let rest = self.buf[len..].trim_start();
                match gemma_unused::token_at(rest, self.finished) {
                    Some(Some(_)) => return Some(false),
                    None if !self.finished => return None,
                    _ => {}
                }
            }
            match self.begin_follows(len) {
                Some(true) => return Some(false),
                None => return None,
                Some(false) => {}
            }
            // An end token glued to the text or alone on its line with a user-turn header after it
            // (only whitespace between: `Paris.<|eot_id|><|start_header_id|>user…`): it goes, and
            // the header after it opens an invented turn ([`invented_turn`]). After a colon the
            // token is named (`结束符是：<|im_end|>`).
            let named = matches!(self.em.last, Some(':' | '：'));
            if (self.em.held_is_empty() && !named) || self.at_line_start(0) {
                match self.turn_follows(len) {
                    Some(true) => return Some(false),
                    None => return None,
                    Some(false) => {}
                }
            }
            // GLM-V's answer-box opener where it opens the reply.
            if self.buf.starts_with(orphan::BOX_BEGIN) && !self.em.any_visible {
                return Some(false);
            }
            // A lone token written right after the text (no space between: `apple<eos>`) with
            // only whitespace after it to the end of the reply; after a colon it is named
            // (`返回结果中有：<|im_end|>`).
            // A short run of such tokens counts as one (Phi-3's `<|end|><|endoftext|>`): the first
            // goes, and the rest follow removed markup. At most four more are read, so a long run
            // kept as text is not read again from each of its tokens.
            if self.em.held_is_empty() && !matches!(self.em.last, Some(':' | '：')) {
                let mut rest = self.buf[len..].trim_start();
                for _ in 0..4 {
                    let Some((i, false)) = orphan::closer_at(rest) else {
                        break;
                    };
                    rest = rest[orphan::CLOSERS[i].0.len()..].trim_start();
                }
                // A last token cut by the reply's end (`<|end|><|endo`, `<|EOT|><｜t`) is one of
                // the run too (the cut one goes as a cut marker, [`Machine::cut_after_removed`]).
                if rest.is_empty() || orphan::cut_lone(rest) {
                    return if self.finished { Some(false) } else { None };
                }
                // A token of the run cut by the buffer's end (`<|end|><|endo`): wait for it.
                if !self.finished && orphan::lone_tokens().any(|c| c.starts_with(rest)) {
                    return None;
                }
            }
        }
        // A DSML closer glued to the text (no space between: `…42.</｜DSML｜tool_calls>`) with
        // only DSML closers and whitespace after it to the end of the reply goes, as one alone
        // on its line does; after a colon it is named (`结束标签是：</｜DSML｜tool_calls>`).
        if closer.is_some_and(|(i, _)| i >= orphan::CLOSERS.len())
            && self.em.held_is_empty()
            && !matches!(self.em.last, Some(':' | '：'))
        {
            match orphan::dsml_closers_to_end(&self.buf[len..], self.finished) {
                Some(true) => return Some(false),
                None => return None,
                Some(false) => {}
            }
        }
        if !self.at_line_start(0) {
            return Some(true);
        }
        self.ends_line(len).map(|e| !e)
    }

    /// Whether one of [`invented_turn::OPENERS`] follows `buf[..at]` after whitespace (line breaks
    /// too: `<|im_end|>`⏎`<|im_start|>user`) and a run of end tokens
    /// ([`invented_turn::skip_end_tokens`]: `<|im_end|><|eot_id|>` before the header is one run);
    /// `None`: not known yet.
    fn turn_follows(&self, at: usize) -> Option<bool> {
        let rest = invented_turn::skip_end_tokens(&self.buf[at..]);
        if invented_turn::opens(rest) {
            Some(true)
        } else if !self.finished && orphan::CLOSERS.iter().any(|(c, _)| c.starts_with(rest)) {
            None
        } else {
            Some(false)
        }
    }

    /// Whether one of [`orphan::BEGINS`] follows `buf[..at]` after spaces (`None`: not known yet).
    fn begin_follows(&self, at: usize) -> Option<bool> {
        let rest = self.buf[at..].trim_start_matches([' ', '\t']);
        if orphan::BEGINS.iter().any(|b| rest.starts_with(b)) {
            Some(true)
        } else if !self.finished && orphan::BEGINS.iter().any(|b| b.starts_with(rest)) {
            None
        } else {
            Some(false)
        }
    }
}

/// The first match of `find` (for a needle of `len` bytes) at or after absolute `from` in `buf`
/// (which starts at absolute `consumed`), relative to `buf`, remembering the answer in `memo`
/// (`(from, hit, searched up to)`) so that searches from later positions do not rescan.
fn remembered(
    buf: &str,
    consumed: usize,
    from: usize,
    len: usize,
    memo: &mut Option<(usize, Option<usize>, usize)>,
    find: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let end = consumed + buf.len();
    let mut start = from;
    if let Some((f, hit, scanned)) = *memo {
        if from >= f {
            match hit {
                Some(h) if h >= from => return Some(h - consumed),
                Some(_) => {}
                None => start = from.max(scanned.saturating_sub(len - 1)),
            }
        }
    }
    let hit = buf
        .as_bytes()
        .get(start - consumed..)
        .and_then(find)
        .map(|k| start + k);
    *memo = Some((from, hit, end));
    hit.map(|h| h - consumed)
}

impl Machine {
    /// The candidate at `c` is text: when it is the opening tag of an orphan closer, a closer of
    /// that kind later closes this text and is not an orphan. True when the text at `c` may still
    /// become such an opener (the caller waits for more).
    pub(super) fn note_text_opener(&mut self, c: usize) -> bool {
        let rest = &self.buf[c..];
        let mut wait = false;
        // A DSML tag kept as text (any name, any bar spelling): DSML's closers are that text's.
        if orphan::dsml_opener(rest) {
            self.json.texts_open |= orphan::DSML_BITS;
        }
        for (i, &(_, o)) in orphan::CLOSERS.iter().enumerate() {
            let Some(o) = o else { continue };
            if !super::same_start(rest.as_bytes(), o.as_bytes()) {
                continue;
            }
            if rest.starts_with(o) {
                self.json.texts_open |= 1 << i;
            } else if !self.finished && rest.len() < o.len() && o.starts_with(rest) {
                wait = true;
            }
        }
        wait
    }
}

/// For [`Machine::mentions_marker`]: the checks above are not markup by themselves in code.
pub(super) fn quiet(check: Check) -> bool {
    matches!(check, Check::ToolJson | Check::MistralArray)
}

impl Machine {
    /// A `[TOOL_RESULT]` block opening the reply at `c` ([`tool_result`]): its length through
    /// the closer that ends its line.
    pub(super) fn tool_result_at(&mut self, c: usize, after: usize) -> Option<Option<usize>> {
        if self.em.any_visible || !self.buf[..c].trim().is_empty() {
            return Some(None);
        }
        if !self.later(tool_result::CLOSE, after) {
            return if self.finished { Some(None) } else { None };
        }
        let memo = self.memo.iter().find(|e| e.0 == tool_result::CLOSE);
        let end = memo.and_then(|e| e.2)? - self.consumed + tool_result::CLOSE.len();
        Some(self.ends_line(end)?.then_some(end - c))
    }

    /// A GLM argument pair at `c` (its `<arg_key>` ending at `after`) outside every call: the
    /// pair's length when it follows removed markup or stands at a line's start with
    /// `</tool_call>` after it.
    pub(super) fn orphan_pair_at(&mut self, c: usize, after: usize) -> Option<Option<usize>> {
        // A `<tool_call>` kept as text (another family's reply, an example) holds its own pairs.
        let tool_call = orphan::CLOSERS
            .iter()
            .position(|&(_, o)| o == Some("<tool_call>"));
        if tool_call.is_some_and(|i| self.json.texts_open & (1 << i) != 0) {
            return Some(None);
        }
        let after_removed = self.em.after_removed && self.buf[..c].trim().is_empty();
        if !after_removed && !self.at_line_start(c) {
            return Some(None);
        }
        let value_at = match glm45::orphan_pair_head(&self.buf[c..], self.finished) {
            Some(Some(v)) => c + v,
            Some(None) => return Some(None),
            None => return None,
        };
        if !self.later(glm45::VALUE_END, value_at.max(after)) {
            return if self.finished { Some(None) } else { None };
        }
        // Where `later` found it (remembered: many pairs before one far `</arg_value>` stay
        // linear).
        let hit = (self.memo.iter().find(|e| e.0 == glm45::VALUE_END))
            .and_then(|e| e.2?.checked_sub(self.consumed));
        let Some(end) = hit.map(|h| h + glm45::VALUE_END.len()) else {
            return Some(None);
        };
        if !after_removed {
            let t = self.buf[end..].trim_start();
            if !t.starts_with("</tool_call>") {
                return if !self.finished && "</tool_call>".starts_with(t) {
                    None
                } else {
                    Some(None)
                };
            }
        }
        Some(Some(end - c))
    }
}
