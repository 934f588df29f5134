//! JavaScript's `String(v)` for JSON values. The agents flattened tool inputs with template
//! coercion, so rebuilding their text exactly (and recognising it again) needs the same rules:
//! arrays join their elements with `,` (null elements give ``), objects give `[object Object]`,
//! numbers print as `Number.prototype.toString` does (`1e+21`, `-0` as `0`).

use serde_json::Value;
use std::borrow::Cow;

/// `Number.prototype.toString()` for a finite double.
pub fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = x.abs();
    if (1e-7..1e21).contains(&a) {
        // Rust prints the shortest round-trip digits in fixed notation, as JS does in this range.
        return format!("{x}");
    }
    let e = format!("{x:e}");
    match e.split_once('e') {
        Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
        _ => e,
    }
}

/// `String(v)`.
pub fn js_string(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        Value::Null => Cow::Borrowed("null"),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::Number(n) => Cow::Owned(js_number(n.as_f64().unwrap_or(f64::NAN))),
        Value::Object(_) => Cow::Borrowed("[object Object]"),
        Value::Array(a) => {
            let mut out = String::new();
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !e.is_null() {
                    out.push_str(&js_string(e));
                }
            }
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        assert_eq!(js_number(42.0), "42");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1.5e-8), "1.5e-8");
        assert_eq!(js_number(123456789012345680000.0), "123456789012345680000");
    }

    #[test]
    fn template_coercion_of_json_values() {
        assert_eq!(js_string(&json!(null)), "null");
        assert_eq!(js_string(&json!(true)), "true");
        assert_eq!(js_string(&json!("a<b>&c")), "a<b>&c");
        assert_eq!(js_string(&json!([1, "x", null, [2, 3]])), "1,x,,2,3");
        assert_eq!(
            js_string(&json!([{"path": "a"}, {"path": "b"}])),
            "[object Object],[object Object]"
        );
        assert_eq!(js_string(&json!({"x": 1})), "[object Object]");
        assert_eq!(js_string(&json!([])), "");
    }
}
