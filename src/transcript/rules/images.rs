//! The image pass (`sanitizeSessionMessagesImages`), which in OpenClaw also carries the full-mode
//! cleanups that must happen before a strict provider sees assistant content.
//!
//! Every provider caps image payloads (Anthropic 5 MB, long sides around 8000 px, with 1200 px the
//! sweet spot for cost); an oversize screenshot in history makes every later request fail. Images
//! over the limits are downscaled and re-encoded as JPEG, undecodable or invalid ones become a
//! short text saying so. In `full` mode (Google, Anthropic, Mistral …) assistant turns also lose
//! foreign thought signatures and empty text blocks, and a turn left empty is dropped, because
//! those providers reject empty blocks. Tool-call ids are rewritten first when the policy asks.
//!
//! Only the header of each image crosses the JS boundary: the full base64 is fetched (through
//! [`crate::transcript::Source`]) only when the header cannot prove the image is within limits.

use crate::image::{
    canonicalize_base64, precheck_from_head, sanitize_image, ImageDecision, ImageLimits,
};
use crate::transcript::context::{block_origin_path, msg_path, Ctx};
use crate::transcript::model::{Block, BlockOrigin, Content, Msg, Val};
use crate::transcript::policy::{SanitizeMode, ToolCallIdMode};
use crate::transcript::rules::thought_signatures::{
    strip_message_thought_signatures, StripOptions,
};
use crate::transcript::rules::tool_call_ids::sanitize_tool_call_ids;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct ImagePassOptions {
    pub label: String,
    pub sanitize_mode: SanitizeMode,
    pub sanitize_tool_call_ids: bool,
    pub tool_call_id_mode: Option<ToolCallIdMode>,
    pub preserve_signatures: bool,
    pub sanitize_thought_signatures: Option<StripOptions>,
    pub limits: ImageLimits,
}

impl Default for ImagePassOptions {
    fn default() -> Self {
        ImagePassOptions {
            label: "session:history".into(),
            sanitize_mode: SanitizeMode::Full,
            sanitize_tool_call_ids: false,
            tool_call_id_mode: None,
            preserve_signatures: false,
            sanitize_thought_signatures: None,
            limits: ImageLimits::default(),
        }
    }
}

/// What to do with one image block.
enum Outcome {
    Keep,
    Set(Vec<(&'static str, String)>),
    Text(String),
}

fn full_data(b: &Block, ctx: &Ctx) -> Option<String> {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => ctx.source.image_data(*msg, *idx),
        BlockOrigin::New(v) => v.get("data").and_then(Value::as_str).map(str::to_string),
        BlockOrigin::FromStrContent { .. } => None,
    }
}

fn image_outcome(b: &Block, ctx: &Ctx, opts: &ImagePassOptions) -> Outcome {
    let (Some(info), Some(declared)) = (b.data(), b.mime_type().as_str()) else {
        return Outcome::Keep;
    };
    let decision = match precheck_from_head(info.len, &info.head, opts.limits) {
        Some(d) => d,
        None => match full_data(b, ctx) {
            Some(data) => sanitize_image(&data, opts.limits),
            None => return Outcome::Keep,
        },
    };
    match decision {
        ImageDecision::Keep {
            canonical_changed,
            mime,
        } => {
            let mut sets = Vec::new();
            if canonical_changed {
                if let Some(c) = full_data(b, ctx).as_deref().and_then(canonicalize_base64) {
                    sets.push(("data", c.into_owned()));
                }
            }
            if let Some(m) = mime.filter(|m| *m != declared) {
                sets.push(("mimeType", m.to_string()));
            }
            if sets.is_empty() {
                Outcome::Keep
            } else {
                Outcome::Set(sets)
            }
        }
        ImageDecision::Replaced { data, mime, .. } => {
            Outcome::Set(vec![("data", data), ("mimeType", mime.to_string())])
        }
        ImageDecision::Omitted { reason } => Outcome::Text(format!("[{}] {reason}", opts.label)),
    }
}

/// Image-sanitises one message's blocks; returns whether any block changed.
fn sanitize_blocks(m: &mut Msg, ctx: &mut Ctx, opts: &ImagePassOptions) -> bool {
    let Some(blocks) = m.blocks() else {
        return false;
    };
    let outcomes: Vec<(usize, Outcome)> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_type("image"))
        .map(|(j, b)| (j, image_outcome(b, ctx, opts)))
        .filter(|(_, o)| !matches!(o, Outcome::Keep))
        .collect();
    if outcomes.is_empty() {
        return false;
    }
    let Some(blocks) = m.blocks_mut() else {
        return false;
    };
    for (j, o) in outcomes {
        let b = &mut blocks[j];
        match o {
            Outcome::Keep => {}
            Outcome::Set(sets) => {
                ctx.change("sanitizeImages", block_origin_path(b), || {
                    if sets.iter().any(|(k, _)| *k == "data") {
                        "image re-encoded to fit the size limits".into()
                    } else {
                        "mime type corrected from the image bytes".into()
                    }
                });
                for (k, v) in sets {
                    b.set_str(k, &v);
                }
            }
            Outcome::Text(t) => {
                ctx.change("sanitizeImages", block_origin_path(b), || t.clone());
                *b = Block::new_text(&t);
            }
        }
    }
    true
}

fn has_thinking(m: &Msg) -> bool {
    m.blocks().is_some_and(|b| {
        b.iter()
            .any(|b| b.is_type("thinking") || b.is_type("redacted_thinking"))
    })
}

/// Drops text blocks whose text is blank.
fn drop_blank_text(m: &mut Msg, ctx: &mut Ctx) -> bool {
    let blank = |b: &Block| {
        b.is_type("text") && b.text.as_ref().is_some_and(|t| t.blank) && b.text_prefix.is_none()
    };
    if !m.blocks().is_some_and(|b| b.iter().any(blank)) {
        return false;
    }
    if let Some(blocks) = m.blocks_mut() {
        for b in blocks.iter().filter(|b| blank(b)) {
            ctx.change("sanitizeImages", block_origin_path(b), || {
                "dropped an empty text block".into()
            });
        }
        blocks.retain(|b| !blank(b));
    }
    true
}

pub fn sanitize_session_messages_images(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    opts: &ImagePassOptions,
) -> bool {
    let mut changed = false;
    if opts.sanitize_tool_call_ids {
        let mode = opts.tool_call_id_mode.unwrap_or(ToolCallIdMode::Strict);
        changed |= sanitize_tool_call_ids(msgs, ctx, mode);
    }
    let full = opts.sanitize_mode == SanitizeMode::Full;
    let mut remove = Vec::new();
    for (i, m) in msgs.iter_mut().enumerate() {
        match m.role() {
            Some("toolResult") => {
                if matches!(m.content, Content::Other(Val::Absent | Val::Null)) {
                    ctx.change("sanitizeImages", msg_path(m), || {
                        "missing tool result content became []".into()
                    });
                    m.set_blocks(Vec::new());
                    changed = true;
                }
                changed |= sanitize_blocks(m, ctx, opts);
            }
            Some("user") => changed |= sanitize_blocks(m, ctx, opts),
            Some("assistant") if m.blocks().is_some() => {
                if m.stop_reason.as_str() == Some("error") || !full {
                    changed |= sanitize_blocks(m, ctx, opts);
                    continue;
                }
                if !opts.preserve_signatures {
                    changed |=
                        strip_message_thought_signatures(m, ctx, opts.sanitize_thought_signatures);
                }
                if !(opts.preserve_signatures && has_thinking(m)) {
                    changed |= drop_blank_text(m, ctx);
                }
                changed |= sanitize_blocks(m, ctx, opts);
                if m.blocks().is_some_and(Vec::is_empty) {
                    ctx.change("sanitizeImages", msg_path(m), || {
                        "dropped an assistant turn with no content".into()
                    });
                    remove.push(i);
                }
            }
            _ => {}
        }
    }
    for i in remove.into_iter().rev() {
        msgs.remove(i);
        changed = true;
    }
    changed
}
