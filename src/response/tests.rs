//! End-to-end tests of [`clean_response`] beyond the reply-case table (`cases.rs`, whose
//! fixtures hold the per-family cases): per family, text around calls, parallel calls, values
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
                t.name(),
                serde_json::from_str(t.arguments()).unwrap_or(Value::Null),
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
fn hermes_truncated_json_is_removed_and_reported() {
    let t = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": ";
    let c = clean_response(t, &auto());
    assert!(c.tool_calls.is_empty());
    assert_eq!(c.content, "Sure.");
    assert!(
        c.problems[0].ends_with("raw text: <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": ")
    );
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
    assert_eq!(c.tool_calls[0].arguments(), "{\"a\": 'x'}");
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
fn qwen3_coder_unwrapped_form_from_the_model_name() {
    let t = "Ok.\n<function=ls>\n<parameter=path>\n/tmp\n</parameter>\n</function>";
    // A name then `<parameter=` is read for any model; a looser `<function=…>` needs the hint.
    assert_eq!(
        named(&clean_response(t, &auto())),
        [("ls", json!({"path": "/tmp"}))]
    );
    let loose = "Ok.\n<function=ls>\n/tmp\n</function>";
    assert!(clean_response(loose, &auto()).tool_calls.is_empty());
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
    assert_eq!(clean_response(t, &f).tool_calls.len(), 1);
    assert!(
        clean_response(loose, &f).tool_calls.is_empty(),
        "explicit format without the model hint reads only the unambiguous unwrapped form"
    );
}

// ---------- GLM ----------

#[test]
fn glm47_string_schema_and_special_characters() {
    let tools = json!([{"function": {"name": "write", "parameters": {"properties": {"body": {"type": "string"}, "n": {"type": "string"}}}}}]);
    let t = format!("<tool_call>write<arg_key>body</arg_key><arg_value>{TRICKY}</arg_value><arg_key>n</arg_key><arg_value>42</arg_value></tool_call>");
    let c = clean_response(&t, &with_tools(tools));
    assert_eq!(c.format, Some("glm47"));
    assert_eq!(named(&c), [("write", json!({"body": TRICKY, "n": "42"}))]);
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

// ---------- reasoning and modes ----------

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
    let u = clean_response("<think>cut off", &auto());
    assert_eq!((u.content.as_str(), u.reasoning.as_str()), ("", "cut off"));
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
    assert_ne!(a.tool_calls[0].id(), a.tool_calls[1].id());
    assert_eq!(call_id(0, "a", "{}"), call_id(0, "a", "{}"));
    assert_ne!(call_id(0, "a", "{}"), call_id(0, "b", "{}"));
    // Ids stay what earlier versions gave: FNV-1a of "a\0" is the reference suite's 0x089be207b544f1e4.
    assert_eq!(call_hash("a", ""), 0x089b_e207_b544_f1e4);
    assert_eq!(
        call_id(3, "read_file", r#"{"path":"src/读.rs"}"#),
        "call_3_c10c58ac"
    );
    // A call's id, name and arguments share one buffer: each reads back as written, the
    // generated id as `call_id` spells it.
    let raw = |id: Option<&str>| RawCall {
        name: "read_file".into(),
        arguments: r#"{"path":"src/读.rs"}"#.into(),
        id: id.map(str::to_owned),
    };
    let t = ToolCall::of_raw(raw(None), 3, false);
    assert_eq!(
        (t.id(), t.name(), t.arguments()),
        ("call_3_c10c58ac", "read_file", r#"{"path":"src/读.rs"}"#)
    );
    assert_eq!(
        t,
        ToolCall::new("call_3_c10c58ac", "read_file", r#"{"path":"src/读.rs"}"#)
    );
    // The same bytes cut elsewhere are another call.
    assert_ne!(
        t,
        ToolCall::new("all_3_c10c58ac", "read_filec", r#"{"path":"src/读.rs"}"#)
    );
    for (i, id) in [
        (0, "call_0_"),
        (9, "call_9_"),
        (10, "call_10_"),
        (1234, "call_1234_"),
    ] {
        let t = ToolCall::of_raw(raw(None), i, false);
        assert!(t.id().starts_with(id) && t.id().len() == CALL_ID_LEN + decimal_len(i));
        assert_eq!(t.id(), call_id(i, t.name(), t.arguments()));
    }
    let own = ToolCall::of_raw(raw(Some("functions.read_file:0")), 3, false);
    assert_eq!(own.id(), "functions.read_file:0");
    let m = ToolCall::of_raw(raw(None), 3, true);
    assert_eq!(
        m.id(),
        mistral::call_id(3, "read_file", r#"{"path":"src/读.rs"}"#)
    );
    assert_eq!(
        format!("{t:?}"),
        r#"ToolCall { id: "call_3_c10c58ac", name: "read_file", arguments: "{\"path\":\"src/读.rs\"}" }"#
    );
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
