//! A compaction checkpoint kept true when a rule rebuilds its owner's content (OpenClaw
//! 2026.9.6's `replaceCompactionReplayOwnerContent`).
//!
//! After a server-side compaction, 2026.9.6 records on the assistant turn that owns it a
//! `providerReplay` checkpoint (`anthropic-compaction` or `openai-responses-compaction`) whose
//! `replayIndex` says how many of the turn's content blocks the compacted prefix already covers.
//! When a rule removes blocks from that turn, the index must count only the blocks still there,
//! or the next request replays the wrong tail; when a rule rewrote a block (a new object), or
//! removed them all, or the index points past the content, the checkpoint no longer describes
//! the turn and is removed. A `openai-responses-retained-compaction` checkpoint, or any other
//! `providerReplay`, stays as it is.
//!
//! 2026.9.6 does this in the rules of its history pass that rebuild an assistant's content:
//! `normalizeAssistantReplayContent`, the image pass (for every assistant turn, changed or not:
//! an index that is not a whole number within the content is set or the checkpoint removed there),
//! `sanitizeToolCallInputs`, `dropStaleOpenAIReasoning`, and on the Responses APIs
//! `normalizeOpenAIResponsesToolCallIds` and `downgradeOpenAIFunctionCallReasoningPairs`. The other
//! rules (thinking and signature stripping, pairing, the id rewrite of the other APIs) leave the
//! checkpoint as written, and so does this package. [`with_checkpoints`] runs one of those rules
//! and compares each owner's blocks before and after it, as 2026.9.6 finds each kept block in the
//! old content by identity.
//!
//! The index is compared as JS compares it with a number: a string by JS's `Number` rules, an
//! array by its string form (`[2]` is 2, `[1,2]` NaN), `true` as 1, `null` or absent as 0; only a
//! number can equal the new count, so any other value is replaced by it.
//!
//! Differences: a turn whose content is a string loses its checkpoint (2026.9.6 too, except when
//! the text holds `[object Object]`, which its identity search finds); content that is neither a
//! string nor an array makes 2026.9.6 throw (an object, `null`, absent) or keep an empty turn (a
//! number, a boolean), and here the checkpoint is removed.

use crate::js_text::js_number;
use crate::transcript::model::{extra, Block, Msg, Val};
use serde_json::json;

/// The checkpoint kinds bound to a prefix of their owner's content.
const PREFIX_BOUND: &[&str] = &["anthropic-compaction", "openai-responses-compaction"];

/// Whether `m` carries a checkpoint bound to a prefix of its content.
fn owns_checkpoint(m: &Msg) -> bool {
    m.extra(extra::REPLAY_TYPE)
        .as_str()
        .is_some_and(|t| PREFIX_BOUND.contains(&t))
}

/// `replay.replayIndex ?? 0` as a number JS compares with, and whether it is a number (only one
/// can be `===` the new count).
fn index_of(v: &Val) -> (f64, bool) {
    match v {
        Val::Absent | Val::Null => (0.0, true),
        Val::Num(n) => (*n, true),
        Val::Bool(b) => (f64::from(u8::from(*b)), false),
        // An array arrives as its string form.
        Val::Str(s) => (js_number(s), false),
        _ => (f64::NAN, false),
    }
}

/// Re-indexes or removes `m`'s compaction checkpoint after its content was rebuilt: `kept[i]`
/// says whether block `i` of the content before survives (the same block, in order), and
/// `rewritten` whether a surviving block was rebuilt. Returns whether `m` changed.
pub fn replace_owner_content(m: &mut Msg, kept: &[bool], rewritten: bool) -> bool {
    if !owns_checkpoint(m) {
        return false;
    }
    let (index, is_number) = index_of(m.extra(extra::REPLAY_INDEX));
    let emptied = !kept.is_empty() && !kept.contains(&true);
    if emptied || rewritten || index > kept.len() as f64 {
        m.del("providerReplay");
        return true;
    }
    let next = kept
        .iter()
        .enumerate()
        .filter(|&(i, &k)| k && (i as f64) < index)
        .count();
    if is_number && next as f64 == index {
        return false;
    }
    m.set_in_object("providerReplay", "replayIndex", json!(next));
    true
}

/// Which blocks of `before` survive in `after`, and whether one of `after` is not among them
/// (rewritten): each block is looked for in the old content from just past the last one found,
/// as 2026.9.6 does with `indexOf`.
fn survivors(before: &[Block], after: &[Block]) -> (Vec<bool>, bool) {
    let mut kept = vec![false; before.len()];
    let mut from = 0;
    for b in after {
        match before[from..].iter().position(|old| old == b) {
            Some(k) => {
                kept[from + k] = true;
                from += k + 1;
            }
            None => return (kept, true),
        }
    }
    (kept, false)
}

/// [`replace_owner_content`] for content that was `before` (`None`: not an array).
fn replace_after(m: &mut Msg, before: Option<&[Block]>) -> bool {
    match (before, m.blocks()) {
        (Some(before), Some(after)) => {
            let (kept, rewritten) = survivors(before, after);
            replace_owner_content(m, &kept, rewritten)
        }
        _ => {
            m.del("providerReplay");
            true
        }
    }
}

/// Runs `rule` over `msgs`, then re-indexes or removes the checkpoint of every owner still there
/// for what the rule did to its blocks (an owner it left alone keeps a whole-number index within
/// its content as it is).
pub fn with_checkpoints<R>(msgs: &mut Vec<Msg>, rule: impl FnOnce(&mut Vec<Msg>) -> R) -> R {
    // The owners (input messages), by input index, with their content before the rule.
    let mut before: Vec<(usize, Option<Vec<Block>>)> = msgs
        .iter()
        .filter(|m| owns_checkpoint(m))
        .filter_map(|m| Some((m.src_index()?, m.blocks().cloned())))
        .collect();
    let out = rule(msgs);
    if before.is_empty() {
        return out;
    }
    before.sort_unstable_by_key(|(i, _)| *i);
    for m in msgs.iter_mut().filter(|m| owns_checkpoint(m)) {
        let Some(src) = m.src_index() else { continue };
        if let Ok(k) = before.binary_search_by_key(&src, |(i, _)| *i) {
            replace_after(m, before[k].1.as_deref());
        }
    }
    out
}
