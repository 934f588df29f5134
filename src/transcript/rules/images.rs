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
//! Decisions go through the process-wide image cache: a payload seen before costs a hash, and
//! one whose digest the codec remembered for the same block and string costs a lookup.

use crate::image::{
    cached_by_digest, canonical_payload, precheck_from_head, sanitize_image_cached, Digest,
    ImageDecision, ImageLimits,
};
use crate::transcript::context::{block_origin_path, msg_path, Ctx};
use crate::transcript::model::{Block, BlockOrigin, Content, Msg, Role, Val};
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

/// What to do with one image block (or one image payload of a wire body).
pub(crate) enum Outcome {
    Keep,
    /// New field values (`data`, `mimeType`), and what to report.
    Set(Vec<(&'static str, String)>, Detail),
    /// The image becomes this text.
    Text(String),
}

/// Why an image block was changed, for `report: true`.
pub(crate) enum Detail {
    Mime,
    Canonical,
    Reencoded {
        width: u32,
        height: u32,
        quality: u8,
    },
}

impl Detail {
    /// The change's detail as `report: true` shows it.
    pub(crate) fn text(&self) -> String {
        match self {
            Detail::Reencoded {
                width,
                height,
                quality,
            } => format!(
                "image re-encoded to fit the size limits ({width}×{height} JPEG, quality {quality})"
            ),
            Detail::Canonical => {
                "whitespace or a data: URL prefix removed from the image data".into()
            }
            Detail::Mime => "mime type corrected from the image bytes".into(),
        }
    }
}

/// Calls `f` with the UTF-8 of the block's full `data` string, wherever it lives.
fn with_full_data(b: &Block, ctx: &Ctx, f: &mut dyn FnMut(&[u8])) -> bool {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => {
            ctx.source.with_image_data(*msg as usize, *idx as usize, f)
        }
        BlockOrigin::New(v) => match v.get("data").and_then(Value::as_str) {
            Some(d) => {
                f(d.as_bytes());
                true
            }
            None => false,
        },
        BlockOrigin::FromStrContent { .. } => false,
    }
}

/// The outcome of a decision; `canonical` is the kept payload when the decision says it changed.
fn outcome(
    decision: &ImageDecision,
    canonical: Option<String>,
    declared: &str,
    opts: &ImagePassOptions,
) -> Outcome {
    match decision {
        ImageDecision::Keep { mime, .. } => {
            let mut sets = Vec::new();
            let detail = if canonical.is_some() {
                Detail::Canonical
            } else {
                Detail::Mime
            };
            if let Some(c) = canonical {
                sets.push(("data", c));
            }
            if let Some(m) = mime.filter(|m| *m != declared) {
                sets.push(("mimeType", m.to_string()));
            }
            if sets.is_empty() {
                Outcome::Keep
            } else {
                Outcome::Set(sets, detail)
            }
        }
        ImageDecision::Replaced {
            data,
            mime,
            width,
            height,
            quality,
        } => Outcome::Set(
            vec![("data", data.clone()), ("mimeType", (*mime).to_string())],
            Detail::Reencoded {
                width: *width,
                height: *height,
                quality: *quality,
            },
        ),
        ImageDecision::Omitted { reason } => Outcome::Text(format!("[{}] {reason}", opts.label)),
    }
}

fn needs_payload(d: &ImageDecision) -> bool {
    matches!(
        d,
        ImageDecision::Keep {
            canonical_changed: true,
            ..
        }
    )
}

/// One image payload as the image step sees it before reading all of it.
pub(crate) struct Payload<'a> {
    /// The payload string's length (UTF-16 units, as JS counts).
    pub len: usize,
    /// Its first characters.
    pub head: &'a str,
    /// The digest remembered for this very string, if any.
    pub digest: Option<Digest>,
    /// The declared media type.
    pub declared: &'a str,
}

/// Calls its argument with the whole payload's UTF-8; `false` when it cannot be read.
pub(crate) type ReadPayload<'f> = &'f mut dyn FnMut(&mut dyn FnMut(&[u8])) -> bool;

/// The outcome for one payload, written once for the transcript pass and the wire bodies: the
/// head alone when it proves the image within limits, else the cache by a remembered digest,
/// else the whole payload (`full` calls its argument with the payload's UTF-8, `false` when it
/// cannot) through the process-wide cache. Also the digest computed, if one was.
pub(crate) fn payload_outcome(
    p: &Payload,
    full: ReadPayload,
    opts: &ImagePassOptions,
) -> (Outcome, Option<Digest>) {
    if let Some(d) = precheck_from_head(p.len, p.head, opts.limits) {
        return (outcome(&d, None, p.declared, opts), None);
    }
    if let Some(hit) = p.digest.and_then(|d| cached_by_digest(&d, opts.limits)) {
        if !needs_payload(&hit) {
            return (outcome(&hit, None, p.declared, opts), None);
        }
    }
    let mut answer = None;
    full(&mut |data| {
        let (decision, digest) = sanitize_image_cached(data, opts.limits);
        let canonical = if needs_payload(&decision) {
            std::str::from_utf8(data)
                .ok()
                .and_then(|d| canonical_payload(d, opts.limits.release))
                .map(|c| c.into_owned())
        } else {
            None
        };
        answer = Some((decision, digest, canonical));
    });
    match answer {
        Some((decision, digest, canonical)) => {
            (outcome(&decision, canonical, p.declared, opts), digest)
        }
        None => (Outcome::Keep, None),
    }
}

fn image_outcome(b: &Block, ctx: &mut Ctx, opts: &ImagePassOptions) -> Outcome {
    let (Some(info), Some(declared)) = (b.data(), b.mime_type().as_str()) else {
        return Outcome::Keep;
    };
    let p = Payload {
        len: info.len,
        head: &info.head,
        digest: info.digest,
        declared,
    };
    let (o, digest) = payload_outcome(&p, &mut |f| with_full_data(b, ctx, f), opts);
    if let (Some(digest), Some((msg, idx))) = (digest, b.src_at()) {
        if info.digest != Some(digest) {
            ctx.image_digests.push((msg, idx, digest));
        }
    }
    o
}

/// Image-sanitises one message's blocks; returns whether any block changed.
fn sanitize_blocks(m: &mut Msg, ctx: &mut Ctx, opts: &ImagePassOptions) -> bool {
    let Some(blocks) = m.blocks() else {
        return false;
    };
    let mut outcomes: Vec<(usize, Outcome)> = Vec::new();
    for (j, b) in blocks.iter().enumerate() {
        if b.is_image() {
            let o = image_outcome(b, ctx, opts);
            if !matches!(o, Outcome::Keep) {
                outcomes.push((j, o));
            }
        }
    }
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
            Outcome::Set(sets, detail) => {
                ctx.change("sanitizeImages", block_origin_path(b), || detail.text());
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
            .any(|b| b.is_thinking() || b.is_type("redacted_thinking"))
    })
}

/// Drops text blocks whose text is blank.
pub(crate) fn drop_blank_text(m: &mut Msg, ctx: &mut Ctx) -> bool {
    let blank = |b: &Block| {
        b.is_text() && b.text.as_ref().is_some_and(|t| t.blank) && b.text_prefix().is_none()
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

/// OpenClaw's `sanitizeContentBlocksImages` (tool-images.ts), on the blocks of every message
/// (the JS side wraps a block list in one message): the image step only, whatever the role.
pub fn sanitize_content_blocks_images(
    msgs: &mut [Msg],
    ctx: &mut Ctx,
    opts: &ImagePassOptions,
) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut() {
        changed |= sanitize_blocks(m, ctx, opts);
    }
    changed
}

/// Whether the block is what the reference calls an image block: `type: "image"` with string
/// `data` and `mimeType`.
fn is_image_block(b: &Block) -> bool {
    b.is_image() && b.data().is_some() && b.mime_type().as_str().is_some()
}

/// OpenClaw's `sanitizeImageBlocks`: the image step, then only the blocks that are still images;
/// returns how many were dropped.
pub fn sanitize_image_blocks(msgs: &mut [Msg], ctx: &mut Ctx, opts: &ImagePassOptions) -> usize {
    sanitize_content_blocks_images(msgs, ctx, opts);
    let mut dropped = 0;
    for m in msgs.iter_mut() {
        if m.blocks().is_some_and(|b| b.iter().all(is_image_block)) {
            continue;
        }
        if let Some(blocks) = m.blocks_mut() {
            for b in blocks.iter().filter(|b| !is_image_block(b)) {
                ctx.change("sanitizeImages", block_origin_path(b), || {
                    "dropped: no longer an image".into()
                });
            }
            let before = blocks.len();
            blocks.retain(is_image_block);
            dropped += before - blocks.len();
        }
    }
    dropped
}

/// Notes an assistant turn left with no block (its index `i` pushed on `remove`) for
/// [`remove_noted`] once the pass over the history is done.
pub fn note_if_empty(m: &Msg, i: usize, ctx: &mut Ctx, remove: &mut Vec<usize>) {
    if m.blocks().is_some_and(Vec::is_empty) {
        ctx.change("sanitizeImages", msg_path(m), || {
            "dropped an assistant turn with no content".into()
        });
        remove.push(i);
    }
}

/// Removes the messages [`note_if_empty`] noted (indices ascending); true when there was one.
pub fn remove_noted(msgs: &mut Vec<Msg>, remove: Vec<usize>) -> bool {
    let any = !remove.is_empty();
    for i in remove.into_iter().rev() {
        msgs.remove(i);
    }
    any
}

/// Whether the pass strips assistant turns' Gemini thought signatures: full mode, signatures not
/// preserved. The only reader of thought signatures in the 2026.3.23 pass (see
/// [`crate::transcript::read_set`]).
pub(crate) fn strips_thought_signatures(opts: &ImagePassOptions) -> bool {
    opts.sanitize_mode == SanitizeMode::Full && !opts.preserve_signatures
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
        match m.role_tag() {
            Role::ToolResult => {
                if matches!(m.content, Content::Other(Val::Absent | Val::Null)) {
                    ctx.change("sanitizeImages", msg_path(m), || {
                        "missing tool result content became []".into()
                    });
                    m.set_blocks(Vec::new());
                    changed = true;
                }
                changed |= sanitize_blocks(m, ctx, opts);
            }
            Role::User => changed |= sanitize_blocks(m, ctx, opts),
            Role::Assistant if m.blocks().is_some() => {
                if m.stop_reason.as_str() == Some("error") || !full {
                    changed |= sanitize_blocks(m, ctx, opts);
                    continue;
                }
                if strips_thought_signatures(opts) {
                    changed |=
                        strip_message_thought_signatures(m, ctx, opts.sanitize_thought_signatures);
                }
                if !(opts.preserve_signatures && has_thinking(m)) {
                    changed |= drop_blank_text(m, ctx);
                }
                changed |= sanitize_blocks(m, ctx, opts);
                note_if_empty(m, i, ctx, &mut remove);
            }
            _ => {}
        }
    }
    changed | remove_noted(msgs, remove)
}
