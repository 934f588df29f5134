//! The first step of OpenClaw 2026.9.6's history pass (`normalizeAssistantReplayContent`), for
//! the parts decided by block types alone.
//!
//! 2026.9.6 stopped replaying what the model never needs to see again:
//! - media blocks in assistant turns (`attachment`, `attachment_error`, `audio`, `image`,
//!   `video`): they are what OpenClaw displayed, not what the model wrote, and providers reject
//!   images in assistant content; a turn holding nothing else is dropped;
//! - a turn cut by the length limit (`stopReason: "length"`) that holds only reasoning (and blank
//!   text): replaying it makes the model continue a thought it never finished.
//!
//! - OpenClaw's own transcript artifacts: an assistant written by `provider: "openclaw"` as
//!   `delivery-mirror` or `gateway-injected`, or carrying an `openclawDeliveryMirror` marker (what
//!   a channel was sent, recorded for the user, never said by the model);
//! - stream-error placeholders: an assistant whose content is nothing, blank text or
//!   `[assistant turn failed before producing content]`, when it errored or is a zero-usage stop;
//! - blank user text blocks, and a user turn left with nothing (kept as `""` when the message
//!   records persisted media: the media are what the user sent).
//!
//! - `NO_REPLY` text (see [`super::silent_reply`]) removed from assistant turns, and a turn left
//!   with nothing, or only reasoning, dropped. The codec sends an assistant text whole in
//!   2026.9.6 mode when it holds the token.
//!
//! - OpenClaw's own metadata echoed by the model (`stripInternalMetadataForDisplay`): runtime-context
//!   blocks and inbound metadata (the reply scrubbers [`runtime_context`] and [`inbound_meta`])
//!   are stripped from assistant text first; a text left blank goes, and a silent reply is
//!   recognised in what is left. The codec sends an assistant text whole in 2026.9.6 mode when it
//!   could change ([`WHOLE_TEXT_NEEDLES`], [`WHOLE_TEXT_LEADS`]).
//!
//! Known limits: persisted media count when `__openclaw.media` is a non-empty array (OpenClaw
//! also asks each entry to name a path, URL, type or kind), and stream-error text is recognised
//! in `text` blocks of up to 64 characters (OpenClaw also reads `input_text`/`output_text`);
//! metadata is stripped from `text` blocks (OpenClaw: any block with a string `text`).

use super::is_reasoning;
use crate::js_text::js_trim;
use crate::scrub::visible::{inbound_meta, runtime_context};
use crate::transcript::context::{block_path, msg_path, Ctx};
use crate::transcript::model::{extra, Block, Content, Msg, UsageView, Val};
use serde_json::Value;
use std::borrow::Cow;

/// What an assistant text must hold (ASCII case ignored) for this step to change it: the silent
/// token or a metadata scrubber's needle. The codec reads this list (with [`WHOLE_TEXT_LEADS`]).
pub fn whole_text_needles() -> Vec<&'static str> {
    let metadata = runtime_context::NEEDLES.exact.iter().chain(
        inbound_meta::NEEDLES
            .exact
            .iter()
            .filter(|n| !WHOLE_TEXT_LEADS.contains(n)),
    );
    std::iter::once(super::silent_reply::NEEDLE)
        .chain(metadata.copied())
        .collect()
}

/// What an assistant text may instead open with: inbound metadata's timestamp (`[Mon 2026-…]`),
/// which is stripped only at the very start.
pub const WHOLE_TEXT_LEADS: &[&str] = &["["];

/// `stripInternalMetadataForDisplay`: runtime context, then inbound metadata.
fn strip_internal_metadata(text: &str) -> Cow<'_, str> {
    match runtime_context::strip_internal_runtime_context(text) {
        Cow::Borrowed(t) => inbound_meta::strip_inbound_metadata(t),
        Cow::Owned(t) => Cow::Owned(inbound_meta::strip_inbound_metadata(&t).into_owned()),
    }
}

/// The placeholder OpenClaw writes for a turn whose stream failed before any content.
const STREAM_FAILED_TEXT: &str = "[assistant turn failed before producing content]";

/// The models OpenClaw records its own transcript-only assistants under (`provider: "openclaw"`).
const TRANSCRIPT_ONLY_MODELS: &[&str] = &["delivery-mirror", "gateway-injected"];

/// The `openclawDeliveryMirror.kind`s that mark a delivery mirror.
const DELIVERY_MIRROR_KINDS: &[&str] = &[
    "channel-final",
    "channel-final-suppressed",
    "message-tool-source-reply",
    "cron-direct-delivery-context",
];

/// An assistant OpenClaw wrote into the transcript itself (2026.9.6's
/// `isTranscriptOnlyOpenClawAssistantMessage`).
fn is_transcript_only(m: &Msg) -> bool {
    let own_model = m.extra(extra::PROVIDER).as_str() == Some("openclaw")
        && m.extra(extra::MODEL)
            .as_str()
            .is_some_and(|model| TRANSCRIPT_ONLY_MODELS.contains(&model));
    own_model
        || m.extra(extra::DELIVERY_MIRROR_KIND)
            .as_str()
            .is_some_and(|k| DELIVERY_MIRROR_KINDS.contains(&k))
}

/// Blank text or the stream-failure placeholder.
fn is_failure_text(info: &crate::transcript::model::TextInfo) -> bool {
    info.blank || info.whole().map(str::trim) == Some(STREAM_FAILED_TEXT)
}

/// 2026.9.6's `isStreamErrorFallbackContent`.
fn is_stream_error_content(m: &Msg) -> bool {
    match &m.content {
        Content::Other(v) => !v.is_present(),
        Content::Str { info, .. } => is_failure_text(info),
        Content::Blocks(blocks) => blocks
            .iter()
            .all(|b| b.is_object && b.is_text() && b.text.as_ref().is_some_and(is_failure_text)),
    }
}

/// A top-level usage count that is a finite number.
fn usage_count(m: &Msg, key: &str) -> Option<f64> {
    match &m.usage {
        UsageView::Snapshot(s) => Some(match key {
            "input" => s.input,
            "output" => s.output,
            "cacheRead" => s.cache_read,
            "cacheWrite" => s.cache_write,
            "totalTokens" => s.total_tokens,
            _ => return None,
        }),
        UsageView::Fields(fields) => {
            fields
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| match v {
                    Val::Num(n) if n.is_finite() => Some(*n),
                    _ => None,
                })
        }
        UsageView::NotObject(_) => None,
    }
}

/// A usage object whose counts are all zero (2026.9.6's `hasZeroTokenUsageSnapshot`).
fn zero_usage(m: &Msg) -> bool {
    if matches!(m.usage, UsageView::NotObject(_)) {
        return false;
    }
    let parts: Vec<Option<f64>> = ["input", "output", "cacheRead", "cacheWrite"]
        .iter()
        .map(|k| usage_count(m, k))
        .collect();
    let total = usage_count(m, "total")
        .or_else(|| usage_count(m, "totalTokens"))
        .or_else(|| usage_count(m, "total_tokens"));
    match total {
        Some(t) => t == 0.0 && parts.iter().all(|p| p.is_none_or(|v| v == 0.0)),
        None => parts.iter().flatten().count() > 0 && parts.iter().flatten().all(|v| *v == 0.0),
    }
}

/// A stream-error placeholder turn: errored, or a zero-usage stop, with nothing worth replaying.
fn is_stream_error_turn(m: &Msg) -> bool {
    let errored = m.stop_reason.as_str() == Some("error");
    let empty_stop = m.stop_reason.as_str() == Some("stop") && zero_usage(m);
    (errored || empty_stop) && is_stream_error_content(m)
}

fn has_persisted_media(m: &Msg) -> bool {
    matches!(m.extra(extra::PERSISTED_MEDIA), Val::Array)
}

fn blank_text(b: &Block) -> bool {
    b.is_object && b.is_text() && b.text.as_ref().is_some_and(|t| t.blank)
}

/// What becomes of a user turn: `None` to drop it; otherwise whether it changed.
fn sanitize_user(m: &mut Msg, ctx: &mut Ctx) -> Option<bool> {
    match &m.content {
        Content::Str { info, .. } if info.blank && !has_persisted_media(m) => None,
        Content::Blocks(blocks) if blocks.iter().any(blank_text) => {
            for b in blocks.iter().filter(|b| blank_text(b)) {
                ctx.change("normalizeAssistantReplayContent", block_path(m, b), || {
                    "dropped a blank text block from a user turn".into()
                });
            }
            let kept = blocks.iter().filter(|b| !blank_text(b)).count();
            if kept == 0 {
                if !has_persisted_media(m) {
                    return None;
                }
                m.set("content", Value::String(String::new()));
            } else if let Some(bs) = m.blocks_mut() {
                bs.retain(|b| !blank_text(b));
            }
            Some(true)
        }
        _ => Some(false),
    }
}

/// Block types OpenClaw shows but does not replay from an assistant turn.
const DISPLAY_ONLY: &[&str] = &["attachment", "attachment_error", "audio", "image", "video"];

fn display_only(b: &Block) -> bool {
    b.is_object && b.ty().is_some_and(|t| DISPLAY_ONLY.contains(&t))
}

/// Only reasoning blocks and blank text, with at least one reasoning block (2026.9.6's
/// `hasOnlyAssistantReasoningContent`, on array content).
fn only_reasoning(blocks: &[Block]) -> bool {
    let blank_text = |b: &Block| b.is_text() && b.text.as_ref().is_some_and(|t| t.blank);
    blocks
        .iter()
        .all(|b| b.is_object && (is_reasoning(b) || blank_text(b)))
        && blocks.iter().any(is_reasoning)
}

/// What becomes of a block of an assistant turn (2026.9.6's `normalizeAssistantReplayBlockContent`).
#[derive(PartialEq)]
enum Fate {
    Keep,
    /// Removed; `silent` when it was a silent reply.
    Drop {
        silent: bool,
    },
    /// Its text, stripped of OpenClaw's metadata.
    Text(String),
}

fn fate(b: &Block) -> Fate {
    if display_only(b) {
        return Fate::Drop { silent: false };
    }
    let text = b.is_object && b.is_text();
    let Some(whole) = b.text.as_ref().and_then(|t| t.whole()).filter(|_| text) else {
        return Fate::Keep;
    };
    let stripped = strip_internal_metadata(whole);
    let trimmed = js_trim(&stripped);
    let silent = !trimmed.is_empty() && super::silent_reply::is_silent_reply(trimmed);
    match stripped {
        Cow::Borrowed(_) if silent => Fate::Drop { silent },
        Cow::Borrowed(_) => Fate::Keep,
        Cow::Owned(_) if silent || trimmed.is_empty() => Fate::Drop { silent },
        Cow::Owned(s) => Fate::Text(s),
    }
}

/// Removes display-only blocks and silent replies from assistant turns and drops the turns the
/// step drops.
pub fn normalize_assistant_replay_content(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    let mut changed = false;
    let mut remove = Vec::new();
    // Each turn's fates, in one buffer reused from turn to turn.
    let mut fates: Vec<Fate> = Vec::new();
    for (i, m) in msgs.iter_mut().enumerate() {
        if m.is_user() {
            match sanitize_user(m, ctx) {
                None => {
                    ctx.change("normalizeAssistantReplayContent", msg_path(m), || {
                        "dropped a user turn with no content".into()
                    });
                    remove.push(i);
                }
                Some(c) => changed |= c,
            }
            continue;
        }
        if !m.is_assistant() {
            continue;
        }
        if is_transcript_only(m) || is_stream_error_turn(m) {
            ctx.change("normalizeAssistantReplayContent", msg_path(m), || {
                "dropped a delivery mirror or stream-error placeholder".into()
            });
            remove.push(i);
            continue;
        }
        let Some(blocks) = m.blocks() else { continue };
        fates.clear();
        fates.extend(blocks.iter().map(fate));
        if fates.iter().any(|f| *f != Fate::Keep) {
            let quiet = fates.contains(&Fate::Drop { silent: true });
            for (b, f) in blocks.iter().zip(&fates) {
                let why = match f {
                    Fate::Keep => continue,
                    Fate::Drop { silent: true } => "dropped a NO_REPLY text from an assistant turn",
                    Fate::Drop { silent: false } if display_only(b) => {
                        "dropped a display-only block from an assistant turn"
                    }
                    Fate::Drop { silent: false } => {
                        "dropped an assistant text holding only OpenClaw metadata"
                    }
                    Fate::Text(_) => "stripped OpenClaw metadata from an assistant text",
                };
                ctx.change("normalizeAssistantReplayContent", block_path(m, b), || {
                    why.into()
                });
            }
            if let Some(bs) = m.blocks_mut() {
                let mut fates = fates.drain(..);
                bs.retain_mut(|b| match fates.next() {
                    Some(Fate::Drop { .. }) => false,
                    Some(Fate::Text(t)) => {
                        b.set_str("text", &t);
                        true
                    }
                    _ => true,
                });
            }
            changed = true;
            if m.blocks()
                .is_some_and(|bs| bs.is_empty() || (quiet && only_reasoning(bs)))
            {
                remove.push(i);
                continue;
            }
        }
        let length_cut = m.stop_reason.as_str() == Some("length");
        if length_cut && m.blocks().is_some_and(|bs| only_reasoning(bs)) {
            ctx.change("normalizeAssistantReplayContent", msg_path(m), || {
                "dropped a reasoning-only turn cut by the length limit".into()
            });
            remove.push(i);
        }
    }
    crate::transcript::reorder::remove_sorted(msgs, &remove);
    changed || !remove.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::{json, Value};

    fn pass(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            normalize_assistant_replay_content(m, c);
        })
    }

    #[test]
    fn no_reply_text_goes_and_a_turn_left_with_nothing_or_only_reasoning_with_it() {
        let said =
            |content: Value| json!({"role": "assistant", "stopReason": "stop", "content": content});
        let input = json!([
            said(json!([{"type": "text", "text": " NO_REPLY "}])),
            said(
                json!([{"type": "thinking", "thinking": "群聊闲谈"}, {"type": "text", "text": "NO_REPLY"}])
            ),
            said(
                json!([{"type": "text", "text": "<think>不用回</think>NO_REPLY"}, {"type": "text", "text": "稍后再说"}])
            ),
            // Twins that stay: the token mentioned in a reply, in code, and reasoning alone.
            said(json!([{"type": "text", "text": "回复 NO_REPLY 表示沉默"}])),
            said(json!([{"type": "text", "text": "`NO_REPLY`"}])),
            said(json!([{"type": "thinking", "thinking": "想"}])),
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out.len(), 4);
        assert_eq!(
            out[0]["content"],
            json!([{"type": "text", "text": "稍后再说"}])
        );
        assert_eq!(out[1..], input.as_array().unwrap()[3..]);
    }

    const BEGIN: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
    const END: &str = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>";

    /// Assistant texts echoing OpenClaw's metadata, and what is left of each (`None`: nothing).
    fn metadata_echoes() -> Vec<(String, Option<&'static str>)> {
        vec![
            (format!("答案\n{BEGIN}\n子任务完成\n{END}"), Some("答案")),
            (format!("{BEGIN}\n内部\n{END}\n\n继续。"), Some("继续。")),
            ("[Mon 2026-09-07 10:00] 你好".into(), Some("你好")),
            (
                "Sender: ⟦openclaw:ctx⟧\nname: 小明\n\n好的，马上处理。".into(),
                Some("好的，马上处理。"),
            ),
            (
                "好的\nContext: ⟦openclaw:ctx⟧\n频道内容".into(),
                Some("好的"),
            ),
            (
                "Context:\n<active_memory_plugin>\n喜欢茶\n</active_memory_plugin>\n\n答复".into(),
                Some("答复"),
            ),
            (format!("{BEGIN}\n只有内部\n{END}"), None),
        ]
    }

    #[test]
    fn openclaw_metadata_leaves_assistant_text_and_a_text_of_nothing_else_goes() {
        let said = |texts: Vec<&str>| {
            let blocks: Vec<Value> = texts
                .into_iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect();
            json!({"role": "assistant", "stopReason": "stop", "content": blocks})
        };
        for (text, left) in metadata_echoes() {
            let (out, _) = pass(&json!([said(vec![&text, "。"])]));
            let mut want = left.into_iter().collect::<Vec<_>>();
            want.push("。");
            assert_eq!(out, vec![said(want)], "{text:?}");
        }
        // A silent reply under the metadata is one; a turn of metadata alone goes.
        let quiet = format!("{BEGIN}\n内部\n{END}\nNO_REPLY");
        let only = format!("{BEGIN}\n内部\n{END}");
        let (out, _) = pass(&json!([said(vec![&quiet]), said(vec![&only])]));
        assert_eq!(out, Vec::<Value>::new());
        // Twins that stay: the markers mentioned inline, a timestamp not at the start.
        let inline = format!("用 `{BEGIN}` 标记内部上下文，中间不换行");
        let stays = json!([
            said(vec![&inline]),
            said(vec!["见 [Mon 2026-09-07 10:00] 的记录"]),
            said(vec!["Context: the build failed."]),
        ]);
        assert_eq!(pass(&stays), (stays.as_array().unwrap().clone(), true));
    }

    #[test]
    fn every_text_the_metadata_strip_changes_is_one_the_codec_sends_whole() {
        let needles = whole_text_needles();
        let sent_whole = |t: &str| {
            let lower = t.to_ascii_lowercase();
            needles
                .iter()
                .any(|n| lower.contains(&n.to_ascii_lowercase()))
                || WHOLE_TEXT_LEADS.iter().any(|l| t.starts_with(l))
        };
        for (text, _) in metadata_echoes() {
            assert!(strip_internal_metadata(&text) != text, "{text:?}");
            assert!(sent_whole(&text), "{text:?} would not reach the rule");
        }
        assert!(!sent_whole("一段很长的普通回答，没有任何标记。"));
    }

    #[test]
    fn media_blocks_leave_assistant_turns_only() {
        let input = json!([
            {"role": "user", "content": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "猫"}, {"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
            {"role": "assistant", "content": [{"type": "audio", "data": "x"}, {"type": "video"}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], input[0]);
        assert_eq!(out[1]["content"], json!([{"type": "text", "text": "猫"}]));
    }

    #[test]
    fn a_length_cut_turn_of_reasoning_only_is_dropped_and_one_with_text_stays() {
        let input = json!([
            {"role": "assistant", "stopReason": "length", "content": [{"type": "thinking", "thinking": "想"}, {"type": "text", "text": " "}]},
            {"role": "assistant", "stopReason": "length", "content": [{"type": "thinking", "thinking": "想"}, {"type": "text", "text": "半句"}]},
            {"role": "assistant", "stopReason": "stop", "content": [{"type": "thinking", "thinking": "想"}]},
            {"role": "assistant", "stopReason": "length", "content": [{"type": "text", "text": ""}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out, input.as_array().unwrap()[1..].to_vec());
    }

    #[test]
    fn openclaw_artifacts_and_stream_errors_are_dropped_and_real_turns_stay() {
        let zero =
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0});
        let input = json!([
            {"role": "assistant", "provider": "openclaw", "model": "delivery-mirror", "content": [{"type": "text", "text": "已发送"}]},
            {"role": "assistant", "openclawDeliveryMirror": {"kind": "channel-final"}, "content": [{"type": "text", "text": "已发送"}]},
            {"role": "assistant", "stopReason": "error", "content": [{"type": "text", "text": STREAM_FAILED_TEXT}]},
            {"role": "assistant", "stopReason": "stop", "usage": zero, "content": []},
            // Twins that stay: another provider's model name, an unknown marker kind, an error
            // with real text, a stop with usage.
            {"role": "assistant", "provider": "ollama", "model": "delivery-mirror", "content": [{"type": "text", "text": "答"}]},
            {"role": "assistant", "openclawDeliveryMirror": {"kind": "other"}, "content": [{"type": "text", "text": "答"}]},
            {"role": "assistant", "stopReason": "error", "content": [{"type": "text", "text": "部分回答"}]},
            {"role": "assistant", "stopReason": "stop", "usage": {"input": 3, "output": 0, "totalTokens": 3}, "content": [{"type": "text", "text": " "}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out, input.as_array().unwrap()[4..].to_vec());
    }

    #[test]
    fn blank_user_text_goes_and_an_empty_user_turn_with_it_unless_media_were_sent() {
        let input = json!([
            {"role": "user", "content": [{"type": "text", "text": "  "}, {"type": "text", "text": "问题"}]},
            {"role": "user", "content": [{"type": "text", "text": ""}]},
            {"role": "user", "content": "   "},
            {"role": "user", "content": [{"type": "text", "text": " "}], "__openclaw": {"media": [{"path": "/tmp/a.png"}]}},
            {"role": "user", "content": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}]},
        ]);
        let (out, _) = pass(&input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0]["content"], json!([{"type": "text", "text": "问题"}]));
        assert_eq!(out[1]["content"], "");
        assert_eq!(out[2], input[4]);
    }

    #[test]
    fn nothing_to_do_is_the_same_transcript() {
        let input = json!([{"role": "assistant", "content": "text"}, {"role": "assistant", "content": [{"type": "text", "text": "a"}]}]);
        assert!(pass(&input).1);
    }
}
