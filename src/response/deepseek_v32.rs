//! DeepSeek-V3.2 (final) "DSML" calls (reference §7, `deepseek_v32`):
//!
//! ```text
//! <｜DSML｜function_calls>
//! <｜DSML｜invoke name="get_weather">
//! <｜DSML｜parameter name="location" string="true">Tokyo</｜DSML｜parameter>
//! <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//! ```
//!
//! Typing follows the model's own attribute, as smg and SGLang do (vLLM 0.14 ignores it):
//! `string="true"` keeps the text, `string="false"` decodes it as JSON (text that is not JSON falls
//! back to the schema rules, see [`super::typing`]); without the attribute the schema rules apply.
//! An invoke whose body is a bare JSON object (no parameters) takes that object as its arguments
//! (smg's `direct_json` case). An invoke without the section wrapper is read too, and a section
//! closer right after it (its opener lost) is removed with it; text around calls is kept. V3.2-Exp writes V3.1's form, which [`super::deepseek_v3`] reads.
//!
//! DeepSeek-V4 writes the same grammar with the block named `<｜DSML｜tool_calls>` (reported as
//! `deepseek_v4`); the bars of every tag may be spelled `｜｜`, `‖` or `|`, with spaces around
//! them, when a server mangles the special token ([`super::dsml`] maps them all to one spelling).
//! V4's `<｜DSML｜toolcall>NAME` followed by fenced JSON is read by [`super::dsml_toolcall`], a
//! `<function><name>NAME</name>` head with DSML closers by [`super::dsml_function`].

use serde_json::{Map, Value};

use super::dsml::{canonical, section_end};
use super::dsml_function;
use super::dsml_toolcall;
use super::dsml_values::Hidden;
use super::typing::{param_schema, type_value, Style};
use super::xml_invoke::{as_written, blocks, invokes, Invoke, Tags, Wrappers};
use super::{normalize_json_args, Block, Ctx, Parsed, RawCall};

const NAME: &str = "deepseek_v32";
const TAGS: Tags = Tags {
    invoke: "<｜DSML｜invoke",
    invoke_end: "</｜DSML｜invoke>",
    param: "<｜DSML｜parameter",
    param_end: "</｜DSML｜parameter>",
};
const WRAPPERS: Wrappers = Wrappers {
    section: Some(("<｜DSML｜function_calls>", "</｜DSML｜function_calls>")),
    call: None,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let canon = canonical(text);
    let mut out = parse_canonical(&canon.text, cx, &|v| canon.as_written(text, v));
    for b in &mut out.blocks {
        b.start = canon.orig(b.start);
        b.end = canon.orig(b.end);
    }
    if canon.v4 && out.format.is_some() {
        out.format = Some(super::dsml::FORMAT);
    }
    out
}

/// `written` gives a piece of `text` (a value) as the model wrote it ([`super::dsml::Canonical::as_written`]).
///
/// The parameter values and the other DSML readers' blocks are text to the invoke scan: they
/// are hidden from it ([`super::dsml_values`]), the other readers reading first.
fn parse_canonical<'o>(text: &'o str, cx: &Ctx, written: &Written<'o>) -> Parsed {
    let mut spans = super::dsml_values::value_spans(text, &TAGS);
    let values = Hidden::new(text, &spans);
    let mut theirs = Parsed::default();
    read_others(
        values.text(),
        cx,
        &mut theirs,
        &|v| match values.in_text(v) {
            Some(t) => written(t).or(Some(t)),
            None => written(v),
        },
    );
    spans.extend(theirs.blocks.iter().map(|b| (b.start, b.end)));
    let hidden = Hidden::new(text, &spans);
    let scan = hidden.text();
    let written: &Written = &|v| match hidden.in_text(v) {
        Some(t) => written(t).or(Some(t)),
        None => written(v),
    };
    let mut out = Parsed::default();
    out.blocks = blocks(
        scan,
        &WRAPPERS,
        &TAGS,
        NAME,
        &mut out.problems,
        |body, pr| {
            invokes(body, &TAGS, NAME, pr)
                .into_iter()
                .map(|inv| call(&inv, cx, pr, written))
                .collect()
        },
    );
    // A section opened again before its closer ends after its last whole invoke.
    if let Some(section) = WRAPPERS.section {
        out.blocks =
            super::dsml_reopened::split(scan, std::mem::take(&mut out.blocks), section, &TAGS);
    }
    // A section closer right after an invoke with no section opener before it is the call's.
    for b in &mut out.blocks {
        if scan[b.start..].starts_with(TAGS.invoke) {
            b.end = section_end(scan, b.end);
            // A garbled section opener on the line before goes with it.
            if let Some(s) = super::dsml_garbled_opener::start_before(&scan[..b.start]) {
                b.start = s;
            }
        }
    }
    if out.blocks.iter().any(|b| !b.calls.is_empty()) {
        out.format = Some(NAME);
    }
    out.blocks = merge(std::mem::take(&mut out.blocks), theirs.blocks);
    out.problems.append(&mut theirs.problems);
    out.format = out.format.or(theirs.format);
    out
}

/// The invoke scan's blocks (`scan`) and the other readers' (`theirs`, sorted by start): a
/// block of theirs inside a block of invokes is dropped; what the invoke scan made of their stray
/// closing tags (a block with no call overlapping theirs) belongs to them. One pass over both.
fn merge(mut scan: Vec<Block>, theirs: Vec<Block>) -> Vec<Block> {
    scan.sort_by_key(|b| b.start);
    let mut dropped = vec![false; scan.len()];
    let mut out = Vec::with_capacity(scan.len() + theirs.len());
    let mut j = 0;
    for b in theirs {
        while scan.get(j).is_some_and(|o| o.end <= b.start) {
            j += 1;
        }
        let over = (j..scan.len())
            .take_while(|&k| scan[k].start < b.end)
            .filter(|&k| scan[k].end > b.start);
        if over.clone().any(|k| !scan[k].calls.is_empty()) {
            continue;
        }
        over.for_each(|k| dropped[k] = true);
        out.push(b);
    }
    out.extend(
        scan.into_iter()
            .zip(dropped)
            .filter(|(_, d)| !d)
            .map(|(b, _)| b),
    );
    out.sort_by_key(|b| b.start);
    out
}

/// The DSML readers other than the invoke scan: `toolcall` blocks, named-tag calls and
/// `<function>` heads, in that order.
fn read_others(text: &str, cx: &Ctx, out: &mut Parsed, written: &Written) {
    if memchr::memmem::find(text.as_bytes(), dsml_toolcall::OPEN.as_bytes()).is_some() {
        dsml_toolcall::read(text, cx, out, written);
        out.blocks.sort_by_key(|b| b.start);
    }
    super::dsml_named::read(text, cx, out, written);
    if memchr::memmem::find(text.as_bytes(), dsml_function::OPEN.as_bytes()).is_some() {
        dsml_function::read(text, cx, out, written);
        out.blocks.sort_by_key(|b| b.start);
    }
}

/// `problems`, read from a section alone that the section opener at the start of `next` (any
/// spelling) reopened ([`super::dsml_reopened`]), without the report of its missing closer: the
/// reopening ended it.
pub fn reopened(next: &str, problems: &mut Vec<String>) {
    let opener = next.strip_prefix('<').and_then(super::dsml::head);
    if let (Some((_, "function_calls")), Some((_, close))) = (opener, WRAPPERS.section) {
        let m = super::xml_invoke::missing(NAME, close);
        if let Some(i) = problems.iter().position(|p| *p == m) {
            problems.remove(i);
        }
    }
}

/// A piece of the canonical text as the model wrote it, when the spelling map changed it
/// ([`super::dsml::Canonical::as_written`]); every DSML reader takes its values through it.
pub type Written<'o> = dyn Fn(&str) -> Option<&'o str> + 'o;

fn call(inv: &Invoke, cx: &Ctx, problems: &mut Vec<String>, written: &Written) -> RawCall {
    let body = inv.body.trim();
    let direct = written(body).unwrap_or(body);
    let arguments = if inv.params.is_empty() && direct.starts_with('{') {
        normalize_json_args(direct, NAME, problems)
    } else {
        let mut map = Map::new();
        for p in &inv.params {
            let typed = typed_param(
                cx,
                inv.name,
                p.name,
                p.string(),
                written(p.value).unwrap_or(p.value),
            );
            map.insert(p.name.to_owned(), typed);
        }
        Value::Object(map).to_string()
    };
    RawCall {
        name: inv.name.to_owned(),
        arguments,
        id: None,
    }
}

/// A parameter's value typed as DSML types it: by its `string` attribute (`"true"` keeps the
/// text, `"false"` decodes JSON), else (or when that JSON does not parse) by the tool's schema;
/// a CDATA section is read as its inside ([`super::cdata`]), as text when nothing types it.
pub fn typed_param(cx: &Ctx, func: &str, name: &str, string: Option<&str>, value: &str) -> Value {
    let schema = param_schema(cx.tools, func, name);
    // A value in CDATA (ds2api issue 389) is the text inside it, and text (character data)
    // when neither the attribute nor a schema types it. Only a value that opens with a section:
    // one inside (an XML file's text being written) is the file's.
    let text = value.starts_with(super::cdata::OPEN);
    let value = match text {
        true => super::cdata::read(value, as_written),
        false => as_written(value),
    };
    let value = &*value;
    match string {
        Some("true") => Value::String(value.to_owned()),
        None if text && schema.is_none() => Value::String(value.to_owned()),
        Some("false") => serde_json::from_str::<Value>(value)
            .unwrap_or_else(|_| type_value(value, schema, Style::Schema { minimax: false })),
        _ => type_value(value, schema, Style::Schema { minimax: false }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn string_attribute_types_values_and_text_is_kept() {
        let t = "Let me check that.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n\
                 <｜DSML｜parameter name=\"location\" string=\"true\">東京 <&> 42</｜DSML｜parameter>\n\
                 <｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n\
                 <｜DSML｜parameter name=\"zip\" string=\"true\">007</｜DSML｜parameter>\n\
                 <｜DSML｜parameter name=\"opts\" string=\"false\">{\"units\": [\"c\"]}</｜DSML｜parameter>\n</｜DSML｜invoke>\n\
                 <｜DSML｜invoke name=\"now\">\n{\"tz\": \"UTC\"}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\nDone.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("deepseek_v32"));
        assert_eq!(c.content, "Let me check that.\nDone.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"location": "東京 <&> 42", "days": 3, "zip": "007", "opts": {"units": ["c"]}})
                ),
                ("now", json!({"tz": "UTC"}))
            ]
        );
    }

    #[test]
    fn schema_without_attribute_and_truncation() {
        let tools = json!([{"function": {"name": "f", "parameters": {"properties": {"n": {"type": "string"}}}}}]);
        let t = "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"n\">42</｜DSML｜parameter><｜DSML｜parameter name=\"m\">line\nmore";
        let c = run(t, None, None, Some(tools));
        // Cut off inside `m`: no call (its value may be partial).
        assert!(c.tool_calls.is_empty());
        assert!(c.problems.len() >= 3);
        assert_eq!(c.content, "");
    }
}
