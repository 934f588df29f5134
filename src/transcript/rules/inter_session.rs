//! Inter-session provenance marker (OpenClaw `annotateInterSessionUserMessages`, §4.9; the
//! 2026.3.23 marker).
//!
//! A user turn written by `sessions_send` (another agent or session forwarding text) is stored
//! with `provenance: {kind: "inter_session", …}`. Replayed as-is, the model would take it for a
//! direct end-user instruction. Before every provider call, OpenClaw puts a visible marker in
//! front of such a turn's text:
//! `"[Inter-session message]"` plus, when present, `" sourceSession=<k> sourceChannel=<c>
//! sourceTool=<t>"` (each value trimmed; empty ones left out; `originSessionId` never printed).
//!
//! - string content: `prefix + "\n" + content`, unless it already starts with the prefix;
//! - array content: the first `{type: "text", text: <string>}` block gets `prefix + "\n"` in
//!   front (unless its text already starts with the prefix); with no such block,
//!   `{type: "text", text: prefix}` is inserted at index 0;
//! - anything else, and role/provenance, unchanged. Provider-independent (step 2 of
//!   `sanitizeSessionHistory`).
//!
//! The skeleton carries only the first 4096 UTF-16 units of these texts (the codec sends that
//! head for every message with a provenance object); the "already starts with" test runs on it,
//! and a prefix longer than the head counts as not present. 2026.9.6 uses a longer marker; this is
//! the 2026.3.23 one, and the rule is written once for both: a [`Release`] says what differs.

use crate::transcript::context::{block_path, msg_path, Ctx, Path};
use crate::transcript::model::{Block, Content, Msg, Override, Provenance, TextInfo, Val};
use crate::transcript::rules::thought_signatures::js_trim;
use serde_json::json;

const MARKER: &str = "[Inter-session message]";

/// A provenance field as `normalizeOptionalString` gives it: a trimmed non-empty string.
fn detail(v: &Val) -> Option<&str> {
    v.as_str().map(js_trim).filter(|s| !s.is_empty())
}

/// The marker for one message's provenance.
pub fn inter_session_prefix(p: &Provenance) -> String {
    let details: Vec<String> = [
        ("sourceSession", &p.source_session_key),
        ("sourceChannel", &p.source_channel),
        ("sourceTool", &p.source_tool),
    ]
    .iter()
    .filter_map(|(k, v)| detail(v).map(|s| format!("{k}={s}")))
    .collect();
    if details.is_empty() {
        MARKER.to_string()
    } else {
        format!("{MARKER} {}", details.join(" "))
    }
}

/// Whether the text known through `info` (with `before` in front of it) starts with `prefix`.
fn starts_with(before: &str, info: &TextInfo, prefix: &str) -> bool {
    let head = info.head.as_deref().unwrap_or("");
    if before.len() >= prefix.len() {
        return before.starts_with(prefix);
    }
    prefix.starts_with(before) && head.starts_with(&prefix[before.len()..])
}

/// `info` with `added` put in front of it.
fn grow(info: &TextInfo, added: &str) -> TextInfo {
    TextInfo {
        len: info
            .len
            .saturating_add(TextInfo::len_of(added.encode_utf16().count())),
        blank: info.blank && js_trim(added).is_empty(),
        head: Some(format!("{added}{}", info.head.as_deref().unwrap_or("")).into()),
        head_is_whole: info.head_is_whole,
    }
}

/// What annotating one text needs.
pub enum Need {
    Nothing,
    /// `marker + "\n"` in front of the text as it is.
    Prefix,
    /// The whole new text (a release that rewrites what is there).
    Whole(String),
}

/// What one OpenClaw release's marker is; the rule that puts it in place is
/// [`annotate_with`], the same for every release.
pub struct Release {
    /// The marker for one message's provenance.
    pub marker: fn(&Provenance) -> String,
    /// What the text known through `info`, with `before` in front of it, needs for `marker`.
    pub need: fn(info: &TextInfo, before: &str, marker: &str) -> Need,
    /// The text of the block inserted into a turn with no text block, from the marker.
    pub no_text: fn(&str) -> String,
    /// The change notes: string content prefixed, text block prefixed, block inserted.
    pub notes: [&'static str; 3],
}

/// 2026.3.23: the marker goes in front unless the text already starts with it.
pub const RELEASE_2026_3: Release = Release {
    marker: inter_session_prefix,
    need: |info, before, marker| {
        if starts_with(before, info, marker) {
            Need::Nothing
        } else {
            Need::Prefix
        }
    },
    no_text: str::to_string,
    notes: [
        "prefixed the inter-session marker to the string content",
        "prefixed the inter-session marker to the first text block",
        "inserted the inter-session marker as a first text block",
    ],
};

enum Action {
    Str(Need),
    Block(usize, Need, Path),
    Insert,
}

/// Marks user turns that came from another session (the 2026.3.23 marker).
pub fn annotate_inter_session_user_turns(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    annotate_with(msgs, ctx, &RELEASE_2026_3)
}

/// Marks user turns that came from another session with `release`'s marker.
pub fn annotate_with(msgs: &mut [Msg], ctx: &mut Ctx, release: &Release) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut() {
        if !m.is_user() {
            continue;
        }
        let Some(p) = m.provenance.as_ref() else {
            continue;
        };
        if p.kind.as_str() != Some("inter_session") {
            continue;
        }
        let marker = (release.marker)(p);
        let added = format!("{marker}\n");
        let action = match &m.content {
            Content::Str { info, prefix, .. } => Action::Str((release.need)(info, prefix, &marker)),
            Content::Blocks(blocks) => {
                match blocks
                    .iter()
                    .position(|b| b.is_object && b.is_text() && b.text.is_some())
                {
                    // A block's `text` view is its final text, `text_prefix` included.
                    Some(j) => match blocks[j].text.as_ref() {
                        Some(info) => Action::Block(
                            j,
                            (release.need)(info, "", &marker),
                            block_path(m, &blocks[j]),
                        ),
                        None => continue,
                    },
                    None => Action::Insert,
                }
            }
            Content::Other(_) => continue,
        };
        let (path, note) = match action {
            Action::Str(Need::Nothing) | Action::Block(_, Need::Nothing, _) => continue,
            Action::Str(what) => {
                let path = msg_path(m);
                let mut content = None;
                if let Content::Str { info, from, prefix } = &mut m.content {
                    match (what, from.map(|k| k as usize)) {
                        (Need::Prefix, Some(k)) => {
                            let all = format!("{added}{prefix}");
                            *prefix = all.as_str().into();
                            m.edits
                                .set("content", Override::Prefixed(Box::new((all, k))));
                        }
                        (Need::Prefix, None) => {
                            content = Some(format!(
                                "{added}{prefix}{}",
                                info.head.as_deref().unwrap_or("")
                            ));
                        }
                        (Need::Whole(text), _) => content = Some(text),
                        (Need::Nothing, _) => {}
                    }
                }
                if let Some(text) = content {
                    m.set("content", json!(text));
                }
                (path, release.notes[0])
            }
            Action::Block(j, what, path) => {
                if let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) {
                    match what {
                        Need::Prefix => {
                            let all = format!("{added}{}", b.text_prefix().unwrap_or(""));
                            b.text = b.text.as_ref().map(|t| grow(t, &added));
                            b.set_text_prefix(Some(all));
                        }
                        Need::Whole(text) => {
                            b.set_text_prefix(None);
                            b.set_str("text", &text);
                        }
                        Need::Nothing => {}
                    }
                }
                (path, release.notes[1])
            }
            Action::Insert => {
                let path = msg_path(m);
                if let Some(bs) = m.blocks_mut() {
                    bs.insert(0, Block::new_text(&(release.no_text)(&marker)));
                }
                (path, release.notes[2])
            }
        };
        ctx.change("annotateInterSessionUserMessages", path, || note.into());
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::BlockOrigin;
    use crate::transcript::skeleton;
    use crate::transcript::testutil::run;
    use serde_json::Value;

    fn annotate(input: &Value) -> (Vec<Value>, bool) {
        run(input, |m, c| {
            annotate_inter_session_user_turns(m, c);
        })
    }

    fn prov() -> Value {
        json!({"kind": "inter_session", "sourceSessionKey": "agent:main:req", "sourceTool": "sessions_send",
               "originSessionId": "never-printed"})
    }

    const PREFIX: &str =
        "[Inter-session message] sourceSession=agent:main:req sourceTool=sessions_send";

    #[test]
    fn annotates_string_content() {
        let input =
            json!([{"role": "user", "content": "forwarded instruction", "provenance": prov()}]);
        let (out, identity) = annotate(&input);
        assert!(!identity);
        assert_eq!(
            out[0],
            json!({"role": "user", "content": format!("{PREFIX}\nforwarded instruction"), "provenance": prov()})
        );
    }

    #[test]
    fn already_annotated_content_is_left_alone() {
        let input = json!([
            {"role": "user", "content": format!("{PREFIX}\nforwarded"), "provenance": prov()},
            {"role": "user", "content": [{"type": "text", "text": format!("{PREFIX} tail")}], "provenance": prov()}
        ]);
        let (out, identity) = annotate(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn annotates_the_first_text_block() {
        let input = json!([{"role": "user", "provenance": prov(), "content": [
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "hello"},
            {"type": "text", "text": "second"}
        ]}]);
        let (out, _) = annotate(&input);
        assert_eq!(
            out[0]["content"],
            json!([
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": format!("{PREFIX}\nhello")},
                {"type": "text", "text": "second"}
            ])
        );
    }

    #[test]
    fn inserts_a_marker_block_when_there_is_no_text() {
        let input = json!([{"role": "user", "provenance": {"kind": "inter_session"}, "content": [
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": 5}
        ]}]);
        let (out, _) = annotate(&input);
        assert_eq!(
            out[0]["content"],
            json!([
                {"type": "text", "text": "[Inter-session message]"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": 5}
            ])
        );
    }

    #[test]
    fn details_are_trimmed_and_blank_ones_left_out() {
        let input = json!([{"role": "user", "content": "x", "provenance": {
            "kind": "inter_session", "sourceSessionKey": "  ", "sourceChannel": " slack ", "sourceTool": 3
        }}]);
        let (out, _) = annotate(&input);
        assert_eq!(
            out[0]["content"],
            json!("[Inter-session message] sourceChannel=slack\nx")
        );
    }

    #[test]
    fn other_kinds_roles_and_shapes_are_untouched() {
        let input = json!([
            {"role": "user", "content": "a", "provenance": {"kind": "external_user"}},
            {"role": "user", "content": "b", "provenance": {"kind": "bogus"}},
            {"role": "user", "content": "c", "provenance": "inter_session"},
            {"role": "assistant", "content": "d", "provenance": {"kind": "inter_session"}},
            {"role": "user", "content": null, "provenance": {"kind": "inter_session"}},
            {"role": "user", "content": "e"}
        ]);
        let (out, identity) = annotate(&input);
        assert!(identity);
        assert_eq!(Value::Array(out), input);
    }

    #[test]
    fn runs_once() {
        let input = json!([{"role": "user", "content": "hi", "provenance": prov()}]);
        let (first, _) = annotate(&input);
        let (_, identity) = annotate(&Value::Array(first));
        assert!(identity);
    }

    #[test]
    fn the_check_uses_the_head_only() {
        // What the codec sends for a long text: a 4096-unit head, not the whole string.
        let input = json!([{"role": "user", "content": "body", "provenance": prov()}]);
        let values = input.as_array().cloned().unwrap_or_default();
        let src = crate::transcript::JsonSource(&values);
        let mut ctx = Ctx::new(&src, false);
        let mut msgs = skeleton::from_values(&values);
        if let Content::Str { info, .. } = &mut msgs[0].content {
            *info = TextInfo {
                len: 10_000,
                blank: false,
                head: Some(format!("{PREFIX}\n{}", "x".repeat(4000)).into()),
                head_is_whole: false,
            };
        }
        assert!(!annotate_inter_session_user_turns(&mut msgs, &mut ctx));
        if let Content::Str { info, .. } = &mut msgs[0].content {
            info.head = Some("[Inter-session".into());
        }
        assert!(annotate_inter_session_user_turns(&mut msgs, &mut ctx));
        match &msgs[0].content {
            Content::Str { prefix, from, .. } => {
                assert_eq!(&**prefix, format!("{PREFIX}\n"));
                assert_eq!(*from, Some(0));
            }
            other => panic!("unexpected content {other:?}"),
        }
    }

    #[test]
    fn the_view_follows_the_edit() {
        let input = json!([{"role": "user", "provenance": prov(), "content": [{"type": "text", "text": ""}]}]);
        let values = input.as_array().cloned().unwrap_or_default();
        let src = crate::transcript::JsonSource(&values);
        let mut ctx = Ctx::new(&src, false);
        let mut msgs = skeleton::from_values(&values);
        assert!(annotate_inter_session_user_turns(&mut msgs, &mut ctx));
        let b = &msgs[0]
            .blocks()
            .map(|b| b[0].clone())
            .unwrap_or_else(|| Block::new_text(""));
        assert!(matches!(b.origin, BlockOrigin::Src { msg: 0, idx: 0 }));
        let t = b.text.clone().unwrap_or_default();
        assert!(!t.blank);
        assert_eq!(t.len as usize, PREFIX.len() + 1);
    }
}
