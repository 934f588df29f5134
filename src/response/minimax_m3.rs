//! MiniMax-M3 calls. Its chat template (`MiniMaxAI/MiniMax-M3`, `chat_template.jinja`) writes every
//! structural tag after the namespace token `]<]minimax[>[`:
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>北京]<]minimax[>[</city>]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! A parameter is an element named after its key; a nested object is elements inside it, a list is
//! `<item>` elements, a boolean is written as JSON and any other value as it is (strings are not
//! escaped). Reasoning is `<mm:think>…</mm:think>` ([`super::thinking`]).
//!
//! Read here: the namespace token before any tag is optional (servers that skip special tokens
//! drop it, and models leave it off closing tags), so `<tool_call>` followed by `<invoke name=` is
//! the same call. Inside a value, a child element counts as structure only when the namespace
//! token precedes it (when the block has any) — `<template><div>…</div></template>` in a file's
//! content stays the string it is — or, in a block without the token, when the tool's schema does
//! not say the value is a string. Leaf values are typed by the schema (MiniMax rules, see
//! [`super::typing`]), inferred without one. Nesting deeper than [`MAX_DEPTH`] is kept as text,
//! so the work stays linear in the block. A block with no readable invoke stays in `content`
//! (reported); a missing `</tool_call>`, `</invoke>` or closing parameter tag (truncated reply)
//! runs to the end and is reported. MiniMax-M2's `<parameter name="k">` inside a bare
//! `<tool_call>` (a server's rewrapping) is read as M2 writes it.
//!
//! A fragment whose `<tool_call>` head was lost (namespaced tags, then `</tool_call>`, with no
//! head before them: github/app#2128) is a block too, from its first namespace token that starts
//! a tag ([`headless`]): its invokes are read when it holds complete ones; otherwise it is removed
//! from `content` and reported. A fragment that never reaches its `</tool_call>` (the reply cut by
//! `max_tokens` inside it) is removed and reported too, never read as a call ([`cut_fragment`]):
//! it must run to the end of the reply, its last namespace token starting a tag that the cut
//! left open (or a closing tag with nothing after it), and its first token must not sit right
//! after a quote mark (`“]<]minimax[>[<a>…”` in prose is a mention). Otherwise a namespace token
//! without a `</tool_call>` after it is text.

use serde_json::{Map, Value};

use super::scan::{find_from, Finder};
use super::typing::{param_schema, type_value, Style};
use super::xml_invoke::{as_written, attr, typed_invokes, Tags};
use super::{Block, Ctx, Parsed, RawCall};

/// The namespace token before every structural tag.
pub const NS: &str = "]<]minimax[>[";
const NAME: &str = "minimax_m3";
const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const INVOKE: &str = "<invoke";
const INVOKE_END: &str = "</invoke>";
/// How deep values nest before the rest is kept as text.
pub const MAX_DEPTH: usize = 16;

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Finder::new(OPEN);
    let mut closes = Finder::new(CLOSE);
    let mut tokens = Finder::new(NS);
    let mut at = 0;
    loop {
        let next = opens.find(text, at);
        let limit = next.map_or(text.len(), |o| back_over_ns(text, o));
        if let Some((s, e)) = headless(text, at, limit, &mut tokens, &mut closes) {
            let body = &text[s..back_over_ns(text, e - CLOSE.len())];
            let calls = read_calls(body, cx, &mut out.problems);
            out.blocks.push(Block::of_calls(s, e, calls, &mut out.problems, || {
                format!("{NAME}: call fragment without its {OPEN} head holds no readable invoke; raw text kept in content")
            }));
            at = e;
            continue;
        }
        let Some(o) = next else {
            if let Some(s) = cut_start(text, at) {
                out.problems.push(format!(
                    "{NAME}: call fragment without its {OPEN} head cut off before {CLOSE} (truncated reply)"
                ));
                out.blocks.push(Block::of_calls(
                    s,
                    text.len(),
                    Vec::new(),
                    &mut out.problems,
                    || format!("{NAME}: call fragment cut off; raw text kept in content"),
                ));
            }
            break;
        };
        let start = back_over_ns(text, o);
        let body_at = o + OPEN.len();
        let next_open = opens.find(text, body_at);
        let (body_end, end) = match closes
            .find(text, body_at)
            .filter(|&c| next_open.is_none_or(|n| c < n))
        {
            Some(c) => (c, c + CLOSE.len()),
            None => {
                out.problems
                    .push(format!("{NAME}: {CLOSE} missing (truncated reply)"));
                let e = next_open.map_or(text.len(), |n| back_over_ns(text, n));
                (e, e)
            }
        };
        let calls = read_calls(&text[body_at..body_end], cx, &mut out.problems);
        out.blocks.push(Block::of_calls(
            start,
            end,
            calls,
            &mut out.problems,
            || format!("{NAME}: call block holds no readable invoke; raw text kept in content"),
        ));
        at = end.max(body_at);
    }
    out.set_format_if_calls(NAME);
    out
}

/// A call fragment whose head was lost (github/app#2128: `]<]minimax[>[<initial_wait>10…
/// ]<]minimax[>[</tool_call>`): from the first namespace token at or after `at` that starts a tag
/// (`<` or another token right after it) to the end of the first `</tool_call>` after it, both
/// before `limit` (the next head). Namespace tokens are special tokens: prose does not write them
/// before a tag and a closing `</tool_call>` (in code it is text, as every marker is).
fn headless(
    text: &str,
    at: usize,
    limit: usize,
    tokens: &mut Finder,
    closes: &mut Finder,
) -> Option<(usize, usize)> {
    let mut from = at;
    let n = loop {
        let n = tokens.find(text, from).filter(|&n| n < limit)?;
        let after = &text[n + NS.len()..];
        if after.starts_with('<') || after.starts_with(NS) {
            break n;
        }
        from = n + NS.len();
    };
    let c = closes.find(text, n).filter(|&c| c < limit)?;
    Some((n, c + CLOSE.len()))
}

/// Where a headless fragment with no `</tool_call>` after it starts, at or after `at` (the first
/// namespace token that starts a tag), when the reply was cut inside it ([`cut_fragment`]).
fn cut_start(text: &str, at: usize) -> Option<usize> {
    let mut tokens = Finder::new(NS);
    let mut from = at;
    let n = loop {
        let n = tokens.find(text, from)?;
        let after = &text[n + NS.len()..];
        if after.starts_with('<') || after.starts_with(NS) {
            break n;
        }
        from = n + NS.len();
    };
    (!quoted_before(&text[..n]) && cut_fragment(text)).then_some(n)
}

/// Whether `before` (the text before a fragment's first namespace token) ends with a quote mark:
/// the fragment is quoted in prose, a mention.
pub(crate) fn quoted_before(before: &str) -> bool {
    before.ends_with(['"', '\'', '“', '‘', '「', '『'])
}

/// Whether `text` (a reply that holds a headless fragment and no `</tool_call>` after it) ends
/// the way a reply cut inside such a fragment does: after its last namespace token, an opening tag
/// (the cut came in the tag or the value after it), a closing tag with only whitespace after it,
/// or only whitespace. Text after a closing tag (`…]<]minimax[>[</a> 这样的片段。`) means the
/// fragment ended and prose followed: not a cut.
///
/// A namespace token the cut took in half (`…]<]minimax[>[</city>]<]mini`) is left out first: the
/// fragment ends where it started.
pub(crate) fn cut_fragment(text: &str) -> bool {
    let text = without_cut_token(text);
    let Some(last) = memchr::memmem::rfind(text.as_bytes(), NS.as_bytes()) else {
        return false;
    };
    let tail = &text[last + NS.len()..];
    match tail.strip_prefix("</") {
        Some(close) => close
            .find('>')
            .is_none_or(|gt| close[gt + 1..].trim().is_empty()),
        None => tail.trim().is_empty() || tail.starts_with('<'),
    }
}

/// `text` without the first bytes of a namespace token at its end (`]<]mini`, `]`), which a reply
/// cut inside the token ends with.
fn without_cut_token(text: &str) -> &str {
    (1..NS.len())
        .rev()
        .find(|&k| text.ends_with(&NS[..k]))
        .map_or(text, |k| &text[..text.len() - k])
}

/// `i`, moved back over a namespace token right before it.
fn back_over_ns(text: &str, i: usize) -> usize {
    if text[..i].ends_with(NS) {
        i - NS.len()
    } else {
        i
    }
}

/// MiniMax-M2's parameter tags, which some servers wrap in a bare `<tool_call>`.
const M2_TAGS: Tags = Tags {
    invoke: INVOKE,
    invoke_end: INVOKE_END,
    param: "<parameter",
    param_end: "</parameter>",
};

/// The calls of one `<tool_call>` body.
fn read_calls(body: &str, cx: &Ctx, problems: &mut Vec<String>) -> Vec<RawCall> {
    let ns = body.contains(NS);
    if !ns && body.contains("<parameter name=") {
        return typed_invokes(
            body,
            &M2_TAGS,
            NAME,
            cx,
            Style::Schema { minimax: true },
            as_written,
            problems,
        );
    }
    let mut out = Vec::new();
    let mut ends = Finder::new(INVOKE_END);
    let mut next = Finder::new(INVOKE);
    let mut at = 0;
    while let Some(i) = next.find(body, at) {
        let head_at = i + INVOKE.len();
        at = head_at;
        if !body[at..].starts_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let Some(gt) = find_from(body, ">", at) else {
            problems.push(format!("{NAME}: invoke tag cut off; call dropped"));
            break;
        };
        let following = next.find(body, gt).map(|n| back_over_ns(body, n));
        let inv_end = match ends
            .find(body, gt)
            .filter(|&e| following.is_none_or(|n| e < n))
        {
            Some(e) => back_over_ns(body, e),
            None => {
                problems.push(format!("{NAME}: {INVOKE_END} missing (truncated reply)"));
                following.unwrap_or(body.len())
            }
        };
        at = inv_end.max(gt + 1);
        let name = attr(&body[head_at..gt], "name").unwrap_or("").trim();
        if name.is_empty() {
            problems.push(format!("{NAME}: invoke with an empty name skipped"));
            continue;
        }
        let mut args = Map::new();
        for el in elements(&body[gt + 1..inv_end], false, true) {
            if !el.closed {
                problems.push(format!(
                    "{NAME}: call {name:?}: parameter {:?} not closed (truncated)",
                    el.name
                ));
            }
            let schema = param_schema(cx.tools, name, el.name);
            args.insert(el.name.to_owned(), value(el.inner, ns, schema, 0));
        }
        out.push(RawCall {
            name: name.to_owned(),
            arguments: Value::Object(args).to_string(),
            id: None,
        });
    }
    out
}

/// One element: `<name>inner</name>`.
struct El<'a> {
    name: &'a str,
    inner: &'a str,
    closed: bool,
}

/// The name of an opening tag at `s[i..]` (`<name>`), and the position after its `>`.
fn open_tag(s: &str, i: usize) -> Option<(&str, usize)> {
    let rest = s.get(i + 1..)?;
    let gt = rest.get(..rest.len().min(130))?.find('>')?;
    let name = &rest[..gt];
    let ok = !name.is_empty()
        && !name.contains(|c: char| c.is_whitespace() || "<>/\"'=[]".contains(c))
        && name != "invoke";
    ok.then_some((name, i + 1 + gt + 1))
}

/// The elements of `s`, in order. An opening tag counts only after a namespace token when
/// `need_ns`; text between elements is skipped when `lenient`, and otherwise means `s` is not a
/// sequence of elements (empty result). Each element ends at its matching closing tag (same-name
/// tags nest), or runs to the end of `s` (`closed: false`). Linear in `s`.
fn elements(s: &str, need_ns: bool, lenient: bool) -> Vec<El<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = s.as_bytes();
    let mut search = 0;
    while let Some(off) = memchr::memchr(b'<', &bytes[search..]) {
        let p = search + off;
        search = p + 1;
        let Some((name, body)) = open_tag(s, p) else {
            continue;
        };
        if need_ns && !s[..p].ends_with(NS) {
            continue;
        }
        let tag_start = back_over_ns(s, p);
        if !lenient && !blank(&s[i..tag_start]) {
            return Vec::new();
        }
        let (inner_end, end, closed) = match matching_close(s, body, name) {
            Some((c, e)) => (back_over_ns(s, c), e, true),
            None => (s.len(), s.len(), false),
        };
        out.push(El {
            name,
            inner: &s[body..inner_end],
            closed,
        });
        i = end;
        search = end;
        if !closed {
            break;
        }
    }
    if !lenient && !blank(&s[i..]) {
        return Vec::new();
    }
    out
}

/// The start and end of the `</name>` that closes an element whose body starts at `from`.
fn matching_close(s: &str, from: usize, name: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut at = from;
    while let Some(off) = memchr::memchr(b'<', &bytes[at..]) {
        let p = at + off;
        at = p + 1;
        let rest = &s[p + 1..];
        if let Some(r) = rest.strip_prefix('/') {
            if r.strip_prefix(name).is_some_and(|r| r.starts_with('>')) {
                if depth == 0 {
                    return Some((p, p + name.len() + 3));
                }
                depth -= 1;
            }
        } else if rest.strip_prefix(name).is_some_and(|r| r.starts_with('>')) {
            depth += 1;
        }
    }
    None
}

/// Whitespace and namespace tokens only.
fn blank(t: &str) -> bool {
    t.split(NS).all(|p| p.trim().is_empty())
}

/// The lower-cased types a schema allows.
fn types_of(schema: Option<&Value>) -> Vec<&str> {
    match schema.and_then(|s| s.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The JSON value of an element's inner text.
fn value(inner: &str, ns: bool, schema: Option<&Value>, depth: usize) -> Value {
    let types = types_of(schema);
    let string_only = !types.is_empty() && types.iter().all(|t| matches!(*t, "string" | "null"));
    if depth < MAX_DEPTH && !string_only && (ns || schema.is_none() || !types.is_empty()) {
        let els = elements(inner, ns, false);
        if !els.is_empty() {
            if els.iter().all(|e| e.name == "item") {
                let item_schema = schema.and_then(|s| s.get("items"));
                return Value::Array(
                    els.iter()
                        .map(|e| value(e.inner, ns, item_schema, depth + 1))
                        .collect(),
                );
            }
            let props = schema.and_then(|s| s.get("properties"));
            let mut map = Map::new();
            for e in els {
                let sub = props.and_then(|p| p.get(e.name));
                map.insert(e.name.to_owned(), value(e.inner, ns, sub, depth + 1));
            }
            return Value::Object(map);
        }
    }
    let raw = if inner.contains(NS) {
        inner.replace(NS, "")
    } else {
        inner.to_owned()
    };
    if raw.trim().is_empty() {
        return match types.first() {
            Some(&"array") => Value::Array(Vec::new()),
            Some(&"object") => Value::Object(Map::new()),
            _ => Value::String(raw),
        };
    }
    type_value(&raw, schema, Style::Schema { minimax: true })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaced_call_with_nested_values() {
        let t = "查一下。]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">]<]minimax[>[<city>北京]<]minimax[>[</city>]<]minimax[>[<days>3]<]minimax[>[</days>]<]minimax[>[<tags>]<]minimax[>[<item>a]<]minimax[>[</item>]<]minimax[>[<item>b]<]minimax[>[</item>]<]minimax[>[</tags>]<]minimax[>[<opts>]<]minimax[>[<unit>C]<]minimax[>[</unit>]<]minimax[>[</opts>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some(NAME));
        assert_eq!(c.content, "查一下。");
        assert_eq!(
            named(&c),
            [(
                "get_weather",
                json!({"city": "北京", "days": 3, "tags": ["a", "b"], "opts": {"unit": "C"}})
            )]
        );
    }

    #[test]
    fn markup_in_a_string_value_stays_text() {
        let t = "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write_file\">]<]minimax[>[<path>App.vue]<]minimax[>[</path>]<]minimax[>[<content><template>\n  <div>{{ msg }}</div>\n</template>\n]<]minimax[>[</content>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>";
        let c = run(t, None, None, None);
        assert_eq!(
            named(&c),
            [(
                "write_file",
                json!({"path": "App.vue", "content": "<template>\n  <div>{{ msg }}</div>\n</template>\n"})
            )]
        );
    }

    #[test]
    fn elements_nest_by_name_and_stay_linear_in_depth() {
        let els = elements("<a><a>x</a></a><b>y</b>", false, false);
        assert_eq!(els.len(), 2);
        assert_eq!(els[0].inner, "<a>x</a>");
        assert!(elements("<a>x</a> junk", false, false).is_empty());
        assert_eq!(elements("<a>x</a> junk <b>", false, true).len(), 2);
        let deep = format!("{}x{}", "<item>".repeat(100), "</item>".repeat(100));
        let v = value(&deep, false, None, 0);
        let mut d = 0;
        let mut cur = &v;
        while let Value::Array(a) = cur {
            d += 1;
            cur = &a[0];
        }
        assert_eq!(d, MAX_DEPTH);
    }

    #[test]
    fn grows_linearly_on_unclosed_and_nested_markup() {
        for unit in [
            "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>",
            "<tool_call>\n<invoke name=\"f\"><a><item><item>",
            "<tool_call><invoke name=\"f\"><a>x</a><b><c>1</c></b></invoke></tool_call>",
            "]<]minimax[>[",
        ] {
            super::super::linearity::assert_linear(NAME, unit, &|t| {
                run(t, Some(NAME), None, None);
            });
        }
        // Fragments without their head: never closed, and each closed, named and in `auto`.
        for unit in [
            "]<]minimax[>[<a>x]<]minimax[>[</a>",
            "中]<]minimax[>[<a>1]<]minimax[>[</tool_call>",
        ] {
            for format in [Some(NAME), None] {
                super::super::linearity::assert_linear(NAME, unit, &|t| {
                    run(t, format, None, None);
                });
            }
        }
    }

    #[test]
    fn fragment_without_head_is_read_or_removed() {
        let t = "前文]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>后文";
        let c = run(t, None, None, None);
        assert_eq!(c.content, "前文后文");
        assert_eq!(named(&c), [("f", json!({"a": 1}))]);
        let c = run(
            "x]<]minimax[>[<a>1]<]minimax[>[</tool_call>",
            None,
            None,
            None,
        );
        assert_eq!((c.content.as_str(), c.tool_calls.len()), ("x", 0));
        assert_eq!(
            super::super::problem::kinds(&c.problems),
            ["unreadable-block"]
        );
        // A token before no tag is text; so is a fragment with no `</tool_call>` after it that
        // prose follows, or that is quoted.
        for t in [
            "token ]<]minimax[>[ 在这里",
            "]<]minimax[>[<a>1]<]minimax[>[</a> 之后是正文",
            "日志里只有“]<]minimax[>[<a>1”",
        ] {
            assert_eq!(run(t, None, None, None).content, t);
        }
        // One the reply's end cut (inside a value, or right after a closing tag): removed and
        // reported, never a call.
        for t in [
            "好]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1",
            "好]<]minimax[>[<a>1]<]minimax[>[</a>\n",
        ] {
            let c = run(t, None, None, None);
            assert_eq!((c.content.as_str(), c.tool_calls.len()), ("好", 0), "{t}");
            assert_eq!(
                super::super::problem::kinds(&c.problems),
                ["truncated", "unreadable-block"]
            );
        }
    }
}
