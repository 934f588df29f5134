//! Code in a reply is text: people (and models answering them) quote tool-call markup and
//! reasoning tags in Markdown code to talk about them — a deployment guide showing MiniMax's
//! output format in a ```` ```xml ```` block, an issue asking for `` `<think></think>` `` support.
//! The visible-text scanner of [`Machine`] asks this module, at every backtick or tilde, whether
//! code starts there; what is inside code is never a call, never reasoning and never stripped.
//!
//! - **Inline code** (CommonMark): a run of n backticks opens a span when a run of exactly n
//!   backticks follows before the paragraph ends (a blank line) or the reply ends; otherwise the
//!   run is literal text.
//! - **Fenced blocks**: a line starting (after at most three spaces) with three or more backticks
//!   or tildes, up to a line of at least as many of the same character (or the end of the reply).
//!   A fence is an example (text) unless the evidence says the model meant to call: its info
//!   word is a call label (`tool_call`, `tool_code`, `function`, …, see [`CALL_LABELS`]), or it is
//!   a data fence (no info word, `json`, `xml`) holding a call that is followed by nothing but
//!   whitespace to the end of the reply and either nothing visible precedes it (the fence is the
//!   whole reply) or a call in it names one of `options.tools`; in every case the fence holds
//!   nothing but readable call markup (no prose: an explanation is an example). Only such candidate fences are
//!   held back by a stream; other fences stream line by line.
//! - When code holding a model's markup is kept as text, `problems` says so (kind
//!   `kept-as-code`), once per code region.
//!
//! Every decision depends on the text alone (a stream holds a backtick run until its span closes
//! or the paragraph ends), and every scan resumes where the previous one stopped, so the work
//! stays linear in the reply whatever the chunking.

use std::cell::OnceCell;

use serde_json::Value;

use super::find_any::{find_any, SPAN_BYTES};
use super::{fence_wait, next_cand, Check, Kind, Machine, State};
use crate::response::{parse_family, scan, Parsed};

/// Fence info words that label a call.
pub(super) const CALL_LABELS: &[&str] = &[
    "tool_call",
    "tool_calls",
    "tool_code",
    "tool",
    "function",
    "function_call",
    "function_calls",
];

/// Fence info words of data a call may be written as.
const DATA_LABELS: &[&str] = &["", "json", "jsonc", "json5", "xml"];

/// Whether `word` is one of the json words of [`DATA_LABELS`] (data a tool may return).
fn json_word(word: &str) -> bool {
    DATA_LABELS[1..4]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(word))
}

/// Whether `text`, past leading white space, opens a fenced block (three backticks or tildes or
/// more, on a whole line) whose info word is a json word: what [`super::invented`] looks for
/// right after a call.
pub(super) fn opens_json_fence(text: &str) -> bool {
    let t = text.trim_start();
    let Some(ch) = t.bytes().next().filter(|&c| c == b'`' || c == b'~') else {
        return false;
    };
    let run = t.bytes().take_while(|&c| c == ch).count();
    let line = &t[run..t.find('\n').unwrap_or(t.len())];
    run >= 3 && t.len() > run + line.len() && !line.contains('`') && json_word(info_word(line))
}

/// An open fenced block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fence {
    /// `` ` `` or `~`.
    pub ch: u8,
    /// Length of the opening run.
    pub n: usize,
    /// Held back and read as a call when the evidence allows (see the module doc); until
    /// [`Machine::open_fence`], whether the info word allows it.
    pub call: bool,
    /// The info word is a call label.
    pub labelled: bool,
    /// The label is Google's `tool_code` ([`crate::response::tool_code`]).
    pub tool_code: bool,
    /// The info word is `json` (or `jsonc`, `json5`): data a tool may return.
    pub json: bool,
    /// Right after a call: a tool result the model invented, held and removed unless it reads
    /// as calls ([`super::invented`]).
    pub invented: bool,
    /// Not a fence: a Markdown indented code block ([`super::indented`]).
    pub indented: bool,
}

/// Backtick runs seen after `origin` up to `reach` (absolute), by length, and the paragraph
/// break that ends the search, if found.
#[derive(Debug, Default)]
pub(super) struct Ticks {
    origin: usize,
    reach: usize,
    /// The first run indexed since the last restart, `(length, start)`: usually the only one (the
    /// closer of a span met first), kept out of `by_len` so that neither is hashed nor cleared.
    first: Option<(usize, usize)>,
    /// The runs after `first`.
    by_len: foldhash::HashMap<usize, std::collections::VecDeque<usize>>,
    /// Runs indexed since the last restart: `by_len` holds some only when this is above one.
    indexed: usize,
    brk: Option<usize>,
    /// A run of this char that touched the end of the text so far: `(ch, start, length counted)`,
    /// absolute. A stream delivers a long run a few bytes at a time; counting it again from its
    /// start at every delta made a run of r backticks cost r²/delta (a reply of ever longer runs
    /// grew as n^1.5).
    open_run: Option<(u8, usize, usize)>,
    /// No code tracking ([`crate::response::Options::markup_in_code`]).
    pub(super) off: bool,
}

impl Ticks {
    pub(super) fn new(markup_in_code: bool) -> Self {
        Ticks {
            off: markup_in_code,
            ..Ticks::default()
        }
    }
}

/// What starts at a backtick or tilde.
pub(super) enum CodeAt {
    /// Not code: the run of this many bytes is literal text.
    Literal(usize),
    /// Not decided before more text comes.
    More,
    /// An inline span ending (exclusive) here.
    Span(usize),
    /// A fenced block whose body starts here (after the opening line).
    Fence(Fence, usize),
}

/// The end of a fenced block's closing line, searched from a line start.
pub(super) enum FenceEnd {
    /// The closing line spans `start..end` (`end` excludes its line break).
    Closed(usize, usize),
    /// No closing line among the complete lines; the next line to check starts here.
    Open(usize),
}

/// How much of a fence's last, unterminated line has been read ([`Machine::fence_end`]), so that
/// a long line still arriving is read once over the deltas, not again from its start on each one
/// (a fence whose last line never ended, 1 MB in 16-byte deltas: the whole line searched
/// 60,000 times).
#[derive(Debug, Clone, Copy)]
pub(super) struct FenceTail {
    /// Absolute start of the line, and the fence it was read for.
    line: usize,
    ch: u8,
    /// Absolute position read up to, and what the line is so far.
    seen: usize,
    so_far: Line,
}

/// A fence's line read from its start: whether it can still be the closing line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// Up to three spaces so far.
    Lead(usize),
    /// The spaces, then this long a run of the fence's character.
    Run(usize),
    /// The run, then spaces, tabs or `\r`.
    Trail(usize),
    /// Not a closing line.
    Text,
}

impl Line {
    /// The line after one more byte (not a line break).
    fn step(self, byte: u8, ch: u8) -> Line {
        match (self, byte) {
            (Line::Lead(k), b' ') if k < 3 => Line::Lead(k + 1),
            (Line::Lead(_), x) if x == ch => Line::Run(1),
            (Line::Run(r), x) if x == ch => Line::Run(r + 1),
            (Line::Run(r) | Line::Trail(r), b' ' | b'\t' | b'\r') => Line::Trail(r),
            _ => Line::Text,
        }
    }

    /// Read `b[from..]` on from `self` up to the line's end: the line so far, and where its line
    /// break is, if it came.
    fn read(mut self, b: &[u8], from: usize, ch: u8) -> (Line, Option<usize>) {
        let mut p = from;
        while p < b.len() {
            if self == Line::Text {
                return (self, memchr::memchr(b'\n', &b[p..]).map(|k| p + k));
            }
            if b[p] == b'\n' {
                return (self, Some(p));
            }
            self = self.step(b[p], ch);
            p += 1;
        }
        (self, None)
    }

    /// Whether the line, ended here, closes a fence of `n`.
    fn closes(self, n: usize) -> bool {
        matches!(self, Line::Run(r) | Line::Trail(r) if r >= n)
    }
}

/// The usual inline span, told without the [`Ticks`] index: a lone backtick at `c` (the start of
/// a run) whose closer, a lone backtick too, comes before any line break. Its end (exclusive) and
/// whether a byte that may begin a marker lies inside, or `None` when the general search must
/// answer (a longer run, a line break first, the end of the text so far). The answer is the
/// general one: the first run after the opener is a run of one, so it is the first closer, and
/// no paragraph break lies before it. It looks [`SINGLE_SPAN`] bytes ahead at most: a backtick
/// whose closer is not there yet would be looked at again, from the opener, on every delta (a
/// lone backtick and 1 MB of text after it in 16-byte deltas); the general search resumes.
#[inline]
pub(super) fn single_tick_span(b: &[u8], c: usize, fin: bool) -> Option<(usize, bool)> {
    if b.get(c + 1).is_none_or(|&x| x == b'`') || b[c] != b'`' {
        return None;
    }
    let lim = b.len().min(c + SINGLE_SPAN);
    let mut markup = false;
    let mut p = c + 1;
    let q = loop {
        let q = p + find_any(&b[p..lim], &SPAN_BYTES)?;
        match b[q] {
            b'`' => break q,
            b'\n' => return None,
            _ => {
                markup = true;
                p = q + 1;
            }
        }
    };
    match b.get(q + 1) {
        Some(&b'`') => None,
        Some(_) => Some((q + 1, markup)),
        None => fin.then_some((q + 1, markup)),
    }
}

/// How far [`single_tick_span`] looks for the closer.
const SINGLE_SPAN: usize = 512;

fn run_len(b: &[u8], at: usize, ch: u8) -> usize {
    b.get(at..)
        .map_or(0, |r| r.iter().take_while(|&&x| x == ch).count())
}

impl Ticks {
    /// Starts the index over at `e`, keeping its allocations: a reply with hundreds of inline
    /// spans started over at each one, and allocating a map and a queue every time cost most of
    /// what code tracking added to a 50 KB reply. An emptied queue reads as no run of its length.
    fn restart(&mut self, e: usize) {
        self.origin = e;
        self.reach = e;
        self.brk = None;
        self.first = None;
        if self.indexed <= 1 {
            self.indexed = 0;
            return;
        }
        self.indexed = 0;
        // Few lengths: their queues are kept; many: the map is emptied, so a restart stays cheap.
        if self.by_len.len() > 8 {
            self.by_len.clear();
        } else {
            self.by_len
                .values_mut()
                .for_each(std::collections::VecDeque::clear);
        }
    }

    /// Index the run of `len` backticks at `at` (absolute).
    fn index(&mut self, len: usize, at: usize) {
        if self.indexed == 0 {
            self.first = Some((len, at));
        } else {
            self.by_len.entry(len).or_default().push_back(at);
        }
        self.indexed += 1;
    }

    /// The first indexed run of `len` backticks starting at or after `e` (absolute); runs before
    /// `e` are dropped, as no later opener looks before it.
    fn indexed_closer(&mut self, len: usize, e: usize) -> Option<usize> {
        if let Some((_, p)) = self.first.filter(|&(l, _)| l == len) {
            if p >= e {
                return Some(p);
            }
            self.first = None;
        }
        let q = (self.indexed > 1)
            .then(|| self.by_len.get_mut(&len))
            .flatten()?;
        while q.front().is_some_and(|&p| p < e) {
            q.pop_front();
        }
        q.front().copied()
    }

    /// The length of the run of `ch` at `at` in `b` (`base`: the absolute offset of `b`), counted
    /// on from what an earlier call saw of it when that call reached the end of the text.
    fn run(&mut self, b: &[u8], base: usize, at: usize, ch: u8) -> usize {
        let seen = match self.open_run {
            Some((c, start, n)) if c == ch && start == base + at => n.min(b.len() - at),
            _ => 0,
        };
        let run = seen + run_len(b, at + seen, ch);
        if at + run == b.len() {
            self.open_run = Some((ch, base + at, run));
        } else if seen > 0 {
            self.open_run = None;
        }
        run
    }
}

/// The first word of a fence's info string `info` (the rest of the opening line), the label a
/// fence is classified by: up to the first white space or `{`. ASCII info (`js`, `json`, nothing)
/// is read byte by byte; other text by the same rule on chars.
fn info_word(info: &str) -> &str {
    let b = info.as_bytes();
    if b.is_ascii() {
        // `char::is_whitespace` on ASCII: space and `\t` to `\r`.
        let ws = |c: u8| c == b' ' || (b'\t'..=b'\r').contains(&c);
        let s = b.iter().position(|&c| !ws(c)).unwrap_or(b.len());
        let e = b[s..]
            .iter()
            .position(|&c| ws(c) || c == b'{')
            .map_or(b.len(), |k| s + k);
        return &info[s..e];
    }
    info.trim()
        .split(|c: char| c.is_whitespace() || c == '{')
        .next()
        .unwrap_or("")
}

/// The names of the functions in an OpenAI `tools` array.
fn tool_names(tools: Option<&Value>) -> Vec<&str> {
    tools
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| {
                    t.get("function")
                        .and_then(|f| f.get("name"))
                        .or_else(|| t.get("name"))
                        .and_then(Value::as_str)
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Machine {
    /// Record what `drain` drops: how many spaces since the last line break (for fence openers).
    pub(super) fn track_columns(&mut self, n: usize) {
        let d = &self.buf.as_bytes()[..n];
        let nl = memchr::memrchr(b'\n', d);
        let tail = match nl {
            Some(p) => {
                self.col = 0;
                &d[p + 1..]
            }
            None => d,
        };
        // One search for the last line break serves both (after it is a char boundary).
        let line = &self.buf[n - tail.len()..n];
        self.spaced_words.pass_line(nl.is_some(), line);
        self.example_tail.pass_line(nl.is_some(), line);
        if tail.iter().all(|&b| b == b' ') {
            self.col = self.col.saturating_add(tail.len());
        } else {
            self.col = usize::MAX;
        }
    }

    /// Whether text other than spaces stands before byte `c` of `buf` on its line (what was
    /// emitted before `buf` included). Reads back over spaces only.
    pub(super) fn words_before(&self, c: usize) -> bool {
        match self.buf[..c]
            .trim_end_matches([' ', '\t'])
            .bytes()
            .next_back()
        {
            Some(b) => b != b'\n' && b != b'\r',
            // Right after removed markup (a call block the model wrote just before) there are no
            // words before it: `。<tool_call>a…</tool_call><tool_call>b</tool_call>` is the
            // model's next call, not a sentence naming one.
            None => self.col == usize::MAX && !self.em.after_removed,
        }
    }

    /// Whether spaces stand right before byte `c` of `buf`, after words on its line
    /// ([`Machine::words_before`]; what was emitted before `buf` included) that do not end a
    /// sentence ([`crate::response::thinking::ends_sentence`]: after a finished sentence a marker is a leak).
    pub(super) fn spaced_words_before(&self, c: usize) -> bool {
        let t = self.buf[..c].trim_end_matches([' ', '\t']);
        let named = if !t.is_empty() {
            t.len() < c && !crate::response::thinking::ends_sentence(t)
        } else if c > 0 {
            self.spaced_words.words_unended()
        } else {
            self.spaced_words.named()
        };
        named && self.words_before(c)
    }

    /// Whether byte `c` of `buf` starts a line (after at most three spaces).
    pub(super) fn at_line_start(&self, c: usize) -> bool {
        let b = self.buf.as_bytes();
        let mut k = c;
        while k > 0 && b[k - 1] == b' ' {
            k -= 1;
        }
        let spaces = c - k;
        if k == 0 {
            self.col.saturating_add(spaces) <= 3
        } else {
            spaces <= 3 && b[k - 1] == b'\n'
        }
    }

    /// The first backtick or tilde at or after `i` in `buf` (remembered, so that scanning from
    /// one `<` to the next does not rescan up to a far backtick each time).
    #[inline]
    pub(super) fn next_code(&mut self, i: usize) -> Option<usize> {
        if self.ticks.off {
            return None;
        }
        let from = self.consumed + i;
        let end = self.consumed + self.buf.len();
        let mut start = from;
        if let Some((f, hit, scanned)) = self.code_memo {
            if from >= f {
                match hit {
                    Some(h) if h >= from => return Some(h - self.consumed),
                    Some(_) => {}
                    None => start = from.max(scanned),
                }
            }
        }
        let rel = start - self.consumed;
        let hit = self
            .buf
            .as_bytes()
            .get(rel..)
            .and_then(|b| memchr::memchr2(b'`', b'~', b))
            .map(|k| start + k);
        self.code_memo = Some((from, hit, end));
        hit.map(|h| h - self.consumed)
    }

    /// What starts at the backtick or tilde `c` of `buf`.
    pub(super) fn code_at(&mut self, c: usize) -> CodeAt {
        match single_tick_span(self.buf.as_bytes(), c, self.finished) {
            Some((e, _)) => CodeAt::Span(e),
            None => self.code_run_at(c),
        }
    }

    /// [`Machine::code_at`] once [`single_tick_span`] said no.
    pub(super) fn code_run_at(&mut self, c: usize) -> CodeAt {
        let fin = self.finished;
        let b = self.buf.as_bytes();
        let ch = b[c];
        let run = self.ticks.run(b, self.consumed, c, ch);
        if c + run == b.len() && !fin {
            return CodeAt::More;
        }
        if run >= 3 && self.at_line_start(c) {
            let after = c + run;
            // An opening line still arriving is searched on from where the last look stopped.
            let from = match self.info_seen {
                Some((a, seen)) if a == self.consumed + after => seen - self.consumed,
                _ => after,
            };
            let nl = memchr::memchr(b'\n', &b[from..]).map(|k| from + k);
            if nl.is_none() && !fin {
                self.info_seen = Some((self.consumed + after, self.consumed + b.len()));
                return CodeAt::More;
            }
            let eol = nl.unwrap_or(b.len());
            let info = &b[after..eol];
            if !(ch == b'`' && memchr::memchr(b'`', info).is_some()) {
                let body = nl.map_or(b.len(), |e| e + 1);
                let word = info_word(&self.buf[after..eol]);
                return CodeAt::Fence(self.fence_kind(ch, run, word), body);
            }
        }
        if ch == b'~' {
            return CodeAt::Literal(run);
        }
        self.inline_span(c, run)
    }

    /// An inline span opened by the run of `run` backticks at `c`. Backtick runs seen while
    /// looking for a closer are indexed by length ([`Ticks`]), so a paragraph is scanned once
    /// however many openers look into it (runs of many lengths stay linear).
    fn inline_span(&mut self, c: usize, run: usize) -> CodeAt {
        let fin = self.finished;
        let base = self.consumed;
        let e = base + c + run;
        let t = &mut self.ticks;
        if e < t.origin || e > t.reach || t.brk.is_some_and(|b| e > b) {
            t.restart(e);
        }
        if let Some(p) = t.indexed_closer(run, e) {
            return CodeAt::Span(p - base + run);
        }
        if t.brk.is_some() {
            return CodeAt::Literal(run);
        }
        let b = self.buf.as_bytes();
        let mut p = t.reach - base;
        loop {
            let Some(k) = memchr::memchr2(b'`', b'\n', &b[p..]) else {
                t.reach = base + b.len();
                return if fin {
                    CodeAt::Literal(run)
                } else {
                    CodeAt::More
                };
            };
            let q = p + k;
            if b[q] == b'`' {
                let r = t.run(b, base, q, b'`');
                if q + r == b.len() && !fin {
                    t.reach = base + q;
                    return CodeAt::More;
                }
                t.index(r, base + q);
                t.reach = base + q + r;
                if r == run {
                    return CodeAt::Span(q + r);
                }
                p = q + r;
            } else {
                let mut e2 = q + 1;
                while e2 < b.len() && matches!(b[e2], b' ' | b'\t' | b'\r') {
                    e2 += 1;
                }
                if e2 == b.len() && !fin {
                    t.reach = base + q;
                    return CodeAt::More;
                }
                if e2 == b.len() || b[e2] == b'\n' {
                    t.brk = Some(base + q);
                    t.reach = base + q;
                    return CodeAt::Literal(run);
                }
                p = q + 1;
                t.reach = base + p;
            }
        }
    }

    /// The fence opened by `n` `ch`s whose info string starts with `word` ([`info_word`]).
    fn fence_kind(&self, ch: u8, n: usize, word: &str) -> Fence {
        let is = |labels: &[&str]| labels.iter().any(|l| l.eq_ignore_ascii_case(word));
        let labelled = self.calls_on && is(CALL_LABELS);
        let data = self.calls_on && is(DATA_LABELS);
        Fence {
            ch,
            n,
            call: labelled || data,
            labelled,
            tool_code: labelled && word == crate::response::tool_code::LABEL,
            json: self.calls_on && json_word(word),
            invented: false,
            indented: false,
        }
    }

    /// Find the closing line of fence `f` among the complete lines of `buf` from line start `at`
    /// (the last, unterminated line counts once the reply is finished).
    /// Only the fence's own character is searched for: a line is looked at only when it starts
    /// with one (after at most three spaces), so a block of many lines costs one search, not one
    /// per line; the last line, still arriving, is read on from where the previous look stopped
    /// ([`FenceTail`]).
    fn fence_end(&mut self, f: Fence, at: usize) -> FenceEnd {
        if f.indented {
            return self.indented_end(at);
        }
        let mut at = at;
        let b = self.buf.as_bytes();
        // The last line as far as the previous look read it: read on from there.
        let tail = self.fence_tail.take();
        if let Some(t) = tail.filter(|t| t.line == self.consumed + at && t.ch == f.ch) {
            match t.so_far.read(b, t.seen - self.consumed, f.ch) {
                (line, Some(e)) if line.closes(f.n) => return FenceEnd::Closed(at, e),
                (_, Some(e)) => at = e + 1,
                (line, None) if self.finished => {
                    return if line.closes(f.n) {
                        FenceEnd::Closed(at, b.len())
                    } else {
                        FenceEnd::Open(b.len())
                    };
                }
                (so_far, None) => {
                    self.fence_tail = Some(FenceTail {
                        seen: self.consumed + b.len(),
                        so_far,
                        ..t
                    });
                    return FenceEnd::Open(at);
                }
            }
        }
        let end = self.fence_scan(f, at);
        if let (FenceEnd::Open(ls), false) = (&end, self.finished) {
            let b = self.buf.as_bytes();
            self.fence_tail = Some(FenceTail {
                line: self.consumed + ls,
                ch: f.ch,
                seen: self.consumed + b.len(),
                so_far: Line::Lead(0).read(b, *ls, f.ch).0,
            });
        }
        end
    }

    /// [`Machine::fence_end`] read from line start `at`, every line from its start.
    fn fence_scan(&self, f: Fence, at: usize) -> FenceEnd {
        let b = self.buf.as_bytes();
        let mut p = at;
        while let Some(k) = memchr::memchr(f.ch, &b[p..]) {
            let q = p + k;
            // The line start before `q`, if only up to three spaces lie between (`at` is one).
            let mut ls = q;
            while ls > at && q - ls < 4 && b[ls - 1] == b' ' {
                ls -= 1;
            }
            if q - ls > 3 || (ls > at && b[ls - 1] != b'\n') {
                p = q + 1;
                continue;
            }
            // A closing line is the run and then only spaces, tabs or `\r` to the line's end,
            // read here byte by byte; any other byte ends the look, and the search goes on from
            // it (no later byte of this line starts one).
            let run = run_len(b, q, f.ch);
            let mut e = q + run;
            while e < b.len() && matches!(b[e], b' ' | b'\t' | b'\r') {
                e += 1;
            }
            match b.get(e) {
                Some(b'\n') | None if run < f.n => {}
                Some(b'\n') => return FenceEnd::Closed(ls, e),
                None if self.finished => return FenceEnd::Closed(ls, e),
                None => return FenceEnd::Open(ls),
                Some(_) => {}
            }
            p = e;
        }
        if self.finished {
            return FenceEnd::Open(b.len());
        }
        // The last line is not complete: it is checked again when more text comes.
        FenceEnd::Open(memchr::memrchr(b'\n', &b[at..]).map_or(at, |k| at + k + 1))
    }

    /// Whether `s` holds a marker of the current table (a model's markup, not just any `<`).
    /// Markers that only a look-ahead settles (a bare `[` or `<|`) count when what settles them is
    /// there too.
    pub(super) fn mentions_marker(&self, s: &str) -> bool {
        let t = &*self.table;
        let bytes = s.as_bytes();
        let span = Span::new(bytes);
        let mut i = 0;
        while let Some(c) = next_cand(s, i) {
            i = c + 1;
            let Some(&second) = bytes.get(c + 1) else {
                continue;
            };
            let b = usize::from(second);
            let bucket = &t.order[usize::from(t.starts[b])..usize::from(t.starts[b + 1])];
            let hit = bucket.iter().chain(&t.shorts).any(|&k| {
                t.lits.get(usize::from(k)).is_some_and(|l| {
                    bytes[c..].starts_with(l.s.as_bytes())
                        && (l.pre.is_empty() || bytes[..c].ends_with(l.pre.as_bytes()))
                        && confirmed(l.kind, &span, c)
                })
            });
            if hit {
                return true;
            }
        }
        false
    }

    /// In an example fence streamed line by line ([`Machine::step_fence`]), its complete lines
    /// `buf[..at]`: `None` when they hold markup, else how much of them can go out now. A marker
    /// whose confirmation ([`confirmed`]) reads further than the bytes come so far (a nameless
    /// `<invoke>` whose `{` line is still to come) holds its line back until it can be told: the
    /// whole reply reads the fence's body at once. A marker confirmed by a word anywhere later in
    /// the block (MiniMax-M3's token, by a later `</tool_call>`) holds its line and all after it
    /// until that word comes or the fence ends ([`fence_wait`]).
    /// Goes on from [`Machine::fence_seen`], so a held line is not read again.
    pub(super) fn fence_lines(&mut self, at: usize) -> Option<usize> {
        let mut wait_line = match self.fence_wait_line() {
            Some(None) => return None,
            w => w.flatten(),
        };
        let t = &*self.table;
        let s = &*self.buf;
        let bytes = s.as_bytes();
        let mut i = self.fence_seen.saturating_sub(self.consumed).min(at);
        // A confirming word before `i` counts for no marker from `i` on (`</tool_call>` only
        // after its token) or settled one already (`[END_TOOL_REQUEST]`'s own `[`), so the
        // span's searches for one start there: a fence held by a wait stays linear.
        let span = Span::from(bytes, i);
        let mut held = None;
        while let Some(c) = next_cand(s, i).filter(|&c| c < at) {
            i = c + 1;
            let Some(&second) = bytes.get(c + 1) else {
                continue;
            };
            let b = usize::from(second);
            let bucket = &t.order[usize::from(t.starts[b])..usize::from(t.starts[b + 1])];
            for &k in bucket.iter().chain(&t.shorts) {
                let Some(l) = t.lits.get(usize::from(k)) else {
                    continue;
                };
                if !(bytes[c..].starts_with(l.s.as_bytes())
                    && (l.pre.is_empty() || bytes[..c].ends_with(l.pre.as_bytes())))
                {
                    continue;
                }
                if confirmed(l.kind, &span, c) {
                    self.fence_wait = None;
                    return None;
                }
                if held.is_none() && !self.finished && c + reach(l.kind) > bytes.len() {
                    held = Some(c);
                }
                if wait_line.is_none() && !self.finished {
                    if let Some(w) = fence_wait::wait_for(l.kind, bytes, self.consumed, c) {
                        wait_line = Some(w.line - self.consumed);
                        self.fence_wait = Some(w);
                    }
                }
            }
        }
        let Some(c) = held else {
            self.fence_seen = self.consumed + at;
            return Some(wait_line.map_or(at, |w| w.min(at)));
        };
        self.fence_seen = self.consumed + c;
        let line = memchr::memrchr(b'\n', &bytes[..c]).map_or(0, |k| k + 1);
        Some(wait_line.map_or(line, |w| w.min(line)))
    }

    /// `buf[..n]` is code kept as text: emit it; report it when it holds markup.
    pub(super) fn emit_code(&mut self, n: usize, what: &str) {
        if self.mentions_marker(&self.buf[..n]) {
            self.code_problem(what);
        }
        let Machine {
            em, buf, consumed, ..
        } = self;
        em.text(&buf[..n], *consumed);
        self.drain(n);
    }

    pub(super) fn code_problem(&mut self, what: &str) {
        self.em
            .problems
            .push(format!("kept-as-code: markup inside {what} kept as text"));
    }

    /// The fence at `c` (body from `body`, both in `buf`) when it is an example closed within
    /// `buf` (or by the end of the reply): checked for markup and passed over like an inline span,
    /// so it goes out in one piece with the text around it (a data fence too, once text follows
    /// it). `None`: a candidate call, or not closed yet ([`Machine::open_fence`] then streams it
    /// line by line).
    pub(super) fn pass_example_fence(&mut self, c: usize, f: Fence, body: usize) -> Option<usize> {
        // As `open_fence` decides once the text before the fence is emitted.
        let visible_before = || self.em.any_visible || !self.buf[..c].trim_start().is_empty();
        if f.labelled {
            return None;
        }
        let call = f.call && (self.has_tools || !visible_before());
        let end = match self.fence_end(f, body) {
            FenceEnd::Closed(_, end) => end,
            FenceEnd::Open(_) if self.finished => self.buf.len(),
            FenceEnd::Open(_) => return None,
        };
        // A data fence is read as calls only when nothing but whitespace follows it
        // (`close_fence`): with text after it in `buf`, it is an example already (a `json` fence
        // inside prose, with tools offered).
        if call && self.buf[end..].trim_start().is_empty() {
            return None;
        }
        if self.mentions_marker(&self.buf[body..end]) {
            self.code_problem("a fenced code block");
        }
        Some(end)
    }

    /// A fenced block whose opening line ends at `body` (in `buf`, which starts at the opener).
    pub(super) fn open_fence(&mut self, f: Fence, body: usize) {
        self.fence_body = self.consumed + body;
        self.fence_markup = false;
        self.fence_seen = self.fence_body;
        self.fence_wait = None;
        // A data fence is a candidate when it may be the whole reply or tools were offered
        // (decided once the text before it is emitted).
        let f = Fence {
            call: f.labelled || (f.call && (!self.em.any_visible || self.has_tools)),
            ..f
        };
        if !f.call && !f.invented {
            // An example: stream it; only its opening line is emitted now.
            let Machine {
                em, buf, consumed, ..
            } = self;
            em.text(&buf[..body], *consumed);
            self.drain(body);
            self.pos = 0;
        } else {
            self.pos = body;
        }
        self.state = State::Fence(f);
    }

    /// Inside a fenced block: stream an example line by line; hold a candidate call whole.
    pub(super) fn step_fence(&mut self, f: Fence, tools: Option<&Value>) -> bool {
        match self.fence_end(f, self.pos) {
            FenceEnd::Open(at) => {
                if !f.call && !f.invented {
                    // The lines a marker's confirmation still reads past are held back.
                    let mut out = at;
                    if !self.fence_markup {
                        match self.fence_lines(at) {
                            None => self.fence_markup = true,
                            Some(upto) => out = upto,
                        }
                    }
                    let Machine {
                        em, buf, consumed, ..
                    } = self;
                    em.text(&buf[..out], *consumed);
                    self.drain(out);
                    self.pos = at - out;
                } else {
                    self.pos = at;
                }
                if self.finished {
                    self.close_fence(f, self.buf.len(), self.buf.len(), tools)
                } else {
                    false
                }
            }
            FenceEnd::Closed(start, end) => self.close_fence(f, start, end, tools),
        }
    }

    /// The fence's closing line is `buf[start..end]`: emit it as text or read it as a call.
    fn close_fence(&mut self, f: Fence, start: usize, end: usize, tools: Option<&Value>) -> bool {
        if !f.call && !f.invented {
            if !self.fence_markup && self.mentions_marker(&self.buf[..end]) {
                self.fence_markup = true;
            }
            if self.fence_markup {
                self.code_problem(if f.indented {
                    "an indented code block"
                } else {
                    "a fenced code block"
                });
            }
            let Machine {
                em, buf, consumed, ..
            } = self;
            em.text(&buf[..end], *consumed);
            self.drain(end);
            self.state = State::Visible;
            self.pos = 0;
            return true;
        }
        // Whitespace, then the end of the reply (a held stream waits to see which).
        let rest = &self.buf[end..];
        let tail_ok = rest.trim_start().is_empty();
        if f.call && tail_ok && !self.finished && !f.labelled {
            self.pos = start;
            return false;
        }
        let body_at = self.fence_body.saturating_sub(self.consumed).min(start);
        let read = f
            .call
            .then(|| self.read_fence(&self.buf[body_at..start], f, tail_ok, tools))
            .flatten();
        match read {
            Some((fam, p)) => {
                self.em.removed();
                let Machine {
                    em, buf, consumed, ..
                } = self;
                em.parsed(&buf[body_at..start], *consumed + body_at, p, fam);
                self.em.removed();
                if self.lock.is_none() {
                    self.lock = Some(fam);
                    self.rebuild_lits();
                }
                self.drain(end);
            }
            None if f.invented => self.drop_invented(end),
            None => self.emit_code(end, "a fenced code block"),
        }
        self.state = State::Visible;
        self.pos = 0;
        true
    }

    /// The calls of a candidate fence's body when the evidence says they are calls.
    fn read_fence(
        &self,
        body: &str,
        f: Fence,
        tail_ok: bool,
        tools: Option<&Value>,
    ) -> Option<(crate::response::Family, Parsed)> {
        if !(f.labelled || tail_ok) {
            return None;
        }
        if f.tool_code {
            if let Some(p) = crate::response::tool_code::read(body, tools) {
                return Some((crate::response::Family::ToolJson, p));
            }
        }
        let fam = self
            .lock
            .or_else(|| scan::detect(body, self.hint))
            .or_else(|| self.has_tools.then_some(crate::response::Family::ToolJson))?;
        let p = parse_family(fam, body, &self.ctx(tools));
        let mut names = p.blocks.iter().flat_map(|b| b.calls.iter());
        let names_tool = {
            let offered = tool_names(tools);
            names.any(|c| offered.contains(&c.name.as_str()))
        };
        let any_call = p.blocks.iter().any(|b| !b.calls.is_empty());
        // Nothing but calls in the fence: no prose, no block that could not be read.
        let only_calls = !p.blocks.iter().any(|b| b.keep_raw)
            && p.gaps(body.len())
                .iter()
                .all(|&(s, e)| body[s..e].trim().is_empty());
        (any_call && only_calls && (f.labelled || !self.em.any_visible || names_tool))
            .then_some((fam, p))
    }

    /// While the start of the reply may be reasoning ([`State::R1Pending`]): skip code at `c`
    /// without emitting it. `Some(next scan position)`, or `None` to wait for more text.
    pub(super) fn skip_code(&mut self, c: usize) -> Option<usize> {
        match self.code_at(c) {
            CodeAt::Literal(n) => Some(c + n),
            CodeAt::Span(e) => Some(e),
            CodeAt::More => None,
            CodeAt::Fence(f, body) => {
                let from = match self.r1_fence {
                    Some((open, at)) if open == self.consumed + c => at - self.consumed,
                    _ => body,
                };
                match self.fence_end(f, from) {
                    FenceEnd::Closed(_, end) => {
                        self.r1_fence = None;
                        Some(end)
                    }
                    FenceEnd::Open(at) if self.finished => {
                        self.r1_fence = None;
                        Some(at.max(self.buf.len()))
                    }
                    FenceEnd::Open(at) => {
                        self.r1_fence = Some((self.consumed + c, self.consumed + at));
                        None
                    }
                }
            }
        }
    }
}

/// A code span [`confirmed`] looks into: what it asks of the whole span (is a closing word
/// anywhere in it, or after a point) is found once, not once per candidate marker, so a span
/// full of candidates stays linear.
struct Span<'a> {
    bytes: &'a [u8],
    /// Where the searches for a closing word start.
    lo: usize,
    /// Whether `[END_TOOL_REQUEST]` is in the span (from `lo`).
    end_request: OnceCell<bool>,
    /// Where the last `</tool_call>` of the span starts (from `lo`).
    last_close: OnceCell<Option<usize>>,
}

impl<'a> Span<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self::from(bytes, 0)
    }

    /// The span `bytes`, whose closing words are searched for from `lo` on.
    fn from(bytes: &'a [u8], lo: usize) -> Self {
        Span {
            bytes,
            lo: lo.min(bytes.len()),
            end_request: OnceCell::new(),
            last_close: OnceCell::new(),
        }
    }

    /// The longest whole-character text in the `n` bytes from `at`.
    fn text(&self, at: usize, n: usize) -> &'a str {
        let w = &self.bytes[at..(at + n).min(self.bytes.len())];
        match std::str::from_utf8(w) {
            Ok(w) => w,
            Err(e) => std::str::from_utf8(&w[..e.valid_up_to()]).unwrap_or_default(),
        }
    }

    /// Whether a `</tool_call>` starts at `from` or later.
    fn close_from(&self, from: usize) -> bool {
        let last = self.last_close.get_or_init(|| {
            memchr::memmem::rfind(&self.bytes[self.lo..], b"</tool_call>").map(|k| self.lo + k)
        });
        last.is_some_and(|l| l >= from)
    }
}

/// How far past a marker's start [`confirmed`] reads (0: it needs nothing after the marker, or
/// what it needs may come anywhere later in the code: [`fence_wait`]).
fn reach(kind: Kind) -> usize {
    match kind {
        Kind::Call(Check::Dsml) => 16,
        Kind::Call(Check::InvokeWrapper) => 64,
        Kind::Call(Check::Garbled) => 256,
        Kind::Call(Check::Function | Check::CallingTool) => 300,
        Kind::Call(Check::DsmlFunction) => 1024,
        _ => 0,
    }
}

/// For [`Machine::mentions_marker`]: a marker settled by a look-ahead (DSML's `<|`, `< `…; LM
/// Studio's bare `[`) is markup only with its word nearby (`DSML` after the bar) or its closing
/// word in the same code (`[END_TOOL_REQUEST]`); every other marker is markup by itself.
fn confirmed(kind: Kind, span: &Span, at: usize) -> bool {
    let bytes = span.bytes;
    match kind {
        Kind::Call(Check::Dsml) => {
            let end = (at + reach(kind)).min(bytes.len());
            // The first bar missing (`<DSML｜invoke`): markup only with the bar after `DSML`
            // (`<DSML tool_use>` is none).
            if bytes.get(at + 1) == Some(&b'D') {
                return crate::response::orphan::dsml_opener(span.text(at, reach(kind)));
            }
            memchr::memmem::find(&bytes[at..end], b"DSML").is_some()
        }
        Kind::Call(Check::NamedRequest) => *span.end_request.get_or_init(|| {
            memchr::memmem::find(&bytes[span.lo..], b"[END_TOOL_REQUEST]").is_some()
        }),
        Kind::Call(Check::Function) => {
            let end = (at + reach(kind)).min(bytes.len());
            memchr::memmem::find(&bytes[at..end], b"<parameter=").is_some()
        }
        Kind::Call(Check::Garbled) => {
            crate::response::qwen3_coder::garbled_head(span.text(at, reach(kind)), true)
                == Some(true)
        }
        Kind::Call(Check::InvokeWrapper) => {
            let end = (at + reach(kind)).min(bytes.len());
            let w = &bytes[at..end];
            // A nameless `<invoke>` wraps JSON only (`tool_json::INVOKE`).
            if let Some(rest) = w.strip_prefix(crate::response::tool_json::INVOKE.as_bytes()) {
                let first = rest.iter().find(|b| !b.is_ascii_whitespace());
                return matches!(first, Some(b'{' | b'['));
            }
            memchr::memmem::find(w, b"<invoke").is_some()
        }
        Kind::Call(Check::CallingTool) => {
            let head = span
                .text(at, reach(kind))
                .get(crate::response::minimax_m2::CALLING.len()..);
            head.is_some_and(|h| {
                crate::response::minimax_m2::calling_head(h, true).is_some_and(|h| h.is_some())
                    || crate::response::bracket_calls::calling_args_head(h, true)
                        .is_some_and(|h| h.is_some())
            })
        }
        Kind::Call(Check::M3Fragment) => {
            fence_wait::m3_head(bytes, at).is_some_and(|from| span.close_from(from))
        }
        Kind::Call(Check::DsmlFunction) => {
            let head = span
                .text(at, 300)
                .get(crate::response::dsml_function::OPEN.len()..);
            let end = (at + reach(kind)).min(bytes.len());
            head.and_then(|h| crate::response::dsml_function::head(h, true))
                .is_some_and(|h| h.is_some())
                && memchr::memmem::find(&bytes[at..end], b"DSML").is_some()
        }
        // Named only by an offered tool: not markup by itself.
        Kind::Call(Check::Colon(_)) => false,
        Kind::Call(c) if super::leaks::quiet(c) => false,
        Kind::Orphan
        | Kind::Final(_)
        | Kind::WrapOpen
        | Kind::WrapClose
        | Kind::Lone
        | Kind::CutCall(_) => false,
        _ => true,
    }
}
