//! Linearity tests: adversarial replies (openers that never close, nested braces, runs of `<` and
//! `[`) for every family, cleaned at 100 KB and at 1 MB; the time must grow about tenfold (the
//! ratio of the two times is at most 15), never by the square. A ratio, never an absolute time,
//! and of the thread's CPU time (`crate::test_clock`), so the tests hold on a loaded machine.

use super::{clean_response, Options};

/// Best timing of `f` on `make(size)`, per copy of `copies` distinct copies cleaned in turn. A
/// fast input is timed again (up to five runs, until 50 ms were spent): one run of a few
/// milliseconds on a shared machine can take a preemption and read as a 50× step.
fn best_time(make: &dyn Fn(usize) -> String, size: usize, copies: usize, f: &dyn Fn(&str)) -> f64 {
    let texts: Vec<String> = (0..copies).map(|_| make(size)).collect();
    let mut best = f64::MAX;
    let mut spent = 0.0;
    for _ in 0..5 {
        let (took, ()) = crate::test_clock::time(|| {
            for text in &texts {
                f(text);
            }
        });
        best = best.min(took / copies as f64);
        spent += took;
        if spent >= 0.05 {
            break;
        }
    }
    best
}

/// The ratio of the 1 MB time to the 100 KB time of `f` on `unit`. The 100 KB time is taken over
/// ten distinct copies cleaned in turn, so both sizes read their text from memory: one 100 KB
/// text cleaned again and again sits in the cache and would run faster per byte than 1 MB for
/// reasons that have nothing to do with the algorithm (measured: a 3.5× step between 200 KB and
/// 400 KB on a linear scan).
pub(crate) fn growth(make: &dyn Fn(usize) -> String, f: &dyn Fn(&str)) -> f64 {
    let small = best_time(make, 100_000, 10, f);
    let large = best_time(make, 1_000_000, 1, f);
    // A floor on the small time keeps timer resolution from inflating the ratio.
    large / small.max(1e-4)
}

/// Assert that `f` grows linearly on `unit`, measuring up to three times before failing (a slow
/// run on a shared machine, with other tests running beside it, is noise; a quadratic scan is
/// 100× every time).
pub(crate) fn assert_linear(label: &str, unit: &str, f: &dyn Fn(&str)) {
    assert_grows_linearly(
        &format!("{label}: {unit:?}"),
        &|n| unit.repeat(n / unit.len().max(1)),
        f,
    );
}

/// The same for inputs of `n` bytes made by `make` (for inputs that are not one unit repeated).
pub(crate) fn assert_grows_linearly(label: &str, make: &dyn Fn(usize) -> String, f: &dyn Fn(&str)) {
    assert_growth_within(label, make, f, 15.0);
}

/// `f` on `make(1 MB)` takes at most `bound` times as long as on `make(100 KB)`, in one of three
/// measurements.
pub(crate) fn assert_growth_within(
    label: &str,
    make: &dyn Fn(usize) -> String,
    f: &dyn Fn(&str),
    bound: f64,
) {
    let mut seen = Vec::new();
    for _ in 0..3 {
        let g = growth(make, f);
        if g <= bound {
            return;
        }
        seen.push(format!("{g:.1}×"));
    }
    panic!(
        "{label} took {} longer at 1 MB than at 100 KB (at most {bound:.0}×)",
        seen.join(", then ")
    );
}

/// `t` streamed through a cleaner with `opts` in deltas of about `delta` bytes (each cut at a
/// character boundary), then finished: the streamed half of a reader's linearity row.
pub(crate) fn stream_in_deltas(opts: &Options, t: &str, delta: usize) {
    let mut s = super::stream::StreamCleaner::new(opts.clone());
    let mut at = 0;
    while at < t.len() {
        let mut end = super::scan::floor(t, (at + delta).min(t.len()));
        if end <= at {
            end = at + t[at..].chars().next().map_or(1, char::len_utf8);
        }
        let _ = s.push(&t[at..end]);
        at = end;
    }
    let _ = s.finish();
}

fn clean_with(format: &'static str) -> impl Fn(&str) {
    move |text: &str| {
        let o = Options {
            format: Some(format.to_owned()),
            ..Options::default()
        };
        let c = clean_response(text, &o);
        assert!(c.content.len() + c.reasoning.len() <= text.len() + 1);
    }
}

/// `(unit, formats)`: the adversarial unit and the formats it is cleaned with (`auto` when the
/// list is empty: the unit's markers are read in `auto`, by the same parser).
const CASES: &[(&str, &[&str])] = &[
    ("<tool_call>{", &["xlam", "auto"]),
    // Indented code blocks: each after a paragraph and a blank line (quoted, passed over line by
    // line), and indented lines right under a sentence (not code: each marker asks again).
    ("例子：\n\n    <tool_call>{\n    <think>\n", &["auto", "hermes", "llama3_json"]),
    ("x\n    <tool_call>{\n    </think> ", &["auto", "hermes"]),
    (
        "<tool_call>{\"name\": \"f\", \"arguments\": {",
        &["hermes", "xlam"],
    ),
    (
        "{\"name\": \"f\", \"arguments\": {",
        &["llama3_json", "xlam"],
    ),
    ("{{{{[[[[", &["xlam", "mistral"]),
    ("<<<<[[[[", &["auto"]),
    ("<tool_call>f<arg_key>k</arg_key><arg_value>", &["glm45"]),
    ("<tool_call><function=f><parameter=a>", &["qwen3_coder"]),
    ("<function=f><parameter=a>", &["qwen3_coder"]),
    (
        "<minimax:tool_call><invoke name=\"x\"><parameter name=\"y\">",
        &["minimax_m2"],
    ),
    (
        "<invoke name=\"x\"><parameter name=\"y\">",
        &["minimax_m2", "auto"],
    ),
    (
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\">",
        &["deepseek_v32"],
    ),
    (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>",
        &["deepseek_v3"],
    ),
    (
        "<|tool_calls_section_begin|><|tool_call_begin|>f:1<|tool_call_argument_begin|>",
        &["kimi_k2"],
    ),
    ("[TOOL_CALLS]f[ARGS]{\"a\": \"", &["mistral"]),
    ("[TOOL_CALLS][{", &["mistral"]),
    (
        "[TOOL_CALLS]f[CALL_ID]a1B2c3D4e[ARGS]{\"a\": \"",
        &["mistral", "auto"],
    ),
    ("[TOOL_CALLS]f[CALL_ID]", &["mistral", "auto"]),
    ("<|python_tag|>{", &["llama3_json"]),
    ("[f(a=\"", &["pythonic"]),
    ("<|python_start|>[f(", &["llama4_pythonic"]),
    (
        "<|start|>assistant<|channel|>commentary to=functions.f json<|message|>{",
        &["gpt_oss"],
    ),
    ("<seed:tool_call><function=f><parameter=a>", &["seed_oss"]),
    ("<tool_calls>{", &["minimax_m1"]),
    ("<tool_calls>[", &["hunyuan_a13b"]),
    ("<think>", &[]),
    // Gemma's lone end tokens: each waits for what follows (end of the reply or not).
    ("<eos> \n", &[]),
    ("答<end_of_turn>", &[]),
    // Other end and role tokens, a colon before one, and GLM-V's answer box.
    ("答<|im_end|>：<|eot_id|>", &[]),
    ("<|begin_of_box|>答<|end_of_box|>", &[]),
    ("</think>", &["minimax_m2"]),
    ("<|action_start|><|plugin|>{", &["internlm2"]),
    ("<longcat_tool_call>{", &["longcat"]),
    (
        "<longcat_tool_call>f <longcat_arg_key>k</longcat_arg_key> <longcat_arg_value>",
        &["longcat", "auto"],
    ),
    (
        "<longcat_tool_call>f<longcat_arg_key>k</longcat_arg_key><longcat_arg_value>值</longcat_arg_value>",
        &["longcat", "auto"],
    ),
    ("functools[{", &["phi4_mini"]),
    ("<function_call>{", &["granite_20b_fc"]),
    ("function call<|role_sep|>{", &["gigachat3"]),
    ("<function_calls>\nf(", &["olmo3"]),
    ("<|tool_call>call:f{a:<|\"|>", &["gemma4"]),
    ("<|tool_call>call:g:m:f{a:'x',", &["gemma4"]),
    ("call:f{a:{", &["gemma4"]),
    (
        "<‖DSML‖tool_calls><｜｜DSML｜｜invoke name=\"f\">",
        &["deepseek_v4"],
    ),
    ("< | DSML", &["deepseek_v4", "auto"]),
    // A self-closing invoke (a parameter) inside an invoke, one cut before its `>`, the
    // section opener with a trailing bar, and the opener that lost its head.
    (
        "<|DSML|invoke name=\"f\"><|DSML|invoke name=\"g\" string=\"x\" />",
        &["deepseek_v4", "auto"],
    ),
    ("<|DSML|invoke name=\"f\"><|DSML|invoke name=\"g\" string=\"x", &["auto"]),
    ("<|DSML|tool_calls| \n", &["deepseek_v4", "auto"]),
    ("< calls>\n<|DSML|invoke name=\"f\">", &["deepseek_v4", "auto"]),
    ("< calls>\n", &["auto"]),
    // dsml12: self-closing invokes outside an invoke (calls) and without `string` inside one;
    // a garbled section opener before each invoke, alone on its line, and lines that may still
    // become one (held to their line's end); a DSML opener and a section closer cut by the end.
    ("<|DSML|invoke name=\"f\"/>\n", &["deepseek_v4", "auto"]),
    (
        "<|DSML|invoke name=\"f\"><|DSML|invoke name=\"g\" />",
        &["deepseek_v4", "auto"],
    ),
    (
        "<中｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\"></｜DSML｜invoke>\n",
        &["deepseek_v4", "auto"],
    ),
    ("中｜DSML｜tool_calls>\n好\n", &["auto"]),
    ("中｜DSML｜tool\n<中DSML", &["auto"]),
    ("好\n<｜DSML｜inv", &["auto"]),
    ("<｜DSML｜invoke name=\"f\"></｜DSML｜invoke>\n</ | DSML | tool_ca", &["auto"]),
    // dsml12b: the first bar missing on every tag (the stream's `<D` start): unclosed invokes,
    // `<D` that is no DSML (in code spans too), a cut opener and a cut section closer.
    (
        "<DSML｜tool_calls><DSML｜invoke name=\"f\">",
        &["deepseek_v4", "auto"],
    ),
    ("<DSML tool `<Dx` <D", &["auto"]),
    ("好\n<DSML｜inv", &["auto"]),
    ("<DSML|invoke name=\"f\"></DSML|invoke>\n</DSML|tool_ca", &["auto"]),
    // Kimi K3's reasoning markers cut after a whole token, the last at the reply's end.
    ("好的<|open|>think<|s", &["auto", "pythonic"]),
    ("北京\n<|close|>thi", &["auto", "pythonic"]),
    // A value holding invoke openers (one value to the end) and values each holding an opener
    // and a section closer: text, not markup ([`super::dsml_values`]).
    (
        "<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\">x<｜DSML｜invoke name=\"g\">",
        &["deepseek_v32", "auto"],
    ),
    (
        "<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\"><｜DSML｜invoke name=\"g\"></｜DSML｜function_calls></｜DSML｜parameter>",
        &["deepseek_v32", "auto"],
    ),
    ("<|tool_call>call:f{", &["auto"]),
    ("<|tool_call_start|>[f(", &["auto"]),
    ("[TOOL_CALL]{tool => \"f\", args => {--a \"", &["auto"]),
    ("[TOOL_CALL][TOOL_REQUEST][/TOOL_CALL]", &["auto"]),
    (
        "[f]\n{\"a\": [END_TOOL_REQUEST]",
        &["auto", "bracket_calls"],
    ),
    ("[TOOL_CALL]{", &["auto"]),
    ("[TOOL_CALL]{tool => \"f\"} x ", &["auto"]),
    ("<｜DSML｜toolcall>f\n```json\n{", &["auto", "deepseek_v4"]),
    ("<｜DSML｜toolcall>f\n{\"a\": 1}\n", &["auto"]),
    ("<‖DSML‖toolcall>", &["auto"]),
    ("<tool_call>f<arg_key>k</arg_key>v ", &["glm45", "auto"]),
    ("<tool_call>字符\n", &["auto"]),
    ("<tool_call>f k</arg_key><arg_value>值", &["auto"]),
    ("<tool_call>f</arg_value>", &["auto"]),
    ("<tool_call>f>{\"a\": ", &["auto", "glm47"]),
    ("<tool_call>a/b>{", &["auto"]),
    ("<tool_call>f>{\"a\": 1}</tool_call>", &["auto"]),
    ("<|open|>toolscall tool=\"f\"<|sep|>", &["auto"]),
    ("<|close|>toolstools<|sep|><|close|>", &["auto", "kimi_k3"]),
    ("<tool_call name=\"f\">{\"a\": \"</tool_call>", &["auto"]),
    (
        "<tool_calls>\n<tool_call name=\"f\">{",
        &["auto", "named_tool_call"],
    ),
    (
        "<tool_call id=\"c\" name=\"f\">{\"a\": \"",
        &["auto", "attr_tool_call"],
    ),
    (
        "<tool_call id=\"c\" name=\"f\">{{",
        &["auto", "attr_tool_call"],
    ),
    // Openers inside a cut argument's string ([`super::json_calls::cut_block_end`]).
    (
        "<tool_call>{\"q\": \"北京 <tool_call> ",
        &["hermes", "auto"],
    ),
    ("[TOOL_CALLS]f[ARGS]{\"q\": \"[TOOL_CALLS]", &["mistral"]),
    ("[TOOL_CALLS][{\"q\": \"[TOOL_CALLS] ", &["auto"]),
    (
        "<function_call> {\"t\": \"<function_call> ",
        &["granite_20b_fc"],
    ),
    // A GLM value holding its own closer.
    (
        "<tool_call>f<arg_key>k</arg_key><arg_value>值</arg_value>",
        &["glm45", "auto"],
    ),
    ("<arg_value>值</arg_value></arg_value>", &["glm47"]),
    // Gemma's `call:NAME({json})`.
    ("<|tool_call>call:f({\"a\": \"", &["auto"]),
    ("call:f({", &["gemma4"]),
    // A cut call whose string stays open through every later opener (`\"` keeps it open read
    // from either side), a complete call after each ([`super::json_calls::cut_block_end`]).
    (
        "[TOOL_CALLS]f[ARGS]{\"a\": \"北\\\"[TOOL_CALLS]g[ARGS]{\"b\": \"京\"}",
        &["auto"],
    ),
    (
        "<tool_call>{\"a\": \"北\\\"<tool_call>{\"b\": \"京\"}",
        &["hermes"],
    ),
    // Doubled braces (`json_calls::doubled_braces`): blocks that repair, that do not, and one
    // doubled body that never closes.
    (
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"q\": \"北京\"}}}}</tool_call>",
        &["hermes", "auto"],
    ),
    (
        "<tool_call>{{\"name\": \"f\", \"arguments\": {\"q\": 1}}</tool_call>",
        &["hermes"],
    ),
    (
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{",
        &["hermes"],
    ),
    // Lone openers ([`super::orphan::LONE`]), GLM argument pairs outside any call (with and
    // without their `</arg_value>`, after removed markup), a Kimi section whose end token is cut.
    ("<tool_call>\n", &["auto", "hermes"]),
    ("<function\n", &["auto"]),
    ("好\n<seed:tool_call>", &["auto", "seed_oss"]),
    ("好\n[TOOL_CALLS]", &["auto", "mistral"]),
    ("<tool_call>\n<", &["auto", "hermes"]),
    // Heads cut at the end ([`super::stream`]'s held cut calls, garbled names): each unit's head
    // is text until the last one, which the reply's end cuts.
    ("好\nfunction=f\">\n<par", &["auto", "qwen3_coder"]),
    ("好\n<name>f", &["auto", "qwen3_coder"]),
    ("\n<arg_key>k</arg_key><arg_value>", &["auto"]),
    ("\n<arg_key>k</arg_key><arg_value>值</arg_value> ", &["auto", "glm47"]),
    ("<tool_call>f</tool_call><arg_key><arg_value>值</arg_value>", &["auto"]),
    (
        "<|tool_calls_section_begin|><|tool_call_begin|>f:1<|tool_call_argument_begin|>{}<|tool_call_end|> <|tool_calls_sec",
        &["kimi_k2", "auto"],
    ),
    // Kimi calls with no begin tokens nor `functions.` prefix, each alone on its line (closed by a
    // section's end token, never closed); orphan XML closers on their lines; Hunyuan's wrapper
    // after visible text and a nameless `<invoke>` around JSON that never closes.
    (
        "\nf:0<|tool_call_argument_begin|>{\"a\": \"北\"}<|tool_calls_section_end|>",
        &["auto"],
    ),
    ("\nf:0<|tool_call_argument_begin|>{", &["auto", "kimi_k2"]),
    ("好\n</parameter>\n</invoke>\n", &["auto"]),
    // DSML's orphan closers in their bar spellings, and a spaced head that never closes.
    ("好\n</｜DSML｜parameter>\n</ ‖ DSML ‖ invoke >\n", &["auto"]),
    ("好 </ | DSML | tool_calls ", &["auto"]),
    ("好 <answer> 答 </answer> <tool_calls> ", &["auto", "hunyuan_a13b"]),
    ("<invoke>\n{\"a\": ", &["auto"]),
    // Gemma 4's stripped thought channel: one that closes, and the word with no closer.
    ("thought\n想一想<channel|>", &["gemma4"]),
    ("thought\n想一想 ", &["gemma4"]),
    // The same in `auto` (the stream holds the start until `<channel|>` or the end), with
    // backticks counted on the way; the form without the word stops at the start region.
    ("thought\n想一想 `", &["auto"]),
    ("想一想\n<|channel", &["gemma4"]),
    // Gemma 4's `<|channel>` named in sentences: each read for the words on both sides (the
    // spaces before it, the label and the spaces after it); and one after a line's spaces.
    ("说 <|channel>thought  是开头", &["auto", "llama3_json"]),
    ("说   <|channel>", &["auto"]),
    // FunctionGemma's blocks, never closed; Gemma's `<unusedNNNN>` tokens, each waiting for the
    // next, and cut ones.
    ("<start_function_call>call:f{a:<escape>", &["auto"]),
    ("<unused49>", &[]),
    ("答<unused1 ", &[]),
    // A `<final>` in reasoning never closed: held to the end, read once there (the reply ending
    // with `</final>` or not).
    ("<think><final>答</final>", &[]),
    ("<think><final>答 ", &[]),
    // The wrapper's markers in a reply read whole (a plain-text family), and Harmony headers
    // with no `<|message|>`, each read up to its prose.
    ("<final>答</final", &["llama3_json"]),
    (
        "<|channel|>commentary to=functions.f <|constrain|>json 北京",
        &["gpt_oss", "auto"],
    ),
    // Hermes' `[Calling tool: NAME with arguments: {…}]`: complete, never closed, not followed by
    // `]`, with typographic quotes.
    // (Words between the heads keep the test's time down; a look-ahead per head would still be
    // a thousandfold step.)
    (
        "[Calling tool: f with arguments: {\"a\": 1}] 好的，继续。",
        &["auto"],
    ),
    ("[Calling tool: f with arguments: {“a”: “北", &["auto"]),
    (
        "[Calling tool: f with arguments: {} x 然后是一段说明文字。",
        &["auto"],
    ),
    // MiniMax-M3 fragments that never reach `</tool_call>`: cut by the reply's end, quoted in
    // prose (each asks what the reply's end says), followed by prose.
    ("中]<]minimax[>[<a>1", &["auto"]),
    ("“]<]minimax[>[<a>1”", &["auto"]),
    (
        "]<]minimax[>[<a>1]<]minimax[>[</a> 之后还有一段正文，说明片段没被解析。",
        &["auto"],
    ),
    // A reply ending inside a call's closer: the block, closer completed, is read once more.
    (
        "[TOOL_CALL]{\"tool\": \"f\", \"args\": {\"a\": \"值\"}}\n[/T",
        &["auto"],
    ),
    ("<tool_call>f</to", &["auto"]),
    // A reply ending in a closing tag cut after a call's last value closed, or after a bare GLM
    // name ([`super::glm45`], [`super::qwen3_coder`], [`super::xml_invoke`]: the cut tag looked
    // for once, at the block's end).
    ("<tool_call>f<arg_key>k</arg_key><arg_value>值</arg_value>\n</", &["auto"]),
    ("<tool_call>\n<function=f>\n<parameter=a>\n值\n</parameter>\n</fun", &["auto"]),
    (
        "<minimax:tool_call><invoke name=\"x\"><parameter name=\"y\">值</parameter></inv",
        &["auto"],
    ),
    ("好<tool_call>tool_12</", &["auto"]),
    // Without tools: a call tag around a call object alone (read, never closed, or its closer
    // not ending the line); Google's `tool_code` fence; an invented result opening the reply
    // then the same tags later; Kimi calls whose ids open their lines.
    (
        "<invoke>\n{\"name\": \"f\", \"arguments\": {\"a\": \"北\"}}\n</invoke>\n",
        &["auto"],
    ),
    ("\n<tool_use>{\"name\": \"f\", \"arguments\": {", &["auto"]),
    ("\n<invoke>{\"name\": \"f\", \"arguments\": {}}</invoke> 好", &["auto"]),
    (
        "```tool_code\nprint(default_api.f(a = \"北\"))\n```\n",
        &["auto"],
    ),
    ("```tool_code\nf(a = \"北\"\n", &["auto"]),
    ("[TOOL_RESULT]\n北 [END_TOOL_RESULT] 京\n", &["auto"]),
    // A stray word before each bare invoke ([`super::stray_word`]), lone words with no invoke
    // after them (each held to its line's end), and invented results in json fences after calls
    // ([`super::stream`]'s invented).
    (
        "court\n<invoke name=\"f\"><parameter name=\"a\">北</parameter></invoke>\n",
        &["auto"],
    ),
    ("court\ncount\n好\n", &["auto"]),
    (
        "<invoke name=\"f\"><parameter name=\"a\">北</parameter></invoke>\n```json\n{\"a\": 1}\n```\n",
        &["auto"],
    ),
    // Repeated, an invented fence between toolcall blocks that run to the reply's end: each
    // split reads the rest again, within a budget of the reply's length (dsml12).
    ("<｜DSML｜toolcall>f\n{\"a\": 1}\n```json\n{\"b\": \"北\"}\n```\n", &["auto"]),
    // A stray word before each invoke, the last cut by the reply's end (dsml12); the last one
    // cut inside its opener (dsml12c).
    ("court\n<invoke name=\"f\"><parameter name=\"a\">北", &["auto"]),
    ("court\n<invo", &["auto"]),
    // DSML sections opened again before their closer, each after an invented fence or prose
    // ([`super::dsml_reopened`]: the invokes read once more per block; each split within the
    // budget above), and with the opener inside a value.
    (
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\">北</｜DSML｜parameter></｜DSML｜invoke>\n```json\n{\"b\": 1}\n```\n",
        &["auto", "deepseek_v4"],
    ),
    (
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\">北</｜DSML｜parameter></｜DSML｜invoke>\n好\n",
        &["auto"],
    ),
    (
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\">北",
        &["auto"],
    ),
    // Runs of end tokens glued to text: a short run at the end goes as one, a long one is text.
    ("北<|end|><|endoftext|>", &["auto"]),
    ("<|end|>", &["auto"]),
    // Tokens and tags the reply's end may cut, each asked once at the end (cut29): an end token
    // before a cut one, Kimi K3's closer, MiniMax-M3's namespace token, `[tool_call: NAME] key:`
    // on its own line with no tools, Hunyuan's `<answer>` after reasoning, a named element's
    // string body.
    ("北<|end|><|endo", &["auto"]),
    ("好<|EOT|><｜t", &["auto"]),
    ("<|open|>response<|sep|>北<|close|>respon", &["auto"]),
    ("好]<]minimax[>[<a>北]<]minimax[>[</a>]<]mini", &["auto"]),
    ("\n[tool_call: f] k: \"北", &["auto"]),
    ("<think>北</think><answer>北", &["auto"]),
    ("<tool_call name=\"f\">\"北", &["auto"]),
    (
        "f:0<|tool_call_argument_begin|>{\"a\": \"北\"}<|tool_call_end|>\n",
        &["auto"],
    ),
    // User-turn headers (turn29, [`super::invented_turn`]): one on its own line ends the reply
    // (the rest read once into the invented turn); at a line's start inside a sentence, and after
    // a glued end token without ending its line, text each time.
    ("北\n<|user|>\n北", &["auto"]),
    ("<|im_start|>user 北\n", &["auto"]),
    ("北<|eot_id|><|start_header_id|>user<|end_header_id|> 北\n", &["auto"]),
    // The same read on the whole text by the plain-text families (turn12,
    // [`super::invented_turn::find`]): headers that do not end their line, each after a run of
    // end tokens (read back at most five) or whitespace; cut headers inside sentences.
    (
        "北<|eot_id|><|start_header_id|>user<|end_header_id|> 北\n",
        &["llama3_json", "pythonic"],
    ),
    (
        "<|eot_id|><|eot_id|><|eot_id|><|eot_id|><|eot_id|><|eot_id|><|start_header_id|>user<|end_header_id|>x",
        &["llama3_json", "auto"],
    ),
    ("<|im_end|>   \n   <|im_start|>user 北 ", &["olmo3", "auto"]),
    ("说 <|im_start|>us 北\n<|user|> 北", &["xlam", "auto"]),
    // Granite's and Harmony's headers, which open a turn with text on their line only after a
    // glued run of end tokens (turn12b): after a colon (named), and at a line's start in prose;
    // Llama 4's `<|eot|>` read back as a run token before a header that does not end its line.
    ("北：<|end|><|start|>user<|message|>北 ", &["gpt_oss", "auto"]),
    ("\n<|start_of_role|>user<|end_of_role|> 北 ", &["granite", "auto"]),
    (
        "北<|eot|><|header_start|>user<|header_end|> 北 ",
        &["llama4_pythonic", "auto"],
    ),
    // A Harmony user header after a gpt-oss message (mask12), named in a sentence: each asked
    // whether it opens a turn; Llama 4's, Llama 3's and Harmony's end tokens glued to words.
    (
        "<|channel|>final<|message|>北<|end|> 说 <|start|>user<|message|> 北 ",
        &["auto", "gpt_oss"],
    ),
    ("北<|eot|> 北<|end_of_text|> 北<|return|> ", &["auto"]),
    // DSML closers glued to words (dsml12d): each asked whether only closers and whitespace
    // follow it to the reply's end (a run of four read at most).
    ("北</｜DSML｜invoke></｜DSML｜tool_calls>\n", &["auto", "deepseek_v4"]),
    // Openers still undecided when the reply ends, each asked whether the reply ends inside the
    // call it starts (a window after it, [`super::stream`]'s cut_body).
    ("MiniMax 用 <invoke name=\"工具名\"> 包住参数，", &["auto"]),
    ("<tool_call>\n<fun", &["auto", "hermes"]),
    ("[TOOL_CALLS]get_", &["auto", "mistral"]),
    // Kimi's `◁think▷` and gpt-oss's `<|channel|>` named in sentences, each read for the words
    // after it; a `</think>` inside a sentence with a template that opens reasoning (the line
    // before the first read back once); JSON calls whose arguments sit under `"properties"`.
    ("说 ◁think▷（或类似） ◁/think▷ ", &["auto", "llama3_json"]),
    ("说 <|channel|> 这样 ", &["auto"]),
    ("下</think> token前 ", &["minimax_m2", "llama3_json"]),
    // Call openers named in sentences ([`super::call_in_sentence`]), each read for a word after
    // it, and the bare GLM call read to its closer and the spaces after it.
    ("支持 <｜DSML｜tool_calls>、<||DSML||tool_calls> 等格式 ", &["auto"]),
    ("用 <|tool_calls_section_begin|> 开头，", &["auto", "kimi_k2"]),
    ("例如 <tool_call>get_all_func</tool_call>. ", &["auto", "glm47"]),
    // The bare call after a word introducing an example ([`super::example_lead`], the line's
    // end kept as text goes by), and a word after a lone Kimi begin token read for the argument
    // token after it.
    ("例如 <tool_call>get_all_func</tool_call>\n", &["auto"]),
    ("用 <|tool_call_begin|> call_0 包 ", &["auto"]),
    (
        "<tool_call>{\"name\": \"f\", \"properties\": {\"a\": \"北\"}}</tool_call>\n",
        &["auto"],
    ),
    // Code read whole by the plain-text families (harm12c): each span and fence asked for the
    // family's openers and its reading, the fence that ends the reply once more for a call.
    (
        "说 `<|eot|>`\n```\n<|start|>user<|message|>北<|end|>\n```\n",
        &["gpt_oss", "llama4_pythonic"],
    ),
    // Call openers that are not a whole tag named in sentences (sent12a,
    // [`super::call_in_sentence`]): each read for the spaces before it and a word after it.
    ("以 <steptml:invoke 开头。 <｜DSML｜invoke 结束 ", &["auto", "step3", "deepseek_v4"]),
    ("以 ]<]minimax[>[<tool_call> 开头 剩 function<｜tool▁sep｜> 和 ", &["auto", "minimax_m3", "deepseek_v3"]),
    ("以 <|open|>call 开头 ", &["kimi_k3"]),
    // Turn ends named in sentences or leaked in runs ([`super::turn_end`]): the spaces around
    // each read once.
    ("北 <|eot|>   <|eom|> 北   ", &["llama4_pythonic"]),
    ("说 <|eot_id|> 北 <|eom_id|><|eot_id|>\n", &["llama3_json", "functionary_v32"]),
    // Harmony's `<|start|>` named in a sentence, read for the spaces and word after it.
    ("说 <|start|>   北 ", &["gpt_oss"]),
    // Markers named in sentences under their format (sent32b): each read for the spaces and
    // words on both sides, the reply then read in the pieces between them (once more); one
    // inside a call's argument is the call's (a search among the call blocks).
    ("说 <|python_start|> 北 ", &["llama4_pythonic"]),
    (
        "<|python_start|>[f(a=\" <|python_start|> \")]<|python_end|>说 <|python_start|> 北 ",
        &["llama4_pythonic"],
    ),
    ("说 assistantfinal 北 <|channel|>final<|message|> 北 ", &["gpt_oss"]),
    ("说 <|tool_call> 北 <tool_call|> 北 ", &["gemma4"]),
    ("说 <function_calls> 北 ", &["olmo3"]),
    ("说 <|close|>call<|sep|> 北 ", &["auto", "kimi_k3"]),
    ("说 <invoke name= 北 ", &["minimax_m2"]),
    ("说 functools[ 北 ", &["phi4_mini"]),
    // Hunyuan's `<answer>` asked whether a `<tool_call>` comes inside it (the searches
    // remembered), or right after it; Mistral's calls of tools not offered under `tool_json`,
    // whole or one cut object to the end.
    ("<answer>好", &["auto"]),
    ("<answer>\n<tool_call>", &["auto"]),
    ("[TOOL_CALLS]f[ARGS]{}", &["tool_json"]),
    ("[TOOL_CALLS]f[ARGS]{\"a\": \"", &["tool_json"]),
    // Its JSON forms under `tool_json`: a whole array (one fixed block each), a cut one.
    ("[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]", &["tool_json"]),
    ("[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": \"", &["tool_json"]),
];

#[test]
fn every_family_grows_linearly_on_adversarial_replies() {
    for &(unit, formats) in CASES {
        let auto: &[&str] = &["auto"];
        for &format in if formats.is_empty() { auto } else { formats } {
            eprintln!("linearity: {format} {unit:?}");
            assert_linear(format, unit, &clean_with(format));
        }
    }
}

/// Markup kept as code: every candidate marker in a code span is checked for what settles it,
/// some by a look at the whole span (a MiniMax-M3 fragment needs a `</tool_call>` after it, LM
/// Studio's `[` its `[END_TOOL_REQUEST]`). That look is taken once per span, so a fence holding a
/// fragment on every line stays linear (it was a search to the span's end per line: 1 MB took
/// seconds).
#[test]
fn markers_in_one_code_span_grow_linearly() {
    let fence = |line: &'static str| {
        move |n: usize| format!("说明：\n```\n{}```\n", line.repeat(n / line.len()))
    };
    for (label, line) in [
        ("m3 fragments in a fence", "]<]minimax[><a>\n"),
        ("cut m3 fragments in a fence", "]<]minimax[>[<a>1\n"),
        (
            "calling-tool heads in a fence",
            "[Calling tool: f with arguments: {}]\n",
        ),
        ("lm studio heads in a fence", "[f]\n{}\n"),
    ] {
        assert_grows_linearly(label, &fence(line), &clean_with("auto"));
    }
    // One long inline span full of cut fragments.
    assert_grows_linearly(
        "cut m3 fragments in an inline span",
        &|n: usize| format!("说明：`{}`。", "]<]minimax[>[<a>1 ".repeat(n / 20)),
        &clean_with("auto"),
    );
}

/// Heads held back as text while they may become a call, cut by the reply's end (cut12: Mistral's
/// `[TOOL_CALLS]NAME` under `tool_json`, Qwen3-Coder's lost-`<` head, with or without the start
/// of its tag after it, a garbled head's cut name),
/// with the tool offered: each unit's head is released as text when prose follows it, the last
/// is asked once at the end; whole and in 16-byte deltas.
#[test]
fn heads_cut_at_the_reply_end_grow_linearly() {
    let tools = serde_json::json!([{"type": "function", "function": {"name": "get_weather"}}]);
    for (unit, format) in [
        ("我查一下。[TOOL_CALLS]get_wea", "tool_json"),
        (
            "我查一下。[TOOL_CALLS]get_weather[CALL_ID]a1[AR",
            "tool_json",
        ),
        ("我查一下。\nfunction=get_weather\">\n<par", "auto"),
        ("我查一下。\nfunction=get_weather\">\n", "auto"),
        ("我查一下。\n<name>get_wea", "auto"),
    ] {
        let opts = Options {
            format: Some(format.to_owned()),
            tools: Some(tools.clone()),
            ..Options::default()
        };
        let make = |n: usize| unit.repeat(n / unit.len());
        assert_grows_linearly(&format!("{unit:?} {format}"), &make, &|t| {
            let _ = clean_response(t, &opts);
        });
        assert_grows_linearly(&format!("{unit:?} {format} streamed"), &make, &|t| {
            stream_in_deltas(&opts, t, 16)
        });
    }
}

/// FunctionGemma's call written again and again after its closing token without its opener
/// ([`super::functiongemma_chain`]), as a server that does not stop on the token lets it run to
/// `max_tokens`: every closing token asks whether the run goes on (the block so far parsed, up to
/// the stream machine's budget), whole and in 16-byte deltas; the run cut, or ended by prose that
/// starts with `call:`; and whitespace after a closing token arriving in small deltas.
#[test]
fn functiongemma_runs_of_calls_without_their_opener_grow_linearly() {
    let tools = serde_json::json!([{"type": "function", "function": {"name": "get_time",
        "parameters": {"type": "object", "properties": {}}}}]);
    let unit = "call:get_time{}<end_function_call>\n";
    for tail in ["call:get_ti", "call: 说明文字"] {
        let make = |n: usize| {
            format!(
                "<start_function_call>call:get_time{{}}<end_function_call>\n{}{tail}",
                unit.repeat(n / unit.len())
            )
        };
        let offered = Options {
            tools: Some(tools.clone()),
            ..Options::default()
        };
        let label = format!("functiongemma run + {tail:?}");
        for (label, opts) in [
            (label.clone(), Options::default()),
            (format!("{label} tools"), offered),
        ] {
            assert_grows_linearly(&label, &make, &|t| {
                let _ = clean_response(t, &opts);
            });
        }
        assert_grows_linearly(&format!("{label} streamed"), &make, &|t| {
            stream_in_deltas(&Options::default(), t, 16)
        });
    }
    let spaces = |n: usize| {
        format!(
            "<start_function_call>call:f{{}}<end_function_call>{}",
            " ".repeat(n)
        )
    };
    assert_grows_linearly("functiongemma closer + spaces", &spaces, &|t| {
        stream_in_deltas(&Options::default(), t, 16)
    });
}
