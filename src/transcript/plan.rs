//! The plan: what the rules decided, in a form the JS codec applies with spreads.
//!
//! A plan lists the output messages. An untouched input message is just its index, so the codec
//! hands back the very same JS object; a changed one names its input message and the shallow edits
//! (fields set or deleted, a rebuilt content array whose untouched blocks are again indices). It
//! travels in two channels, numbers and values, read with two cursors (the layout is documented
//! in js/codec.js, which applies it; [`apply_values`] here does the same for JSON input).

use super::model::*;
use serde_json::{Map, Value};

/// A plan in its two channels: `nums` holds every count, index and kind; `vals` (a JSON array)
/// every string and JSON value, in the order the reader meets them.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub nums: Vec<f64>,
    pub vals: String,
    /// New string field values (kind 5), each preceded by U+001F: cheaper for JS than
    /// `JSON.parse`, which internalises every short string it reads. Each one's length in UTF-16
    /// units follows its kind in `nums`, so JS slices it out without scanning for the separator.
    pub texts: String,
}

/// Whether the output is exactly the input (no plan is needed).
pub(crate) fn is_identity(msgs: &[Msg], input_len: usize) -> bool {
    msgs.len() == input_len
        && msgs
            .iter()
            .enumerate()
            .all(|(i, m)| m.src_index() == Some(i) && !m.is_changed())
}

/// The plan of `msgs`, or `None` when the output is exactly the input.
///
/// Counts and indices travel as a Float64Array: parsing them as JSON (the first design) cost the
/// JS side more than the rules of a whole pass at 10,000 messages. Only the strings and values go
/// through `JSON.parse`.
///
/// `nums` is a buffer to write the numbers into (cleared first), so a caller can reuse one across
/// calls instead of growing fresh memory every time.
pub fn encode_parts(msgs: &[Msg], input_len: usize, nums: Vec<f64>) -> Option<Plan> {
    if is_identity(msgs, input_len) {
        return None;
    }
    let mut vals = Vec::new();
    let (nums, texts) = write(msgs, nums, &mut vals);
    Some(Plan {
        nums,
        // Only JSON text was written: strings through serde_json, the rest ASCII.
        vals: String::from_utf8(vals).unwrap_or_default(),
        texts,
    })
}

/// Writes the plan of `msgs` (as [`encode_parts`], for an output that is not the input: see
/// [`is_identity`]) with its values appended to `out` as a JSON array, so the caller's answer is
/// the one buffer the values are written into; returns the numbers (in `nums`, cleared first)
/// and the texts.
pub fn write(msgs: &[Msg], mut nums: Vec<f64>, out: &mut Vec<u8>) -> (Vec<f64>, String) {
    nums.clear();
    // Sized up front: a few numbers a message (an untouched one takes one, a changed one a dozen
    // or more), and a short text for some (an agent's history, its ids rewritten, has a text in
    // two of three messages, ~16 bytes each): growing either mid-plan copied it.
    nums.reserve(msgs.len() * 8);
    out.reserve(64 + msgs.len() * 8);
    let start = out.len();
    out.push(b'[');
    let mut w = Writer {
        nums,
        vals: out,
        first: start + 1,
        texts: String::with_capacity(64 + msgs.len() * 16),
    };
    for m in msgs {
        w.msg(m);
    }
    w.vals.push(b']');
    (w.nums, w.texts)
}

/// The plan as a JSON value `{n, nums, vals}` (tests, the CLI).
pub fn encode(msgs: &[Msg], input_len: usize) -> Option<Value> {
    let p = encode_parts(msgs, input_len, Vec::new())?;
    let vals: Value = serde_json::from_str(&p.vals).ok()?;
    let texts: Vec<&str> = p.texts.split(TEXT_SEP).skip(1).collect();
    Some(serde_json::json!({"n": msgs.len(), "nums": p.nums, "vals": vals, "texts": texts}))
}

/// Separates the plan's texts (as `SEP` separates the skeleton's strings).
pub const TEXT_SEP: char = '\u{1f}';

/// Whether `t` holds [`TEXT_SEP`] (an ASCII byte, never part of another character's UTF-8): a
/// plain loop, as the texts are short ids, for which `memchr`'s setup cost more than the search.
fn has_sep(t: &str) -> bool {
    t.bytes().any(|b| b == TEXT_SEP as u8)
}

/// The length of `t` in UTF-16 units: its byte length when ASCII (ids nearly always are).
fn utf16_len(t: &str) -> usize {
    if t.is_ascii() {
        t.len()
    } else {
        t.chars().map(char::len_utf16).sum()
    }
}

struct Writer<'a> {
    nums: Vec<f64>,
    /// The values' JSON array is written here, from `first - 1` (its `[`) on.
    vals: &'a mut Vec<u8>,
    first: usize,
    texts: String,
}

impl Writer<'_> {
    fn n(&mut self, n: usize) {
        self.nums.push(n as f64);
    }

    fn code(&mut self, c: i8) {
        self.nums.push(f64::from(c));
    }

    fn next_val(&mut self) {
        if self.vals.len() > self.first {
            self.vals.push(b',');
        }
    }

    fn str(&mut self, s: &str) {
        self.next_val();
        // serde_json's string escaping; writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *self.vals, s);
    }

    fn json(&mut self, v: &Value) {
        self.next_val();
        let _ = serde_json::to_writer(&mut *self.vals, v);
    }

    fn null(&mut self) {
        self.next_val();
        self.vals.extend_from_slice(b"null");
    }

    /// A field name: its index in [`FIELD_NAMES`], or -1 and the name among the values.
    fn name(&mut self, name: &str) {
        // An edit's name is nearly always the list's own word (see `model::field_name`): found
        // by its address before any text is compared.
        let at = FIELD_NAMES
            .iter()
            .position(|f| std::ptr::eq(*f, name))
            .or_else(|| FIELD_NAMES.iter().position(|f| *f == name));
        match at {
            Some(i) => self.n(i),
            None => {
                self.code(-1);
                self.str(name);
            }
        }
    }

    /// A new string value (kind 5) that holds no [`TEXT_SEP`]: its length in UTF-16 units (what
    /// JS's `slice` counts) in `nums`, the text after a separator in `texts`.
    fn text(&mut self, t: &str) {
        self.code(5);
        self.n(utf16_len(t));
        self.texts.push(TEXT_SEP);
        self.texts.push_str(t);
    }

    fn set(&mut self, name: &str, o: &Override, content_slot: bool) {
        self.name(name);
        if content_slot {
            self.code(3);
            return;
        }
        match o {
            Override::Json(v) if matches!(&**v, Value::String(t) if !has_sep(t)) => {
                self.text(v.as_str().unwrap_or_default());
            }
            Override::Json(v) => {
                self.code(0);
                self.json(v);
            }
            Override::Static(v) => match v {
                Value::String(t) if !has_sep(t) => self.text(t),
                _ => {
                    self.code(0);
                    self.json(v);
                }
            },
            Override::Str(t) if !has_sep(t) => self.text(t),
            Override::Str(t) => {
                self.code(0);
                self.str(t);
            }
            Override::Last(v) => {
                self.code(6);
                self.json(v);
            }
            Override::SetKey(e) => {
                self.code(7);
                self.str(&e.0);
                self.json(&e.1);
            }
            Override::FromMsg(k) => {
                self.code(1);
                self.n(*k);
            }
            Override::Prefixed(e) => {
                self.code(2);
                self.str(&e.0);
                self.n(e.1);
            }
            Override::SetInItems(e) => {
                self.code(4);
                self.str(&e.list);
                self.json(&Value::from(e.items.as_slice()));
                self.str(&e.key);
                self.json(&e.value);
            }
        }
    }

    fn edits(&mut self, e: &Edits, content_slot: bool) {
        self.n(e.sets().count());
        for (k, v) in e.sets() {
            self.set(k, v, content_slot && k == "content");
        }
        self.n(e.dels().count());
        for k in e.dels() {
            self.name(k);
        }
    }

    fn msg(&mut self, m: &Msg) {
        let src = m.src_index();
        if let Some(i) = src {
            if !m.is_changed() {
                self.n(i);
                return;
            }
        }
        self.code(-1);
        match src {
            Some(i) => self.n(i),
            None => self.code(-1),
        }
        self.edits(&m.edits, src.is_none() && m.content_dirty);
        match (&m.content, m.content_dirty) {
            (Content::Blocks(blocks), true) => {
                self.n(blocks.len());
                for b in blocks {
                    self.block(b, src);
                }
            }
            _ => self.code(-1),
        }
    }

    fn block(&mut self, b: &Block, own: Option<usize>) {
        match &b.origin {
            BlockOrigin::Src { msg, idx } => {
                let (msg, idx) = (*msg as usize, *idx as usize);
                if !b.is_changed() && own == Some(msg) {
                    self.n(idx);
                    return;
                }
                self.code(-1);
                self.n(msg);
                self.n(idx);
                self.edits(&b.edits, false);
                match b.text_prefix() {
                    Some(p) => self.str(p),
                    None => self.null(),
                }
            }
            BlockOrigin::New(v) => {
                self.code(-2);
                match (b.text_prefix(), v.get("text")) {
                    (Some(p), Some(Value::String(t))) => {
                        // Copied only when the text gets its prefix.
                        let mut v = v.clone();
                        v["text"] = Value::String(format!("{p}{t}"));
                        self.json(&v);
                    }
                    _ => self.json(v),
                }
            }
            BlockOrigin::FromStrContent { msg, prefix } => {
                let p = format!("{}{}", b.text_prefix().unwrap_or(""), prefix);
                self.code(-3);
                self.n(*msg as usize);
                self.str(&p);
            }
        }
    }
}

// ---- applying a plan to serde_json values (the same semantics as js/codec.js) ----

struct Reader<'a> {
    f: &'a [f64],
    at: usize,
    v: &'a [Value],
    vi: usize,
    t: &'a [Value],
    ti: usize,
    input: &'a [Value],
}

impl Reader<'_> {
    fn int(&mut self) -> i64 {
        let x = self.f.get(self.at).copied().unwrap_or(-1.0);
        self.at += 1;
        x as i64
    }

    fn idx(&mut self) -> usize {
        usize::try_from(self.int()).unwrap_or(usize::MAX)
    }

    fn next(&mut self) -> Value {
        let v = self.v.get(self.vi).cloned().unwrap_or(Value::Null);
        self.vi += 1;
        v
    }

    fn string(&mut self) -> String {
        self.next().as_str().unwrap_or("").to_string()
    }

    fn name(&mut self) -> String {
        match usize::try_from(self.int()) {
            Ok(i) => FIELD_NAMES.get(i).copied().unwrap_or("").to_string(),
            Err(_) => self.string(),
        }
    }

    fn input_field(&self, k: usize, name: &str) -> Value {
        self.input
            .get(k)
            .and_then(|m| m.get(name))
            .cloned()
            .unwrap_or(Value::Null)
    }

    fn sets(&mut self, o: &mut Map<String, Value>, built: &Option<Vec<Value>>) {
        let n = self.idx();
        for _ in 0..n {
            let name = self.name();
            let v = match self.int() {
                0 => self.next(),
                5 => {
                    // The text's length (JS slices by it; the texts here are split already).
                    self.at += 1;
                    let t = self.t.get(self.ti).cloned().unwrap_or(Value::Null);
                    self.ti += 1;
                    t
                }
                1 => {
                    let k = self.idx();
                    self.input_field(k, &name)
                }
                2 => {
                    let p = self.string();
                    let k = self.idx();
                    let rest = self.input_field(k, &name);
                    Value::String(format!("{p}{}", rest.as_str().unwrap_or("")))
                }
                3 => Value::Array(built.clone().unwrap_or_default()),
                6 => {
                    o.shift_remove(&name);
                    self.next()
                }
                7 => {
                    let (key, value) = (self.string(), self.next());
                    let mut field = match o.get(&name) {
                        Some(Value::Object(f)) => f.clone(),
                        _ => Map::new(),
                    };
                    field.insert(key, value);
                    Value::Object(field)
                }
                _ => {
                    let (list, items, key, value) =
                        (self.string(), self.next(), self.string(), self.next());
                    let mut field = o.get(&name).cloned().unwrap_or(Value::Null);
                    if let Some(Value::Array(arr)) = field.get_mut(&list) {
                        for i in items
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_u64)
                        {
                            if let Some(Value::Object(item)) = arr.get_mut(i as usize) {
                                item.shift_remove(&key);
                                item.insert(key.clone(), value.clone());
                            }
                        }
                    }
                    field
                }
            };
            o.insert(name, v);
        }
        let d = self.idx();
        for _ in 0..d {
            let k = self.name();
            o.shift_remove(&k);
        }
    }

    fn skip_sets(&mut self) {
        let n = self.idx();
        for _ in 0..n {
            self.name();
            // (numbers, values, texts) each kind's payload takes.
            let (nums, vals, texts) = match self.int() {
                0 => (0, 1, 0),
                1 => (1, 0, 0),
                2 => (1, 1, 0),
                3 => (0, 0, 0),
                5 => (1, 0, 1),
                6 => (0, 1, 0),
                7 => (0, 2, 0),
                _ => (0, 4, 0),
            };
            self.at += nums;
            self.vi += vals;
            self.ti += texts;
        }
        let d = self.idx();
        for _ in 0..d {
            self.name();
        }
    }

    fn block(&mut self, own: &[Value]) -> Value {
        let e = self.int();
        if e >= 0 {
            return own.get(e as usize).cloned().unwrap_or(Value::Null);
        }
        match e {
            -2 => self.next(),
            -3 => {
                let k = self.idx();
                let p = self.string();
                let c = self.input_field(k, "content");
                serde_json::json!({"type": "text", "text": format!("{p}{}", c.as_str().unwrap_or(""))})
            }
            _ => {
                let (k, j) = (self.idx(), self.idx());
                let src = self
                    .input
                    .get(k)
                    .and_then(|m| m.get("content"))
                    .and_then(|c| c.get(j))
                    .cloned()
                    .unwrap_or(Value::Null);
                let mut o = match src {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                self.sets(&mut o, &None);
                if let Value::String(p) = self.next() {
                    let t = o.get("text").and_then(Value::as_str).unwrap_or("");
                    let nt = format!("{p}{t}");
                    o.insert("text".into(), Value::String(nt));
                }
                Value::Object(o)
            }
        }
    }

    fn msg(&mut self) -> Value {
        let e = self.int();
        if e >= 0 {
            return self.input.get(e as usize).cloned().unwrap_or(Value::Null);
        }
        let m = self.int();
        let base = usize::try_from(m).ok().and_then(|m| self.input.get(m));
        let mut o = match base {
            Some(Value::Object(b)) => b.clone(),
            _ => Map::new(),
        };
        let own: Vec<Value> = base
            .and_then(|b| b.get("content"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let sets_at = (self.at, self.vi, self.ti);
        self.skip_sets();
        let n = self.int();
        let built = (n >= 0).then(|| (0..n).map(|_| self.block(&own)).collect::<Vec<_>>());
        let end = (self.at, self.vi, self.ti);
        (self.at, self.vi, self.ti) = sets_at;
        self.sets(&mut o, &built);
        (self.at, self.vi, self.ti) = end;
        if let (Some(b), Some(_)) = (built, base) {
            o.insert("content".into(), Value::Array(b));
        }
        Value::Object(o)
    }
}

/// The message array a plan (`{n, nums, vals}` from [`encode`]) describes, over JSON input.
pub fn apply_values(input: &[Value], plan: Option<&Value>) -> Vec<Value> {
    let Some(plan) = plan else {
        return input.to_vec();
    };
    let n = plan.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
    let nums: Vec<f64> = plan
        .get("nums")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |a| a.iter().filter_map(Value::as_f64).collect());
    let vals = plan
        .get("vals")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let texts = plan
        .get("texts")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut r = Reader {
        f: &nums,
        at: 0,
        v: vals,
        vi: 0,
        t: texts,
        ti: 0,
        input,
    };
    (0..n).map(|_| r.msg()).collect()
}

#[cfg(test)]
mod tests {
    use super::utf16_len;

    #[test]
    fn text_lengths_count_utf16_units_as_js_slices_them() {
        assert_eq!(utf16_len("call0fc00"), 9);
        // Chinese: one unit a character (three bytes each); astral: two units (four bytes).
        assert_eq!(utf16_len("调用_1"), 4);
        assert_eq!(utf16_len("a😀b"), 4);
        assert_eq!(utf16_len(""), 0);
    }
}
