//! Call arguments written as JSON text, copied into their canonical form in one pass, without a
//! `serde_json::Value` in between.
//!
//! Why: every JSON-bodied family returns a call's arguments as canonical JSON text (what
//! `serde_json::Value::to_string` writes: no whitespace, key order kept, serde's escapes). Parsing
//! each call's arguments into a `Value` and writing it again was a large part of `cleanResponse`'s
//! time on replies dense with calls. [`object`] writes the same text directly for the arguments
//! whose canonical form is a plain copy of what the model wrote, less whitespace; anything it is
//! not sure to write exactly as serde would — a fraction or exponent, an integer too long for an
//! `i64`, `-0`, a `\u` escape of a surrogate, a duplicate key, deep nesting, anything invalid —
//! gives `None`, and the caller takes the `Value` path (which also reports what is wrong).

/// Deeper than this falls back to serde (whose own limit is 128).
const MAX_DEPTH: usize = 64;

/// Objects with more keys than this fall back to serde (duplicates are looked for pairwise).
const MAX_KEYS: usize = 32;

/// The canonical text of `raw`, which must be exactly one JSON object (no surrounding text, not
/// even whitespace), or `None` (see the module doc).
///
/// ```
/// use transcript_hygiene::response::canonical::object;
/// assert_eq!(object(r#"{"path": "src/读.rs", "limit": 3, "deep": {"a": [true, null]}}"#).as_deref(),
///            Some(r#"{"path":"src/读.rs","limit":3,"deep":{"a":[true,null]}}"#));
/// assert_eq!(object(r#"{"t": 0.5}"#), None); // a fraction: serde's float printing decides
/// assert_eq!(object(r#"{"a": 1, "a": 2}"#), None); // a duplicate key: serde keeps the last
/// ```
pub fn object(raw: &str) -> Option<String> {
    let mut w = Writer::new(raw.as_bytes(), 0);
    if w.peek() != Some(b'{') {
        return None;
    }
    w.value(0)?;
    (w.i == raw.len()).then(|| w.finish())?
}

/// A call object `{"name": "…", "arguments": {…}, …}` at `at` (which holds `{`): the name, the
/// canonical text of its arguments (the first of `arg_keys` present; `{}` when none is, or it is
/// `null`), and the end of the object. An object with no `"name"` whose `"tool"` names one of
/// `tools` ([`super::bare_json::resolve`]) and whose arguments are an object is that tool's call,
/// as [`super::json_calls::call_from_value`] reads it. `None` when the object is not that simple
/// (another shape, a non-string name, arguments neither an object nor `null`, a key with an
/// escape) or anything in it is not sure to be written as serde would: the caller then reads it
/// as a `Value`.
pub fn call_object(
    text: &str,
    at: usize,
    arg_keys: &[&str],
    tools: Option<&serde_json::Value>,
) -> Option<(String, String, usize)> {
    let mut w = Writer::new(text.as_bytes(), at);
    if w.peek() != Some(b'{') || arg_keys.len() > MAX_ARG_KEYS {
        return None;
    }
    // Only the arguments are written out; the other members are read (and checked) in place.
    let mut picks = Picks::default();
    w.call_members(arg_keys, &mut picks)?;
    let end = w.i;
    let args = picks.args.iter().flatten().next().copied();
    let out = &w.out;
    let value_is = |(a, b): (usize, usize), t: &[u8]| out.get(a..b) == Some(t);
    let name = match (picks.name, picks.tool) {
        (Some(n), _) => string_at(text, n)?,
        // `"function"` or `"tool_name"` say where the name is: the `Value` path reads them.
        (None, _) if picks.named_elsewhere => return None,
        (None, Some(t)) if args.is_some_and(|a| out.get(a.0) == Some(&b'{')) => {
            super::bare_json::resolve(tools, &string_at(text, t)?)?.to_owned()
        }
        (None, _) => return None,
    };
    let args = match args {
        None => "{}".to_owned(),
        Some(a) if value_is(a, b"null") => "{}".to_owned(),
        Some((a, b)) if out.get(a) == Some(&b'{') => {
            // The written text becomes the arguments' string: no second buffer.
            let mut out = w.out;
            out.truncate(b);
            if a > 0 {
                out.drain(..a);
            }
            String::from_utf8(out).ok()?
        }
        Some(_) => return None,
    };
    Some((name, args, end))
}

/// The most argument keys [`call_object`] is asked for.
const MAX_ARG_KEYS: usize = 8;

/// What [`Writer::call_members`] found: where the name (and `"tool"`) strings are in the text,
/// where each argument key's value was written in [`Writer::out`], and whether a `"function"`
/// or `"tool_name"` key says where the name is.
#[derive(Default)]
struct Picks {
    name: Option<(usize, usize)>,
    tool: Option<(usize, usize)>,
    args: [Option<(usize, usize)>; MAX_ARG_KEYS],
    named_elsewhere: bool,
}

/// The string whose JSON text (quotes included) is `text[a..b]`: the text between the quotes
/// when it holds no escape, else as serde decodes it.
fn string_at(text: &str, (a, b): (usize, usize)) -> Option<String> {
    let raw = text.get(a..b)?;
    if raw.bytes().any(|b| b == b'\\') {
        return serde_json::from_str::<String>(raw).ok();
    }
    Some(raw.get(1..raw.len() - 1)?.to_owned())
}

/// Up to [`MAX_KEYS`] ranges (an object's keys, for the duplicate check), on the stack: a `Vec`
/// for each object's keys and for a call's members was three of the allocations of every call
/// read.
struct Ranges<T: Copy + Default> {
    n: usize,
    items: [T; MAX_KEYS],
}

impl<T: Copy + Default> Default for Ranges<T> {
    fn default() -> Self {
        Ranges {
            n: 0,
            items: [T::default(); MAX_KEYS],
        }
    }
}

impl<T: Copy + Default> Ranges<T> {
    fn as_slice(&self) -> &[T] {
        &self.items[..self.n]
    }

    /// Adds `item`; `None` when [`MAX_KEYS`] are held already.
    fn push(&mut self, item: T) -> Option<()> {
        *self.items.get_mut(self.n)? = item;
        self.n += 1;
        Some(())
    }
}

/// Reads JSON at `i` and writes its canonical form to `out`. The canonical form is the text
/// less its whitespace outside strings, with the escapes serde writes differently rewritten
/// (`\/`, `\u`): the text is copied in runs between those places (from `from` up to `i` when one
/// is met), not value by value, so a call's arguments are a few copies.
struct Writer<'a> {
    s: &'a [u8],
    i: usize,
    /// Where the text not yet copied to `out` starts.
    from: usize,
    out: Vec<u8>,
    /// An escape was rewritten since this was last cleared (a key's text is then not its
    /// canonical form).
    rewritten: bool,
}

impl<'a> Writer<'a> {
    fn new(s: &'a [u8], i: usize) -> Self {
        // The canonical text is never longer than what it is read from (whitespace dropped,
        // escapes kept or shortened): room for the rest of the input, up to a call's usual
        // size, so a call's arguments are written without growing the buffer.
        let room = s.len().saturating_sub(i).min(512);
        Writer {
            s,
            i,
            from: i,
            out: Vec::with_capacity(room),
            rewritten: false,
        }
    }

    fn finish(mut self) -> Option<String> {
        self.flush();
        // Only whole UTF-8 sequences of the input and ASCII were written.
        String::from_utf8(self.out).ok()
    }

    /// Copies the text read since the last copy.
    fn flush(&mut self) {
        if self.i > self.from {
            self.out.extend_from_slice(&self.s[self.from..self.i]);
        }
        self.from = self.i;
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    /// JSON whitespace (serde's: space, tab, line feed, carriage return), left out of `out`.
    fn ws(&mut self) {
        if is_ws(self.peek()) {
            self.flush();
            self.skip_ws();
            self.from = self.i;
        }
    }

    /// Whitespace passed over, as [`Writer::ws`] without its copy.
    fn skip_ws(&mut self) {
        while is_ws(self.peek()) {
            self.i += 1;
        }
    }

    fn lit(&mut self, word: &[u8]) -> Option<()> {
        if self.s.get(self.i..self.i + word.len())? != word {
            return None;
        }
        self.i += word.len();
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => self.container(depth, b'}', true),
            b'[' => self.container(depth, b']', false),
            b'"' => self.string(),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    /// An object (`keyed`) or an array.
    fn container(&mut self, depth: usize, close: u8, keyed: bool) -> Option<()> {
        self.i += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Some(());
        }
        // The keys as written: without a rewritten escape, that is their canonical form.
        let mut keys: Ranges<(usize, usize)> = Ranges::default();
        loop {
            self.ws();
            if keyed {
                let k0 = self.i;
                self.rewritten = false;
                self.string()?;
                if self.rewritten {
                    return None;
                }
                let key = &self.s[k0..self.i];
                if keys.as_slice().iter().any(|p| &self.s[p.0..p.1] == key) {
                    return None;
                }
                keys.push((k0, self.i))?;
                self.ws();
                self.eat(b':')?;
                self.ws();
            }
            self.value(depth + 1)?;
            self.ws();
            match self.next()? {
                b',' => {}
                b if b == close => return Some(()),
                _ => return None,
            }
        }
    }

    /// The members of the call object at `i` (which holds `{`): each value checked as
    /// [`Writer::value`] checks it, only the values of `arg_keys` written to `out` (see
    /// [`Picks`]). A key with an escape gives `None` (its text is then not its canonical form,
    /// which the duplicate check compares).
    fn call_members(&mut self, arg_keys: &[&str], picks: &mut Picks) -> Option<()> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Some(());
        }
        let mut keys: Ranges<(usize, usize)> = Ranges::default();
        loop {
            self.skip_ws();
            self.eat(b'"')?;
            let k0 = self.i;
            self.i += special_at(self.s.get(k0..)?)?;
            let k = (k0, self.i);
            self.eat(b'"')?;
            let key = &self.s[k.0..k.1];
            if keys.as_slice().iter().any(|p| &self.s[p.0..p.1] == key) {
                return None;
            }
            keys.push(k)?;
            self.skip_ws();
            self.eat(b':')?;
            self.skip_ws();
            let (v0, o0) = (self.i, self.out.len());
            self.from = v0;
            self.value(1)?;
            match key {
                b"name" if self.s[v0] == b'"' => picks.name = Some((v0, self.i)),
                b"name" => return None,
                b"tool" if self.s[v0] == b'"' => picks.tool = Some((v0, self.i)),
                b"function" | b"tool_name" => picks.named_elsewhere = true,
                _ => {}
            }
            match arg_keys.iter().position(|a| a.as_bytes() == key) {
                Some(p) => {
                    self.flush();
                    picks.args[p] = Some((o0, self.out.len()));
                }
                None => self.out.truncate(o0),
            }
            self.skip_ws();
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// An integer serde reads as an `i64`/`u64` and writes back digit for digit.
    fn integer(&mut self) -> Option<()> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        let d = &self.s[digits..self.i];
        let neg = digits > start;
        let ok = match d {
            [] => false,
            [b'0'] => !neg,
            [b'0', ..] => false,
            _ => d.len() <= 18,
        };
        if !ok || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(())
    }

    /// A string: serde writes it as it stands, but for the escapes [`Writer::escape`] rewrites.
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            self.i += special_at(self.s.get(self.i..)?)?;
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => self.escape()?,
                // A raw control character: invalid JSON.
                _ => return None,
            }
        }
    }

    /// The escape after a backslash (at `i - 1`): kept when serde writes the character it stands
    /// for so (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`), rewritten as serde writes it otherwise.
    fn escape(&mut self) -> Option<()> {
        let e = self.next()?;
        match e {
            b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f' => return Some(()),
            b'/' | b'u' => {}
            _ => return None,
        }
        // Everything before the backslash is copied; the escape is written anew.
        let backslash = self.i - 2;
        if backslash > self.from {
            self.out.extend_from_slice(&self.s[self.from..backslash]);
        }
        self.rewritten = true;
        if e == b'/' {
            self.out.push(b'/');
            self.from = self.i;
            return Some(());
        }
        let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let code = u32::from_str_radix(hex, 16).ok()?;
        self.i += 4;
        self.from = self.i;
        // A surrogate (paired or not) goes the slow way.
        let c = char::from_u32(code)?;
        let mut tmp = [0u8; 4];
        match c {
            '"' => self.out.extend_from_slice(b"\\\""),
            '\\' => self.out.extend_from_slice(b"\\\\"),
            '\u{8}' => self.out.extend_from_slice(b"\\b"),
            '\u{c}' => self.out.extend_from_slice(b"\\f"),
            '\n' => self.out.extend_from_slice(b"\\n"),
            '\r' => self.out.extend_from_slice(b"\\r"),
            '\t' => self.out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                self.out
                    .extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes());
            }
            c => self
                .out
                .extend_from_slice(c.encode_utf8(&mut tmp).as_bytes()),
        }
        Some(())
    }
}

/// JSON whitespace (serde's: space, tab, line feed, carriage return).
fn is_ws(b: Option<u8>) -> bool {
    matches!(b, Some(b' ' | b'\t' | b'\n' | b'\r'))
}

/// `s` as a JSON string, escaped as serde_json escapes it: copied whole between quotes when it
/// holds no `"`, `\\` or control byte (most keys and values: serde's escaping goes byte by
/// byte through a table), else written by serde.
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    if special_at(s.as_bytes()).is_some() {
        // Writing to a Vec cannot fail, and a str always serialises.
        let _ = serde_json::to_writer(&mut *out, s);
        return;
    }
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// The first `"`, `\\` or control byte of `s` (what ends a run of a string's plain bytes):
/// eight bytes at a time, each word tested for the three at once (the lowest flagged byte of
/// these tests is exactly the first match: a borrow only runs up from a byte that matched).
/// Byte by byte, this scan was the largest part of reading a call's keys and short values.
fn special_at(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut at = 0;
    while let Some(w) = s.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        let w = u64::from_le_bytes(w);
        let hits = zero_byte(w ^ (ONES * u64::from(b'"')))
            | zero_byte(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = s.get(at..)?;
    (tail
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20))
    .map(|k| at + k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the `Value` path writes, or `None` when serde does not read `raw` as an object.
    fn serde_text(raw: &str) -> Option<String> {
        match serde_json::from_str::<Value>(raw) {
            Ok(v @ Value::Object(_)) => Some(v.to_string()),
            _ => None,
        }
    }

    /// Every input that is copied is copied exactly as serde writes it; the ones marked `true`
    /// must be copied (not fall back).
    #[test]
    fn copies_exactly_what_serde_writes() {
        let cases: &[(&str, bool)] = &[
            (r#"{"path": "src/file_3.rs", "limit": 3}"#, true),
            (
                r#"{ "q" : "北京天气", "n" : -12 , "ok":true,"x":null }"#,
                true,
            ),
            (r#"{"a": {"b": [1, 2, {"c": []}], "d": {}}}"#, true),
            (r#"{"s": "tab\t nl\n q\" bs\\ sl\/ \b\f\r"}"#, true),
            (
                r#"{"u": "\u4e2d\u6587 \u0041 \u001f \u0022 \u005c \u000a"}"#,
                true,
            ),
            (r#"{"big": 123456789012345678}"#, true),
            (r#"{"big": 1234567890123456789}"#, false),
            (r#"{"f": 1.5}"#, false),
            (r#"{"e": 1e3}"#, false),
            (r#"{"z": -0}"#, false),
            (r#"{"lead": 012}"#, false),
            (r#"{"sur": "\ud83d\ude00"}"#, false),
            (r#"{"dup": 1, "dup": 2}"#, false),
            (r#"{"a": 1,}"#, false),
            (r#"{"a" 1}"#, false),
            (r#"{a: 1}"#, false),
            ("{\"raw\": \"line\nbreak\"}", false),
            (r#"{"a": [1 2]}"#, false),
            (r#"{"a": tru}"#, false),
            (r#"{"a": 1} x"#, false),
            (r#"{"a": 1"#, false),
        ];
        for (raw, copied) in cases {
            let ours = object(raw);
            if let Some(t) = &ours {
                assert_eq!(Some(t.clone()), serde_text(raw), "{raw}");
            }
            assert_eq!(ours.is_some(), *copied, "{raw}");
        }
    }

    /// The word scan stops where a byte-by-byte scan does, for each special byte at each place
    /// of a word, after ASCII and after multi-byte characters.
    #[test]
    fn special_at_finds_the_first_special_byte() {
        let plain = "ab中文说明é9~".repeat(3);
        for special in [b'"', b'\\', b'\n', 0x00, 0x1F] {
            for at in 0..plain.len() {
                let mut s = plain.as_bytes().to_vec();
                s.insert(at, special);
                s.push(b'"');
                let naive = s.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
                assert_eq!(special_at(&s), naive, "{special:#x} at {at}");
            }
        }
        assert_eq!(special_at(plain.as_bytes()), None);
        assert_eq!(special_at(b" !#[]\x7f\xff"), None);
        // Written as serde writes it, copied or escaped.
        for t in [
            "",
            "path",
            "src/读.rs",
            " !#[]\u{7f}",
            "a\"b",
            "c:\\d",
            "\u{1}\n\t中",
            &plain,
        ] {
            let mut out = Vec::new();
            push_json_str(&mut out, t);
            assert_eq!(out, serde_json::to_vec(t).unwrap_or_default(), "{t:?}");
        }
    }

    #[test]
    fn deep_nesting_falls_back() {
        let raw = format!("{{\"a\":{}1{}}}", "[".repeat(100), "]".repeat(100));
        assert_eq!(object(&raw), None);
        let raw = format!("{{\"a\":{}1{}}}", "[".repeat(10), "]".repeat(10));
        assert_eq!(object(&raw), serde_text(&raw));
    }

    #[test]
    fn call_objects_give_name_arguments_and_end() {
        let keys = ["arguments", "parameters", "args", "input"];
        let t = r#"x {"name": "read_file", "arguments": {"path": "a b"}} tail"#;
        assert_eq!(
            call_object(t, 2, &keys, None),
            Some(("read_file".into(), r#"{"path":"a b"}"#.into(), t.len() - 5))
        );
        // The key order of `arg_keys` decides, not the text's.
        let t = r#"{"input": {"i": 1}, "name": "f\u0021", "parameters": {"p": 2}}"#;
        assert_eq!(
            call_object(t, 0, &keys, None),
            Some(("f!".into(), r#"{"p":2}"#.into(), t.len()))
        );
        let t = r#"{"name": "f", "arguments": null}"#;
        assert_eq!(
            call_object(t, 0, &keys, None).map(|c| c.1),
            Some("{}".into())
        );
        let t = r#"{"name": "f"}"#;
        assert_eq!(
            call_object(t, 0, &keys, None).map(|c| c.1),
            Some("{}".into())
        );
        for slow in [
            r#"{"name": "f", "arguments": "{\"a\": 1}"}"#,
            r#"{"name": 3, "arguments": {}}"#,
            r#"{"function": {"name": "f", "arguments": {}}}"#,
            r#"{"name": "f", "name": "g", "arguments": {}}"#,
            r#"{"name": "f", "arguments": {"x": 0.5}}"#,
            r#"{"name": "f", "arguments": {}"#,
            r#"{}"#,
        ] {
            assert_eq!(call_object(slow, 0, &keys, None), None, "{slow}");
        }
        // `"tool"` naming an offered tool, as the `Value` path reads it; anything it cannot
        // settle goes that way (no tools, an unknown tool, arguments not an object, a name key).
        let tools = serde_json::json!([{"type": "function", "function": {"name": "get_weather"}}]);
        let t = r#"{"tool": "Get Weather", "input": {"城市": "北京"}}"#;
        assert_eq!(
            call_object(t, 0, &keys, Some(&tools)),
            Some(("get_weather".into(), r#"{"城市":"北京"}"#.into(), t.len()))
        );
        for slow in [
            r#"{"tool": "get_weather", "input": null}"#,
            r#"{"tool": "get_weather", "args": [1]}"#,
            r#"{"tool": "get_weather"}"#,
            r#"{"tool": "search", "input": {}}"#,
            r#"{"tool": 3, "input": {}}"#,
            r#"{"tool": "get_weather", "tool_name": "x", "input": {}}"#,
            r#"{"tool": "get_weather", "function": {}, "input": {}}"#,
            r#"{"t\u006fol": "get_weather", "input": {}}"#,
        ] {
            assert_eq!(call_object(slow, 0, &keys, Some(&tools)), None, "{slow}");
        }
        assert_eq!(call_object(t, 0, &keys, None), None);
    }
}
