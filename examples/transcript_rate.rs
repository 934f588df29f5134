//! Where the native half of one `sanitizeSessionHistory` call goes, without Node: the skeleton
//! parse, each rule of the 2026.3.23 pass in its order, and the plan written. It reads a skeleton
//! dumped by `node benchmark/dump-skeleton.mjs <dir>` (the codec's three channels for the benchmark
//! transcript of 1,000 and of 10,000 messages, and the suffix a turn appending 4 messages sends)
//! and prints the best µs of each step over many runs, then those of the continued turn:
//! `cargo run --release --target x86_64-unknown-linux-gnu --example transcript_rate -- <dir> 1000`
//! (`--target` shares the dependencies `npm run build` compiled). A third argument `2026.9.6`
//! times that release's whole pass instead (parse over the last run's model | pass | plan |
//! model kept); a fourth names the policy of `benchmark/bench.mjs` it runs (`anthropic`, the
//! default, `openai`, `google`, `mistral`: the policy 2026.9.6 resolves, as the benchmark gives
//! both sides). With the anthropic policy it then
//! times the 2026.9.6 continued turn too (`suffix96-<n>`: the suffix a turn appending 4 messages
//! sends in that release's mode); a fifth argument `turn` times only that, each turn in
//! `one_turn`, for `valgrind --tool=callgrind --toggle-collect='*one_turn*'` (instructions of the
//! turns alone, without the full pass that makes the prefix).
//! Built unstripped (`CARGO_PROFILE_RELEASE_STRIP=none`) it is also what `perf record` profiles.
//! `TRANSCRIPT_RATE_RUNS=k` runs each loop k times instead (callgrind: instructions of k calls).

use std::hint::black_box;
use std::time::Instant;

use transcript_hygiene::openclaw::OpenClawVersion;
use transcript_hygiene::transcript::incremental::Prefix;
use transcript_hygiene::transcript::model::Msg;
use transcript_hygiene::transcript::pipeline::{self, HistoryParams};
use transcript_hygiene::transcript::v2026_9::policy::{resolve_transcript_policy, ModelFields};
use transcript_hygiene::transcript::{incremental, ops, rules, skeleton, Ctx, NoSource};

/// How many times each loop runs: `default`, or `TRANSCRIPT_RATE_RUNS` when set.
fn runs(default: usize) -> usize {
    std::env::var("TRANSCRIPT_RATE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The three channels of a dumped skeleton: `<base>.u32` (codes), `<base>.f64` (numbers),
/// `<base>.txt` (strings).
struct Skel {
    codes: Vec<u32>,
    reals: Vec<f64>,
    strs: String,
}

fn load(base: &str) -> Skel {
    let codes = std::fs::read(format!("{base}.u32")).expect("the .u32 channel (see the header)");
    let codes = codes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        .collect();
    let reals = std::fs::read(format!("{base}.f64")).expect("the .f64 channel");
    let reals = reals
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let strs = std::fs::read_to_string(format!("{base}.txt")).expect("the .txt channel");
    Skel { codes, reals, strs }
}

impl Skel {
    fn parse(&self) -> Result<Vec<Msg>, String> {
        skeleton::parse(&self.codes, &self.reals, &self.strs)
    }

    fn parse_into(&self, msgs: &mut Vec<Msg>) -> Result<(), String> {
        skeleton::parse_into(&self.codes, &self.reals, &self.strs, msgs)
    }
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "/tmp".into());
    let n = std::env::args().nth(2).unwrap_or_else(|| "1000".into());
    if std::env::args().nth(3).as_deref() == Some("2026.3.23") {
        let policy = std::env::args()
            .nth(4)
            .unwrap_or_else(|| "anthropic".into());
        return whole_pass_2026_3(&dir, &n, &policy);
    }
    if std::env::args().nth(3).as_deref() == Some("2026.9.6") {
        let policy = std::env::args()
            .nth(4)
            .unwrap_or_else(|| "anthropic".into());
        let only_turn = std::env::args().nth(5).as_deref() == Some("turn");
        return whole_pass_2026_9(&dir, &n, &policy, only_turn);
    }
    let base = format!("{dir}/skel-{n}");
    let sk = load(&base);
    let params = HistoryParams {
        provider: Some("anthropic".into()),
        model_api: Some("anthropic-messages".into()),
        model_id: Some("claude-sonnet-4-5".into()),
        // The 2026.3.23 pass laid out above (the package default is 2026.9.6, which has no
        // incremental form).
        version: Some(OpenClawVersion::V2026_3_23),
        ..HistoryParams::default()
    };
    let policy = params.resolved_policy();
    let runs = runs(200);
    let mut best: Vec<(&str, f64)> = Vec::new();
    // As the boundary does, each run parses over the model the run before left (its messages
    // freed one by one as the new ones are read).
    let mut kept: Vec<Msg> = Vec::new();
    for _ in 0..runs {
        let mut laps: Vec<(&str, f64)> = Vec::new();
        let mut t = Instant::now();
        let mut lap = |name: &'static str, t: &mut Instant| {
            laps.push((name, t.elapsed().as_secs_f64() * 1e6));
            *t = Instant::now();
        };
        let mut msgs = std::mem::take(&mut kept);
        sk.parse_into(&mut msgs).expect("a valid skeleton");
        let input_len = msgs.len();
        lap("parse (over the last model)", &mut t);
        let source = NoSource;
        let mut ctx = Ctx::new(&source, false);
        let m = &mut msgs;
        rules::inter_session::annotate_inter_session_user_turns(m, &mut ctx);
        lap("inter_session", &mut t);
        black_box(rules::canonicalize::malformed_kinds(m));
        rules::canonicalize::canonicalize_assistant_content(m, &mut ctx);
        lap("canonicalize", &mut t);
        rules::images::sanitize_session_messages_images(
            m,
            &mut ctx,
            &pipeline::image_pass_options(&policy, params.limits),
        );
        lap("images + ids + signatures", &mut t);
        if policy.drop_thinking_blocks {
            rules::drop_thinking::drop_thinking_blocks(m, &mut ctx);
        }
        lap("drop_thinking", &mut t);
        rules::tool_call_inputs::repair_tool_call_inputs(m, &mut ctx, None);
        lap("tool_call_inputs", &mut t);
        if policy.repair_tool_use_result_pairing {
            black_box(rules::pairing::repair_tool_use_result_pairing(
                m,
                &mut ctx,
                &params.pairing,
            ));
        }
        lap("pairing", &mut t);
        rules::tool_result_details::strip_tool_result_details(m, &mut ctx);
        lap("tool_result_details", &mut t);
        rules::usage_snapshots::normalize_usage_snapshots(m, &mut ctx);
        lap("usage_snapshots", &mut t);
        if policy.apply_google_turn_ordering {
            rules::google_ordering::sanitize_google_turn_ordering(m, &mut ctx);
        }
        lap("google_ordering", &mut t);
        let out = ops::OpOutput::default();
        let (json, plan) = ops::response_json(m, input_len, &ctx, &out, Vec::new());
        black_box((json, plan));
        lap("plan written", &mut t);
        kept = msgs;
        lap("model kept", &mut t);
        for (k, (name, us)) in laps.into_iter().enumerate() {
            match best.get_mut(k) {
                Some(b) => b.1 = b.1.min(us),
                None => best.push((name, us)),
            }
        }
    }
    let total: f64 = best.iter().map(|b| b.1).sum();
    println!(
        "{base}: {} codes + {} numbers + {} bytes; best µs per step over {runs} runs",
        sk.codes.len(),
        sk.reals.len(),
        sk.strs.len()
    );
    for (name, us) in &best {
        println!("  {name:<28} {us:>9.1}");
    }
    println!("  {:<28} {total:>9.1}", "sum of the bests");
    incremental_turn(&format!("{dir}/suffix-{n}"), &sk, &params, None);
}

/// The native half of an incremental turn: the suffix from the session's cut on, parsed and run
/// as a continued pass (`incremental::sanitize_tracked` with the prefix of a full pass), the plan
/// written. The prefix is cloned for each run (its clone is timed alone and taken off). The
/// suffix must continue the full pass's cut: its messages and the prefix's make `total`.
fn incremental_turn(base: &str, sk: &Skel, params: &HistoryParams, total: Option<usize>) {
    let Ok(suffix) = std::fs::metadata(format!("{base}.u32")) else {
        return;
    };
    let suffix_sk = load(base);
    let mut msgs = sk.parse().expect("a valid skeleton");
    let source = NoSource;
    let mut ctx = Ctx::new(&source, false);
    let (_, prefix) = incremental::sanitize_tracked(&mut msgs, &mut ctx, params, None)
        .expect("a full pass never falls back");
    let prefix = prefix.expect("a cut");
    if let Some(total) = total {
        let len = suffix_sk.parse().map_or(0, |m| m.len());
        assert_eq!(
            prefix.cut + len,
            total,
            "{base}: not the suffix after this cut"
        );
    }
    let runs = runs(2000);
    let mut clone = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(prefix.clone());
        clone = clone.min(t.elapsed().as_secs_f64() * 1e6);
    }
    let mut best = [f64::INFINITY; 3];
    for _ in 0..runs {
        let prior = prefix.clone();
        let (laps, r) = one_turn(&suffix_sk, params, prior);
        for (b, l) in best.iter_mut().zip(laps) {
            *b = b.min(l);
        }
        // The session keeps the new prefix: its drop is not part of a turn.
        drop(r);
    }
    let [parse, pass, plan] = best;
    println!(
        "{base} ({} bytes): continued turn, best µs: parse {parse:.2} | pass {pass:.2} | plan {plan:.2} (prefix clone {clone:.2}, not counted)",
        suffix.len()
    );
}

/// One continued turn (parse | pass | plan written, µs), and what the pass returned (the new
/// prefix: the caller drops it, outside the turn).
#[inline(never)]
fn one_turn(sk: &Skel, params: &HistoryParams, prior: Prefix) -> ([f64; 3], impl Sized) {
    let source = NoSource;
    let t = Instant::now();
    let mut m = sk.parse().expect("a valid suffix");
    let input_len = m.len();
    let parse = t.elapsed().as_secs_f64() * 1e6;
    let t = Instant::now();
    let mut ctx = Ctx::new(&source, false);
    let r = incremental::sanitize_tracked(&mut m, &mut ctx, params, Some(prior));
    let r = black_box(r).expect("the suffix continues the prefix");
    let pass = t.elapsed().as_secs_f64() * 1e6;
    let t = Instant::now();
    let out = ops::OpOutput::default();
    black_box(ops::response_json(&m, input_len, &ctx, &out, Vec::new()));
    let plan = t.elapsed().as_secs_f64() * 1e6;
    ([parse, pass, plan], r)
}

/// The benchmark's params for `policy` (`benchmark/bench.mjs`'s names) in release `version`.
fn bench_params(name: &str, version: OpenClawVersion) -> HistoryParams {
    let (provider, api, model) = match name {
        "openai" => ("openai", "openai-responses", "gpt-5.2"),
        "google" => ("google", "google-generative-ai", "gemini-2.5-pro"),
        "mistral" => ("mistral", "openai-completions", "mistral-large"),
        _ => ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    };
    HistoryParams {
        provider: Some(provider.into()),
        model_api: Some(api.into()),
        model_id: Some(model.into()),
        // benchmark/side-by-side.mjs gives a session manager with no entries.
        session_entries: Some(Vec::new()),
        version: Some(version),
        ..HistoryParams::default()
    }
}

/// The native half of one 2026.3.23 `sanitizeSessionHistory` call as `benchmark/side-by-side.mjs`
/// makes it (no session: a full pass, the policy resolved from the params), on the skeleton
/// `skel-<n>-<policy>` (`/tmp`-style dumps of the codec's channels with that policy's read set).
/// Each phase is its own function, for `valgrind --tool=callgrind --toggle-collect='*full_*'`.
fn whole_pass_2026_3(dir: &str, n: &str, name: &str) {
    let base = format!("{dir}/skel-{n}-{name}");
    let skel = load(&base);
    let params = bench_params(name, OpenClawVersion::V2026_3_23);
    let mut best = [f64::INFINITY; 3];
    let mut kept: Vec<Msg> = Vec::new();
    for _ in 0..runs(200) {
        let t = Instant::now();
        let mut msgs = std::mem::take(&mut kept);
        let input_len = full_parse(&skel, &mut msgs);
        let parse = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        let source = NoSource;
        let mut ctx = Ctx::new(&source, false);
        full_pass(&mut msgs, &mut ctx, &params);
        let pass = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        full_plan(&msgs, input_len, &ctx);
        let plan = t.elapsed().as_secs_f64() * 1e6;
        kept = msgs;
        for (b, l) in best.iter_mut().zip([parse, pass, plan]) {
            *b = b.min(l);
        }
    }
    println!(
        "{base} (2026.3.23, {name}): best µs parse {:.1} | pass {:.1} | plan {:.1}",
        best[0], best[1], best[2]
    );
}

#[inline(never)]
fn full_parse(skel: &Skel, msgs: &mut Vec<Msg>) -> usize {
    skel.parse_into(msgs).expect("a valid skeleton");
    msgs.len()
}

#[inline(never)]
fn full_pass(msgs: &mut Vec<Msg>, ctx: &mut Ctx, params: &HistoryParams) {
    black_box(pipeline::sanitize_session_history(msgs, ctx, params));
}

#[inline(never)]
fn full_plan(msgs: &[Msg], input_len: usize, ctx: &Ctx) {
    let out = ops::OpOutput::default();
    black_box(ops::response_json(msgs, input_len, ctx, &out, Vec::new()));
}

/// The native half of one 2026.9.6 `sanitizeSessionHistory` call (the package default), by phase:
/// parse (over the last run's model) | the whole pass | plan written | model kept, best µs over
/// many runs.
fn whole_pass_2026_9(dir: &str, n: &str, name: &str, only_turn: bool) {
    let base = format!("{dir}/skel96-{n}");
    let sk = load(&base);
    let (provider, api, model) = match name {
        "openai" => ("openai", "openai-responses", "gpt-5.2"),
        "google" => ("google", "google-generative-ai", "gemini-2.5-pro"),
        // The benchmark process has no Mistral plugin: 2026.9.6's fallback for an unowned provider.
        "mistral" => ("mistral", "openai-completions", "mistral-large"),
        _ => ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    };
    let owner = if name == "mistral" {
        None
    } else {
        Some(provider)
    };
    let none = ModelFields::default();
    let (policy, policy_2026_9) = resolve_transcript_policy(owner, Some(api), Some(model), &none);
    let params = HistoryParams {
        provider: Some(provider.into()),
        model_api: Some(api.into()),
        model_id: Some(model.into()),
        version: Some(OpenClawVersion::V2026_9_6),
        policy: Some(policy),
        policy_2026_9,
        ..HistoryParams::default()
    };
    // The dumped suffix is the anthropic session's (benchmark/dump-skeleton.mjs).
    let turn = format!("{dir}/suffix96-{n}");
    let total = n.parse::<usize>().ok().map(|n| n + 4);
    if only_turn {
        return incremental_turn(&turn, &sk, &params, total);
    }
    let mut best = [f64::INFINITY; 4];
    // As the boundary does (both releases), each run parses over the model the run before left.
    let mut kept: Vec<Msg> = Vec::new();
    for _ in 0..runs(200) {
        let mut laps = [0.0; 4];
        let t = Instant::now();
        let mut msgs = std::mem::take(&mut kept);
        sk.parse_into(&mut msgs).expect("a valid skeleton");
        let input_len = msgs.len();
        laps[0] = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        let source = NoSource;
        let mut ctx = Ctx::new(&source, false);
        black_box(pipeline::sanitize_session_history(
            &mut msgs, &mut ctx, &params,
        ));
        laps[1] = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        let out = ops::OpOutput::default();
        black_box(ops::response_json(&msgs, input_len, &ctx, &out, Vec::new()));
        laps[2] = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        kept = msgs;
        laps[3] = t.elapsed().as_secs_f64() * 1e6;
        for (b, l) in best.iter_mut().zip(laps) {
            *b = b.min(l);
        }
    }
    println!(
        "{base} (2026.9.6, {name}): best µs parse {:.1} | pass {:.1} | plan {:.1} | kept {:.1}",
        best[0], best[1], best[2], best[3]
    );
    if name == "anthropic" {
        incremental_turn(&turn, &sk, &params, total);
    }
}
