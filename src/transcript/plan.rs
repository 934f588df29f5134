//! The plan: what the rules decided, in a form the JS codec applies with spreads.
//!
//! A plan lists the output messages. An untouched input message is just its index, so the codec
//! hands back the very same JS object; a changed one names its input message and the shallow edits
//! (fields set or deleted, a rebuilt content array whose untouched blocks are again indices). It
//! is one flat JSON array read with a cursor (the layout is documented in js/codec.js, which
//! applies it; [`apply_values`] here does the same for JSON input).

use super::model::*;
use serde_json::{Map, Value};

/// The plan's message list as JSON text (a flat array) with its entry count, or `None` when the
/// output is exactly the input.
///
/// Written straight into a buffer: building a `serde_json::Value` tree first cost more than all
/// the rules of a pass together.
pub fn encode_json(msgs: &[Msg], input_len: usize) -> Option<String> {
    let identity = msgs.len() == input_len
        && msgs
            .iter()
            .enumerate()
            .all(|(i, m)| m.src_index() == Some(i) && !m.is_changed());
    if identity {
        return None;
    }
    let mut w = Writer(Vec::with_capacity(64 + msgs.len() * 8));
    w.raw("[");
    for (i, m) in msgs.iter().enumerate() {
        if i > 0 {
            w.raw(",");
        }
        w.msg(m);
    }
    w.raw("]");
    // Only JSON text was written: strings through serde_json, the rest ASCII.
    Some(String::from_utf8(w.0).unwrap_or_default())
}

/// The plan as a JSON value `{n, msgs}` (tests, the CLI).
pub fn encode(msgs: &[Msg], input_len: usize) -> Option<Value> {
    let flat: Value = serde_json::from_str(&encode_json(msgs, input_len)?).ok()?;
    Some(serde_json::json!({"n": msgs.len(), "msgs": flat}))
}

struct Writer(Vec<u8>);

impl Writer {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, n: usize) {
        self.raw(itoa_usize(n).as_str());
    }

    /// `,n` — every item after the first is written with its leading comma.
    fn n(&mut self, n: usize) {
        self.raw(",");
        self.num(n);
    }

    fn str(&mut self, s: &str) {
        self.raw(",");
        // serde_json's string escaping; writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.0, s);
    }

    fn json(&mut self, v: &Value) {
        self.raw(",");
        let _ = serde_json::to_writer(&mut self.0, v);
    }

    fn set(&mut self, name: &str, o: &Override, content_slot: bool) {
        self.str(name);
        if content_slot {
            self.raw(",3");
            return;
        }
        match o {
            Override::Json(v) => {
                self.raw(",0");
                self.json(v);
            }
            Override::FromMsg(k) => {
                self.raw(",1");
                self.n(*k);
            }
            Override::Prefixed(p, k) => {
                self.raw(",2");
                self.str(p);
                self.n(*k);
            }
            Override::SetInItems {
                list,
                items,
                key,
                value,
            } => {
                self.raw(",4");
                self.str(list);
                self.raw(",[");
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        self.raw(",");
                    }
                    self.num(*it);
                }
                self.raw("]");
                self.str(key);
                self.json(value);
            }
        }
    }

    fn edits(&mut self, e: &Edits, content_slot: bool) {
        self.n(e.sets.len());
        for (k, v) in &e.sets {
            self.set(k, v, content_slot && k == "content");
        }
        self.n(e.dels.len());
        for k in &e.dels {
            self.str(k);
        }
    }

    /// One message entry (the first item of the array has no leading comma: see `encode_json`).
    fn msg(&mut self, m: &Msg) {
        let src = m.src_index();
        if let Some(i) = src {
            if !m.is_changed() {
                self.num(i);
                return;
            }
        }
        self.raw("-1,");
        match src {
            Some(i) => self.num(i),
            None => self.raw("-1"),
        }
        self.edits(&m.edits, src.is_none() && m.content_dirty);
        match (&m.content, m.content_dirty) {
            (Content::Blocks(blocks), true) => {
                self.n(blocks.len());
                for b in blocks {
                    self.block(b, src);
                }
            }
            _ => self.raw(",-1"),
        }
    }

    fn block(&mut self, b: &Block, own: Option<usize>) {
        match &b.origin {
            BlockOrigin::Src { msg, idx } => {
                if !b.is_changed() && own == Some(*msg) {
                    self.n(*idx);
                    return;
                }
                self.raw(",-1");
                self.n(*msg);
                self.n(*idx);
                self.edits(&b.edits, false);
                match &b.text_prefix {
                    Some(p) => self.str(p),
                    None => self.raw(",null"),
                }
            }
            BlockOrigin::New(v) => {
                let mut v = v.clone();
                if let (Some(p), Some(Value::String(t))) = (&b.text_prefix, v.get_mut("text")) {
                    *t = format!("{p}{t}");
                }
                self.raw(",-2");
                self.json(&v);
            }
            BlockOrigin::FromStrContent { msg, prefix } => {
                let p = format!("{}{}", b.text_prefix.as_deref().unwrap_or(""), prefix);
                self.raw(",-3");
                self.n(*msg);
                self.str(&p);
            }
        }
    }
}

/// A small decimal formatter (no `fmt` machinery on the hot path).
fn itoa_usize(mut n: usize) -> ItoaBuf {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    ItoaBuf { buf, start: i }
}

struct ItoaBuf {
    buf: [u8; 20],
    start: usize,
}

impl ItoaBuf {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[self.start..]).unwrap_or("0")
    }
}

// ---- applying a plan to serde_json values (the same semantics as js/codec.js) ----

struct Reader<'a> {
    f: &'a [Value],
    at: usize,
    input: &'a [Value],
}

impl Reader<'_> {
    fn next(&mut self) -> Value {
        let v = self.f.get(self.at).cloned().unwrap_or(Value::Null);
        self.at += 1;
        v
    }

    fn int(&mut self) -> i64 {
        self.next().as_i64().unwrap_or(-1)
    }

    fn idx(&mut self) -> usize {
        usize::try_from(self.int()).unwrap_or(usize::MAX)
    }

    fn string(&mut self) -> String {
        self.next().as_str().unwrap_or("").to_string()
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
            let name = self.string();
            let v = match self.int() {
                0 => self.next(),
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
            let k = self.string();
            o.shift_remove(&k);
        }
    }

    fn skip_sets(&mut self) {
        let n = self.idx();
        for _ in 0..n {
            self.at += 1;
            let kind = self.int();
            self.at += match kind {
                0 | 1 => 1,
                2 => 2,
                3 => 0,
                _ => 4,
            };
        }
        let d = self.idx();
        self.at += d;
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
        let sets_at = self.at;
        self.skip_sets();
        let n = self.int();
        let built = (n >= 0).then(|| (0..n).map(|_| self.block(&own)).collect::<Vec<_>>());
        let end = self.at;
        self.at = sets_at;
        self.sets(&mut o, &built);
        self.at = end;
        if let (Some(b), Some(_)) = (built, base) {
            o.insert("content".into(), Value::Array(b));
        }
        Value::Object(o)
    }
}

/// The message array a plan (`{n, msgs}` from [`encode`]) describes, over JSON input.
pub fn apply_values(input: &[Value], plan: Option<&Value>) -> Vec<Value> {
    let Some(plan) = plan else {
        return input.to_vec();
    };
    let n = plan.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
    let flat = plan
        .get("msgs")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut r = Reader {
        f: flat,
        at: 0,
        input,
    };
    (0..n).map(|_| r.msg()).collect()
}
