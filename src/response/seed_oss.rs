//! Seed-OSS (ByteDance) calls (reference §3): Qwen3-Coder's `<function=…><parameter=…>` body in a
//! `<seed:tool_call>` wrapper,
//! `<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona</parameter>\n</function>\n</seed:tool_call>`.
//! Values are typed by the tools' schema as for Qwen3-Coder ([`super::qwen3_coder`]).
//!
//! Reasoning is `<seed:think>…</seed:think>` (budget notes `<seed:cot_budget_reflect>` sit inside),
//! split off by [`super::thinking`] before any call is read, so a complete `<seed:tool_call>`
//! example inside the reasoning is never a call (vLLM's test). The opening tag may be missing
//! (R1 style). A missing `</seed:tool_call>` (truncated reply) runs to the end and is reported.
//!
//! Doubao Seed 2.0 (Volcengine's API) writes the same wrapper around an attribute body,
//! `<seed:tool_call>\n<function name="exec">\n<parameter name="command" string="true">ls</parameter>\n</function>\n</seed:tool_call>`
//! (picoclaw#3153: leaked as text). A block whose body opens `<function name=` is read by
//! [`super::xml_invoke`]: `string="true"` keeps the text, `string="false"` decodes it as JSON,
//! otherwise (or when that fails) the schema rules type it, as for DeepSeek's DSML.

use serde_json::{Map, Value};

use super::qwen3_coder::parse_wrapped;
use super::scan::find_from;
use super::typing::{param_schema, type_value, Style};
use super::xml_invoke::{cut_closer, invokes, Invoke, Tags};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "seed_oss";
/// The call block's opener.
pub const OPEN: &str = "<seed:tool_call>";
const CLOSE: &str = "</seed:tool_call>";
/// How a Seed 2.0 attribute body opens.
const NAMED_OPEN: &str = "<function name=";
const NAMED: Tags = Tags {
    invoke: "<function",
    invoke_end: "</function>",
    param: "<parameter",
    param_end: "</parameter>",
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_wrapped(text, OPEN, CLOSE, NAME, cx);
    if memchr::memmem::find(text.as_bytes(), NAMED_OPEN.as_bytes()).is_some() {
        let before = out.blocks.len();
        read_named(text, cx, &mut out);
        if out.blocks.len() > before {
            out.blocks.sort_by_key(|b| b.start);
        }
        out.set_format_if_calls(NAME);
    }
    out
}

/// The wrapped blocks whose body opens [`NAMED_OPEN`] (the ones [`parse_wrapped`] skips).
fn read_named(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut at = 0;
    while let Some(start) = find_from(text, OPEN, at) {
        let body_at = start + OPEN.len();
        if !text[body_at..].trim_start().starts_with(NAMED_OPEN) {
            at = body_at;
            continue;
        }
        let (body_end, end, cut) = match find_from(text, CLOSE, body_at) {
            Some(c) => (c, c + CLOSE.len(), None),
            None => {
                out.problems
                    .push(format!("{NAME}: {CLOSE} missing (truncated reply)"));
                let cut = cut_closer(&text[body_at..], &NAMED, CLOSE).map(|k| body_at + k);
                (text.len(), text.len(), cut)
            }
        };
        let problems = &mut out.problems;
        let read = |hi: usize, problems: &mut Vec<String>| -> Vec<RawCall> {
            invokes(&text[body_at..hi], &NAMED, NAME, problems)
                .iter()
                .map(|inv| call(inv, cx))
                .collect()
        };
        if let Some(k) = cut {
            // A closing tag the end of the reply cut after whole calls (`…</parameter>`⏎
            // `</fun`): the calls end where it starts, and it is markup of its own, so the last
            // call is not taken for one cut inside its arguments ([`super::garbage`]).
            let mut read_problems = Vec::new();
            let calls = read(k, &mut read_problems);
            if !calls.is_empty() {
                problems.append(&mut read_problems);
                out.blocks
                    .push(Block::of_calls(start, k, calls, problems, String::new));
                out.blocks.push(Block {
                    start: k,
                    end,
                    calls: Vec::new(),
                    keep_raw: false,
                });
                at = end.max(body_at);
                continue;
            }
        }
        let calls = read(body_end, problems);
        out.blocks.push(Block::of_calls(start, end, calls, problems, || {
            format!("{NAME}: call block holds no readable <function name=…>; raw text kept in content")
        }));
        at = end.max(body_at);
    }
}

/// One attribute-form invoke as a call, each value typed by its `string` attribute.
fn call(inv: &Invoke, cx: &Ctx) -> RawCall {
    let style = Style::Schema { minimax: false };
    let mut map = Map::new();
    for p in &inv.params {
        let schema = param_schema(cx.tools, inv.name, p.name);
        let typed = match p.string() {
            Some("true") => Value::String(p.value.to_owned()),
            Some("false") => serde_json::from_str::<Value>(p.value)
                .unwrap_or_else(|_| type_value(p.value, schema, style)),
            _ => type_value(p.value, schema, style),
        };
        map.insert(p.name.to_owned(), typed);
    }
    RawCall {
        name: inv.name.to_owned(),
        arguments: Value::Object(map).to_string(),
        id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    const TRICKY: &str = "if a < b && c > d {\n  println!(\"北京 🚀\");\n}";

    #[test]
    fn reasoning_example_is_ignored_and_values_are_typed() {
        let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"properties": {
            "location": {"type": "string"}, "days": {"type": "integer"}, "code": {"type": "string"}}}}}]);
        let t = format!(
            "<seed:think>I could call <seed:tool_call>\n<function=x>\n</function>\n</seed:tool_call>\n\
             <seed:cot_budget_reflect>used 10 tokens</seed:cot_budget_reflect></seed:think>Checking.\n<seed:tool_call>\n<function=get_weather>\n\
             <parameter=location>Barcelona, Spain</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=code>\n{TRICKY}\n</parameter>\n\
             </function>\n</seed:tool_call><seed:tool_call><function=get_weather><parameter=location>007</parameter></function></seed:tool_call> Done."
        );
        let c = run(&t, None, None, Some(tools));
        assert_eq!(c.format, Some("seed_oss"));
        assert!(c.reasoning.contains("<seed:tool_call>") && c.reasoning.contains("used 10 tokens"));
        assert_eq!(c.content, "Checking. Done.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"location": "Barcelona, Spain", "days": 3, "code": TRICKY})
                ),
                ("get_weather", json!({"location": "007"}))
            ]
        );
        // Untyped: the number is inferred, "007" stays a string.
        let u = run(&t, None, None, None);
        assert_eq!(named(&u)[0].1["days"], json!(3));
        assert_eq!(named(&u)[1].1["location"], json!("007"));
    }

    #[test]
    fn seed_2_attribute_body_is_read_beside_the_oss_body() {
        let tools = json!([{"type": "function", "function": {"name": "exec", "parameters": {"properties": {
            "command": {"type": "string"}, "timeout": {"type": "integer"}}}}}]);
        let t = "先看目录。\n<seed:tool_call>\n  <function name=\"exec\">\n    \
                 <parameter name=\"command\" string=\"true\">ls -la /tmp/虎嗅网/ && echo \"<ok>\"</parameter>\n    \
                 <parameter name=\"timeout\" string=\"false\">30</parameter>\n    \
                 <parameter name=\"opts\" string=\"false\">{\"a\": [1]}</parameter>\n  </function>\n</seed:tool_call>\
                 <seed:tool_call><function=exec><parameter=timeout>007</parameter></function></seed:tool_call> 好了";
        let c = run(t, None, None, Some(tools));
        assert_eq!(c.format, Some("seed_oss"));
        assert_eq!(c.content, "先看目录。 好了");
        assert_eq!(
            named(&c),
            [
                (
                    "exec",
                    json!({"command": "ls -la /tmp/虎嗅网/ && echo \"<ok>\"", "timeout": 30, "opts": {"a": [1]}})
                ),
                ("exec", json!({"timeout": 7}))
            ]
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        // Cut off after its value: the call is kept and the cut reported.
        let cut = run(
            "<seed:tool_call>\n<function name=\"exec\">\n<parameter name=\"command\" string=\"true\">ls</parameter>\n",
            None,
            None,
            None,
        );
        assert_eq!(named(&cut), [("exec", json!({"command": "ls"}))]);
        assert!(!cut.problems.is_empty());
    }

    #[test]
    fn attribute_bodies_stay_linear() {
        use super::super::{clean_response, linearity::assert_grows_linearly, Options};
        // Many wrapped attribute-form blocks, and one block cut off after many parameters.
        let many = |n: usize| {
            "<seed:tool_call><function name=\"f\"><parameter name=\"q\" string=\"true\">北</parameter></function></seed:tool_call>"
                .repeat(n / 100 + 1)
        };
        let cut = |n: usize| {
            let params = "<parameter name=\"q\">北</parameter>".repeat(n / 40 + 1);
            format!("<seed:tool_call><function name=\"f\">{params}")
        };
        for (name, make) in [("many", &many as &dyn Fn(usize) -> String), ("cut", &cut)] {
            assert_grows_linearly(name, make, &|t| {
                let _ = clean_response(t, &Options::default());
            });
        }
    }

    #[test]
    fn truncated_call_and_r1_reasoning() {
        let t = "plan only\n</seed:think>\nOk <seed:tool_call><function=f><parameter=q>a & b";
        let c = run(t, None, Some("ByteDance-Seed/Seed-OSS-36B-Instruct"), None);
        assert_eq!(c.reasoning, "plan only");
        // Cut off inside its only value: no call.
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "Ok");
        assert!(!c.problems.is_empty());
    }
}
