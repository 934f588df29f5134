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
//! Difference: a `replayIndex` that is a string or an array is read as no number (2026.9.6
//! converts it with JS's `Number` rules); it is then set to the count of blocks kept before it
//! (none), as 2026.9.6 does for any index that was not a number.

use crate::transcript::model::{extra, Msg, Val};
use serde_json::json;

/// The checkpoint kinds bound to a prefix of their owner's content.
const PREFIX_BOUND: &[&str] = &["anthropic-compaction", "openai-responses-compaction"];

/// Re-indexes or removes `m`'s compaction checkpoint after its content was rebuilt: `kept[i]`
/// says whether block `i` of the content before survives (the same block, in order), and
/// `rewritten` whether a surviving block was rebuilt. Returns whether `m` changed.
pub fn replace_owner_content(m: &mut Msg, kept: &[bool], rewritten: bool) -> bool {
    let is_checkpoint = m
        .extra(extra::REPLAY_TYPE)
        .as_str()
        .is_some_and(|t| PREFIX_BOUND.contains(&t));
    if !is_checkpoint {
        return false;
    }
    // `replay.replayIndex ?? 0`, compared as JS compares it with a number.
    let (index, is_number) = match m.extra(extra::REPLAY_INDEX) {
        Val::Absent | Val::Null => (0.0, true),
        Val::Num(n) => (*n, true),
        Val::Bool(b) => (f64::from(u8::from(*b)), false),
        _ => (f64::NAN, false),
    };
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
