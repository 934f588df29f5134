//! A small Python-literal reader for the pythonic tool-call families (Llama-3.2 pythonic, Llama-4,
//! Olmo-3, LFM2, ToolACE; reference §10): `[get_weather(city="London", days=3), get_time()]`.
//!
//! Reads strings in either quote style (also triple-quoted, with `r`/`u` prefixes and the usual
//! escapes), integers and floats, `True`/`False`/`None` (and JSON's `true`/`false`/`null`, which
//! models mix in), lists, tuples and dicts, nested up to [`MAX_DEPTH`]. Tuples become JSON arrays;
//! a dict key that is not a string is written as its JSON text. Calls take keyword arguments only
//! (a positional argument has no parameter name to map to, so such a call is not read). A dotted
//! name is kept as written, except Llama's built-in `tool.call(…)` form, which names `tool`.

use serde_json::{Map, Number, Value};

use super::RawCall;

/// Deeper literals are refused (no stack overflow on `[[[[…`).
pub const MAX_DEPTH: usize = 64;

fn skip_ws(s: &str, at: usize) -> usize {
    let rest = &s[at..];
    at + rest.len() - rest.trim_start().len()
}

/// One literal at `at` (after optional whitespace): `(value, end)`.
pub fn literal(s: &str, at: usize, depth: usize) -> Option<(Value, usize)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let at = skip_ws(s, at);
    let rest = s.get(at..)?;
    let first = *rest.as_bytes().first()?;
    match first {
        b'[' => sequence(s, at + 1, b']', depth),
        b'(' => sequence(s, at + 1, b')', depth),
        b'{' => dict(s, at + 1, depth),
        b'"' | b'\'' => string(s, at),
        b'r' | b'R' | b'u' | b'U' if matches!(rest.as_bytes().get(1), Some(b'"' | b'\'')) => {
            let raw = first == b'r' || first == b'R';
            let (v, end) = string(s, at + 1)?;
            if raw {
                // Re-read without escape processing.
                let q = rest.as_bytes()[1];
                let body_end = raw_string_end(s, at + 1, q)?;
                let body = &s[at + 1..body_end];
                let inner = body
                    .trim_start_matches(q as char)
                    .trim_end_matches(q as char);
                return Some((Value::String(inner.to_owned()), body_end));
            }
            Some((v, end))
        }
        _ => word(s, at),
    }
}

fn raw_string_end(s: &str, at: usize, q: u8) -> Option<usize> {
    let b = s.as_bytes();
    let triple = b.get(at..at + 3) == Some(&[q, q, q][..]);
    let mut i = at + if triple { 3 } else { 1 };
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == q && (!triple || b.get(i..i + 3) == Some(&[q, q, q][..])) {
            return Some(i + if triple { 3 } else { 1 });
        }
        i += 1;
    }
    None
}

fn string(s: &str, at: usize) -> Option<(Value, usize)> {
    let b = s.as_bytes();
    let q = *b.get(at)?;
    let triple = b.get(at..at + 3) == Some(&[q, q, q][..]);
    let mut i = at + if triple { 3 } else { 1 };
    let mut out = String::new();
    let mut run = i;
    while i < b.len() {
        let c = b[i];
        if c == q && (!triple || b.get(i..i + 3) == Some(&[q, q, q][..])) {
            out.push_str(&s[run..i]);
            return Some((Value::String(out), i + if triple { 3 } else { 1 }));
        }
        if c == b'\n' && !triple {
            return None;
        }
        if c == b'\\' {
            out.push_str(&s[run..i]);
            let (ch, len) = escape(s, i + 1)?;
            if let Some(ch) = ch {
                out.push(ch);
            }
            i += 1 + len;
            run = i;
            continue;
        }
        i += 1;
    }
    None
}

/// The character of the escape at `at` (after the backslash) and the bytes it takes.
fn escape(s: &str, at: usize) -> Option<(Option<char>, usize)> {
    let c = s.get(at..)?.chars().next()?;
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0' => Some('\0'),
        '\\' | '\'' | '"' => Some(c),
        '\n' => return Some((None, 1)),
        _ => None,
    };
    if let Some(ch) = simple {
        return Some((Some(ch), 1));
    }
    let hex = |n: usize| -> Option<(Option<char>, usize)> {
        let h = s.get(at + 1..at + 1 + n)?;
        let code = u32::from_str_radix(h, 16).ok()?;
        Some((Some(char::from_u32(code).unwrap_or('\u{fffd}')), 1 + n))
    };
    match c {
        'x' => hex(2),
        'u' => hex(4),
        'U' => hex(8),
        // Unknown escapes keep the backslash, as Python does.
        _ => Some((Some('\\'), 0)),
    }
}

fn sequence(s: &str, mut at: usize, close: u8, depth: usize) -> Option<(Value, usize)> {
    let mut items = Vec::new();
    loop {
        at = skip_ws(s, at);
        if s.as_bytes().get(at) == Some(&close) {
            return Some((Value::Array(items), at + 1));
        }
        let (v, end) = literal(s, at, depth + 1)?;
        items.push(v);
        at = skip_ws(s, end);
        match s.as_bytes().get(at) {
            Some(b',') => at += 1,
            Some(&c) if c == close => return Some((Value::Array(items), at + 1)),
            _ => return None,
        }
    }
}

fn dict(s: &str, mut at: usize, depth: usize) -> Option<(Value, usize)> {
    let mut map = Map::new();
    loop {
        at = skip_ws(s, at);
        if s.as_bytes().get(at) == Some(&b'}') {
            return Some((Value::Object(map), at + 1));
        }
        let (k, end) = literal(s, at, depth + 1)?;
        at = skip_ws(s, end);
        if s.as_bytes().get(at) != Some(&b':') {
            return None;
        }
        let (v, end) = literal(s, at + 1, depth + 1)?;
        let key = match k {
            Value::String(k) => k,
            other => other.to_string(),
        };
        map.insert(key, v);
        at = skip_ws(s, end);
        match s.as_bytes().get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return Some((Value::Object(map), at + 1)),
            _ => return None,
        }
    }
}

/// `True`, `None`, a number, … (a bare identifier is not a literal).
fn word(s: &str, at: usize) -> Option<(Value, usize)> {
    let rest = &s[at..];
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-')))
        .unwrap_or(rest.len());
    // `1e-5` and `-2`: a sign is part of a number only at the start or after an exponent.
    let mut end = 0;
    for (i, c) in rest[..len].char_indices() {
        if matches!(c, '+' | '-') && i > 0 && !matches!(rest.as_bytes()[i - 1], b'e' | b'E') {
            break;
        }
        end = i + c.len_utf8();
    }
    let w = &rest[..end];
    let v = match w {
        "True" | "true" => Value::Bool(true),
        "False" | "false" => Value::Bool(false),
        "None" | "null" => Value::Null,
        _ => number(w)?,
    };
    Some((v, at + end))
}

fn number(w: &str) -> Option<Value> {
    let clean: String = w.chars().filter(|&c| c != '_').collect();
    if let Ok(i) = clean.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f = clean.parse::<f64>().ok()?;
    let first = clean.trim_start_matches(['-', '+']).chars().next()?;
    if !first.is_ascii_digit() && first != '.' {
        return None; // `inf`, `nan`
    }
    Number::from_f64(f).map(Value::Number)
}

/// `NAME(k=v, …)` at `at` (after optional whitespace): the call and its end.
pub fn call(s: &str, at: usize) -> Option<(RawCall, usize)> {
    let at = skip_ws(s, at);
    let rest = s.get(at..)?;
    let name_len = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-') {
        return None;
    }
    let mut pos = skip_ws(s, at + name_len);
    if s.as_bytes().get(pos) != Some(&b'(') {
        return None;
    }
    pos += 1;
    let mut args = Map::new();
    loop {
        pos = skip_ws(s, pos);
        if s.as_bytes().get(pos) == Some(&b')') {
            pos += 1;
            break;
        }
        let krest = &s[pos..];
        let klen = krest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(krest.len());
        if klen == 0 {
            return None;
        }
        let key = &krest[..klen];
        pos = skip_ws(s, pos + klen);
        if s.as_bytes().get(pos) != Some(&b'=') {
            return None;
        }
        let (v, end) = literal(s, pos + 1, 1)?;
        args.insert(key.to_owned(), v);
        pos = skip_ws(s, end);
        match s.as_bytes().get(pos) {
            Some(b',') => pos += 1,
            Some(b')') => {
                pos += 1;
                break;
            }
            _ => return None,
        }
    }
    let name = name.strip_suffix(".call").unwrap_or(name);
    Some((
        RawCall {
            name: name.to_owned(),
            arguments: Value::Object(args).to_string(),
            id: None,
        },
        pos,
    ))
}

/// `[call, call, …]` at `at` (after optional whitespace): the calls and the end.
pub fn call_list(s: &str, at: usize) -> Option<(Vec<RawCall>, usize)> {
    let mut pos = skip_ws(s, at);
    if s.as_bytes().get(pos) != Some(&b'[') {
        return None;
    }
    pos += 1;
    let mut calls = Vec::new();
    loop {
        pos = skip_ws(s, pos);
        if s.as_bytes().get(pos) == Some(&b']') && !calls.is_empty() {
            return Some((calls, pos + 1));
        }
        let (c, end) = call(s, pos)?;
        calls.push(c);
        pos = skip_ws(s, end);
        match s.as_bytes().get(pos) {
            Some(b',') => pos += 1,
            Some(b']') => return Some((calls, pos + 1)),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lit(s: &str) -> Option<Value> {
        literal(s, 0, 0).map(|(v, _)| v)
    }

    #[test]
    fn literals() {
        assert_eq!(lit("'a\\'b'"), Some(json!("a'b")));
        assert_eq!(lit("\"北京 \\u00e9\\n\""), Some(json!("北京 é\n")));
        assert_eq!(lit("r'\\d+'"), Some(json!("\\d+")));
        assert_eq!(lit("'''multi\nline'''"), Some(json!("multi\nline")));
        assert_eq!(lit("-1.5e-3"), Some(json!(-0.0015)));
        assert_eq!(lit("1_000"), Some(json!(1000)));
        assert_eq!(
            lit("[True, None, (1, 2), {'k': [\"row[0]\"], 3: 'x'}]"),
            Some(json!([true, null, [1, 2], {"k": ["row[0]"], "3": "x"}]))
        );
        assert_eq!(lit("'open"), None);
        assert_eq!(lit("inf"), None);
        assert_eq!(lit("foo"), None);
        assert_eq!(lit(&"[".repeat(10_000)), None);
    }

    #[test]
    fn calls_and_lists() {
        let (c, end) = call_list(
            "[get_weather(city=\"London\", units='c'), get_time()] after",
            0,
        )
        .unwrap_or_default();
        assert_eq!(end, 51);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].arguments, r#"{"city":"London","units":"c"}"#);
        assert_eq!(c[1].arguments, "{}");
        assert!(call_list("[f(1)]", 0).is_none(), "positional");
        assert!(call_list("[]", 0).is_none());
        assert!(call_list("[f(a=1)", 0).is_none(), "truncated");
        let (b, _) = call("brave_search.call(query=\"x\")", 0).unwrap_or_else(|| {
            (
                RawCall {
                    name: String::new(),
                    arguments: String::new(),
                    id: None,
                },
                0,
            )
        });
        assert_eq!(b.name, "brave_search");
    }
}
