//! A sweep of the streaming contract (whole == streamed) over the reply table under options and
//! edits the table's rows do not carry: every row under every `format` name (and `auto`), with and
//! without `tools` naming every call of the table, and with `中`, `😀` or `｜` put right after
//! each byte that can start or end a marker, streamed one character at a time and in 7-byte
//! pieces, each compared to the whole result exactly. The table runner ([`super::cases`]) streams
//! each row only under its own options; the replies this sweep found differing are rows now
//! (`stream-agree-29.jsonl`).
//!
//! [`streaming_contract_sweep_sample`] runs a bounded, deterministic slice of it in CI (each row
//! under one format in rotation, its own options, and a few edits);
//! [`streaming_contract_sweep_full`] (ignored) runs all of it: `cargo test --lib
//! streaming_contract_sweep_full -- --ignored` (`SWEEP_MARKERS=n` bounds the edited marker
//! positions per row, 8 by default; `SWEEP_ROWS=a..b` a slice of the rows).

use serde_json::{json, Value};

use super::cases::{load, streamed, Case};
use super::{clean_response, Cleaned, Options, FORMATS};

/// The characters put after a marker byte.
const INSERTS: [&str; 3] = ["中", "😀", "｜"];

/// `t` in pieces of one character.
fn by_char(t: &str) -> Vec<&str> {
    let mut out = Vec::with_capacity(t.len());
    let mut at = 0;
    for (i, _) in t.char_indices().skip(1) {
        out.push(&t[at..i]);
        at = i;
    }
    out.push(&t[at..]);
    out
}

/// `t` in pieces of 7 bytes (each end moved up to a character boundary).
fn by_seven(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let mut j = (i + 7).min(t.len());
        while !t.is_char_boundary(j) {
            j += 1;
        }
        out.push(&t[i..j]);
        i = j;
    }
    if out.is_empty() {
        out.push(t);
    }
    out
}

/// Where a character can go right after a marker byte: after each `<`, `[`, `|`, `｜`, `▁`, `>`,
/// `]`, `：` or `:` of `t` (the first `limit` of them).
fn marker_ends(t: &str, limit: usize) -> Vec<usize> {
    t.char_indices()
        .filter(|(_, c)| matches!(c, '<' | '[' | '|' | '｜' | '▁' | '>' | ']' | '：' | ':'))
        .map(|(i, c)| i + c.len_utf8())
        .take(limit)
        .collect()
}

/// `opts` with `format` set.
fn with_format(opts: &Options, format: Option<&str>) -> Options {
    Options {
        format: format.map(str::to_owned),
        ..opts.clone()
    }
}

/// An OpenAI `tools` array offering every name any row's calls use (with no schema), plus the
/// row's own tools.
fn every_tool(cases: &[Case]) -> Vec<Value> {
    let mut names: Vec<String> = cases
        .iter()
        .flat_map(|c| c.v["calls"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
        .iter()
        .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}))
        .collect()
}

fn with_tools(opts: &Options, all: &[Value]) -> Options {
    let mut tools: Vec<Value> = opts
        .tools
        .as_ref()
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    tools.extend(all.iter().cloned());
    Options {
        tools: Some(Value::Array(tools)),
        ..opts.clone()
    }
}

/// The first difference of a streamed result from the whole one, briefly.
fn differs(s: &Cleaned, w: &Cleaned) -> Option<String> {
    if s == w {
        return None;
    }
    let mut d = Vec::new();
    if s.content != w.content {
        d.push(format!("content {:?} != {:?}", s.content, w.content));
    }
    if s.reasoning != w.reasoning {
        d.push(format!("reasoning {:?} != {:?}", s.reasoning, w.reasoning));
    }
    if s.tool_calls != w.tool_calls {
        d.push(format!("calls {:?} != {:?}", s.tool_calls, w.tool_calls));
    }
    if s.format != w.format {
        d.push(format!("format {:?} != {:?}", s.format, w.format));
    }
    if s.problems != w.problems {
        d.push(format!("problems {:?} != {:?}", s.problems, w.problems));
    }
    Some(d.join("; "))
}

/// `text` cleaned whole and streamed in 1-character and 7-byte pieces: the first difference.
fn check(text: &str, opts: &Options) -> Option<String> {
    let whole = clean_response(text, opts);
    for (how, pieces) in [("1-char", by_char(text)), ("7-byte", by_seven(text))] {
        if let Some(d) = differs(&streamed(&pieces, opts), &whole) {
            return Some(format!("{how}: {d}"));
        }
    }
    None
}

/// One failing text: the row, the options, the text and the difference.
fn failure(case: &Case, opts: &Options, text: &str, why: &str) -> String {
    format!(
        "{} [format {:?}, tools {}] {text:?}\n    {why}",
        case.name,
        opts.format,
        opts.tools.is_some()
    )
}

/// Fails with every difference listed, one a line.
fn assert_none_differ(bad: &[String]) {
    assert!(
        bad.is_empty(),
        "{} streamed results differ from whole:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// `text` and its edits (an insert after each of the first `markers` marker bytes; the insert
/// rotates with `n` when `all_inserts` is false).
fn edits(text: &str, markers: usize, all_inserts: bool, n: usize) -> Vec<String> {
    let mut out = vec![text.to_owned()];
    for (j, at) in marker_ends(text, markers).into_iter().enumerate() {
        let inserts: Vec<&str> = if all_inserts {
            INSERTS.to_vec()
        } else {
            vec![INSERTS[(n + j) % INSERTS.len()]]
        };
        for x in inserts {
            out.push(format!("{}{x}{}", &text[..at], &text[at..]));
        }
    }
    out
}

/// A bounded slice of the sweep: every row under its own options and under one format name in
/// rotation (with every tool offered on odd rows), its first 3 marker ends edited with one insert.
#[test]
fn streaming_contract_sweep_sample() {
    let cases = load();
    let all = every_tool(&cases);
    let mut bad = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let own = case.options();
        let f = FORMATS[n % FORMATS.len()];
        let mut forced = with_format(&own, Some(f));
        if n % 2 == 1 {
            forced = with_tools(&forced, &all);
        }
        for text in edits(&case.input, 3, false, n) {
            for opts in [&own, &forced] {
                if let Some(why) = check(&text, opts) {
                    bad.push(failure(case, opts, &text, &why));
                }
            }
        }
    }
    assert_none_differ(&bad);
}

/// All of the sweep (see the module's doc): every row under every format name (and `auto`),
/// with and without every tool offered; its edits under `auto`, `tool_json`, the row's own format
/// and the one its whole reading reports, with and without tools. About ten minutes of CPU in
/// debug. Prints failures as they come (`--nocapture`) and, with `SWEEP_OUT=path`, writes them
/// there.
#[test]
#[ignore]
fn streaming_contract_sweep_full() {
    let cases = load();
    let all = every_tool(&cases);
    let markers = std::env::var("SWEEP_MARKERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let (from, to) = std::env::var("SWEEP_ROWS")
        .ok()
        .and_then(|s| {
            let (a, b) = s.split_once("..")?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .unwrap_or((0, cases.len()));
    let formats: Vec<Option<&str>> = std::iter::once(None)
        .chain(FORMATS.iter().copied().map(Some))
        .collect();
    let mut bad = Vec::new();
    for (n, case) in cases.iter().enumerate().take(to).skip(from) {
        if n % 50 == 0 {
            println!("row {n}");
        }
        let own = case.options();
        let found = clean_response(&case.input, &own).format;
        let texts = edits(&case.input, markers, true, n);
        for f in &formats {
            let edited = f.is_none()
                || *f == Some("tool_json")
                || *f == own.format.as_deref()
                || *f == found;
            let texts = if edited { &texts[..] } else { &texts[..1] };
            let plain = with_format(&own, *f);
            let offered = with_tools(&plain, &all);
            for opts in [&plain, &offered] {
                // One failure per row and options is enough to see the class.
                for text in texts {
                    if let Some(why) = check(text, opts) {
                        let f = failure(case, opts, text, &why);
                        // As they come (`--nocapture`): the whole run is long.
                        println!("{f}");
                        bad.push(f);
                        break;
                    }
                }
            }
        }
    }
    if let Ok(path) = std::env::var("SWEEP_OUT") {
        let _ = std::fs::write(path, bad.join("\n"));
    }
    assert_none_differ(&bad);
}

/// One reply checked as the sweep checks it, for looking into a failure: `SWEEP_PROBE` holds
/// `{"input": …, "options": {…}}` (options as a row's); prints whole and streamed results.
#[test]
#[ignore]
fn streaming_contract_probe() {
    let Ok(probe) = std::env::var("SWEEP_PROBE") else {
        return;
    };
    let v: Value = serde_json::from_str(&probe).expect("SWEEP_PROBE is JSON");
    let text = v["input"].as_str().unwrap_or_default();
    let o = v.get("options").cloned().unwrap_or(json!({}));
    let opts = super::json::options_from_json(&o).expect("options");
    println!("whole: {:?}", clean_response(text, &opts));
    println!("check: {:?}", check(text, &opts));
    let whole = clean_response(text, &opts);
    for (i, _) in text.char_indices().skip(1) {
        if let Some(d) = differs(&streamed(&[&text[..i], &text[i..]], &opts), &whole) {
            println!("cut: {:?} | {:?}: {d}", &text[..i], &text[i..]);
            break;
        }
    }
}
