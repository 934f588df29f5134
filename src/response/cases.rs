//! The reply-case table: every `__test__/fixtures/replies/*.jsonl` case (one JSON object a line,
//! fields described in that folder's README) run whole, then streamed under many chunkings (one
//! character at a time, two pieces cut at every boundary for short replies, seeded random pieces,
//! cuts right around every byte that can start a marker or a code span), and checked: the whole
//! result against the case, every streamed result against the whole one, exactly. The node spec
//! `__test__/reply-cases.spec.mjs` runs the same files through `cleanResponse` and
//! `ResponseStreamCleaner`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::stream::StreamCleaner;
use super::{json, problem, Cleaned, Options};

/// The fields a case may have.
const FIELDS: &[&str] = &[
    "name",
    "input",
    "options",
    "content",
    "unchanged",
    "reasoning",
    "calls",
    "problems",
    "kind",
    "real",
    "source",
    "lang",
    "note",
];

/// One case, read from a line of a table file.
pub struct Case {
    pub name: String,
    pub input: String,
    pub options: Value,
    pub v: Value,
}

/// Every case of every file in the folder, checked for shape (unique names, sources given).
pub fn load() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("__test__/fixtures/replies");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the reply-case folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut names = HashSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a readable table file");
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{}:{}", f.display(), i + 1);
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
            let obj = v
                .as_object()
                .unwrap_or_else(|| panic!("{at}: not an object"));
            for k in obj.keys() {
                assert!(FIELDS.contains(&k.as_str()), "{at}: unknown field {k:?}");
            }
            let name = v["name"]
                .as_str()
                .unwrap_or_else(|| panic!("{at}: no name"));
            assert!(
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{at}: name {name:?} is not kebab-case"
            );
            assert!(names.insert(name.to_owned()), "{at}: duplicate name {name}");
            let input = v["input"]
                .as_str()
                .unwrap_or_else(|| panic!("{at}: no input"));
            let unchanged = v["unchanged"] == Value::Bool(true);
            assert!(
                unchanged == v["content"].is_null(),
                "{at}: content null goes with unchanged: true"
            );
            assert!(
                matches!(v["kind"].as_str(), Some("positive" | "negative")),
                "{at}: kind is positive or negative"
            );
            let source = v["source"].as_str().unwrap_or("");
            assert!(!source.is_empty(), "{at}: every case names its source");
            if v["real"] == Value::Bool(true) {
                assert!(
                    !source.starts_with("synthetic"),
                    "{at}: a real case has a real source"
                );
            }
            assert!(
                matches!(v["lang"].as_str(), None | Some("zh" | "en" | "mixed")),
                "{at}: lang"
            );
            out.push(Case {
                name: name.to_owned(),
                input: input.to_owned(),
                options: v.get("options").cloned().unwrap_or(Value::Null),
                v,
            });
        }
    }
    out
}

impl Case {
    pub fn options(&self) -> Options {
        let o = if self.options.is_null() {
            Value::Object(Default::default())
        } else {
            self.options.clone()
        };
        json::options_from_json(&o).unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// Differences between `got` and what the case expects (empty when it passes).
    pub fn check(&self, got: &Cleaned) -> Vec<String> {
        let mut bad = Vec::new();
        let v = &self.v;
        let unchanged = v["unchanged"] == Value::Bool(true);
        let content = if unchanged {
            Some(self.input.as_str())
        } else {
            v["content"].as_str()
        };
        if let Some(c) = content {
            if got.content != c {
                bad.push(format!("content {:?}, expected {c:?}", got.content));
            }
        }
        let reasoning = v["reasoning"].as_str().unwrap_or("");
        if got.reasoning != reasoning {
            bad.push(format!(
                "reasoning {:?}, expected {reasoning:?}",
                got.reasoning
            ));
        }
        let want: Vec<Value> = v["calls"].as_array().cloned().unwrap_or_default();
        let calls: Vec<Value> = got
            .tool_calls
            .iter()
            .zip(want.iter().chain(std::iter::repeat(&Value::Null)))
            .map(|(t, w)| {
                let args = serde_json::from_str::<Value>(t.arguments())
                    .unwrap_or_else(|_| Value::String(t.arguments().to_owned()));
                let mut m = serde_json::json!({"name": t.name(), "arguments": args});
                if w.get("id").is_some() {
                    m["id"] = Value::String(t.id().to_owned());
                }
                m
            })
            .collect();
        if calls != want {
            bad.push(format!(
                "calls {}, expected {}",
                Value::Array(calls),
                Value::Array(want)
            ));
        }
        let kinds = problem::kinds(&got.problems);
        let want: Vec<&str> = v["problems"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if kinds != want {
            bad.push(format!(
                "problems {kinds:?} ({:?}), expected {want:?}",
                got.problems
            ));
        }
        if unchanged && got.format.is_some() {
            bad.push(format!("format {:?} on a negative", got.format));
        }
        bad
    }
}

/// `text` pushed in `pieces`, merged as a caller would; the finished cleaner refuses more.
pub fn streamed(pieces: &[&str], opts: &Options) -> Cleaned {
    let mut s = StreamCleaner::new(opts.clone());
    let mut out = Cleaned::default();
    for p in pieces {
        let c = s.push(p).expect("push before finish");
        out.content.push_str(&c.content);
        out.reasoning.push_str(&c.reasoning);
        out.tool_calls.extend(c.tool_calls);
    }
    let end = s.finish().expect("first finish");
    out.content.push_str(&end.chunk.content);
    out.reasoning.push_str(&end.chunk.reasoning);
    out.tool_calls.extend(end.chunk.tool_calls);
    out.format = end.format;
    out.problems = end.problems;
    assert!(s.push("x").is_err());
    assert!(s.finish().is_err());
    out
}

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

fn ceil(t: &str, mut i: usize) -> usize {
    while i < t.len() && !t.is_char_boundary(i) {
        i += 1;
    }
    i.min(t.len())
}

/// `t` cut at the given offsets (rounded up to char boundaries, deduplicated).
fn cut<'a>(t: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut at = 0;
    let mut out = Vec::new();
    for &c in cuts {
        let c = ceil(t, c);
        if c > at {
            out.push(&t[at..c]);
            at = c;
        }
    }
    out.push(&t[at..]);
    out
}

/// The chunkings every case is streamed under.
pub fn chunkings(t: &str, seed: u64) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).skip(1).collect();
    // One character at a time.
    out.push(cut(t, &bounds));
    // Two pieces cut at every boundary (short replies), or around every marker byte.
    if t.len() <= 600 {
        for &i in &bounds {
            out.push(cut(t, &[i]));
        }
    } else {
        for (i, b) in t.bytes().enumerate() {
            if matches!(b, b'<' | b'[' | b'`' | b'>' | b'|' | b'\n' | 0xEF | 0xE2) {
                for d in [0, 1, 2, 5] {
                    out.push(cut(t, &[i + d]));
                }
            }
        }
    }
    // Seeded random pieces of 1..max bytes.
    let mut rng = Rng(seed | 1);
    for max in [2usize, 3, 5, 8, 13, 40, 128] {
        let mut cuts = Vec::new();
        let mut at = 0;
        while at < t.len() {
            at += 1 + (rng.next() as usize % max);
            cuts.push(at);
        }
        out.push(cut(t, &cuts));
    }
    out
}

#[test]
fn every_reply_case_whole_and_streamed() {
    let cases = load();
    assert!(!cases.is_empty(), "the table is empty");
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let opts = case.options();
        // As the addon cleans it: with the ranges of the reply that spell the content.
        let (whole, spans) = super::clean_response_spans(&case.input, &opts);
        for b in case.check(&whole) {
            failures.push(format!("{} (whole): {b}", case.name));
        }
        if !spans
            .as_ref()
            .is_some_and(|s| s.spell(&case.input, &whole.content))
        {
            failures.push(format!("{}: the spans do not spell the content", case.name));
        }
        // As the addon runs it: the reply handed over and back, the content left to the spans.
        let (owned, owned_spans, back) = super::clean_response_owned(case.input.clone(), &opts);
        let bare = super::Cleaned {
            content: String::new(),
            ..whole.clone()
        };
        if owned != bare || owned_spans != spans || back != case.input {
            failures.push(format!(
                "{}: cleaned as the addon does, {owned:?} {owned_spans:?} != {bare:?} {spans:?}",
                case.name
            ));
        }
        for pieces in chunkings(&case.input, n as u64 + 7) {
            let s = streamed(&pieces, &opts);
            if s != whole {
                failures.push(format!(
                    "{} (streamed in {} pieces {:?}): {:?} != whole {:?}",
                    case.name,
                    pieces.len(),
                    pieces.iter().take(12).collect::<Vec<_>>(),
                    s,
                    whole
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} reply cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
