//! `stripMinimaxToolCallXml` as OpenClaw 2026.9.6 does it: MiniMax models write calls as
//! `<minimax:tool_call><invoke name="…">…</invoke></minimax:tool_call>` in the reply text. What
//! changed from 2026.3.23 ([`crate::scrub::minimax_xml`]): blocks in Markdown code (CommonMark)
//! stay, and MiniMax's transport envelope (`]<]minimax[>[<tool_call>…]<]minimax[>[</tool_call>`)
//! is first decoded, or dropped whole when it wraps code.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::MarkdownCode;
use super::needles::Needles;

/// What a reply needs for [`strip_minimax_tool_call_xml`] to change it: a mention, or an envelope.
pub const NEEDLES: Needles = Needles {
    exact: &["<]minimax[>[<tool_call>"],
    ignore_case: &["minimax:tool_call"],
};

static MENTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i-u:minimax:tool_call)").expect("static regex"));
static ENVELOPE_OPEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\]?<\]minimax\[>\[<tool_call>").expect("static regex"));
static ENVELOPE_CLOSE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\]?<\]minimax\[>\[</tool_call>").expect("static regex"));
static ENVELOPE_BOUNDARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\]?<\]minimax\[>\[").expect("static regex"));
static CALL_XML: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i-u:<invoke)(?:[^A-Za-z0-9_>][^>]*)?>(?s:.)*?(?i-u:</invoke>)|(?i-u:</?minimax:tool_call>)")
        .expect("static regex")
});

/// The transport envelopes decoded (see the module doc).
fn decode_envelopes(text: &str) -> Cow<'_, str> {
    if !ENVELOPE_OPEN.is_match(text) {
        return Cow::Borrowed(text);
    }
    let code = MarkdownCode::find(text);
    let mut out = String::new();
    let mut cursor = 0;
    for open in ENVELOPE_OPEN.find_iter(text) {
        let start = open.start();
        if start < cursor || code.contains(start) {
            continue;
        }
        let mut from = open.end();
        let close = loop {
            match ENVELOPE_CLOSE.find_at(text, from) {
                Some(c) if code.contains(c.start()) => from = c.end(),
                other => break other,
            }
        };
        let Some(close) = close else {
            break;
        };
        let end = close.end();
        out.push_str(&text[cursor..start]);
        cursor = end;
        if code
            .ranges()
            .iter()
            .any(|r| r.start >= start && r.end <= end)
        {
            continue;
        }
        out.push_str(&ENVELOPE_BOUNDARY.replace_all(&text[start..end], ""));
    }
    out.push_str(&text[cursor..]);
    Cow::Owned(out)
}

/// The text without MiniMax call XML outside code; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::minimax::strip_minimax_tool_call_xml;
/// let t = "查询中<minimax:tool_call><invoke name=\"s\"><parameter name=\"q\">天气</parameter></invoke></minimax:tool_call>";
/// assert_eq!(strip_minimax_tool_call_xml(t), "查询中");
/// ```
pub fn strip_minimax_tool_call_xml(text: &str) -> Cow<'_, str> {
    if !MENTION.is_match(text) && !ENVELOPE_OPEN.is_match(text) {
        return Cow::Borrowed(text);
    }
    let normalized = decode_envelopes(text);
    if !MENTION.is_match(&normalized) {
        return if normalized == text {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(normalized.into_owned())
        };
    }
    let code = MarkdownCode::find(&normalized);
    let mut out = String::new();
    let mut cursor = 0;
    for m in CALL_XML.find_iter(&normalized) {
        if code.contains(m.start()) {
            continue;
        }
        out.push_str(&normalized[cursor..m.start()]);
        cursor = m.end();
    }
    out.push_str(&normalized[cursor..]);
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_are_decoded_then_stripped() {
        let t = "a]<]minimax[>[<tool_call><invoke name=\"x\"></invoke>]<]minimax[>[</tool_call>b <minimax:tool_call>";
        assert_eq!(strip_minimax_tool_call_xml(t), "a<tool_call></tool_call>b ");
    }

    #[test]
    fn code_stays() {
        let t = "`<minimax:tool_call>` and\n```\n<invoke name=\"x\"></invoke>\n```";
        assert!(matches!(strip_minimax_tool_call_xml(t), Cow::Borrowed(_)));
    }
}
