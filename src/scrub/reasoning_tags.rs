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
use crate::response::stream::START_REGION;

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

/// The same on a [`Spliced`] text (the addon runs it on a proxy of the JS string), with
/// OpenClaw's bytes (`codeAware: false`).
pub fn strip_spliced(text: Spliced<'_>, mode: TagMode, trim: Trim) -> Spliced<'_> {
    strip_with(text, mode, trim, false)
}

/// The default reading (`codeAware: true`): the reply rules of `cleanResponse` for where
/// reasoning is ([`Reading`]), and code found as CommonMark finds fences (indented up to three
/// spaces) as well as OpenClaw's way.
pub fn strip_spliced_code_aware(text: Spliced<'_>, mode: TagMode, trim: Trim) -> Spliced<'_> {
    strip_with(text, mode, trim, true)
}

/// Where a tag outside code is reasoning under `codeAware: true`, as `cleanResponse` reads a reply
/// for a model it does not know: an opening tag only while nothing visible precedes it (the reply
/// starts with its reasoning; a later one is text, and so is every closing tag after it: a
/// sentence that names the pair and then a lone closer, `emits both <think> and </think>, but …
/// emits only </think>`, is text to its end, never reasoning the prompt opened); a closing
/// tag with no block open only when it ends its line (inside a sentence it is text, and so is one
/// after words and a space at its line's end), and then, if it ends within the first
/// [`START_REGION`] bytes, nothing was removed before it and text follows it, what precedes it is
/// reasoning the prompt opened and goes with it.
#[derive(Debug, Default)]
struct Reading {
    /// Visible text was kept before the current position.
    visible: bool,
    /// An opening tag was kept as text: every closing tag after it is text too.
    text_open: bool,
    /// A tag was removed.
    removed: bool,
}

/// What to do with a tag outside code under [`Reading`].
enum Verdict {
    /// Leave it as text.
    Text,
    /// Remove it (and its block) as OpenClaw does.
    Remove,
    /// Remove it and everything before it.
    RemoveWithStart,
}

impl Reading {
    fn tag(&mut self, c: &str, at: std::ops::Range<usize>, close: bool, kept: &str) -> Verdict {
        if !self.visible {
            self.visible = !js_trim(kept).is_empty();
        }
        if !close {
            if self.visible {
                self.text_open = true;
                return Verdict::Text;
            }
            self.removed = true;
            return Verdict::Remove;
        }
        // A closing tag after words and a space at its line's end is named in a sentence, as
        // `cleanResponse` reads it (`content 中包含思考内容 + </think>`).
        if self.text_open
            || !ends_line(c, at.end)
            || crate::response::thinking::named_at_line_end(&c[..at.start])
        {
            return Verdict::Text;
        }
        // Only when text follows it (OpenClaw 2026.9.6's rule for a stray closer): one that ends
        // the text leaves what precedes it (`模型回复的最后多了一个\n</thinking>`, a sentence
        // someone wrote, is kept without its tag rather than emptied).
        let start = !self.removed && at.end <= START_REGION && !js_trim(&c[at.end..]).is_empty();
        self.removed = true;
        if start {
            self.visible = false;
            Verdict::RemoveWithStart
        } else {
            Verdict::Remove
        }
    }
}

/// Whether only spaces or tabs stand between `at` and the end of its line.
fn ends_line(c: &str, at: usize) -> bool {
    let rest = c[at..].trim_start_matches([' ', '\t', '\r']);
    rest.is_empty() || rest.starts_with('\n')
}

fn strip_with(text: Spliced<'_>, mode: TagMode, trim: Trim, aware: bool) -> Spliced<'_> {
    let find = if aware {
        CodeRegions::find_indented
    } else {
        CodeRegions::find
    };
    let t = text.as_str();
    if memchr::memchr(b'<', t.as_bytes()).is_none() || !QUICK.is_match(t) {
        return text;
    }
    // Whether a tag was removed: with none, the code-aware reading returns the text untrimmed.
    let mut changed = false;
    let cleaned = if FINAL.is_match(t) {
        let code = find(t);
        let mut out = text.builder();
        let mut at = 0;
        for m in FINAL.find_iter(t) {
            if !code.contains(m.start()) {
                out.keep(at..m.start());
                at = m.end();
                changed = true;
            }
        }
        out.keep(at..t.len());
        out.finish()
    } else {
        text
    };
    let c = cleaned.as_str();
    let code = find(c);
    let mut result = cleaned.builder();
    let mut last = 0;
    let mut in_thinking = false;
    let mut reading = Reading::default();
    for caps in THINKING.captures_iter(c) {
        let Some(m) = caps.get(0) else { continue };
        if code.contains(m.start()) {
            continue;
        }
        let is_close = caps.get(1).is_some_and(|g| !g.is_empty());
        if aware && !in_thinking {
            match reading.tag(c, m.range(), is_close, &c[last..m.start()]) {
                Verdict::Text => continue,
                Verdict::RemoveWithStart => {
                    last = m.end();
                    changed = true;
                    continue;
                }
                Verdict::Remove => {}
            }
        }
        changed = true;
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
    if aware && !changed {
        return cleaned;
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

    fn aware(t: &str) -> String {
        let out = strip_spliced_code_aware(Spliced::new(t), TagMode::Strict, Trim::Both);
        out.as_str().to_owned()
    }

    #[test]
    fn code_aware_reads_reasoning_as_the_cleaner_does() {
        // Reasoning that starts the reply goes, as with OpenClaw.
        assert_eq!(aware("<think>plan</think>\nAnswer"), "Answer");
        assert_eq!(
            aware("  <think>a</think><thinking>b</thinking>Answer"),
            "Answer"
        );
        // After visible text a tag is text, and so is its closing tag.
        let late = "Answer: use <think>…</think> around reasoning.";
        assert_eq!(aware(late), late);
        assert_eq!(s(late), "Answer: use  around reasoning.");
        // A closing tag inside a sentence is text.
        let t = "本地部署DeepSeek-R1-Distill-Qwen-32B,输出仅有</think>，没有<think>";
        assert_eq!(aware(t), t);
        // One that ends its line near the start ends reasoning the prompt opened.
        assert_eq!(
            aware("I should look.\n</think>\n\nHere it is."),
            "Here it is."
        );
        // Later, or after removed reasoning, it goes alone.
        let far = format!("{}\n</think>\nWorld", "x".repeat(START_REGION));
        assert_eq!(
            aware(&far),
            format!("{}\n\nWorld", "x".repeat(START_REGION))
        );
        assert_eq!(
            aware("<think>r</think>Hello\n</think>\nWorld"),
            "Hello\n\nWorld"
        );
        // Once a tag was kept as text, every closing tag after it is text, one that ends the
        // text too (Cerebras/cerebras-cloud-sdk-python#10's title: everything was lost).
        let title = "Inconsistent behavior: qwen-3-32b emits both <think> and </think>, but \
                     qwen-3-235b emits only </think>";
        assert_eq!(aware(title), title);
        assert_eq!(
            s(title),
            "Inconsistent behavior: qwen-3-32b emits both , but qwen-3-235b emits only"
        );
        let zh = "模型有时输出 <think> 和 </think>，有时只有 </think>\n见上";
        assert_eq!(aware(zh), zh);
        // Reasoning that starts the text still goes, and a later lone closer with it.
        assert_eq!(
            aware("<think>想一想</think>北京晴。\n</think>\n"),
            "北京晴。"
        );
        // A closing tag that ends the text takes only itself: the text before it was written
        // as the reply (strict mode emptied it).
        assert_eq!(
            aware("模型回复的最后多了一个\n</thinking>"),
            "模型回复的最后多了一个"
        );
        assert_eq!(aware("I should look.\n</think>\n \n"), "I should look.");
        // SkyworkAI/Skywork-R1V#14: reasoning the prompt opened, closed on its own line.
        let r1v = "No, there is no dog in the image.\n</think>\n\nThe image shows a traffic sign.";
        assert_eq!(aware(r1v), "The image shows a traffic sign.");
        // An indented fence is code.
        let fenced = "Example:\n  ```\n  <think>x</think> ok";
        assert_eq!(aware(fenced), fenced);
        assert_eq!(s(fenced), "Example:\n  ```\n   ok");
    }

    #[test]
    fn word_boundary_is_ascii() {
        assert_eq!(s("a<thinké>b</think>c"), "ac");
    }
}
