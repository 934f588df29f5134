//! Usage snapshots (`stripStaleAssistantUsageBeforeLatestCompaction` + `ensureAssistantUsageSnapshots`).
//!
//! Agents estimate context size from the last assistant's `usage`. After a compaction, the usage
//! recorded before it describes a context that no longer exists, so it is zeroed; and since
//! providers report usage under many names (`input_tokens`, `prompt_tokens`, `cache_read_input_tokens`
//! …), every assistant's usage is normalised to one shape. Not provider hygiene strictly, but it
//! changes what is replayed, so it runs in the same pass.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{num_json, Msg, Text, UsageView, Val};
use crate::transcript::usage::{
    normalize_usage, timestamp_ms, TimestampValue, UsageSnapshot, UsageValue,
};
use serde_json::{json, Value};

fn usage_value(v: &Val) -> UsageValue {
    match v {
        Val::Num(n) => UsageValue::Num(*n),
        Val::Str(s) => UsageValue::Str(s.to_string()),
        Val::Bool(b) => UsageValue::Bool(*b),
        Val::Null => UsageValue::Null,
        Val::Object => UsageValue::Object,
        Val::Absent | Val::Array | Val::Other => UsageValue::Other,
    }
}

fn timestamp(v: &Val) -> Option<f64> {
    let t = match v {
        Val::Num(n) => TimestampValue::Num(*n),
        Val::Str(s) => TimestampValue::Str(s.to_string()),
        _ => TimestampValue::None,
    };
    timestamp_ms(&t)
}

/// The snapshot flattened the way the skeleton shows a usage object, in key order.
fn flattened(snap: &UsageSnapshot) -> Vec<(&'static str, Option<f64>)> {
    let mut out = vec![
        ("input", Some(snap.input)),
        ("output", Some(snap.output)),
        ("cacheRead", Some(snap.cache_read)),
        ("cacheWrite", Some(snap.cache_write)),
        ("totalTokens", Some(snap.total_tokens)),
    ];
    if let Some(c) = &snap.cost {
        out.extend([
            ("cost", None),
            ("cost.input", Some(c.input)),
            ("cost.output", Some(c.output)),
            ("cost.cacheRead", Some(c.cache_read)),
            ("cost.cacheWrite", Some(c.cache_write)),
            ("cost.total", Some(c.total)),
        ]);
    }
    out
}

/// Whether the message's usage already is exactly this snapshot (same keys, order and values).
fn already(fields: &[(Text, Val)], snap: &UsageSnapshot) -> bool {
    let want = flattened(snap);
    fields.len() == want.len()
        && fields.iter().zip(want).all(|((k, v), (wk, wv))| {
            k == wk
                && match (v, wv) {
                    (Val::Object, None) => true,
                    (Val::Num(a), Some(b)) => a == &b,
                    _ => false,
                }
        })
}

/// OpenClaw's test for keeping a usage object as it is: its standard numbers equal the
/// normalised snapshot's (`===`), and its `cost` holds the snapshot's five (or both have none).
/// Other fields (`cacheWrite1h`, `reasoning`, `cost.totalTokens` …) and key order do not matter:
/// the object, and the cost data in those fields, survive.
fn has_standard_numbers(fields: &[(Text, Val)], snap: &UsageSnapshot) -> bool {
    let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v);
    let eq = |k: &str, want: f64| matches!(get(k), Some(Val::Num(n)) if *n == want);
    let counts = eq("input", snap.input)
        && eq("output", snap.output)
        && eq("cacheRead", snap.cache_read)
        && eq("cacheWrite", snap.cache_write)
        && eq("totalTokens", snap.total_tokens);
    counts
        && match &snap.cost {
            Some(c) => {
                matches!(get("cost"), Some(Val::Object))
                    && eq("cost.input", c.input)
                    && eq("cost.output", c.output)
                    && eq("cost.cacheRead", c.cache_read)
                    && eq("cost.cacheWrite", c.cache_write)
                    && eq("cost.total", c.total)
            }
            None => get("cost").is_none(),
        }
}

fn snapshot(m: &Msg) -> UsageSnapshot {
    match &m.usage {
        UsageView::Snapshot(s) => **s,
        UsageView::Fields(fields) => {
            let list: Vec<(&str, UsageValue)> = fields
                .iter()
                .map(|(k, v)| (k.as_ref(), usage_value(v)))
                .collect();
            normalize_usage(&list).unwrap_or_else(UsageSnapshot::zero_with_cost)
        }
        UsageView::NotObject(_) => UsageSnapshot::zero_with_cost(),
    }
}

/// 2026.9.6's reading of `usage.contextUsage` (`normalizeUsage`): `unavailable`, or the prompt
/// and total token counts when `available` and the total is at least the prompt.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ContextUsage {
    Unavailable,
    Available(f64, f64),
}

fn field<'a>(fields: &'a [(Text, Val)], key: &str) -> Option<&'a Val> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `normalizeTokenCount`: a finite number, truncated, negatives as 0.
fn token_count(v: Option<&Val>) -> Option<f64> {
    match v {
        Some(Val::Num(n)) if n.is_finite() => Some(if *n <= 0.0 { 0.0 } else { n.trunc() }),
        _ => None,
    }
}

fn context_usage(fields: &[(Text, Val)]) -> Option<ContextUsage> {
    match field(fields, "contextUsage.state").and_then(Val::as_str) {
        Some("unavailable") => Some(ContextUsage::Unavailable),
        Some("available") => {
            let prompt = token_count(field(fields, "contextUsage.promptTokens"))?;
            let total = token_count(field(fields, "contextUsage.totalTokens"))?;
            (total >= prompt).then_some(ContextUsage::Available(prompt, total))
        }
        _ => None,
    }
}

/// Whether the usage's own `contextUsage` is what 2026.9.6 would write.
fn context_usage_kept(fields: &[(Text, Val)], normalized: Option<ContextUsage>) -> bool {
    let num = |k: &str, want: f64| matches!(field(fields, k), Some(Val::Num(n)) if *n == want);
    match normalized {
        None => field(fields, "contextUsage").is_none(),
        Some(ContextUsage::Unavailable) => true,
        Some(ContextUsage::Available(prompt, total)) => {
            num("contextUsage.promptTokens", prompt) && num("contextUsage.totalTokens", total)
        }
    }
}

/// The snapshot as 2026.9.6 writes it: with the usage's `contextUsage` (after `cacheWrite`) and
/// its cost's `totalOrigin: "provider-billed"`.
fn snapshot_json_2026_9(snap: &UsageSnapshot, fields: &[(Text, Val)]) -> Value {
    let mut out = serde_json::Map::new();
    let Value::Object(base) = snap.to_json() else {
        return snap.to_json();
    };
    for (k, mut v) in base {
        if k == "cost"
            && field(fields, "cost.totalOrigin").and_then(Val::as_str) == Some("provider-billed")
        {
            if let Value::Object(c) = &mut v {
                c.insert("totalOrigin".into(), json!("provider-billed"));
            }
        }
        let after_cache_write = k == "cacheWrite";
        out.insert(k, v);
        if after_cache_write {
            match context_usage(fields) {
                Some(ContextUsage::Unavailable) => {
                    out.insert("contextUsage".into(), json!({"state": "unavailable"}));
                }
                Some(ContextUsage::Available(p, t)) => {
                    out.insert(
                        "contextUsage".into(),
                        json!({"state": "available", "promptTokens": num_json(p), "totalTokens": num_json(t)}),
                    );
                }
                None => {}
            }
        }
    }
    Value::Object(out)
}

fn set_usage(
    m: &mut Msg,
    ctx: &mut Ctx,
    snap: &UsageSnapshot,
    why: &'static str,
    stale: bool,
    v2026_9: bool,
) -> bool {
    let unchanged = match &m.usage {
        UsageView::Fields(f) if !stale && v2026_9 => {
            has_standard_numbers(f, snap) && context_usage_kept(f, context_usage(f))
        }
        UsageView::Fields(f) if !stale => has_standard_numbers(f, snap),
        UsageView::Fields(f) => already(f, snap),
        UsageView::Snapshot(s) => **s == *snap,
        UsageView::NotObject(_) => false,
    };
    if unchanged {
        return false;
    }
    ctx.change("usageSnapshots", msg_path(m), || why.to_string());
    let json = match &m.usage {
        UsageView::Fields(f) if !stale && v2026_9 => snapshot_json_2026_9(snap, f),
        _ => snap.to_json(),
    };
    m.set("usage", json);
    true
}

const CANONICAL: [&str; 11] = [
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "totalTokens",
    "cost",
    "cost.input",
    "cost.output",
    "cost.cacheRead",
    "cost.cacheWrite",
    "cost.total",
];

/// Usage already in the normalised shape (the common case: what pi-ai writes), which normalising
/// would give back unchanged: the canonical keys in order, finite numbers, a non-negative input.
/// Skipping the alias search for it keeps this rule cheap on long transcripts.
fn is_canonical(u: &UsageView) -> bool {
    let fields = match u {
        UsageView::Snapshot(_) => return true,
        UsageView::Fields(fields) => fields,
        UsageView::NotObject(_) => return false,
    };
    (fields.len() == 5 || fields.len() == CANONICAL.len())
        && fields.iter().zip(CANONICAL).all(|((k, v), want)| {
            k == want
                && match v {
                    Val::Object => want == "cost",
                    Val::Num(n) => n.is_finite() && (want != "input" || *n >= 0.0),
                    _ => false,
                }
        })
}

/// Zeroes usage recorded before the latest compaction, then normalises every assistant's usage.
pub fn normalize_usage_snapshots(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    normalize_usage_snapshots_after(msgs, ctx, None)
}

/// [`normalize_usage_snapshots`] as OpenClaw 2026.9.6 runs it. Staleness: when the message's and
/// the compaction's timestamps both parse, they alone decide (a message stamped after the
/// compaction keeps its usage even if it comes before it); the position decides otherwise.
/// Snapshots keep a valid `contextUsage` (`{state: "available", promptTokens, totalTokens}` or
/// `{state: "unavailable"}`), and a usage whose `contextUsage` is not one is rewritten without it;
/// a cost's `totalOrigin: "provider-billed"` is kept.
pub fn normalize_usage_snapshots_2026_9(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    normalize(msgs, ctx, None, true)
}

/// [`normalize_usage_snapshots_2026_9`] after a prefix, as [`normalize_usage_snapshots_after`].
pub fn normalize_usage_snapshots_2026_9_after(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    earlier: Option<Option<f64>>,
) -> bool {
    normalize(msgs, ctx, earlier, true)
}

/// The timestamp of a compaction summary, as the usage rule compares it.
pub fn compaction_time(m: &Msg) -> Option<f64> {
    timestamp(&m.timestamp)
}

/// [`normalize_usage_snapshots`] on the part of a transcript after a prefix whose latest
/// compaction summary had timestamp `earlier` (`Some(None)`: one without a usable timestamp),
/// for the incremental pass. The caller makes sure `msgs` holds no compaction of its own.
pub fn normalize_usage_snapshots_after(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    earlier: Option<Option<f64>>,
) -> bool {
    normalize(msgs, ctx, earlier, false)
}

/// `v2026_9`: 2026.9.6's rule (see [`normalize_usage_snapshots_2026_9`]); 2026.3.23's zeroes
/// usage before the compaction by position or by timestamp and drops `contextUsage`.
fn normalize(msgs: &mut [Msg], ctx: &mut Ctx, earlier: Option<Option<f64>>, v2026_9: bool) -> bool {
    let compaction = msgs
        .iter()
        .enumerate()
        .rev()
        .find(|(_, m)| m.is_role("compactionSummary"))
        .map(|(i, m)| (i, timestamp(&m.timestamp)))
        .or(earlier.map(|ts| (0, ts)));
    let mut changed = false;
    for (i, m) in msgs.iter_mut().enumerate() {
        if !m.is_assistant() {
            continue;
        }
        let stale = matches!(m.usage, UsageView::Fields(_) | UsageView::Snapshot(_))
            && compaction.is_some_and(|(ci, cts)| match (timestamp(&m.timestamp), cts) {
                (Some(a), Some(b)) if v2026_9 => a <= b,
                (Some(a), Some(b)) => i < ci || a <= b,
                _ => i < ci,
            });
        if !stale && is_canonical(&m.usage) {
            continue;
        }
        let snap = if stale {
            UsageSnapshot::zero_with_cost()
        } else {
            snapshot(m)
        };
        let why = if stale {
            "zeroed usage recorded before the latest compaction"
        } else {
            "normalised usage to the standard snapshot"
        };
        changed |= set_usage(m, ctx, &snap, why, stale, v2026_9);
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn zero() -> Value {
        json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
               "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
    }

    fn assistant(usage: Value, ts: Value) -> Value {
        json!({"role": "assistant", "content": [], "usage": usage, "timestamp": ts})
    }

    #[test]
    fn the_canonical_fast_path_agrees_with_normalising() {
        for u in [
            json!({"input": 3, "output": 4, "cacheRead": 1, "cacheWrite": 2, "totalTokens": 99}),
            json!({"input": 0, "output": -4, "cacheRead": 0.5, "cacheWrite": 0, "totalTokens": 0,
                   "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 7}}),
        ] {
            let map = u.as_object().cloned().unwrap_or_default();
            let fields = crate::transcript::skeleton::flatten_usage(&map);
            assert!(is_canonical(&UsageView::Fields(fields.clone())), "{u}");
            let list: Vec<(&str, UsageValue)> = fields
                .iter()
                .map(|(k, v)| (k.as_ref(), usage_value(v)))
                .collect();
            let snap = normalize_usage(&list).unwrap_or_else(UsageSnapshot::zero_with_cost);
            assert_eq!(snap.to_json(), u);
        }
    }

    #[test]
    fn in_2026_9_timestamps_decide_staleness_when_both_parse() {
        let input = json!([
            assistant(json!({"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7}), json!(20)),
            {"role": "compactionSummary", "summary": "s", "timestamp": 15},
            assistant(json!({"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7}), json!("not a date")),
        ]);
        let (old, _) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        let (new, _) = run(&input, |m, c| {
            normalize_usage_snapshots_2026_9(m, c);
        });
        // Stamped after the compaction but placed before it: stale by position in 2026.3.23 only.
        assert_eq!(old[0]["usage"], zero());
        assert_eq!(new[0]["usage"]["input"], json!(3));
        // After it, with no usable timestamp: the position decides in both.
        assert_eq!(new[2]["usage"]["input"], json!(3));
        assert_eq!(old[2]["usage"]["input"], json!(3));
    }

    #[test]
    fn in_2026_9_a_valid_context_usage_stays_and_an_invalid_one_goes() {
        let usage = |cu: Value| json!({"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7, "contextUsage": cu});
        let input = json!([
            assistant(
                usage(json!({"state": "available", "promptTokens": 100, "totalTokens": 1000})),
                json!(1)
            ),
            assistant(usage(json!({"state": "unavailable"})), json!(2)),
            assistant(usage(json!({"used": 100, "limit": 1000})), json!(3)),
            assistant(
                usage(json!({"state": "available", "promptTokens": 100.7, "totalTokens": 1000})),
                json!(4)
            ),
            assistant(
                json!({"input_tokens": 3, "output_tokens": 4, "contextUsage": {"state": "unavailable"}}),
                json!(5)
            ),
        ]);
        let (old, _) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        let (new, _) = run(&input, |m, c| {
            normalize_usage_snapshots_2026_9(m, c);
        });
        assert_eq!(new[..2], input.as_array().unwrap()[..2]);
        assert_eq!(
            new[2]["usage"],
            json!({"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7})
        );
        assert_eq!(
            new[3]["usage"]["contextUsage"],
            json!({"state": "available", "promptTokens": 100, "totalTokens": 1000})
        );
        let keys: Vec<&String> = new[4]["usage"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "input",
                "output",
                "cacheRead",
                "cacheWrite",
                "contextUsage",
                "totalTokens"
            ]
        );
        // 2026.3.23 keeps the first four as they are and drops the last one's.
        assert_eq!(old[..4], input.as_array().unwrap()[..4]);
        assert!(old[4]["usage"].get("contextUsage").is_none());
    }

    #[test]
    fn canonical_usage_is_left_alone() {
        let input = json!([assistant(zero(), json!(1))]);
        let (_, identity) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        assert!(identity);
    }

    #[test]
    fn partial_usage_is_normalised_and_missing_usage_zeroed() {
        let input = json!([
            assistant(json!({"output": 3, "cache_read_input_tokens": 9}), json!(1)),
            {"role": "assistant", "content": []},
        ]);
        let (out, _) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        assert_eq!(
            out[0]["usage"],
            json!({"input": 0, "output": 3, "cacheRead": 9, "cacheWrite": 0, "totalTokens": 12})
        );
        assert_eq!(out[1]["usage"], zero());
    }

    #[test]
    fn usage_before_the_latest_compaction_is_zeroed() {
        let used =
            json!({"input": 5, "output": 6, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 11});
        let input = json!([
            assistant(used.clone(), json!(100)),
            {"role": "compactionSummary", "summary": "s", "tokensBefore": 9, "timestamp": "1970-01-01T00:00:00.200Z"},
            assistant(used.clone(), json!(150)),
            assistant(used.clone(), json!(300)),
        ]);
        let (out, _) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        assert_eq!(out[0]["usage"], zero());
        // After the summary in order, but stamped before it: stale too.
        assert_eq!(out[2]["usage"], zero());
        assert_eq!(out[3]["usage"], used);
    }

    #[test]
    fn cost_is_kept_when_numeric() {
        let u =
            json!({"input": 1, "output": 2, "cost": {"input": 0.5, "output": 0.25, "total": 0.75}});
        let input = json!([assistant(u, json!(1))]);
        let (out, _) = run(&input, |m, c| {
            normalize_usage_snapshots(m, c);
        });
        assert_eq!(out[0]["usage"]["cost"]["total"], 0.75);
    }

    /// OpenClaw keeps a usage object whose standard numbers already hold, whatever else it has
    /// (pi writes `cacheWrite1h` on Anthropic turns, `reasoning` on Gemini turns; older runs
    /// `cost.totalTokens`); it rebuilds one whose numbers are missing or differ.
    #[test]
    fn usage_with_the_standard_numbers_is_kept_whole() {
        let cost =
            json!({"input": 0.5, "output": 0.25, "cacheRead": 0, "cacheWrite": 0, "total": 0.75});
        let cases = [
            (
                json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cacheWrite1h": 7, "totalTokens": 3, "cost": cost}),
                true,
            ),
            (
                json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "reasoning": 5, "cost": cost}),
                true,
            ),
            (
                json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"input": 0.5, "output": 0.25, "cacheRead": 0, "cacheWrite": 0, "total": 0.75, "totalTokens": 3}}),
                true,
            ),
            (
                json!({"totalTokens": 3, "output": 2, "input": 1, "cacheWrite": 0, "cacheRead": 0}),
                true,
            ),
            // Twins that must be rebuilt: a number missing, a cost without its total.
            (
                json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite1h": 7, "totalTokens": 3}),
                false,
            ),
            (
                json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"input": 0.5}}),
                false,
            ),
        ];
        for (u, kept) in cases {
            let input = json!([assistant(u.clone(), json!(1))]);
            let (out, identity) = run(&input, |m, c| {
                normalize_usage_snapshots(m, c);
            });
            assert_eq!(identity, kept, "{u}");
            if kept {
                assert_eq!(out[0]["usage"], u);
            }
        }
    }
}
