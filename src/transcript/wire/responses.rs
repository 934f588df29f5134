//! OpenAI Responses (`POST /v1/responses`) onto the model and back.
//!
//! Reader: `input` is a flat list of items. A run of consecutive model-side items (`function_call`,
//! `reasoning`, assistant messages) is one `assistant` turn, as one model response produced them:
//! each `function_call` a `toolCall` block (id = `call_id`), the others opaque blocks. So a call
//! written before the text of the same response (seen from gpt-5.3-codex-spark) is still answered
//! by the output after that text. A `function_call_output` item is a `toolResult` message
//! (`toolCallId` = `call_id`); any other item (a user or system message, `web_search_call`,
//! `item_reference`, …) is a message of its role or `type`, which no rule edits. A string `input`
//! has nothing to repair.
//!
//! Writer: every item goes back as itself (a renamed call or output is a shallow copy with its
//! `call_id` set); a new result is `{type: "function_call_output", call_id, output: <text>}`; a
//! new user turn is `{role: "user", content: <text>}`. Responses has no same-role turn rule, so
//! the merges never run here (a merged message could not be written as one item anyway). A
//! reasoning item a rule dropped (see [`super::encrypted_reasoning`]) is not written.

use super::anthropic::presence;
use super::edit::{Op, Out};
use super::node::{Node, View};
use super::openai_chat::{id_val, obj, opt_str};
use super::{pass, Decision, Protocol, WireError, WireOptions};
use crate::transcript::model::Rare;
use crate::transcript::model::{Block, BlockOrigin, Content, Msg, MsgOrigin, Val};
use serde_json::{json, Value};
use std::borrow::Cow;

const CALL: &str = "function_call";
const OUTPUT: &str = "function_call_output";

/// The input items a model message stands for.
#[derive(Clone, Debug, PartialEq)]
enum From {
    Item(usize),
    /// A run of model-side items; block `b` is item `items[b]`.
    Group(Vec<usize>),
}

fn item_type<'a, N: Node<'a>>(v: N) -> Option<Cow<'a, str>> {
    v.get("type").and_then(Node::str)
}

/// Items a model response produces: calls, reasoning, the assistant's own messages.
fn model_side<'a, N: Node<'a>>(ty: Option<&str>, role: Option<N>) -> bool {
    match ty {
        Some(CALL | "reasoning") => true,
        None | Some("message") => role.and_then(Node::str).as_deref() == Some("assistant"),
        Some(_) => false,
    }
}

/// The model of `input`'s items, and the items each model message stands for.
type Read = (Vec<Msg>, Vec<From>);

/// `None` when `input` is a string or absent (nothing to repair).
fn read<'a, N: Node<'a>>(body: N) -> Result<Option<Read>, WireError> {
    let b = obj(body, "body", "an object (an OpenAI Responses request)")?;
    let input = b.get("input");
    let list = match input.map(Node::view) {
        Some(View::Arr(a)) => a,
        None | Some(View::Str(_)) => return Ok(None),
        _ => {
            return Err(WireError::new(
                "body.input",
                "a string or an array of input items",
                input,
            ))
        }
    };
    let list = list.items();
    let mut msgs: Vec<Msg> = Vec::new();
    let mut froms: Vec<From> = Vec::new();
    for (i, v) in list.enumerate() {
        let path = format!("body.input[{i}]");
        let o = obj(v, &path, "an input item object")?;
        let k = msgs.len();
        let ty = item_type(v);
        match ty.as_deref() {
            ty if model_side(ty, o.get("role")) => {
                let joins = matches!(froms.last(), Some(From::Group(_)));
                if !joins {
                    let mut m = Msg::src(k);
                    m.set_role(Val::Str("assistant".into()));
                    m.content = Content::Blocks(Vec::new());
                    msgs.push(m);
                    froms.push(From::Group(Vec::new()));
                }
                let k = msgs.len() - 1;
                let (Some(m), Some(From::Group(items))) = (msgs.last_mut(), froms.last_mut())
                else {
                    continue;
                };
                let mut blk = Block::src(k, items.len());
                if ty == Some(CALL) {
                    blk.set_ty(Val::Str("toolCall".into()));
                    blk.id = id_val(opt_str(o, "call_id", &path)?);
                    blk.name = id_val(opt_str(o, "name", &path)?);
                    blk.arguments = crate::transcript::model::Kind::Other;
                } else {
                    blk.set_ty(Val::Str(ty.unwrap_or("message").to_string().into()));
                    if ty == Some("reasoning") {
                        // What `encrypted_reasoning` asks of a reasoning item.
                        blk.x_mut().signature = presence(o.get("encrypted_content"));
                    }
                }
                if let Content::Blocks(bs) = &mut m.content {
                    bs.push(blk);
                }
                items.push(i);
            }
            Some(OUTPUT) => {
                let mut m = Msg::src(k);
                m.set_role(Val::Str("toolResult".into()));
                if let Some(id) = opt_str(o, "call_id", &path)? {
                    m.set_field(Rare::ToolCallId, Val::Str(id.into_owned().into()));
                }
                msgs.push(m);
                froms.push(From::Item(i));
            }
            ty => {
                let mut m = Msg::src(k);
                let role = match (ty, o.get("role")) {
                    (None | Some("message"), Some(r)) if r.is_str() => {
                        r.str().unwrap_or_default().into_owned()
                    }
                    (None | Some("message"), other) => {
                        return Err(WireError::new(format!("{path}.role"), "a string", other))
                    }
                    (Some(t), _) => t.to_string(),
                };
                m.set_role(Val::Str(role.into()));
                // The content is only carried by reference: no rule that runs here reads it.
                m.content = Content::Other(Val::Absent);
                msgs.push(m);
                froms.push(From::Item(i));
            }
        }
    }
    Ok(Some((msgs, froms)))
}

fn keep_or_set(i: usize, new_id: Option<Value>) -> Out {
    match new_id {
        None => Out::Keep(i),
        Some(v) => Out::Edit {
            from: Some(i),
            ops: vec![Op::Set("call_id", v)],
        },
    }
}

fn new_text(m: &Msg) -> String {
    m.blocks()
        .and_then(|bs| {
            bs.iter().find_map(|b| match &b.origin {
                BlockOrigin::New(v) => v.get("text").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
        })
        .unwrap_or_default()
}

/// The items of one output model message.
fn write(m: &Msg, froms: &[From], out: &mut Vec<Out>) {
    let from = m.src_index().and_then(|k| froms.get(k));
    if m.is_tool_result() {
        match from {
            Some(From::Item(i)) => {
                out.push(keep_or_set(*i, super::new_value(&m.edits, "toolCallId")))
            }
            _ => out.push(Out::Edit {
                from: None,
                ops: vec![
                    Op::Set("type", json!(OUTPUT)),
                    Op::Set("call_id", json!(m.tool_call_id().as_str().unwrap_or(""))),
                    Op::Set("output", json!(new_text(m))),
                ],
            }),
        }
        return;
    }
    if let Some(bs) = m.blocks().filter(|_| matches!(from, Some(From::Group(_)))) {
        for b in bs {
            let Some((msg, idx)) = b.src_at() else {
                continue;
            };
            if let Some(From::Group(items)) = froms.get(msg) {
                if let Some(i) = items.get(idx) {
                    out.push(keep_or_set(*i, super::new_value(&b.edits, "id")));
                }
            }
        }
        return;
    }
    match (from, &m.origin) {
        (Some(From::Item(i)), _) => out.push(Out::Keep(*i)),
        (_, MsgOrigin::New) => {
            let content = super::new_value(&m.edits, "content").unwrap_or(json!(""));
            out.push(Out::Edit {
                from: None,
                ops: vec![
                    Op::Set("role", json!(m.role().unwrap_or("user"))),
                    Op::Set("content", content),
                ],
            })
        }
        _ => {}
    }
}

/// The plan that repairs `body` for `opts`' target.
pub fn plan<'a, N: Node<'a>>(body: N, opts: &WireOptions) -> Result<Decision, WireError> {
    let Some((mut msgs, froms)) = read(body)? else {
        return Ok(super::decide(
            body,
            "input",
            None,
            0,
            opts.report,
            Vec::new(),
        ));
    };
    let input_len = body.get("input").map_or(0, Node::item_count);
    let mut o = opts.clone();
    let mut policy = pass::policy(opts, Protocol::OpenAiResponses);
    policy.validate_gemini_turns = false;
    policy.validate_anthropic_turns = false;
    o.policy = Some(policy);
    let changes = super::run_pass(&mut msgs, &o, Protocol::OpenAiResponses, |p| {
        wire_path(p, &froms)
    });
    let mut out = Vec::with_capacity(input_len);
    for m in &msgs {
        write(m, &froms, &mut out);
    }
    Ok(super::decide(
        body,
        "input",
        Some(out),
        input_len,
        opts.report,
        changes,
    ))
}

/// `messages[k]` / `messages[k].content[b]` in the body's terms (`input[i]`).
fn wire_path(path: &str, froms: &[From]) -> String {
    match super::parse_model_path(path).and_then(|(k, b)| Some((froms.get(k)?, b))) {
        Some((From::Item(i), _)) => format!("input[{i}]"),
        Some((From::Group(items), Some(b))) => {
            format!("input[{}]", items.get(b).copied().unwrap_or(b))
        }
        Some((From::Group(items), None)) => {
            format!("input[{}]", items.first().copied().unwrap_or(0))
        }
        None => path.replacen("messages", "input", 1),
    }
}
