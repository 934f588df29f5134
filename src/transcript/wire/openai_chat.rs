//! OpenAI chat completions (`POST /v1/chat/completions`) onto the model and back.
//!
//! Reader: `{role: "tool", tool_call_id, content}` is a `toolResult` message (its `name`, when
//! given, its `toolName`); an assistant's `tool_calls[k]` are `toolCall` blocks (id, function name,
//! kind of `function.arguments`) after its content; a string content is the model's string content,
//! or a text block when the message also has calls; content parts are blocks of their own `type`
//! (`text`, `image_url`, …); an assistant's `reasoning_content` / `reasoning` string, and
//! OpenRouter's non-empty `reasoning_details` array, is a `thinking` block after its calls (what
//! the reasoning rules drop for targets that reject it); a call's Gemini signature
//! (`extra_content.google.thought_signature`) is the block's, for the signature rules. Other roles
//! (`system`, `developer`, `function`) keep their name; [`super::pass`] leaves leading system
//! messages out of the turn rules.
//!
//! Writer: a new result is `{role: "tool", tool_call_id, content: <text>}`; a rebuilt content is an
//! array of parts (string contents become `{type: "text", text}` parts), a rebuilt call list holds
//! the input calls (a shallow copy when their `id` or signature changed); a call list left empty is
//! removed (OpenAI rejects `tool_calls: []`), as is an empty top-level `tools` array; a reasoning
//! field whose block a rule dropped is deleted from the message. Fields the model has and the
//! protocol has not (`timestamp`, `isError`, `toolName`, `usage`) are never written.

use super::edit::{Item, Op, Out};
use super::layout::{Layout, MsgLayout, Place, REASONING_DETAILS, REASONING_FIELDS};
use super::node::{Node, View};
use super::{mistral_reasoning, Decision, Protocol, WireError, WireOptions};
use crate::transcript::context::Change;
use crate::transcript::model::Rare;
use crate::transcript::model::{ix, Block, BlockOrigin, Content, Kind, Msg, MsgOrigin, Val};
use serde_json::{json, Value};
use std::borrow::Cow;

const CALLS: &str = "tool_calls";
/// A call's extension object, where Gemini's OpenAI-compatible endpoint puts its signature
/// (`extra_content.google.thought_signature`; Vertex AI's: `extra_content.vertex.…`).
pub(super) const EXTRA: &str = "extra_content";
/// The members of [`EXTRA`] that carry a signature: the first is where the writer puts one.
const SIGNERS: [&str; 2] = ["google", "vertex"];

pub(super) fn obj<'a, N: Node<'a>>(v: N, path: &str, what: &str) -> Result<N, WireError> {
    if v.is_obj() {
        Ok(v)
    } else {
        Err(WireError::new(path, what, Some(v)))
    }
}

/// A string field, when present and not null.
pub(super) fn opt_str<'a, N: Node<'a>>(
    m: N,
    k: &str,
    path: &str,
) -> Result<Option<Cow<'a, str>>, WireError> {
    let Some(v) = m.get(k) else {
        return Ok(None);
    };
    match v.view() {
        View::Null => Ok(None),
        View::Str(s) => Ok(Some(s)),
        _ => Err(WireError::new(format!("{path}.{k}"), "a string", Some(v))),
    }
}

/// A message's `role`, which must be a string.
pub(super) fn role_of<'a, N: Node<'a>>(m: N, path: &str) -> Result<Cow<'a, str>, WireError> {
    let r = m.get("role");
    r.and_then(Node::str)
        .ok_or_else(|| WireError::new(format!("{path}.role"), "a string", r))
}

/// A value as the model keeps a field it compares (`type`).
pub(super) fn val_of<'a, N: Node<'a>>(v: N) -> Val {
    match v.view() {
        View::Str(s) => Val::Str(s.into_owned().into()),
        _ => Val::of_json(&v.to_value()),
    }
}

/// The kind of a value no rule reads (`arguments`, `input`).
pub(super) fn kind<'a, N: Node<'a>>(v: Option<N>) -> Kind {
    match v.map(Node::view) {
        None => Kind::Absent,
        Some(View::Null) => Kind::Null,
        Some(View::Obj(_)) => Kind::Object,
        Some(_) => Kind::Other,
    }
}

/// A string as the model's id / name.
pub(super) fn id_val(s: Option<Cow<'_, str>>) -> Val {
    s.map_or(Val::Absent, |s| Val::Str(s.into_owned().into()))
}

fn part_block<'a, N: Node<'a>>(
    part: N,
    i: usize,
    j: usize,
    path: &str,
) -> Result<Block, WireError> {
    let p = obj(
        part,
        &format!("{path}.content[{j}]"),
        "a content part object",
    )?;
    let mut b = Block::src(i, j);
    b.set_ty(p.get("type").map_or(Val::Absent, val_of));
    if let Some(t) = p.get("text").filter(|t| t.is_str()) {
        b.text = t.text_info();
    }
    Ok(b)
}

fn call_block<'a, N: Node<'a>>(
    call: N,
    i: usize,
    idx: usize,
    path: &str,
) -> Result<Block, WireError> {
    let c = obj(call, path, "a tool call object")?;
    let id = opt_str(c, "id", path)?;
    let f = match c.get("function") {
        None => None,
        Some(f) if f.is_null() => None,
        Some(f) => Some(obj(f, &format!("{path}.function"), "an object")?),
    };
    let mut b = Block::src(i, idx);
    b.set_ty(Val::Str("toolCall".into()));
    b.id = id_val(id);
    if let Some(f) = f {
        b.name = id_val(opt_str(f, "name", &format!("{path}.function"))?);
        b.arguments = kind(f.get("arguments"));
    }
    // What the signature rules judge: Google's (or Vertex AI's) signature, or `null` for an
    // extension the writer cannot add one to without replacing something (a `google` object
    // without one, a value that is not an object): such a call counts as signed and is left as
    // written for Gemini. A `vertex` member without a signature leaves the call unsigned (the
    // stand-in goes beside it, in `google`). Any `extra_content`, `null` too, is an extension.
    if let Some(e) = c.get(EXTRA) {
        b.x_mut().extension = true;
        if !e.is_null() {
            let signer = SIGNERS.iter().find_map(|k| e.get(k).map(|s| (*k, s)));
            b.x_mut().thought_signature = match (e.is_obj(), signer) {
                (true, None) => Val::Absent,
                (true, Some((k, s))) => match s.get("thought_signature") {
                    Some(sig) => val_of(sig),
                    None if k == SIGNERS[0] => Val::Null,
                    None => Val::Absent,
                },
                (false, _) => Val::Null,
            };
        }
    }
    Ok(b)
}

/// A reasoning field's value as the text of its `thinking` block: a string as itself; OpenRouter's
/// `reasoning_details` array, when it has entries, as a non-blank text of one unit per entry (the
/// rules only ask whether there is reasoning; the entries are written back as they came). Any
/// other value is not reasoning the rules know, and stays as written.
fn reasoning_info<'a, N: Node<'a>>(v: N, key: &str) -> Option<crate::transcript::model::TextInfo> {
    match v.view() {
        View::Arr(a) if key == REASONING_DETAILS && a.item_count() > 0 => {
            Some(crate::transcript::model::TextInfo {
                len: crate::transcript::model::TextInfo::len_of(a.item_count()),
                blank: false,
                head: None,
                head_is_whole: false,
            })
        }
        _ => v.text_info(),
    }
}

/// The model of one message, and where its blocks live.
fn read_message<'a, N: Node<'a>>(v: N, i: usize) -> Result<(Msg, MsgLayout), WireError> {
    let path = format!("body.messages[{i}]");
    let m = obj(v, &path, "a message object")?;
    let role = role_of(m, &path)?;
    let role = role.as_ref();
    let mut msg = Msg::src(i);
    msg.set_role(Val::Str(
        if role == "tool" { "toolResult" } else { role }
            .to_string()
            .into(),
    ));
    if role == "tool" {
        if let Some(id) = opt_str(m, "tool_call_id", &path)? {
            msg.set_field(Rare::ToolCallId, Val::Str(id.into_owned().into()));
        }
        if let Some(View::Str(n)) = m.get("name").map(Node::view) {
            msg.set_field(Rare::ToolName, Val::Str(n.into_owned().into()));
        }
    }
    let calls: Vec<N> = match m.get(CALLS) {
        None => Vec::new(),
        Some(c) => match c.view() {
            View::Null => Vec::new(),
            View::Arr(a) => a.items().collect(),
            _ => {
                return Err(WireError::new(
                    format!("{path}.{CALLS}"),
                    "an array of tool calls",
                    Some(c),
                ))
            }
        },
    };
    // An assistant's content is always blocks, as in the model's own transcripts (a rule may
    // treat anything else as malformed).
    let as_blocks = role == "assistant" || !calls.is_empty();
    let mut layout = MsgLayout::default();
    let mut blocks = Vec::new();
    let content = m.get("content");
    let info = content.and_then(Node::text_info);
    match content.map(Node::view) {
        Some(View::Str(_)) if as_blocks => {
            let mut b = Block::src(i, 0);
            b.set_ty(Val::Str("text".into()));
            b.text = info;
            blocks.push(b);
            layout.str_block = true;
        }
        Some(View::Str(_)) => {
            msg.content = Content::Str {
                info: info.unwrap_or_default(),
                from: Some(ix(i)),
                prefix: Box::default(),
            };
        }
        Some(View::Arr(parts)) => {
            for (j, p) in parts.items().enumerate() {
                blocks.push(part_block(p, i, j, &path)?);
                layout.parts += 1;
            }
            msg.content = Content::Blocks(Vec::new());
        }
        None | Some(View::Null) if as_blocks => {}
        None => {}
        Some(View::Null) => msg.content = Content::Other(Val::Null),
        Some(_) => {
            return Err(WireError::new(
                format!("{path}.content"),
                "a string, an array of content parts or null",
                content,
            ))
        }
    }
    let base = blocks.len();
    for (k, c) in calls.iter().enumerate() {
        blocks.push(call_block(
            *c,
            i,
            base + k,
            &format!("{path}.{CALLS}[{k}]"),
        )?);
    }
    layout.calls = calls.len();
    if role == "assistant" {
        for (f, key) in REASONING_FIELDS.iter().enumerate() {
            let Some(v) = m.get(key) else {
                continue;
            };
            let Some(info) = reasoning_info(v, key) else {
                layout.void_fields |= 1 << f;
                continue;
            };
            let mut b = Block::src(i, blocks.len());
            b.set_ty(Val::Str("thinking".into()));
            b.x_mut().thinking = Some(info);
            blocks.push(b);
            layout.fields |= 1 << f;
        }
    }
    if as_blocks || matches!(msg.content, Content::Blocks(_)) {
        msg.content = Content::Blocks(blocks);
    }
    Ok((msg, layout))
}

/// The messages of `body` as the model, with their layout.
pub fn read<'a, N: Node<'a>>(body: N) -> Result<(Vec<Msg>, Layout, Vec<N>), WireError> {
    let list: Vec<N> = super::message_list(
        body,
        "messages",
        "an object (an OpenAI chat completions request)",
    )?;
    let mut msgs = Vec::with_capacity(list.len());
    let mut layout = Layout {
        key: "messages",
        call_list: CALLS,
        msgs: Vec::with_capacity(list.len()),
    };
    for (i, v) in list.iter().copied().enumerate() {
        let (m, l) = read_message(v, i)?;
        msgs.push(m);
        layout.msgs.push(l);
    }
    Ok((msgs, layout, list))
}

fn wire_role(v: &Value) -> Value {
    match v.as_str() {
        Some("toolResult") => json!("tool"),
        _ => v.clone(),
    }
}

/// Call `k` of input message `msg` with `sets`, and its Gemini signature as the rules left it:
/// the stand-in set (in a new `extra_content`, or in the one there as its `google` member), or
/// the signature removed with the `extra_content` that carried it.
fn call_item<'a, N: Node<'a>>(
    b: &Block,
    input: &[N],
    msg: usize,
    k: usize,
    mut sets: Vec<(&'static str, Value)>,
) -> Item {
    let patch = |del, sets, inner| Item::Patch {
        msg,
        list: CALLS,
        idx: k,
        del,
        sets,
        inner,
    };
    if let Some(sig) = super::new_value(&b.edits, "thoughtSignature") {
        let google = json!({ "thought_signature": sig });
        let [google_key, _] = SIGNERS;
        let call = input
            .get(msg)
            .and_then(|m| m.get(CALLS))
            .and_then(|c| c.items().nth(k));
        if call.and_then(|c| c.get(EXTRA)).is_some_and(Node::is_obj) {
            return patch(Vec::new(), sets, Some((EXTRA, vec![(google_key, google)])));
        }
        sets.push((EXTRA, json!({ google_key: google })));
        return patch(Vec::new(), sets, None);
    }
    if b.edits
        .dels()
        .any(|d| d == "thought_signature" || d == "thoughtSignature" || d == EXTRA)
    {
        return patch(vec![EXTRA], sets, None);
    }
    Item::Ref {
        msg,
        list: CALLS,
        idx: k,
        sets,
    }
}

/// The item a model block goes back to.
fn item_of<'a, N: Node<'a>>(b: &Block, layout: &Layout, input: &[N]) -> (bool, Item) {
    match &b.origin {
        &BlockOrigin::Src { msg, idx } => match layout.place(msg as usize, idx as usize) {
            Place::Call(k) => {
                let sets = super::new_value(&b.edits, "id")
                    .map(|v| vec![("id", v)])
                    .unwrap_or_default();
                (true, call_item(b, input, msg as usize, k, sets))
            }
            // Written by `content_ops` as the field it is, never as an item.
            Place::Field(_) => (false, Item::New(Value::Null)),
            Place::Str => (
                false,
                Item::TextOf {
                    msg: msg as usize,
                    prefix: String::new(),
                },
            ),
            Place::Part(k) => (
                false,
                Item::Ref {
                    msg: msg as usize,
                    list: "content",
                    idx: k,
                    sets: Vec::new(),
                },
            ),
        },
        BlockOrigin::FromStrContent { msg, prefix } => (
            false,
            Item::TextOf {
                msg: *msg as usize,
                prefix: prefix.to_string(),
            },
        ),
        BlockOrigin::New(v) => (b.is_tool_call(), Item::New((**v).clone())),
    }
}

/// Whether `items` are exactly input message `own`'s `list`, untouched and in order.
pub(super) fn same_list(items: &[Item], own: usize, list: &str, len: usize) -> bool {
    items.len() == len
        && items.iter().enumerate().all(|(k, it)| {
            matches!(it, Item::Ref { msg, list: l, idx, sets }
                if *msg == own && *l == list && *idx == k && sets.is_empty())
        })
}

/// The ops that rebuild `m`'s content and calls (`own`: its input message).
fn content_ops<'a, N: Node<'a>>(
    m: &Msg,
    own: Option<usize>,
    input: &[N],
    layout: &Layout,
    ops: &mut Vec<Op>,
) {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    // The reasoning fields that are still blocks, per field: the input messages they come from
    // (a merged turn holds another message's too) and, for `reasoning_details`, its entry count.
    let mut fields: [Vec<(usize, usize)>; REASONING_FIELDS.len()] = Default::default();
    match &m.content {
        Content::Blocks(blocks) => {
            for b in blocks {
                if let Some((msg, idx)) = b.src_at() {
                    if let Place::Field(k) = layout.place(msg, idx) {
                        if let Some(f) = REASONING_FIELDS.iter().position(|x| *x == k) {
                            fields[f].push((msg, b.thinking().map_or(0, |t| t.len as usize)));
                        }
                        continue;
                    }
                }
                let (is_call, item) = item_of(b, layout, input);
                if is_call {
                    calls.push(item)
                } else {
                    parts.push(item)
                }
            }
        }
        Content::Str {
            from: Some(k),
            prefix,
            ..
        } => parts.push(Item::TextOf {
            msg: *k as usize,
            prefix: prefix.to_string(),
        }),
        Content::Str { info, .. } => parts.push(Item::New(Value::String(
            info.head.as_deref().unwrap_or_default().to_string(),
        ))),
        Content::Other(_) => {}
    }
    let orig = own.and_then(|i| input.get(i).copied());
    let orig_content = orig.and_then(|o| o.get("content")).map(Node::view);
    let own_layout = own
        .and_then(|i| layout.msgs.get(i))
        .copied()
        .unwrap_or_default();
    let content_same = match (own, orig_content) {
        (Some(i), Some(View::Str(_))) => {
            parts.len() == 1
                && parts[0]
                    == Item::TextOf {
                        msg: i,
                        prefix: String::new(),
                    }
        }
        (Some(i), Some(View::Arr(a))) => same_list(&parts, i, "content", a.item_count()),
        (Some(_), None | Some(View::Null)) => parts.is_empty(),
        _ => false,
    };
    if !content_same {
        if parts.is_empty() {
            let empty = if m.is_assistant() && !calls.is_empty() {
                Value::Null
            } else {
                json!("")
            };
            ops.push(Op::Set("content", empty));
        } else if let [Item::New(Value::String(s))] = parts.as_slice() {
            ops.push(Op::Set("content", Value::String(s.clone())));
        } else if m.is_tool_result() && parts.iter().all(is_new_text) {
            // A result made by a rule: its text as the string content every server takes.
            let text: Vec<&str> = parts.iter().filter_map(new_text).collect();
            ops.push(Op::Set("content", json!(text.join("\n"))));
        } else {
            ops.push(Op::List("content", parts));
        }
    }
    for (f, key) in REASONING_FIELDS.iter().enumerate() {
        reasoning_op(key, &fields[f], own, own_layout.fields & (1 << f) != 0, ops);
    }
    let had_calls = orig.is_some_and(|o| o.get(CALLS).is_some());
    let calls_same = own.is_some_and(|i| same_list(&calls, i, CALLS, own_layout.calls));
    if !calls_same {
        if !calls.is_empty() {
            ops.push(Op::List(CALLS, calls));
        } else if had_calls {
            ops.push(Op::Del(CALLS));
        }
    }
}

/// The op that writes reasoning field `key` of a message whose surviving blocks of that field
/// came from `from` (input message, entry count) and whose own input had it (`had`): none when
/// it is its own and kept, a delete when it was dropped, and for a merged turn the reasoning of
/// every message merged, in order (strings joined by a line break, `reasoning_details` entries
/// one after the other).
fn reasoning_op(
    key: &'static str,
    from: &[(usize, usize)],
    own: Option<usize>,
    had: bool,
    ops: &mut Vec<Op>,
) {
    if from.iter().all(|(m, _)| Some(*m) == own) {
        if had && from.is_empty() {
            ops.push(Op::Del(key));
        }
        return;
    }
    if key == REASONING_DETAILS {
        let items = from
            .iter()
            .flat_map(|&(msg, n)| {
                (0..n).map(move |idx| Item::Ref {
                    msg,
                    list: REASONING_DETAILS,
                    idx,
                    sets: Vec::new(),
                })
            })
            .collect();
        ops.push(Op::List(key, items));
    } else {
        ops.push(Op::Join(key, from.iter().map(|(m, _)| *m).collect()));
    }
}

pub(super) fn new_text(item: &Item) -> Option<&str> {
    match item {
        Item::New(v) if v.get("type").and_then(Value::as_str) == Some("text") => {
            v.get("text").and_then(Value::as_str)
        }
        _ => None,
    }
}

fn is_new_text(item: &Item) -> bool {
    new_text(item).is_some()
}

/// One output message as an edit of the body.
fn write_message<'a, N: Node<'a>>(m: &Msg, input: &[N], layout: &Layout) -> Out {
    let own = m.src_index();
    let mut ops = Vec::new();
    for (name, o) in m.edits.sets() {
        match (name, o.literal()) {
            ("role", Some(v)) => ops.push(Op::Set("role", wire_role(&v))),
            ("toolCallId", Some(v)) => ops.push(Op::Set("tool_call_id", v.into_owned())),
            ("content", Some(v))
                if m.origin != MsgOrigin::New && !m.content_dirty && v.is_string() =>
            {
                ops.push(Op::Set("content", v.into_owned()))
            }
            // Fields OpenAI chat has no place for (toolName, timestamp, isError, usage …); a
            // rebuilt content is written below.
            _ => {}
        }
    }
    if m.edits.dels().any(|d| d == "toolCallId") {
        ops.push(Op::Del("tool_call_id"));
    }
    if m.content_dirty || m.origin == MsgOrigin::New {
        content_ops(m, own, input, layout, &mut ops);
    }
    let empty_calls = own
        .and_then(|i| input.get(i))
        .and_then(|o| o.get(CALLS))
        .is_some_and(Node::is_empty_array);
    if empty_calls
        && !ops
            .iter()
            .any(|o| matches!(o, Op::Del(CALLS) | Op::List(CALLS, _)))
    {
        ops.push(Op::Del(CALLS));
    }
    match own {
        Some(i) if ops.is_empty() => Out::Keep(i),
        from => Out::Edit { from, ops },
    }
}

/// The plan that repairs `body` for `opts`' target.
pub fn plan<'a, N: Node<'a>>(body: N, opts: &WireOptions) -> Result<Decision, WireError> {
    let (mut msgs, layout, input) = read(body)?;
    let mut changes = super::run_pass(&mut msgs, opts, Protocol::OpenAiChat, |p| {
        layout.wire_path(p)
    });
    let mut out: Vec<Out> = msgs
        .iter()
        .map(|m| write_message(m, &input, &layout))
        .collect();
    if mistral_reasoning::mistral_target(opts.provider.as_deref(), opts.model_id.as_deref()) {
        mistral_reasoning::drop_void_fields(&mut out, &layout, opts.report, &mut changes);
    }
    if opts.report {
        for o in &out {
            let Out::Edit { from: Some(i), ops } = o else {
                continue;
            };
            let was_empty = input
                .get(*i)
                .and_then(|m| m.get(CALLS))
                .is_some_and(Node::is_empty_array);
            if was_empty && ops.contains(&Op::Del(CALLS)) {
                changes.push(Change {
                    rule: "emptyToolCalls",
                    path: format!("messages[{i}].{CALLS}"),
                    detail: format!("removed an empty {CALLS} array (providers reject it)"),
                });
            }
        }
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

#[cfg(test)]
mod tests {
    use super::super::{edit, plan_json, sanitize_json, Protocol};
    use super::*;

    fn target(provider: &str) -> WireOptions {
        WireOptions {
            provider: Some(provider.into()),
            report: true,
            ..WireOptions::default()
        }
    }

    fn call(id: &str, name: &str) -> Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}})
    }

    #[test]
    fn a_clean_body_gives_no_plan() {
        let body = json!({"model": "m", "tools": [{"type": "function"}], "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "看图"}, {"type": "image_url", "image_url": {"url": "https://example.com/看图.png"}}]},
            {"role": "assistant", "content": null, "tool_calls": [call("c1", "f")]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "done"},
        ]});
        let d = plan_json(&body, Protocol::OpenAiChat, &target("vllm")).unwrap();
        assert!(d.plan.is_none());
        assert!(d.changes.is_empty());
    }

    /// Thinking parts a converting gateway left in chat history (vLLM renders them, see
    /// vllm-project/vllm#41822): for an OpenAI-compatible chat target the transcript pass's
    /// `dropReasoningFromHistory` decides, so earlier turns lose them and the current tool turn
    /// keeps its own; a model that replays its reasoning (Kimi K2.6) keeps every one.
    #[test]
    fn historical_thinking_parts_go_for_chat_targets_that_drop_reasoning() {
        let body = json!({"messages": [
            {"role": "user", "content": "北京天气？"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "查天气"}, {"type": "text", "text": "晴。"}]},
            {"role": "user", "content": "上海呢？"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "再查"}], "tool_calls": [call("c1", "weather")]},
            {"role": "tool", "tool_call_id": "c1", "content": "雨"},
        ]});
        let qwen = WireOptions {
            model_id: Some("qwen3:8b".into()),
            ..target("vllm")
        };
        let (out, changes) = sanitize_json(&body, Protocol::OpenAiChat, &qwen).unwrap();
        assert_eq!(
            out["messages"][1]["content"],
            json!([{"type": "text", "text": "晴。"}])
        );
        assert_eq!(out["messages"][3], body["messages"][3]);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].path, "messages[1].content[0]");
        let kimi = WireOptions {
            model_id: Some("kimi-k2.6".into()),
            ..target("vllm")
        };
        let (out, _) = sanitize_json(&body, Protocol::OpenAiChat, &kimi).unwrap();
        assert_eq!(out, body);
    }

    #[test]
    fn consecutive_assistants_merge_with_the_calls_of_both_and_empty_call_lists_go() {
        let body = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "b"},
            {"role": "assistant", "content": null, "tool_calls": [call("c2", "g")], "x": 1},
            {"role": "tool", "tool_call_id": "c2", "content": "r2"},
            {"role": "assistant", "content": "x", "tool_calls": []},
        ]});
        let d = plan_json(&body, Protocol::OpenAiChat, &target("vllm")).unwrap();
        let plan = d.plan.as_ref().unwrap();
        let out = plan.messages.as_ref().unwrap();
        assert_eq!(out[0], Out::Keep(0));
        assert_eq!(
            out[1],
            Out::Edit {
                from: Some(1),
                ops: vec![Op::List(
                    CALLS,
                    vec![Item::Ref {
                        msg: 2,
                        list: CALLS,
                        idx: 0,
                        sets: vec![]
                    }]
                )]
            }
        );
        assert_eq!(out[2], Out::Keep(3));
        assert_eq!(
            out[3],
            Out::Edit {
                from: Some(4),
                ops: vec![Op::Del(CALLS)]
            }
        );
        let fixed = edit::apply(&body, plan);
        assert_eq!(
            fixed["messages"][1],
            json!({"role": "assistant", "content": "b", "tool_calls": [call("c2", "g")]})
        );
        let rules: Vec<(&str, &str)> = d
            .changes
            .iter()
            .map(|c| (c.rule, c.path.as_str()))
            .collect();
        assert_eq!(
            rules,
            [
                ("validateGeminiTurns", "messages[2]"),
                ("emptyToolCalls", "messages[4].tool_calls")
            ]
        );
        let (again, changes) =
            sanitize_json(&fixed, Protocol::OpenAiChat, &target("vllm")).unwrap();
        assert_eq!(again, fixed, "a repaired body needs nothing more");
        assert!(changes.is_empty());
    }

    #[test]
    fn consecutive_user_turns_with_parts_keep_the_parts_objects() {
        let image = json!({"type": "image_url", "image_url": {"url": "https://x/y.png"}});
        let body = json!({"messages": [
            {"role": "user", "content": "第一"},
            {"role": "user", "content": [image]},
        ]});
        let d = plan_json(&body, Protocol::OpenAiChat, &target("mistral")).unwrap();
        let out = d.plan.unwrap().messages.unwrap();
        assert_eq!(
            out,
            [Out::Edit {
                from: Some(1),
                ops: vec![Op::List(
                    "content",
                    vec![
                        Item::TextOf {
                            msg: 0,
                            prefix: String::new()
                        },
                        Item::Ref {
                            msg: 1,
                            list: "content",
                            idx: 0,
                            sets: vec![]
                        }
                    ]
                )]
            }]
        );
    }

    /// A body of broken turns (calls answered late, after a user turn, twice, not at all; ids for
    /// Mistral; runs of user turns), grown to `n` bytes: the repair takes linear time.
    #[test]
    fn the_repair_grows_linearly_with_the_body() {
        let make = |n: usize| {
            let mut msgs = Vec::new();
            let mut k = 0;
            while msgs.len() * 60 < n {
                let (a, b) = (format!("call_{k}_a"), format!("call_{k}_b"));
                msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [call(&a, "f"), call(&b, "g")]}));
                msgs.push(json!({"role": "user", "content": "还在吗"}));
                msgs.push(json!({"role": "tool", "tool_call_id": b, "content": "r"}));
                msgs.push(json!({"role": "tool", "tool_call_id": b, "content": "r"}));
                msgs.push(json!({"role": "tool", "tool_call_id": "gone", "content": "r"}));
                msgs.push(json!({"role": "user", "content": "next"}));
                k += 1;
            }
            json!({"model": "m", "messages": msgs}).to_string()
        };
        crate::response::linearity::assert_grows_linearly(
            "openai-chat wire repair",
            &make,
            &|text| {
                let body: Value = serde_json::from_str(text).unwrap_or_default();
                let out = sanitize_json(&body, Protocol::OpenAiChat, &target("mistral"));
                assert!(out.is_ok());
            },
        );
    }
}
