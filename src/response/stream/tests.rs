//! Stream tests: any chunking gives what the whole reply gives.

use super::*;
use crate::response::clean_response;
use crate::response::tokens::head;

pub use crate::response::cases::streamed;

#[test]
fn byte_by_byte_equals_whole() {
    let t = "Let me look.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x < y & 北京\"}}\n</tool_call>\nDone.";
    let whole = clean_response(t, &Options::default());
    let chars: Vec<String> = t.chars().map(String::from).collect();
    let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(streamed(&pieces, &Options::default()), whole);
    assert_eq!(whole.content, "Let me look.\nDone.");
}

use serde_json::json;

/// A bare JSON call whose `{` ends a delta, a model named (so the reply's start is not held): the
/// `{` was let out as text and the call was never read, while the whole reply gives it. Found by
/// the AI SDK middleware's benchmark, whose mock model streams 1–4 characters a delta.
#[test]
fn bare_json_opener_at_the_end_of_a_delta() {
    let tools = json!([{"type": "function", "function": {"name": "calculator", "parameters": {"type": "object"}}}]);
    let t = "好的。{\"name\": \"calculator\", \"arguments\": {\"expr\": \"17 * 23\"}}";
    let o = Options {
        model: Some("bench-model".into()),
        tools: Some(tools),
        ..Options::default()
    };
    let whole = clean_response(t, &o);
    assert_eq!(whole.tool_calls.len(), 1);
    let brace = t.find('{').unwrap_or_default();
    for pieces in [
        vec![&t[..brace + 1], &t[brace + 1..]],
        vec![&t[..brace], &t[brace..brace + 1], &t[brace + 1..]],
    ] {
        assert_eq!(streamed(&pieces, &o), whole, "{pieces:?}");
    }
}

/// One sample reply per format name: `(format, model, reply)`. Each has text around the calls,
/// parallel calls where the format has them, values with `<`, `&`, newlines and non-ASCII, and
/// reasoning where the family writes it.
pub const SAMPLES: &[(&str, &str, &str)] = &[
    ("hermes", "", "<think>\nThe user wants two cities; example <tool_call>{\"name\": \"x\"}</tool_call> is not a call.\n</think>\n\nLet me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京 <&>\\nline\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\nDone! 🚀"),
    ("qwen3_coder", "qwen/qwen3-coder-480b", "I'll run it.\n<tool_call>\n<function=run_code>\n<parameter=code>\nif a < b && c > d {\n  println!(\"北京 🚀\");\n}\n</parameter>\n<parameter=n>\n42\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>\nWaiting."),
    ("seed_oss", "bytedance/seed-oss-36b", "<seed:think>Example: <seed:tool_call><function=x></function></seed:tool_call><seed:cot_budget_reflect>10 used</seed:cot_budget_reflect></seed:think>Checking.\n<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona & <Spain>\n北京</parameter>\n</function>\n</seed:tool_call>\nOk."),
    ("glm45", "zai/glm-4.5", "<think>plan: call get_weather</think>Checking both.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京 <&></arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai\nnorth</arg_value>\n</tool_call>\nOne moment."),
    ("glm47", "zai/glm-4.7", "Searching.<tool_call>search<arg_key>query</arg_key><arg_value>rust < go & 北京</arg_value></tool_call><tool_call>refresh_cache</tool_call> done"),
    ("minimax_m1", "minimax/minimax-m1", "<think>Example: <tool_calls>\n{\"name\": \"x\", \"arguments\": {}}\n</tool_calls></think>Checking.\n<tool_calls>\n{\"name\": \"get_current_weather\", \"arguments\": {\"city\": \"Dallas <&>\", \"note\": \"a\\nb 北京\"}}\n{\"name\": \"get_current_weather\", \"arguments\": {\"city\": \"Orlando\"}}\n</tool_calls>\nDone."),
    ("minimax_m2", "minimax/minimax-m2", "The user wants weather, maybe <minimax:tool_call> later.\n</think>\n\n让我帮你查询。\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">北京 <&></parameter>\n<parameter name=\"date\">2024-12-25\nnight</parameter>\n</invoke>\n<invoke name=\"get_time\">\n<parameter name=\"tz\">UTC</parameter>\n</invoke>\n</minimax:tool_call>\n稍等。"),
    ("deepseek_v3", "deepseek/deepseek-r1-0528", "Need weather for two cities.\n</think>\n\nOK <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"Tokyo <&>\\n東京\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"),
    ("deepseek_v31", "deepseek/deepseek-v3.1-terminus", "<think>plan</think>Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\\nFrance & <x> 北京\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜> then more"),
    ("deepseek_v32", "deepseek/deepseek-v3.2", "Let me check that.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"location\" string=\"true\">東京 <&> 42</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"now\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\nDone."),
    ("kimi_k2", "moonshotai/kimi-k2-thinking", "<think>two calls</think>Sure.\n<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Beijing <&>\\n北京\"}<|tool_call_end|>\n<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{\"city\": \"Shanghai\"}<|tool_call_end|>\n<|tool_calls_section_end|>\nWaiting."),
    ("llama3_json", "meta-llama/llama-3.3-70b", "Here are some results: <|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"北京 & <weather>\\n\"}}; {\"name\": \"now\", \"parameters\": {}}<|eom_id|>"),
    ("pythonic", "liquid/lfm2", "Let me check.\n[get_weather(city=\"San Francisco <&>\", metric=True), get_time(tz='Asia/北京\\n')]\nThese will help."),
    ("llama4_pythonic", "meta-llama/llama-4-scout", "I'll run the calculations.\n\n<|python_start|>[calc(expr=\"2 < 3 & 4\", precise=True), lookup(term='北京\\n')]<|python_end|>\n\nThese functions will help."),
    ("mistral", "mistralai/magistral-small", "[THINK]The user wants weather [TOOL_CALLS]x{}[/THINK]Checking.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"東京 <&>\\n\"}[TOOL_CALLS]get_time[ARGS]{}"),
    ("gpt_oss", "openai/gpt-oss-120b", "<|channel|>analysis<|message|>Need to read files. Maybe to=functions.x<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"files\": [\"a<b>&c\", \"北京.txt\"]}<|call|>"),
    ("step3", "stepfun-ai/step3", "I should search.\n</think>\nSearching now.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">\n<steptml:parameter name=\"query\">a < b && b > c 北京</steptml:parameter>\n<steptml:parameter name=\"limit\">10</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\"><steptml:parameter name=\"query\">line1\nline2</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>\nResults follow."),
    ("hunyuan_a13b", "tencent/hunyuan-a13b", "<think>\n用户要天气\n</think>\n<answer>\n好的。\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Boston\"}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"深圳 <&>\\n\"}}]</tool_calls>\n</answer>"),
    ("ernie45", "baidu/ernie-4.5-21b-a3b-thinking", "The user wants weather; example <tool_call>{\"name\": \"x\"}</tool_call>\n</think>\n\n<response>\n我来查询。\n</response>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"北京 & <海淀>\\n\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>\n"),
    ("longcat", "meituan/longcat-flash", "我来查。\n<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京 <&>\\n\"}}</longcat_tool_call>\n<longcat_tool_call>{\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\"}}</longcat_tool_call>\n稍等。"),
    ("internlm2", "internlm/internlm2_5-7b-chat", "Let me check.<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京 & <Osaka>\\n\", \"days\": 3}}<|action_end|>\nOne moment."),
    ("phi4_mini", "microsoft/phi-4-mini-instruct", "I'll check.functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"x < y & 東京\\n\"}}, {\"name\": \"now\", \"arguments\": {}}]"),
    ("granite", "ibm/granite-3.3-8b", "Here is my thought process:\nI need the weather <tool_call>{\"name\": \"x\"}</tool_call>.\nHere is my response:\nSure.<|tool_call|>[{\"arguments\": {\"q\": \"a < b & 北京\\n\"}, \"name\": \"search\"}, {\"name\": \"now\", \"arguments\": {}}]"),
    ("granite_20b_fc", "ibm/granite-20b-functioncalling", "Looking up both.\n<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"<Zürich> & \\n\"}}\n<function_call> {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Bern\"}}"),
    ("xlam", "salesforce/xlam-2-8b", "<think>use both</think>Calling:\n```json\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京 <&>\\n\"}}, {\"name\": \"now\", \"arguments\": {}}]\n```"),
    ("jamba", "ai21/jamba-1.7-mini", "Sure.\n<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"a & b\\n<c> 北京\"}}, {\"name\": \"now\", \"arguments\": {}}]</tool_calls>\nThen I'll summarise."),
    ("olmo3", "allenai/olmo-3-7b", "Let me look.\n<function_calls>\nget_weather(city=\"São Paulo <&>\", units='metric')\nsearch(q=\"a < b && c\\nd\", limit=5)\n</function_calls>\nBack soon."),
    ("gigachat3", "sber/gigachat3-10b", "Сейчас проверю.\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Москва\", \"q\": \"a<b & c\\n\"}}\nГотово."),
];

/// Hard cases: truncated calls, unbalanced tags, markers inside reasoning, near-markers.
pub const ADVERSARIAL: &[&str] = &[
    "Let me look.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"cut",
    "<tool_call>{\"name\": \"f\"}</tool_call></tool_call> trailing </tool_call>",
    "<tool_call><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
    "<think>inside <minimax:tool_call><invoke name=\"x\"></invoke></minimax:tool_call> still thinking",
    "a</think>b<think>c</think>d</think>e",
    "  \n  leading and trailing  \n  ",
    "<minimax:tool_c and then nothing",
    "The <tool_call> tag wraps a call in Qwen's template. a < b > c [x] ◁ ◁think",
    "text <tool_call>get_weather\n<arg_key>city</arg_key><arg_value>北京",
    "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|> lone",
    "x<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{bad json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>y",
    "[TOOL_CALLS] is a token; functools [x]; function call <b>",
    "<tool_calls>none</tool_calls> <answer>Hi</answer>",
    "\n\n<think>\n\n</think>\n\n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n\n",
    "A\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>   <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>\nB",
    "<|channel|>analysis<|message|>think<|start|>assistant<|channel|>final<|message|>Answer<|return|>",
    "[THINK]x[/THINK]◁think▷y◁/think▷<|START_THINKING|>z<|END_THINKING|>end",
    "<seed:think>unclosed <seed:tool_call>",
    "emoji 🚀 split 北京 <tool_call>{\"name\": \"é\", \"arguments\": {\"k\": \"😀\"}}</tool_call>é",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Split `t` at random char boundaries: pieces of 1 to `max` bytes (rounded up to a char).
fn random_split<'a>(t: &'a str, rng: &mut Rng, max: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < t.len() {
        let mut end = (at + 1 + (rng.next() as usize % max)).min(t.len());
        while !t.is_char_boundary(end) {
            end += 1;
        }
        out.push(&t[at..end]);
        at = end;
    }
    out
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "run_code", "parameters": {"type": "object", "properties": {
        "code": {"type": "string"}, "n": {"type": "integer"}}}}},
        {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer"}}}}}])
}

/// Every option set a sample is checked with.
fn option_sets(format: &str, model: &str) -> Vec<Options> {
    let mut v = Vec::new();
    for (f, m) in [(Some(format), None), (None, Some(model)), (None, None)] {
        if f.is_none() && m == Some("") {
            continue;
        }
        v.push(Options {
            format: f.filter(|f| !f.is_empty()).map(str::to_owned),
            model: m.filter(|m| !m.is_empty()).map(str::to_owned),
            tools: Some(tools()),
            ..Options::default()
        });
    }
    v
}

fn check_splits(t: &str, o: &Options, rng: &mut Rng, rounds: usize) {
    let whole = clean_response(t, o);
    for r in 0..rounds {
        let max = [1, 2, 3, 7, 20, 64][r % 6];
        let pieces = random_split(t, rng, max);
        assert_eq!(
            streamed(&pieces, o),
            whole,
            "split {pieces:?} with {:?}/{:?}",
            o.format,
            o.model
        );
    }
    // Two pieces, cut at every char boundary (every marker split at every position).
    for (i, _) in t.char_indices().skip(1) {
        assert_eq!(
            streamed(&[&t[..i], &t[i..]], o),
            whole,
            "cut at {i} of {t:?}"
        );
    }
}

#[test]
fn every_format_any_split_equals_whole() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for &(format, model, t) in SAMPLES {
        for o in option_sets(format, model) {
            check_splits(t, &o, &mut rng, 12);
        }
        // The sample gives calls with its own format named.
        let named = clean_response(t, &option_sets(format, model)[0]);
        assert!(!named.tool_calls.is_empty(), "{format}: no call in {t:?}");
    }
}

#[test]
fn adversarial_any_split_equals_whole() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let modes = [Mode::Extract, Mode::Strip, Mode::Keep];
    for t in ADVERSARIAL {
        for format in [None, Some("hermes"), Some("glm47"), Some("minimax_m2")] {
            for model in [None, Some("deepseek/deepseek-r1"), Some("qwen/qwen3-coder")] {
                for (i, tm) in modes.iter().enumerate() {
                    let o = Options {
                        format: format.map(str::to_owned),
                        model: model.map(str::to_owned),
                        tool_calls: *tm,
                        thinking: modes[(i + 1) % 3],
                        ..Options::default()
                    };
                    check_splits(t, &o, &mut rng, 4);
                }
            }
        }
    }
}

#[test]
fn samples_mixed_and_in_other_modes() {
    let mut rng = Rng(7);
    // Every sample after every other, in `auto` with no hint, and with strip / keep modes.
    for w in SAMPLES.windows(2) {
        let t = format!("{}\n{}", w[0].2, w[1].2);
        for (tm, th) in [
            (Mode::Extract, Mode::Extract),
            (Mode::Strip, Mode::Keep),
            (Mode::Keep, Mode::Strip),
        ] {
            let o = Options {
                tool_calls: tm,
                thinking: th,
                ..Options::default()
            };
            for _ in 0..3 {
                let pieces = random_split(&t, &mut rng, 9);
                assert_eq!(streamed(&pieces, &o), clean_response(&t, &o), "{pieces:?}");
            }
        }
    }
}

#[test]
fn content_is_released_early() {
    // Plain text comes out with the delta that completes it; markup and calls wait for their end.
    // (With neither model nor format, the start waits for the start region: see below.)
    let mut s = StreamCleaner::new(Options {
        model: Some("openai/gpt-4o".into()),
        ..Options::default()
    });
    assert_eq!(
        s.push("Hello wor").map(|c| c.content),
        Ok("Hello wor".into())
    );
    assert_eq!(
        s.push("ld <minimax:tool_c").map(|c| c.content),
        Ok("ld".into())
    );
    let c = s
        .push("all><invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke>")
        .unwrap_or_default();
    assert!(c.content.is_empty() && c.tool_calls.is_empty());
    let c = s.push("</minimax:tool_call> after").unwrap_or_default();
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].name(), "f");
    assert_eq!(c.content, " after");
    let end = s.finish().unwrap_or_default();
    assert_eq!(end.format, Some("minimax_m2"));
    // A DSML invoke whose section opener was lost waits for what follows its closer: the section
    // closer (removed with it) or anything else (the call then, and the text with it).
    let invoke = "好的。<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\">北京</｜DSML｜parameter></｜DSML｜invoke>";
    for (then, text) in [("\n</｜DSML｜tool_calls>", ""), ("\n稍等，", "稍等，")] {
        let mut s = StreamCleaner::new(Options {
            format: Some("deepseek_v32".into()),
            ..Options::default()
        });
        let c = s.push(invoke).unwrap_or_default();
        assert!(c.tool_calls.is_empty(), "{then:?}");
        let c = s.push(then).unwrap_or_default();
        assert_eq!(c.tool_calls.len(), 1, "{then:?}");
        assert_eq!(c.content.trim_start(), text, "{then:?}");
    }
}

#[test]
fn reasoning_streams_as_it_comes() {
    let mut s = StreamCleaner::new(Options::default());
    let r = |c: Result<StreamChunk, &str>| c.map(|c| c.reasoning).unwrap_or_default();
    assert_eq!(r(s.push("<think>\n step one ")), "step one");
    assert_eq!(r(s.push(" two </thi")), "  two");
    let c = s.push("nk><think>again</think>Hi").unwrap_or_default();
    assert_eq!(
        (c.content.as_str(), c.reasoning.as_str()),
        ("Hi", "\n\nagain")
    );
    let end = s.finish().unwrap_or_default();
    assert_eq!(end.chunk, StreamChunk::default());
}

#[test]
fn whitespace_rule() {
    let o = Options::default();
    let cases = [
        (
            "Let me look.\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
            "Let me look.",
        ),
        (
            "Let me look.\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n\nDone.\n",
            "Let me look.\n\nDone.\n",
        ),
        ("  <think>x</think>\n  Answer  ", "Answer  "),
        ("  plain  ", "  plain  "),
        ("<think>x</think>   <think>y</think> B", "B"),
        // After visible text a reasoning tag is text (see the reply-case table).
        (
            "A <think>x</think>   <think>y</think> B",
            "A <think>x</think>   <think>y</think> B",
        ),
        ("A\n<tool_call>{\"name\": \"f\"}</tool_call>", "A"),
    ];
    for (t, want) in cases {
        assert_eq!(clean_response(t, &o).content, want, "{t:?}");
    }
}

/// The JS spec (`__test__/response-stream.spec.mjs`) reads the same samples from this fixture.
#[test]
fn js_fixture_matches_the_samples() {
    let samples: Vec<Value> = SAMPLES
        .iter()
        .map(|(f, m, t)| json!({"format": f, "model": m, "text": t}))
        .collect();
    let want = json!({"samples": samples, "adversarial": ADVERSARIAL});
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/__test__/fixtures/stream-samples.json"
    );
    if std::env::var_os("WRITE_STREAM_FIXTURE").is_some() {
        let text = serde_json::to_string_pretty(&want).unwrap_or_default();
        assert!(std::fs::write(path, text + "\n").is_ok());
    }
    let have: Value = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    assert_eq!(
        have, want,
        "run with WRITE_STREAM_FIXTURE=1 to refresh {path}"
    );
}

/// Random soups of marker pieces, text, whitespace and multi-byte characters, streamed in random
/// splits: a bounded fuzz run of the machine against the whole-reply result.
#[test]
fn marker_soup_fuzz() {
    let parts = [
        "<tool_call>",
        "</tool_call>",
        "<function=f>",
        "</function>",
        "<parameter=a>",
        "</parameter>",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        "<invoke name=\"x\">",
        "</invoke>",
        "<parameter name=\"p\">",
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>",
        "<｜tool▁calls▁end｜>",
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        "<|tool_call_argument_begin|>",
        "<|tool_call_end|>",
        "<|tool_calls_section_end|>",
        "<think>",
        "</think>",
        "<seed:think>",
        "</seed:think>",
        "[THINK]",
        "[/THINK]",
        "◁think▷",
        "◁/think▷",
        "<|channel|>analysis<|message|>",
        "<|end|>",
        "<|start|>assistant",
        "<|call|>",
        "<tool_calls>",
        "</tool_calls>",
        "[TOOL_CALLS]",
        "functools",
        "[",
        "function call",
        "<|role_sep|>",
        "<answer>",
        "</answer>",
        "<|action_start|>",
        "<|plugin|>",
        "<|action_end|>",
        "<seed:tool_call>",
        "</seed:tool_call>",
        "<｜DSML｜function_calls>",
        "<longcat_tool_call>",
        "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
        "{",
        "}",
        "\"",
        "f",
        "get_weather",
        " ",
        "\n",
        "  \n",
        "北京",
        "🚀",
        "<",
        ">",
        "a < b",
        "text",
    ];
    let formats = [
        None,
        Some("hermes"),
        Some("glm47"),
        Some("kimi_k2"),
        Some("mistral"),
        Some("pythonic"),
    ];
    let models = [
        None,
        Some("deepseek/deepseek-r1"),
        Some("qwen/qwen3-coder"),
        Some("tencent/hunyuan-a13b"),
    ];
    // STREAM_FUZZ_ROUNDS=200000 for a longer local run; CI keeps it to a fraction of a second.
    let rounds = std::env::var("STREAM_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let seed = std::env::var("STREAM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x51_7cc1_b727_220a_u64);
    let mut rng = Rng(seed);
    for round in 0..rounds {
        let mut t = String::new();
        for _ in 0..(1 + rng.next() % 16) {
            t.push_str(parts[(rng.next() % parts.len() as u64) as usize]);
        }
        let o = Options {
            format: formats[round % formats.len()].map(str::to_owned),
            model: models[(round / formats.len()) % models.len()].map(str::to_owned),
            ..Options::default()
        };
        let whole = clean_response(&t, &o);
        for max in [1, 3, 11] {
            let pieces = random_split(&t, &mut rng, max);
            assert_eq!(
                streamed(&pieces, &o),
                whole,
                "{pieces:?} {:?} {:?}",
                o.format,
                o.model
            );
        }
    }
}

#[test]
fn r1_models_hold_the_start_others_do_not() {
    assert!(thinking::r1_hint(None, Some("deepseek/deepseek-reasoner")));
    assert!(thinking::r1_hint(None, Some("MiniMax/MiniMax-M2.5")));
    assert!(thinking::r1_hint(Some("step3"), None));
    assert!(!thinking::r1_hint(None, Some("deepseek/deepseek-chat")));
    assert!(thinking::r1_hint(None, Some("zai/glm-4.7")));
    assert!(!thinking::r1_hint(None, Some("zai/glm-4.6")));
    assert!(!thinking::r1_hint(Some("deepseek_v31"), None));
    let r1 = Options {
        model: Some("deepseek/deepseek-r1".into()),
        ..Options::default()
    };
    let mut s = StreamCleaner::new(r1.clone());
    // Until the first reasoning tag, this may all be reasoning: nothing is shown.
    assert_eq!(
        s.push("The user asks. ").unwrap_or_default(),
        StreamChunk::default()
    );
    let c = s.push("</think>\n\nAnswer").unwrap_or_default();
    assert_eq!(
        (c.content.as_str(), c.reasoning.as_str()),
        ("Answer", "The user asks.")
    );
    // A model that may answer without reasoning streams at once; a lone tag is stray.
    let chat = Options {
        model: Some("deepseek/deepseek-chat".into()),
        ..Options::default()
    };
    let mut s = StreamCleaner::new(chat.clone());
    assert_eq!(s.push("Answer ").map(|c| c.content), Ok("Answer".into()));
    // Without a model, a lone closer ending its line near the start ends prompt-opened
    // reasoning; the start is held back until then (at most `START_REGION` bytes).
    let mut s = StreamCleaner::new(Options::default());
    assert_eq!(s.push("Thinking\n").map(|c| c.content), Ok(String::new()));
    let c = s.push("</think>\nAnswer").unwrap_or_default();
    assert_eq!(
        (c.content.as_str(), c.reasoning.as_str()),
        ("Answer", "Thinking")
    );
    let long = "x".repeat(START_REGION + 1);
    let mut s = StreamCleaner::new(Options::default());
    assert_eq!(s.push(&long).map(|c| c.content.len()), Ok(START_REGION + 1));
    let whole = clean_response("Answer</think>\nmore", &chat);
    assert_eq!(
        (whole.content.as_str(), whole.reasoning.as_str()),
        ("Answer\nmore", "")
    );
    // After words and a space, ending its line, the tag is named in a sentence (vllm-ascend#8022).
    let named = "content 中包含思考内容 + </think>\nmore";
    assert_eq!(clean_response(named, &chat).content, named);
    assert_eq!(clean_response(named, &Options::default()).content, named);
    // Inside a sentence the tag is prose.
    let whole = clean_response("Answer </think> more", &chat);
    assert_eq!(whole.content, "Answer </think> more");
    let whole = clean_response("Plan. </think> Answer", &r1);
    assert_eq!(
        (whole.content.as_str(), whole.reasoning.as_str()),
        ("Answer", "Plan.")
    );
    // With a model default too, a closer inside a sentence (no sentence end before it, words
    // after it) ends nothing.
    let whole = clean_response("Plan </think> Answer", &r1);
    assert_eq!(whole.content, "Plan </think> Answer");
}

/// The word a marker is ruled out by: its first eight bytes (fewer for a shorter one), the rest
/// masked off, so a candidate matches it exactly when its next bytes start the marker.
#[test]
fn marker_heads_hold_their_first_bytes() {
    let word = |s: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[..8]);
        u64::from_le_bytes(w)
    };
    let (h, mask) = head(b"<tool_call>");
    assert_eq!(mask, u64::MAX);
    assert_eq!(word(b"<tool_call>") & mask, h);
    // Only eight bytes are compared: past them the full check decides.
    assert_eq!(word(b"<tool_cal!>x") & mask, h);
    assert_ne!(word(b"<tool_xxxxx") & mask, h);
    let (h, mask) = head("<｜".as_bytes());
    assert_eq!(mask, (1 << 32) - 1);
    assert_eq!(word("<｜tool▁calls".as_bytes()) & mask, h);
    assert_ne!(word("<|tool_calls".as_bytes()) & mask, h);
    let (h, mask) = head(b"[");
    assert_eq!(
        (word(b"[THINK] x") & mask, word(b"(THINK) x") & mask == h),
        (h, false)
    );
}

/// A bucket's heads, read beside its markers ([`Table::bucket`]), are those markers' heads, in
/// every table built (plain, Hermes, Kimi-K2 and DeepSeek replies lock their own).
#[test]
fn bucket_heads_are_their_markers_heads() {
    for reply in [
        "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ] {
        clean_response(reply, &Options::default());
    }
    let tables = TABLES.lock().map(|t| t.clone()).unwrap_or_default();
    assert!(tables.len() >= 3);
    for (_, t) in &tables {
        let mut seen = 0;
        for b in 0..256 {
            let (markers, heads) = t.bucket(b);
            assert_eq!(markers.len(), heads.len());
            for (&k, &h) in markers.iter().zip(heads) {
                assert_eq!(h, t.heads[usize::from(k)]);
            }
            seen += markers.len();
        }
        assert_eq!(seen, t.order.len());
    }
}

/// Inside a DeepSeek block, the block's own tokens start no reasoning marker: the scan passes
/// over them without asking ([`block_scan`]'s second pair), while the lone
/// `<｜end▁of▁sentence｜>` is still asked about.
#[test]
fn deepseek_tokens_pass_the_block_scan() {
    let mut m = Machine::new(&Options::default());
    let scan = m.block_scan(Family::DeepSeek, *N_THINK);
    for token in [
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>",
    ] {
        assert!(!scan.at(token.as_bytes(), 0).think, "{token}");
    }
    assert!(scan.at("<｜end▁of▁sentence｜>".as_bytes(), 0).think);
}

#[test]
fn block_markers_after_e2_are_triangles() {
    // `next_block_cand` passes over a 0xE2 byte not followed by 0x97: no closer of any family and
    // no reasoning marker may start so.
    let mut markers: Vec<&str> = think_lits().iter().map(|l| l.s).collect();
    for name in crate::response::FORMATS {
        if let Some(f) = Family::from_format(name) {
            markers.extend(closers(f));
        }
    }
    assert!(markers.contains(&"◁/think▷") && markers.contains(&"<｜tool▁calls▁end｜>"));
    for m in markers {
        let b = m.as_bytes();
        assert!(b[0] != 0xE2 || b.get(1) == Some(&0x97), "{m}");
    }
    // And the scan stops at `◁`, `<` and `[`, passing over `▁` and `‖`.
    let t = "a▁b‖c◁d<e[f▁";
    let mut at = 0;
    let mut found = Vec::new();
    while let Some(c) = next_block_cand(t.as_bytes(), at) {
        found.extend(t[c..].chars().next());
        at = c + 1;
    }
    assert_eq!(found, ['◁', '<', '[']);
}

#[test]
fn a_long_undecided_stretch_after_a_candidate_stays_linear_in_small_deltas() {
    // Spaces after an opener leave its check undecided on every delta: asked again on each one,
    // it read the whole stretch each time (`<tool_call>` and 100 KB of spaces in 16-byte deltas:
    // 1.4 s, 142× the 10 KB time).
    use crate::response::linearity::assert_grows_linearly;
    for lead in [
        "<tool_call>",
        "我看看配置。<tool_use>{",
        "我来查一下显卡。\n[Calling tool: terminal with arguments:",
        // A bare DSML invoke waiting to see whether its section closer follows.
        "好的。<｜DSML｜invoke name=\"f\"></｜DSML｜invoke>",
        // Without tools: an invented result opening the reply, held until its closer; a call
        // tag around a call object, held until its value closes, then its closer and line end;
        // a first word that may become a Kimi call id.
        "[TOOL_RESULT]\n",
        "<invoke>\n{\"name\": \"f\", \"arguments\": {\"a\": \"",
        "<invoke>\n{\"name\": \"f\", \"arguments\": {}}",
        "channel_reply:0",
    ] {
        let make = |n: usize| format!("{lead}{}", " ".repeat(n));
        assert_grows_linearly(lead, &make, &|t| {
            let mut s = StreamCleaner::new(Options::default());
            for piece in t.as_bytes().chunks(256) {
                // Spaces after an ASCII or whole-character lead: every piece is UTF-8.
                s.push(std::str::from_utf8(piece).unwrap_or("")).unwrap();
            }
            s.finish().unwrap();
        });
    }
    // With tools: a reply that may still become the empty call wrapper `{"tool_calls": []}` is
    // held to its end ([`crate::response::tool_json::empty_tool_calls`]), asked again per delta.
    let tools =
        json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]);
    for lead in ["{", "{\"tool_calls\": [", "{\"tool_calls\": []}"] {
        let make = |n: usize| format!("{lead}{}", " ".repeat(n));
        assert_grows_linearly(lead, &make, &|t| {
            let o = Options {
                tools: Some(tools.clone()),
                ..Options::default()
            };
            let mut s = StreamCleaner::new(o);
            for piece in t.as_bytes().chunks(256) {
                s.push(std::str::from_utf8(piece).unwrap_or("")).unwrap();
            }
            s.finish().unwrap();
        });
    }
}

#[test]
fn an_open_fence_at_the_start_stays_linear_in_small_deltas() {
    // With no model named, the reply's start is held while a closing reasoning tag may still
    // come within the start region; an open fence there was waited for, its last line and the
    // text after it read again on every delta (the stream sweep: 70-150x for 10x the text).
    use crate::response::linearity::assert_grows_linearly;
    let tools = serde_json::json!([{"type": "function", "function": {"name": "search_web",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]);
    for (lead, tools) in [
        (
            "我来查一下。\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{",
            None,
        ),
        ("我搜一下。\n```json\n<tool_call>\n{\"name\": \"search_web\"", Some(&tools)),
    ] {
        let make = |n: usize| format!("{lead}{}", " ".repeat(n));
        assert_grows_linearly(lead, &make, &|t| {
            let mut s = StreamCleaner::new(Options {
                tools: tools.cloned(),
                ..Options::default()
            });
            for piece in t.as_bytes().chunks(256) {
                // Spaces after a whole-character lead: every piece is UTF-8.
                s.push(std::str::from_utf8(piece).unwrap_or("")).unwrap();
            }
            s.finish().unwrap();
        });
    }
}

#[test]
fn an_indented_code_block_stays_linear_in_small_deltas() {
    // Passed over line by line: a long last line still arriving, blank lines of spaces, many
    // short lines; each line of the block is read once whatever the deltas.
    use crate::response::linearity::assert_grows_linearly;
    let lead = "例子：\n\n    <tool_call>\n";
    let units: [&dyn Fn(usize) -> String; 3] = [
        &|n| format!("{lead}    {}", "x".repeat(n)),
        &|n| format!("{lead}{}", " ".repeat(n)),
        &|n| format!("{lead}{}", "    <think>\n".repeat(n / 12)),
    ];
    for make in units {
        assert_grows_linearly(lead, make, &|t| {
            let mut s = StreamCleaner::new(Options::default());
            let mut at = 0;
            while at < t.len() {
                let mut e = (at + 16).min(t.len());
                while !t.is_char_boundary(e) {
                    e += 1;
                }
                s.push(&t[at..e]).unwrap();
                at = e;
            }
            s.finish().unwrap();
        });
    }
}

/// Rows of the reply table cut inside their markup (`cut`: the share of the row's characters
/// kept), then text that never closes it, streamed in 16-byte deltas with the row's options (and
/// `model`, when given, in place of the row's: an R1-style model holds the reply's start until a
/// reasoning tag or the end). The stream sweep over every row found each of these re-reading what
/// it held on every delta: 45-100× the time for 10× the text.
#[test]
fn rows_cut_inside_markup_stay_linear_in_small_deltas() {
    use crate::response::linearity::{assert_grows_linearly, stream_in_deltas};
    let cases = crate::response::cases::load();
    for (name, cut, filler, model) in [
        // An open fence held while the start may still be reasoning: its last line was read
        // again from its start on each delta, and the held text searched for markers to its end.
        ("fence-whole-reply-minimax-call", 0.6, "a", Some("QwQ-32B")),
        // A fence that may be the reply's call, held until it closes (no model named).
        ("fence-whole-reply-minimax-call", 0.6, "北京abc ", None),
        // An example fence, streamed line by line: a line that never ends.
        ("cut-bracket-closer-in-fence-stays-zh", 0.6, "a", None),
        // A lone backtick whose span has not closed.
        ("cut-bracket-closer-in-inline-code-stays-zh", 0.6, "a", None),
        // A fence's opening line that never ends (```` ```j ````…).
        ("eot-mid-line-before-call-section", 0.6, "a", None),
    ] {
        let case = cases.iter().find(|c| c.name == name).expect(name);
        let mut opts = case.options();
        if let Some(m) = model {
            opts.model = Some(m.into());
        }
        let keep = (case.input.chars().count() as f64 * cut) as usize;
        let lead: String = case.input.chars().take(keep).collect();
        let make = |n: usize| format!("{lead}{}", filler.repeat(n / filler.len()));
        assert_grows_linearly(&format!("{name} {cut} {filler:?} {model:?}"), &make, &|t| {
            stream_in_deltas(&opts, t, 16)
        });
    }
}

/// A fence labelled as a call (```` ```tool_call ````, or ```` ```json ```` holding a call) whose
/// last line never ends, streamed in 16-byte deltas: that line was read again from its start on
/// every delta (16-22× the time for 10× the text) until the fence's last line was read on from
/// where the previous look stopped ([`code::FenceTail`]; measured 9-11× now, 77-105× with that
/// look disabled). With tools and without, a model named (its start not held) and not.
#[test]
fn a_call_fence_whose_last_line_grows_stays_linear_in_small_deltas() {
    use crate::response::linearity::{assert_grows_linearly, stream_in_deltas};
    let tools = json!([{"type": "function", "function": {"name": "search_web",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]);
    let call = "{\"name\": \"search_web\", \"arguments\": {\"query\": \"";
    for (lead, with_tools, model) in [
        (format!("我搜一下。\n```tool_call\n{call}"), false, None),
        (format!("我搜一下。\n```tool_call\n{call}"), true, None),
        (format!("我搜一下。\n```json\n{call}"), true, None),
        (format!("我搜一下。\n```json\n{call}"), true, Some("gpt-4o")),
        (format!("```tool_call\n{call}"), false, Some("gpt-4o")),
        // Whole lines of the call before the one still arriving.
        (
            "好的。\n```json\n{\n  \"name\": \"search_web\",\n  \"arguments\": {\"query\": \""
                .to_owned(),
            true,
            None,
        ),
    ] {
        let opts = Options {
            tools: with_tools.then(|| tools.clone()),
            model: model.map(str::to_owned),
            ..Options::default()
        };
        let make = |n: usize| format!("{lead}{}", "北京abc ".repeat(n / 10));
        assert_grows_linearly(&format!("{lead:?} {with_tools} {model:?}"), &make, &|t| {
            stream_in_deltas(&opts, t, 16)
        });
    }
}

/// An example fence streamed line by line holds back the line of a marker whose confirmation
/// reads past what has come (a nameless `<invoke>` before its `{` line, DSML's `<|` before its
/// word): the look goes on from the held marker, so a fence of such lines, or a long line ending
/// in one, stays linear in small deltas.
#[test]
fn held_fence_lines_stay_linear_in_small_deltas() {
    use crate::response::linearity::{assert_grows_linearly, stream_in_deltas};
    let long = format!("{}<invoke>\n", "a".repeat(2000));
    for (label, line, format) in [
        ("nameless invokes", "<invoke>\nx\n", "tool_json"),
        ("long lines ending in an invoke", long.as_str(), "tool_json"),
        ("DSML bars", "<|\nx\n", "deepseek_v32"),
    ] {
        let opts = Options {
            format: Some(format.into()),
            ..Options::default()
        };
        let make = |n: usize| format!("说明：\n```\n{}", line.repeat(n / line.len()));
        assert_grows_linearly(label, &make, &|t| stream_in_deltas(&opts, t, 16));
    }
}

/// An example fence whose MiniMax-M3 token waits for a `</tool_call>` that never comes holds
/// everything after the token's line ([`super::fence_wait`]): the closer is looked for in the new
/// bytes only, later tokens are not asked again, and the words other markers need
/// (`[END_TOOL_REQUEST]` for every `[`) are searched for from where the look resumes, so 1 MB of
/// held lines in 16-byte deltas stays linear.
#[test]
fn a_fence_held_by_a_waiting_token_stays_linear_in_small_deltas() {
    use crate::response::linearity::{assert_grows_linearly, stream_in_deltas};
    for (label, lead, line, format) in [
        (
            "brackets and tags after one token",
            "]<]minimax[>[<a>\n",
            "x [y] <z>\n",
            None,
        ),
        (
            "a token on every line",
            "",
            "]<]minimax[>[<a>1\n",
            Some("minimax_m3"),
        ),
        (
            "a token on every line, auto",
            "",
            "]<]minimax[>[<a>[b]\n",
            None,
        ),
    ] {
        let opts = Options {
            format: format.map(str::to_owned),
            ..Options::default()
        };
        let make = |n: usize| format!("说明：\n```\n{lead}{}", line.repeat(n / line.len()));
        assert_grows_linearly(label, &make, &|t| stream_in_deltas(&opts, t, 16));
    }
}

#[test]
fn hunyuan_answer_after_text_waits_for_the_call_that_follows() {
    // Under format hunyuan_a13b, `<answer>` after visible text is the wrapper only when a
    // `<tool_call>` follows it: a stream one character at a time saw nothing after the tag yet
    // and kept it as text, while the reply read whole dropped it (the stream sweep's find).
    let tools = json!([{"type": "function", "function": {"name": "read",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]);
    let opts = Options {
        format: Some("hunyuan_a13b".into()),
        tools: Some(tools),
        ..Options::default()
    };
    for input in [
        "我来读取\n<answer><tool_call>{\"name\": \"read\", \"arguments\": {\"path\": \"a.txt\"}}</tool_call></answer>",
        "我来读取\n<answer>  \n<tool_call>{\"name\": \"read\", \"arguments\": {\"path\": \"a.txt\"}}</tool_call></answer>",
        "用 <answer> 包住答案。",
    ] {
        let whole = clean_response(input, &opts);
        let chars: Vec<String> = input.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        let streamed = crate::response::cases::streamed(&pieces, &opts);
        assert_eq!(streamed.content, whole.content, "{input}");
        assert_eq!(streamed.tool_calls.len(), whole.tool_calls.len(), "{input}");
    }
    // White space after the tag, in small pieces: the look at it is bounded.
    let make = |n: usize| format!("我来读取\n<answer>{}", " ".repeat(n));
    crate::response::linearity::assert_grows_linearly("answer + spaces", &make, &|t| {
        let pieces: Vec<&str> = t
            .as_bytes()
            .chunks(16)
            .map(|c| std::str::from_utf8(c).unwrap_or(""))
            .collect();
        crate::response::cases::streamed(&pieces, &opts);
    });
}
