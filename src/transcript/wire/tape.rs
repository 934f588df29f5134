//! A request body read from its bytes: one validating pass that records where each value is, and
//! copies nothing.
//!
//! A gateway holds the body as bytes, and most of them are strings no rule reads (screenshots in
//! base64, long tool outputs). Building a `serde_json::Value` (or JS objects) copies every one of
//! them; this reader checks the whole body is JSON (UTF-8, grammar, nesting, duplicate keys, lone
//! surrogates in `\u` escapes) and records, for the values near the top that the wire readers
//! walk, their kind and byte span in a flat list (the tape). A string is decoded only when a reader
//! asks for it, and lent without a copy when it has no escapes. The tape is ~16 bytes per value
//! at depth ≤ [`RECORD_DEPTH`]; deeper values are checked and skipped.
//!
//! Errors say where: the path of the value (`body.messages[3].content`), the byte offset, what was
//! expected and what was found.

use super::node::{Node, View};
use super::WireError;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;

/// Values at this depth (the body is 0) or above are recorded; deeper ones are only checked.
/// The readers walk at most `body.messages[i].content[j].function.name` (6), the image finder
/// `body.messages[i].content[j].content[k].source.data` (8, an image in an Anthropic tool result)
/// and `body.contents[i].parts[j].functionResponse.parts[k].inlineData.data` (9, an image in a
/// Gemini 3 function response).
pub const RECORD_DEPTH: usize = 9;

/// Containers nested deeper than this are refused (a body is never that deep; a stack is finite).
pub const MAX_NESTING: usize = 256;

const NULL: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const NUM: u8 = 3;
const STR: u8 = 4;
const ARR: u8 = 5;
const OBJ: u8 = 6;

#[derive(Clone, Copy, Debug)]
struct Slot {
    kind: u8,
    /// A string with a backslash escape (decoded on demand).
    escaped: bool,
    start: u32,
    end: u32,
    /// The slot after this value's subtree.
    next: u32,
}

/// The recorded values of one body, over its text.
pub struct Tape<'a> {
    pub text: &'a str,
    slots: Vec<Slot>,
}

/// A value of a [`Tape`].
#[derive(Clone, Copy)]
pub struct TNode<'t> {
    tape: &'t Tape<'t>,
    idx: u32,
}

enum Seg {
    Key(String),
    Idx(usize),
}

struct Fail {
    at: usize,
    expected: &'static str,
    got: String,
    /// Innermost first.
    path: Vec<Seg>,
}

struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    slots: Vec<Slot>,
    keys: Vec<Cow<'a, str>>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the 8 bytes of `w` ends or interrupts a string: `"`, `\` or a control byte.
fn special(w: u64) -> bool {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    (zero(w ^ (ONES * b'"' as u64)) | zero(w ^ (ONES * b'\\' as u64)) | below_space) != 0
}

impl<'a> Scan<'a> {
    fn fail(&self, at: usize, expected: &'static str) -> Fail {
        let got = match self.text.get(at..).and_then(|s| s.chars().next()) {
            None => "the end of the body".to_string(),
            Some(c) if c.is_control() => format!("{:?}", c),
            Some(c) => format!("'{c}'"),
        };
        Fail {
            at,
            expected,
            got,
            path: Vec::new(),
        }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8, expected: &'static str) -> Result<(), Fail> {
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.fail(self.pos, expected))
        }
    }

    fn hex4(&self, at: usize) -> Result<u32, Fail> {
        let h = self
            .text
            .get(at..at + 4)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| self.fail(at, "four hex digits after \\u"))?;
        u32::from_str_radix(h, 16).map_err(|_| self.fail(at, "four hex digits after \\u"))
    }

    /// A string from its opening quote; whether it has escapes.
    fn string(&mut self) -> Result<bool, Fail> {
        self.pos += 1;
        let mut escaped = false;
        loop {
            while self.pos + 8 <= self.b.len() {
                let mut w = [0u8; 8];
                w.copy_from_slice(&self.b[self.pos..self.pos + 8]);
                if special(u64::from_le_bytes(w)) {
                    break;
                }
                self.pos += 8;
            }
            match self.b.get(self.pos) {
                None => return Err(self.fail(self.pos, "a closing quote")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape()?;
                }
                Some(c) if *c < 0x20 => {
                    return Err(self.fail(self.pos, "a control character to be escaped"))
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn escape(&mut self) -> Result<(), Fail> {
        let at = self.pos;
        match self.b.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 2,
            Some(b'u') => {
                let u = self.hex4(at + 2)?;
                self.pos += 6;
                if (0xDC00..0xE000).contains(&u) {
                    let mut f = self.fail(at, "a high surrogate before this low one");
                    f.got = format!("a lone \\u{u:04X}");
                    return Err(f);
                }
                if (0xD800..0xDC00).contains(&u) {
                    let low = match self.b.get(self.pos..self.pos + 2) {
                        Some(b"\\u") => self.hex4(self.pos + 2)?,
                        _ => 0,
                    };
                    if !(0xDC00..0xE000).contains(&low) {
                        let mut f = self.fail(at, "a low surrogate \\uDC00-\\uDFFF after it");
                        f.got = format!("a lone \\u{u:04X}");
                        return Err(f);
                    }
                    self.pos += 6;
                }
            }
            _ => {
                return Err(self.fail(
                    at + 1,
                    "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                ))
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> Result<(), Fail> {
        let start = self.pos;
        while self.b.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.fail(self.pos, "a digit"));
        }
        Ok(())
    }

    fn number(&mut self) -> Result<(), Fail> {
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        if self.b.get(self.pos) == Some(&b'0') {
            self.pos += 1;
        } else {
            self.digits()?;
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.b.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.b.get(self.pos) {
                self.pos += 1;
            }
            self.digits()?;
        }
        Ok(())
    }

    fn literal(&mut self, word: &'static str, expected: &'static str) -> Result<(), Fail> {
        if self.b[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.fail(self.pos, expected))
        }
    }

    fn push(&mut self, kind: u8, start: usize) -> usize {
        self.slots.push(Slot {
            kind,
            escaped: false,
            start: start as u32,
            end: start as u32,
            next: 0,
        });
        self.slots.len() - 1
    }

    /// One value at `depth`, recorded when `depth <= RECORD_DEPTH`.
    fn value(&mut self, depth: usize) -> Result<(), Fail> {
        let start = self.pos;
        let record = depth <= RECORD_DEPTH;
        let (kind, escaped) = match self.b.get(start) {
            Some(b'{') => (OBJ, false),
            Some(b'[') => (ARR, false),
            Some(b'"') => (STR, false),
            Some(b't') => (TRUE, false),
            Some(b'f') => (FALSE, false),
            Some(b'n') => (NULL, false),
            Some(b'-' | b'0'..=b'9') => (NUM, false),
            _ => return Err(self.fail(start, "a JSON value")),
        };
        let slot = record.then(|| self.push(kind, start));
        let escaped = match kind {
            OBJ => self.object(depth).map(|()| escaped)?,
            ARR => self.array(depth).map(|()| escaped)?,
            STR => self.string()?,
            TRUE => self.literal("true", "a JSON value").map(|()| escaped)?,
            FALSE => self.literal("false", "a JSON value").map(|()| escaped)?,
            NULL => self.literal("null", "a JSON value").map(|()| escaped)?,
            _ => self.number().map(|()| escaped)?,
        };
        if let Some(i) = slot {
            let next = self.slots.len() as u32;
            let s = &mut self.slots[i];
            s.end = self.pos as u32;
            s.escaped = escaped;
            s.next = next;
        }
        Ok(())
    }

    fn nested(&self, depth: usize) -> Result<(), Fail> {
        if depth >= MAX_NESTING {
            return Err(self.fail(self.pos, "at most 256 levels of nesting"));
        }
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<(), Fail> {
        self.nested(depth)?;
        self.pos += 1;
        self.ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(());
        }
        let mut i = 0;
        loop {
            self.ws();
            self.value(depth + 1).map_err(|mut f| {
                f.path.push(Seg::Idx(i));
                f
            })?;
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.fail(self.pos, "',' or ']'")),
            }
            i += 1;
        }
    }

    fn object(&mut self, depth: usize) -> Result<(), Fail> {
        self.nested(depth)?;
        self.pos += 1;
        self.ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(());
        }
        let base = self.keys.len();
        let mut many: Option<HashSet<Cow<'a, str>>> = None;
        let r = self.members(depth, base, &mut many);
        self.keys.truncate(base);
        r
    }

    fn members(
        &mut self,
        depth: usize,
        base: usize,
        many: &mut Option<HashSet<Cow<'a, str>>>,
    ) -> Result<(), Fail> {
        loop {
            self.ws();
            let at = self.pos;
            if self.b.get(at) != Some(&b'"') {
                return Err(self.fail(at, "a key (a string)"));
            }
            let slot = (depth < RECORD_DEPTH).then(|| self.push(STR, at));
            let escaped = self.string()?;
            if let Some(i) = slot {
                let next = self.slots.len() as u32;
                let s = &mut self.slots[i];
                (s.end, s.escaped, s.next) = (self.pos as u32, escaped, next);
            }
            let key = decode(&self.text[at..self.pos], escaped);
            let dup = match many {
                Some(set) => !set.insert(key.clone()),
                None if self.keys.len() - base >= 16 => {
                    let set = many.insert(self.keys.drain(base..).collect());
                    !set.insert(key.clone())
                }
                None => {
                    let d = self.keys[base..].contains(&key);
                    self.keys.push(key.clone());
                    d
                }
            };
            if dup {
                let mut f = self.fail(at, "each key once");
                f.got = format!("{key:?} a second time");
                return Err(f);
            }
            self.ws();
            self.expect(b':', "':' after the key")?;
            self.ws();
            self.value(depth + 1).map_err(|mut f| {
                f.path.push(Seg::Key(key.into_owned()));
                f
            })?;
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.fail(self.pos, "',' or '}'")),
            }
        }
    }
}

/// A string literal's text (`raw` with its quotes).
fn decode(raw: &str, escaped: bool) -> Cow<'_, str> {
    let inner = &raw[1..raw.len() - 1];
    if escaped {
        Cow::Owned(serde_json::from_str(raw).unwrap_or_else(|_| inner.to_string()))
    } else {
        Cow::Borrowed(inner)
    }
}

fn path_of(segs: &[Seg]) -> String {
    let mut p = String::from("body");
    for s in segs.iter().rev() {
        match s {
            Seg::Key(k) if !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                p.push('.');
                p.push_str(k);
            }
            Seg::Key(k) => p.push_str(&format!("[{k:?}]")),
            Seg::Idx(i) => p.push_str(&format!("[{i}]")),
        }
    }
    p
}

impl<'a> Tape<'a> {
    /// Reads `bytes` (a whole request body, UTF-8 JSON).
    ///
    /// ```
    /// use transcript_hygiene::transcript::wire::{node::Node, tape::Tape};
    ///
    /// let tape = Tape::parse(br#"{"messages": [{"role": "user", "content": "\u4f60\u597d"}]}"#).unwrap();
    /// let msg = tape.root().get("messages").and_then(|m| m.items().next()).unwrap();
    /// assert_eq!(msg.get("content").and_then(Node::str).as_deref(), Some("你好"));
    ///
    /// let err = Tape::parse(br#"{"messages": [{"role": "user", "role": "tool"}]}"#).err().unwrap();
    /// assert_eq!(err.to_string(), r#"body.messages[0]: expected each key once, got "role" a second time (byte 31)"#);
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Tape<'a>, WireError> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(WireError::at(
                "body",
                "a body under 4 GiB",
                "a larger one",
                0,
            ));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| WireError::at("body", "UTF-8 text", "an invalid byte", e.valid_up_to()))?;
        let mut s = Scan {
            text,
            b: bytes,
            pos: 0,
            // A guess that saves most regrowth copies of a large body's tape.
            slots: Vec::with_capacity(bytes.len() / 64 + 16),
            keys: Vec::new(),
        };
        let read = (|| {
            s.ws();
            s.value(0)?;
            s.ws();
            if s.pos != s.b.len() {
                return Err(s.fail(s.pos, "the end of the body after its JSON value"));
            }
            Ok(())
        })();
        match read {
            Ok(()) => Ok(Tape {
                text,
                slots: s.slots,
            }),
            Err(f) => Err(WireError::at(path_of(&f.path), f.expected, f.got, f.at)),
        }
    }

    /// The body.
    pub fn root(&self) -> TNode<'_> {
        TNode { tape: self, idx: 0 }
    }
}

/// The items of an array node.
pub struct TItems<'t> {
    tape: &'t Tape<'t>,
    at: u32,
    end: u32,
}

impl<'t> Iterator for TItems<'t> {
    type Item = TNode<'t>;
    fn next(&mut self) -> Option<TNode<'t>> {
        if self.at >= self.end {
            return None;
        }
        let n = TNode {
            tape: self.tape,
            idx: self.at,
        };
        self.at = self.tape.slots[self.at as usize].next;
        Some(n)
    }
}

impl<'t> TNode<'t> {
    fn slot(self) -> Slot {
        self.tape.slots[self.idx as usize]
    }

    /// The value's bytes in the body.
    pub fn span(self) -> std::ops::Range<usize> {
        let s = self.slot();
        s.start as usize..s.end as usize
    }

    /// The value's text as written in the body.
    pub fn raw(self) -> &'t str {
        &self.tape.text[self.span()]
    }

    /// An object's members in order: `(key node, value node)`.
    pub fn members(self) -> impl Iterator<Item = (TNode<'t>, TNode<'t>)> {
        let s = self.slot();
        let end = if s.kind == OBJ { s.next } else { self.idx + 1 };
        let tape = self.tape;
        let mut k = self.idx + 1;
        std::iter::from_fn(move || {
            if k >= end {
                return None;
            }
            let key = TNode { tape, idx: k };
            let val = TNode { tape, idx: k + 1 };
            k = tape.slots[(k + 1) as usize].next;
            Some((key, val))
        })
    }

    fn key_is(self, key: &str) -> bool {
        let s = self.slot();
        let raw = self.raw();
        if s.escaped {
            decode(raw, true) == key
        } else {
            raw.len() == key.len() + 2 && &raw[1..raw.len() - 1] == key
        }
    }
}

impl<'t> Node<'t> for TNode<'t> {
    type Items = TItems<'t>;

    fn view(self) -> View<'t, Self> {
        let s = self.slot();
        match s.kind {
            NULL => View::Null,
            TRUE => View::Bool(true),
            FALSE => View::Bool(false),
            NUM => View::Num,
            STR => View::Str(decode(self.raw(), s.escaped)),
            ARR => View::Arr(self),
            _ => View::Obj(self),
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        self.members().find(|(k, _)| k.key_is(key)).map(|(_, v)| v)
    }

    fn items(self) -> TItems<'t> {
        let s = self.slot();
        let end = if s.kind == ARR { s.next } else { self.idx + 1 };
        TItems {
            tape: self.tape,
            at: self.idx + 1,
            end,
        }
    }

    fn first_key(self) -> Option<Cow<'t, str>> {
        self.members().next().and_then(|(k, _)| k.str())
    }

    fn to_value(self) -> Value {
        serde_json::from_str(self.raw()).unwrap_or(Value::Null)
    }

    fn byte_span(self) -> Option<std::ops::Range<usize>> {
        Some(self.span())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        match Tape::parse(s.as_bytes()) {
            Ok(_) => "ok".into(),
            Err(e) => e.to_string(),
        }
    }

    /// Bad bodies, each with the error naming where and what.
    #[test]
    fn bad_bodies_are_refused_with_the_path_and_byte() {
        let cases = [
            (r#"{"messages": [{"role": "user", "content": "半"#, "body.messages[0].content: expected a closing quote, got the end of the body (byte 46)"),
            (r#"{"messages": [{"role": "user"},"#, "body.messages[1]: expected a JSON value, got the end of the body (byte 31)"),
            (r#"{"messages": [] "tools": []}"#, "body: expected ',' or '}', got '\"' (byte 16)"),
            (r#"{"a": 1, "a": 2}"#, "body: expected each key once, got \"a\" a second time (byte 9)"),
            (r#"{"r\u006fle": 1, "role": 2}"#, "body: expected each key once, got \"role\" a second time (byte 17)"),
            (r#"{"m": [{"content": "\ud83d x"}]}"#, "body.m[0].content: expected a low surrogate \\uDC00-\\uDFFF after it, got a lone \\uD83D (byte 20)"),
            (r#"{"m": "\ude00"}"#, "body.m: expected a high surrogate before this low one, got a lone \\uDE00 (byte 7)"),
            (r#"{"m": "\x"}"#, "body.m: expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX), got 'x' (byte 8)"),
            ("{\"m\": \"a\nb\"}", "body.m: expected a control character to be escaped, got '\\n' (byte 8)"),
            (r#"{"m": 01}"#, "body: expected ',' or '}', got '1' (byte 7)"),
            (r#"{"m": -}"#, "body.m: expected a digit, got '}' (byte 7)"),
            (r#"{"m": tru}"#, "body.m: expected a JSON value, got 't' (byte 6)"),
            (r#"{} {}"#, "body: expected the end of the body after its JSON value, got '{' (byte 3)"),
            (r#"{"a b": [1, x]}"#, "body[\"a b\"][1]: expected a JSON value, got 'x' (byte 12)"),
            ("", "body: expected a JSON value, got the end of the body (byte 0)"),
        ];
        for (body, want) in cases {
            assert_eq!(err(body), want, "{body}");
        }
        let deep = "[".repeat(300) + &"]".repeat(300);
        assert!(err(&deep).starts_with("body[0][0]"), "{}", err(&deep));
        assert!(err(&deep).contains("expected at most 256 levels of nesting"));
        let bad = Tape::parse(b"{\"m\": \"\xff\"}").err().unwrap();
        assert_eq!(
            bad.to_string(),
            "body: expected UTF-8 text, got an invalid byte (byte 7)"
        );
    }

    #[test]
    fn good_bodies_read_as_serde_reads_them() {
        let bodies = [
            r#" { "a" : [ 1 , -2.5e+3 , true , false , null , "x\"y\u00e9\ud83d\ude00" , { } , [ ] ] , "b" : { "c" : { "d" : [ [ [ [ [ [ 1 ] ] ] ] ] ] } } } "#,
            r#"{"messages":[{"role":"user","content":"一二三四五六七八九十 long enough to take the fast path"}]}"#,
        ];
        for b in bodies {
            let tape = Tape::parse(b.as_bytes()).unwrap();
            let want: Value = serde_json::from_str(b).unwrap();
            assert_eq!(tape.root().to_value(), want);
            for (k, v) in tape.root().members() {
                let k = k.str().unwrap();
                assert_eq!(v.to_value(), want[k.as_ref()]);
                assert_eq!(tape.root().get(&k).map(|n| n.raw()), Some(v.raw()));
            }
        }
        let tape = Tape::parse(bodies[0].as_bytes()).unwrap();
        let a: Vec<&str> = tape
            .root()
            .get("a")
            .unwrap()
            .items()
            .map(TNode::raw)
            .collect();
        assert_eq!(
            a,
            [
                "1",
                "-2.5e+3",
                "true",
                "false",
                "null",
                r#""x\"y\u00e9\ud83d\ude00""#,
                "{ }",
                "[ ]"
            ]
        );
        assert_eq!(
            tape.root()
                .get("a")
                .unwrap()
                .items()
                .nth(5)
                .and_then(Node::str)
                .as_deref(),
            Some("x\"yé😀")
        );
    }

    #[test]
    fn many_keys_are_checked_for_duplicates_in_linear_time() {
        let make = |n: usize| {
            let keys: Vec<String> = (0..n / 12).map(|i| format!("\"k{i}\":1")).collect();
            format!("{{{}}}", keys.join(","))
        };
        crate::response::linearity::assert_grows_linearly("tape keys", &make, &|t| {
            assert!(Tape::parse(t.as_bytes()).is_ok());
        });
        assert!(err(&format!(
            "{{\"k3\":0,{}}}",
            make(2000).trim_start_matches('{')
        ))
        .contains("\"k3\" a second time"));
    }
}
