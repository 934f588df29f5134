//! Rust-only time of `clean_response` on the replies `benchmark/response.mjs` times through Node:
//! the call-dense 50 KB replies (a call every four paragraphs, one reply per format) and the
//! half-Chinese reply with a `<think>` block and one MiniMax call; and, with the twenty tools
//! `benchmark/tools-offered.mjs` offers, its replies dense in `{` (`ascii_code`, `zh_code`: JSON
//! and JS objects in code), timed with and without tools. No boundary, so a profiler
//! (`perf record`) sees the cleaning machine alone:
//! `cargo run --release --example clean_rate [format] [iterations]`. Beside the cleaning (as
//! `cleanResponse` runs it, recording the ranges its content keeps), the native steps the addon
//! adds, each timed alone: the reply's UTF-16 units transcoded, the content's plan of slices
//! made from the kept ranges, the rest written as JSON.

use std::hint::black_box;
use std::time::Instant;

use transcript_hygiene::response::{clean_response, json, Options};
use transcript_hygiene::{lone_surrogates, utf16_pieces};

#[path = "common/replies.rs"]
mod replies;

fn para(i: usize) -> String {
    format!("Paragraph {i}: the model explains what it is doing, with some detail about the files, the plan and the results so far. 中文说明也在这里。\n\n")
}

fn call(format: &str, i: usize) -> String {
    match format {
        "hermes" => format!("<tool_call>\n{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"src/file_{i}.rs\", \"limit\": {i}}}}}\n</tool_call>\n"),
        "qwen3_coder" => format!("<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/file_{i}.rs\n</parameter>\n<parameter=limit>\n{i}\n</parameter>\n</function>\n</tool_call>\n"),
        "glm47" => format!("<tool_call>read_file<arg_key>path</arg_key><arg_value>src/file_{i}.rs</arg_value><arg_key>limit</arg_key><arg_value>{i}</arg_value></tool_call>\n"),
        "minimax_m2" => format!("<minimax:tool_call>\n<invoke name=\"read_file\">\n<parameter name=\"path\">src/file_{i}.rs</parameter>\n<parameter name=\"limit\">{i}</parameter>\n</invoke>\n</minimax:tool_call>\n"),
        "deepseek_v31" => format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{\"path\": \"src/file_{i}.rs\", \"limit\": {i}}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n"),
        "kimi_k2" => format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:{i}<|tool_call_argument_begin|>{{\"path\": \"src/file_{i}.rs\", \"limit\": {i}}}<|tool_call_end|><|tool_calls_section_end|>\n"),
        _ => String::new(),
    }
}

/// `benchmark/response.mjs`'s call-dense reply for `format`.
fn dense(format: &str) -> String {
    let mut s = String::from(
        "<think>The user wants the files read; I will call read_file for each of them.</think>\n",
    );
    let mut i = 0;
    while s.len() < 50_000 {
        s.push_str(&para(i));
        if i % 4 == 3 {
            s.push_str(&call(format, i));
        }
        i += 1;
    }
    s
}

/// `benchmark/tools-offered.mjs`'s twenty tools.
fn tools() -> serde_json::Value {
    let names = [
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "search_web",
        "fetch_url",
        "exec",
        "bash",
        "grep",
        "glob",
        "todo_write",
        "ask_user",
        "get_weather",
        "send_message",
        "create_issue",
        "run_tests",
        "git_diff",
        "git_commit",
        "browser_open",
        "memory_save",
    ];
    serde_json::Value::Array(
        names
            .iter()
            .map(|n| {
                serde_json::json!({"type": "function", "function": {"name": n,
                    "description": format!("The {n} tool."),
                    "parameters": {"type": "object", "properties": {"path": {"type": "string"},
                        "query": {"type": "string"}, "limit": {"type": "integer"}}, "required": []}}})
            })
            .collect(),
    )
}

/// `benchmark/tools-offered.mjs`'s replies dense in `{`: `unit` repeated to 50 KB.
fn code_reply(format: &str) -> String {
    let unit = if format == "zh_code" {
        "把配置写成这样：`{\"retries\": 3}`，然后运行：\n\n```json\n{\"name\": \"构建\", \"steps\": [{\"run\": \"npm test\"}, {\"run\": \"npm run build\"}]}\n```\n\n"
    } else {
        "Set the options like this: `{\"retries\": 3}` and then\n\n```js\nconst cfg = { retries: 3, backoff: { base: 100, max: 2000 } }\nrun(cfg, { dryRun: false })\n```\n\n"
    };
    let mut s = String::new();
    while s.len() < 50_000 {
        s.push_str(unit);
    }
    s
}

/// µs per `clean_response` of `text` under `opts`, over `iters` calls.
fn clean_us(text: &str, opts: &Options, iters: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        black_box(clean_response(black_box(text), opts));
    }
    t.elapsed().as_secs_f64() * 1e6 / iters as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let only = args.get(1).map(String::as_str);
    let iters: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let opts = Options::default();
    let formats = [
        "hermes",
        "qwen3_coder",
        "glm47",
        "minimax_m2",
        "deepseek_v31",
        "kimi_k2",
        "half_chinese",
        "ascii_code",
        "zh_code",
    ];
    for f in formats.iter().filter(|f| only.is_none_or(|o| o == **f)) {
        if f.ends_with("_code") {
            // With ÷ without tools (the without run first, then alternating halves).
            let text = code_reply(f);
            let with = Options {
                tools: Some(tools()),
                ..Options::default()
            };
            let (a1, b1) = (
                clean_us(&text, &opts, iters / 2),
                clean_us(&text, &with, iters / 2),
            );
            let (b2, a2) = (
                clean_us(&text, &with, iters / 2),
                clean_us(&text, &opts, iters / 2),
            );
            let (a, b) = ((a1 + a2) / 2.0, (b1 + b2) / 2.0);
            println!(
                "{f}: {} bytes, without tools {a:.1} µs, with 20 tools {b:.1} µs, {:.2}×",
                text.len(),
                b / a
            );
            continue;
        }
        let text = if *f == "half_chinese" {
            replies::half_chinese()
        } else {
            dense(f)
        };
        let calls = clean_response(&text, &opts).tool_calls.len();
        // As `cleanResponse` cleans: the reply handed over and back, the ranges its content
        // keeps recorded (the content not written).
        let mut owned = text.clone();
        let t = Instant::now();
        for _ in 0..iters {
            let (c, kept, back) = utf16_pieces::clean_kept(black_box(owned), &opts);
            black_box((c, kept));
            owned = back;
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        // What the addon adds around it: the JS string's UTF-16 units transcoded in, the
        // content's plan of slices of the reply made from the kept ranges, the rest written as
        // JSON beside the calls' texts.
        let units: Vec<u16> = text.encode_utf16().collect();
        let t = Instant::now();
        for _ in 0..iters {
            black_box(lone_surrogates::transcode(black_box(&units)));
        }
        let transcode = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        let (c, kept, _) = utf16_pieces::clean_kept(text.clone(), &opts);
        let t = Instant::now();
        for _ in 0..iters {
            if let Some(kept) = &kept {
                black_box(kept.plan(black_box(&text), 128));
            }
        }
        let plan = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        let p = kept.as_ref().and_then(|k| k.plan(&text, 128));
        let t = Instant::now();
        for _ in 0..iters {
            // As the addon writes it: the calls' texts apart, the plan's and lengths' numbers.
            black_box(json::cleaned_to_json_apart(black_box(&c), p.as_deref()));
        }
        let json = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        println!(
            "{f}: {} bytes, {calls} calls, clean {us:.1} µs, transcode {transcode:.1} µs, plan {plan:.1} µs, json {json:.1} µs",
            text.len()
        );
    }
}
