//! Rust-only time of `clean_response` on `benchmark/code-spans.mjs`'s 50 KB replies, with the
//! code-span and fence tracking on (the default) and off (`markup_in_code`), interleaved in one
//! process. No boundary, so a profiler (`perf record`) sees the cleaning machine alone:
//! `cargo run --release --example code_spans_rate [case] [iterations] [on|off]`
//! (cases: `ascii-code`, `zh-code`, `ascii`, `zh`).

use std::hint::black_box;
use std::time::Instant;

use transcript_hygiene::response::{clean_response, Options};

const EN: &str = "The parser reads `cleanResponse(text)` and returns the visible text; see [the docs](x) for a < b. ";
const ZH: &str = "模型的回复会经过清理，`cleanResponse` 返回可见文本，a < b 时请参考文档。";
const FENCE: &str =
    "\n```js\nconst r = cleanResponse(text, { model })\nif (r.toolCalls.length > 0) run(r.toolCalls)\n```\n";
const CALL: &str = "\n<minimax:tool_call>\n<invoke name=\"search_web\">\n<parameter name=\"query\">北京天气</parameter>\n</invoke>\n</minimax:tool_call>\n";

/// `benchmark/code-spans.mjs`'s reply: `unit` repeated to 50 KB (a fence after every sixth
/// when `with_code`), after a `<think>` block, then one MiniMax call.
fn reply(unit: &str, with_code: bool) -> String {
    let mut s = String::from("<think>先想一想 the plan</think>\n");
    let mut i = 0;
    while s.len() < 50_000 {
        s.push_str(unit);
        if with_code && i % 6 == 5 {
            s.push_str(FENCE);
        }
        i += 1;
    }
    s + CALL
}

fn time(text: &str, opts: &Options, iters: usize) -> f64 {
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
    let which = args.get(3).map(String::as_str);
    let on = Options::default();
    let off = Options {
        markup_in_code: true,
        ..Options::default()
    };
    let both = format!("{EN}{ZH}");
    let cases = [
        ("ascii-code", reply(EN, true)),
        ("zh-code", reply(&both, true)),
        ("ascii", reply(&EN.replace('`', ""), false)),
        ("zh", reply(&both.replace('`', ""), false)),
    ];
    for (name, text) in cases.iter().filter(|(n, _)| only.is_none_or(|o| o == *n)) {
        for o in [&on, &off] {
            assert_eq!(clean_response(text, o).tool_calls.len(), 1);
        }
        match which {
            Some("on") => println!("{name}: on {:.1} µs", time(text, &on, iters)),
            Some("off") => println!("{name}: off {:.1} µs", time(text, &off, iters)),
            _ => {
                // Interleaved rounds; the median ratio.
                let mut ratios = Vec::new();
                let (mut best_on, mut best_off) = (f64::MAX, f64::MAX);
                for _ in 0..9 {
                    let a = time(text, &off, iters / 9 + 1);
                    let b = time(text, &on, iters / 9 + 1);
                    best_off = best_off.min(a);
                    best_on = best_on.min(b);
                    ratios.push(b / a);
                }
                ratios.sort_by(f64::total_cmp);
                println!(
                    "{name}: {} bytes, off {best_off:.1} µs, on {best_on:.1} µs, on/off median {:.3} (range {:.3}-{:.3})",
                    text.len(),
                    ratios[4],
                    ratios[0],
                    ratios[8]
                );
            }
        }
    }
}
