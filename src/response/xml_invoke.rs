//! Shared reading of the `<PREFIX:invoke name="F"><PREFIX:parameter name="K" …>V</…parameter></…invoke>`
//! call bodies written by Step-3 (`steptml:`) and DeepSeek-V3.2's DSML (`｜DSML｜`), and of the
//! section/call wrappers around them; MiniMax-M2's unprefixed invokes and MiniCPM5's
//! `<function name="F"><param name="K">V</param></function>` (no section) are read the same way.
//!
//! A value ends only at its exact closing tag (so `<`, `>` and `&` inside it are kept, where vLLM
//! 0.14's Step-3 parser loses such a parameter) and is trimmed; entities are not decoded. An
//! invoke ends at its closing tag or at the next invoke. Missing closing tags (truncated reply) run
//! to the end of the enclosing body and are reported; an invoke with an empty name is skipped.

use std::borrow::Cow;

use super::scan::find_from;
use super::tokens::{Next, Tokens};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, RawCall};

/// The tag names of one dialect (openers without their `>`, e.g. `<steptml:invoke`).
#[derive(Debug, Clone, Copy)]
pub struct Tags {
    pub invoke: &'static str,
    pub invoke_end: &'static str,
    pub param: &'static str,
    pub param_end: &'static str,
}

/// One invoke as written: its name, its parameters and its raw body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoke<'a> {
    pub name: &'a str,
    pub params: Vec<Param<'a>>,
    pub body: &'a str,
}

/// One parameter: its name, its tag's head (the attributes) and its trimmed value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    pub name: &'a str,
    head: &'a str,
    pub value: &'a str,
}

impl<'a> Param<'a> {
    /// Its `string="…"` attribute, if any (read when asked: most readers never ask).
    pub fn string(&self) -> Option<&'a str> {
        attr(self.head, "string")
    }
}

/// The value of attribute `key` in a tag head (` name="x" string="true"`), quoted or not.
pub fn attr<'a>(head: &'a str, key: &str) -> Option<&'a str> {
    // The usual head, ` key="value"…`: the first `key` is at 1 after a space and `=` follows, so
    // the loop below would take this quoted value.
    if let Some(inner) = (head.strip_prefix(' ').and_then(|h| h.strip_prefix(key)))
        .and_then(|r| r.strip_prefix("=\""))
    {
        return Some(memchr::memchr(b'"', inner.as_bytes()).map_or(inner, |e| &inner[..e]));
    }
    // A head with one `=` (` name="…"`, asked for `string`): `key` has a value only when it
    // ends right before that `=`; otherwise no search (a miss was a search through the head).
    // (Plain loops: a head is a few bytes, where a `memchr` call costs more.)
    let b = head.as_bytes();
    let e = b.iter().position(|&c| c == b'=')?;
    if b[e + 1..].iter().all(|&c| c != b'=') && !head[..e].trim_end().ends_with(key) {
        return None;
    }
    let mut at = 0;
    while let Some(i) = find_from(head, key, at) {
        at = i + key.len();
        let before_ok = i == 0 || head[..i].ends_with(|c: char| c.is_whitespace());
        let rest = head[at..].trim_start();
        let Some(rest) = rest.strip_prefix('=').filter(|_| before_ok) else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
            let inner = &rest[1..];
            return Some(inner.find(q).map_or(inner, |e| &inner[..e]));
        }
        // Typographic quotes (`name=“path”`), as a chat front end or the model itself writes
        // them: the value is between them, not the quotes with it.
        if let Some((open, close)) = CURLY.iter().find(|(o, _)| rest.starts_with(*o)) {
            let inner = &rest[open.len_utf8()..];
            return Some(inner.find(*close).map_or(inner, |e| &inner[..e]));
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(rest.len());
        return Some(&rest[..end]);
    }
    None
}

/// A parameter tag's opening, as a lone wrapper line starts ([`lone_param_tag`]).
pub const PARAM_OPEN: &str = "<parameter name=";
/// A parameter's closing tag.
pub const PARAM_END: &str = "</parameter>";

/// A `<parameter name="…">` tag at the start of `rest` that ends its line (spaces, then a line
/// break): the tag's length. A model left such a line, and a `</parameter>` line after the text
/// it wraps, with no call around them (openclaw#98557: Qwen 3.6 around a list of assumptions);
/// the stream machine removes the two tags and keeps the text ([`super::stream`]). `Some(None)`:
/// not such a tag (inside a sentence, a value on the same line, no name); `None`: not known
/// before more text comes (`fin`: the reply ended). Decided within a head window.
pub fn lone_param_tag(rest: &str, fin: bool) -> Option<Option<usize>> {
    let w = super::scan::head_window(rest);
    let full = fin || rest.len() >= super::scan::HEAD_WINDOW;
    let wait = if full { Some(None) } else { None };
    let Some(head) = w.strip_prefix(PARAM_OPEN) else {
        return if PARAM_OPEN.starts_with(w) {
            wait
        } else {
            Some(None)
        };
    };
    let Some(gt) = head.find(['>', '\n']) else {
        return wait;
    };
    if head.as_bytes()[gt] != b'>' {
        return Some(None);
    }
    let name = attr(&format!(" name={}", &head[..gt]), "name")
        .is_some_and(|n| super::scan::is_name(n.trim()));
    if !name {
        return Some(None);
    }
    let len = PARAM_OPEN.len() + gt + 1;
    let after = w[len..].trim_start_matches([' ', '\t', '\r']);
    match after.as_bytes().first() {
        Some(b'\n') => Some(Some(len)),
        Some(_) => Some(None),
        None => wait,
    }
}

/// Typographic quote pairs an attribute value may be written in: `“…”`, `”…”`, `‘…’`.
const CURLY: [(char, char); 3] = [('“', '”'), ('”', '”'), ('‘', '’')];

/// Is `rest` (the text at an opener without `>`) really that tag, not a longer name?
pub fn tag_here(rest: &str, opener: &str) -> bool {
    rest.strip_prefix(opener)
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_whitespace() || c == '>')
}

/// The text an invoke reader reads: a block's body, `text[lo..hi]`, with the tags [`blocks`]
/// found in `text` when it found them (one pass over the block's `<` for the wrappers and the
/// invokes both, where the body was passed over a second time), or a text of its own.
#[derive(Debug, Clone, Copy)]
pub struct Body<'a> {
    text: &'a str,
    lo: usize,
    hi: usize,
    /// `text`'s tags and the kind of [`Tags::invoke`] among them (then `invoke_end`, `param`
    /// and `param_end`).
    tokens: Option<(&'a Tokens, u32)>,
}

impl<'a> From<&'a str> for Body<'a> {
    fn from(text: &'a str) -> Self {
        Body {
            text,
            lo: 0,
            hi: text.len(),
            tokens: None,
        }
    }
}

/// Every invoke in `body`.
pub fn invokes<'a>(
    body: impl Into<Body<'a>>,
    tags: &Tags,
    family: &str,
    problems: &mut Vec<String>,
) -> Vec<Invoke<'a>> {
    let mut out = Vec::new();
    walk(body.into(), tags, family, problems, |params, problems| {
        out.push(Invoke {
            name: params.func,
            body: &params.body[params.at..params.hi],
            params: params.with(problems).collect(),
        });
    });
    out
}

/// Each invoke of `body` with a name, in order, given to `each` as its [`Params`] (read as
/// `each` asks: a reader that types them as read keeps no list of them).
fn walk<'a>(
    body: Body<'a>,
    tags: &Tags,
    family: &str,
    problems: &mut Vec<String>,
    mut each: impl FnMut(Params<'a, '_>, &mut Vec<String>),
) {
    // One pass over the `<` of the body finds every tag the loops below ask for.
    let own;
    let (tokens, shift) = match body.tokens {
        Some(t) => t,
        None => {
            own = Tokens::prefixes(
                body.text,
                &[tags.invoke, tags.invoke_end, tags.param, tags.param_end],
            );
            (&own, 0)
        }
    };
    let (text, hi) = (body.text, body.hi);
    let mut firsts = Next::new(1 << shift);
    let mut ends = Next::new(1 << (shift + 1));
    let mut next = Next::new(1 << shift);
    let mut at = body.lo;
    while let Some(i) = firsts.find_before(tokens, at, hi) {
        at = i + tags.invoke.len();
        if !tag_here(&text[i..hi], tags.invoke) {
            continue;
        }
        let head_at = i + tags.invoke.len();
        let Some(gt) = byte_from(text, b'>', head_at, hi) else {
            problems.push(format!("{family}: invoke tag cut off; call dropped"));
            break;
        };
        let inv_end = match [
            ends.find_before(tokens, gt, hi),
            next.find_before(tokens, gt, hi),
        ]
        .into_iter()
        .flatten()
        .min()
        {
            Some(e) => e,
            None => {
                problems.push(missing(family, tags.invoke_end));
                hi
            }
        };
        at = inv_end.max(gt + 1);
        let name = attr(&text[head_at..gt], "name").unwrap_or("").trim();
        if name.is_empty() {
            problems.push(format!("{family}: invoke with an empty name skipped"));
            continue;
        }
        let params = Params {
            body: text,
            tokens,
            opens: Next::new(1 << (shift + 2)),
            ends: Next::new(1 << (shift + 3)),
            at: gt + 1,
            hi: inv_end,
            tags: *tags,
            func: name,
            family,
            problems: None,
        };
        each(params, problems);
    }
}

/// The first `byte` in `s[from..to]`.
fn byte_from(s: &str, byte: u8, from: usize, to: usize) -> Option<usize> {
    let hay = s.as_bytes().get(from..to)?;
    memchr::memchr(byte, hay).map(|i| from + i)
}

/// The parameters of one invoke, `body[at..hi]` (`hi` is the end of the block's body or the
/// start of a tag, so every tag that starts inside ends inside), read one by one; `tokens` are
/// `body`'s tags as [`walk`] has them. A missing closing tag is reported to `problems`.
struct Params<'a, 'p> {
    body: &'a str,
    tokens: &'p Tokens,
    opens: Next,
    ends: Next,
    at: usize,
    hi: usize,
    tags: Tags,
    /// The invoke's name (for the problems reported).
    func: &'a str,
    family: &'p str,
    problems: Option<&'p mut Vec<String>>,
}

impl<'a, 'p> Params<'a, 'p> {
    /// These parameters, reporting to `problems`.
    fn with<'q>(self, problems: &'q mut Vec<String>) -> Params<'a, 'q>
    where
        'p: 'q,
    {
        Params {
            body: self.body,
            tokens: self.tokens,
            opens: self.opens,
            ends: self.ends,
            at: self.at,
            hi: self.hi,
            tags: self.tags,
            func: self.func,
            family: self.family,
            problems: Some(problems),
        }
    }
}

impl<'a> Iterator for Params<'a, '_> {
    type Item = Param<'a>;

    fn next(&mut self) -> Option<Param<'a>> {
        let (body, hi, tags) = (self.body, self.hi, self.tags);
        while let Some(p) = self.opens.find_before(self.tokens, self.at, hi) {
            self.at = p + tags.param.len();
            if !tag_here(&body[p..hi], tags.param) {
                continue;
            }
            let head_at = p + tags.param.len();
            let Some(gt) = byte_from(body, b'>', head_at, hi) else {
                // Past a parameter tag with no `>` nothing more is read.
                self.at = hi;
                return None;
            };
            let value_end = match self.ends.find_before(self.tokens, gt, hi) {
                Some(e) => e,
                None => {
                    if let Some(pr) = self.problems.as_deref_mut() {
                        pr.push(format!(
                            "{}: call {:?}: {} missing (truncated)",
                            self.family, self.func, tags.param_end
                        ));
                    }
                    hi
                }
            };
            self.at = (value_end + tags.param_end.len()).min(hi).max(gt + 1);
            let head = &body[head_at..gt];
            if let Some(name) = attr(head, "name").map(str::trim).filter(|n| !n.is_empty()) {
                return Some(Param {
                    name,
                    head,
                    value: body[gt + 1..value_end].trim(),
                });
            }
        }
        None
    }
}

/// The wrappers of a dialect: a section of calls and, optionally, a per-call wrapper.
#[derive(Debug, Clone, Copy)]
pub struct Wrappers {
    /// `None` for a dialect whose invokes stand alone (MiniCPM5).
    pub section: Option<(&'static str, &'static str)>,
    pub call: Option<(&'static str, &'static str)>,
}

/// Blocks of calls: a section, a per-call wrapper without its section, or a bare invoke (each
/// whichever comes first). `read` turns a block's body into calls.
pub fn blocks(
    text: &str,
    w: &Wrappers,
    tags: &Tags,
    family: &str,
    problems: &mut Vec<String>,
    mut read: impl FnMut(Body<'_>, &mut Vec<String>) -> Vec<RawCall>,
) -> Vec<Block> {
    let mut out = Vec::new();
    // The kinds of block, in the order that breaks a tie: (opener, closer); kind `k`'s opener is
    // token kind `2k`, its closer `2k + 1`.
    let mut kinds = [("", ""); 3];
    let mut n = 0;
    for kind in [w.section, w.call, Some((tags.invoke, tags.invoke_end))]
        .into_iter()
        .flatten()
    {
        kinds[n] = kind;
        n += 1;
    }
    // Then the parameters' tags, for the invokes read in the bodies (kind `2n` on: the invoke
    // is the last kind of block, `2(n - 1)`, and its parameters follow it).
    let mut needles = [""; 8];
    for (k, (o, c)) in kinds[..n].iter().enumerate() {
        needles[2 * k] = o;
        needles[2 * k + 1] = c;
    }
    needles[2 * n] = tags.param;
    needles[2 * n + 1] = tags.param_end;
    let tokens = Tokens::prefixes(text, &needles[..2 * n + 2]);
    let shift = 2 * (n as u32 - 1);
    let openers = (0..n).fold(0, |m, k| m | 1 << (2 * k));
    let mut opens = Next::new(openers);
    let mut closes = [0, 1, 2].map(|k| Next::new(1 << (2 * k + 1)));
    let last = n - 1;
    let mut at = 0;
    while let Some((start, mask)) = opens.find(&tokens, at) {
        let k = ((mask & openers).trailing_zeros() / 2) as usize;
        let (open, close) = kinds[k];
        let bare = k == last;
        if bare && !tag_here(&text[start..], open) {
            at = start + open.len();
            continue;
        }
        let body_at = if bare { start } else { start + open.len() };
        let (body_end, end, cut) = match closes[k].find(&tokens, body_at) {
            Some((c, _)) if bare => (c + close.len(), c + close.len(), None),
            Some((c, _)) => (c, c + close.len(), None),
            None => {
                problems.push(missing(family, close));
                let cut = cut_closer(&text[body_at..], tags, close).map(|c| body_at + c);
                (text.len(), text.len(), cut)
            }
        };
        if let Some(c) = cut {
            // The calls before a closing tag the end of the reply cut: the block ends where that
            // tag starts, which is markup of its own, so the last call is not taken for one cut
            // inside its arguments ([`super::garbage`]).
            let body = Body {
                text,
                lo: body_at,
                hi: c,
                tokens: Some((&tokens, shift)),
            };
            let mut read_problems = Vec::new();
            let calls = read(body, &mut read_problems);
            if !calls.is_empty() {
                problems.append(&mut read_problems);
                out.push(Block {
                    start,
                    end: c,
                    calls,
                    keep_raw: false,
                });
                out.push(Block {
                    start: c,
                    end,
                    calls: Vec::new(),
                    keep_raw: false,
                });
                at = end;
                continue;
            }
        }
        let body = Body {
            text,
            lo: body_at,
            hi: body_end,
            tokens: Some((&tokens, shift)),
        };
        let calls = read(body, problems);
        out.push(Block::of_calls(start, end, calls, problems, || {
            format!("{family}: call block holds no readable invoke; raw text kept in content")
        }));
        at = end.max(start + 1);
    }
    out
}

/// The problem reported for a block (or an invoke) of `family` whose closer `close` never came.
pub fn missing(family: &str, close: &str) -> String {
    format!("{family}: {close} missing (truncated reply)")
}

/// Where, in `body` (a block's text after its opener, which the end of the reply cut before
/// `close`), a tag cut by that end starts when the calls before it are whole: the last invoke's
/// last parameter closed (or the invoke has none after its head), then `</` and up to all but the
/// last byte of the invoke's closer or of `close`; or the last invoke closed, then any tag cut
/// before its `>` (`close`, or the next invoke, which could not be read). A value ends only at
/// its exact closing tag, so nothing after one is part of it; after a parameter, a lone `<` may
/// open another parameter of the same invoke and is no such tag.
pub fn cut_closer(body: &str, tags: &Tags, close: &str) -> Option<usize> {
    let (lt, before) = super::scan::cut_tag(body)?;
    let piece = &body[lt..];
    if before.ends_with(tags.invoke_end) {
        return Some(lt);
    }
    let starts = |tag: &str| tag.len() > piece.len() && tag.starts_with(piece);
    let whole = piece.starts_with("</")
        && (before.ends_with(tags.param_end) || ends_in_invoke_head(before, tags))
        && (starts(tags.invoke_end) || starts(close));
    whole.then_some(lt)
}

/// Whether `s` ends with an invoke's head (`<invoke name="f">`) and no parameter after it.
fn ends_in_invoke_head(s: &str, tags: &Tags) -> bool {
    s.ends_with('>')
        && s.rfind(tags.invoke).is_some_and(|i| {
            let head = &s[i + tags.invoke.len()..s.len() - 1];
            tag_here(&s[i..], tags.invoke) && !head.contains(['<', '>'])
        })
}

/// The invokes of `body` as calls, each value first read by `decode` (entities, CDATA, or
/// [`as_written`]), then typed in `style` from the tools' schemas.
pub fn typed_invokes<'a, 'v>(
    body: impl Into<Body<'a>>,
    tags: &Tags,
    family: &str,
    cx: &Ctx,
    style: Style,
    decode: impl Fn(&'a str) -> Cow<'v, str>,
    problems: &mut Vec<String>,
) -> Vec<RawCall> {
    let mut calls = Vec::new();
    walk(body.into(), tags, family, problems, |params, problems| {
        let name = params.func;
        // Each parameter typed as it is read, its value decoded then (no list of either).
        let pairs = params.with(problems).map(|p| (p.name, decode(p.value)));
        calls.push(RawCall {
            arguments: typed_arguments(pairs, cx.tools, name, style),
            name: name.to_owned(),
            id: None,
        });
    });
    calls
}

/// `body` read as the parameters of one invoke named `name` whose head was written some other
/// way (MiniMax-M2.7 copying Hermes' `[Calling tool: NAME]`, see [`super::minimax_m2`]), each
/// value read and typed as [`typed_invokes`] reads them; a missing closing tag is reported.
#[allow(clippy::too_many_arguments)]
pub fn typed_params<'a, 'v>(
    body: &'a str,
    name: &'a str,
    tags: &Tags,
    family: &str,
    cx: &Ctx,
    style: Style,
    decode: impl Fn(&'a str) -> Cow<'v, str>,
    problems: &mut Vec<String>,
) -> RawCall {
    let tokens = Tokens::prefixes(
        body,
        &[tags.invoke, tags.invoke_end, tags.param, tags.param_end],
    );
    let params = Params {
        body,
        tokens: &tokens,
        opens: Next::new(1 << 2),
        ends: Next::new(1 << 3),
        at: 0,
        hi: body.len(),
        tags: *tags,
        func: name,
        family,
        problems: Some(problems),
    };
    let pairs = params.map(|p| (p.name, decode(p.value)));
    RawCall {
        arguments: typed_arguments(pairs, cx.tools, name, style),
        name: name.to_owned(),
        id: None,
    }
}

/// A value taken exactly as written (for [`typed_invokes`]).
pub fn as_written(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes() {
        assert_eq!(attr(" name=\"a b\" string=\"true\"", "name"), Some("a b"));
        assert_eq!(attr(" name='x' string=false", "string"), Some("false"));
        assert_eq!(attr(" name=x/", "name"), Some("x"));
        assert_eq!(attr(" rename=\"y\" name=\"z\"", "name"), Some("z"));
        assert_eq!(attr(" other=\"1\"", "name"), None);
        // The usual head read directly, as the general loop reads it.
        assert_eq!(attr(" name=\"读取\" x", "name"), Some("读取"));
        assert_eq!(attr(" name=\"cut", "name"), Some("cut"));
        assert_eq!(attr(" name=\"\"", "name"), Some(""));
        assert_eq!(attr(" names=\"a\" name=\"b\"", "name"), Some("b"));
        // One `=`: the key before it, or none.
        assert_eq!(attr(" name=\"a\"", "string"), None);
        assert_eq!(attr(" string =true", "string"), Some("true"));
        assert_eq!(attr(" xstring=1", "string"), None);
        assert_eq!(attr(" name", "name"), None);
        // Typographic quotes: the value between them.
        assert_eq!(attr(" name=“file_glob”", "name"), Some("file_glob"));
        assert_eq!(attr(" name=‘路径’ x", "name"), Some("路径"));
        assert_eq!(attr(" name=“cut", "name"), Some("cut"));
    }
}
