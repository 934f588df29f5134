//! Turn validation by merging consecutive same-role turns (OpenClaw `validateGeminiTurns`,
//! `validateAnthropicTurns`, `mergeConsecutiveUserTurns`, §4.4).
//!
//! Gemini requires user and model turns to alternate, and rejects two model turns in a row; the
//! Anthropic Messages API (and strict OpenAI-compatible servers: vLLM, Mistral, GitHub Copilot …)
//! rejects two user turns in a row. Such runs appear after errors, aborts, steering messages or
//! compaction. The policy enables `validateGeminiTurns` for Google APIs and strict OpenAI-compatible
//! providers, `validateAnthropicTurns` for the Anthropic family and strict OpenAI-compatible
//! providers; the runner calls them after `sanitizeSessionHistory` and per request.
//!
//! The common loop walks the messages tracking the role of the last message *pushed*. Entries that
//! are not objects, or whose role is falsy, are pushed without updating it. A message whose role
//! equals both that last role and the target role is merged into the previous output message
//! (when that is an object); anything else is pushed.
//!
//! - Gemini (target `assistant`): the merged turn is the *earlier* message with the contents
//!   concatenated, and `usage`, `stopReason`, `errorMessage` taken from the later one when truthy.
//!   A `toolResult` in between prevents the merge.
//! - Anthropic (target `user`): dangling `toolUse` blocks are stripped first
//!   ([`super::dangling_tool_uses`]); the merged turn is the *later* message with the contents
//!   concatenated and its `timestamp` backfilled from the earlier one when missing.
//!
//! **Deliberate difference from OpenClaw:** OpenClaw concatenates only array contents, so a
//! string-content turn loses its text in a merge (two string user turns merge to `content: []`).
//! Here a string content becomes one text block before the concatenation, so no text is lost.
//! Content that is neither a string nor an array still contributes nothing. A non-object entry
//! such as an array in the messages list is never a merge target here (OpenClaw would spread an
//! array into the merged turn).

use crate::openclaw::OpenClawVersion;
use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{
    Block, BlockOrigin, Content, Msg, MsgOrigin, Override, Role, TextInfo, UsageView, Val,
};
use crate::transcript::rules::dangling_tool_uses::strip_dangling_anthropic_tool_uses;
use crate::transcript::rules::thought_signatures::js_trim;
use crate::transcript::v2026_9::dangling_calls;
use serde_json::Value;

/// Merges runs of consecutive assistant turns (Gemini). Returns whether anything was merged.
pub fn validate_gemini_turns(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    merge_runs(
        msgs,
        ctx,
        "assistant",
        "validateGeminiTurns",
        merge_consecutive_assistant_turns,
    )
}

/// Strips dangling Anthropic `toolUse` blocks, then merges runs of consecutive user turns.
pub fn validate_anthropic_turns(msgs: &mut Vec<Msg>, ctx: &mut Ctx) -> bool {
    validate_anthropic_turns_as(msgs, ctx, OpenClawVersion::V2026_3_23, true)
}

/// What `validateAnthropicTurns` does in each OpenClaw release.
struct AnthropicRelease {
    /// 2026.9.6 first merges runs of assistant turns, as [`validate_gemini_turns`] does.
    merge_assistants: bool,
    /// How dangling calls are stripped (2026.9.6 checks every call shape against every result
    /// before the next assistant: [`dangling_calls`]).
    strip: fn(&mut Vec<Msg>, &mut Ctx) -> bool,
}

impl AnthropicRelease {
    fn of(version: OpenClawVersion) -> AnthropicRelease {
        match version {
            OpenClawVersion::V2026_3_23 => AnthropicRelease {
                merge_assistants: false,
                strip: |m, c| strip_dangling_anthropic_tool_uses(m, c),
            },
            OpenClawVersion::V2026_9_6 => AnthropicRelease {
                merge_assistants: true,
                strip: dangling_calls::strip_dangling_tool_calls,
            },
        }
    }
}

/// [`validate_anthropic_turns`] as OpenClaw `version` does it; `merge_users: false` leaves user
/// turns apart (2026.9.6's `mergeConsecutiveUserTurns: false`, for append-only runtime context on
/// the Messages API). Each merge is one pass, linear in the run it merges.
pub fn validate_anthropic_turns_as(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    version: OpenClawVersion,
    merge_users: bool,
) -> bool {
    let release = AnthropicRelease::of(version);
    let rule = "validateAnthropicTurns";
    let assistants = release.merge_assistants
        && merge_runs(
            msgs,
            ctx,
            "assistant",
            rule,
            merge_consecutive_assistant_turns,
        );
    let stripped = (release.strip)(msgs, ctx);
    let users = merge_users && merge_runs(msgs, ctx, "user", rule, merge_consecutive_user_turns);
    assistants || stripped || users
}

/// The merged form of two consecutive user turns: `current`'s fields, the concatenated content,
/// and `timestamp` = `current.timestamp ?? previous.timestamp`.
pub fn merge_consecutive_user_turns(mut previous: Msg, mut current: Msg) -> Msg {
    let mut blocks = take_blocks(&mut previous.content);
    blocks.extend(take_blocks(&mut current.content));
    replace_content(&mut current, blocks);
    if !current.timestamp.is_present() && !previous.timestamp.is_absent() {
        current.copy_field_from("timestamp", &previous);
    }
    current
}

/// The merged form of two consecutive assistant turns: `previous`'s fields, the concatenated
/// content, and `usage` / `stopReason` / `errorMessage` from `current` when truthy.
pub fn merge_consecutive_assistant_turns(mut previous: Msg, mut current: Msg) -> Msg {
    let mut blocks = take_blocks(&mut previous.content);
    blocks.extend(take_blocks(&mut current.content));
    replace_content(&mut previous, blocks);
    let usage_truthy = match &current.usage {
        UsageView::Fields(_) | UsageView::Snapshot(_) => true,
        UsageView::NotObject(v) => v.is_truthy(),
    };
    if usage_truthy {
        previous.copy_field_from("usage", &current);
    }
    if current.stop_reason.is_truthy() {
        previous.copy_field_from("stopReason", &current);
    }
    if current.error_message().is_truthy() {
        previous.copy_field_from("errorMessage", &current);
    }
    previous
}

/// The common merge loop of §4.4.
fn merge_runs(
    msgs: &mut Vec<Msg>,
    ctx: &mut Ctx,
    target: &str,
    rule: &'static str,
    merge: fn(Msg, Msg) -> Msg,
) -> bool {
    if !has_mergeable_pair(msgs, target) {
        return false;
    }
    let tag = Role::of_str(target);
    let input = std::mem::take(msgs);
    let mut out: Vec<Msg> = Vec::with_capacity(input.len());
    let mut last_is_target = false;
    for m in input {
        if !m.is_object || !m.role_val().is_truthy() {
            out.push(m);
            continue;
        }
        let is_target = is_role(&m, target, tag);
        if is_target && last_is_target && out.last().is_some_and(|p| p.is_object) {
            if let Some(prev) = out.pop() {
                let prev_path = msg_path(&prev);
                ctx.change(rule, msg_path(&m), || {
                    format!("merged with the preceding {target} turn {prev_path}")
                });
                out.push(merge(prev, m));
                continue;
            }
        }
        out.push(m);
        last_is_target = is_target;
    }
    *msgs = out;
    true
}

/// `m.role === target` (`tag` is `target`'s: a byte compare for the roles that have one).
fn is_role(m: &Msg, target: &str, tag: Role) -> bool {
    match tag {
        Role::Other => m.role_val().as_str() == Some(target),
        _ => m.role_tag() == tag,
    }
}

/// Whether the merge loop would merge anything (so the common case moves nothing).
fn has_mergeable_pair(msgs: &[Msg], target: &str) -> bool {
    let tag = Role::of_str(target);
    let mut last_is_target = false;
    let mut last_pushed_is_object = false;
    for m in msgs {
        if !m.is_object || !m.role_val().is_truthy() {
            last_pushed_is_object = m.is_object;
            continue;
        }
        let is_target = is_role(m, target, tag);
        if is_target && last_is_target && last_pushed_is_object {
            return true;
        }
        last_is_target = is_target;
        last_pushed_is_object = true;
    }
    false
}

/// `prefix` put in front of a string known through `info`.
fn prefixed_info(prefix: &str, info: &TextInfo) -> TextInfo {
    if prefix.is_empty() {
        return info.clone();
    }
    let (head, head_is_whole) = match &info.head {
        Some(h) => (format!("{prefix}{h}"), info.head_is_whole),
        None => (prefix.to_string(), info.len == 0),
    };
    TextInfo {
        len: TextInfo::len_of(prefix.encode_utf16().count()).saturating_add(info.len),
        blank: info.blank && js_trim(prefix).is_empty(),
        head: Some(head.into()),
        head_is_whole,
    }
}

/// The blocks a message's content contributes to a concatenation: its array, one text block for
/// a string (the documented fix), nothing for anything else.
pub(crate) fn content_blocks(content: &Content) -> Vec<Block> {
    match content {
        Content::Blocks(b) => b.clone(),
        Content::Str { info, from, prefix } => {
            vec![string_block(info, from.map(|k| k as usize), prefix)]
        }
        Content::Other(_) => Vec::new(),
    }
}

/// [`content_blocks`], moving an array out instead of copying it: a run of N turns merged one
/// by one would otherwise copy the growing content N times (20,000 turns took ~6 s).
fn take_blocks(content: &mut Content) -> Vec<Block> {
    match content {
        Content::Blocks(b) => std::mem::take(b),
        other => content_blocks(other),
    }
}

fn string_block(info: &TextInfo, from: Option<usize>, prefix: &str) -> Block {
    match from {
        Some(k) => {
            let mut b = Block::new_text("");
            b.origin = BlockOrigin::FromStrContent {
                msg: crate::transcript::model::ix(k),
                prefix: Box::new(prefix.to_string()),
            };
            b.text = Some(prefixed_info(prefix, info));
            b
        }
        // A string a rule wrote: the skeleton holds all of it.
        None => Block::new_text(&format!("{prefix}{}", info.head.as_deref().unwrap_or(""))),
    }
}

/// Replaces a message's content with `blocks`, dropping any earlier edit of the `content` field
/// and keeping JS key order: when the message had no `content` key, the spread-and-set OpenClaw
/// does adds it before any field set after it.
pub(crate) fn replace_content(m: &mut Msg, blocks: Vec<Block>) {
    if m.origin != MsgOrigin::New {
        if matches!(m.content, Content::Other(Val::Absent)) {
            m.edits
                .set("content", Override::Json(Box::new(Value::Null)));
        } else {
            m.edits.unset("content");
        }
    }
    m.set_blocks(blocks);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    fn gemini(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            validate_gemini_turns(m, c);
        })
    }

    fn anthropic(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            validate_anthropic_turns(m, c);
        })
    }

    fn text(t: &str) -> Value {
        json!({"type": "text", "text": t})
    }

    #[test]
    fn empty_and_single_message_are_unchanged() {
        for f in [gemini, anthropic] {
            let (out, identity) = f(&json!([]));
            assert!(identity && out.is_empty());
            let one = json!([{"role": "user", "content": "Hello"}]);
            let (out, identity) = f(&one);
            assert!(identity);
            assert_eq!(Value::Array(out), one);
        }
    }

    #[test]
    fn gemini_leaves_alternating_turns_unchanged() {
        let input = json!([
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": [text("Hi")]},
            {"role": "user", "content": "How are you?"},
            {"role": "assistant", "content": [text("Good!")]}
        ]);
        let (out, identity) = gemini(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn gemini_merges_consecutive_assistants() {
        let input = json!([
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": [text("Part 1")], "stopReason": "end_turn"},
            {"role": "assistant", "content": [text("Part 2")], "stopReason": "end_turn"},
            {"role": "user", "content": "How are you?"}
        ]);
        let (out, _) = gemini(&input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], input[0]);
        assert_eq!(
            out[1],
            json!({"role": "assistant", "content": [text("Part 1"), text("Part 2")],
                   "stopReason": "end_turn"})
        );
        assert_eq!(out[2], input[3]);
    }

    #[test]
    fn gemini_later_metadata_wins_when_truthy() {
        let input = json!([
            {"role": "assistant", "content": [text("Part 1")], "usage": {"input": 10, "output": 5},
             "errorMessage": "first", "api": "a"},
            {"role": "assistant", "content": [text("Part 2")], "usage": {"input": 10, "output": 10},
             "stopReason": "end_turn", "errorMessage": "", "api": "b"}
        ]);
        let (out, _) = gemini(&input);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0],
            json!({"role": "assistant", "content": [text("Part 1"), text("Part 2")],
                   "usage": {"input": 10, "output": 10}, "errorMessage": "first", "api": "a",
                   "stopReason": "end_turn"})
        );
    }

    #[test]
    fn gemini_tool_result_between_assistants_prevents_the_merge() {
        let input = json!([
            {"role": "user", "content": "Use tool"},
            {"role": "assistant", "content": [{"type": "toolUse", "id": "tool-1", "name": "test", "input": {}}]},
            {"role": "toolResult", "toolUseId": "tool-1", "content": [text("Found data")]},
            {"role": "assistant", "content": [text("Here's the answer")]},
            {"role": "assistant", "content": [text("Extra thoughts")]},
            {"role": "user", "content": "Request 2"}
        ]);
        let (out, _) = gemini(&input);
        let roles: Vec<_> = out.iter().map(|m| m["role"].clone()).collect();
        assert_eq!(
            roles,
            vec![
                json!("user"),
                json!("assistant"),
                json!("toolResult"),
                json!("assistant"),
                json!("user")
            ]
        );
        assert_eq!(
            out[3]["content"],
            json!([text("Here's the answer"), text("Extra thoughts")])
        );
    }

    #[test]
    fn gemini_keeps_string_content_as_a_text_block() {
        // Deliberate fix: OpenClaw would drop "legacy" here.
        let input = json!([
            {"role": "assistant", "content": "legacy"},
            {"role": "assistant", "content": [text("new")]}
        ]);
        let (out, _) = gemini(&input);
        assert_eq!(
            Value::Array(out),
            json!([{"role": "assistant", "content": [text("legacy"), text("new")]}])
        );
    }

    #[test]
    fn anthropic_leaves_alternating_turns_unchanged() {
        let input = json!([
            {"role": "user", "content": [text("Question")]},
            {"role": "assistant", "content": [text("Answer")]},
            {"role": "user", "content": [text("Follow-up")]}
        ]);
        let (out, identity) = anthropic(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn anthropic_merges_two_users_taking_the_newer_timestamp() {
        let input = json!([
            {"role": "user", "content": [text("First message")], "timestamp": 1000},
            {"role": "user", "content": [text("Second message")], "timestamp": 2000}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(
            Value::Array(out),
            json!([{"role": "user", "content": [text("First message"), text("Second message")],
                    "timestamp": 2000}])
        );
    }

    #[test]
    fn anthropic_merges_three_users() {
        let input = json!([
            {"role": "user", "content": [text("One")]},
            {"role": "user", "content": [text("Two")]},
            {"role": "user", "content": [text("Three")]}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0]["content"],
            json!([text("One"), text("Two"), text("Three")])
        );
    }

    #[test]
    fn anthropic_keeps_the_newest_metadata() {
        let input = json!([
            {"role": "user", "content": [text("Old")], "timestamp": 1000,
             "attachments": [{"type": "image", "url": "old.png"}]},
            {"role": "user", "content": [text("New")], "timestamp": 2000,
             "attachments": [{"type": "image", "url": "new.png"}], "someCustomField": "keep-me"}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(
            Value::Array(out),
            json!([{"role": "user", "content": [text("Old"), text("New")], "timestamp": 2000,
                    "attachments": [{"type": "image", "url": "new.png"}],
                    "someCustomField": "keep-me"}])
        );
    }

    #[test]
    fn anthropic_merge_keeps_image_order() {
        let input = json!([
            {"role": "user", "content": [text("first"), {"type": "image", "url": "img1"}]},
            {"role": "user", "content": [{"type": "image", "url": "img2"}, text("second")]}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(
            out[0]["content"],
            json!([text("first"), {"type": "image", "url": "img1"},
                   {"type": "image", "url": "img2"}, text("second")])
        );
    }

    #[test]
    fn anthropic_does_not_merge_assistants() {
        let input = json!([
            {"role": "user", "content": [text("Question")]},
            {"role": "assistant", "content": [text("Answer 1")]},
            {"role": "assistant", "content": [text("Answer 2")]}
        ]);
        let (out, identity) = anthropic(&input);
        assert!(identity);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn anthropic_merges_steering_messages_after_an_error() {
        let input = json!([
            {"role": "user", "content": [text("Original question")]},
            {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "Overloaded"},
            {"role": "user", "content": [text("Steering: try again")]},
            {"role": "user", "content": [text("Another follow-up")]}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1], input[1]);
        assert_eq!(
            out[2]["content"],
            json!([text("Steering: try again"), text("Another follow-up")])
        );
    }

    #[test]
    fn string_user_turns_keep_their_text() {
        // Deliberate fix: OpenClaw merges these to `content: []`.
        let input = json!([
            {"role": "user", "content": "first", "timestamp": 5},
            {"role": "user", "content": [text("second")]},
            {"role": "user", "content": "third"}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(
            Value::Array(out),
            json!([{"role": "user", "content": [text("first"), text("second"), text("third")],
                    "timestamp": 5}])
        );
    }

    #[test]
    fn non_array_non_string_content_contributes_nothing() {
        let input = json!([
            {"role": "user", "content": null, "timestamp": 1},
            {"role": "user", "content": [text("b")]},
            {"role": "user", "x": 1}
        ]);
        let (out, _) = anthropic(&input);
        // The merged turn is the last message: its `content` key is added before `timestamp`.
        assert_eq!(
            Value::Array(out.clone()),
            json!([{"role": "user", "x": 1, "content": [text("b")], "timestamp": 1}])
        );
        let keys: Vec<_> = out[0]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(keys, vec!["role", "x", "content", "timestamp"]);
    }

    #[test]
    fn roleless_entries_do_not_reset_the_last_role() {
        let input = json!([
            {"role": "assistant", "content": [text("a")]},
            null,
            {"content": [text("no role")]},
            {"role": "assistant", "content": [text("b")]}
        ]);
        let (out, _) = gemini(&input);
        // The assistant run continues across the null (skipped) and merges into the roleless
        // object, the previous output message, exactly as the upstream loop does.
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], input[0]);
        assert_eq!(out[1], Value::Null);
        assert_eq!(out[2], json!({"content": [text("no role"), text("b")]}));
    }

    #[test]
    fn a_non_object_before_the_turn_prevents_the_merge() {
        let input = json!([
            {"role": "user", "content": [text("a")]},
            null,
            {"role": "user", "content": [text("b")]}
        ]);
        let (out, identity) = anthropic(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn merge_user_turns_keeps_newest_metadata() {
        let input = json!([
            {"role": "user", "content": [text("before")], "timestamp": 1000,
             "attachments": [{"type": "image", "url": "old.png"}]},
            {"role": "user", "content": [text("after")], "timestamp": 2000,
             "attachments": [{"type": "image", "url": "new.png"}], "someCustomField": "keep-me"}
        ]);
        let (out, _) = run(&input, |m, _| {
            let cur = m.remove(1);
            let prev = m.remove(0);
            m.push(merge_consecutive_user_turns(prev, cur));
        });
        assert_eq!(out[0]["content"], json!([text("before"), text("after")]));
        assert_eq!(
            out[0]["attachments"],
            json!([{"type": "image", "url": "new.png"}])
        );
        assert_eq!(out[0]["someCustomField"], json!("keep-me"));
        assert_eq!(out[0]["timestamp"], json!(2000));
    }

    #[test]
    fn merge_user_turns_backfills_the_timestamp() {
        let input = json!([
            {"role": "user", "content": [text("before")], "timestamp": 1000},
            {"role": "user", "content": [text("after")]}
        ]);
        let (out, _) = run(&input, |m, _| {
            let cur = m.remove(1);
            let prev = m.remove(0);
            m.push(merge_consecutive_user_turns(prev, cur));
        });
        assert_eq!(
            out[0],
            json!({"role": "user", "content": [text("before"), text("after")], "timestamp": 1000})
        );
    }

    #[test]
    fn anthropic_strips_dangling_tool_uses_before_merging() {
        let input = json!([
            {"role": "user", "content": [text("Use tool")]},
            {"role": "assistant", "content": [
                {"type": "toolUse", "id": "tool-1", "name": "test", "input": {}},
                text("I'll check that")
            ]},
            {"role": "user", "content": [text("Hello")]},
            {"role": "user", "content": [text("Again")]}
        ]);
        let (out, _) = anthropic(&input);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1]["content"], json!([text("I'll check that")]));
        assert_eq!(out[2]["content"], json!([text("Hello"), text("Again")]));
    }

    #[test]
    fn changes_are_reported() {
        let input = json!([
            {"role": "user", "content": [text("a")]},
            {"role": "user", "content": [text("b")]}
        ]);
        let values = input.as_array().cloned().unwrap_or_default();
        let src = crate::transcript::JsonSource(&values);
        let mut ctx = Ctx::new(&src, true);
        let mut msgs = crate::transcript::skeleton::from_values(&values);
        assert!(validate_anthropic_turns(&mut msgs, &mut ctx));
        let changes = ctx.changes.unwrap_or_default();
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].rule, "validateAnthropicTurns");
        assert_eq!(changes[0].path, "messages[1]");
    }

    /// A run of same-role turns merges in time linear in its length: 4x the turns may take at
    /// most 8x the time (a copy of the growing content per merge made it 16x).
    #[test]
    fn long_runs_of_same_role_turns_merge_in_linear_time() {
        fn timed(n: usize, role: &str, f: fn(&Value) -> (Vec<Value>, bool)) -> f64 {
            let turns: Vec<Value> = (0..n)
                .map(|i| json!({"role": role, "content": [text(&format!("第{i}段"))]}))
                .collect();
            let input = Value::Array(turns);
            let (best, (out, _)) = crate::test_clock::best_of(5, || f(&input));
            assert_eq!(out.len(), 1);
            best
        }
        for (role, f) in [
            ("user", anthropic as fn(&Value) -> (Vec<Value>, bool)),
            ("assistant", gemini),
        ] {
            // Eight times the turns: linear is ~8x, quadratic ~64x; 24 leaves room for a loaded
            // machine (a 4x step with a limit of 8 failed at 8.2 under load).
            let small = timed(1_000, role, f);
            let large = timed(8_000, role, f);
            assert!(
                large / small < 24.0,
                "{role}: 1,000 turns {small:.4}s, 8,000 turns {large:.4}s"
            );
        }
    }
}
