//! The plan: what the rules decided, in a form the JS codec applies with spreads.
//!
//! A plan lists the output messages. An untouched input message is just its index, so the codec
//! hands back the very same JS object; a changed one names its input message and the shallow edits
//! (fields set or deleted, a rebuilt content array whose untouched blocks are again indices). The
//! layout is mirrored by `apply()` in js/codec.js and by [`apply_values`] here (tests, the CLI).

use super::model::*;
use serde_json::{json, Map, Value};

/// The plan's message list, or `None` when the output is exactly the input.
pub fn encode(msgs: &[Msg], input_len: usize) -> Option<Value> {
    let identity = msgs.len() == input_len
        && msgs
            .iter()
            .enumerate()
            .all(|(i, m)| m.src_index() == Some(i) && !m.is_changed());
    if identity {
        return None;
    }
    Some(Value::Array(msgs.iter().map(encode_msg).collect()))
}

fn encode_override(name: &str, o: &Override) -> Value {
    match o {
        Override::Json(v) => json!([name, 0, v]),
        Override::FromMsg(k) => json!([name, 1, k]),
        Override::Prefixed(p, k) => json!([name, 2, p, k]),
        Override::SetInItems {
            list,
            items,
            key,
            value,
        } => json!([name, 4, list, items, key, value]),
    }
}

fn encode_msg(m: &Msg) -> Value {
    let src = m.src_index();
    if let Some(i) = src {
        if !m.is_changed() {
            return Value::from(i);
        }
    }
    let mut o = Map::new();
    o.insert("m".into(), src.map_or(Value::Null, Value::from));
    if !m.edits.sets.is_empty() {
        let sets = m
            .edits
            .sets
            .iter()
            .map(|(k, v)| {
                if src.is_none() && k == "content" && m.content_dirty {
                    json!([k, 3])
                } else {
                    encode_override(k, v)
                }
            })
            .collect();
        o.insert("s".into(), Value::Array(sets));
    }
    if !m.edits.dels.is_empty() {
        o.insert("d".into(), json!(m.edits.dels));
    }
    if m.content_dirty {
        if let Content::Blocks(blocks) = &m.content {
            let specs = blocks.iter().map(|b| encode_block(b, src)).collect();
            o.insert("c".into(), Value::Array(specs));
        }
    }
    Value::Object(o)
}

fn encode_block(b: &Block, own: Option<usize>) -> Value {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => {
            if !b.is_changed() && own == Some(*msg) {
                return Value::from(*idx);
            }
            let mut o = Map::new();
            o.insert("b".into(), json!([msg, idx]));
            if !b.edits.sets.is_empty() {
                let sets = b
                    .edits
                    .sets
                    .iter()
                    .map(|(k, v)| encode_override(k, v))
                    .collect();
                o.insert("s".into(), Value::Array(sets));
            }
            if !b.edits.dels.is_empty() {
                o.insert("d".into(), json!(b.edits.dels));
            }
            if let Some(p) = &b.text_prefix {
                o.insert("p".into(), Value::String(p.clone()));
            }
            Value::Object(o)
        }
        BlockOrigin::New(v) => {
            let mut v = v.clone();
            if let (Some(p), Some(Value::String(t))) = (&b.text_prefix, v.get_mut("text")) {
                *t = format!("{p}{t}");
            }
            json!({ "v": v })
        }
        BlockOrigin::FromStrContent { msg, prefix } => {
            let p = format!("{}{}", b.text_prefix.as_deref().unwrap_or(""), prefix);
            json!({ "t": [msg, p] })
        }
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
