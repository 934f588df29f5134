//! `stripReasoningTagsFromText` and `stripThinkingTagsFromText` (OpenClaw
//! `src/shared/text/reasoning-tags.ts`, `src/agents/pi-embedded-utils.ts`): reasoning models
//! (DeepSeek-R1, MiniMax, Qwen, Claude's `<antThinking>`, Gemini's `<thought>`) can leave their
//! reasoning inline in the reply text; the user must not see it.
//!
//! - Quick test: text without `<`, optional blanks, optional `/`, optional blanks and
//!   `think`/`thinking`/`thought`/`antthinking`/`final` (any case, then an ASCII word boundary)
//!   is returned as it is.
//! - `<final …>` / `</final>` tags are removed, their content kept, unless the tag starts inside
//!   code ([`CodeRegions`]).
//! - Outside code, text between an opening `<think…>` (or `<thinking>`, `<thought>`,
//!   `<antthinking>`, any attributes) and the next closing tag of any of those names is removed
//!   with the tags; a closing tag outside a block is removed alone.
//! - An opening tag never closed drops the rest of the text in [`TagMode::Strict`] and keeps it
//!   (without the tag) in [`TagMode::Preserve`].
//! - Then the result is trimmed as asked ([`Trim`], JavaScript's `trim`/`trimStart`).
//!
//! `stripThinkingTagsFromText` is this with `Strict` and `Trim::Both`.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::code_regions::CodeRegions;
use super::splice::Spliced;
use super::text::JS_SPACE;
use crate::js_text::{is_js_whitespace, js_trim};

/// Text with none of these bytes is returned unchanged (the quick test needs a `<`).
pub const PREFILTER: &[u8] = b"<";

/// What to do with an opening tag that is never closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TagMode {
    /// Drop everything after it.
    #[default]
    Strict,
    /// Keep what follows it.
    Preserve,
}

/// Which ends of the result to trim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trim {
    None,
    Start,
    #[default]
    Both,
}

static QUICK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"<{JS_SPACE}*/?{JS_SPACE}*(?i-u:think(?:ing)?|thought|antthinking|final)(?-u:\b)"
    ))
    .expect("static regex")
});
static FINAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"<{JS_SPACE}*/?{JS_SPACE}*(?i-u:final)(?-u:\b)[^<>]*>"
    ))
    .expect("static regex")
});
static THINKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"<{JS_SPACE}*(/?){JS_SPACE}*(?i-u:think(?:ing)?|thought|antthinking)(?-u:\b)[^<>]*>"
    ))
    .expect("static regex")
});

/// OpenClaw's `stripThinkingTagsFromText`: strict mode, trimmed at both ends.
pub fn strip_thinking_tags_from_text(text: &str) -> Cow<'_, str> {
    strip_reasoning_tags_from_text(text, TagMode::Strict, Trim::Both)
}

/// OpenClaw's `stripReasoningTagsFromText`; borrowed when the quick test finds no tag.
pub fn strip_reasoning_tags_from_text(text: &str, mode: TagMode, trim: Trim) -> Cow<'_, str> {
    strip_spliced(Spliced::new(text), mode, trim).into_text()
}

/// The same on a [`Spliced`] text (the addon runs it on a proxy of the JS string).
pub fn strip_spliced(text: Spliced<'_>, mode: TagMode, trim: Trim) -> Spliced<'_> {
    let t = text.as_str();
    if memchr::memchr(b'<', t.as_bytes()).is_none() || !QUICK.is_match(t) {
        return text;
    }
    let cleaned = if FINAL.is_match(t) {
        let code = CodeRegions::find(t);
        let mut out = text.builder();
        let mut at = 0;
        for m in FINAL.find_iter(t) {
            if !code.contains(m.start()) {
                out.keep(at..m.start());
                at = m.end();
            }
        }
        out.keep(at..t.len());
        out.finish()
    } else {
        text
    };
    let c = cleaned.as_str();
    let code = CodeRegions::find(c);
    let mut result = cleaned.builder();
    let mut last = 0;
    let mut in_thinking = false;
    for caps in THINKING.captures_iter(c) {
        let Some(m) = caps.get(0) else { continue };
        if code.contains(m.start()) {
            continue;
        }
        let is_close = caps.get(1).is_some_and(|g| !g.is_empty());
        if !in_thinking {
            result.keep(last..m.start());
            if !is_close {
                in_thinking = true;
            }
        } else if is_close {
            in_thinking = false;
        }
        last = m.end();
    }
    if !in_thinking || mode == TagMode::Preserve {
        result.keep(last..c.len());
    }
    let result = result.finish();
    let r = result.as_str();
    let start = match trim {
        Trim::None => 0,
        Trim::Start | Trim::Both => r.len() - r.trim_start_matches(is_js_whitespace).len(),
    };
    let end = match trim {
        Trim::Both => start + js_trim(r).len(),
        Trim::None | Trim::Start => r.len(),
    };
    result.slice(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_thinking_tags_from_text(t).into_owned()
    }

    #[test]
    fn removes_thinking_blocks_of_every_name() {
        assert_eq!(s("<think>plan</think>\nAnswer"), "Answer");
        assert_eq!(s("A<thinking a=\"1\">x</thinking>B"), "AB");
        assert_eq!(
            s("A<Thought>x</THOUGHT>B<antThinking>y</antThinking>C"),
            "ABC"
        );
        assert_eq!(s("A< / think >B"), "AB");
        // Any closing name closes any opening one.
        assert_eq!(s("A<think>x</thought>B"), "AB");
    }

    #[test]
    fn final_tags_go_but_their_content_stays() {
        assert_eq!(s("<think>r</think><final>Done</final>"), "Done");
        assert_eq!(s("<FINAL x>Done</ final >"), "Done");
    }

    #[test]
    fn tags_in_code_are_left() {
        let t = "Use `<think>` like this:\n```\n<think>x</think>\n```\nok";
        assert!(matches!(strip_thinking_tags_from_text(t), Cow::Owned(_)));
        assert_eq!(s(t), t);
        assert_eq!(s("`<final>`"), "`<final>`");
    }

    #[test]
    fn unclosed_block_strict_vs_preserve() {
        assert_eq!(s("Hi <think>still thinking"), "Hi");
        assert_eq!(
            strip_reasoning_tags_from_text(
                "Hi <think>still thinking",
                TagMode::Preserve,
                Trim::Both
            ),
            "Hi still thinking"
        );
    }

    #[test]
    fn stray_close_and_trim_modes() {
        assert_eq!(s("  a</think>b  "), "ab");
        assert_eq!(
            strip_reasoning_tags_from_text("  a</think>b  ", TagMode::Strict, Trim::None),
            "  ab  "
        );
        assert_eq!(
            strip_reasoning_tags_from_text("  a</think>b  ", TagMode::Strict, Trim::Start),
            "ab  "
        );
    }

    #[test]
    fn no_tag_is_borrowed_and_untrimmed() {
        for t in ["  plain  ", "<thinker>", "a < b", "<thinkingx>", ""] {
            assert!(
                matches!(strip_thinking_tags_from_text(t), Cow::Borrowed(_)),
                "{t}"
            );
        }
    }

    #[test]
    fn word_boundary_is_ascii() {
        assert_eq!(s("a<thinké>b</think>c"), "ac");
    }
}
