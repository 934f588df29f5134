//! Anthropic Messages (`POST /v1/messages`) onto the model and back.
//!
//! Reader: an assistant message is an `assistant` with its blocks (`tool_use` as a `toolCall`
//! block: id, name, kind of `input`; a string content as one text block). A user message's
//! `tool_result` blocks are the model's `toolResult` messages (`toolCallId` = `tool_use_id`), one
//! per block, followed by a `user` message of the remaining blocks when there are any: the rules
//! pair calls and results as messages, whatever the protocol nests them in. The system prompt is
//! the top-level `system`, outside the turns.
//!
//! Writer: a run of results and the user turn after it is one user message again, results first
//! (Anthropic wants them at the start of the turn that follows the calls); a run that is exactly
//! an input message is that message. A new result is `{type: "tool_result", tool_use_id, content:
//! <text>, is_error: true}`; a renamed call or result is a shallow copy with its `id` /
//! `tool_use_id` set. An empty top-level `tools` array is removed.

use super::edit::{Item, Op, Out};
use super::openai_chat::{new_text, obj, opt_str, same_list};
use super::{pass, Decision, Protocol, WireError, WireOptions};
use crate::transcript::context::{Ctx, NoSource};
use crate::transcript::model::{Block, BlockOrigin, Content, Kind, Msg, TextInfo, Val};
use serde_json::{json, Value};

const RESULT: &str = "tool_result";

fn is_result(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some(RESULT)
}

/// Where a model message comes from in the body.
#[derive(Clone, Debug, PartialEq)]
enum From {
    /// The whole message (its blocks are `content[j]`, or the string content as block 0).
    Whole,
    /// The `tool_result` block `content[j]`.
    Result(usize),
    /// The message's other blocks: model block `b` is `content[rest[b]]`.
    Rest(Vec<usize>),
}

#[derive(Clone, Debug, PartialEq)]
struct Src {
    wire: usize,
    from: From,
}

fn kind(v: Option<&Value>) -> Kind {
    match v {
        None => Kind::Absent,
        Some(Value::Null) => Kind::Null,
        Some(Value::Object(_)) => Kind::Object,
        Some(_) => Kind::Other,
    }
}

fn block(v: &Value, k: usize, idx: usize, path: &str) -> Result<Block, WireError> {
    let o = obj(v, path, "a content block object")?;
    let mut b = Block::src(k, idx);
    let ty = o.get("type").and_then(Value::as_str);
    if ty == Some("tool_use") {
        b.ty = Val::Str("toolCall".into());
        if let Some(id) = opt_str(o, "id", path)? {
            b.id = Val::Str(id.to_string().into());
        }
        if let Some(Value::String(n)) = o.get("name") {
            b.name = Val::Str(n.clone().into());
        }
        b.input = kind(o.get("input"));
    } else {
        b.ty = o.get("type").map_or(Val::Absent, Val::of_json);
        if let Some(Value::String(t)) = o.get("text") {
            b.text = Some(TextInfo::of_str(t));
        }
    }
    Ok(b)
}

fn text_block(s: &str, k: usize) -> Block {
    let mut b = Block::src(k, 0);
    b.ty = Val::Str("text".into());
    b.text = Some(TextInfo::of_str(s));
    b
}

/// The model of the body's messages, and where each comes from.
fn read(body: &Value) -> Result<(Vec<Msg>, Vec<Src>), WireError> {
    let list = super::message_list(
        body,
        "messages",
        "an object (an Anthropic Messages request)",
    )?;
    let mut msgs = Vec::with_capacity(list.len());
    let mut srcs = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let path = format!("body.messages[{i}]");
        let m = obj(v, &path, "a message object")?;
        let role = match m.get("role") {
            Some(Value::String(r)) => r.as_str(),
            other => return Err(WireError::new(format!("{path}.role"), "a string", other)),
        };
        let mut push = |msgs: &mut Vec<Msg>, mut msg: Msg, from: From| {
            msg.origin = crate::transcript::model::MsgOrigin::Src(msgs.len());
            msgs.push(msg);
            srcs.push(Src { wire: i, from });
        };
        let k = msgs.len();
        let mut msg = Msg::src(k);
        msg.role = Val::Str(role.to_string().into());
        match m.get("content") {
            Some(Value::String(s)) if role == "assistant" => {
                msg.content = Content::Blocks(vec![text_block(s, k)]);
                push(&mut msgs, msg, From::Whole);
            }
            Some(Value::String(s)) => {
                msg.content = Content::Str {
                    info: TextInfo::of_str(s),
                    from: Some(k),
                    prefix: String::new(),
                };
                push(&mut msgs, msg, From::Whole);
            }
            Some(Value::Array(blocks)) if role == "assistant" || !blocks.iter().any(is_result) => {
                let bs = blocks
                    .iter()
                    .enumerate()
                    .map(|(j, v)| block(v, k, j, &format!("{path}.content[{j}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                msg.content = Content::Blocks(bs);
                push(&mut msgs, msg, From::Whole);
            }
            Some(Value::Array(blocks)) => {
                let mut rest = Vec::new();
                for (j, v) in blocks.iter().enumerate() {
                    let bpath = format!("{path}.content[{j}]");
                    let o = obj(v, &bpath, "a content block object")?;
                    if !is_result(v) {
                        rest.push(j);
                        continue;
                    }
                    let mut r = Msg::src(0);
                    r.role = Val::Str("toolResult".into());
                    if let Some(id) = opt_str(o, "tool_use_id", &bpath)? {
                        r.tool_call_id = Val::Str(id.to_string().into());
                    }
                    push(&mut msgs, r, From::Result(j));
                }
                if !rest.is_empty() {
                    let k = msgs.len();
                    let mut u = Msg::src(k);
                    u.role = Val::Str(role.to_string().into());
                    let bs = rest
                        .iter()
                        .enumerate()
                        .map(|(b, &j)| block(&blocks[j], k, b, &format!("{path}.content[{j}]")))
                        .collect::<Result<Vec<_>, _>>()?;
                    u.content = Content::Blocks(bs);
                    push(&mut msgs, u, From::Rest(rest));
                }
            }
            other => {
                return Err(WireError::new(
                    format!("{path}.content"),
                    "a string or an array of content blocks",
                    other,
                ))
            }
        }
    }
    Ok((msgs, srcs))
}

/// The body's terms for a change's model path (`messages[k]`, `messages[k].content[b]`).
fn wire_path(path: &str, srcs: &[Src]) -> String {
    let Some((k, b)) = super::parse_model_path(path) else {
        return path.to_string();
    };
    let Some(src) = srcs.get(k) else {
        return path.to_string();
    };
    let i = src.wire;
    match (&src.from, b) {
        (From::Result(j), _) => format!("messages[{i}].content[{j}]"),
        (From::Rest(rest), Some(b)) => format!(
            "messages[{i}].content[{}]",
            rest.get(b).copied().unwrap_or(b)
        ),
        (_, Some(b)) => format!("messages[{i}].content[{b}]"),
        (_, None) => format!("messages[{i}]"),
    }
}

/// The wire item of a model block.
fn block_item(b: &Block, srcs: &[Src], input: &[Value]) -> Item {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => {
            let Some(src) = srcs.get(*msg) else {
                return Item::New(Value::Null);
            };
            let i = src.wire;
            let j = match &src.from {
                From::Rest(rest) => rest.get(*idx).copied().unwrap_or(*idx),
                _ => *idx,
            };
            if input
                .get(i)
                .and_then(|m| m.get("content"))
                .is_some_and(Value::is_string)
            {
                return Item::TextOf {
                    msg: i,
                    prefix: String::new(),
                };
            }
            let sets = super::new_value(&b.edits, "id")
                .map(|v| vec![("id", v)])
                .unwrap_or_default();
            Item::Ref {
                msg: i,
                list: "content",
                idx: j,
                sets,
            }
        }
        BlockOrigin::FromStrContent { msg, prefix } => Item::TextOf {
            msg: srcs.get(*msg).map_or(*msg, |s| s.wire),
            prefix: prefix.clone(),
        },
        BlockOrigin::New(v) => Item::New(v.clone()),
    }
}

fn content_items(m: &Msg, srcs: &[Src], input: &[Value], items: &mut Vec<Item>) {
    match &m.content {
        Content::Blocks(bs) => items.extend(bs.iter().map(|b| block_item(b, srcs, input))),
        Content::Str {
            from: Some(k),
            prefix,
            ..
        } => items.push(Item::TextOf {
            msg: srcs.get(*k).map_or(*k, |s| s.wire),
            prefix: prefix.clone(),
        }),
        Content::Str { info, .. } => items.push(Item::New(json!({
            "type": "text", "text": info.head.clone().unwrap_or_default()
        }))),
        Content::Other(_) => {}
    }
}

fn result_item(m: &Msg, srcs: &[Src], synthetic_text: &str) -> Item {
    let renamed = super::new_value(&m.edits, "toolCallId");
    match m.src_index().and_then(|k| srcs.get(k)) {
        Some(Src {
            wire,
            from: From::Result(j),
        }) => Item::Ref {
            msg: *wire,
            list: "content",
            idx: *j,
            sets: renamed
                .map(|v| vec![("tool_use_id", v)])
                .unwrap_or_default(),
        },
        _ => {
            let text = m
                .blocks()
                .and_then(|bs| {
                    bs.iter().find_map(|b| match &b.origin {
                        BlockOrigin::New(v) => new_text(&Item::New(v.clone())).map(str::to_string),
                        _ => None,
                    })
                })
                .unwrap_or_else(|| synthetic_text.to_string());
            Item::New(json!({
                "type": RESULT,
                "tool_use_id": m.tool_call_id.as_str().unwrap_or(""),
                "content": text,
                "is_error": true,
            }))
        }
    }
}

/// Whether `items` are exactly input message `i`'s content.
fn is_original(items: &[Item], i: usize, input: &[Value]) -> bool {
    match input.get(i).and_then(|m| m.get("content")) {
        Some(Value::String(_)) => {
            items.len() == 1
                && items[0]
                    == Item::TextOf {
                        msg: i,
                        prefix: String::new(),
                    }
        }
        Some(Value::Array(a)) => same_list(items, i, "content", a.len()),
        _ => items.is_empty(),
    }
}

/// One wire message from model messages `group` (a single message, or results and a user turn).
fn write_group(group: &[Msg], srcs: &[Src], input: &[Value], opts: &WireOptions) -> Out {
    let mut items = Vec::new();
    for m in group {
        if m.is_role("toolResult") {
            items.push(result_item(m, srcs, &opts.pairing.synthetic_text));
        } else {
            content_items(m, srcs, input, &mut items);
        }
    }
    let from = group
        .iter()
        .find_map(|m| m.src_index().and_then(|k| srcs.get(k)).map(|s| s.wire));
    match from {
        Some(i) if is_original(&items, i, input) => Out::Keep(i),
        Some(i) => Out::Edit {
            from: Some(i),
            ops: vec![Op::List("content", items)],
        },
        None => {
            let role = group
                .iter()
                .find(|m| !m.is_role("toolResult"))
                .and_then(|m| m.role())
                .unwrap_or("user");
            Out::Edit {
                from: None,
                ops: vec![Op::Set("role", json!(role)), Op::List("content", items)],
            }
        }
    }
}

/// The plan that repairs `body` for `opts`' target.
pub fn plan(body: &Value, opts: &WireOptions) -> Result<Decision, WireError> {
    let (mut msgs, srcs) = read(body)?;
    let input = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut ctx = Ctx::new(&NoSource, opts.report);
    pass::run(&mut msgs, &mut ctx, opts, Protocol::Anthropic);
    let changes = super::wire_changes(&mut ctx, |p| wire_path(p, &srcs));
    let mut out = Vec::new();
    let mut k = 0;
    while k < msgs.len() {
        let start = k;
        while k < msgs.len() && msgs[k].is_role("toolResult") {
            k += 1;
        }
        if k < msgs.len() && (k == start || msgs[k].is_role("user")) {
            k += 1;
        }
        out.push(write_group(&msgs[start..k], &srcs, input, opts));
    }
    Ok(super::decide(
        body,
        "messages",
        Some(out),
        input.len(),
        opts.report,
        changes,
    ))
}
