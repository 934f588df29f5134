//! Seed-OSS (ByteDance) calls (reference §3): Qwen3-Coder's `<function=…><parameter=…>` body in a
//! `<seed:tool_call>` wrapper,
//! `<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona</parameter>\n</function>\n</seed:tool_call>`.
//! Values are typed by the tools' schema as for Qwen3-Coder ([`super::qwen3_coder`]).
//!
//! Reasoning is `<seed:think>…</seed:think>` (budget notes `<seed:cot_budget_reflect>` sit inside),
//! split off by [`super::thinking`] before any call is read, so a complete `<seed:tool_call>`
//! example inside the reasoning is never a call (vLLM's test). The opening tag may be missing
//! (R1 style). A missing `</seed:tool_call>` (truncated reply) runs to the end and is reported.

use super::qwen3_coder::parse_wrapped;
use super::{Ctx, Parsed};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    parse_wrapped(
        text,
        "<seed:tool_call>",
        "</seed:tool_call>",
        "seed_oss",
        cx,
    )
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
