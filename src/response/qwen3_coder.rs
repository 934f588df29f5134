//! Qwen3-Coder / Qwen3.5 / Qwen3-Next XML calls (reference §2):
//! `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…</function></tool_call>`.
//!
//! Values are raw text (code, JSON, `<`, `&`, newlines) typed by the tools' schema ([`typing`]);
//! one leading and one trailing `\n` are removed, entities are not decoded. As in vLLM, a value
//! ends at the first `</parameter>`, `<parameter=` or `</function>`, so a missing `</parameter>`
//! or `</function>` is tolerated. The unwrapped form (`<function=` with no `<tool_call>`, which
//! servers that strip the opener leave, often with an orphan `</tool_call>` after it, see
//! [`super::orphan`]) is read for any model when it is unambiguous ([`strong_head`]: a plain name,
//! `>`, then `<parameter=` or `</function>`; without a later `</function>` the call runs to the end
//! of the reply, reported as truncated); any `<function=…>…</function>` is read when the format or
//! model names Qwen3-Coder.
//!
//! **Garbled heads** ([`garbled_head`]): Qwen3.x builds sometimes write the tool name where
//! `<function=NAME>` belongs: `<name>NAME` (with a stray `</parameter>` after it) or
//! `<parameter=NAME>`, then the real parameters and `</function>` (signalnine/q27#24, #38,
//! antirez/ds4#1050). Such a block, at the start of a line and closed by `</function>`, is always
//! removed from `content`; it is a call only when its name is one of `options.tools` (the one
//! piece of evidence that the name is a tool's and not a parameter's), otherwise its raw text
//! goes to `problems` (`unreadable-block`), never a guessed call.
//!
//! **Lost `<`** ([`lost_head_before`]): a head written `function=NAME">` (or `=NAME">`) with
//! its `<` lost and a stray quote, alone on its line, the next line opening `<parameter=`
//! (xalgorix#248). The block runs from that line to `</function>`, is always removed, and is a
//! call only when `NAME` is an offered tool, as for the garbled heads.
//!
//! [`typing`]: super::typing

use super::byte_positions::Positions;
use super::scan::{find_from, head_window, Finder, TOOL_CALL, TOOL_CALL_END};
use super::tokens::{Next, Tokens, Words};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "qwen3_coder";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PARAM: &str = "<parameter=";
const PARAM_END: &str = "</parameter>";
/// The garbled heads' first tag: `<name>NAME`, or `<parameter=NAME>` ([`PARAM`]).
pub const NAME_TAG: &str = "<name>";

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    plain_block(text, cx).unwrap_or_else(|| parse_blocks(text, cx))
}

/// [`parse`] by searching for each kind of block: any text.
fn parse_blocks(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_wrapped(text, TOOL_CALL, TOOL_CALL_END, NAME, cx);
    if out.blocks.is_empty() {
        // The wrapper-less fallback: each `<function=…>…</function>` is its own block.
        let mut fn_ends = Finder::new(FUNCTION_END);
        let mut at = 0;
        while let Some(start) = find_from(text, FUNCTION, at) {
            if !cx.unwrapped && strong_head(&text[start..], true) != Some(true) {
                at = start + FUNCTION.len();
                continue;
            }
            let (body_end, end) = match fn_ends.find(text, start) {
                Some(c) => (c + FUNCTION_END.len(), c + FUNCTION_END.len()),
                None => {
                    out.problems
                        .push(format!("{NAME}: </function> missing (truncated reply)"));
                    (text.len(), text.len())
                }
            };
            let cut = (body_end == text.len())
                .then(|| cut_closer(&text[start..], FUNCTION_END))
                .flatten()
                .map(|k| start + k);
            push_wrapped(text, (start, start, body_end, end), cut, NAME, cx, &mut out);
            at = end;
        }
    }
    if out.blocks.is_empty() {
        lost_head_blocks(text, cx, &mut out);
    }
    if out.blocks.is_empty() {
        garbled_blocks(text, cx, &mut out);
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(NAME);
    }
    out
}

/// Each garbled block of `text` ([`garbled_head`] at the start of a line, up to `</function>`
/// or the end of the reply).
fn garbled_blocks(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut fn_ends = Finder::new(FUNCTION_END);
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &text.as_bytes()[at..]).map(|k| at + k) {
        at = lt + 1;
        let rest = &text[lt..];
        if !(rest.starts_with(NAME_TAG) || rest.starts_with(PARAM)) || !line_start(text, lt) {
            continue;
        }
        if garbled_head(rest, true) != Some(true) && !garbled_cut(rest, cx.tools) {
            continue;
        }
        let end = function_end(text, lt, &mut fn_ends, &mut out.problems);
        out.blocks
            .push(block(text, lt, lt, end, end, cx, (NAME, &mut out.problems)));
        at = end;
    }
}

/// Where a block of `text` read from `from` ends: after the first `</function>`, or, without
/// one, at the end of the reply (cut off there, reported).
fn function_end(text: &str, from: usize, ends: &mut Finder, problems: &mut Vec<String>) -> usize {
    match ends.find(text, from) {
        Some(c) => c + FUNCTION_END.len(),
        None => {
            problems.push(format!("{NAME}: </function> missing (truncated reply)"));
            text.len()
        }
    }
}

/// Each block of `text` whose head lost its `<` ([`lost_head_before`] a `<parameter=`), up to
/// `</function>` or the end of the reply.
fn lost_head_blocks(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut fn_ends = Finder::new(FUNCTION_END);
    let mut at = 0;
    while let Some(p) = find_from(text, PARAM, at) {
        at = p + PARAM.len();
        let Some(h) = lost_head_before(&text[..p]).filter(|&h| line_start(text, h)) else {
            continue;
        };
        let end = function_end(text, p, &mut fn_ends, &mut out.problems);
        let name = lost_name(&text[h..p]);
        let calls = garbled_call(name, &text[p..end], cx).into_iter().collect();
        out.blocks
            .push(Block::of_calls(h, end, calls, &mut out.problems, || {
                format!(
                    "{NAME}: call head with its < lost (function={name}) naming no offered \
                     tool; raw text kept in content"
                )
            }));
        at = end;
    }
}

/// The longest head line [`lost_head_before`] looks back over (a name is at most 256 bytes).
const LOST_HEAD_REACH: usize = 320;

/// Where the head begins when `before` (the text up to a `<parameter=`) ends with a line that is
/// only `function=NAME>` or `=NAME>` (a stray `"` allowed before the `>`: Qwen3-Coder's head
/// with its `<` lost, xalgorix#248), then a line break and spaces. Reads back at most
/// [`LOST_HEAD_REACH`] bytes; the caller checks the head starts its line.
pub fn lost_head_before(before: &str) -> Option<usize> {
    let b = before.as_bytes();
    let lo = b.len().saturating_sub(LOST_HEAD_REACH);
    let mut e = b.len();
    while e > lo && matches!(b[e - 1], b' ' | b'\t') {
        e -= 1;
    }
    if e == lo || b[e - 1] != b'\n' {
        return None;
    }
    e -= 1;
    if e > lo && b[e - 1] == b'\r' {
        e -= 1;
    }
    let s = memchr::memrchr(b'\n', &b[lo..e]).map_or(lo, |i| lo + i + 1);
    if s == lo && lo > 0 {
        return None;
    }
    let line = &before[s..e];
    let t = line.trim_start_matches(' ');
    let lead = line.len() - t.len();
    (lead <= 3 && is_lost_head(t)).then_some(s + lead)
}

/// Whether `line` (no leading spaces) is a whole lost-`<` head: `function=NAME"?>` or `=NAME"?>`.
fn is_lost_head(line: &str) -> bool {
    let l = line.trim_end_matches([' ', '\t']);
    let l = l.strip_prefix("function").unwrap_or(l);
    let Some(l) = l.strip_prefix('=').and_then(|l| l.strip_suffix('>')) else {
        return false;
    };
    let name = l.strip_suffix('"').unwrap_or(l);
    super::scan::is_name(name) && !name.contains(['=', '"', '<', '>'])
}

/// The name of a lost-`<` head (`head`: from its line's start to the `<parameter=`).
fn lost_name(head: &str) -> &str {
    let l = head.trim();
    let l = l.strip_prefix("function").unwrap_or(l);
    let l = l.strip_prefix('=').unwrap_or(l);
    let l = l.strip_suffix('>').unwrap_or(l);
    l.strip_suffix('"').unwrap_or(l)
}

/// Where, in `buf` (visible text held by a stream), the last line begins when it may still
/// become a lost-`<` head or is one with only spaces after it: a stream holds it until the
/// `<parameter=` that makes it a call's head, or anything else, comes. Reads back at most
/// [`LOST_HEAD_REACH`] bytes. `None`: nothing to hold.
pub fn lost_head_partial(buf: &str) -> Option<usize> {
    let b = buf.as_bytes();
    let lo = b.len().saturating_sub(LOST_HEAD_REACH);
    let mut s = memchr::memrchr(b'\n', &b[lo..]).map_or(lo, |i| lo + i + 1);
    if s == lo && lo > 0 {
        return None;
    }
    if buf[s..].trim_matches([' ', '\t', '\r']).is_empty() && s > 0 {
        // A head line, then the break: held while only spaces follow.
        return lost_head_before(buf);
    }
    let t = buf[s..].trim_start_matches(' ');
    if buf.len() - s - t.len() > 3 {
        return None;
    }
    s += buf.len() - s - t.len();
    let may = if "function=".len() > t.len() && "function=".starts_with(t) {
        true
    } else {
        let r = t.strip_prefix("function").unwrap_or(t);
        match r.strip_prefix('=') {
            Some(r) => {
                let r = r.trim_end_matches([' ', '\t', '\r']);
                let r = r.strip_suffix('>').unwrap_or(r);
                let r = r.strip_suffix('"').unwrap_or(r);
                r.is_empty() || (super::scan::is_name(r) && !r.contains(['=', '"', '<', '>']))
            }
            None => false,
        }
    };
    may.then_some(s)
}

/// Where a lost-`<` head that the end of the finished reply `buf` cut begins: its whole head line
/// (`function=NAME">`, `=NAME>`), a line break, spaces, then the start of its first `<parameter=`
/// (`<`, `<par`) to the end. A cut call when `NAME` is an offered tool, or when the head's stray
/// quote (`">`) and `<p` (or more of the tag) came; `None` otherwise (text). The head line alone,
/// with no `<` after it, stays text (nothing of the call's markup is written yet). Reads back at
/// most [`LOST_HEAD_REACH`] bytes before the last line, itself read within 64 bytes.
pub fn lost_head_cut(buf: &str, tools: Option<&serde_json::Value>) -> Option<usize> {
    let lo = buf.len().saturating_sub(64);
    let s = lo + memchr::memrchr(b'\n', &buf.as_bytes()[lo..])? + 1;
    let tag = buf[s..].trim_start_matches([' ', '\t']);
    if tag.is_empty() || tag.len() >= PARAM.len() || !PARAM.starts_with(tag) {
        return None;
    }
    let h = lost_head_before(&buf[..buf.len() - tag.len()])?;
    let line = buf[h..].lines().next().unwrap_or_default().trim_end();
    let offered = super::bare_json::resolve(tools, lost_name(line)).is_some();
    (offered || (line.ends_with("\">") && tag.starts_with("<p"))).then_some(h)
}

/// Where a lost-`<` head line that ends the finished reply `buf` alone begins (`function=NAME">`,
/// `=NAME>`; only spaces and line breaks after it, nothing of its first `<parameter=`): the
/// head of a call the end cut when `NAME` is an offered tool; `None` otherwise (without tools,
/// or naming another tool, it stays: `function=x>` may show the syntax). Reads back at most
/// [`LOST_HEAD_REACH`] bytes.
///
/// ```
/// use serde_json::json;
/// use transcript_hygiene::response::qwen3_coder::lost_head_alone;
/// let tools = json!([{"type": "function", "function": {"name": "bash"}}]);
/// assert_eq!(lost_head_alone("好的。\nfunction=bash\">\n", Some(&tools)), Some(10));
/// assert_eq!(lost_head_alone("好的。\nfunction=bash\">", None), None);
/// assert_eq!(lost_head_alone("function=bash> is the syntax", Some(&tools)), None);
/// ```
pub fn lost_head_alone(buf: &str, tools: Option<&serde_json::Value>) -> Option<usize> {
    let t = buf.trim_end_matches([' ', '\t', '\r', '\n']);
    let lo = t.len().saturating_sub(LOST_HEAD_REACH);
    let s = memchr::memrchr(b'\n', &t.as_bytes()[lo..]).map_or(lo, |i| lo + i + 1);
    if s == lo && lo > 0 {
        return None;
    }
    let line = t[s..].trim_start_matches(' ');
    let lead = t.len() - s - line.len();
    let offered = || super::bare_json::resolve(tools, lost_name(line)).is_some();
    (lead <= 3 && is_lost_head(line) && offered()).then_some(s + lead)
}

/// Whether only up to three spaces stand between the line's start and `at`.
fn line_start(text: &str, at: usize) -> bool {
    let b = text.as_bytes();
    let mut k = at;
    while k > 0 && b[k - 1] == b' ' && at - k < 3 {
        k -= 1;
    }
    k == 0 || b[k - 1] == b'\n'
}

/// What [`read_garbled`] found.
enum Head<'a> {
    /// The name, and where (in the text given) the parameters begin.
    Yes(&'a str, usize),
    No,
    /// The text ran out before it could tell.
    More,
}

/// Whether `rest` (which starts with `<name>` or `<parameter=`) opens a garbled call: a plain
/// name, then (after whitespace and at most one stray `</parameter>`) `<parameter=` or
/// `</function>`. `None` when more text is needed to tell (`full`: no more will come within
/// reach; only the first [`HEAD_WINDOW`](super::scan::HEAD_WINDOW) bytes are read either way).
pub fn garbled_head(rest: &str, full: bool) -> Option<bool> {
    let w = head_window(rest);
    match read_garbled(w) {
        Head::Yes(..) => Some(true),
        Head::More if !full => None,
        _ => Some(false),
    }
}

/// Whether `rest` (which starts with `<name>` or `<parameter=`, at a line's start) is a garbled
/// head that the end of the reply cut before its first `<parameter=` was whole
/// (`<name>bash`⏎`</parameter>`⏎`<param`, `<parameter=bash>`⏎`<para`): its name is an offered
/// tool, or the stray `</parameter>` (or its start) followed the name; or the name itself is cut
/// (`<name>bas`, `<parameter=bas` at the end) and is the start of an offered tool's name. Such a
/// head is removed and reported (`truncated`); it gives no call (its arguments are unknown).
pub fn garbled_cut(rest: &str, tools: Option<&serde_json::Value>) -> bool {
    let w = head_window(rest);
    if w.len() < rest.len() || !matches!(read_garbled(w), Head::More) {
        return false;
    }
    let (name, after) = if let Some(a) = w.strip_prefix(NAME_TAG) {
        let t = a.trim_start();
        let e = t.find(['\n', '<']).unwrap_or(t.len());
        (t[..e].trim_end(), Some(&t[e..]).filter(|r| !r.is_empty()))
    } else if let Some(a) = w.strip_prefix(PARAM) {
        (a.find('>')).map_or((a, None), |gt| (&a[..gt], Some(&a[gt + 1..])))
    } else {
        return false;
    };
    let Some(after) = after else {
        // The name itself cut by the end (`<name>bas`, `<parameter=bas`): the start of an
        // offered tool's name (or all of it) says so; nothing else can.
        return !name.is_empty() && super::bare_json::names(tools).any(|n| n.starts_with(name));
    };
    super::bare_json::resolve(tools, name).is_some() || after.trim_start().starts_with("</")
}

/// `raw` (a block's text) past its garbled head, when it opens with one (after `<tool_call>`):
/// the head's `<parameter=NAME>` is the name, not an argument ([`super::garbage`] asks).
pub fn past_garbled_head(raw: &str) -> &str {
    let t = raw.trim_start();
    let t = t.strip_prefix(TOOL_CALL).map_or(t, str::trim_start);
    match read_garbled(head_window(t)) {
        Head::Yes(_, p) => &t[p..],
        _ => raw,
    }
}

fn read_garbled(w: &str) -> Head<'_> {
    let (name, after) = if let Some(a) = w.strip_prefix(NAME_TAG) {
        // `<name>NAME` (the name may be on the next line), ended by a line break or a tag.
        let t = a.trim_start();
        let Some(e) = t.find(['\n', '<']) else {
            return Head::More;
        };
        (t[..e].trim_end(), &t[e..])
    } else if let Some(a) = w.strip_prefix(PARAM) {
        let Some(gt) = a.find(['>', '\n']) else {
            return Head::More;
        };
        if a.as_bytes()[gt] != b'>' {
            return Head::No;
        }
        (&a[..gt], &a[gt + 1..])
    } else {
        return Head::No;
    };
    if name.is_empty() || !super::scan::is_name(name) || name.contains('=') {
        return Head::No;
    }
    let mut t = after.trim_start();
    if let Some(r) = t.strip_prefix(PARAM_END) {
        t = r.trim_start();
    }
    if t.starts_with(PARAM) || t.starts_with(FUNCTION_END) {
        return Head::Yes(name, w.len() - t.len());
    }
    let partial = |m: &str| t.len() < m.len() && m.starts_with(t);
    if partial(PARAM) || partial(FUNCTION_END) || partial(PARAM_END) {
        Head::More
    } else {
        Head::No
    }
}

/// Whether `rest` (which starts with `<function=`) opens an unwrapped call that no prose writes:
/// a name with no spaces or quotes (a stray `"` before the `>` allowed: [`function_name`]), `>`,
/// then (after whitespace) `<parameter=` or `</function>`.
/// `None` when more text is needed to tell (`full`: no more will come within reach).
pub fn strong_head(rest: &str, full: bool) -> Option<bool> {
    let more = if full { Some(false) } else { None };
    let Some(after) = rest.strip_prefix(FUNCTION) else {
        return Some(false);
    };
    let window = &after.as_bytes()[..after.len().min(256)];
    let Some(gt) = memchr::memchr(b'>', window) else {
        return if after.len() > 256 { Some(false) } else { more };
    };
    let name = &after[..gt];
    if !super::scan::is_name(name.strip_suffix('"').unwrap_or(name)) {
        return Some(false);
    }
    let t = after[gt + 1..].trim_start();
    if t.starts_with(PARAM) || t.starts_with(FUNCTION_END) {
        Some(true)
    } else if t.len() < PARAM.len().max(FUNCTION_END.len())
        && (PARAM.starts_with(t) || FUNCTION_END.starts_with(t))
    {
        more
    } else {
        Some(false)
    }
}

/// `OPEN <function=…>… CLOSE` blocks (Qwen3-Coder's `<tool_call>`, Seed-OSS's
/// `<seed:tool_call>`); a block whose body is not `<function=` is skipped, a missing `CLOSE` runs
/// to the end (reported). `name` is the format reported.
pub fn parse_wrapped(text: &str, open: &str, close: &str, name: &'static str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut closes = Finder::new(close);
    let mut at = 0;
    while let Some(start) = find_from(text, open, at) {
        let body_at = start + open.len();
        let body = super::typing::trim_start(&text[body_at..]);
        if !body.starts_with(FUNCTION) && garbled_head(body, true) != Some(true) {
            at = body_at;
            continue;
        }
        let (body_end, end, cut) = match closes.find(text, body_at) {
            Some(c) => (c, c + close.len(), None),
            None => {
                out.problems
                    .push(format!("{name}: {close} missing (truncated reply)"));
                let cut = cut_closer(&text[body_at..], close).map(|k| body_at + k);
                (text.len(), text.len(), cut)
            }
        };
        push_wrapped(
            text,
            (start, body_at, body_end, end),
            cut,
            name,
            cx,
            &mut out,
        );
        at = end;
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(name);
    }
    out
}

/// Where, in `body` (a call block's text from its `<function=`, which the end of the reply cut
/// before `close`), a tag cut by that end starts when the calls before it are whole: the last
/// parameter closed (`…</parameter>`), or no parameter after `<function=NAME>`, then `</` up to
/// all but the last byte of `</function>` or `close`; or the last function closed, then any tag
/// cut before its `>` (`close`, or a next function, which could not be read). A value ends at its
/// first `</parameter>`, so nothing after one can be part of it; after a parameter, a lone `<`
/// may open another parameter and is no such tag.
fn cut_closer(body: &str, close: &str) -> Option<usize> {
    let (lt, before) = super::scan::cut_tag(body)?;
    let piece = &body[lt..];
    if before.ends_with(FUNCTION_END) {
        return Some(lt);
    }
    let starts = |tag: &str| tag.len() > piece.len() && tag.starts_with(piece);
    let whole = piece.starts_with("</")
        && (before.ends_with(PARAM_END) || ends_in_function_head(before))
        && (starts(FUNCTION_END) || starts(close));
    whole.then_some(lt)
}

/// Whether `s` ends with a `<function=NAME>` head (no parameter after it).
fn ends_in_function_head(s: &str) -> bool {
    s.ends_with('>')
        && s.rfind(FUNCTION).is_some_and(|f| {
            let name = &s[f + FUNCTION.len()..s.len() - 1];
            super::scan::is_name(name)
        })
}

/// The block `start..end` (its body `body_at..body_end`) pushed to `out`; with `cut` (a closing
/// tag cut by the end of the reply, [`cut_closer`]) and a call before it, the call block ends
/// there and the cut tag is markup of its own, so the call is not taken for one cut inside its
/// arguments ([`super::garbage`]).
fn push_wrapped(
    text: &str,
    (start, body_at, body_end, end): (usize, usize, usize, usize),
    cut: Option<usize>,
    name: &str,
    cx: &Ctx,
    out: &mut Parsed,
) {
    if let Some(k) = cut {
        let mut problems = Vec::new();
        let b = block(text, start, body_at, k, k, cx, (name, &mut problems));
        if !b.calls.is_empty() {
            out.problems.append(&mut problems);
            out.blocks.push(b);
            out.blocks.push(Block {
                start: k,
                end,
                calls: Vec::new(),
                keep_raw: false,
            });
            return;
        }
    }
    out.blocks.push(block(
        text,
        start,
        body_at,
        body_end,
        end,
        cx,
        (name, &mut out.problems),
    ));
}

fn block(
    text: &str,
    start: usize,
    body_at: usize,
    body_end: usize,
    end: usize,
    cx: &Ctx,
    (name, problems): (&str, &mut Vec<String>),
) -> Block {
    let body = &text[body_at..body_end];
    let t = super::typing::trim_start(body);
    if !t.starts_with(FUNCTION) {
        if let Head::Yes(n, p) = read_garbled(head_window(t)) {
            let calls = garbled_call(n, &t[p..], cx).into_iter().collect();
            return Block::of_calls(start, end, calls, problems, || {
                format!(
                    "{name}: garbled call head (the name {n:?} where <function=NAME> belongs) \
                     naming no offered tool; raw text kept in content"
                )
            });
        }
    }
    let calls = functions(body, cx);
    Block::of_calls(start, end, calls, problems, || {
        format!("{name}: call block holds no <function=NAME>; raw text kept in content")
    })
}

/// Kinds of [`block_tokens`]: `<function=`, `</function>`, `<parameter=`, `</parameter>`.
const K_FUNCTION: u32 = 1;
const K_FUNCTION_END: u32 = 1 << 1;
const K_PARAM: u32 = 1 << 2;
const K_PARAM_END: u32 = 1 << 3;

/// The four tags, each compared as two words ([`Words`]).
const TAGS: Words<4> = Words::new([FUNCTION, FUNCTION_END, PARAM, PARAM_END]);

/// The tags of a call block's body, found in one pass over its `<` ([`Tokens`]), where each
/// search for a function, its end, a parameter or a value's end was a search of the text.
fn block_tokens(body: &str) -> Tokens {
    Tokens::words(body, &TAGS)
}

/// Every `<function=NAME>` in `body`, with its parameters.
fn functions(body: &str, cx: &Ctx) -> Vec<RawCall> {
    match plain_function(body, cx) {
        Some(call) => vec![call],
        None => tagged_functions(body, cx),
    }
}

/// [`functions`] by the list of `body`'s tags: any body.
fn tagged_functions(body: &str, cx: &Ctx) -> Vec<RawCall> {
    // Most blocks hold one function.
    let mut calls = Vec::with_capacity(1);
    let tokens = block_tokens(body);
    let mut fns = Next::new(K_FUNCTION);
    // A function ends at its `</function>` or at the next `<function=`.
    let mut fn_ends = Next::new(K_FUNCTION_END | K_FUNCTION);
    let mut at = 0;
    while let Some((f, _)) = fns.find(&tokens, at) {
        let name_at = f + FUNCTION.len();
        let Some(gt) = byte_from(body, b'>', name_at, body.len()) else {
            break;
        };
        let fn_end = fn_ends.find(&tokens, gt).map_or(body.len(), |(p, _)| p);
        at = fn_end.max(gt + 1);
        let Some(name) = function_name(&body[name_at..gt], cx) else {
            continue;
        };
        if name.is_empty() || name.contains(['\n', '<']) {
            continue;
        }
        let arguments = typed_arguments(
            parameters(body, &tokens, (gt + 1, fn_end)),
            cx.tools,
            name,
            Style::Schema { minimax: false },
        );
        calls.push(RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        });
    }
    calls
}

/// How many parameters [`plain_function`] reads (on the stack); a block with more is read by
/// the general reader.
const PLAIN_PARAMS: usize = 8;

/// The call of `body` when it is the plain block models write (most of them): one
/// `<function=NAME>`, then `<parameter=KEY>VALUE</parameter>` pairs, then `</function>`, and no
/// other `<` anywhere in it (values without markup). Read in one pass over its `<`, to what
/// [`functions`] reads of it (every search of its tags finds the next `<`); `None` for any other
/// body, which [`functions`] reads. Building the tag list and searching it was ~1K instructions a
/// call (callgrind, a reply dense with calls).
fn plain_function(body: &str, cx: &Ctx) -> Option<RawCall> {
    let mut lts = Positions::new(b'<', body.as_bytes());
    let f = lts.next()?;
    let call = plain_call(body, f, &mut lts, cx)?;
    // `</function>`: nothing after it may hold markup.
    if lts.next().is_some() {
        return None;
    }
    Some(call)
}

/// The usual block as a stream hands it over, read in one pass over its `<` with no search
/// for its opener, its closer or a next block ([`parse_wrapped`]'s three, ~500 instructions a
/// call): `text` opens with `<tool_call>`, then ASCII whitespace and a plain function
/// ([`plain_function`]), then `</tool_call>`, and holds no other `<` (a last `\0` or text after
/// it aside). What [`parse_wrapped`] reads of it: one block, that call. `None` for any other
/// text, which [`parse_wrapped`] reads.
fn plain_block(text: &str, cx: &Ctx) -> Option<Parsed> {
    let b = text.as_bytes();
    if !b.starts_with(TOOL_CALL.as_bytes()) {
        return None;
    }
    let mut lts = Positions::new(b'<', b);
    // The opener's `<`, then the function's, after whitespace only (as `trim_start` reads it).
    lts.next()?;
    let f = lts.next()?;
    if !b.get(TOOL_CALL.len()..f)?.iter().all(|&c| ascii_space(c)) {
        return None;
    }
    let call = plain_call(text, f, &mut lts, cx)?;
    let close = lts.next()?;
    if !b[close..].starts_with(TOOL_CALL_END.as_bytes()) || lts.next().is_some() {
        return None;
    }
    Some(Parsed {
        format: Some(NAME),
        ..Parsed::whole(close + TOOL_CALL_END.len(), vec![call])
    })
}

/// `char::is_whitespace` of an ASCII byte, as [`super::typing::trim_start`] passes it over.
fn ascii_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// Whether `s` (a name or a key: a few bytes) holds a line break: a loop, not the searcher.
fn has_newline(s: &str) -> bool {
    s.bytes().any(|c| c == b'\n')
}

/// The call of the plain function whose `<function=` is at `f` in `s`, `lts` giving the `<`
/// after it ([`plain_function`]): read up to its `</function>`, the last `<` taken from `lts`.
fn plain_call(s: &str, f: usize, lts: &mut Positions, cx: &Ctx) -> Option<RawCall> {
    let b = s.as_bytes();
    if !b[f..].starts_with(FUNCTION.as_bytes()) {
        return None;
    }
    let name_at = f + FUNCTION.len();
    let mut tag = lts.next()?;
    let gt = byte_from(s, b'>', name_at, tag)?;
    let name = function_name(&s[name_at..gt], cx)?;
    if name.is_empty() || has_newline(name) {
        return None;
    }
    let mut pairs = [("", ""); PLAIN_PARAMS];
    let mut n = 0;
    while !b[tag..].starts_with(FUNCTION_END.as_bytes()) {
        if !b[tag..].starts_with(PARAM.as_bytes()) || n == PLAIN_PARAMS {
            return None;
        }
        let key_at = tag + PARAM.len();
        let close = lts.next()?;
        if !b[close..].starts_with(PARAM_END.as_bytes()) {
            return None;
        }
        // The key's `>` before the value's `</parameter>` (else the general reader takes the
        // closer's `>`).
        let key_gt = byte_from(s, b'>', key_at, close)?;
        let value = &s[key_gt + 1..close];
        let value = value.strip_prefix('\n').unwrap_or(value);
        let value = value.strip_suffix('\n').unwrap_or(value);
        let key = unquoted(&s[key_at..key_gt]);
        // As [`parameters`]: a pair with no key, or a key over lines, is passed over.
        if !key.is_empty() && !has_newline(key) {
            pairs[n] = (key, value);
            n += 1;
        }
        tag = lts.next()?;
    }
    let arguments = typed_arguments(
        pairs[..n].iter().copied(),
        cx.tools,
        name,
        Style::Schema { minimax: false },
    );
    Some(RawCall {
        name: name.to_owned(),
        arguments,
        id: None,
    })
}

/// A function or parameter name as written after `=`, its spaces and a matching pair of quotes
/// around it trimmed: Qwen3-Coder fleets write `<parameter="command">` and `<function="bash">`
/// (openvinotoolkit/model_server#4487, 54 of 171 schema-invalid calls), which read as the key
/// `"command"` with its quotes, a call no schema accepts; vLLM and OVMS trim them too. A lone
/// quote stays (the name is then no tool's, and [`super::garbage`] drops the call).
fn unquoted(s: &str) -> &str {
    let s = super::typing::trim(s);
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return super::typing::trim(inner);
        }
    }
    s
}

/// A function's name as written after `<function=` ([`unquoted`]). A lone `"` before the `>`
/// (`<function=bash">`: the head xalgorix#248 logged with its `<` lost, [`lost_head_before`])
/// is a garbled head: its name is read only when it is an offered tool, as [`garbled_call`]
/// reads one; `None` otherwise (no call: the block is removed and reported).
fn function_name<'a>(raw: &'a str, cx: &Ctx<'a>) -> Option<&'a str> {
    let name = unquoted(raw);
    match name.strip_suffix('"') {
        Some(n) if !n.contains('"') => super::bare_json::resolve(cx.tools, n.trim()),
        _ => Some(name),
    }
}

/// The first `byte` in `s[from..to]`.
fn byte_from(s: &str, byte: u8, from: usize, to: usize) -> Option<usize> {
    let hay = s.as_bytes().get(from..to)?;
    if hay.len() <= 32 {
        // A name or a key (most searches): a loop, not a call to the searcher.
        return hay.iter().position(|&b| b == byte).map(|i| from + i);
    }
    memchr::memchr(byte, hay).map(|i| from + i)
}

/// The call of a garbled head (or one that lost its `<`) naming `name`, its parameters in `body`:
/// only when `name` is an offered tool (spelled as [`super::bare_json::resolve`] allows).
fn garbled_call(name: &str, body: &str, cx: &Ctx) -> Option<RawCall> {
    let name = super::bare_json::resolve(cx.tools, name)?;
    let end = find_from(body, FUNCTION_END, 0).unwrap_or(body.len());
    let tokens = block_tokens(&body[..end]);
    let arguments = typed_arguments(
        parameters(body, &tokens, (0, end)),
        cx.tools,
        name,
        Style::Schema { minimax: false },
    );
    Some(RawCall {
        name: name.to_owned(),
        arguments,
        id: None,
    })
}

/// `(key, value)` of each `<parameter=KEY>VALUE` in the function body `body[lo..hi]` (`hi` is
/// the end of `body` or the start of a tag, so a tag that starts inside ends inside), `tokens`
/// being `body`'s tags ([`block_tokens`]); read as they are typed, with no list in between.
fn parameters<'a>(
    body: &'a str,
    tokens: &'a Tokens,
    (lo, hi): (usize, usize),
) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    let mut params = Next::new(K_PARAM);
    // A value ends at its `</parameter>` or at the next `<parameter=`.
    let mut ends = Next::new(K_PARAM_END | K_PARAM);
    let mut at = Some(lo);
    std::iter::from_fn(move || loop {
        let from = at?;
        // Past a `<parameter=` with no `>` nothing more is read.
        at = None;
        let p = params.find_before(tokens, from, hi)?;
        let key_at = p + PARAM.len();
        let gt = byte_from(body, b'>', key_at, hi)?;
        let value_at = gt + 1;
        let value_end = ends.find_before(tokens, value_at, hi).unwrap_or(hi);
        at = Some(value_end);
        let value = &body[value_at..value_end];
        let value = value.strip_prefix('\n').unwrap_or(value);
        let value = value.strip_suffix('\n').unwrap_or(value);
        let key = unquoted(&body[key_at..gt]);
        if !key.is_empty() && !key.contains('\n') {
            return Some((key, value));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str, cx: &Ctx) -> Vec<(String, String)> {
        parse(text, cx).call_pairs()
    }

    #[test]
    fn typed_by_schema_as_in_vllm_type_conversion_test() {
        let tools = json!([{"type": "function", "function": {"name": "t", "parameters": {"properties": {
            "i": {"type": "integer"}, "f": {"type": "float"}, "b": {"type": "boolean"},
            "o": {"type": "object"}, "s": {"type": "string"}}}}}]);
        let t = "<tool_call>\n<function=t>\n<parameter=i>\n42\n</parameter>\n<parameter=f>\n3.14\n</parameter>\n\
                 <parameter=b>\ntrue\n</parameter>\n<parameter=o>\n{\"key\": \"value\"}\n</parameter>\n\
                 <parameter=s>\nhello world\n</parameter>\n</function>\n</tool_call>";
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        assert_eq!(
            one(t, &cx),
            [(
                "t".into(),
                r#"{"i":42,"f":3.14,"b":true,"o":{"key":"value"},"s":"hello world"}"#.into()
            )]
        );
    }

    #[test]
    fn missing_parameter_and_function_ends_are_tolerated() {
        let t = "<tool_call><function=f><parameter=a>1<parameter=b>x</tool_call>";
        assert_eq!(
            one(t, &Ctx::default()),
            [("f".into(), r#"{"a":1,"b":"x"}"#.into())]
        );
    }

    #[test]
    fn function_without_name_gives_no_call() {
        let p = parse(
            "<tool_call><function>x</function></tool_call>",
            &Ctx::default(),
        );
        assert!(p.blocks.is_empty());
        let p = parse(
            "<tool_call><function=>x</function></tool_call>",
            &Ctx::default(),
        );
        assert!(p.blocks[0].keep_raw);
    }

    #[test]
    fn unwrapped_form_when_unambiguous_or_allowed() {
        let t = "Sure.\n<function=f>\n<parameter=p>\nv\n</parameter>\n</function>";
        assert_eq!(
            one(t, &Ctx::default()),
            [("f".into(), r#"{"p":"v"}"#.into())]
        );
        let loose = "Sure.\n<function=f>\nv\n</function>";
        assert!(parse(loose, &Ctx::default()).blocks.is_empty());
        let cx = Ctx {
            tools: None,
            unwrapped: true,
        };
        assert_eq!(one(loose, &cx), [("f".into(), "{}".into())]);
        assert_eq!(strong_head("<function=a b>", true), Some(false));
        assert_eq!(strong_head("<function=f>\n<param", false), None);
        assert_eq!(strong_head("<function=f>\n<param", true), Some(false));
    }

    /// The one-pass reading of plain blocks reads what the tag list reads, on plain blocks and
    /// on every near miss (markup in a value, a missing `>` or closer, keys to pass over,
    /// spaces and lines around names and keys, more pairs than it holds, text after the end).
    #[test]
    fn plain_blocks_read_as_the_tag_list_reads_them() {
        let tools = json!([{"function": {"name": "读", "parameters": {"properties": {"n": {"type": "integer"}}}}}]);
        let pair = |k: &str, v: &str| format!("<parameter={k}>{v}</parameter>\n");
        let many: String = (0..9).map(|i| pair(&format!("k{i}"), "1")).collect();
        let eight: String = (0..8).map(|i| pair(&format!("k{i}"), "\n2\n")).collect();
        let bodies = [
            "\n<function=读>\n<parameter=path>\nsrc/文件_3.rs\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n".to_owned(),
            "<function= 读 >\n<parameter= n >\n\n42\n\n</parameter></function>".to_owned(),
            "<function=f>\n</function>".to_owned(),
            "<function=f><parameter=>x</parameter><parameter=a\nb>y</parameter><parameter=c>z</parameter></function>".to_owned(),
            "<function=f><parameter=a>x<b>y</parameter></function>".to_owned(),
            "<function=f><parameter=a>x</parameter><parameter=b>y</function>".to_owned(),
            "<function=f><parameter=a</parameter></function>".to_owned(),
            "<function=f\n><parameter=a>1</parameter></function>".to_owned(),
            "<function=><parameter=a>1</parameter></function>".to_owned(),
            "<function=f<parameter=a>1</parameter></function>".to_owned(),
            "<function=f><parameter=a>1</parameter></function>\n<function=g></function>".to_owned(),
            "<function=f><parameter=a>1</parameter></function> tail <br>".to_owned(),
            "<function=f><parameter=a>1</parameter>".to_owned(),
            "<function=f><parameter=a>1</parameter><parameter=a>\u{3000}true\u{a0}</parameter></function>".to_owned(),
            "<function=f><parameter=a>\u{b}-7\u{c}</parameter></function>".to_owned(),
            format!("<function=f>{many}</function>"),
            format!("<function=f>{eight}</function>"),
        ];
        for body in &bodies {
            for tools in [None, Some(&tools)] {
                let cx = Ctx {
                    tools,
                    unwrapped: false,
                };
                assert_eq!(functions(body, &cx), tagged_functions(body, &cx), "{body}");
            }
        }
        // The plain ones are read in one pass.
        for body in [&bodies[0], &bodies[1], &bodies[2], &bodies[3], &bodies[16]] {
            assert!(plain_function(body, &Ctx::default()).is_some(), "{body}");
        }
    }

    /// The one-pass reading of a whole block reads what the searches read, on the plain block a
    /// stream hands over and on every near miss (text, markup or another block around it, no
    /// closer, a non-plain function, Unicode space after the opener).
    #[test]
    fn plain_blocks_read_as_the_searches_read_them() {
        let tools = json!([{"function": {"name": "读", "parameters": {"properties": {"n": {"type": "integer"}}}}}]);
        let f = "<function=读>\n<parameter=path>\nsrc/文件_3.rs\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>";
        let plain = [
            format!("<tool_call>\n{f}\n</tool_call>"),
            format!("<tool_call>\n{f}\n</tool_call>\n\0"),
            format!("<tool_call>{f}</tool_call>"),
            format!("<tool_call> \t\r\n\u{b}\u{c}{f} 说明 </tool_call> tail"),
            "<tool_call>\n<function=f>\n</function>\n</tool_call>".to_owned(),
        ];
        let others = [
            format!("<tool_call>\u{3000}{f}</tool_call>"),
            format!("x<tool_call>\n{f}\n</tool_call>"),
            format!("<tool_call>\n{f}\n</tool_call><tool_call>\n{f}\n</tool_call>"),
            format!("<tool_call>\n{f}\n</tool_call> then <b>"),
            format!("<tool_call>\n{f}\n"),
            format!("<tool_call>\n{f}\n</tool_call"),
            format!("<tool_call>\n{f}\n</tool_cal>"),
            format!("<tool_call>\nsay {f}\n</tool_call>"),
            "<tool_call>\n<function=f><parameter=a>x<b>y</parameter></function></tool_call>".to_owned(),
            "<tool_call>\n<function=读\">\n<parameter=n>\n1\n</parameter>\n</function>\n</tool_call>".to_owned(),
            "<tool_call>\n<function=f></function>\n<function=g></function>\n</tool_call>".to_owned(),
            "<tool_call>\n<name>读\n</parameter>\n<parameter=n>1</parameter></function></tool_call>".to_owned(),
            "<tool_call>{\"name\": \"f\"}</tool_call>".to_owned(),
            "<tool_call>\n<function=f><parameter=a>1</parameter></tool_call>".to_owned(),
            "<tool_call>\n<function=f></function><x></tool_call>".to_owned(),
        ];
        for (i, text) in plain.iter().chain(&others).enumerate() {
            for tools in [None, Some(&tools)] {
                let cx = Ctx {
                    tools,
                    unwrapped: false,
                };
                assert_eq!(parse(text, &cx), parse_blocks(text, &cx), "{text}");
                // (With the tool offered, the stray quote's name is read in one pass too.)
                if tools.is_none() || i < plain.len() {
                    assert_eq!(plain_block(text, &cx).is_some(), i < plain.len(), "{text}");
                }
            }
        }
    }

    #[test]
    fn lost_lt_heads_are_read_only_alone_on_their_line() {
        let h = |s: &str| lost_head_before(s);
        assert_eq!(h("function=t\">\n   "), Some(0));
        assert_eq!(h("说明\n  =t>\r\n"), Some("说明\n  ".len()));
        assert_eq!(h("see function=t\">\n"), None);
        assert_eq!(h("function=a b\">\n"), None);
        assert_eq!(h("function=t\">"), None);
        assert_eq!(lost_head_partial("ok\nfunct"), Some(3));
        assert_eq!(lost_head_partial("ok\nfunction=t\">\n  "), Some(3));
        assert_eq!(lost_head_partial("ok\nfunny"), None);
        assert_eq!(lost_head_partial(&"x".repeat(400)), None);
    }

    /// Lost-`<` heads that never close, and head lines with no parameter after them, whole and
    /// streamed: each looks back over one line at most.
    #[test]
    fn lost_lt_heads_grow_linearly() {
        use super::super::linearity::{assert_linear, stream_in_deltas};
        use super::super::{clean_response, Options};
        let tools = json!([{"type": "function", "function": {"name": "f"}}]);
        let opts = Options {
            tools: Some(tools),
            ..Options::default()
        };
        for unit in [
            "function=f\">\n<parameter=a>北京\n",
            "=f>\n北京 function=f\n",
            // Garbled heads that never read as one, each asked whether the reply's end cut it
            // ([`garbled_cut`]), and stray-quote heads with no parameter.
            "<name>f\n</parameter>\n北京\n",
            "<parameter=f>\n北京 <function=f\">\n",
        ] {
            assert_linear("lost-< heads", unit, &|t| {
                let _ = clean_response(t, &opts);
            });
            assert_linear("lost-< heads, streamed", unit, &|t| {
                stream_in_deltas(&opts, t, 64);
            });
        }
    }

    #[test]
    fn multiline_json_value() {
        let tools = json!([{"function": {"name": "d", "parameters": {"properties": {"dimensions": {"type": "object"}}}}}]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "<tool_call>\n<function=d>\n<parameter=dimensions>\n{\"width\": 10, \n \"height\": 20}\n</parameter>\n</function>\n</tool_call>";
        assert_eq!(
            one(t, &cx),
            [(
                "d".into(),
                r#"{"dimensions":{"width":10,"height":20}}"#.into()
            )]
        );
    }
}
