//! End-to-end tests of [`clean_response`]: per family, text around calls, parallel calls, values
//! with `<`, `&`, newlines and non-ASCII, typed and untyped values, truncated output, reasoning,
//! modes, and replies that must never be taken for calls.

use super::*;
use serde_json::json;

fn auto() -> Options {
    Options::default()
}

fn with_tools(tools: Value) -> Options {
    Options {
        tools: Some(tools),
        ..Options::default()
    }
}

fn named(c: &Cleaned) -> Vec<(&str, Value)> {
    c.tool_calls
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                serde_json::from_str(&t.arguments).unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn typed_tools() -> Value {
    json!([{"type": "function", "function": {"name": "calc", "parameters": {"type": "object", "properties": {
        "n": {"type": "integer"}, "ratio": {"type": "number"}, "flag": {"type": "boolean"},
        "code": {"type": "string"}, "opts": {"type": "object"}}}}}])
}

const TRICKY: &str = "if a < b && c > d {\n  println!(\"北京 🚀\");\n}";

// ---------- no markers / never a call ----------

#[test]
fn plain_reply_is_returned_unchanged() {
    for t in ["你好，现在是下午3点。", "", "  spaced  ", "a < b > c & d"] {
        let c = clean_response(t, &auto());
        assert_eq!(c.content, t);
        assert!(c.tool_calls.is_empty() && c.problems.is_empty() && c.format.is_none());
    }
}

#[test]
fn ordinary_json_or_code_is_never_a_call_in_auto_mode() {
    let replies = [
        "Here is the payload:\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```",
        "[get_weather(city=\"London\")]",
        "[TOOL_CALLS] is how Mistral does it; <|python_tag|>{\"name\": \"x\", \"parameters\": {}}",
        "Use `<function=NAME>` and `<invoke name=\"x\">` in your prompt.",
        "The <tool_call> tag wraps a call in Qwen's template.",
        "<html><body><p>x</p></body></html>",
    ];
    for t in replies {
        let c = clean_response(t, &auto());
        assert_eq!(c.content, t, "{t}");
        assert!(c.tool_calls.is_empty(), "{t}");
        assert_eq!(c.format, None, "{t}");
    }
}

// ---------- Hermes ----------

#[test]
fn hermes_parallel_calls_with_text_around() {
    let t = "Let me check both.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n\
             and then\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}\n</tool_call>\nDone!";
    let c = clean_response(t, &auto());
    assert_eq!(c.format, Some("hermes"));
    assert_eq!(c.content, "Let me check both.\nand then\nDone!");
    assert_eq!(
        named(&c),
        [
            ("get_weather", json!({"city": "Paris"})),
            ("get_weather", json!({"city": "北京"}))
        ]
    );
    assert_eq!(c.tool_calls[1].arguments, r#"{"city":"北京"}"#);
    assert!(c.tool_calls[0].id.starts_with("call_0_"));
    assert!(c.tool_calls[1].id.starts_with("call_1_"));
}

#[test]
fn hermes_values_keep_their_json_types_and_special_characters() {
    let args = json!({"code": TRICKY, "n": 3, "ok": true, "nested": {"a": [1, null]}});
    let t = format!(
        "<tool_call>{}</tool_call>",
        json!({"name": "run", "arguments": args})
    );
    let c = clean_response(&t, &auto());
    assert_eq!(named(&c), [("run", args)]);
    assert_eq!(c.content, "");
}

#[test]
fn hermes_truncated_complete_json_gives_the_call() {
    let t = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}";
    let c = clean_response(t, &auto());
    assert_eq!(named(&c), [("f", json!({"a": 1}))]);
    assert_eq!(c.content, "Sure.");
    assert_eq!(c.problems.len(), 1);
}

#[test]
fn hermes_truncated_json_keeps_raw_text_in_content() {
    let t = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": ";
    let c = clean_response(t, &auto());
    assert!(c.tool_calls.is_empty());
    assert_eq!(c.content, t);
    assert_eq!(c.problems.len(), 1);
    // Strip mode removes the markup anyway.
    let s = clean_response(
        t,
        &Options {
            tool_calls: Mode::Strip,
            ..auto()
        },
    );
    assert_eq!(s.content, "Sure.");
}

#[test]
fn hermes_malformed_arguments_are_kept_as_a_string_and_reported() {
    let t = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 'x'}}</tool_call>";
    let c = clean_response(t, &auto());
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].arguments, "{\"a\": 'x'}");
    assert_eq!(c.problems.len(), 1);
}

// ---------- Qwen3-Coder ----------

#[test]
fn qwen3_coder_parallel_typed_and_untyped() {
    let t = format!(
        "Running it.\n<tool_call>\n<function=calc>\n<parameter=n>\n42\n</parameter>\n<parameter=ratio>\n2.0\n</parameter>\n\
         <parameter=flag>\nTrue\n</parameter>\n<parameter=code>\n{TRICKY}\n</parameter>\n<parameter=extra>\n7\n</parameter>\n\
         </function>\n</tool_call>\n<tool_call>\n<function=获取天气>\n<parameter=城市>\n北京 & 上海\n</parameter>\n</function>\n</tool_call>\nAfter."
    );
    let c = clean_response(&t, &with_tools(typed_tools()));
    assert_eq!(c.format, Some("qwen3_coder"));
    assert_eq!(c.content, "Running it.\nAfter.");
    assert_eq!(
        named(&c),
        [
            (
                "calc",
                json!({"n": 42, "ratio": 2, "flag": true, "code": TRICKY, "extra": 7})
            ),
            ("获取天气", json!({"城市": "北京 & 上海"}))
        ]
    );
    // Without a schema, values are inferred: "42" is a number, the code stays a string.
    let u = clean_response(&t, &auto());
    assert_eq!(named(&u)[0].1["n"], json!(42));
    assert_eq!(named(&u)[0].1["code"], json!(TRICKY));
    assert_eq!(named(&u)[0].1["flag"], json!(true));
}

#[test]
fn qwen3_coder_truncated_keeps_what_was_written() {
    let t =
        "<tool_call>\n<function=calc>\n<parameter=code>\nprint(1)\n</parameter>\n<parameter=n>\n4";
    let c = clean_response(t, &with_tools(typed_tools()));
    assert_eq!(named(&c), [("calc", json!({"code": "print(1)", "n": 4}))]);
    assert_eq!(c.content, "");
    assert_eq!(c.problems.len(), 1);
}

#[test]
fn qwen3_coder_unwrapped_form_from_the_model_name() {
    let t = "Ok.\n<function=ls>\n<parameter=path>\n/tmp\n</parameter>\n</function>";
    assert!(clean_response(t, &auto()).tool_calls.is_empty());
    let o = Options {
        model: Some("qwen/Qwen3-Coder-480B".into()),
        ..auto()
    };
    let c = clean_response(t, &o);
    assert_eq!(named(&c), [("ls", json!({"path": "/tmp"}))]);
    assert_eq!(c.content, "Ok.");
    let f = Options {
        format: Some("qwen3_coder".into()),
        ..auto()
    };
    assert_eq!(
        clean_response(t, &f).tool_calls.len(),
        0,
        "explicit format without the model hint keeps the wrapper rule"
    );
}

// ---------- GLM ----------

#[test]
fn glm_parallel_with_text_and_typing() {
    let t = "<think>用户想要天气</think>我来查一下。\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n\
             <arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>refresh_cache</tool_call>稍等。";
    let c = clean_response(t, &auto());
    assert_eq!(c.format, Some("glm45"));
    assert_eq!(c.reasoning, "用户想要天气");
    assert_eq!(c.content, "我来查一下。稍等。");
    assert_eq!(
        named(&c),
        [
            ("get_weather", json!({"city": "北京", "days": 3})),
            ("refresh_cache", json!({}))
        ]
    );
}

#[test]
fn glm47_string_schema_and_special_characters() {
    let tools = json!([{"function": {"name": "write", "parameters": {"properties": {"body": {"type": "string"}, "n": {"type": "string"}}}}}]);
    let t = format!("<tool_call>write<arg_key>body</arg_key><arg_value>{TRICKY}</arg_value><arg_key>n</arg_key><arg_value>42</arg_value></tool_call>");
    let c = clean_response(&t, &with_tools(tools));
    assert_eq!(c.format, Some("glm47"));
    assert_eq!(named(&c), [("write", json!({"body": TRICKY, "n": "42"}))]);
}

#[test]
fn glm_truncated_call() {
    let t = "Checking.<tool_call>search<arg_key>q</arg_key><arg_value>rust lang";
    let c = clean_response(t, &auto());
    assert_eq!(named(&c), [("search", json!({"q": "rust lang"}))]);
    assert_eq!(c.content, "Checking.");
    assert!(!c.problems.is_empty());
}

// ---------- MiniMax-M2 ----------

#[test]
fn minimax_parallel_calls_typed_with_text_around() {
    let t = format!(
        "</think>\n让我帮你查询。\n<minimax:tool_call>\n<invoke name=\"calc\">\n<parameter name=\"n\">7</parameter>\n\
         <parameter name=\"code\">\n{TRICKY}\n</parameter>\n<parameter name=\"flag\">on</parameter>\n</invoke>\n\
         <invoke name=\"calc\">\n<parameter name=\"opts\">{{\"k\": [1, 2]}}</parameter>\n</invoke>\n</minimax:tool_call>\n完成后告诉你。"
    );
    let c = clean_response(&t, &with_tools(typed_tools()));
    assert_eq!(c.format, Some("minimax_m2"));
    assert_eq!(c.content, "让我帮你查询。\n完成后告诉你。");
    assert_eq!(
        named(&c),
        [
            ("calc", json!({"n": 7, "code": TRICKY, "flag": true})),
            ("calc", json!({"opts": {"k": [1, 2]}}))
        ]
    );
    let u = clean_response(&t, &auto());
    assert_eq!(
        named(&u)[1].1,
        json!({"opts": "{\"k\": [1, 2]}"}),
        "untyped: JSON text stays a string"
    );
}

#[test]
fn minimax_truncated_and_entities_kept() {
    let t = "查询中<minimax:tool_call><invoke name=\"s\"><parameter name=\"q\">a &amp; b</parameter><parameter name=\"r\">cut";
    let c = clean_response(t, &auto());
    assert_eq!(named(&c), [("s", json!({"q": "a &amp; b", "r": "cut"}))]);
    assert_eq!(c.content, "查询中");
    assert!(c.problems.len() >= 2);
}

// ---------- DeepSeek ----------

#[test]
fn deepseek_v3_parallel_with_fence() {
    let t = "Checking.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"Tokyo\"}\n```<｜tool▁call▁end｜>\n\
             <｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\n  \"location\": \"東京 <&>\"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>";
    let c = clean_response(t, &auto());
    assert_eq!(c.format, Some("deepseek_v3"));
    assert_eq!(c.content, "Checking.");
    assert_eq!(
        named(&c),
        [
            ("get_weather", json!({"location": "Tokyo"})),
            ("get_weather", json!({"location": "東京 <&>"}))
        ]
    );
}

#[test]
fn deepseek_v31_with_r1_reasoning_and_suffix() {
    let t = "Need the weather <tool_call>{\"name\": \"x\"}</tool_call>\n</think>\n\nOK <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"days\": 3, \"city\": \"Paris\\nFrance\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜> then more";
    // A closing tag alone is R1-style reasoning when the model is one that writes it that way.
    let r1 = Options {
        model: Some("deepseek/deepseek-reasoner".into()),
        ..auto()
    };
    let c = clean_response(t, &r1);
    assert_eq!(c.format, Some("deepseek_v31"));
    assert_eq!(
        c.reasoning,
        "Need the weather <tool_call>{\"name\": \"x\"}</tool_call>"
    );
    assert_eq!(c.content, "OK then more");
    assert_eq!(
        named(&c),
        [("get_weather", json!({"days": 3, "city": "Paris\nFrance"}))]
    );
}

#[test]
fn deepseek_truncated_and_malformed() {
    let t = "A<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": tru";
    let c = clean_response(t, &auto());
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].arguments, "{\"a\": tru");
    assert_eq!(c.content, "A");
    assert!(c.problems.len() >= 2);
}

// ---------- Kimi-K2 ----------

#[test]
fn kimi_parallel_calls_keep_model_ids() {
    let t = "<think>plan</think>Checking both cities.<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Beijing\"}<|tool_call_end|>\n\
             <|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{\"city\": \"<上海> & co\\n\"}<|tool_call_end|>\n<|tool_calls_section_end|>";
    let c = clean_response(t, &auto());
    assert_eq!(c.format, Some("kimi_k2"));
    assert_eq!(c.content, "Checking both cities.");
    assert_eq!(c.reasoning, "plan");
    let ids: Vec<_> = c.tool_calls.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["functions.get_weather:0", "functions.get_weather:1"]);
    assert_eq!(named(&c)[1].1, json!({"city": "<上海> & co\n"}));
}

#[test]
fn kimi_truncated_call() {
    let t = "x<|tool_calls_section_begin|><|tool_call_begin|>functions.f:3<|tool_call_argument_begin|>{\"a\": 1}";
    let c = clean_response(t, &auto());
    assert_eq!(named(&c), [("f", json!({"a": 1}))]);
    assert_eq!(c.content, "x");
    assert!(!c.problems.is_empty());
}

// ---------- reasoning and modes ----------

#[test]
fn calls_inside_reasoning_are_never_calls() {
    let t = "<think>Example: <minimax:tool_call><invoke name=\"x\"></invoke></minimax:tool_call></think>The answer is 4.";
    let c = clean_response(t, &auto());
    assert!(c.tool_calls.is_empty());
    assert_eq!(c.format, None);
    assert_eq!(c.content, "The answer is 4.");
    assert!(c.reasoning.starts_with("Example: <minimax:tool_call>"));
}

#[test]
fn thinking_modes() {
    let t = "<think>\nhmm\n</think>\n\nHello";
    let e = clean_response(t, &auto());
    assert_eq!((e.content.as_str(), e.reasoning.as_str()), ("Hello", "hmm"));
    let s = clean_response(
        t,
        &Options {
            thinking: Mode::Strip,
            ..auto()
        },
    );
    assert_eq!((s.content.as_str(), s.reasoning.as_str()), ("Hello", ""));
    let k = clean_response(
        t,
        &Options {
            thinking: Mode::Keep,
            ..auto()
        },
    );
    assert_eq!(k.content, t);
    let m = clean_response("A <think>x</think> B", &auto());
    assert_eq!(m.content, "A B");
    let u = clean_response("Hi <think>cut off", &auto());
    assert_eq!(
        (u.content.as_str(), u.reasoning.as_str()),
        ("Hi", "cut off")
    );
    assert_eq!(u.problems.len(), 1);
}

#[test]
fn keep_mode_with_reasoning_still_ignores_calls_inside_it() {
    let t = "<think><tool_call>{\"name\": \"a\"}</tool_call></think>x<tool_call>{\"name\": \"b\"}</tool_call>";
    let c = clean_response(
        t,
        &Options {
            thinking: Mode::Keep,
            ..auto()
        },
    );
    assert_eq!(
        c.content,
        "<think><tool_call>{\"name\": \"a\"}</tool_call></think>x"
    );
    assert_eq!(named(&c), [("b", json!({}))]);
}

#[test]
fn tool_call_modes() {
    let t = "Hi <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> there";
    let s = clean_response(
        t,
        &Options {
            tool_calls: Mode::Strip,
            ..auto()
        },
    );
    assert_eq!(s.content, "Hi there");
    assert!(s.tool_calls.is_empty());
    let k = clean_response(
        t,
        &Options {
            tool_calls: Mode::Keep,
            ..auto()
        },
    );
    assert_eq!(k.content, t);
    assert!(k.tool_calls.is_empty() && k.format.is_none());
}

#[test]
fn explicit_format_restricts_parsing() {
    let t = "<minimax:tool_call><invoke name=\"a\"></invoke></minimax:tool_call><tool_call>{\"name\": \"b\"}</tool_call>";
    let c = clean_response(
        t,
        &Options {
            format: Some("hermes".into()),
            ..auto()
        },
    );
    assert_eq!(named(&c), [("b", json!({}))]);
    let u = clean_response(
        t,
        &Options {
            format: Some("no_such_format".into()),
            ..auto()
        },
    );
    assert_eq!(u.content, t);
    assert_eq!(u.problems.len(), 1);
}

#[test]
fn ids_are_deterministic_and_distinct() {
    let t = "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}}</tool_call><tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}}</tool_call>";
    let a = clean_response(t, &auto());
    assert_eq!(a, clean_response(t, &auto()));
    assert_ne!(a.tool_calls[0].id, a.tool_calls[1].id);
    assert_eq!(call_id(0, "a", "{}"), call_id(0, "a", "{}"));
    assert_ne!(call_id(0, "a", "{}"), call_id(0, "b", "{}"));
}

#[test]
fn junk_never_panics() {
    let markers = [
        "<tool_call>",
        "</tool_call>",
        "<function=",
        "<parameter=",
        "</parameter>",
        "<arg_key>",
        "<arg_value>",
        "<minimax:tool_call>",
        "<invoke name=",
        "<parameter name=",
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        "<|tool_call_argument_begin|>",
        "<think>",
        "</think>",
        "{",
        "\"name\"",
        ":",
        "}",
        ">",
        "北",
        "\n",
        "```json",
        "<seed:tool_call>",
        "<tool_calls>",
        "</tool_calls>",
        "[",
        "]",
        "(",
        ")",
        "f(a=",
        "'",
        "[TOOL_CALLS]",
        "[ARGS]",
        "[THINK]",
        "functools",
        "<|python_tag|>",
        "<|python_start|>",
        "<function_calls>",
        "<|channel|>",
        "<|start|>assistant",
        "<|message|>",
        "<|call|>",
        " to=functions.f",
        "assistantcommentary to=functions.g json",
        "assistantfinal",
        "analysis",
        "<｜DSML｜invoke name=\"x\">",
        "<｜DSML｜parameter name=\"y\" string=\"false\">",
        "<steptml:invoke name=\"s\">",
        "<｜tool_calls_begin｜>",
        "<longcat_tool_call>",
        "<|action_start|><|plugin|>",
        "<function_call>",
        "function call<|role_sep|>",
        "<|tool_call|>",
        "Here is my thought process:",
        "<answer>",
        "\"parameters\"",
    ];
    // A deterministic pseudo-random walk over marker soups.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..(seed % 12) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push_str(markers[(seed % markers.len() as u64) as usize]);
        }
        seed = seed.wrapping_add(1);
        for format in FORMATS.iter().copied().chain(["auto"]) {
            for model in ["qwen3-coder", "gpt-oss", "granite"] {
                let o = Options {
                    format: Some(format.to_owned()),
                    model: Some(model.into()),
                    ..auto()
                };
                let c = clean_response(&s, &o);
                assert!(c.content.len() <= s.len() + 1, "{s:?}");
            }
            // Keeping both leaves the text exactly as it was, whatever the format.
            let keep = Options {
                format: Some(format.to_owned()),
                model: Some("granite".into()),
                tool_calls: Mode::Keep,
                thinking: Mode::Keep,
                ..auto()
            };
            assert_eq!(clean_response(&s, &keep).content, s);
        }
    }
}

#[test]
fn openers_without_closers_stay_linear() {
    // Each of these would take minutes if any search rescanned the rest of the text per opener.
    let units = [
        "<tool_call>{",
        "<tool_call>{\"name\": \"a\"}",
        "<tool_call>f<arg_key>k</arg_key><arg_value>",
        "<tool_call><function=f><parameter=a>",
        "<minimax:tool_call><invoke name=\"x\"><parameter name=\"y\">",
        "<invoke name=\"x\"><parameter name=\"y\">",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>",
        "<|tool_call_begin|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>f:1<|tool_call_argument_begin|>",
        "<think>",
        "</think>",
        "<function=f>",
    ];
    for unit in units {
        let text = unit.repeat(1_000_000 / unit.len());
        for format in [None, Some("minimax_m2"), Some("qwen3_coder")] {
            let o = Options {
                format: format.map(str::to_owned),
                model: Some("qwen3-coder".into()),
                ..auto()
            };
            let c = clean_response(&text, &o);
            assert!(c.content.len() + c.reasoning.len() <= text.len());
        }
    }
}

#[test]
fn every_family_stays_linear_on_openers_without_closers() {
    // A quadratic scan in any family would take minutes here, even at 100 KB.
    let units = [
        "<tool_call>{",
        "<tool_call>[",
        "<tool_calls>{",
        "<tool_calls>[",
        "[TOOL_CALLS]f{",
        "[TOOL_CALLS]f[ARGS]{\"a\": \"",
        "[TOOL_CALLS][{",
        "functools[{",
        "<|python_tag|>{",
        "{\"a\": \"{",
        "[f(a=\"",
        "[f(a=[",
        "<|python_start|>[f(",
        "<function_calls>\nf(",
        "<|start|>assistant<|channel|>commentary to=functions.f json<|message|>{",
        "assistantcommentary to=functions.f json{",
        "analysis",
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\">",
        "<｜tool_calls_begin｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">",
        "<seed:tool_call><function=f><parameter=a>",
        "Here is my thought process:",
        "[THINK]",
        "<function_call>{",
        "function call<|role_sep|>{",
        "<|action_start|><|plugin|>{",
        "<longcat_tool_call>{",
    ];
    for unit in units {
        let text = unit.repeat(100_000 / unit.len());
        for format in FORMATS.iter().copied().chain(["auto"]) {
            let o = Options {
                format: Some(format.to_owned()),
                ..auto()
            };
            let c = clean_response(&text, &o);
            assert!(
                c.content.len() + c.reasoning.len() <= text.len(),
                "{unit} {format}"
            );
        }
    }
}

/// Throughput of the no-marker path; run with
/// `cargo test --release --lib scan_throughput -- --ignored --nocapture`.
#[test]
#[ignore = "timing; run in release"]
fn scan_throughput() {
    for (label, unit) in [
        ("no < or [", "plain words (and braces {}) and 中文 — "),
        (
            "with < and [",
            "a < b <b>x</b> [link](u) and more words here ",
        ),
    ] {
        let text = unit.repeat(50_000_000 / unit.len());
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let c = clean_response(&text, &auto());
            assert_eq!(c.content.len(), text.len());
            best = best.min(t.elapsed().as_secs_f64());
        }
        eprintln!("{label}: {:.2} GB/s", text.len() as f64 / best / 1e9);
    }
}
