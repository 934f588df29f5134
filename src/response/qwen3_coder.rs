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
//! [`typing`]: super::typing

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
            out.blocks.push(block(
                text,
                start,
                start,
                body_end,
                end,
                cx,
                (NAME, &mut out.problems),
            ));
            at = end;
        }
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
        if garbled_head(rest, true) != Some(true) {
            continue;
        }
        // Without `</function>` the call runs to the end of the reply (cut off there).
        let end = match fn_ends.find(text, lt) {
            Some(c) => c + FUNCTION_END.len(),
            None => {
                out.problems
                    .push(format!("{NAME}: </function> missing (truncated reply)"));
                text.len()
            }
        };
        out.blocks
            .push(block(text, lt, lt, end, end, cx, (NAME, &mut out.problems)));
        at = end;
    }
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
/// a name with no spaces or quotes, `>`, then (after whitespace) `<parameter=` or `</function>`.
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
    if !super::scan::is_name(&after[..gt]) {
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
        let body = text[body_at..].trim_start();
        if !body.starts_with(FUNCTION) && garbled_head(body, true) != Some(true) {
            at = body_at;
            continue;
        }
        let (body_end, end) = match closes.find(text, body_at) {
            Some(c) => (c, c + close.len()),
            None => {
                out.problems
                    .push(format!("{name}: {close} missing (truncated reply)"));
                (text.len(), text.len())
            }
        };
        out.blocks.push(block(
            text,
            start,
            body_at,
            body_end,
            end,
            cx,
            (name, &mut out.problems),
        ));
        at = end;
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(name);
    }
    out
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
    let t = body.trim_start();
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
        let name = unquoted(&body[name_at..gt]);
        let fn_end = fn_ends.find(&tokens, gt).map_or(body.len(), |(p, _)| p);
        at = fn_end.max(gt + 1);
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

/// A function or parameter name as written after `=`, its spaces and a matching pair of quotes
/// around it trimmed: Qwen3-Coder fleets write `<parameter="command">` and `<function="bash">`
/// (openvinotoolkit/model_server#4487, 54 of 171 schema-invalid calls), which read as the key
/// `"command"` with its quotes, a call no schema accepts; vLLM and OVMS trim them too. A lone
/// quote stays (the name is then no tool's, and [`super::garbage`] drops the call).
fn unquoted(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.trim();
        }
    }
    s
}

/// The first `byte` in `s[from..to]`.
fn byte_from(s: &str, byte: u8, from: usize, to: usize) -> Option<usize> {
    let hay = s.as_bytes().get(from..to)?;
    memchr::memchr(byte, hay).map(|i| from + i)
}

/// The call of a garbled head naming `name`, its parameters in `body`: only when `name` is an
/// offered tool (spelled as [`super::bare_json::resolve`] allows).
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
