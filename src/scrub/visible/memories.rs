//! `<relevant-memories>` blocks (OpenClaw 2026.9.6, `stripRelevantMemoriesTags` in
//! `src/shared/text/assistant-visible-text.ts`): OpenClaw's memory plugins put recalled memories
//! into the prompt inside `<relevant-memories>…</relevant-memories>`, and models echo them back.
//! From 2026.9.6 on every delivered reply drops such blocks (2026.3.23 did so only in internal
//! scaffolding). An unclosed block hides the rest of the reply; a stray closing tag is removed
//! alone; tags in Markdown code stay. Tag names are case-insensitive, `-` or `_`, attributes allowed.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::LazyCode;
use super::needles::Needles;
use crate::js_text::JS_WHITESPACE_CLASS as WS;

/// `/<\s*(\/?)\s*relevant[-_]memories\b[^<>]*>/gi` (the `\b` is JavaScript's ASCII one).
/// What a reply needs for [`strip_relevant_memories_tags`] to change it.
pub const NEEDLES: Needles = Needles::exact(&["<"]);

static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"<{WS}*(/?){WS}*(?i-u:relevant[-_]memories)(?:[^A-Za-z0-9_<>][^<>]*)?>"
    ))
    .expect("static regex")
});

/// The text without memory blocks outside code; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::memories::strip_relevant_memories_tags;
/// let t = "<relevant-memories>user likes tea</relevant-memories>好的。";
/// assert_eq!(strip_relevant_memories_tags(t), "好的。");
/// ```
pub fn strip_relevant_memories_tags(text: &str) -> Cow<'_, str> {
    if !TAG.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut code = LazyCode::new(text);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut inside = false;
    let mut changed = false;
    for c in TAG.captures_iter(text) {
        let (Some(m), Some(slash)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if code.get().contains(m.start()) {
            continue;
        }
        changed = true;
        let close = !slash.is_empty();
        if !inside {
            out.push_str(&text[last..m.start()]);
            inside = !close;
        } else if close {
            inside = false;
        }
        last = m.end();
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    if !inside {
        out.push_str(&text[last..]);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_relevant_memories_tags(t).into_owned()
    }

    #[test]
    fn blocks_go_and_the_reply_stays() {
        assert_eq!(s("a<relevant-memories>\n- x\n</relevant-memories>b"), "ab");
        assert_eq!(
            s("< RELEVANT_MEMORIES source=\"m\">x</relevant_memories >b"),
            "b"
        );
        assert_eq!(s("a</relevant-memories>b"), "ab");
        assert_eq!(s("a<relevant-memories>rest"), "a");
    }

    #[test]
    fn lookalikes_and_code_stay() {
        for t in [
            "<relevant-memoriesx>y",
            "`<relevant-memories>` is the tag",
            "```\n<relevant-memories>\n```",
        ] {
            assert!(
                matches!(strip_relevant_memories_tags(t), Cow::Borrowed(_)),
                "{t}"
            );
        }
    }
}
