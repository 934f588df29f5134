//! The edits a wire repair makes, in terms of the body's own structure and of no protocol.
//!
//! A writer (one per protocol) says what each output message is: an input message as it is, or a
//! shallow copy of one (or a new object) with top-level fields set, deleted, set to an array
//! rebuilt from references to input items, or set to input messages' strings joined. Appliers follow it without knowing the protocol:
//! [`apply`] here on `serde_json` values, `js/request.js` on the caller's objects (where a
//! reference with no sets is the very same object), and [`super::splice`] on the body's bytes.

use serde_json::{json, Map, Value};

/// One item of a rebuilt array.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `messages[msg][list][idx]`: as it is, or a shallow copy with `sets` applied.
    Ref {
        msg: usize,
        list: &'static str,
        idx: usize,
        sets: Vec<(&'static str, Value)>,
    },
    /// `messages[msg][list][idx]` as a shallow copy whose object member `key` is a shallow copy
    /// with `sets` applied (Gemini's `functionCall.id`): the member's other fields, which the
    /// repair never reads, are not needed to write it.
    RefIn {
        msg: usize,
        list: &'static str,
        idx: usize,
        key: &'static str,
        sets: Vec<(&'static str, Value)>,
    },
    /// `messages[msg][list][idx]` as a shallow copy without its members `del`, with `sets` set
    /// (a member that was there keeps its place, a new one goes last) and, with `inner`, that
    /// object member a shallow copy with those sets: a Gemini part losing a `thoughtSignature`
    /// the target cannot verify, or given the documented stand-in, and perhaps its call renamed.
    Patch {
        msg: usize,
        list: &'static str,
        idx: usize,
        del: Vec<&'static str>,
        sets: Vec<(&'static str, Value)>,
        inner: Option<(&'static str, Vec<(&'static str, Value)>)>,
    },
    /// `{type: "text", text: prefix + messages[msg].content}`: a string content as a text part.
    TextOf { msg: usize, prefix: String },
    /// A value made by a rule.
    New(Value),
}

/// One edit of a message's top-level field.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Set(&'static str, Value),
    /// The field becomes an array of these items.
    List(&'static str, Vec<Item>),
    Del(&'static str),
    /// The field becomes the string fields of the same name of these input messages, joined
    /// with a line break (two merged assistant turns' `reasoning_content`).
    Join(&'static str, Vec<usize>),
}

/// What [`Op::Join`] puts between two messages' strings, as JSON string text (a line break).
pub const JOIN_SEP: &str = r"\n";

/// One output message.
#[derive(Clone, Debug, PartialEq)]
pub enum Out {
    /// Input message `i`, untouched.
    Keep(usize),
    /// A shallow copy of input message `from` (`None`: a new object) with `ops` applied in order.
    Edit { from: Option<usize>, ops: Vec<Op> },
}

/// One step of a path from the body to a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(&'static str),
    Idx(usize),
}

/// A path as a change names it (`messages[1].content[0]`).
pub fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A value replaced where it sits in the input body (an image's payload, an image part that
/// became text), before the message edits apply: those refer to the input's items, which then
/// hold the new value.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub path: Vec<Seg>,
    /// The replaced value's bytes, when the body was read from bytes.
    pub span: Option<std::ops::Range<usize>>,
    pub value: Value,
}

/// The edits of one body.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BodyPlan {
    /// The body's message array (`messages`, `input`, `contents`).
    pub key: &'static str,
    /// The new message array; `None` when it is untouched.
    pub messages: Option<Vec<Out>>,
    /// Top-level body fields removed (`tools` when empty).
    pub del: Vec<&'static str>,
    /// Values replaced in place, in the body's order, none inside another.
    pub leaves: Vec<Leaf>,
}

fn item_value(msgs: &[Value], item: &Item) -> Value {
    match item {
        Item::RefIn {
            msg,
            list,
            idx,
            key,
            sets,
        } => {
            let mut v = item_value(
                msgs,
                &Item::Ref {
                    msg: *msg,
                    list,
                    idx: *idx,
                    sets: Vec::new(),
                },
            );
            if let Some(Value::Object(inner)) = v.get_mut(*key) {
                for (k, x) in sets {
                    inner.insert((*k).to_string(), x.clone());
                }
            }
            v
        }
        Item::Ref {
            msg,
            list,
            idx,
            sets,
        } => {
            let mut v = msgs
                .get(*msg)
                .and_then(|m| m.get(*list))
                .and_then(|l| l.get(*idx))
                .cloned()
                .unwrap_or(Value::Null);
            if let Value::Object(o) = &mut v {
                for (k, x) in sets {
                    o.insert((*k).to_string(), x.clone());
                }
            }
            v
        }
        Item::Patch {
            msg,
            list,
            idx,
            del,
            sets,
            inner,
        } => {
            let mut v = item_value(
                msgs,
                &Item::Ref {
                    msg: *msg,
                    list,
                    idx: *idx,
                    sets: Vec::new(),
                },
            );
            if let Value::Object(o) = &mut v {
                for k in del {
                    o.shift_remove(*k);
                }
                for (k, x) in sets {
                    o.insert((*k).to_string(), x.clone());
                }
                if let Some((key, inner_sets)) = inner {
                    if let Some(Value::Object(m)) = o.get_mut(*key) {
                        for (k, x) in inner_sets {
                            m.insert((*k).to_string(), x.clone());
                        }
                    }
                }
            }
            v
        }
        Item::TextOf { msg, prefix } => {
            let s = msgs
                .get(*msg)
                .and_then(|m| m.get("content"))
                .and_then(Value::as_str)
                .unwrap_or("");
            json!({"type": "text", "text": format!("{prefix}{s}")})
        }
        Item::New(v) => v.clone(),
    }
}

fn out_value(msgs: &[Value], out: &Out) -> Value {
    match out {
        Out::Keep(i) => msgs.get(*i).cloned().unwrap_or(Value::Null),
        Out::Edit { from, ops } => {
            let mut o = match from.and_then(|i| msgs.get(i)) {
                Some(Value::Object(m)) => m.clone(),
                _ => Map::new(),
            };
            for op in ops {
                match op {
                    Op::Set(k, v) => {
                        o.insert((*k).to_string(), v.clone());
                    }
                    Op::List(k, items) => {
                        let arr = items.iter().map(|it| item_value(msgs, it)).collect();
                        o.insert((*k).to_string(), Value::Array(arr));
                    }
                    Op::Del(k) => {
                        o.shift_remove(*k);
                    }
                    Op::Join(k, from) => {
                        let parts: Vec<&str> = from
                            .iter()
                            .filter_map(|i| msgs.get(*i)?.get(*k)?.as_str())
                            .collect();
                        o.insert((*k).to_string(), Value::String(parts.join("\n")));
                    }
                }
            }
            Value::Object(o)
        }
    }
}

/// The value at `path` in `v`.
pub fn value_at<'v>(v: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get(*k),
        Seg::Idx(i) => v.get(*i),
    })
}

fn set_at(v: &mut Value, path: &[Seg], new: &Value) {
    let slot = path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(*k),
        Seg::Idx(i) => v.get_mut(*i),
    });
    if let Some(slot) = slot {
        *slot = new.clone();
    }
}

/// `body` with `plan` applied (a copy; `body` is not changed).
pub fn apply(body: &Value, plan: &BodyPlan) -> Value {
    let patched;
    let body = if plan.leaves.is_empty() {
        body
    } else {
        let mut b = body.clone();
        for l in &plan.leaves {
            set_at(&mut b, &l.path, &l.value);
        }
        patched = b;
        &patched
    };
    let Value::Object(map) = body else {
        return body.clone();
    };
    let mut out = map.clone();
    if let Some(list) = &plan.messages {
        let msgs = map
            .get(plan.key)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let new: Vec<Value> = list.iter().map(|o| out_value(msgs, o)).collect();
        out.insert(plan.key.to_string(), Value::Array(new));
    }
    for k in &plan.del {
        out.shift_remove(*k);
    }
    Value::Object(out)
}

fn sets_json(sets: &[(&'static str, Value)]) -> Value {
    Value::Object(
        sets.iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect(),
    )
}

fn item_json(item: &Item) -> Value {
    match item {
        Item::Ref {
            msg,
            list,
            idx,
            sets,
        } if sets.is_empty() => json!([msg, list, idx]),
        Item::Ref {
            msg,
            list,
            idx,
            sets,
        } => {
            let s: Map<String, Value> = sets
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect();
            json!([msg, list, idx, s])
        }
        Item::RefIn {
            msg,
            list,
            idx,
            key,
            sets,
        } => {
            let s: Map<String, Value> = sets
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect();
            json!({"in": [msg, list, idx, key, s]})
        }
        Item::Patch {
            msg,
            list,
            idx,
            del,
            sets,
            inner,
        } => {
            let (key, inner_sets) = match inner {
                Some((k, s)) => (json!(k), sets_json(s)),
                None => (Value::Null, Value::Object(Map::new())),
            };
            json!({"patch": [msg, list, idx, del, sets_json(sets), key, inner_sets]})
        }
        Item::TextOf { msg, prefix } => json!({"text": [msg, prefix]}),
        Item::New(v) => json!({"new": v}),
    }
}

/// The plan as JSON for `js/request.js`:
/// `{key, del, out?: [i | {from, ops: [["s", k, v] | ["l", k, items] | ["d", k] |
/// ["j", k, [i…]]]}]}`, items being `[msg, list, idx]`, `[msg, list, idx, sets]`, `{in: [msg, list, idx, key, sets]}`,
/// `{patch: [msg, list, idx, del, sets, key | null, inner sets]}`, `{text: [msg, prefix]}` or
/// `{new: value}`; `leaves: [[path, value]]`, each path a list of keys and indices, applied first.
pub fn to_json(plan: &BodyPlan) -> Value {
    let leaves: Vec<Value> = plan
        .leaves
        .iter()
        .map(|l| {
            let path: Vec<Value> = l
                .path
                .iter()
                .map(|s| match s {
                    Seg::Key(k) => json!(k),
                    Seg::Idx(i) => json!(i),
                })
                .collect();
            json!([path, l.value])
        })
        .collect();
    let mut o = json!({"key": plan.key, "del": plan.del, "leaves": leaves});
    if let Some(list) = &plan.messages {
        let out: Vec<Value> = list
            .iter()
            .map(|m| match m {
                Out::Keep(i) => json!(i),
                Out::Edit { from, ops } => {
                    let ops: Vec<Value> = ops
                        .iter()
                        .map(|op| match op {
                            Op::Set(k, v) => json!(["s", k, v]),
                            Op::List(k, items) => {
                                json!(["l", k, items.iter().map(item_json).collect::<Vec<_>>()])
                            }
                            Op::Del(k) => json!(["d", k]),
                            Op::Join(k, from) => json!(["j", k, from]),
                        })
                        .collect();
                    json!({"from": from, "ops": ops})
                }
            })
            .collect();
        o["out"] = Value::Array(out);
    }
    o
}

/// A plan with every kind of edit (text parts made from a string content, an item reference
/// with a set, a message kept, a new message, a member deleted), for the appliers' tests.
#[cfg(test)]
pub(super) fn sample_plan() -> BodyPlan {
    BodyPlan {
        key: "messages",
        messages: Some(vec![
            Out::Edit {
                from: Some(0),
                ops: vec![Op::List(
                    "content",
                    vec![
                        Item::TextOf {
                            msg: 0,
                            prefix: "» \"q\" ".into(),
                        },
                        Item::New(json!({"type": "text", "text": "b"})),
                    ],
                )],
            },
            Out::Edit {
                from: Some(1),
                ops: vec![Op::List(
                    "tool_calls",
                    vec![Item::Ref {
                        msg: 1,
                        list: "tool_calls",
                        idx: 0,
                        sets: vec![("id", json!("x1"))],
                    }],
                )],
            },
            Out::Keep(0),
            Out::Edit {
                from: None,
                ops: vec![
                    Op::Set("role", json!("tool")),
                    Op::Set("tool_call_id", json!("x1")),
                    Op::Del("nothing"),
                ],
            },
        ]),
        del: vec!["tools"],
        leaves: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_refs_sets_text_parts_and_deletes_without_touching_the_input() {
        let body = json!({"model": "m", "tools": [], "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "x_1", "type": "function"}]},
        ]});
        let before = body.clone();
        let plan = sample_plan();
        let out = apply(&body, &plan);
        assert_eq!(body, before);
        assert_eq!(
            out,
            json!({"model": "m", "messages": [
                {"role": "user", "content": [{"type": "text", "text": "» \"q\" a"}, {"type": "text", "text": "b"}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "x1", "type": "function"}]},
                {"role": "user", "content": "a"},
                {"role": "tool", "tool_call_id": "x1"},
            ]})
        );
    }
}
