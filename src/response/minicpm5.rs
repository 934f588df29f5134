//! MiniCPM5 calls. Its chat template (`openbmb/MiniCPM5-2B`, `chat_template.jinja`) asks for,
//! and renders, XML elements with no outer wrapper:
//!
//! ```text
//! <function name="get_weather"><param name="city">Paris</param></function>
//! ```
//!
//! Consecutive `<function>` elements are parallel calls, each its own block. Names may be single-
//! or double-quoted. The template wraps a value holding `<`, `&` or a line break in
//! `<![CDATA[…]]>`: a CDATA section is taken as written, the text outside it has its XML entities
//! decoded (as an XML reader would). Values are typed by the tools' schema ([`super::typing`]).
//! The elements are read by [`super::xml_invoke`] (a value ends at its exact `</param>`, a
//! `</param>` or `</function>` written inside a CDATA section is not told apart).
//!
//! Read only when `format` or `model` names MiniCPM5: with no wrapper and no special token, the
//! element is ordinary XML that prose writes too (`a <function name=x> b </function> c` would lose
//! its words in `auto`). Reasoning is `<think>…</think>`, read generically.

use std::borrow::Cow;

use super::minimax_m2::decode_entities;
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
const CDATA_OPEN: &str = "<![CDATA[";
const CDATA_CLOSE: &str = "]]>";

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = blocks(
        text,
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
                value,
                pr,
            )
        },
    );
    out.set_format_if_calls(NAME);
    out
}

/// A value as written: CDATA sections taken as they are, entities decoded elsewhere. An unclosed
/// CDATA section runs to the end of the value.
fn value(raw: &str) -> Cow<'_, str> {
    if !raw.contains(CDATA_OPEN) {
        return decode_entities(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(CDATA_OPEN) {
        out.push_str(&decode_entities(&rest[..i]));
        let inner = &rest[i + CDATA_OPEN.len()..];
        let end = inner.find(CDATA_CLOSE).unwrap_or(inner.len());
        out.push_str(&inner[..end]);
        rest = &inner[(end + CDATA_CLOSE.len()).min(inner.len())..];
    }
    out.push_str(&decode_entities(rest));
    Cow::Owned(out)
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
