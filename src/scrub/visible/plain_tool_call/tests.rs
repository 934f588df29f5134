use super::*;

fn s(t: &str) -> String {
    strip_plain_text_tool_calls(t, true).into_owned()
}

/// (input, expected): each call shape, and its twin that stays.
const CASES: &[(&str, &str)] = &[
    // Qwen3-Coder XML-ish
    (
        "好的。\n<function=read>\n<parameter=path>\na.md\n</parameter>\n</function>\n读完了。",
        "好的。\n读完了。",
    ),
    (
        "```\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n```",
        "```\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n```",
    ),
    (
        "Call it as <function=read> in prose.",
        "Call it as <function=read> in prose.",
    ),
    // [NAME] + JSON + closing marker
    (
        "查询：\n[get_weather]\n{\"city\":\"北京\"}\n[END_TOOL_REQUEST]\n晴。",
        "查询：\n晴。",
    ),
    ("[search]\n{\"q\":\"x\"}\n[/search]", ""),
    // Not JSON, or no closing marker: text.
    (
        "[note]\n{not json}\n[/note]\nrest",
        "[note]\n{not json}\n[/note]\nrest",
    ),
    (
        "[Intro]\n{\"a\":1}\nplain words after",
        "[Intro]\n{\"a\":1}\nplain words after",
    ),
    // [tool:NAME]
    ("a\n[tool:exec] {\"cmd\":\"ls\"}\nb", "a\nb"),
    (
        "a\n  [tool:exec] {\"cmd\":\"ls\"} [tool:read] {\"p\":1}\nb",
        "a\nb",
    ),
    (
        "see `[tool:exec] {\"cmd\":\"ls\"}` here",
        "see `[tool:exec] {\"cmd\":\"ls\"}` here",
    ),
    // Harmony
    (
        "<|channel|>commentary to=functions.x code",
        "<|channel|>commentary to=functions.x code",
    ),
    (
        "先搜索\ncommentary to=search code <|message|>{\"q\":\"天气\"}<|call|>\n好了",
        "先搜索\n好了",
    ),
    // A call must start its line.
    (
        "text [tool:exec] {\"cmd\":\"ls\"}",
        "text [tool:exec] {\"cmd\":\"ls\"}",
    ),
    // A reply cut inside a possible call keeps the rest as written.
    (
        "[tool:exec] {\"a\":1}\n[get_weather]\n{\"city\":",
        "[get_weather]\n{\"city\":",
    ),
];

#[test]
fn calls_go_and_their_twins_stay() {
    for (input, want) in CASES {
        assert_eq!(s(input), *want, "{input:?}");
    }
}

#[test]
fn text_without_a_call_line_is_borrowed() {
    for t in ["plain 中文 reply", "[link](x) and [b]\nnot a call", ""] {
        assert!(matches!(
            strip_plain_text_tool_calls(t, true),
            Cow::Borrowed(_)
        ));
    }
}

#[test]
fn without_code_awareness_a_call_in_a_fence_goes_too() {
    let t = "```\n[tool:exec] {\"cmd\":\"ls\"}\n```";
    assert_eq!(strip_plain_text_tool_calls(t, false), "```\n```");
}
