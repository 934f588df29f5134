//! Assistant usage snapshots.
//!
//! pi-coding-agent's context accounting expects every assistant message to
//! carry a usage object of one shape, but providers and SDKs report token
//! counts under many names (`input_tokens`, `prompt_tokens`,
//! `cache_read_input_tokens`, Kimi's `prompt_tokens_details.cached_tokens`, …).
//! Before replay OpenClaw rewrites each assistant's usage into
//! `{input, output, cacheRead, cacheWrite, totalTokens, cost?}`. This module is
//! `normalizeUsage` (`src/agents/usage.ts`) together with google.ts's
//! `normalizeAssistantUsageSnapshot` / `normalizeAssistantUsageCost` and
//! `parseMessageTimestamp`, exactly as shipped in openclaw 2026.3.23-2:
//!
//! - Each field is the first alias that is present and not `null` (a JS `??`
//!   chain); it counts only if that value is a finite number. A string or
//!   boolean there yields "missing" rather than falling through to the next
//!   alias. Only a negative `input` is clamped to 0; other negatives pass.
//! - No field at all means "missing or invalid": the caller then uses
//!   [`UsageSnapshot::zero_with_cost`].
//! - `totalTokens` is the reported total, else the sum of the four counts.
//! - `cost` is kept only when `usage.cost` is an object with at least one
//!   finite numeric field among input/output/cacheRead/cacheWrite/total;
//!   missing parts are 0 and a missing total is their sum.
//!
//! The usage object arrives flattened (no JSON tree is built): a list of
//! `(path, value)` pairs such as `("input", Num(3.0))`, `("cost", Object)`,
//! `("cost.total", Num(0.1))`. A nested path is read only when its parent is
//! listed as [`UsageValue::Object`]. If a path repeats, the last entry wins,
//! as with `JSON.parse`.
//!
//! [`timestamp_ms`] parses message timestamps like `Date.parse` does for the
//! ECMAScript ISO format, with V8's leniencies (lowercase `t`/`z`, a space
//! instead of `T`, `±HHMM` offsets, any number of fraction digits, day 29–31
//! overflowing into the next month, `24:00`). Differences: a date-time without
//! an offset is read as UTC (JavaScript reads it as local time, so the two
//! agree when `TZ=UTC`), and V8's non-ISO legacy forms (`"Mar 1 2026"`,
//! surrounding whitespace) give `None`.

use serde_json::{Map, Number, Value};

/// One flattened value of a usage object.
#[derive(Clone, Debug, PartialEq)]
pub enum UsageValue {
    Num(f64),
    Str(String),
    Bool(bool),
    Null,
    /// A plain object; its fields follow as `parent.child` paths.
    Object,
    /// Anything else (an array, for instance).
    Other,
}

/// The cost part of a usage snapshot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsageCost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
}

/// A normalised assistant usage snapshot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UsageSnapshot {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost: Option<UsageCost>,
}

/// A message timestamp as stored: a number (ms), a string, or absent.
#[derive(Clone, Debug, PartialEq)]
pub enum TimestampValue {
    Num(f64),
    Str(String),
    None,
}

const INPUT: &[&str] = &[
    "input",
    "inputTokens",
    "input_tokens",
    "promptTokens",
    "prompt_tokens",
];
const OUTPUT: &[&str] = &[
    "output",
    "outputTokens",
    "output_tokens",
    "completionTokens",
    "completion_tokens",
];
const CACHE_READ: &[&str] = &[
    "cacheRead",
    "cache_read",
    "cache_read_input_tokens",
    "cached_tokens",
    "prompt_tokens_details.cached_tokens",
];
const CACHE_WRITE: &[&str] = &["cacheWrite", "cache_write", "cache_creation_input_tokens"];
const TOTAL: &[&str] = &["total", "totalTokens", "total_tokens"];

/// The value at `path`, honouring the "parent must be an object" rule.
fn get<'a>(fields: &'a [(&str, UsageValue)], path: &str) -> Option<&'a UsageValue> {
    if let Some((parent, _)) = path.rsplit_once('.') {
        if get(fields, parent) != Some(&UsageValue::Object) {
            return None;
        }
    }
    fields
        .iter()
        .rev()
        .find(|(p, _)| *p == path)
        .map(|(_, v)| v)
}

fn finite(value: Option<&UsageValue>) -> Option<f64> {
    match value {
        Some(UsageValue::Num(n)) if n.is_finite() => Some(*n),
        _ => None,
    }
}

/// A JS `a ?? b ?? …` chain followed by the finite-number check.
fn first_present(fields: &[(&str, UsageValue)], aliases: &[&str]) -> Option<f64> {
    let value = aliases
        .iter()
        .filter_map(|alias| get(fields, alias))
        .find(|v| **v != UsageValue::Null);
    finite(value)
}

fn normalize_cost(fields: &[(&str, UsageValue)]) -> Option<UsageCost> {
    if get(fields, "cost") != Some(&UsageValue::Object) {
        return None;
    }
    let part = |name: &str| finite(get(fields, &format!("cost.{name}")));
    let parts = [
        part("input"),
        part("output"),
        part("cacheRead"),
        part("cacheWrite"),
        part("total"),
    ];
    if parts.iter().all(Option::is_none) {
        return None;
    }
    let [input, output, cache_read, cache_write, total] = parts.map(|p| p.unwrap_or(0.0));
    let total = parts[4].map_or(input + output + cache_read + cache_write, |_| total);
    Some(UsageCost {
        input,
        output,
        cache_read,
        cache_write,
        total,
    })
}

/// Normalise a flattened usage object; `None` when it has no usable token
/// field (the caller then uses [`UsageSnapshot::zero_with_cost`]).
pub fn normalize_usage(fields: &[(&str, UsageValue)]) -> Option<UsageSnapshot> {
    let input = first_present(fields, INPUT).map(|n| if n < 0.0 { 0.0 } else { n });
    let output = first_present(fields, OUTPUT);
    let cache_read = first_present(fields, CACHE_READ);
    let cache_write = first_present(fields, CACHE_WRITE);
    let total = first_present(fields, TOTAL);
    if [input, output, cache_read, cache_write, total]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    let [input, output, cache_read, cache_write] =
        [input, output, cache_read, cache_write].map(|n| n.unwrap_or(0.0));
    Some(UsageSnapshot {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: total.unwrap_or(input + output + cache_read + cache_write),
        cost: normalize_cost(fields),
    })
}

/// A number as `JSON.stringify` would write it: integers without a fraction
/// (and `-0` as `0`), non-finite values as `null`.
fn js_number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e18 {
        Value::from(n as i64)
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

impl UsageSnapshot {
    /// All counts and all costs 0: OpenClaw's `makeZeroUsageSnapshot()`.
    pub fn zero_with_cost() -> Self {
        Self {
            input: 0.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
            total_tokens: 0.0,
            cost: Some(UsageCost {
                input: 0.0,
                output: 0.0,
                cache_read: 0.0,
                cache_write: 0.0,
                total: 0.0,
            }),
        }
    }

    /// `{input, output, cacheRead, cacheWrite, totalTokens, cost?}` in that
    /// key order; `cost` is `{input, output, cacheRead, cacheWrite, total}`
    /// and is omitted when `None`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("input".into(), js_number(self.input));
        out.insert("output".into(), js_number(self.output));
        out.insert("cacheRead".into(), js_number(self.cache_read));
        out.insert("cacheWrite".into(), js_number(self.cache_write));
        out.insert("totalTokens".into(), js_number(self.total_tokens));
        if let Some(cost) = &self.cost {
            let mut c = Map::new();
            c.insert("input".into(), js_number(cost.input));
            c.insert("output".into(), js_number(cost.output));
            c.insert("cacheRead".into(), js_number(cost.cache_read));
            c.insert("cacheWrite".into(), js_number(cost.cache_write));
            c.insert("total".into(), js_number(cost.total));
            out.insert("cost".into(), Value::Object(c));
        }
        Value::Object(out)
    }
}

/// A message timestamp in ms: a finite number as is, or an ISO-8601 string
/// parsed like `Date.parse` (see the module docs for the exact forms).
pub fn timestamp_ms(ts: &TimestampValue) -> Option<f64> {
    match ts {
        TimestampValue::Num(n) if n.is_finite() => Some(*n),
        TimestampValue::Str(s) => parse_iso_date(s),
        _ => None,
    }
}

/// ECMAScript's time-value limit: ±8.64e15 ms around the epoch.
const MAX_TIME_MS: f64 = 8.64e15;

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1–12).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A byte cursor over the timestamp string.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, options: &[u8]) -> Option<u8> {
        let b = self.peek().filter(|b| options.contains(b))?;
        self.pos += 1;
        Some(b)
    }

    /// Exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let slice = self.bytes.get(self.pos..self.pos + n)?;
        if !slice.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.pos += n;
        Some(
            slice
                .iter()
                .fold(0, |acc, b| acc * 10 + i64::from(b - b'0')),
        )
    }

    /// One or more digits, read as a fraction of a second in whole ms.
    fn fraction_ms(&mut self) -> Option<i64> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = self.bytes.get(start..self.pos)?;
        if digits.is_empty() {
            return None;
        }
        let ms = (0..3).fold(0, |acc, i| {
            acc * 10 + digits.get(i).map_or(0, |b| i64::from(b - b'0'))
        });
        Some(ms)
    }
}

fn parse_iso_date(s: &str) -> Option<f64> {
    let mut c = Cursor {
        bytes: s.as_bytes(),
        pos: 0,
    };
    let year = match c.eat(b"+-") {
        Some(sign) => {
            let y = c.digits(6)?;
            if sign == b'-' && y == 0 {
                return None;
            }
            if sign == b'-' {
                -y
            } else {
                y
            }
        }
        None => c.digits(4)?,
    };
    let (mut month, mut day) = (1, 1);
    if c.eat(b"-").is_some() {
        month = c.digits(2)?;
        if c.eat(b"-").is_some() {
            day = c.digits(2)?;
        }
    }
    let (mut hour, mut minute, mut second, mut ms, mut offset_min) = (0, 0, 0, 0, 0);
    let has_time = c.eat(b"Tt ").is_some();
    if has_time {
        hour = c.digits(2)?;
        c.eat(b":")?;
        minute = c.digits(2)?;
        if c.eat(b":").is_some() {
            second = c.digits(2)?;
            if c.eat(b".").is_some() {
                ms = c.fraction_ms()?;
            }
        }
    }
    match c.eat(b"Zz+-") {
        Some(b'Z' | b'z') | None => {}
        Some(sign) => {
            if !has_time {
                return None;
            }
            let oh = c.digits(2)?;
            c.eat(b":");
            let om = c.digits(2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            offset_min = if sign == b'-' {
                -(oh * 60 + om)
            } else {
                oh * 60 + om
            };
        }
    }
    let valid = c.pos == c.bytes.len()
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && minute <= 59
        && second <= 59
        && (hour < 24 || (hour == 24 && minute == 0 && second == 0 && ms == 0));
    if !valid {
        return None;
    }
    let days = days_from_civil(year, month, 1) + day - 1;
    let total = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
        - offset_min * 60_000;
    let total = total as f64;
    (total.abs() <= MAX_TIME_MS).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use UsageValue::{Bool, Null, Num, Object, Other, Str};

    #[test]
    fn reference_example() {
        let usage = normalize_usage(&[("output", Num(3.0)), ("cache_read_input_tokens", Num(9.0))]);
        let usage = usage.unwrap_or_else(UsageSnapshot::zero_with_cost);
        assert_eq!(
            usage.to_json(),
            json!({"input": 0, "output": 3, "cacheRead": 9, "cacheWrite": 0, "totalTokens": 12})
        );
        assert_eq!(
            serde_json::to_string(&usage.to_json()).unwrap_or_default(),
            r#"{"input":0,"output":3,"cacheRead":9,"cacheWrite":0,"totalTokens":12}"#
        );
    }

    #[test]
    fn missing_or_invalid_usage_is_none() {
        assert_eq!(normalize_usage(&[]), None);
        assert_eq!(normalize_usage(&[("foo", Num(1.0))]), None);
        assert_eq!(normalize_usage(&[("input", Str("5".into()))]), None);
        assert_eq!(normalize_usage(&[("input", Num(f64::NAN))]), None);
        assert_eq!(
            normalize_usage(&[("cost", Object), ("cost.total", Num(2.0))]),
            None
        );
        let zero = UsageSnapshot::zero_with_cost().to_json();
        assert_eq!(
            zero,
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
        );
    }

    #[test]
    fn aliases_follow_nullish_coalescing() {
        // null falls through to the next alias ...
        let u = normalize_usage(&[("input", Null), ("prompt_tokens", Num(7.0))]);
        assert_eq!(u.map(|u| u.input), Some(7.0));
        // ... but a present non-number stops the chain and yields "missing".
        let u = normalize_usage(&[
            ("input", Str("7".into())),
            ("prompt_tokens", Num(7.0)),
            ("output", Num(1.0)),
        ]);
        assert_eq!(u.map(|u| (u.input, u.total_tokens)), Some((0.0, 1.0)));
        let u = normalize_usage(&[
            ("inputTokens", Bool(true)),
            ("input_tokens", Num(4.0)),
            ("output", Num(1.0)),
        ]);
        assert_eq!(u.map(|u| u.input), Some(0.0));
        // Zero is a value: it does not fall through.
        let u = normalize_usage(&[("input_tokens", Num(0.0)), ("prompt_tokens", Num(4.0))]);
        assert_eq!(u.map(|u| u.input), Some(0.0));
        // Earlier aliases win.
        let u = normalize_usage(&[("completion_tokens", Num(2.0)), ("outputTokens", Num(5.0))]);
        assert_eq!(u.map(|u| u.output), Some(5.0));
    }

    #[test]
    fn every_alias_is_read() {
        type Read = fn(&UsageSnapshot) -> f64;
        let cases: &[(&str, Read)] = &[
            ("input", |u| u.input),
            ("inputTokens", |u| u.input),
            ("input_tokens", |u| u.input),
            ("promptTokens", |u| u.input),
            ("prompt_tokens", |u| u.input),
            ("output", |u| u.output),
            ("outputTokens", |u| u.output),
            ("output_tokens", |u| u.output),
            ("completionTokens", |u| u.output),
            ("completion_tokens", |u| u.output),
            ("cacheRead", |u| u.cache_read),
            ("cache_read", |u| u.cache_read),
            ("cache_read_input_tokens", |u| u.cache_read),
            ("cached_tokens", |u| u.cache_read),
            ("cacheWrite", |u| u.cache_write),
            ("cache_write", |u| u.cache_write),
            ("cache_creation_input_tokens", |u| u.cache_write),
            ("total", |u| u.total_tokens),
            ("totalTokens", |u| u.total_tokens),
            ("total_tokens", |u| u.total_tokens),
        ];
        for (key, read) in cases {
            let u = normalize_usage(&[(key, Num(11.0))]);
            assert_eq!(u.as_ref().map(read), Some(11.0), "{key}");
        }
    }

    #[test]
    fn nested_cached_tokens_need_an_object_parent() {
        let u = normalize_usage(&[
            ("prompt_tokens", Num(100.0)),
            ("prompt_tokens_details", Object),
            ("prompt_tokens_details.cached_tokens", Num(80.0)),
        ]);
        assert_eq!(
            u.map(|u| (u.cache_read, u.total_tokens)),
            Some((80.0, 180.0))
        );
        let u = normalize_usage(&[("prompt_tokens_details.cached_tokens", Num(80.0))]);
        assert_eq!(u, None);
        let u = normalize_usage(&[
            ("prompt_tokens_details", Other),
            ("prompt_tokens_details.cached_tokens", Num(8.0)),
        ]);
        assert_eq!(u, None);
    }

    #[test]
    fn only_negative_input_is_clamped() {
        let u = normalize_usage(&[
            ("input", Num(-5.0)),
            ("output", Num(-2.0)),
            ("cacheRead", Num(-1.0)),
        ]);
        assert_eq!(
            u.map(|u| (u.input, u.output, u.cache_read, u.total_tokens)),
            Some((0.0, -2.0, -1.0, -3.0))
        );
    }

    #[test]
    fn reported_total_wins_over_the_sum() {
        let u = normalize_usage(&[
            ("input", Num(1.0)),
            ("output", Num(2.0)),
            ("total_tokens", Num(50.0)),
        ]);
        assert_eq!(u.map(|u| u.total_tokens), Some(50.0));
        let u = normalize_usage(&[("total", Num(0.0))]);
        assert_eq!(u.map(|u| u.total_tokens), Some(0.0));
    }

    #[test]
    fn cost_is_kept_only_with_a_numeric_field() {
        let base = [("input", Num(1.0)), ("output", Num(2.0)), ("cost", Object)];
        let with = |extra: &[(&'static str, UsageValue)]| {
            let mut fields: Vec<(&str, UsageValue)> = base.to_vec();
            fields.extend_from_slice(extra);
            normalize_usage(&fields).and_then(|u| u.cost)
        };
        assert_eq!(with(&[]), None);
        assert_eq!(with(&[("cost.total", Str("1".into()))]), None);
        assert_eq!(
            with(&[("cost.input", Num(0.5)), ("cost.output", Num(0.25))]),
            Some(UsageCost {
                input: 0.5,
                output: 0.25,
                cache_read: 0.0,
                cache_write: 0.0,
                total: 0.75
            })
        );
        assert_eq!(
            with(&[("cost.total", Num(3.0)), ("cost.input", Num(1.0))]),
            Some(UsageCost {
                input: 1.0,
                output: 0.0,
                cache_read: 0.0,
                cache_write: 0.0,
                total: 3.0
            })
        );
        // A cost that is not an object is ignored.
        let u = normalize_usage(&[("input", Num(1.0)), ("cost", Num(3.0))]);
        assert_eq!(u.and_then(|u| u.cost), None);
        let u = normalize_usage(&[
            ("input", Num(1.0)),
            ("cost", Object),
            ("cost.total", Num(0.125)),
        ]);
        let json = u.map(|u| u.to_json());
        assert_eq!(
            json,
            Some(
                json!({"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.125}})
            )
        );
    }

    #[test]
    fn last_duplicate_wins() {
        let u = normalize_usage(&[("input", Num(1.0)), ("input", Num(2.0))]);
        assert_eq!(u.map(|u| u.input), Some(2.0));
    }

    #[test]
    fn json_numbers_look_like_javascript() {
        let mut u = UsageSnapshot::zero_with_cost();
        u.input = -0.0;
        u.output = 1.5;
        u.cost = None;
        let text = serde_json::to_string(&u.to_json()).unwrap_or_default();
        assert_eq!(
            text,
            r#"{"input":0,"output":1.5,"cacheRead":0,"cacheWrite":0,"totalTokens":0}"#
        );
    }

    #[test]
    fn timestamps_from_numbers() {
        assert_eq!(timestamp_ms(&TimestampValue::Num(1.5)), Some(1.5));
        assert_eq!(timestamp_ms(&TimestampValue::Num(f64::INFINITY)), None);
        assert_eq!(timestamp_ms(&TimestampValue::None), None);
    }

    #[test]
    fn timestamps_from_iso_strings_match_date_parse() {
        // Expected values were produced with Node 20 `Date.parse` under TZ=UTC.
        let cases: &[(&str, Option<f64>)] = &[
            ("2026-03-01", Some(1772323200000.0)),
            ("2026-03", Some(1772323200000.0)),
            ("2026", Some(1767225600000.0)),
            ("+002026-03-01T00:00:00Z", Some(1772323200000.0)),
            ("-000001-01-01T00:00:00Z", Some(-62198755200000.0)),
            ("-000000-01-01T00:00:00Z", None),
            ("0000-01-01", Some(-62167219200000.0)),
            ("2026-03-01T10:00Z", Some(1772359200000.0)),
            ("2026-03-01T10:00:00Z", Some(1772359200000.0)),
            ("2026-03-01T10:00:00.1Z", Some(1772359200100.0)),
            ("2026-03-01T10:00:00.12Z", Some(1772359200120.0)),
            ("2026-03-01T10:00:00.1234567Z", Some(1772359200123.0)),
            ("2026-03-01T10:00:00+01:00", Some(1772355600000.0)),
            ("2026-03-01T10:00:00+0100", Some(1772355600000.0)),
            ("2026-03-01T10:00:00.5+0530", Some(1772339400500.0)),
            ("2026-03-01T10:00:00-23:59", Some(1772445540000.0)),
            ("2026-03-01T10:00:00+01", None),
            ("2026-03-01T10:00:00+24:00", None),
            ("2026-02-30", Some(1772409600000.0)),
            ("2026-02-31T00:00:00Z", Some(1772496000000.0)),
            ("2026-01-32", None),
            ("2026-03-01T24:00:00Z", Some(1772409600000.0)),
            ("2026-03-01T24:00:00.001Z", None),
            ("2026-03-01T23:60:00Z", None),
            ("2026-03-01T23:59:60Z", None),
            ("2026-13-01", None),
            ("2026-00-01", None),
            ("2026-01-00", None),
            ("2026-03-01t10:00:00z", Some(1772359200000.0)),
            ("2026-03-01 10:00:00Z", Some(1772359200000.0)),
            ("2026-03-01T10:00:00", Some(1772359200000.0)),
            ("2026-03T10:00Z", Some(1772359200000.0)),
            ("2026T10:00Z", Some(1767261600000.0)),
            ("2026-03-01Z", Some(1772323200000.0)),
            ("2026-03-01+01:00", None),
            ("2026-03-01T10Z", None),
            ("2026-03-01T10:00:00.Z", None),
            ("2026-03-01T10:00.5Z", None),
            ("2026-03-01T10:00:00ZZ", None),
            ("2026-03-01T10:00:00Z ", None),
            ("20260301", None),
            ("1969-12-31T23:59:59.999Z", Some(-1.0)),
            ("+275760-09-13T00:00:00Z", Some(8.64e15)),
            ("+275760-09-13T00:00:00.001Z", None),
            ("-271821-04-20T00:00:00Z", Some(-8.64e15)),
            ("-271821-04-19T23:59:59Z", None),
            ("", None),
            ("not a date", None),
        ];
        for (text, expected) in cases {
            assert_eq!(
                timestamp_ms(&TimestampValue::Str((*text).into())),
                *expected,
                "{text:?}"
            );
        }
    }
}
