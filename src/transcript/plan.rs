//! The plan: what the rules decided, in a form the JS codec applies with spreads.
//!
//! A plan lists the output messages. An untouched input message is just its index, so the codec
//! hands back the very same JS object; a changed one names its input message and the shallow edits
//! (fields set or deleted, a rebuilt content array whose untouched blocks are again indices). The
//! layout is mirrored by `apply()` in js/codec.js and by [`apply_values`] here (tests, the CLI).

use super::model::*;
use serde_json::{json, Map, Value};


/// The plan's message list as JSON text, or `None` when the output is exactly the input.
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

/// The plan's message list as a JSON value (tests, the CLI).
pub fn encode(msgs: &[Msg], input_len: usize) -> Option<Value> {
    encode_json(msgs, input_len).and_then(|s| serde_json::from_str(&s).ok())
}

struct Writer(Vec<u8>);

impl Writer {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, n: usize) {
        self.raw(itoa_usize(n).as_str());
    }

    fn str(&mut self, s: &str) {
        // serde_json's string escaping; writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.0, s);
    }

    fn json(&mut self, v: &Value) {
        let _ = serde_json::to_writer(&mut self.0, v);
    }

    fn override_(&mut self, name: &str, o: &Override) {
        self.raw("[");
        self.str(name);
        match o {
            Override::Json(v) => {
                self.raw(",0,");
                self.json(v);
            }
            Override::FromMsg(k) => {
                self.raw(",1,");
                self.num(*k);
            }
            Override::Prefixed(p, k) => {
                self.raw(",2,");
                self.str(p);
                self.raw(",");
                self.num(*k);
            }
            Override::SetInItems {
                list,
                items,
                key,
                value,
            } => {
                self.raw(",4,");
                self.str(list);
                self.raw(",[");
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        self.raw(",");
                    }
                    self.num(*it);
                }
                self.raw("],");
                self.str(key);
                self.raw(",");
                self.json(value);
            }
        }
        self.raw("]");
    }

    fn edits(&mut self, e: &Edits, content_slot: bool) {
        if !e.sets.is_empty() {
            self.raw(",\"s\":[");
            for (i, (k, v)) in e.sets.iter().enumerate() {
                if i > 0 {
                    self.raw(",");
                }
                if content_slot && k == "content" {
                    self.raw("[\"content\",3]");
                } else {
                    self.override_(k, v);
                }
            }
            self.raw("]");
        }
        if !e.dels.is_empty() {
            self.raw(",\"d\":[");
            for (i, k) in e.dels.iter().enumerate() {
                if i > 0 {
                    self.raw(",");
                }
                self.str(k);
            }
            self.raw("]");
        }
    }

    fn msg(&mut self, m: &Msg) {
        let src = m.src_index();
        if let Some(i) = src {
            if !m.is_changed() {
                self.num(i);
                return;
            }
        }
        self.raw("{\"m\":");
        match src {
            Some(i) => self.num(i),
            None => self.raw("null"),
        }
        self.edits(&m.edits, src.is_none() && m.content_dirty);
        if m.content_dirty {
            if let Content::Blocks(blocks) = &m.content {
                self.raw(",\"c\":[");
                for (i, b) in blocks.iter().enumerate() {
                    if i > 0 {
                        self.raw(",");
                    }
                    self.block(b, src);
                }
                self.raw("]");
            }
        }
        self.raw("}");
    }

    fn block(&mut self, b: &Block, own: Option<usize>) {
        match &b.origin {
            BlockOrigin::Src { msg, idx } => {
                if !b.is_changed() && own == Some(*msg) {
                    self.num(*idx);
                    return;
                }
                self.raw("{\"b\":[");
                self.num(*msg);
                self.raw(",");
                self.num(*idx);
                self.raw("]");
                self.edits(&b.edits, false);
                if let Some(p) = &b.text_prefix {
                    self.raw(",\"p\":");
                    self.str(p);
                }
                self.raw("}");
            }
            BlockOrigin::New(v) => {
                let mut v = v.clone();
                if let (Some(p), Some(Value::String(t))) = (&b.text_prefix, v.get_mut("text")) {
                    *t = format!("{p}{t}");
                }
                self.raw("{\"v\":");
                self.json(&v);
                self.raw("}");
            }
            BlockOrigin::FromStrContent { msg, prefix } => {
                let p = format!("{}{}", b.text_prefix.as_deref().unwrap_or(""), prefix);
                self.raw("{\"t\":[");
                self.num(*msg);
                self.raw(",");
                self.str(&p);
                self.raw("]}");
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

fn field_value(input: &[Value], s: &[Value], built: &Option<Vec<Value>>) -> Value {
    let name = s.first().and_then(Value::as_str).unwrap_or("");
    let msg = |k: &Value| {
        k.as_u64()
            .and_then(|k| input.get(k as usize))
            .and_then(|m| m.get(name))
            .cloned()
    };
    match s.get(1).and_then(Value::as_u64) {
        Some(0) => s.get(2).cloned().unwrap_or(Value::Null),
        Some(1) => s.get(2).and_then(msg).unwrap_or(Value::Null),
        Some(2) => {
            let p = s.get(2).and_then(Value::as_str).unwrap_or("");
            let rest = s.get(3).and_then(msg);
            Value::String(format!(
                "{p}{}",
                rest.as_ref().and_then(Value::as_str).unwrap_or("")
            ))
        }
        _ => Value::Array(built.clone().unwrap_or_default()),
    }
}

fn idx(v: &Value, i: usize) -> usize {
    v.get(i).and_then(Value::as_u64).unwrap_or(0) as usize
}

fn apply_block(input: &[Value], own: &[Value], spec: &Value) -> Value {
    if let Some(j) = spec.as_u64() {
        return own.get(j as usize).cloned().unwrap_or(Value::Null);
    }
    if let Some(v) = spec.get("v") {
        return v.clone();
    }
    if let Some(t) = spec.get("t") {
        let k = idx(t, 0);
        let p = t.get(1).and_then(Value::as_str).unwrap_or("");
        let c = input
            .get(k)
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
            .unwrap_or("");
        return json!({"type": "text", "text": format!("{p}{c}")});
    }
    let b = spec.get("b").cloned().unwrap_or(Value::Null);
    let mut o = input
        .get(idx(&b, 0))
        .and_then(|m| m.get("content"))
        .and_then(|c| c.get(idx(&b, 1)))
        .cloned()
        .unwrap_or(Value::Null);
    if let Value::Object(map) = &mut o {
        for s in spec
            .get("s")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(k), Some(v)) = (s.get(0).and_then(Value::as_str), s.get(2)) {
                if s.get(1).and_then(Value::as_u64) == Some(4) {
                    set_in_items(map, k, s.as_array().map_or(&[], Vec::as_slice));
                } else {
                    map.insert(k.to_string(), v.clone());
                }
            }
        }
        for d in spec
            .get("d")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(d) = d.as_str() {
                map.shift_remove(d);
            }
        }
        if let Some(p) = spec.get("p").and_then(Value::as_str) {
            let t = map.get("text").and_then(Value::as_str).unwrap_or("");
            let nt = format!("{p}{t}");
            map.insert("text".into(), Value::String(nt));
        }
    }
    o
}

/// Kind 4: `[name, 4, list, items, key, value]` (see [`Override::SetInItems`]).
fn set_in_items(map: &mut Map<String, Value>, name: &str, s: &[Value]) {
    let (Some(list), Some(items), Some(key), Some(value)) = (
        s.get(2).and_then(Value::as_str),
        s.get(3).and_then(Value::as_array),
        s.get(4).and_then(Value::as_str),
        s.get(5),
    ) else {
        return;
    };
    let Some(Value::Array(arr)) = map.get_mut(name).and_then(|f| f.get_mut(list)) else {
        return;
    };
    for i in items.iter().filter_map(Value::as_u64) {
        if let Some(Value::Object(item)) = arr.get_mut(i as usize) {
            item.shift_remove(key);
            item.insert(key.to_string(), value.clone());
        }
    }
}

fn apply_msg(input: &[Value], e: &Value) -> Value {
    if let Some(i) = e.as_u64() {
        return input.get(i as usize).cloned().unwrap_or(Value::Null);
    }
    let base = e
        .get("m")
        .and_then(Value::as_u64)
        .and_then(|i| input.get(i as usize));
    let own: Vec<Value> = base
        .and_then(|b| b.get("content"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let built = e.get("c").and_then(Value::as_array).map(|c| {
        c.iter()
            .map(|s| apply_block(input, &own, s))
            .collect::<Vec<_>>()
    });
    let mut o = match base {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for s in e.get("s").and_then(Value::as_array).into_iter().flatten() {
        if let Some(parts) = s.as_array() {
            let name = parts
                .first()
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            o.insert(name, field_value(input, parts, &built));
        }
    }
    for d in e.get("d").and_then(Value::as_array).into_iter().flatten() {
        if let Some(d) = d.as_str() {
            o.shift_remove(d);
        }
    }
    if let (Some(b), Some(_)) = (built, base) {
        o.insert("content".into(), Value::Array(b));
    }
    Value::Object(o)
}

/// The message array a plan describes, over JSON input.
pub fn apply_values(input: &[Value], plan: Option<&Value>) -> Vec<Value> {
    match plan.and_then(Value::as_array) {
        None => input.to_vec(),
        Some(entries) => entries.iter().map(|e| apply_msg(input, e)).collect(),
    }
}
