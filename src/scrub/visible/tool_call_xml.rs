//! Tool calls written as XML in a reply (OpenClaw 2026.9.6, `stripToolCallXmlTags` in
//! `src/shared/text/assistant-visible-text.ts`): Hermes-style `<tool_call>{json}</tool_call>`,
//! `<function_call>`, Anthropic-style `<function_calls><invoke …>` (also `antml:`-prefixed),
//! `<function name="x">…` at the start of a line or sentence, `<function_response>` echoes and
//! stray closers. A block is removed when its payload starts like a call (JSON, or a nested call
//! tag); a truncated one runs to the end of the reply; a tag whose payload is prose stays (and so
//! does its closing tag). Standalone `<parameter>` wrappers are then unwrapped, their content kept.
//! Tags in Markdown code stay. New in 2026.9.6; 2026.3.23 had no such rule.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::MarkdownCode;
use super::needles::Needles;
use super::text::{line_break, skip_blank, skip_ws};
use crate::js_text::{is_js_whitespace, JS_WHITESPACE_CLASS as WS};

/// JavaScript's `\S` as a negated class body (without the brackets).
const NOT_WS: &str = r"\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// JavaScript's `\b` after a word: no ASCII word character next.
const WORD_END: &str = r"(?:[^A-Za-z0-9_]|\z)";

/// What a reply needs for [`strip_tool_call_xml`] to change it.
pub const NEEDLES: Needles = Needles::exact(&["<"]);

static QUICK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        "<{WS}*/?{WS}*(?i-u:(?:antml:)?(?:tool_call|tool_result|function_calls?|function_response|function|tool_calls|invoke|parameter)){WORD_END}"
    ))
    .expect("static regex")
});
static JSON_PAYLOAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"\A(?:{WS}+[A-Za-z_:][-A-Za-z0-9_:.]*{WS}*={WS}*(?:"[^"]*"|'[^']*'|[^{NOT_WS}"'=<>`]+))*{WS}*(?:\r?\n{WS}*)?[\[{{]"#
    ))
    .expect("static regex")
});
static XML_PAYLOAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\A{WS}*(?:\r?\n{WS}*)?<(?i-u:(?:antml:)?(?:function_call|tool_call|function|invoke|parameters?|arguments?)){WORD_END}"
    ))
    .expect("static regex")
});
static NESTED_JSON_PAYLOAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\A{WS}*(?:\r?\n{WS}*)?<(?i-u:function_call|tool_call){WORD_END}"
    ))
    .expect("static regex")
});
static NAME_ATTR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?:\A|[^A-Za-z0-9_])name{WS}*=")).expect("static regex")
});
static PARAMETER_QUICK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!("<{WS}*/?{WS}*(?i-u:parameter){WORD_END}")).expect("static regex")
});

/// The tag names this rule acts on.
const NAMES: [&str; 9] = [
    "tool_call",
    "tool_result",
    "function_call",
    "function_calls",
    "function_response",
    "function",
    "tool_calls",
    "antml:invoke",
    "antml:parameter",
];

/// OpenClaw's quoted-string scanner: whether a position is inside a `"…"`/`'…'` string (with
/// backslash escapes), fed positions in increasing order.
struct Quotes<'a> {
    b: &'a [u8],
    cursor: usize,
    quote: Option<u8>,
    escaped: bool,
}

impl<'a> Quotes<'a> {
    fn new(text: &'a str, start: usize) -> Self {
        Quotes {
            b: text.as_bytes(),
            cursor: start,
            quote: None,
            escaped: false,
        }
    }

    fn inside(&mut self, end: usize) -> bool {
        while self.cursor < end {
            let c = self.b[self.cursor];
            match self.quote {
                None if c == b'"' || c == b'\'' => self.quote = Some(c),
                None => {}
                Some(_) if self.escaped => self.escaped = false,
                Some(_) if c == b'\\' => self.escaped = true,
                Some(q) if c == q => self.quote = None,
                Some(_) => {}
            }
            self.cursor += 1;
        }
        self.quote.is_some()
    }
}

/// One XML-ish tag head parsed at a `<`.
#[derive(Debug, Clone)]
struct XmlTag {
    start: usize,
    content_start: usize,
    end: usize,
    close: bool,
    self_closing: bool,
    name: String,
    truncated: bool,
}

/// OpenClaw's `parseXmlTagAt`.
fn parse_xml_tag(text: &str, start: usize) -> Option<XmlTag> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'<') {
        return None;
    }
    let mut i = skip_ws(text, start + 1);
    let close = b.get(i) == Some(&b'/');
    if close {
        i = skip_ws(text, i + 1);
    }
    let name_start = i;
    if !b
        .get(i)
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b':')
    {
        return None;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b':' | b'-'))
    {
        i += 1;
    }
    if let Some(c) = text[i..].chars().next() {
        if !is_js_whitespace(c) && c != '/' && c != '>' {
            return None;
        }
    }
    let content_start = i;
    let mut quotes = Quotes::new(text, content_start);
    let mut close_at = None;
    for (j, &c) in b.iter().enumerate().skip(content_start) {
        if (c == b'<' || c == b'>') && !quotes.inside(j) {
            if c == b'>' {
                close_at = Some(j);
            }
            break;
        }
    }
    let truncated = close_at.is_none();
    let self_closing = close_at.is_some_and(|c| {
        !close
            && text[content_start..c]
                .trim_end_matches(is_js_whitespace)
                .ends_with('/')
    });
    Some(XmlTag {
        start,
        content_start,
        end: close_at.map_or(text.len(), |c| c + 1),
        close,
        self_closing,
        name: text[name_start..content_start].to_ascii_lowercase(),
        truncated,
    })
}

fn parse_tool_tag(text: &str, start: usize) -> Option<XmlTag> {
    parse_xml_tag(text, start).filter(|t| NAMES.contains(&t.name.as_str()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Payload {
    Json,
    Xml,
}

fn payload_kind(text: &str, start: usize) -> Option<Payload> {
    let rest = &text[start..];
    if JSON_PAYLOAD.is_match(rest) {
        Some(Payload::Json)
    } else if XML_PAYLOAD.is_match(rest) {
        Some(Payload::Xml)
    } else {
        None
    }
}

fn starts_with_nested_json_call(text: &str, start: usize) -> bool {
    if !NESTED_JSON_PAYLOAD.is_match(&text[start..]) {
        return false;
    }
    match parse_tool_tag(text, skip_ws(text, start)) {
        Some(t)
            if !t.close
                && !t.self_closing
                && !t.truncated
                && (t.name == "function_call" || t.name == "tool_call") =>
        {
            JSON_PAYLOAD.is_match(&text[t.end..])
        }
        _ => false,
    }
}

fn has_name_attr(text: &str, tag: &XmlTag) -> bool {
    NAME_ATTR.is_match(&text[tag.content_start..tag.end])
}

/// `<function name=…>` at the start of a line or after a sentence end.
fn standalone_function(text: &str, tag: &XmlTag) -> bool {
    if tag.name != "function"
        || tag.close
        || tag.self_closing
        || tag.truncated
        || !has_name_attr(text, tag)
    {
        return false;
    }
    let b = text.as_bytes();
    let mut i = tag.start;
    while i > 0 && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
        i -= 1;
    }
    i == 0 || matches!(b[i - 1], b'\n' | b'\r' | b'.' | b'!' | b'?' | b':')
}

fn adjacent_to_stripped(text: &str, start: usize, last_end: Option<usize>) -> bool {
    match last_end {
        Some(e) if e <= start => text.as_bytes()[e..start]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')),
        _ => false,
    }
}

fn matching_close(text: &str, start: usize, name: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = start;
    while i < b.len() {
        if b[i] == b'<' {
            if let Some(t) = parse_tool_tag(text, i) {
                if t.close && t.name == name && !t.truncated {
                    return Some(i);
                }
                i = i.max(t.end - 1);
            }
        }
        i += 1;
    }
    None
}

fn line_start_at(b: &[u8], start: usize) -> bool {
    let mut i = start;
    while i > 0 && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
        i -= 1;
    }
    i == 0 || b[i - 1] == b'\n' || b[i - 1] == b'\r'
}

fn line_end_after(b: &[u8], end: usize) -> bool {
    let i = skip_blank(b, end);
    i >= b.len() || b[i] == b'\n' || b[i] == b'\r'
}

/// The text without tool-call XML outside code (see the module doc); borrowed when unchanged.
///
/// ```
/// use transcript_hygiene::scrub::visible::tool_call_xml::strip_tool_call_xml;
/// let t = "好的。\n<tool_call>{\"name\":\"read\",\"arguments\":{}}</tool_call>";
/// assert_eq!(strip_tool_call_xml(t, false, false), "好的。\n");
/// assert_eq!(strip_tool_call_xml("<tool_call> is the tag", false, false), "<tool_call> is the tag");
/// ```
///
/// `response_after_plural`: a `<function_calls>`/`<tool_calls>` block followed by a
/// `<function_response>` is read like a `<tool_call>` (OpenClaw's
/// `stripFunctionResponseAfterPluralToolCalls`, on in its delivery profiles); `plural_payloads`:
/// every such block is (`stripFunctionCallsXmlPayloads`). Otherwise a plural block goes only with
/// a JSON payload.
pub fn strip_tool_call_xml(
    text: &str,
    response_after_plural: bool,
    plural_payloads: bool,
) -> Cow<'_, str> {
    if !NEEDLES.found(text) || !QUICK.is_match(text) {
        return Cow::Borrowed(text);
    }
    let code = MarkdownCode::find(text);
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut quotes: Option<Quotes<'_>> = None;
    let mut block_start = 0;
    let mut block: Option<String> = None;
    let mut last_stripped_end: Option<usize> = None;
    let mut balance: Vec<(String, usize)> = Vec::new();
    let mut idx = 0;
    while idx < b.len() {
        if b[idx] != b'<' || (block.is_none() && code.contains(idx)) {
            idx += 1;
            continue;
        }
        let Some(tag) = parse_tool_tag(text, idx) else {
            idx += 1;
            continue;
        };
        match &block {
            None => {
                out.push_str(&text[last..idx]);
                if tag.close {
                    if tag.truncated {
                        out.push_str(&text[idx..tag.content_start]);
                        last = tag.content_start;
                        idx = idx.max(tag.content_start - 1) + 1;
                        continue;
                    }
                    if let Some(entry) = balance.iter_mut().find(|(n, c)| *n == tag.name && *c > 0)
                    {
                        out.push_str(&text[idx..tag.end]);
                        entry.1 -= 1;
                    }
                    last = tag.end;
                    idx = idx.max(tag.end - 1) + 1;
                    continue;
                }
                if tag.self_closing {
                    last_stripped_end = Some(tag.end);
                    last = tag.end;
                    idx = idx.max(tag.end - 1) + 1;
                    continue;
                }
                let payload_start = if tag.truncated {
                    tag.content_start
                } else {
                    tag.end
                };
                let plural = tag.name == "function_calls" || tag.name == "tool_calls";
                let close_tag = if plural {
                    matching_close(text, tag.end, &tag.name).and_then(|c| parse_tool_tag(text, c))
                } else {
                    None
                };
                let plural_before_response = response_after_plural
                    && plural
                    && close_tag.is_some_and(|c| {
                        parse_tool_tag(text, skip_ws(text, c.end))
                            .is_some_and(|t| !t.close && t.name == "function_response")
                    });
                let kind = if matches!(tag.name.as_str(), "tool_call" | "function" | "antml:invoke")
                    || ((plural_payloads || plural_before_response) && plural)
                {
                    payload_kind(text, payload_start)
                } else if JSON_PAYLOAD.is_match(&text[payload_start..]) {
                    Some(Payload::Json)
                } else {
                    None
                };
                let function_ok = tag.name != "function" || standalone_function(text, &tag);
                let response = tag.name == "function_response"
                    && ((line_start_at(b, idx) && line_end_after(b, tag.end))
                        || adjacent_to_stripped(text, idx, last_stripped_end)
                        || (matching_close(text, tag.end, &tag.name).is_some()
                            && line_start_at(out.as_bytes(), out.len())
                            && line_end_after(b, tag.end)));
                if (kind.is_some() && function_ok) || response {
                    let json = kind == Some(Payload::Json)
                        || (kind == Some(Payload::Xml)
                            && starts_with_nested_json_call(text, payload_start));
                    quotes = json.then(|| Quotes::new(text, tag.end));
                    block_start = idx;
                    block = Some(tag.name.clone());
                    if tag.truncated {
                        last = text.len();
                        break;
                    }
                } else {
                    let keep_end = if tag.truncated {
                        tag.content_start
                    } else {
                        tag.end
                    };
                    out.push_str(&text[idx..keep_end]);
                    if !tag.truncated {
                        match balance.iter_mut().find(|(n, _)| *n == tag.name) {
                            Some(entry) => entry.1 += 1,
                            None => balance.push((tag.name.clone(), 1)),
                        }
                    }
                    last = keep_end;
                    idx = idx.max(keep_end - 1) + 1;
                    continue;
                }
            }
            Some(open) => {
                let closes = tag.close
                    && (tag.name == *open || (open == "tool_result" && tag.name == "tool_call"));
                if closes && !quotes.as_mut().is_some_and(|q| q.inside(idx)) {
                    quotes = None;
                    block = None;
                    last_stripped_end = Some(tag.end);
                }
            }
        }
        last = tag.end;
        idx = idx.max(tag.end - 1) + 1;
    }
    match block.as_deref() {
        None => out.push_str(&text[last.min(text.len())..]),
        Some("function") => out.push_str(&text[block_start..]),
        Some(_) => {}
    }
    let unwrapped = match unwrap_parameters(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(s) => s,
    };
    if unwrapped == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(unwrapped)
    }
}

/// Every tag head outside code, with whether an opening tag has a matching close (OpenClaw's `scanXmlTags`).
fn scan_xml_tags(text: &str, code: &MarkdownCode) -> Vec<(XmlTag, bool)> {
    let mut tags: Vec<(XmlTag, bool)> = Vec::new();
    let mut open: Vec<(String, Vec<usize>)> = Vec::new();
    let mut from = 0;
    while let Some(p) = memchr::memchr(b'<', &text.as_bytes()[from..]) {
        let start = from + p;
        from = start + 1;
        if code.contains(start) {
            continue;
        }
        let Some(tag) = parse_xml_tag(text, start).filter(|t| !t.truncated) else {
            continue;
        };
        let i = tags.len();
        let end = tag.end;
        let entry = open.iter_mut().find(|(n, _)| *n == tag.name);
        if tag.close {
            if let Some(opening) = entry.and_then(|(_, v)| v.pop()) {
                tags[opening].1 = true;
            }
        } else if !tag.self_closing {
            match entry {
                Some((_, v)) => v.push(i),
                None => open.push((tag.name.clone(), vec![i])),
            }
        }
        tags.push((tag, false));
        from = end.max(from);
    }
    tags
}

fn dangling_function_parent(text: &str, tag: &XmlTag) -> bool {
    tag.name == "function"
        && has_name_attr(text, tag)
        && parse_xml_tag(text, skip_ws(text, tag.end))
            .is_some_and(|n| n.name == "parameter" && !n.close)
}

/// OpenClaw's `unwrapStandaloneParameterTags`: `<parameter …>` tags outside any other tag are removed, their content kept.
fn unwrap_parameters(text: &str) -> Cow<'_, str> {
    if !PARAMETER_QUICK.is_match(text) {
        return Cow::Borrowed(text);
    }
    let code = MarkdownCode::find(text);
    let b = text.as_bytes();
    // (name, unwrap, trim the line breaks at its edges)
    let mut open: Vec<(String, bool, bool)> = Vec::new();
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    for (tag, has_close) in scan_xml_tags(text, &code) {
        let idx = tag.start;
        if tag.close {
            if let Some(k) = open.iter().rposition(|(n, _, _)| *n == tag.name) {
                let (_, unwrap, trim) = open[k];
                if unwrap {
                    let content_end = if trim && line_start_at(b, idx) && line_end_after(b, tag.end)
                    {
                        trim_line_break_before(b, last, idx)
                    } else {
                        idx
                    };
                    out.push_str(&text[last..content_end]);
                    last = tag.end;
                    changed = true;
                }
                open.truncate(k);
            }
        } else if tag.self_closing {
            if tag.name == "parameter" && open.is_empty() {
                out.push_str(&text[last..idx]);
                last = tag.end;
                changed = true;
            }
        } else if has_close || dangling_function_parent(text, &tag) {
            let unwrap = tag.name == "parameter" && open.is_empty();
            let mut trim = false;
            if unwrap {
                out.push_str(&text[last..idx]);
                last = tag.end;
                changed = true;
                if line_start_at(b, idx) {
                    if let Some(after) = line_break(b, last) {
                        last = after;
                        trim = true;
                    }
                }
            }
            open.push((tag.name.clone(), unwrap, trim));
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

fn trim_line_break_before(b: &[u8], start: usize, end: usize) -> usize {
    if end > start && b[end - 1] == b'\n' {
        return end
            - if end >= start + 2 && b[end - 2] == b'\r' {
                2
            } else {
                1
            };
    }
    if end > start && b[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_tool_call_xml(t, true, false).into_owned()
    }

    #[test]
    fn call_blocks_go() {
        assert_eq!(s("a <tool_call>{\"name\":\"x\"}</tool_call> b"), "a  b");
        assert_eq!(
            s("好的：\n<function_call>{\"name\":\"x\"}</function_call>"),
            "好的：\n"
        );
        let plural = "<function_calls><invoke name=\"x\"></invoke></function_calls>";
        assert_eq!(strip_tool_call_xml(plural, false, true), "");
        assert_eq!(strip_tool_call_xml(plural, false, false), plural);
        assert_eq!(s("x\n<function name=\"read\">{\"p\":1}</function>"), "x\n");
        assert_eq!(s("truncated <tool_call>{\"name\":"), "truncated ");
        assert_eq!(s("stray </tool_call> closer"), "stray  closer");
    }

    #[test]
    fn prose_tags_and_code_stay() {
        for t in [
            "<tool_call> is the tag Hermes uses",
            "`<tool_call>{\"a\":1}</tool_call>`",
            "```\n<tool_call>{}</tool_call>\n```",
            "call a <function name=\"x\">{}</function> inline",
        ] {
            assert_eq!(s(t), t, "{t}");
        }
    }

    #[test]
    fn standalone_parameters_are_unwrapped() {
        assert_eq!(s("<parameter name=\"q\">北京天气</parameter>"), "北京天气");
    }
}
