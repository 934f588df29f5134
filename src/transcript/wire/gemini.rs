//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`) onto the model and back.
//!
//! Reader: a run of `model` contents is one `assistant` (one model turn: parallel calls sent as
//! two contents are answered by one response turn) whose blocks are its parts: a `functionCall` part is
//! a `toolCall` block (id, name, kind of `args`), a `text` part a text block (`thought: true`
//! makes it `thinking`), any other part a block of its key (`inlineData`, `fileData`, …). In a
//! user content, each `functionResponse` part is a `toolResult` message, followed by a `user`
//! message of the content's other parts when there are any (the rules pair calls and results as
//! messages). `systemInstruction` is outside the turns.
//!
//! Gemini pairs a response with a call of the model turn before it by `id` when the call has one,
//! else by `name`, in order. The reader says that in ids: a call without an `id` gets `g{i}c{k}`
//! (content i, part k), and a response without one takes the id of the first unanswered call of
//! its name in the nearest run of model contents before it (`g{i}r{j}`, matching nothing, when
//! there is none). Ids made up so are never written.
//!
//! Writer: each output content is an input content as it is, or a shallow copy with `parts`
//! rebuilt from references to input parts. Results go first in a user content: with the user parts
//! that shared their input content, else alone. A new result is `{functionResponse: {name,
//! response: {error: <text>}}}` (with the call's `id` when it has one); a renamed call or result is
//! a shallow copy with its `functionCall` / `functionResponse` copied and its `id` set. An empty
//! top-level `tools` array is removed. A part whose thought signature a rule removed or supplied
//! (see [`super::gemini_signatures`]) is a shallow copy without the key / with it set; a
//! `functionResponse` part's signature is read as its result message's one block for that.

use super::edit::{Item, Op, Out};
use super::gemini_signatures::KEYS as SIGNATURE_KEYS;
use super::node::{Node, View};
use super::openai_chat::{kind, obj, opt_str, same_list, val_of};
use super::split::{From, Src};
use super::{split, Decision, Protocol, WireError, WireOptions};
use crate::transcript::context::Change;
use crate::transcript::model::Rare;
use crate::transcript::model::{Block, BlockOrigin, Content, Msg, Override, Val};
use serde_json::{json, Value};
use std::collections::HashSet;

const CALL: &str = "functionCall";
const RESPONSE: &str = "functionResponse";
const PARTS: &str = "parts";

/// What the reader made of the body.
struct Read<N> {
    msgs: Vec<Msg>,
    srcs: Vec<Src>,
    contents: Vec<N>,
    /// Ids the reader made up (never written).
    made_up: HashSet<String>,
    /// Model contents read as part of the model turn before them.
    joined: Vec<usize>,
}

/// The model block of a part that is not a `functionResponse`.
fn block<'a, N: Node<'a>>(p: N, k: usize, idx: usize, id: Option<String>) -> Block {
    let mut b = Block::src(k, idx);
    if let Some(call) = p.get(CALL) {
        b.set_ty(Val::Str("toolCall".into()));
        b.id = id.map_or(Val::Absent, |s| Val::Str(s.into()));
        if let Some(n) = call.get("name").and_then(Node::str) {
            b.name = Val::Str(n.into_owned().into());
        }
        b.arguments = kind(call.get("args"));
    } else if let Some(t) = p.get("text").filter(|t| t.is_str()) {
        let thought = matches!(p.get("thought").map(Node::view), Some(View::Bool(true)));
        b.set_ty(Val::Str(if thought { "thinking" } else { "text" }.into()));
        b.text = t.text_info();
    } else {
        b.set_ty(Val::Str(
            p.first_key().unwrap_or_default().into_owned().into(),
        ));
    }
    // What the signature rules judge (see `gemini_signatures`).
    if let Some(v) = p.get(SIGNATURE_KEYS[0]) {
        b.x_mut().thought_signature_camel = val_of(v);
    }
    if let Some(v) = p.get(SIGNATURE_KEYS[1]) {
        b.x_mut().thought_signature = val_of(v);
    }
    b
}

fn read<'a, N: Node<'a>>(body: N) -> Result<Read<N>, WireError> {
    let contents: Vec<N> = super::message_list(
        body,
        "contents",
        "an object (a Gemini generateContent request)",
    )?;
    let mut r = Read {
        msgs: Vec::with_capacity(contents.len()),
        srcs: Vec::with_capacity(contents.len()),
        contents: Vec::new(),
        made_up: HashSet::new(),
        joined: Vec::new(),
    };
    // The calls of the nearest run of model contents: (name, id, answered).
    let mut open: Vec<(String, String, bool)> = Vec::new();
    let mut after_model = false;
    for (i, c) in contents.iter().copied().enumerate() {
        let path = format!("body.contents[{i}]");
        let o = obj(c, &path, "a content object")?;
        let role = opt_str(o, "role", &path)?.map_or("user".to_string(), |r| r.into_owned());
        let parts_node = o.get(PARTS);
        let parts: Vec<N> = match parts_node.map(Node::view) {
            Some(View::Arr(a)) => a.items().collect(),
            _ => {
                return Err(WireError::new(
                    format!("{path}.parts"),
                    "an array of parts",
                    parts_node,
                ))
            }
        };
        for (j, p) in parts.iter().copied().enumerate() {
            obj(p, &format!("{path}.parts[{j}]"), "a part object")?;
        }
        let k = r.msgs.len();
        let model = role == "model";
        let joins = model && after_model;
        if model && !after_model {
            open.clear();
        }
        after_model = model;
        if model {
            if !joins {
                let mut m = Msg::src(k);
                m.set_role(Val::Str("assistant".into()));
                m.content = Content::Blocks(Vec::new());
                r.msgs.push(m);
                r.srcs.push(Src {
                    wire: i,
                    from: From::Run(Vec::new()),
                });
            } else {
                r.joined.push(i);
            }
            let k = r.msgs.len() - 1;
            let (
                Some(m),
                Some(Src {
                    from: From::Run(run),
                    ..
                }),
            ) = (r.msgs.last_mut(), r.srcs.last_mut())
            else {
                continue;
            };
            let Content::Blocks(blocks) = &mut m.content else {
                continue;
            };
            for (j, p) in parts.iter().copied().enumerate() {
                let mut id = None;
                if let Some(call) = p.get(CALL) {
                    let cpath = format!("{path}.parts[{j}].{CALL}");
                    obj(call, &cpath, "an object")?;
                    let given = opt_str(call, "id", &cpath)?.map(|s| s.into_owned());
                    let made = given.is_none().then(|| format!("g{i}c{j}"));
                    let the_id = given.or(made.clone()).unwrap_or_default();
                    if let Some(made) = made {
                        r.made_up.insert(made);
                    }
                    let name = opt_str(call, "name", &cpath)?.unwrap_or_default();
                    open.push((name.into_owned(), the_id.clone(), false));
                    id = Some(the_id);
                }
                blocks.push(block(p, k, run.len(), id));
                run.push((i, j));
            }
            continue;
        }
        let mut rest = Vec::new();
        for (j, p) in parts.iter().copied().enumerate() {
            let Some(resp) = p.get(RESPONSE) else {
                rest.push(j);
                continue;
            };
            let rpath = format!("{path}.parts[{j}].{RESPONSE}");
            obj(resp, &rpath, "an object")?;
            let name = opt_str(resp, "name", &rpath)?.unwrap_or_default();
            let id = match opt_str(resp, "id", &rpath)? {
                Some(id) => {
                    if let Some(c) = open.iter_mut().find(|c| c.1 == id && !c.2) {
                        c.2 = true;
                    }
                    id.into_owned()
                }
                None => match open.iter_mut().find(|c| c.0 == name && !c.2) {
                    Some(c) => {
                        c.2 = true;
                        c.1.clone()
                    }
                    None => {
                        let made = format!("g{i}r{j}");
                        r.made_up.insert(made.clone());
                        made
                    }
                },
            };
            let mut m = Msg::src(r.msgs.len());
            m.set_role(Val::Str("toolResult".into()));
            m.set_field(Rare::ToolCallId, Val::Str(id.into()));
            m.set_field(Rare::ToolName, Val::Str(name.into_owned().into()));
            // A signature on the response part (a user part: Gemini signs model parts only) is
            // the result's one block, for the signature rules; the writer reads only its edits.
            if SIGNATURE_KEYS.iter().any(|k| p.get(k).is_some()) {
                m.content = Content::Blocks(vec![block(p, r.msgs.len(), 0, None)]);
            }
            r.msgs.push(m);
            r.srcs.push(Src {
                wire: i,
                from: From::Result(j),
            });
        }
        if !rest.is_empty() || parts.is_empty() {
            let k = r.msgs.len();
            let mut m = Msg::src(k);
            m.set_role(Val::Str(role.into()));
            let blocks = rest
                .iter()
                .enumerate()
                .map(|(b, &j)| block(parts[j], k, b, None))
                .collect();
            m.content = Content::Blocks(blocks);
            let whole = rest.len() == parts.len();
            r.msgs.push(m);
            r.srcs.push(Src {
                wire: i,
                from: if whole { From::Whole } else { From::Rest(rest) },
            });
        }
    }
    r.contents = contents;
    Ok(r)
}

struct Writer<'r, N> {
    srcs: &'r [Src],
    contents: &'r [N],
    made_up: &'r HashSet<String>,
}

impl<'a, 'r, N: Node<'a>> Writer<'r, N> {
    /// `parts[j]` of content `i` with its `<key>` (`functionCall` / `functionResponse`) copied and
    /// its `id` set to `id`.
    fn with_id(i: usize, j: usize, key: &'static str, id: Value) -> Item {
        Item::RefIn {
            msg: i,
            list: PARTS,
            idx: j,
            key,
            sets: vec![("id", id)],
        }
    }

    fn real_id(&self, id: &Val) -> Option<Value> {
        id.as_str()
            .filter(|s| !self.made_up.contains(*s))
            .map(|s| json!(s))
    }

    fn block_item(&self, b: &Block) -> Item {
        match &b.origin {
            &BlockOrigin::Src { msg, idx } => {
                let Some(src) = self.srcs.get(msg as usize) else {
                    return Item::New(Value::Null);
                };
                let (i, j) = src.item(idx as usize);
                let renamed = super::new_value(&b.edits, "id")
                    .filter(|_| b.is_tool_call())
                    .filter(|_| !self.made_up.contains(&format!("g{i}c{j}")));
                let (del, sets) = signature_edits(b);
                if !del.is_empty() || !sets.is_empty() {
                    return Item::Patch {
                        msg: i,
                        list: PARTS,
                        idx: j,
                        del,
                        sets,
                        inner: renamed.map(|id| (CALL, vec![("id", id)])),
                    };
                }
                match renamed {
                    Some(id) => Self::with_id(i, j, CALL, id),
                    None => Item::Ref {
                        msg: i,
                        list: PARTS,
                        idx: j,
                        sets: Vec::new(),
                    },
                }
            }
            BlockOrigin::FromStrContent { prefix, .. } => Item::New(json!({"text": prefix})),
            BlockOrigin::New(v) => Item::New(gemini_part(v)),
        }
    }

    fn result_item(&self, m: &Msg, synthetic_text: &str) -> Item {
        if let Some(Src {
            wire,
            from: From::Result(j),
        }) = m.src_index().and_then(|k| self.srcs.get(k))
        {
            let renamed = super::new_value(&m.edits, "toolCallId")
                .filter(|v| v.as_str().is_some_and(|s| !self.made_up.contains(s)));
            let (del, sets) = m
                .blocks()
                .and_then(|bs| bs.first())
                .map(signature_edits)
                .unwrap_or_default();
            if !del.is_empty() || !sets.is_empty() {
                return Item::Patch {
                    msg: *wire,
                    list: PARTS,
                    idx: *j,
                    del,
                    sets,
                    inner: renamed.map(|id| (RESPONSE, vec![("id", id)])),
                };
            }
            return match renamed {
                Some(id) => Self::with_id(*wire, *j, RESPONSE, id),
                None => Item::Ref {
                    msg: *wire,
                    list: PARTS,
                    idx: *j,
                    sets: Vec::new(),
                },
            };
        }
        let text = m
            .blocks()
            .and_then(|bs| {
                bs.iter().find_map(|b| match &b.origin {
                    BlockOrigin::New(v) => {
                        v.get("text").and_then(Value::as_str).map(str::to_string)
                    }
                    _ => None,
                })
            })
            .unwrap_or_else(|| synthetic_text.to_string());
        let name = super::new_value(&m.edits, "toolName")
            .or_else(|| m.tool_name().as_str().map(|s| json!(s)))
            .unwrap_or(json!("unknown"));
        let mut r = json!({"name": name, "response": {"error": text}});
        if let Some(id) = self.real_id(m.tool_call_id()) {
            r["id"] = id;
        }
        Item::New(json!({ RESPONSE: r }))
    }

    fn content_items(&self, m: &Msg, items: &mut Vec<Item>) {
        match &m.content {
            Content::Blocks(bs) => items.extend(bs.iter().map(|b| self.block_item(b))),
            Content::Str { info, .. } => items.push(Item::New(
                json!({"text": info.head.clone().unwrap_or_default()}),
            )),
            Content::Other(_) => {
                if let Some(Value::String(s)) = super::new_value(&m.edits, "content") {
                    items.push(Item::New(json!({ "text": s })));
                }
            }
        }
    }

    /// One output content from model messages `group` (one message, or results and user parts).
    fn write_group(&self, group: &[Msg], opts: &WireOptions) -> Out {
        let mut items = Vec::new();
        for m in group {
            if m.is_tool_result() {
                items.push(self.result_item(m, &opts.pairing.synthetic_text));
            } else {
                self.content_items(m, &mut items);
            }
        }
        let from = group
            .iter()
            .find_map(|m| m.src_index().and_then(|k| self.srcs.get(k)).map(|s| s.wire));
        let len = |i: usize| {
            self.contents
                .get(i)
                .and_then(|c| c.get(PARTS))
                .map_or(0, Node::item_count)
        };
        match from {
            Some(i) if same_list(&items, i, PARTS, len(i)) => Out::Keep(i),
            Some(i) => Out::Edit {
                from: Some(i),
                ops: vec![Op::List(PARTS, items)],
            },
            None => {
                let role = match group.iter().find(|m| !m.is_tool_result()) {
                    Some(m) if m.is_assistant() => "model",
                    _ => "user",
                };
                Out::Edit {
                    from: None,
                    ops: vec![Op::Set("role", json!(role)), Op::List(PARTS, items)],
                }
            }
        }
    }
}

/// The signature keys a rule removed from a part's block, and the one it set.
fn signature_edits(b: &Block) -> (Vec<&'static str>, Vec<(&'static str, Value)>) {
    let del = SIGNATURE_KEYS
        .into_iter()
        .filter(|k| b.edits.dels().any(|d| d == *k))
        .collect();
    let sets = SIGNATURE_KEYS
        .into_iter()
        .filter_map(|k| match b.edits.get(k) {
            Some(Override::Json(v)) => Some((k, (**v).clone())),
            _ => None,
        })
        .collect();
    (del, sets)
}

/// A block a rule made (pi's shape) as a Gemini part.
fn gemini_part(v: &Value) -> Value {
    match v.get("type").and_then(Value::as_str) {
        Some("text") => json!({"text": v.get("text").cloned().unwrap_or(json!(""))}),
        _ => v.clone(),
    }
}

/// The plan that repairs `body` for `opts`' target.
pub fn plan<'a, N: Node<'a>>(body: N, opts: &WireOptions) -> Result<Decision, WireError> {
    let Read {
        mut msgs,
        srcs,
        contents,
        made_up,
        joined,
    } = read(body)?;
    let mut changes = super::run_pass(&mut msgs, opts, Protocol::Gemini, |p| {
        split::wire_path(p, &srcs, "contents", "parts")
    });
    if opts.report {
        changes.extend(joined.iter().map(|i| Change {
            rule: "mergeModelTurns",
            path: format!("contents[{i}]"),
            detail: "merged into the model content before it: its calls are one turn, answered by one response turn".into(),
        }));
    }
    let w = Writer {
        srcs: &srcs,
        contents: &contents,
        made_up: &made_up,
    };
    let wire_of = |m: &Msg| m.src_index().and_then(|k| srcs.get(k)).map(|s| s.wire);
    let mut out = Vec::new();
    let mut k = 0;
    while k < msgs.len() {
        let start = k;
        while k < msgs.len() && msgs[k].is_tool_result() {
            k += 1;
        }
        let joins = |m: &Msg| {
            m.is_user() && k > start && wire_of(m).is_some() && wire_of(m) == wire_of(&msgs[k - 1])
        };
        if k < msgs.len() && (k == start || joins(&msgs[k])) {
            k += 1;
        }
        out.push(w.write_group(&msgs[start..k], opts));
    }
    Ok(super::decide(
        body,
        "contents",
        Some(out),
        contents.len(),
        opts.report,
        changes,
    ))
}
