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
/// `null`), and the end of the object. `None` when the object is not that simple (another shape,
/// a non-string name, arguments neither an object nor `null`) or anything in it is not sure to be
/// written as serde would: the caller then reads it as a `Value`.
pub fn call_object(text: &str, at: usize, arg_keys: &[&str]) -> Option<(String, String, usize)> {
    let mut w = Writer::new(text.as_bytes(), at);
    if w.peek() != Some(b'{') {
        return None;
    }
    // The members' keys and values, as ranges of `w.out` (keys are distinct: a duplicate falls back).
    let mut members = Members::default();
    w.container(0, b'}', true, Some(&mut members))?;
    let members = members.as_slice();
    let out = &w.out;
    let key_is = |k: (usize, usize), name: &str| {
        k.1 - k.0 == name.len() + 2 && out.get(k.0 + 1..k.1 - 1) == Some(name.as_bytes())
    };
    let (_, name) = members.iter().find(|(k, _)| key_is(*k, "name"))?;
    let name_text = std::str::from_utf8(out.get(name.0..name.1)?).ok()?;
    if !name_text.starts_with('"') {
        return None;
    }
    let name = if name_text.contains('\\') {
        serde_json::from_str::<String>(name_text).ok()?
    } else {
        name_text[1..name_text.len() - 1].to_owned()
    };
    let args = arg_keys
        .iter()
        .find_map(|k| members.iter().find(|(key, _)| key_is(*key, k)))
        .map(|&(_, v)| v);
    let end = w.i;
    let args = match args.map(|v| (v, &out[v.0..v.1])) {
        None | Some((_, b"null")) => "{}".to_owned(),
        Some(((a, b), text)) if text.first() == Some(&b'{') => {
            // The written text becomes the arguments' string: no second buffer.
            let mut out = w.out;
            out.truncate(b);
            out.drain(..a);
            String::from_utf8(out).ok()?
        }
        Some(_) => return None,
    };
    Some((name, args, end))
}

/// An object member: its key and value as ranges of [`Writer::out`].
type Member = ((usize, usize), (usize, usize));

/// Up to [`MAX_KEYS`] ranges of [`Writer::out`], on the stack: a `Vec` for each object's keys
/// and for a call's members was three of the allocations of every call read.
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

type Members = Ranges<Member>;

/// Reads JSON at `i` and writes its canonical form to `out`.
struct Writer<'a> {
    s: &'a [u8],
    i: usize,
    out: Vec<u8>,
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
            out: Vec::with_capacity(room),
        }
    }

    fn finish(self) -> Option<String> {
        // Only whole UTF-8 sequences of the input and ASCII were written.
        String::from_utf8(self.out).ok()
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

    /// JSON whitespace (serde's: space, tab, line feed, carriage return).
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn lit(&mut self, word: &[u8]) -> Option<()> {
        if self.s.get(self.i..self.i + word.len())? != word {
            return None;
        }
        self.i += word.len();
        self.out.extend_from_slice(word);
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => self.container(depth, b'}', true, None),
            b'[' => self.container(depth, b']', false, None),
            b'"' => self.string(),
            b't' => self.lit(b"true"),
            b'f' => self.lit(b"false"),
            b'n' => self.lit(b"null"),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    /// An object (`keyed`) or an array; an object's members go to `members` as ranges of `out`.
    fn container(
        &mut self,
        depth: usize,
        close: u8,
        keyed: bool,
        mut members: Option<&mut Members>,
    ) -> Option<()> {
        self.out.push(self.s[self.i]);
        self.i += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            self.out.push(close);
            return Some(());
        }
        let mut keys: Ranges<(usize, usize)> = Ranges::default();
        loop {
            self.ws();
            if keyed {
                let k0 = self.out.len();
                self.string()?;
                let k = (k0, self.out.len());
                let key = &self.out[k.0..k.1];
                if keys.as_slice().iter().any(|p| &self.out[p.0..p.1] == key) {
                    return None;
                }
                keys.push(k)?;
                self.ws();
                self.eat(b':')?;
                self.out.push(b':');
                self.ws();
            }
            let v0 = self.out.len();
            self.value(depth + 1)?;
            if let (Some(m), Some(&k)) = (members.as_deref_mut(), keys.as_slice().last()) {
                m.push((k, (v0, self.out.len())))?;
            }
            self.ws();
            match self.next()? {
                b',' => self.out.push(b','),
                b if b == close => {
                    self.out.push(close);
                    return Some(());
                }
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
        self.out.extend_from_slice(&self.s[start..self.i]);
        Some(())
    }

    /// A string, written with serde's escapes.
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        self.out.push(b'"');
        loop {
            let run = special_at(&self.s[self.i..])?;
            self.out.extend_from_slice(&self.s[self.i..self.i + run]);
            self.i += run;
            match self.next()? {
                b'"' => {
                    self.out.push(b'"');
                    return Some(());
                }
                b'\\' => self.escape()?,
                // A raw control character: invalid JSON.
                _ => return None,
            }
        }
    }

    /// The escape after a backslash, as serde writes the character it stands for.
    fn escape(&mut self) -> Option<()> {
        let e = self.next()?;
        match e {
            b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f' => {
                self.out.extend_from_slice(&[b'\\', e]);
            }
            b'/' => self.out.push(b'/'),
            b'u' => {
                let hex = std::str::from_utf8(self.s.get(self.i..self.i + 4)?).ok()?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                let code = u32::from_str_radix(hex, 16).ok()?;
                self.i += 4;
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
            }
            _ => return None,
        }
        Some(())
    }
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
            call_object(t, 2, &keys),
            Some(("read_file".into(), r#"{"path":"a b"}"#.into(), t.len() - 5))
        );
        // The key order of `arg_keys` decides, not the text's.
        let t = r#"{"input": {"i": 1}, "name": "f\u0021", "parameters": {"p": 2}}"#;
        assert_eq!(
            call_object(t, 0, &keys),
            Some(("f!".into(), r#"{"p":2}"#.into(), t.len()))
        );
        let t = r#"{"name": "f", "arguments": null}"#;
        assert_eq!(call_object(t, 0, &keys).map(|c| c.1), Some("{}".into()));
        let t = r#"{"name": "f"}"#;
        assert_eq!(call_object(t, 0, &keys).map(|c| c.1), Some("{}".into()));
        for slow in [
            r#"{"name": "f", "arguments": "{\"a\": 1}"}"#,
            r#"{"name": 3, "arguments": {}}"#,
            r#"{"function": {"name": "f", "arguments": {}}}"#,
            r#"{"name": "f", "name": "g", "arguments": {}}"#,
            r#"{"name": "f", "arguments": {"x": 0.5}}"#,
            r#"{"name": "f", "arguments": {}"#,
            r#"{}"#,
        ] {
            assert_eq!(call_object(slow, 0, &keys), None, "{slow}");
        }
    }
}
