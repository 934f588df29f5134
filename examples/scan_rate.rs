//! Rust-only scan rate of the response cleaner and the scrubbers on a reply without markers
//! (no Node, no boundary): `cargo run --release --example scan_rate`. The README reports it next
//! to the whole-call rates `npm run bench` measures through Node.

use std::hint::black_box;
use std::time::Instant;

use transcript_hygiene::response::{clean_response, Options};
use transcript_hygiene::scrub::{downgraded, minimax_xml, reasoning_tags, seed, special_tokens};

fn best_gbps(bytes: usize, runs: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    bytes as f64 / best / 1e9
}

fn main() {
    // 10 MB of prose: no `<`, `[` or backtick, so every prefilter says "nothing to do".
    let unit = "All quiet on the reply front; nothing to clean here, only words, 数字 and ü. ";
    let text = unit.repeat(10_000_000 / unit.len() + 1);
    let n = text.len();
    let opts = Options::default();
    println!(
        "{:.1} MB reply without markers, best of 20 runs:",
        n as f64 / 1e6
    );
    let rows: Vec<(&str, f64)> = vec![
        (
            "clean_response (prefilter + copy of the content)",
            best_gbps(n, 20, || {
                black_box(clean_response(black_box(&text), &opts));
            }),
        ),
        (
            "strip_minimax_tool_call_xml",
            best_gbps(n, 20, || {
                black_box(minimax_xml::strip_minimax_tool_call_xml(black_box(&text)));
            }),
        ),
        (
            "strip_model_special_tokens",
            best_gbps(n, 20, || {
                black_box(special_tokens::strip_model_special_tokens(black_box(&text)));
            }),
        ),
        (
            "strip_downgraded_tool_call_text",
            best_gbps(n, 20, || {
                black_box(downgraded::strip_downgraded_tool_call_text(black_box(
                    &text,
                )));
            }),
        ),
        (
            "strip_thinking_tags_from_text",
            best_gbps(n, 20, || {
                black_box(reasoning_tags::strip_thinking_tags_from_text(black_box(
                    &text,
                )));
            }),
        ),
        (
            "sanitize_tool_call (minimax)",
            best_gbps(n, 20, || {
                black_box(seed::sanitize_tool_call(
                    "minimax/m",
                    black_box(&text),
                    seed::Fallback::Auto,
                ));
            }),
        ),
    ];
    for (name, gbps) in rows {
        println!("  {name:<50} {gbps:>7.2} GB/s");
    }
}
