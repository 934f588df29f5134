//! Canonicalise assistant content (OpenClaw `sanitizeSessionHistory` step 3).
//!
//! Legacy transcripts hold assistant turns whose `content` is a string, null, an object or a
//! number. Every provider adapter expects an array of blocks, so such a turn becomes a single text
//! block: the string itself, or `""` for anything else.

use crate::transcript::context::{msg_path, Ctx};
use crate::transcript::model::{Block, BlockOrigin, Content, Msg, Val};

/// The kinds of malformed assistant content present (`string`, `null`, `object` …), in first-seen
/// order, for the warning OpenClaw logs.
pub fn malformed_kinds(msgs: &[Msg]) -> (usize, Vec<&'static str>) {
    let mut count = 0;
    let mut kinds = Vec::new();
    for kind in msgs.iter().filter_map(malformed_kind) {
        count += 1;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    (count, kinds)
}

/// The kind of an assistant message's malformed content, if it is malformed.
pub fn malformed_kind(m: &Msg) -> Option<&'static str> {
    if !m.is_assistant() {
        return None;
    }
    Some(match &m.content {
        Content::Blocks(_) => return None,
        Content::Str { .. } => "string",
        Content::Other(v) => match v {
            Val::Absent => "undefined",
            Val::Null => "null",
            Val::Num(_) => "number",
            Val::Bool(_) => "boolean",
            Val::Object => "object",
            _ => "other",
        },
    })
}

pub fn canonicalize_assistant_content(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut() {
        if !m.is_assistant() {
            continue;
        }
        let block = match &m.content {
            Content::Blocks(_) => continue,
            Content::Str { info, from, prefix } => match from {
                Some(k) if prefix.is_empty() => {
                    let mut b = Block::new_text("");
                    b.text = Some(info.clone());
                    b.origin = BlockOrigin::FromStrContent {
                        msg: *k,
                        prefix: Box::default(),
                    };
                    b
                }
                _ => Block::new_text(&format!("{prefix}{}", info.whole().unwrap_or(""))),
            },
            Content::Other(_) => Block::new_text(""),
        };
        ctx.change("canonicalizeAssistantContent", msg_path(m), || {
            "assistant content was not an array; wrapped as one text block".into()
        });
        m.set_blocks(vec![block]);
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::testutil::run;
    use serde_json::json;

    #[test]
    fn string_null_object_and_number_content_become_text_blocks() {
        let input = json!([
            {"role": "assistant", "content": "hello", "x": 1},
            {"role": "assistant", "content": null},
            {"role": "assistant", "content": {"a": 1}},
            {"role": "assistant", "content": 5},
            {"role": "user", "content": "untouched"}
        ]);
        let (out, identity) = run(&input, |m, c| {
            canonicalize_assistant_content(m, c);
        });
        assert!(!identity);
        assert_eq!(
            out[0],
            json!({"role": "assistant", "content": [{"type": "text", "text": "hello"}], "x": 1})
        );
        for m in &out[1..4] {
            assert_eq!(m["content"], json!([{"type": "text", "text": ""}]));
        }
        assert_eq!(out[4], input[4]);
    }

    #[test]
    fn array_content_is_left_alone() {
        let input = json!([{"role": "assistant", "content": []}]);
        let (_, identity) = run(&input, |m, c| {
            assert!(!canonicalize_assistant_content(m, c));
        });
        assert!(identity);
    }
}
