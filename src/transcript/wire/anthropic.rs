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
use super::node::{Node, View};
use super::openai_chat::{id_val, kind, new_text, obj, opt_str, role_of, same_list, val_of};
use super::split::{From, Src};
use super::{split, Decision, Protocol, WireError, WireOptions};
use crate::transcript::model::Rare;
use crate::transcript::model::{ix, Block, BlockOrigin, Content, Msg, Presence, TextInfo, Val};
use serde_json::{json, Value};

const RESULT: &str = "tool_result";

fn is_result<'a, N: Node<'a>>(v: N) -> bool {
    v.get("type").and_then(Node::str).as_deref() == Some(RESULT)
}

fn block<'a, N: Node<'a>>(v: N, k: usize, idx: usize, path: &str) -> Result<Block, WireError> {
    let o = obj(v, path, "a content block object")?;
    let mut b = Block::src(k, idx);
    let ty = o.get("type");
    if ty.and_then(Node::str).as_deref() == Some("tool_use") {
        b.set_ty(Val::Str("toolCall".into()));
        b.id = id_val(opt_str(o, "id", path)?);
        if let Some(View::Str(n)) = o.get("name").map(Node::view) {
            b.name = Val::Str(n.into_owned().into());
        }
        b.input = kind(o.get("input"));
    } else {
        b.set_ty(ty.map_or(Val::Absent, val_of));
        if let Some(t) = o.get("text").filter(|t| t.is_str()) {
            b.text = t.text_info();
        }
        // What the signature rules ask of a reasoning block: whether it is signed.
        match b.ty() {
            Some("thinking") => b.x_mut().signature = presence(o.get("signature")),
            Some("redacted_thinking") => b.x_mut().redacted_data = presence(o.get("data")),
            _ => {}
        }
    }
    Ok(b)
}

/// Whether a field is there and, for a string, whether it is blank.
pub(super) fn presence<'a, N: Node<'a>>(v: Option<N>) -> Presence {
    v.map_or_else(Presence::default, |v| {
        Presence::new(v.text_info().as_ref(), &val_of(v))
    })
}

fn text_block(info: Option<TextInfo>, k: usize) -> Block {
    let mut b = Block::src(k, 0);
    b.set_ty(Val::Str("text".into()));
    b.text = info;
    b
}

type Read<N> = (Vec<Msg>, Vec<Src>, Vec<N>);

/// The model of the body's messages, where each comes from, and the body's messages.
fn read<'a, N: Node<'a>>(body: N) -> Result<Read<N>, WireError> {
    let list: Vec<N> = super::message_list(
        body,
        "messages",
        "an object (an Anthropic Messages request)",
    )?;
    let mut msgs = Vec::with_capacity(list.len());
    let mut srcs = Vec::with_capacity(list.len());
    for (i, v) in list.iter().copied().enumerate() {
        let path = format!("body.messages[{i}]");
        let m = obj(v, &path, "a message object")?;
        let role = role_of(m, &path)?;
        let role = role.as_ref();
        let mut push = |msgs: &mut Vec<Msg>, mut msg: Msg, from: From| {
            msg.origin = crate::transcript::model::MsgOrigin::Src(msgs.len());
            msgs.push(msg);
            srcs.push(Src { wire: i, from });
        };
        let k = msgs.len();
        let mut msg = Msg::src(k);
        msg.set_role(Val::Str(role.to_string().into()));
        let content = m.get("content");
        let info = content.and_then(Node::text_info);
        match content.map(Node::view) {
            Some(View::Str(_)) if role == "assistant" => {
                msg.content = Content::Blocks(vec![text_block(info, k)]);
                push(&mut msgs, msg, From::Whole);
            }
            Some(View::Str(_)) => {
                msg.content = Content::Str {
                    info: info.unwrap_or_default(),
                    from: Some(ix(k)),
                    prefix: Box::default(),
                };
                push(&mut msgs, msg, From::Whole);
            }
            Some(View::Arr(blocks)) if role == "assistant" || !blocks.items().any(is_result) => {
                let bs = blocks
                    .items()
                    .enumerate()
                    .map(|(j, v)| block(v, k, j, &format!("{path}.content[{j}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                msg.content = Content::Blocks(bs);
                push(&mut msgs, msg, From::Whole);
            }
            Some(View::Arr(blocks)) => {
                let blocks: Vec<N> = blocks.items().collect();
                let mut rest = Vec::new();
                for (j, v) in blocks.iter().copied().enumerate() {
                    let bpath = format!("{path}.content[{j}]");
                    let o = obj(v, &bpath, "a content block object")?;
                    if !is_result(v) {
                        rest.push(j);
                        continue;
                    }
                    let mut r = Msg::src(0);
                    r.set_role(Val::Str("toolResult".into()));
                    if let Some(id) = opt_str(o, "tool_use_id", &bpath)? {
                        r.set_field(Rare::ToolCallId, Val::Str(id.into_owned().into()));
                    }
                    push(&mut msgs, r, From::Result(j));
                }
                if !rest.is_empty() {
                    let k = msgs.len();
                    let mut u = Msg::src(k);
                    u.set_role(Val::Str(role.to_string().into()));
                    let bs = rest
                        .iter()
                        .enumerate()
                        .map(|(b, &j)| block(blocks[j], k, b, &format!("{path}.content[{j}]")))
                        .collect::<Result<Vec<_>, _>>()?;
                    u.content = Content::Blocks(bs);
                    push(&mut msgs, u, From::Rest(rest));
                }
            }
            _ => {
                return Err(WireError::new(
                    format!("{path}.content"),
                    "a string or an array of content blocks",
                    content,
                ))
            }
        }
    }
    Ok((msgs, srcs, list))
}

/// The wire item of a model block.
fn block_item<'a, N: Node<'a>>(b: &Block, srcs: &[Src], input: &[N]) -> Item {
    match &b.origin {
        &BlockOrigin::Src { msg, idx } => {
            let Some(src) = srcs.get(msg as usize) else {
                return Item::New(Value::Null);
            };
            let (i, j) = src.item(idx as usize);
            if input
                .get(i)
                .and_then(|m| m.get("content"))
                .is_some_and(Node::is_str)
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
            msg: srcs.get(*msg as usize).map_or(*msg as usize, |s| s.wire),
            prefix: prefix.to_string(),
        },
        BlockOrigin::New(v) => Item::New((**v).clone()),
    }
}

fn content_items<'a, N: Node<'a>>(m: &Msg, srcs: &[Src], input: &[N], items: &mut Vec<Item>) {
    match &m.content {
        Content::Blocks(bs) => items.extend(bs.iter().map(|b| block_item(b, srcs, input))),
        Content::Str {
            from: Some(k),
            prefix,
            ..
        } => items.push(Item::TextOf {
            msg: srcs.get(*k as usize).map_or(*k as usize, |s| s.wire),
            prefix: prefix.to_string(),
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
                        BlockOrigin::New(v) => {
                            new_text(&Item::New((**v).clone())).map(str::to_string)
                        }
                        _ => None,
                    })
                })
                .unwrap_or_else(|| synthetic_text.to_string());
            Item::New(json!({
                "type": RESULT,
                "tool_use_id": m.tool_call_id().as_str().unwrap_or(""),
                "content": text,
                "is_error": true,
            }))
        }
    }
}

/// Whether `items` are exactly input message `i`'s content.
fn is_original<'a, N: Node<'a>>(items: &[Item], i: usize, input: &[N]) -> bool {
    match input.get(i).and_then(|m| m.get("content")).map(Node::view) {
        Some(View::Str(_)) => {
            items.len() == 1
                && items[0]
                    == Item::TextOf {
                        msg: i,
                        prefix: String::new(),
                    }
        }
        Some(View::Arr(a)) => same_list(items, i, "content", a.item_count()),
        _ => items.is_empty(),
    }
}

/// One wire message from model messages `group` (a single message, or results and a user turn).
fn write_group<'a, N: Node<'a>>(
    group: &[Msg],
    srcs: &[Src],
    input: &[N],
    opts: &WireOptions,
) -> Out {
    let mut items = Vec::new();
    for m in group {
        if m.is_tool_result() {
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
                .find(|m| !m.is_tool_result())
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
pub fn plan<'a, N: Node<'a>>(body: N, opts: &WireOptions) -> Result<Decision, WireError> {
    let (mut msgs, srcs, input) = read(body)?;
    let changes = super::run_pass(&mut msgs, opts, Protocol::Anthropic, |p| {
        split::wire_path(p, &srcs, "messages", "content")
    });
    let mut out = Vec::new();
    let mut k = 0;
    while k < msgs.len() {
        let start = k;
        while k < msgs.len() && msgs[k].is_tool_result() {
            k += 1;
        }
        if k < msgs.len() && (k == start || msgs[k].is_user()) {
            k += 1;
        }
        out.push(write_group(&msgs[start..k], &srcs, &input, opts));
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
