//! MiniCPM5 calls. Its chat template (`openbmb/MiniCPM5-2B`, `chat_template.jinja`) asks for,
//! and renders, XML elements with no outer wrapper:
//!
//! ```text
//! <function name="get_weather"><param name="city">Paris</param></function>
//! ```
//!
//! Consecutive `<function>` elements are parallel calls, each its own block. Names may be single-
//! or double-quoted. The template wraps a value holding `<`, `&` or a line break in
//! `<![CDATA[…]]>`: a CDATA section that opens a value is read as a unit (a `</param>` or
//! `</function>` written inside it is the value's text) and taken as written; the text outside
//! it has its XML entities decoded (as an XML reader would). Values are typed by the tools'
//! schema ([`super::typing`]). The elements are read by [`super::xml_invoke`].
//!
//! With no wrapper and no special token, the element is also ordinary XML that prose writes
//! (`以 <function name="函数名"> 开头`, `a <function name=x> b </function> c`), so an opener starts
//! a call only when it reads as the template writes one ([`head`]): the name, `>`, whitespace,
//! then `<param name=` or `</function>`. A reply cut off after an opener is a cut call only when
//! `<param` (or part of it) follows, or when it ends inside the opener itself. `auto` detects the
//! family by the same shape (no table negative has it outside code; the prose forms above do not).
//! Reasoning is `<think>…</think>`, read generically.

use std::borrow::Cow;

use super::cdata::{CLOSE as CDATA_CLOSE, OPEN as CDATA_OPEN};
use super::minimax_m2::decode_entities;
use super::scan::HeadWindow;
use super::typing::Style;
use super::xml_invoke::{blocks, typed_invokes, Tags, Wrappers};
use super::{Ctx, Parsed};

const NAME: &str = "minicpm5";
/// The opener of a call.
pub const OPEN: &str = "<function name=";
/// The closing tag of a call.
pub const CLOSE: &str = "</function>";
const TAGS: Tags = Tags {
    invoke: "<function",
    invoke_end: CLOSE,
    param: "<param",
    param_end: "</param>",
};
const WRAPPERS: Wrappers = Wrappers {
    section: None,
    call: None,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let masked = mask(text);
    let base = masked.as_ptr() as usize;
    out.blocks = blocks(
        &masked,
        &WRAPPERS,
        &TAGS,
        NAME,
        &mut out.problems,
        |body, pr| {
            typed_invokes(
                body,
                &TAGS,
                NAME,
                cx,
                Style::Schema { minimax: false },
                |piece| value(original(text, base, piece)),
                pr,
            )
        },
    );
    out.set_format_if_calls(NAME);
    out
}

/// A piece of the masked text (`base`: its start) as `text` wrote it, at the same offsets.
fn original<'m>(text: &'m str, base: usize, piece: &'m str) -> &'m str {
    let at = (piece.as_ptr() as usize).wrapping_sub(base);
    text.get(at..at.saturating_add(piece.len()))
        .unwrap_or(piece)
}

/// Whether the text `after` an opener (`<function name=`) starts a call as the template writes
/// one: a name (quoted or not), `>`, whitespace, then `<param` and whitespace, or `</function>`.
/// `None` when the text ends before that is known and more may come (`finished` false). At the
/// end of the reply (`finished`), an opener cut off inside its name or tag, or followed by part of
/// `<param `, is a cut call; a tag with nothing after it is text. Undecided within
/// [`HEAD_WINDOW`](super::scan::HEAD_WINDOW) bytes of a longer text: not a call.
///
/// ```
/// use transcript_hygiene::response::minicpm5::head;
/// assert_eq!(head("\"f\">\n<param name=\"a\">1", true), Some(true));
/// assert_eq!(head("\"函数名\"> 开头，每个参数", true), Some(false));
/// assert_eq!(head("\"f\"><par", false), None);
/// assert_eq!(head("\"f\"><par", true), Some(true));
/// assert_eq!(head("\"f\">", true), Some(false));
/// ```
pub fn head(after: &str, finished: bool) -> Option<bool> {
    let window = HeadWindow::new(after, finished);
    let after = window.view;
    let pending = |cut: bool| window.pending(cut);
    let name_char = |c: char| !c.is_whitespace() && !matches!(c, '<' | '>' | '"' | '\'');
    let (name, rest) = match after.chars().next() {
        None => return pending(true),
        Some(q @ ('"' | '\'')) => {
            let inner = &after[1..];
            match inner.find(q) {
                Some(e) => (&inner[..e], &inner[e + 1..]),
                None if inner.chars().all(name_char) => return pending(true),
                None => return Some(false),
            }
        }
        Some(_) => {
            let e = after.find(|c: char| !name_char(c)).unwrap_or(after.len());
            (&after[..e], &after[e..])
        }
    };
    if name.is_empty() || !name.chars().all(name_char) {
        return Some(false);
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    let Some(body) = rest.strip_prefix('>') else {
        return if rest.is_empty() {
            pending(true)
        } else {
            Some(false)
        };
    };
    let body = body.trim_start();
    let param = body
        .strip_prefix(TAGS.param)
        .is_some_and(|r| r.starts_with(char::is_whitespace));
    if param || body.starts_with(CLOSE) {
        Some(true)
    } else if body.is_empty() {
        pending(false)
    } else if "<param ".starts_with(body) || CLOSE.starts_with(body) {
        pending(true)
    } else {
        Some(false)
    }
}

/// `text` with what must not be read as structure hidden, every offset unchanged: the `<` of an
/// opener that does not start a call ([`head`]), and the inside of each CDATA section that opens
/// a parameter's value (consecutive sections too; an unclosed one runs to the end).
fn mask(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let hide = |out: &mut Option<Vec<u8>>, from: usize, to: usize, with: u8| {
        let v = out.get_or_insert_with(|| bytes.to_vec());
        if let Some(s) = v.get_mut(from..to) {
            s.fill(with);
        }
    };
    // The last `>` found after a `<param` head (`None`: no `>` in the rest of the text).
    let mut gt: Option<Option<usize>> = None;
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'<', &bytes[at.min(bytes.len())..]).map(|i| i + at) {
        at = i + 1;
        let rest = &text[i..];
        if let Some(after) = rest.strip_prefix(OPEN) {
            if head(after, true) != Some(true) {
                hide(&mut out, i, i + 1, b'_');
            }
            continue;
        }
        let is_param = rest
            .strip_prefix(TAGS.param)
            .is_some_and(|r| r.starts_with(char::is_whitespace));
        if !is_param {
            continue;
        }
        let g = match gt {
            Some(Some(g)) if g > i => Some(g),
            Some(None) => None,
            _ => memchr::memchr(b'>', &bytes[i..]).map(|g| g + i),
        };
        let seen = gt == Some(g);
        gt = Some(g);
        let Some(g) = g.filter(|_| !seen) else {
            continue;
        };
        let mut v = g + 1;
        v += text[v..].len() - text[v..].trim_start().len();
        while text[v..].starts_with(CDATA_OPEN) {
            let inner = v + CDATA_OPEN.len();
            let end = super::scan::find_from(text, CDATA_CLOSE, inner).unwrap_or(text.len());
            hide(&mut out, inner, end, b'x');
            v = (end + CDATA_CLOSE.len()).min(text.len());
            at = v;
        }
    }
    match out.map(String::from_utf8) {
        Some(Ok(s)) => Cow::Owned(s),
        _ => Cow::Borrowed(text),
    }
}

/// A value as written: CDATA sections taken as they are, entities decoded elsewhere. An unclosed
/// CDATA section runs to the end of the value.
fn value(raw: &str) -> Cow<'_, str> {
    super::cdata::read(raw, decode_entities)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use super::*;
    use serde_json::json;

    #[test]
    fn cdata_and_entities() {
        assert_eq!(value("<![CDATA[a < b && c]]>"), "a < b && c");
        assert_eq!(value("x &amp; <![CDATA[&amp;]]> y"), "x & &amp; y");
        assert_eq!(value("<![CDATA[cut"), "cut");
        assert_eq!(value("plain"), "plain");
    }

    #[test]
    fn parallel_calls_typed_by_schema() {
        let tools = json!([{"function": {"name": "add", "parameters": {"properties": {
            "a": {"type": "integer"}, "b": {"type": "string"}}}}}]);
        let t = "<function name='add'><param name=\"a\">3</param><param name='b'>3</param></function>\n\
                 <function name=\"add\"><param name=\"a\"><![CDATA[4]]></param></function>";
        let c = run(t, None, Some("openbmb/MiniCPM5-2B"), Some(tools));
        assert_eq!(c.format, Some("minicpm5"));
        assert_eq!(c.content, "");
        assert_eq!(
            named(&c),
            [("add", json!({"a": 3, "b": "3"})), ("add", json!({"a": 4}))]
        );
    }

    #[test]
    fn grows_linearly_on_unclosed_calls() {
        super::super::linearity::assert_linear(
            "minicpm5",
            "<function name=\"f\"><param name=\"p\"><![CDATA[v",
            &|t| {
                run(t, Some("minicpm5"), None, None);
            },
        );
    }

    #[test]
    fn grows_linearly_on_prose_openers_and_cdata_values() {
        for unit in [
            "<function name=\"x\"> a ",
            "<function name='aaaaaaaaaaaaaaaa",
            "<function name=\"f\"><param name=\"a\"><![CDATA[<param x></function>]]></param></function>\n",
            "<param name=\"a\"><param name=\"b\"> ",
        ] {
            super::super::linearity::assert_linear("minicpm5", unit, &|t| {
                run(t, Some("minicpm5"), None, None);
            });
        }
    }

    #[test]
    fn model_ids() {
        use super::super::Family;
        for id in [
            "openbmb/MiniCPM5-2B",
            "openbmb/MiniCPM5-1B-MLX",
            "minicpm-5-1b",
        ] {
            assert_eq!(Family::from_model(id), Some(Family::Minicpm5), "{id}");
        }
        assert_eq!(Family::from_model("openbmb/MiniCPM-V-4_5"), None);
    }
}
