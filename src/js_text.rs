//! JavaScript's idea of whitespace, for the rules that must trim or test strings exactly as the
//! TypeScript they replace does (`String.prototype.trim`, the regex class `\s`). Rust's
//! `char::is_whitespace` differs: it includes U+0085 and lacks U+FEFF. And JavaScript's `Number`
//! of a string or an array, for a field a rule compares with a number as JS does.

use serde_json::Value;

/// ECMAScript WhiteSpace and LineTerminator code points.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The same set as a regex class, for patterns ported from JavaScript's `\s` (Rust's `\s` is
/// Unicode White_Space: it has U+0085 and lacks U+FEFF).
pub const JS_WHITESPACE_CLASS: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// `s.trim()` as JavaScript does it.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `Number(s)` as JavaScript reads a string: JS whitespace trimmed, `""` is 0, `Infinity` with
/// an optional sign, `0x`/`0o`/`0b` integers without a sign, otherwise a decimal literal (no
/// `_`, no `inf`/`nan` words); anything else is NaN.
pub fn js_number(s: &str) -> f64 {
    let t = js_trim(s);
    let radix = |p: &str| match p {
        "0x" | "0X" => Some(16),
        "0o" | "0O" => Some(8),
        "0b" | "0B" => Some(2),
        _ => None,
    };
    if let Some(r) = t.get(..2).and_then(radix) {
        let digits = &t[2..];
        if digits.is_empty() {
            return f64::NAN;
        }
        return digits
            .chars()
            .try_fold(0.0, |n: f64, c| {
                c.to_digit(r).map(|d| n * f64::from(r) + f64::from(d))
            })
            .unwrap_or(f64::NAN);
    }
    match t.strip_prefix(['+', '-']).unwrap_or(t) {
        "" if t.is_empty() => 0.0,
        "Infinity" if t.starts_with('-') => f64::NEG_INFINITY,
        "Infinity" => f64::INFINITY,
        rest if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && rest
                .bytes()
                .all(|c| c.is_ascii_digit() || b".eE+-".contains(&c)) =>
        {
            t.parse().unwrap_or(f64::NAN)
        }
        _ => f64::NAN,
    }
}

/// `String(v)` of a JSON value as JavaScript writes it (an array is its elements joined with `,`,
/// `null` inside one as nothing); a number in a form [`js_number`] reads back as the same number
/// (not always JS's own digits: only the value is ever read).
pub fn js_string_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Object(_) => "[object Object]".into(),
        Value::Array(items) => {
            let item = |v: &Value| match v {
                Value::Null => String::new(),
                v => js_string_of(v),
            };
            items.iter().map(item).collect::<Vec<_>>().join(",")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_from_strings_as_javascript_reads_them() {
        let cases: &[(&str, f64)] = &[
            ("3", 3.0),
            (" 3\u{a0}\u{2028}", 3.0),
            ("", 0.0),
            ("  ", 0.0),
            ("1.", 1.0),
            (".5", 0.5),
            ("-.5e1", -5.0),
            ("+1", 1.0),
            ("1e+5", 1e5),
            ("00012", 12.0),
            ("0x1F", 31.0),
            ("0b11", 3.0),
            ("0o17", 15.0),
            ("-Infinity", f64::NEG_INFINITY),
            ("+Infinity", f64::INFINITY),
            ("1e400", f64::INFINITY),
        ];
        for (s, want) in cases {
            assert_eq!(js_number(s), *want, "{s:?}");
        }
        assert!(js_number("-0").is_sign_negative());
        let read = |v: Value| js_number(&js_string_of(&v));
        assert_eq!(read(serde_json::json!([2])), 2.0);
        assert_eq!(read(serde_json::json!([[" 1.5 "]])), 1.5);
        assert_eq!(read(serde_json::json!([])), 0.0);
        assert_eq!(read(serde_json::json!([null])), 0.0);
        for v in [
            serde_json::json!([1, 2]),
            serde_json::json!([true]),
            serde_json::json!([{}]),
        ] {
            assert!(read(v).is_nan());
        }
        for s in [
            "abc", "1_0", "inf", "infinity", "NaN", "-0x1", "0x", "0x1g", "1e", ".", "+", "3个",
            "1,2", "--1",
        ] {
            assert!(js_number(s).is_nan(), "{s:?}");
        }
    }

    #[test]
    fn trims_the_ecmascript_whitespace_set() {
        assert_eq!(js_trim("\u{FEFF} x \u{00A0}"), "x");
        assert_eq!(js_trim("\u{2028}x\u{2029}"), "x");
        assert_eq!(js_trim("\u{0085}x"), "\u{0085}x");
    }
}
