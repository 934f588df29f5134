//! `sanitizeSessionHistory` as OpenClaw 2026.9.6 runs it (`replay-history.ts`), selected by
//! `openclawVersion: '2026.9.6'`.
//!
//! 2026.9.6 reordered the pass and rewrote several rules (the list, with what this module does
//! and does not reproduce yet, is `DIFFERENCES` in `__test__/openclaw96-history.spec.mjs`, checked
//! against both releases). This module holds the pass in the new order and the rules that exist
//! only in the new release, one per file; where 2026.9.6 kept a rule as it was, the pass calls the
//! 2026.3.23 rule in [`super::rules`], so no rule is written twice.
//!
//! The new order: the image pass no longer rewrites tool-call ids; reasoning is dropped from
//! OpenAI-compatible chat history; `dropThinkingBlocks` keeps the latest turn; OpenAI Responses
//! pairs its results on its own branch and no longer drops reasoning that has no following block
//! (only reasoning from before a model switch); tool-call ids are rewritten after pairing.

pub mod compaction_replay;
pub mod dangling_calls;
pub mod drop_reasoning;
pub mod drop_thinking;
pub mod images;
pub mod incremental;
pub mod inter_session;
pub mod non_objects;
pub mod owned_thinking;
pub mod pairing;
pub mod policy;
pub mod replay_content;
pub mod responses_ids;
pub mod signatures;
pub mod silent_reply;
pub mod stale_reasoning;

use super::context::Ctx;
use super::model::{Block, Msg};
use super::pipeline::{
    image_pass_options, model_snapshot_entry, HistoryOutput, HistoryParams, GOOGLE_BOOTSTRAP_MARKER,
};
use super::rules;
use super::tool_call_id::IdAllocator;
use crate::openclaw::OpenClawVersion;
use compaction_replay::with_checkpoints;
use serde_json::{json, Value};

/// The Responses APIs of 2026.9.6 (`openai-codex-responses` became `openai-chatgpt-responses`,
/// and Azure joined).
const RESPONSES_APIS: &[&str] = &[
    "openai-responses",
    "openai-chatgpt-responses",
    "azure-openai-responses",
];

/// What replaces an assistant turn's content when dropping its reasoning leaves nothing.
pub const REASONING_OMITTED: &str = "[assistant reasoning omitted]";

/// The policy fields 2026.9.6 added (a caller's `policy` object may carry them; OpenClaw's
/// provider plugins return them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyFields {
    /// `dropReasoningFromHistory`: OpenAI-compatible chat drops historical reasoning.
    pub drop_reasoning_from_history: bool,
    /// `preserveNativeAnthropicToolUseIds`: `toolu_…` ids kept on their first use.
    pub preserve_native_anthropic_tool_use_ids: bool,
    /// `appendOnlyRuntimeContext`: reported by the resolver; read by OpenClaw's attempt (user
    /// turns are not merged on the Messages API), not by this pass.
    pub append_only_runtime_context: bool,
}

impl PolicyFields {
    /// The fields of a caller's policy object (absent ones false).
    pub fn from_json(policy: Option<&Value>) -> PolicyFields {
        let flag = |k: &str| {
            policy
                .and_then(|p| p.get(k))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        PolicyFields {
            drop_reasoning_from_history: flag("dropReasoningFromHistory"),
            preserve_native_anthropic_tool_use_ids: flag("preserveNativeAnthropicToolUseIds"),
            append_only_runtime_context: flag("appendOnlyRuntimeContext"),
        }
    }
}

/// A `thinking` or `redacted_thinking` block (2026.9.6's `isThinkingBlock`).
pub fn is_reasoning(b: &Block) -> bool {
    b.is_object && matches!(b.ty(), Some("thinking" | "redacted_thinking"))
}

/// Removes `m`'s reasoning blocks, leaving [`REASONING_OMITTED`] when nothing else is left.
pub fn omit_reasoning(m: &mut Msg, ctx: &mut Ctx, rule: &'static str) -> bool {
    rules::drop_thinking::drop_blocks(
        m,
        ctx,
        rule,
        is_reasoning,
        "dropped a reasoning block",
        REASONING_OMITTED,
    )
}

/// The whole pass in 2026.9.6's order.
pub fn sanitize_session_history(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
) -> HistoryOutput {
    run(msgs, ctx, p, None)
}

/// The pass, with `track` recording what the incremental pass needs (and, when it continues a
/// remembered prefix, `msgs` being the suffix after it: see [`incremental`]).
pub(crate) fn run(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    p: &HistoryParams,
    mut track: Option<&mut incremental::Tracker>,
) -> HistoryOutput {
    let policy = p.resolved_policy();
    let api = p.model_api.as_deref().unwrap_or("");
    let responses = RESPONSES_APIS.contains(&api);
    let mut out = HistoryOutput::default();

    inter_session::annotate_inter_session_user_turns(msgs, ctx);
    // The rules that rebuild an assistant's content keep its compaction checkpoint true.
    with_checkpoints(msgs, |msgs| {
        rules::canonicalize::canonicalize_assistant_content(msgs, ctx);
        replay_content::normalize_assistant_replay_content(msgs, ctx);
    });
    let limits = crate::image::ImageLimits {
        release: OpenClawVersion::V2026_9_6,
        ..p.limits
    };
    let opts = image_pass_options(&policy, limits);
    with_checkpoints(msgs, |msgs| {
        images::sanitize_session_messages_images(msgs, ctx, &opts)
    });
    if let Some(t) = track.as_deref_mut() {
        t.after_images(msgs);
    }
    // A continued run inside a tool loop: the current tool turn's look-back goes on into the prefix.
    let in_loop = track.as_deref().is_some_and(incremental::Tracker::in_loop);
    if signatures::applies(p.provider.as_deref(), policy.preserve_signatures) {
        let earlier = track.as_deref().and_then(|t| t.signed_before());
        signatures::strip_stale_signatures_after(msgs, ctx, earlier);
        signatures::strip_invalid_signatures_after(msgs, ctx, in_loop);
    }
    if p.policy_2026_9.drop_reasoning_from_history {
        if let Some(t) = track.as_deref_mut() {
            t.before_drop_reasoning(msgs);
        }
        drop_reasoning::drop_reasoning_from_history_after(msgs, ctx, in_loop);
    }
    if policy.drop_thinking_blocks {
        drop_thinking::drop_thinking_blocks(msgs, ctx);
    }
    non_objects::drop_non_objects(msgs, ctx);
    let owned_thinking =
        owned_thinking::applies(p.model_api.as_deref(), p.provider.as_deref(), &policy);
    with_checkpoints(msgs, |msgs| {
        rules::tool_call_inputs::repair_tool_call_inputs_as(
            msgs,
            ctx,
            p.allowed_tool_names.as_deref(),
            OpenClawVersion::V2026_9_6,
            owned_thinking,
        )
    });
    if let Some(t) = track.as_deref_mut() {
        let drops_failed = policy.repair_tool_use_result_pairing
            && !p.pairing.preserve_errored_assistant_results
            && !owned_thinking;
        t.before_pairing(msgs, drops_failed);
    }
    if policy.repair_tool_use_result_pairing {
        let text = if responses {
            pairing::RESPONSES_MISSING_TEXT
        } else {
            &p.pairing.synthetic_text
        };
        let keep_errored = p.pairing.preserve_errored_assistant_results;
        pairing::repair_tool_use_result_pairing(msgs, ctx, text, keep_errored);
    }
    if responses {
        let before = stale_reasoning::latest_switch(p);
        if let Some(t) = track.as_deref_mut() {
            t.switch(before);
        }
        with_checkpoints(msgs, |msgs| {
            stale_reasoning::drop_stale_openai_reasoning(msgs, ctx, before)
        });
        with_checkpoints(msgs, |msgs| {
            responses_ids::normalize_responses_tool_call_ids(msgs, ctx)
        });
        with_checkpoints(msgs, |msgs| {
            rules::openai_function_call_pairs::downgrade_openai_function_call_reasoning_pairs(
                msgs, ctx,
            )
        });
    } else if let (true, Some(mode)) = (policy.sanitize_tool_call_ids, policy.tool_call_id_mode) {
        let mut ids = IdAllocator::with_capacity(mode, msgs.len() / 2).keeping_kimi_ids();
        if p.policy_2026_9.preserve_native_anthropic_tool_use_ids {
            ids = ids.keeping_anthropic_ids();
        }
        let kept = if owned_thinking {
            kept_id_turns(msgs, ctx, &mut ids, p.allowed_tool_names.as_deref())
        } else {
            Vec::new()
        };
        if track.is_some() {
            // About two entries a call and two a result (the raw id and the new one): sized
            // once, not regrown from empty on every turn.
            ctx.id_trace = Some(Vec::with_capacity(msgs.len() * 3 / 2));
        }
        rules::tool_call_ids::sanitize_tool_call_ids_aliased(msgs, ctx, ids, &kept);
        if let Some(t) = track.as_deref_mut() {
            t.take_id_trace(ctx);
        }
    }
    rules::tool_result_details::strip_tool_result_details(msgs, ctx);
    let earlier = track.as_deref().and_then(|t| t.usage_before());
    rules::usage_snapshots::normalize_usage_snapshots_2026_9_after(msgs, ctx, earlier);
    // Google's plugin hook, by provider (and clawrouter's on the Gemini API): a history opening
    // with the assistant gets a user turn first, recorded once per session (before the model
    // snapshot, as 2026.9.6 writes them); then the policy's own flag, for every API (a no-op
    // after the hook).
    let hook = policy::google_replay_hook(p.provider.as_deref(), p.model_api.as_deref());
    let prepended = (hook || policy.apply_google_turn_ordering)
        && match track {
            Some(t) => t.google_turn_ordering(msgs, ctx),
            None => rules::google_ordering::sanitize_google_turn_ordering(msgs, ctx),
        };
    if hook && prepended {
        let marked = p
            .session_entries
            .as_ref()
            .is_none_or(|s| s.iter().any(|(t, _)| t == GOOGLE_BOOTSTRAP_MARKER));
        if !marked {
            out.entries.push((
                GOOGLE_BOOTSTRAP_MARKER.to_string(),
                json!({"timestamp": super::model::num_json(p.now)}),
            ));
        }
    }
    out.entries.extend(model_snapshot_entry(p));
    out
}

/// The signed-thinking turns whose call ids the id rewrite keeps (see [`owned_thinking`]), their
/// ids reserved in `ids`; a completed call is allowed whatever the allowlist says.
fn kept_id_turns(
    msgs: &[Msg],
    ctx: &mut Ctx,
    ids: &mut IdAllocator,
    allowed_tool_names: Option<&[String]>,
) -> Vec<usize> {
    let allow = rules::tool_call_inputs::normalize_allowlist(allowed_tool_names);
    let completed: foldhash::HashSet<(usize, usize)> = match allow {
        Some(_) => pairing::completed_calls(msgs, ctx).into_iter().collect(),
        None => Default::default(),
    };
    owned_thinking::kept_id_turns(msgs, ids, &|i, j, b| {
        let allow = allow.as_ref().filter(|_| !completed.contains(&(i, j)));
        rules::tool_call_inputs::call_allowed(b, allow, OpenClawVersion::V2026_9_6)
    })
}
