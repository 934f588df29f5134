//! What a transcript holds that some rules of the 2026.3.23 pass need before they can fire, read
//! in one walk before the pass, so that a rule with nothing to act on is not run at all.
//!
//! Each of these rules walks every message to find the few it acts on (a user turn with a
//! provenance, an assistant turn whose content is not an array, a tool result with `details`,
//! an image, an OpenAI reasoning-signed thinking block). At 10,000 messages the model (~7 MB)
//! is past the L2 cache, and every such walk reads it again from further away; an agent's
//! history has none of them on most turns. One walk reading each message's role, content kind
//! and flags (and, when the policy runs a rule that needs them, each block's type) answers for
//! all of them.
//!
//! A flag is only ever `false` when no message of the pass's input can make its rule fire, and no
//! rule that runs before it creates what it looks for (see [`Census`]'s fields): a skipped rule
//! is one that would have changed nothing and reported nothing.

use super::model::{Content, Msg, Role, Val};
use super::rules::openai_reasoning::is_openai_reasoning_signature;

/// Whether each rule's trigger occurs in the messages (`true`: run the rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Census {
    /// A user message with a provenance (`annotate_inter_session_user_turns`, the pass's first
    /// rule).
    pub provenance: bool,
    /// An assistant message whose content is not an array (`malformed_kinds`,
    /// `canonicalize_assistant_content`; the inter-session rule before them edits user turns
    /// only).
    pub assistant_not_blocks: bool,
    /// A tool result with `details` (`strip_tool_result_details`; no rule before it sets
    /// `details`: the synthetic results of 2026.3.23's pairing have none).
    pub details: bool,
    /// An image block in any message, or a tool result whose content is absent or `null`: what
    /// the image pass acts on when it only sanitizes images (no ids, images-only mode). The rules
    /// before it add text blocks only. Read only when asked ([`Census::of`]).
    pub images: bool,
    /// A thinking block with an OpenAI reasoning signature (`downgrade_openai_reasoning_blocks`;
    /// no rule before it adds thinking blocks or sets their signatures). Read only when asked.
    pub reasoning: bool,
}

impl Census {
    /// Every rule runs (no census taken).
    pub const ALL: Census = Census {
        provenance: true,
        assistant_not_blocks: true,
        details: true,
        images: true,
        reasoning: true,
    };

    /// The census of `msgs`; the blocks are read only with `blocks` (the fields that need them,
    /// [`Census::images`] and [`Census::reasoning`], are `true` without it).
    pub fn of(msgs: &[Msg], blocks: bool) -> Census {
        let mut c = Census {
            provenance: false,
            assistant_not_blocks: false,
            details: false,
            images: !blocks,
            reasoning: !blocks,
        };
        for m in msgs {
            match m.role_tag() {
                Role::User => c.provenance |= m.provenance.is_some(),
                Role::Assistant => {
                    c.assistant_not_blocks |= !matches!(m.content, Content::Blocks(_));
                }
                Role::ToolResult => {
                    c.details |= m.has_details;
                    c.images |= matches!(m.content, Content::Other(Val::Absent | Val::Null));
                }
                Role::Absent | Role::Other => {}
            }
            if !blocks {
                continue;
            }
            for b in m.blocks().into_iter().flatten() {
                c.images |= b.is_image();
                c.reasoning |= b.is_object && b.is_thinking() && is_openai_reasoning_signature(b);
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::skeleton;
    use serde_json::{json, Value};

    fn census(v: Value, blocks: bool) -> Census {
        let values = v.as_array().cloned().unwrap_or_default();
        Census::of(&skeleton::from_values(&values), blocks)
    }

    const NONE: Census = Census {
        provenance: false,
        assistant_not_blocks: false,
        details: false,
        images: false,
        reasoning: false,
    };

    /// An agent's history (the benchmark's shape): nothing for these rules, blocks read or not.
    #[test]
    fn a_plain_history_needs_none_of_the_rules() {
        let history = json!([
            {"role": "user", "content": [{"type": "text", "text": "你好"}], "timestamp": 1},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "t", "thinkingSignature": "c2lnbmF0dXJl"},
                {"type": "toolCall", "id": "call_0|fc_0", "name": "exec", "arguments": {}}]},
            {"role": "toolResult", "toolCallId": "call_0|fc_0", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": "string content"},
            {"role": "system", "content": [{"type": "image", "data": "", "mimeType": "image/png"}], "details": {}},
            null
        ]);
        let c = census(history.clone(), true);
        // The image sits in a system message: the census still says so (it never looks at roles
        // for blocks, so it cannot miss one a rule reads).
        assert_eq!(
            c,
            Census {
                images: true,
                ..NONE
            }
        );
        let mut plain = history.as_array().cloned().unwrap_or_default();
        plain.truncate(4);
        assert_eq!(census(Value::Array(plain.clone()), true), NONE);
        assert_eq!(
            census(Value::Array(plain), false),
            Census {
                images: true,
                reasoning: true,
                ..NONE
            }
        );
    }

    /// Each trigger, alone, sets its flag (and only its flag).
    #[test]
    fn each_trigger_sets_its_flag() {
        let sig = json!({"id": "rs_1", "type": "reasoning"}).to_string();
        let rows = [
            (
                json!({"role": "user", "content": "x", "provenance": {"kind": "inter_session"}}),
                Census {
                    provenance: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "assistant", "content": "北京"}),
                Census {
                    assistant_not_blocks: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "assistant"}),
                Census {
                    assistant_not_blocks: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "toolResult", "toolCallId": "c", "content": [], "details": null}),
                Census {
                    details: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "toolResult", "toolCallId": "c", "content": null}),
                Census {
                    images: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}),
                Census {
                    images: true,
                    ..NONE
                },
            ),
            (
                json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "r", "thinkingSignature": sig}]}),
                Census {
                    reasoning: true,
                    ..NONE
                },
            ),
        ];
        for (m, want) in rows {
            assert_eq!(census(json!([m.clone()]), true), want, "{m}");
        }
    }
}
