//! Recognising a tool call that `resumeTaskFromHistory` flattened to text.
//!
//! The flattened form is a whole text block `<NAME>\n` + params + `\n</NAME>`, each param
//! `<k>\n` + value + `\n</k>`, params joined with `\n`, no escaping. A value may itself hold
//! `\n</k>` (a file that closes the same tag), so a param ends at the first `\n</k>` after which
//! the rest of the block still parses (the next `\n<k2>\n`, or the end); duplicate keys are
//! impossible in the JSON the text came from, so a split that repeats a key is rejected too.
//! Genuine XML-protocol calls (prose and call in one block, unpadded values) do not match.

use std::ops::Range;

use memchr::memmem;

/// A parsed flattened call: the name and each param's value (byte range in the text), with
/// exactly the one leading and one trailing newline of the format removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatCall<'a> {
    pub name: &'a str,
    pub params: Vec<(&'a str, Range<usize>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed<'a> {
    Call(FlatCall<'a>),
    /// It opens like a flattened call (`<NAME>\n<`) but never closes: cut off.
    Broken {
        name: &'a str,
    },
    NotACall,
}

/// Most work a pathological value may cost before the block is reported instead of parsed.
const BUDGET: usize = 10_000;

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':')
}

/// `<name>\n` at `p`: the name and the position after the newline. Keys may be any JSON key
/// without `<`, `>`, `/` first, or a newline.
fn opener(s: &str, p: usize, strict_name: bool) -> Option<(&str, usize)> {
    let b = s.as_bytes();
    if b.get(p) != Some(&b'<') || b.get(p + 1) == Some(&b'/') {
        return None;
    }
    let rest = &b[p + 1..];
    let end = rest
        .iter()
        .position(|&c| c == b'>' || c == b'\n' || c == b'<')?;
    if end == 0 || rest[end] != b'>' || rest.get(end + 1) != Some(&b'\n') {
        return None;
    }
    let name = s.get(p + 1..p + 1 + end)?;
    if strict_name && !name.bytes().all(is_name_char) {
        return None;
    }
    Some((name, p + end + 3))
}

fn params<'a>(
    body: &'a str,
    p: usize,
    out: &mut Vec<(&'a str, Range<usize>)>,
    budget: &mut usize,
) -> bool {
    let Some((key, v)) = opener(body, p, false) else {
        return false;
    };
    if out.iter().any(|(k, _)| *k == key) {
        return false;
    }
    let close = format!("\n</{key}>");
    let mut from = v;
    while let Some(at) = body
        .get(from..)
        .and_then(|rest| memmem::find(rest.as_bytes(), close.as_bytes()))
    {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let q = from + at;
        let after = q + close.len();
        out.push((key, v..q));
        if after == body.len() {
            return true;
        }
        if body.as_bytes().get(after) == Some(&b'\n') && params(body, after + 1, out, budget) {
            return true;
        }
        out.pop();
        from = q + 1;
    }
    false
}

/// Parses a whole text block as a flattened call.
pub fn parse(text: &str) -> Parsed<'_> {
    // Prefilter: a flattened call is a whole block that starts with `<`.
    if !text.starts_with('<') {
        return Parsed::NotACall;
    }
    let Some((name, body_start)) = opener(text, 0, true) else {
        return Parsed::NotACall;
    };
    let close = format!("\n</{name}>");
    let looks_flat = text
        .get(body_start..)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('<') && !rest.starts_with("</"));
    let body_end = text.len().saturating_sub(close.len());
    if !text.ends_with(&close[..]) || body_end + 1 < body_start {
        return if looks_flat {
            Parsed::Broken { name }
        } else {
            Parsed::NotACall
        };
    }
    // "<name>\n\n</name>": no params.
    if body_end + 1 == body_start {
        return Parsed::NotACall;
    }
    let Some(body) = text.get(body_start..body_end) else {
        return Parsed::NotACall;
    };
    if body.is_empty() {
        return Parsed::Call(FlatCall {
            name,
            params: Vec::new(),
        });
    }
    let mut out = Vec::new();
    let mut budget = BUDGET;
    if params(body, 0, &mut out, &mut budget) {
        let params = out
            .into_iter()
            .map(|(k, r)| (k, r.start + body_start..r.end + body_start))
            .collect();
        Parsed::Call(FlatCall { name, params })
    } else {
        // Closed but not padded: genuine XML-protocol text, or prose.
        Parsed::NotACall
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_style::flatten::call_text;
    use serde_json::json;

    fn values<'a>(t: &'a str, c: &FlatCall<'a>) -> Vec<(&'a str, &'a str)> {
        c.params.iter().map(|(k, r)| (*k, &t[r.clone()])).collect()
    }

    fn call(t: &str) -> FlatCall<'_> {
        match parse(t) {
            Parsed::Call(c) => c,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn parses_what_flattening_writes_and_strips_exactly_one_newline_each_side() {
        let t = call_text(
            "write_to_file",
            Some(&json!({"path": "a.ts", "content": "\n\nx\n\n"})),
        );
        let c = call(&t);
        assert_eq!(c.name, "write_to_file");
        assert_eq!(
            values(&t, &c),
            vec![("path", "a.ts"), ("content", "\n\nx\n\n")]
        );
    }

    #[test]
    fn empty_input_and_empty_values() {
        let t = call_text("attempt_completion", Some(&json!({})));
        assert_eq!(call(&t).params, vec![]);
        let t = call_text("x", Some(&json!({"a": "", "b": ""})));
        assert_eq!(values(&t, &call(&t)), vec![("a", ""), ("b", "")]);
    }

    #[test]
    fn a_value_holding_its_own_closing_tag_survives() {
        let content = "before\n</content>\nafter </path> and\n</content>";
        let t = call_text(
            "write_to_file",
            Some(&json!({"content": content, "path": "f"})),
        );
        assert_eq!(
            values(&t, &call(&t)),
            vec![("content", content), ("path", "f")]
        );
        let t = call_text("write_to_file", Some(&json!({"content": "a</content>b"})));
        assert_eq!(values(&t, &call(&t)), vec![("content", "a</content>b")]);
    }

    #[test]
    fn values_with_xml_and_unicode_are_verbatim() {
        let v = "if (a < b && c > d) { return \"<é😀>\" }";
        let t = call_text("apply_diff", Some(&json!({"diff": v})));
        assert_eq!(values(&t, &call(&t)), vec![("diff", v)]);
    }

    #[test]
    fn truncated_calls_are_broken_not_calls() {
        let t = call_text("write_to_file", Some(&json!({"path": "a", "content": "x"})));
        for cut in [t.len() - 3, t.len() - 20, 20] {
            assert!(
                matches!(
                    parse(&t[..cut]),
                    Parsed::Broken {
                        name: "write_to_file"
                    }
                ),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn prose_and_genuine_xml_protocol_text_are_not_flattened_calls() {
        assert_eq!(
            parse("I will read it.\n<read_file>\n<path>a</path>\n</read_file>"),
            Parsed::NotACall
        );
        assert_eq!(
            parse("<read_file>\n<path>a</path>\n</read_file>"),
            Parsed::NotACall
        );
        assert_eq!(parse("<div>\nhello\n</div>"), Parsed::NotACall);
        assert_eq!(parse(""), Parsed::NotACall);
        assert_eq!(parse("<"), Parsed::NotACall);
    }

    /// Every `\n</a>` is a candidate end and every `\n<b>\n` a candidate next param: 8x the
    /// repeats may take well under 64x the time (quadratic).
    #[test]
    fn a_pathological_value_is_read_in_linear_time() {
        fn timed(repeats: usize) -> f64 {
            let v = "\n</a>\n<b>\n\n</b>\n<a>\n".repeat(repeats);
            let t = format!("<x>\n<a>\n{v}\n</a>\n<a>\n1\n</a>\n</x>");
            crate::test_clock::best_of(3, || parse(&t)).0
        }
        let (small, large) = (timed(500), timed(4_000));
        assert!(
            large / small < 24.0,
            "500 repeats {small:.4}s, 4,000 {large:.4}s"
        );
    }

    mod props {
        //! Whatever the values (built from the format's own tags and newlines), parsing a
        //! flattened call never panics, and when it yields a call, writing that call again gives
        //! the same text: the split is a true reading of the block. Unambiguous values (no
        //! newline before a closing tag) come back exactly.
        use super::super::*;
        use crate::tool_style::flatten::call_text;
        use proptest::prelude::*;
        use serde_json::{Map, Value};

        const FRAGS: &[&str] = &[
            "a", "\n", "</a>", "<b>", "</b>", "\n</a>", "\n<b>\n", "é", "😀", "<", ">", " ",
        ];

        fn value() -> impl Strategy<Value = String> {
            proptest::collection::vec(proptest::sample::select(FRAGS), 0..8)
                .prop_map(|v| v.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            #[test]
            fn parse_is_a_true_reading(a in value(), b in value(), cut in 0usize..200) {
                let mut input = Map::new();
                input.insert("a".into(), Value::String(a.clone()));
                input.insert("b".into(), Value::String(b.clone()));
                let t = call_text("x", Some(&Value::Object(input)));
                if let Parsed::Call(c) = parse(&t) {
                    let mut back = Map::new();
                    for (k, r) in &c.params {
                        back.insert((*k).to_string(), Value::String(t[r.clone()].to_string()));
                    }
                    prop_assert_eq!(call_text(c.name, Some(&Value::Object(back))), t.clone());
                } else {
                    prop_assert!(false, "a whole flattened call must parse: {:?}", t);
                }
                let plain = |v: &str| !v.contains("\n</");
                if plain(&a) && plain(&b) {
                    let Parsed::Call(c) = parse(&t) else { unreachable!() };
                    let vals: Vec<&str> = c.params.iter().map(|(_, r)| &t[r.clone()]).collect();
                    prop_assert_eq!(vals, vec![a.as_str(), b.as_str()]);
                }
                let mut end = cut.min(t.len());
                while !t.is_char_boundary(end) {
                    end -= 1;
                }
                let _ = parse(&t[..end]);
            }
        }
    }
}
