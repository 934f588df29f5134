//! OpenAI Responses tool-call ids shortened to the shape the API accepts
//! (`normalizeOpenAIResponsesToolCallIds`, new in OpenClaw 2026.9.6).
//!
//! The Responses API rejects a replayed `function_call` whose `call_id` is not `call_` plus 1–59
//! of `[A-Za-z0-9_-]`, or whose item id is not `fc_` plus 1–61 of them; sessions hold longer ids
//! (proxies, other providers' calls replayed on OpenAI) and ids of other shapes (`call1`). Such an
//! id, stored as `call_id|fc_id` or alone, is rewritten to its prefix, its own characters made
//! safe and cut, and the first 10 hex digits of its SHA-256; results follow through every id alias
//! (see [`rename_result_aliases`]). Valid ids are left as they are.

use std::borrow::Cow;

use crate::transcript::context::{block_origin_path, Ctx};
use crate::transcript::model::{Msg, Text, Val};
use crate::transcript::rules::tool_call_ids::rename_result_aliases;
use crate::transcript::skeleton::is_lone_surrogate_stand_in;
use crate::transcript::tool_call_id::short_hash;

const MAX_LEN: usize = 64;

/// `prefix` followed by 1 to `MAX_LEN - prefix.len()` of `[A-Za-z0-9_-]`.
fn valid(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix).is_some_and(|tail| {
        (1..=MAX_LEN - prefix.len()).contains(&tail.len())
            && tail
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// `(call id, item id)` of `call|item`; the whole id when there is no `|` inside it.
fn split(id: &str) -> (&str, Option<&str>) {
    match id.find('|') {
        Some(k) if k > 0 && k < id.len() - 1 => (&id[..k], Some(&id[k + 1..])),
        _ => (id, None),
    }
}

/// Every character outside `[A-Za-z0-9_-]` becomes `_` (one per UTF-16 unit, as JS counts), and
/// leading and trailing `_` go.
fn safe_tail(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            let units = if is_lone_surrogate_stand_in(c) {
                1
            } else {
                c.len_utf16()
            };
            out.extend(std::iter::repeat_n('_', units));
        }
    }
    out.trim_matches('_').to_string()
}

fn normalize_part(value: &str, prefix: &str) -> String {
    let trimmed = value.trim();
    if valid(trimmed, prefix) {
        return trimmed.to_string();
    }
    let raw_tail = trimmed.strip_prefix(prefix).unwrap_or(trimmed);
    let hash = short_hash(if trimmed.is_empty() { prefix } else { trimmed }, 10);
    let max_tail = MAX_LEN - prefix.len();
    let keep = (max_tail.saturating_sub(hash.len() + 1)).max(1);
    let mut tail: String = safe_tail(raw_tail).chars().take(keep).collect();
    if tail.is_empty() {
        tail.push_str("id");
    }
    tail.push('_');
    tail.push_str(&hash);
    tail.truncate(max_tail);
    format!("{prefix}{tail}")
}

/// The id the Responses API accepts for `id`: `id` itself, borrowed, when it already does (the
/// common case: copying every valid id, twice a call, was most of this rule's cost).
pub fn responses_call_id(id: &str) -> Cow<'_, str> {
    let (call, item) = split(id);
    let needs = !valid(call, "call_") || item.is_some_and(|item| !valid(item, "fc_"));
    if !needs {
        return Cow::Borrowed(id);
    }
    Cow::Owned(match item {
        None => normalize_part(call, "call_"),
        Some(item) => format!(
            "{}|{}",
            normalize_part(id, "call_"),
            normalize_part(item, "fc_")
        ),
    })
}

/// Rewrites the calls' and results' ids that the Responses API would reject.
pub fn normalize_responses_tool_call_ids(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut() {
        if m.is_tool_result() {
            changed |= rename_result_aliases(m, ctx, &mut |raw| match responses_call_id(raw) {
                Cow::Borrowed(same) => Text::new(same),
                Cow::Owned(new) => new.into(),
            });
            continue;
        }
        if !m.is_assistant() {
            continue;
        }
        let count = m.blocks().map_or(0, Vec::len);
        for j in 0..count {
            let Some(b) = m.blocks().and_then(|bs| bs.get(j)) else {
                break;
            };
            let Val::Str(id) = &b.id else { continue };
            if !b.is_object || !b.is_tool_call() {
                continue;
            }
            let Cow::Owned(new) = responses_call_id(id) else {
                continue;
            };
            if new == **id {
                continue;
            }
            let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) else {
                break;
            };
            ctx.change(
                "normalizeOpenAIResponsesToolCallIds",
                block_origin_path(b),
                || format!("tool call id {:?} → {new:?}", b.id.as_str().unwrap_or("")),
            );
            b.set("id", serde_json::Value::String(new));
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids_stay_and_others_are_shortened_with_a_hash() {
        assert_eq!(responses_call_id("call_abc"), "call_abc");
        assert_eq!(responses_call_id("call_abc|fc_1"), "call_abc|fc_1");
        // 2026.9.6's own answers.
        assert_eq!(responses_call_id("call1"), "call_call1_78d66c1f79");
        let long = format!("call_{}", "x".repeat(70));
        let got = responses_call_id(&long);
        assert_eq!(got.len(), 64);
        assert!(got.starts_with("call_xxx"));
        assert!(valid(&got, "call_"));
    }

    #[test]
    fn odd_characters_become_underscores() {
        let got = responses_call_id("call_调用:1");
        assert!(valid(&got, "call_"), "{got}");
        assert!(got.starts_with("call_1_"), "{got}");
    }
}
