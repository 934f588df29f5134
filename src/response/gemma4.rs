//! Gemma 4 calls: `<|tool_call>call:NAME{key:value,…}<tool_call|>`, read from Gemma 4's chat
//! template (google/gemma-4 `chat_template.jinja`) and the reports of its raw tokens leaking into
//! `content` (llama-cpp-python issue #2227, Hermes Agent issue #7457, OpenClaude PR #380).
//!
//! The arguments are Gemma's own object notation, not JSON: keys are bare words, strings are
//! quoted with the `<|"|>` token (`location:<|"|>東京<|"|>`), numbers, `true`, `false` and `null`
//! are bare, and objects and arrays nest (`{…}`, `[…]`). A server that strips special tokens
//! leaves `call:NAME{…}` with the quotes gone (`call:write_file{content:hello,path:a.txt}`), and
//! some replies write `call:NAME(key: "value")` with parentheses and JSON strings, or a JSON object
//! inside the parentheses (`call:NAME({"key": "value"})`); all of these are read, a bare value that
//! is not a number or literal being a string (one in single quotes without them: Gemma 4 writes
//! `save_as='report.docx'` at times, ollama/ollama#17882). A namespaced name
//! (`call:google:mcp:search{…}`, which QAT Gemma 4 builds write) is its last segment.
//!
//! The wrapped form is a special token and `auto` detects it. The stripped form looks like prose,
//! so it is read only when `options.format` is `gemma4`, only when the name is one of
//! `options.tools` (when given), and only when the whole object reads. A block whose call does
//! not read stays in `content` and is reported; a block cut off by the end of the reply still gives
//! its call when the arguments read (reported), a `call:NAME({…}` whose object only spaces follow
//! included (its `)` went with the cut, as `<tool_call|>` did), and so does a stripped
//! `call:NAME({…}` whose object the end of the reply follows (reported). Anything else after
//! such an object (a line break and prose, the next `<|tool_call>`) is no cut call: the block is
//! removed and reported. The stream machine also ends an unclosed block where reasoning begins,
//! which is then the end of the text read. Reasoning (`<|channel>thought…<channel|>`) is split
//! off by [`super::thinking`].

use serde_json::{Map, Value};

use super::scan::{find_from, Budget, Finder};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "gemma4";
const OPEN: &str = "<|tool_call>";
const CLOSE: &str = "<tool_call|>";
/// Gemma 4's string quote token.
pub const QUOTE: &str = "<|\"|>";
/// The word before a call's name.
pub(crate) const CALL: &str = "call:";
/// Nesting deeper than this is not a call (and keeps the reader's recursion bounded).
const MAX_DEPTH: usize = 64;

/// Whether `options.model` names a Gemma 4 model (`google/gemma-4-31b-it`, `gemma4:e4b`): its
/// stripped thought channel is then read without the `thought` word too
/// (`stream::gemma_lead`).
pub fn names_gemma4(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    ["gemma-4", "gemma4", "gemma_4"]
        .iter()
        .any(|p| m.contains(p))
}

/// One wrapped call syntax of the Gemma family: its block tokens, its string quote, and whether
/// the `call:` word may be missing before a name (FunctionGemma, [`super::functiongemma`]).
pub(crate) struct Syntax {
    pub(crate) name: &'static str,
    pub(crate) open: &'static str,
    /// The closing tokens (the first that comes ends the block).
    pub(crate) closes: &'static [&'static str],
    pub(crate) quote: &'static str,
    pub(crate) call_word_optional: bool,
}

const GEMMA4: Syntax = Syntax {
    name: NAME,
    open: OPEN,
    closes: &[CLOSE],
    quote: QUOTE,
    call_word_optional: false,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_blocks(text, &GEMMA4);
    if cx.unwrapped {
        add_stripped(text, cx, &mut out);
    }
    out.strip_markup(text, &[CLOSE]);
    out.set_format_if_calls(NAME);
    out
}

/// The blocks `open`…`close` of `syn` in `text`, each read as its calls (the stripped form and
/// lone closing tokens are the caller's).
pub(crate) fn parse_blocks(text: &str, syn: &Syntax) -> Parsed {
    let mut out = Parsed::default();
    let mut closes: Vec<Finder> = syn.closes.iter().map(|c| Finder::new(c)).collect();
    let mut opens = Finder::new(syn.open);
    let name = syn.name;
    let mut at = 0;
    while let Some(start) = opens.find(text, at) {
        let body_at = start + syn.open.len();
        let next = opens.find(text, body_at);
        let close = closes
            .iter_mut()
            .zip(syn.closes)
            .filter_map(|(f, c)| f.find(text, body_at).map(|i| (i, c.len())))
            .min();
        let (body_end, end) = match close {
            Some((c, len)) if next.is_none_or(|n| c < n) => (c, c + len),
            _ => {
                out.problems.push(format!(
                    "{name}: {} missing (truncated reply)",
                    syn.closes[0]
                ));
                let e = next.unwrap_or(text.len());
                (e, e)
            }
        };
        // Unclosed and running to the end of the text: the reply was cut inside this block.
        let cut = body_end == text.len();
        let calls = read_calls(&text[body_at..body_end], cut, syn);
        out.blocks.push(Block::of_calls(
            start,
            end,
            calls,
            &mut out.problems,
            || {
                format!(
                    "{name}: call block does not read as call:NAME{{…}}; raw text kept in content"
                )
            },
        ));
        at = end.max(body_at);
    }
    out
}

/// Every `call:NAME{…}` of a block body, one after another; none unless all of it reads. `cut`:
/// the reply ends with this body (no closing token), so its last `call:NAME({…}` may lack only
/// its `)` ([`Reader::paren_object`]).
fn read_calls(body: &str, cut: bool, syn: &Syntax) -> Vec<RawCall> {
    let mut calls = Vec::new();
    let mut r = Reader {
        s: body,
        i: 0,
        seen: 0,
        at_end: cut,
        cut: false,
        quote: syn.quote,
        call_word_optional: syn.call_word_optional,
    };
    loop {
        r.ws();
        if r.i >= body.len() {
            return calls;
        }
        match r.call() {
            Some(c) => calls.push(c),
            None => return Vec::new(),
        }
    }
}

/// What [`call_at`] finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallAt {
    /// A call, read up to this byte.
    Read(RawCall, usize),
    /// The text ends inside what could still be a call: a reply cut there.
    Cut,
    /// No call.
    No,
}

/// The `call:NAME{…}` at `at` in `text` (the `call:` word required), strings quoted with `syn`'s
/// token; `text` ends where the reply ends (a `call:NAME({…}` whose `)` the end took reads).
pub(crate) fn call_at(text: &str, at: usize, syn: &Syntax) -> CallAt {
    let mut r = Reader {
        s: text,
        i: at,
        seen: at,
        at_end: true,
        cut: false,
        quote: syn.quote,
        call_word_optional: false,
    };
    match r.call() {
        Some(c) => CallAt::Read(c, r.i),
        None if r.i.max(r.seen) >= text.len() => CallAt::Cut,
        None => CallAt::No,
    }
}

/// The stripped form (`call:NAME{…}` with no tokens) in the text outside the blocks found.
fn add_stripped(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut found = Vec::new();
    let mut budget = Budget::for_text(text);
    for (s, e) in out.gaps(text.len()) {
        let piece = &text[s..e];
        let mut at = 0;
        while let Some(i) = find_from(piece, CALL, at) {
            at = i + CALL.len();
            let word_start = piece[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if !word_start {
                continue;
            }
            let mut r = Reader {
                s: piece,
                i,
                seen: i,
                at_end: e == text.len(),
                cut: false,
                quote: QUOTE,
                call_word_optional: false,
            };
            let read = r.call();
            if !budget.charge(r.seen.max(r.i) - i + 1) {
                break;
            }
            let Some(call) = read else { continue };
            if cx.tools.is_some() && !super::bare_json::offered(cx.tools, &call.name) {
                continue;
            }
            if r.cut {
                out.problems.push(format!(
                    "{NAME}: call {:?} cut off before its ')' (truncated reply)",
                    call.name
                ));
            }
            found.push(Block {
                start: s + i,
                end: s + r.i,
                calls: vec![call],
                keep_raw: false,
            });
            at = r.i;
        }
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
}

/// Gemma's object notation at `at` (`text[at]` is `{`): the object and where it ends. Gemini
/// writes the arguments of the calls it leaks as text in the same notation
/// ([`super::named_json`]).
///
/// ```
/// use transcript_hygiene::response::gemma4::object_at;
/// let (v, end) = object_at("f{a:[],b:null,c:北京 天气}", 1).unwrap_or_default();
/// assert_eq!(v, serde_json::json!({"a": [], "b": null, "c": "北京 天气"}));
/// assert_eq!(end, "f{a:[],b:null,c:北京 天气}".len());
/// ```
pub fn object_at(text: &str, at: usize) -> Option<(Value, usize)> {
    if text.as_bytes().get(at) != Some(&b'{') {
        return None;
    }
    let mut r = Reader {
        s: text,
        i: at,
        seen: at,
        at_end: false,
        cut: false,
        quote: QUOTE,
        call_word_optional: false,
    };
    let v = r.object(b'}', 0)?;
    Some((v, r.i))
}

/// A reader of Gemma's object notation over `s`, at byte `i`.
struct Reader<'a> {
    s: &'a str,
    i: usize,
    /// The furthest byte any search looked at (what an attempt cost).
    seen: usize,
    /// `s` ends where the reply ends: a `call:NAME({…}` whose object reaches it (spaces after)
    /// lacks only the `)` the reply's cut took, and reads ([`Reader::paren_object`]).
    at_end: bool,
    /// Set when the call read was such a cut one.
    cut: bool,
    /// The string quote token (`<|"|>`, FunctionGemma's `<escape>`).
    quote: &'static str,
    /// A name may start the call without the `call:` word before it.
    call_word_optional: bool,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        self.s.get(self.i..).unwrap_or("")
    }

    /// The next string quote, charged to `seen`.
    fn find_quote(&mut self) -> Option<usize> {
        let hit = find_from(self.s, self.quote, self.i);
        self.seen = self
            .seen
            .max(hit.map_or(self.s.len(), |h| h + self.quote.len()));
        hit
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.i += r.len() - r.trim_start().len();
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    /// `call:NAME{…}` or `call:NAME(…)` (the word optional when [`Reader::call_word_optional`]).
    fn call(&mut self) -> Option<RawCall> {
        if !self.eat(CALL) && !self.call_word_optional {
            return None;
        }
        let mut name = self.word();
        // A namespaced name (`call:google:mcp:search{…}`, jundot/omlx#1830) is its last segment:
        // a tool name holds no `:`.
        while !name.is_empty() && self.eat(":") {
            name = self.word();
        }
        if name.is_empty() || !matches!(self.rest().as_bytes().first(), Some(b'{' | b'(')) {
            return None;
        }
        let args = match self.paren_object() {
            Some(r) => r?,
            None => self.value(0)?,
        };
        Some(RawCall {
            name,
            arguments: args.to_string(),
            id: None,
        })
    }

    /// The name word at `i` (letters, digits, `_`, `-`, `.`), read past.
    fn word(&mut self) -> String {
        let r = self.rest();
        let n = r
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .unwrap_or(r.len());
        let w = r[..n].to_owned();
        self.i += n;
        w
    }

    /// `({…})`: one JSON object inside the parentheses (`call:NAME({"k": "v"})`, the call written
    /// as a function taking a JSON object; strict JSON, so an elided `[...]` is no call). `None`
    /// when the parentheses hold something else (keyword arguments), `Some(None)` when the object
    /// does not read or the `)` is missing, except where the reply ends right after the object
    /// (`at_end`: the call was cut before its `)`, read and marked `cut`).
    fn paren_object(&mut self) -> Option<Option<Value>> {
        let inner = self.rest().strip_prefix('(')?;
        let lead = inner.len() - inner.trim_start().len();
        if !inner[lead..].starts_with('{') {
            return None;
        }
        self.i += 1 + lead;
        let Some((v @ Value::Object(_), end)) = super::json_calls::read_value(self.s, self.i)
        else {
            let reach = super::scan::balanced_end(self.s, self.i, false);
            self.seen = self.seen.max(reach.unwrap_or(self.s.len()));
            return Some(None);
        };
        self.i = end;
        self.seen = self.seen.max(end);
        self.ws();
        if self.eat(")") {
            return Some(Some(v));
        }
        self.cut = self.at_end && self.i >= self.s.len();
        Some(Some(v).filter(|_| self.cut))
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        if self.eat(self.quote) {
            let end = self.find_quote()?;
            let v = self.s[self.i..end].to_owned();
            self.i = end + self.quote.len();
            return Some(Value::String(v));
        }
        match self.rest().as_bytes().first()? {
            b'{' => self.object(b'}', depth),
            b'(' => self.object(b')', depth),
            b'[' => self.array(depth),
            b'"' => self.json_string(),
            _ => self.bare(),
        }
    }

    fn key(&mut self) -> Option<String> {
        self.ws();
        if self.eat(self.quote) {
            let end = self.find_quote()?;
            let k = self.s[self.i..end].to_owned();
            self.i = end + self.quote.len();
            return Some(k);
        }
        if self.rest().starts_with('"') {
            return match self.json_string()? {
                Value::String(k) => Some(k),
                _ => None,
            };
        }
        let r = self.s.get(self.i..).unwrap_or("");
        let found = r.find([':', '=', ',', '}', ')', '{', '<', '"']);
        self.seen = self.seen.max(self.i + found.unwrap_or(r.len()));
        let n = found?;
        let k = r[..n].trim().to_owned();
        if k.is_empty() || k.contains(char::is_whitespace) {
            return None;
        }
        self.i += n;
        Some(k)
    }

    fn object(&mut self, close: u8, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.ws();
            if self.rest().as_bytes().first() == Some(&close) {
                self.i += 1;
                return Some(Value::Object(map));
            }
            let k = self.key()?;
            self.ws();
            if !(self.eat(":") || self.eat("=")) {
                return None;
            }
            let v = self.value(depth + 1)?;
            map.insert(k, v);
            self.ws();
            match self.rest().as_bytes().first()? {
                b',' => self.i += 1,
                &b if b == close => {}
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.eat("]") {
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.rest().as_bytes().first()? {
                b',' => self.i += 1,
                b']' => {}
                _ => return None,
            }
        }
    }

    fn json_string(&mut self) -> Option<Value> {
        let b = self.s.as_bytes();
        let mut escaped = false;
        for (j, &byte) in b.iter().enumerate().skip(self.i + 1) {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    self.seen = self.seen.max(j);
                    let v = serde_json::from_str::<String>(&self.s[self.i..=j]).ok()?;
                    self.i = j + 1;
                    return Some(Value::String(v));
                }
                _ => {}
            }
        }
        self.seen = self.s.len();
        None
    }

    /// A bare scalar up to the next `,` or closing bracket: a number or literal when it parses
    /// as one, otherwise the text (a string whose quotes were stripped; a single-quoted one
    /// loses its quotes).
    fn bare(&mut self) -> Option<Value> {
        let r = self.s.get(self.i..).unwrap_or("");
        let found = r.find([',', '}', ')', ']']);
        self.seen = self.seen.max(self.i + found.unwrap_or(r.len()));
        let n = found?;
        let raw = r[..n].trim();
        if raw.is_empty() {
            return None;
        }
        // Single quotes are a string's (`save_as='report.docx'`, ollama/ollama#17882), not its text.
        let quoted = raw.len() >= 2 && raw.starts_with('\'') && raw.ends_with('\'');
        let v = match serde_json::from_str::<Value>(raw) {
            Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => v,
            _ if quoted => Value::String(raw[1..raw.len() - 1].to_owned()),
            _ => Value::String(raw.to_owned()),
        };
        self.i += n;
        Some(v)
    }
}
