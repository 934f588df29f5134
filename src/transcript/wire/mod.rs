//! Transcript hygiene on the wire formats gateways hold: the request body as the client sent it.
//!
//! A gateway forwards an OpenAI chat / Responses / Anthropic Messages / Gemini body to a provider
//! that rejects what another provider produced (ids in the wrong alphabet, a `tool` message without
//! its call, two user turns in a row, `tools: []`). The rules that repair those already exist,
//! written once against the core's message model ([`crate::transcript::model::Msg`]); this module
//! only translates. Every protocol has two halves and nothing else:
//!
//! - a **reader**: the body's messages → the model (`Vec<Msg>`), plus a [`layout`] that remembers
//!   where each model block lives in the wire message (`content[j]`, `tool_calls[k]`, the string
//!   `content`). Roles map onto the model's `user` / `assistant` / `toolResult`; a tool call is a
//!   `toolCall` block (id, name, kind of its arguments); a tool result is a `toolResult` message
//!   with `toolCallId`; text and image parts are blocks of their own types; what no rule reads
//!   (system prompts, unknown parts, unknown fields) is carried by reference only.
//! - a **writer**: the model after the rules → a protocol-neutral [`edit::BodyPlan`]: per output
//!   message "input message i as it is", or a shallow copy with fields set or deleted and arrays
//!   rebuilt from references to input items (`messages[k].tool_calls[j]`, with per-item sets such
//!   as a new `id`), or a new message. Model fields the protocol has no place for (`timestamp`,
//!   `isError`, `toolName` on OpenAI chat) are not written.
//!
//! The plan is applied by one applier per host, none of which knows a protocol: [`edit::apply`]
//! on a `serde_json::Value` (this crate's public API and the CLI), `js/request.js` on the
//! caller's objects with spreads (untouched messages and items come back as the same objects),
//! and [`splice::apply`] on the body's bytes (untouched ranges copied as they came).
//!
//! The readers and writers see the body through [`node::Node`], a read-only view implemented for
//! `serde_json::Value`, for [`tape::Tape`] (the body's bytes, read once without building a
//! value) and for [`skeleton::Skeleton`] (what `js/request.js` sends of a parsed body: only the
//! fields the readers read), so each protocol is written once for every entry point.
//!
//! Which rules run is the transcript policy of the target (provider / modelApi / modelId, see
//! [`crate::transcript::policy`]), as for `sanitizeSessionHistory`: see [`pass`].

pub mod anthropic;
pub mod chat_signatures;
pub mod edit;
pub mod encrypted_reasoning;
pub mod gemini;
pub mod gemini_signatures;
pub mod images;
pub mod layout;
pub mod mistral_reasoning;
pub mod node;
pub mod openai_chat;
pub mod pass;
pub mod responses;
pub mod skeleton;
pub mod splice;
pub mod split;
pub mod tape;

use crate::transcript::context::{Change, Ctx};
use node::{Node, View};
use serde_json::Value;

pub use edit::BodyPlan;

/// A wire protocol: the shape of a request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// OpenAI chat completions: `{model, messages: [{role, content, tool_calls?, tool_call_id?}], tools?}`.
    OpenAiChat,
    /// Anthropic Messages: `{model, system?, messages: [{role, content: string | blocks}], tools?}`.
    Anthropic,
    /// OpenAI Responses: `{model, input: string | items, tools?}`.
    OpenAiResponses,
    /// Gemini `generateContent`: `{contents: [{role, parts}], systemInstruction?, tools?}`.
    Gemini,
}

impl Protocol {
    /// The protocol for its option name (`"openai-chat"`); `None` for one not supported yet.
    pub fn from_name(name: &str) -> Option<Protocol> {
        match name {
            "openai-chat" => Some(Protocol::OpenAiChat),
            "anthropic" => Some(Protocol::Anthropic),
            "openai-responses" => Some(Protocol::OpenAiResponses),
            "gemini" => Some(Protocol::Gemini),
            _ => None,
        }
    }

    /// The body's message array (`messages`, `input`, `contents`).
    pub fn key(self) -> &'static str {
        match self {
            Protocol::OpenAiChat | Protocol::Anthropic => "messages",
            Protocol::OpenAiResponses => "input",
            Protocol::Gemini => "contents",
        }
    }

    /// The `modelApi` the policy assumes when the caller names none.
    pub fn default_model_api(self) -> &'static str {
        match self {
            Protocol::OpenAiChat => "openai-completions",
            Protocol::Anthropic => "anthropic-messages",
            Protocol::OpenAiResponses => "openai-responses",
            Protocol::Gemini => "google-generative-ai",
        }
    }
}

/// The names `protocol` accepts today.
pub const PROTOCOL_NAMES: &[&str] = &["openai-chat", "anthropic", "openai-responses", "gemini"];

/// The target of a request and the options of the pass.
#[derive(Clone, Debug, Default)]
pub struct WireOptions {
    pub provider: Option<String>,
    /// Defaults to the protocol's own API (`openai-completions` for OpenAI chat).
    pub model_api: Option<String>,
    pub model_id: Option<String>,
    /// Overrides of the resolved policy.
    pub policy: Option<crate::transcript::policy::TranscriptPolicy>,
    /// The 2026.9.6 fields of the caller's policy override (`dropReasoningFromHistory`).
    pub policy_fields: crate::transcript::v2026_9::PolicyFields,
    /// What the reasoning rules' policy reads of the target model (the `model` option, as
    /// `sanitizeSessionHistory` takes it): `reasoning: true` keeps OpenAI-compatible chat
    /// reasoning, `compat.supportsReasoningEffort: false` drops Claude thinking,
    /// `params.canonicalModelId` names the Claude model.
    pub model: crate::transcript::v2026_9::policy::ModelFields,
    pub pairing: crate::transcript::rules::pairing::PairingOptions,
    /// Collect the changes made (`report: true`).
    pub report: bool,
    /// The image limits the caller gave (the rest are the target's, see [`images::limits`]).
    pub images: images::ImageOptions,
}

impl WireOptions {
    /// The options as JS passes them (`{provider, modelApi, modelId, model, policy, report,
    /// syntheticToolResultText, preserveErroredAssistantResults}`, already type-checked there);
    /// the policy override applies to the policy resolved for `protocol`'s target.
    pub fn from_json(cfg: &Value, protocol: Protocol) -> WireOptions {
        let s = |k: &str| cfg.get(k).and_then(Value::as_str).map(str::to_string);
        let mut o = WireOptions {
            provider: s("provider"),
            model_api: s("modelApi"),
            model_id: s("modelId"),
            policy: None,
            policy_fields: Default::default(),
            model: crate::transcript::ops::model_fields(cfg.get("model")),
            pairing: crate::transcript::ops::pairing_options(cfg),
            report: cfg.get("report").and_then(Value::as_bool).unwrap_or(false),
            images: images::ImageOptions::from_json(cfg),
        };
        if let Some(p) = cfg.get("policy").filter(|p| p.is_object()) {
            let base = pass::policy(&o, protocol);
            o.policy = Some(crate::transcript::policy_json::from_json(p, base));
            o.policy_fields = crate::transcript::v2026_9::PolicyFields::from_json(Some(p));
        }
        o
    }
}

/// Bad input: where (`body.messages[3].tool_calls`, and the byte for a body read from bytes),
/// what was expected and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub path: String,
    pub expected: String,
    pub got: String,
    /// The byte offset in the body, when it was read from bytes and the error is its syntax.
    pub at: Option<usize>,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.path, self.expected, self.got
        )?;
        match self.at {
            Some(at) => write!(f, " (byte {at})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for WireError {}

impl WireError {
    pub fn new<'a, N: Node<'a>>(
        path: impl Into<String>,
        expected: impl Into<String>,
        v: Option<N>,
    ) -> Self {
        WireError {
            path: path.into(),
            expected: expected.into(),
            got: node::describe(v).to_string(),
            at: None,
        }
    }

    /// An error in the body's bytes at offset `at`.
    pub fn at(
        path: impl Into<String>,
        expected: impl Into<String>,
        got: impl Into<String>,
        at: usize,
    ) -> Self {
        WireError {
            path: path.into(),
            expected: expected.into(),
            got: got.into(),
            at: Some(at),
        }
    }
}

/// What [`plan_json`] decided: the edits (`None`: the body is fine as it is) and, under
/// `report`, the changes in wire paths.
#[derive(Debug, Default)]
pub struct Decision {
    pub plan: Option<BodyPlan>,
    pub changes: Vec<Change>,
}

/// The items of the body's message array `key` (`messages`, `contents`); `what` names the
/// protocol's request.
fn message_list<'a, N: Node<'a>>(body: N, key: &str, what: &str) -> Result<Vec<N>, WireError> {
    if !body.is_obj() {
        return Err(WireError::new("body", what, Some(body)));
    }
    match body.get(key) {
        Some(a) if matches!(a.view(), View::Arr(_)) => Ok(a.items().collect()),
        other => Err(WireError::new(
            format!("body.{key}"),
            "an array of messages",
            other,
        )),
    }
}

/// Runs the wire rules on `msgs` for `opts`' target; the changes they made, their model paths
/// said in the body's terms by `wire_path`.
fn run_pass(
    msgs: &mut Vec<crate::transcript::model::Msg>,
    opts: &WireOptions,
    protocol: Protocol,
    wire_path: impl Fn(&str) -> String,
) -> Vec<Change> {
    let mut ctx = Ctx::new(&crate::transcript::context::NoSource, opts.report);
    pass::run(msgs, &mut ctx, opts, protocol);
    wire_changes(&mut ctx, wire_path)
}

/// The changes the rules recorded, their model paths said in the body's terms by `wire_path`.
fn wire_changes(ctx: &mut Ctx, wire_path: impl Fn(&str) -> String) -> Vec<Change> {
    ctx.changes
        .take()
        .unwrap_or_default()
        .into_iter()
        .map(|c| Change {
            path: wire_path(&c.path),
            ..c
        })
        .collect()
}

/// The literal a rule set field `field` to, if it did (`id` of a renamed call, `toolCallId`).
fn new_value(edits: &crate::transcript::model::Edits, field: &str) -> Option<Value> {
    edits
        .sets()
        .find(|(n, _)| *n == field)
        .and_then(|(_, o)| o.literal())
        .map(std::borrow::Cow::into_owned)
}

/// A change path of the model (`messages[k]`, `messages[k].content[b]`) as `(k, b)`.
pub fn parse_model_path(path: &str) -> Option<(usize, Option<usize>)> {
    let s = path.strip_prefix("messages[")?;
    let (k, rest) = s.split_once(']')?;
    let b = match rest.strip_prefix(".content[") {
        Some(r) => Some(r.strip_suffix(']')?.parse().ok()?),
        None if rest.is_empty() => None,
        None => return None,
    };
    Some((k.parse().ok()?, b))
}

/// The top-level fields every protocol's repair removes: `tools` when it is an empty array
/// (OpenAI: "Invalid 'tools': empty array"; DeepSeek, Qwen: "[] is too short - 'tools'").
fn empty_tools<'a, N: Node<'a>>(
    body: N,
    report: bool,
    changes: &mut Vec<Change>,
) -> Vec<&'static str> {
    if body.get("tools").is_some_and(Node::is_empty_array) {
        if report {
            changes.push(Change {
                rule: "emptyTools",
                path: "tools".into(),
                detail: "removed an empty tools array (providers reject `tools: []`)".into(),
            });
        }
        return vec!["tools"];
    }
    Vec::new()
}

/// The decision for a body whose message list `key` (of `input_len` items) becomes `out`:
/// no plan when nothing changes, the list left out of the plan when only top-level fields go.
fn decide<'a, N: Node<'a>>(
    body: N,
    key: &'static str,
    out: Option<Vec<edit::Out>>,
    input_len: usize,
    report: bool,
    mut changes: Vec<Change>,
) -> Decision {
    let del = empty_tools(body, report, &mut changes);
    let out = out.filter(|o| {
        o.len() != input_len || o.iter().enumerate().any(|(i, x)| *x != edit::Out::Keep(i))
    });
    let plan = (out.is_some() || !del.is_empty()).then(|| BodyPlan {
        key,
        messages: out,
        del,
        leaves: Vec::new(),
    });
    Decision { plan, changes }
}

/// The repairs `body` needs, as a plan over its own structure; an image's whole payload, when
/// its head does not settle it, is the node's own string.
pub fn plan_json<'a, N: Node<'a>>(
    body: N,
    protocol: Protocol,
    opts: &WireOptions,
) -> Result<Decision, WireError> {
    let own = |n: N, _: &[edit::Seg], f: &mut dyn FnMut(&[u8])| match n.str() {
        Some(s) => {
            f(s.as_bytes());
            true
        }
        None => false,
    };
    plan_with(body, protocol, opts, &own)
}

/// [`plan_json`] with an image's whole payload read by `fetch` (a skeleton carries only the
/// payload's head).
pub fn plan_with<'a, N: Node<'a>>(
    body: N,
    protocol: Protocol,
    opts: &WireOptions,
    fetch: images::Fetch<N>,
) -> Result<Decision, WireError> {
    let mut d = match protocol {
        Protocol::OpenAiChat => openai_chat::plan(body, opts),
        Protocol::Anthropic => anthropic::plan(body, opts),
        Protocol::OpenAiResponses => responses::plan(body, opts),
        Protocol::Gemini => gemini::plan(body, opts),
    }?;
    images::add(body, protocol, opts, fetch, &mut d);
    Ok(d)
}

/// The body with its repairs applied, and the changes made (empty unless `opts.report`).
///
/// ```
/// use serde_json::json;
/// use transcript_hygiene::transcript::wire::{sanitize_json, Protocol, WireOptions};
///
/// // A Mistral target: ids must be nine `[a-zA-Z0-9]`; the second call was never answered.
/// let body = json!({"model": "mistral-large-latest", "tools": [], "messages": [
///     {"role": "user", "content": "天气如何？"},
///     {"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_0fypS1hVX", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
///         {"id": "call_2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]},
///     {"role": "tool", "tool_call_id": "call_0fypS1hVX", "content": "晴"}]});
/// let opts = WireOptions { provider: Some("mistral".into()), ..WireOptions::default() };
/// let (out, _) = sanitize_json(&body, Protocol::OpenAiChat, &opts).unwrap();
/// let calls = &out["messages"][1]["tool_calls"];
/// assert_eq!(calls[0]["id"], "call0fypS");
/// assert_eq!(out["messages"][2]["tool_call_id"], "call0fypS");
/// assert_eq!(out["messages"][3]["role"], "tool");
/// assert_eq!(out["messages"][3]["tool_call_id"], calls[1]["id"]);
/// assert!(out.get("tools").is_none());
/// ```
pub fn sanitize_json(
    body: &Value,
    protocol: Protocol,
    opts: &WireOptions,
) -> Result<(Value, Vec<Change>), WireError> {
    let d = plan_json(body, protocol, opts)?;
    let out = match &d.plan {
        Some(p) => edit::apply(body, p),
        None => body.clone(),
    };
    Ok((out, d.changes))
}

/// The same repair on the body's bytes (UTF-8 JSON): `None` when the body needs nothing, else
/// the repaired body, every byte range the repair did not touch copied as it was. No
/// `serde_json::Value` is built for the body (see [`tape`]); bad JSON is an error naming the path
/// and byte.
///
/// ```
/// use transcript_hygiene::transcript::wire::{sanitize_bytes, Protocol, WireOptions};
///
/// let body = r#"{"model": "m",  "tools": [], "messages": [{"role": "user", "content": "你好"}]}"#;
/// let (out, _) = sanitize_bytes(body.as_bytes(), Protocol::OpenAiChat, &WireOptions::default()).unwrap();
/// let want = r#"{"model": "m",  "messages": [{"role": "user", "content": "你好"}]}"#;
/// assert_eq!(out.unwrap(), want.as_bytes());
///
/// let fine = r#"{"messages": [{"role": "user", "content": "你好"}]}"#;
/// assert!(sanitize_bytes(fine.as_bytes(), Protocol::OpenAiChat, &WireOptions::default()).unwrap().0.is_none());
/// assert!(sanitize_bytes(b"{\"messages\": [", Protocol::OpenAiChat, &WireOptions::default()).is_err());
/// ```
pub fn sanitize_bytes(
    body: &[u8],
    protocol: Protocol,
    opts: &WireOptions,
) -> Result<(Option<Vec<u8>>, Vec<Change>), WireError> {
    let tape = tape::Tape::parse(body)?;
    let d = plan_json(tape.root(), protocol, opts)?;
    let out = match d.plan.as_ref() {
        Some(p) => Some(splice::apply_all(&tape, p)?),
        None => None,
    };
    Ok((out, d.changes))
}

#[cfg(test)]
mod fixtures;
