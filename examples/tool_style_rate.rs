//! Where the time of `recoverToolBlocks` goes inside Rust (no Node): the benchmark's history shape
//! (2,000 flattened write_to_file / execute_command / list_files pairs, 1,000 plain turns) built
//! straight into the skeleton, then the skeleton read, the rules, and the answer written, timed
//! apart. `cargo run --release --example tool_style_rate`.

use std::time::Instant;

use serde_json::json;
use transcript_hygiene::tool_style::{self, flatten::call_text, model::History, recover};

fn main() {
    let file: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "{} | export function f{i}(a: number): number {{ return a * {i} }}",
                i + 1
            )
        })
        .collect();
    let file = file.join("\n");
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut msgs = Vec::new();
    let mut t = |s: String| {
        texts.push(Some(s));
        texts.len() - 1
    };
    let env =
        "<environment_details>\n# VSCode Visible Files\nsrc/server.ts\n</environment_details>";
    for i in 0..2000 {
        if i % 2 == 0 && i < 1000 {
            msgs.push(json!([
                "user",
                [
                    ["t", t(format!("Please continue with step {i}."))],
                    ["t", t(env.into())]
                ]
            ]));
            msgs.push(json!([
                "assistant",
                [["t", t(format!("Working on step {i}."))]]
            ]));
        }
        let (name, input) = match i % 3 {
            0 => (
                "write_to_file",
                json!({"path": format!("src/f{i}.ts"), "content": format!("{file}\n"), "line_count": 40}),
            ),
            1 => (
                "execute_command",
                json!({"command": format!("npm test -- --grep case{i}"), "cwd": null}),
            ),
            _ => (
                "list_files",
                json!({"path": format!("src/dir{i}"), "recursive": true}),
            ),
        };
        let prose = t(format!("I'll use {name} for step {i}."));
        let call = t(call_text(name, Some(&input)));
        msgs.push(json!(["assistant", [["t", prose], ["t", call]]]));
        let result = t(format!(
            "[{name} Result]\n\n[{name} for 'src/f{i}.ts'] Result:\n\n{file}"
        ));
        msgs.push(json!(["user", [["t", result], ["t", t(env.into())]]]));
    }
    let skeleton = json!({"op": "recover", "options": null, "msgs": msgs});
    let text = skeleton.to_string();
    let bytes: usize = texts.iter().flatten().map(String::len).sum();
    println!(
        "{} messages, {:.1} MB of text; best of 20 runs, ms:",
        msgs.len(),
        bytes as f64 / 1e6
    );
    let mut best = [f64::INFINITY; 4];
    for _ in 0..20 {
        let t0 = Instant::now();
        let h = History::from_skeleton(&text, texts.clone()).expect("history");
        let t1 = Instant::now();
        let r = recover::recover(&h, &recover::Options::default());
        let t2 = Instant::now();
        let out = r.to_json_string();
        let t3 = Instant::now();
        let all = tool_style::run(&text, texts.clone()).expect("run");
        let t4 = Instant::now();
        assert_eq!(r.recovered.len(), 2000);
        assert!(!out.is_empty() && !all.is_empty());
        for (b, d) in best.iter_mut().zip([t1 - t0, t2 - t1, t3 - t2, t4 - t3]) {
            *b = b.min(d.as_secs_f64() * 1e3);
        }
    }
    println!(
        "read skeleton (incl. text clone) {:.2} | rules {:.2} | answer JSON {:.2} | run (incl. text clone) {:.2}",
        best[0], best[1], best[2], best[3]
    );
    for op in ["detect", "openai"] {
        let mut v = skeleton.clone();
        v["op"] = json!(op);
        let v = v.to_string();
        let mut b = f64::INFINITY;
        for _ in 0..20 {
            let t0 = Instant::now();
            let out = tool_style::run(&v, texts.clone()).expect("run");
            b = b.min(t0.elapsed().as_secs_f64() * 1e3);
            assert!(!out.is_empty());
        }
        println!("run {op} (incl. text clone) {b:.2}");
    }
}
