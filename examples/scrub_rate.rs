//! Rust-only time of the reply scrubbers' cores on the 50 KB replies with markup that
//! `benchmark/reply-vs-openclaw.mjs` times through Node (ASCII prose and half-Chinese prose, each
//! with a `<think>` block and one MiniMax call): the reasoning blocks, `sanitizeToolCall`'s core,
//! and OpenClaw's MiniMax and reasoning-tag rules on the proxy the addon builds. No boundary, so a
//! profiler (`perf record`) sees the rules alone:
//! `cargo run --release --example scrub_rate [step] [iterations]`, where step is one of
//! `blocks`, `sanitize`, `minimax`, `reasoning`.

use std::hint::black_box;
use std::time::Instant;

use transcript_hygiene::response::thinking::{find_blocks, Extra};
use transcript_hygiene::scrub::reasoning_tags::{strip_spliced_code_aware, TagMode, Trim};
use transcript_hygiene::scrub::seed::{sanitize_tool_call, Fallback};
use transcript_hygiene::scrub::splice::{proxy, Alphabet, Spliced};
use transcript_hygiene::scrub::{code_regions, minimax_xml};

#[path = "common/replies.rs"]
mod replies;

/// A named step and the call that runs it once.
type Step<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// µs per call of `f`, over `iters` calls.
fn rate(iters: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / iters as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let only = args.get(1).map(String::as_str);
    let iters: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let r1 = Extra {
        r1: true,
        ..Extra::default()
    };
    for (label, text) in [
        ("ASCII", replies::with_call(replies::EN)),
        ("half Chinese", replies::half_chinese()),
    ] {
        let units: Vec<u16> = text.encode_utf16().collect();
        let p = proxy(&units);
        let steps: [Step; 4] = [
            (
                "blocks",
                Box::new(|| drop(black_box(find_blocks(black_box(&text), r1)))),
            ),
            (
                "sanitize",
                Box::new(|| {
                    let out = sanitize_tool_call(
                        "minimax/MiniMax-M2.1",
                        black_box(&text),
                        Fallback::Auto,
                    );
                    drop(black_box(out));
                }),
            ),
            (
                "minimax",
                Box::new(|| {
                    let masked = code_regions::mask(black_box(&p));
                    let t = Spliced::of(masked.as_deref().unwrap_or(&p), Alphabet::Proxy);
                    drop(black_box(minimax_xml::strip_spliced(t)));
                }),
            ),
            (
                "reasoning",
                Box::new(|| {
                    let t = Spliced::of(black_box(&p), Alphabet::Proxy);
                    drop(black_box(strip_spliced_code_aware(
                        t,
                        TagMode::Strict,
                        Trim::Both,
                    )));
                }),
            ),
        ];
        for (name, f) in steps.iter().filter(|(n, _)| only.is_none_or(|o| o == *n)) {
            println!("{label}, {name}: {:.2} µs", rate(iters, f));
        }
    }
}
