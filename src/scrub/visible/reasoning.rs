//! Reasoning tags as OpenClaw 2026.9.6 strips them (`stripReasoningTagsFromText`,
//! `packages/markdown-core/src/reasoning-tag-parser.ts`). What changed from 2026.3.23
//! ([`crate::scrub::reasoning_tags`]), each for a leak seen in the wild:
//!
//! - fourteen tag names (`think`, `thinking`, `thought`, `reasoning`, `internal`, `antthinking`,
//!   and `antml:`/`mm:` prefixed `think`/`thinking`/`thought`/`reasoning`), matched
//!   case-insensitively, with quote-aware attributes;
//! - nesting: `<think>a<think>b</think>c</think>` is one block;
//! - an orphan `</think>` with visible text on both sides drops everything before it (models
//!   that were given the opening tag in the prompt write only the close);
//! - an unclosed opening tag with nothing visible before it is *shown* in strict mode (a reply
//!   that is only `<think>…` would otherwise be empty); after visible text it is dropped;
//! - `<internal>` blocks are hidden in every mode;
//! - tags inside Markdown code (CommonMark, [`super::markdown_code`]) stay;
//! - `<final>` markers go first ([`super::final_tags`]).

use std::borrow::Cow;

use super::final_tags::{has_final_tags, strip_final_tags};
use super::markdown_code::MarkdownCode;
use super::needles::Needles;
use super::text::skip_ws;
use crate::js_text::{is_js_whitespace, js_trim};

/// The tag names, lower case.
const NAMES: [&str; 14] = [
    "think",
    "thinking",
    "thought",
    "reasoning",
    "internal",
    "antthinking",
    "antml:think",
    "antml:thinking",
    "antml:thought",
    "antml:reasoning",
    "mm:think",
    "mm:thinking",
    "mm:thought",
    "mm:reasoning",
];

/// Strict hides reasoning; preserve shows an unclosed block's body even after visible text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// OpenClaw's `"strict"` (the default).
    Strict,
    /// OpenClaw's `"preserve"`.
    Preserve,
}

/// Which reasoning blocks go: all, or only those before the first visible text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `"all"` (the default).
    All,
    /// `"leading"` (OpenClaw's final-answer delivery).
    Leading,
}

/// What is trimmed from the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trim {
    /// Nothing.
    None,
    /// The start.
    Start,
    /// Both ends (the default).
    Both,
}

/// The options of [`strip_reasoning_tags`], OpenClaw's defaults in [`Options::default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Strict or preserve.
    pub mode: Mode,
    /// What is trimmed.
    pub trim: Trim,
    /// All blocks or the leading ones.
    pub scope: Scope,
    /// `false`: an unclosed block is always hidden (for partial, still-streaming text).
    pub recover_unclosed: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Strict,
            trim: Trim::Both,
            scope: Scope::All,
            recover_unclosed: true,
        }
    }
}

/// One reasoning tag found in the text.
#[derive(Debug, Clone, Copy)]
struct Tag {
    start: usize,
    end: usize,
    close: bool,
    self_closing: bool,
    private: bool,
}

/// The tag at `start` (a `<`), or the position to look from next.
fn parse_tag(text: &str, start: usize) -> Result<Tag, usize> {
    let b = text.as_bytes();
    let invalid =
        || Err(memchr::memchr(b'<', &b[start + 1..]).map_or(text.len(), |i| start + 1 + i));
    let mut i = skip_ws(text, start + 1);
    let close = b.get(i) == Some(&b'/');
    if close {
        i = skip_ws(text, i + 1);
    }
    let name_start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b':') {
        i += 1;
    }
    let name = text[name_start..i].to_ascii_lowercase();
    if name.is_empty() || !NAMES.contains(&name.as_str()) || i == b.len() {
        return invalid();
    }
    let Some(boundary) = text[i..].chars().next() else {
        return invalid();
    };
    if !is_js_whitespace(boundary) && boundary != '/' && boundary != '>' {
        return invalid();
    }
    let mut quote: Option<char> = None;
    let mut last_significant = '\0';
    for (off, c) in text[i..].char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '<' => return invalid(),
            '>' => {
                return Ok(Tag {
                    start,
                    end: i + off + 1,
                    close,
                    self_closing: !close && last_significant == '/',
                    private: name == "internal",
                })
            }
            c if !is_js_whitespace(c) => last_significant = c,
            _ => {}
        }
    }
    invalid()
}

/// Every reasoning tag of `text`, in order (OpenClaw's `scanReasoningTags` on a whole text).
fn scan(text: &str) -> Vec<Tag> {
    let mut tags = Vec::new();
    let mut cursor = 0;
    while let Some(p) = memchr::memchr(b'<', &text.as_bytes()[cursor..]) {
        match parse_tag(text, cursor + p) {
            Ok(tag) => {
                cursor = tag.end;
                tags.push(tag);
            }
            Err(next) => cursor = next,
        }
    }
    tags
}

/// The block being read while inside reasoning.
struct Pending {
    content: String,
    private: bool,
    protected_close: bool,
    visible_before: bool,
}

/// OpenClaw's reducer on a whole text: the visible text.
fn reduce(text: &str, code: &MarkdownCode, options: Options) -> String {
    let tags: Vec<Tag> = scan(text)
        .into_iter()
        .filter(|t| !code.contains(t.start))
        .collect();
    // Leading scope: whether the rest must still be parsed (a private block or a close follows).
    let mut must_parse = vec![false; tags.len()];
    if options.scope == Scope::Leading {
        let mut m = false;
        for (i, t) in tags.iter().enumerate().rev() {
            m |= t.private;
            must_parse[i] = m;
            m |= t.close;
        }
    }
    let mut out = String::new();
    let mut visible_ever = false;
    let mut depth = 0usize;
    let mut pending: Option<Pending> = None;
    let emit = |out: &mut String, visible_ever: &mut bool, s: &str| {
        out.push_str(s);
        if !js_trim(s).is_empty() {
            *visible_ever = true;
        }
    };
    let append = |out: &mut String,
                  visible_ever: &mut bool,
                  pending: &mut Option<Pending>,
                  depth: usize,
                  s: &str| {
        if s.is_empty() {
            return;
        }
        match pending {
            Some(p) if depth > 0 => {
                p.content.push_str(s);
                p.protected_close |= scan(s).iter().any(|t| t.close);
            }
            _ => emit(out, visible_ever, s),
        }
    };
    let mut cursor = 0;
    for (i, tag) in tags.iter().enumerate() {
        let before = &text[cursor..tag.start];
        append(&mut out, &mut visible_ever, &mut pending, depth, before);
        let leading_done = depth == 0 && options.scope == Scope::Leading && visible_ever;
        if tag.self_closing {
            if leading_done {
                emit(&mut out, &mut visible_ever, &text[tag.start..]);
                cursor = text.len();
                break;
            }
            cursor = tag.end;
            continue;
        }
        if !tag.close {
            if leading_done && !must_parse[i] {
                emit(&mut out, &mut visible_ever, &text[tag.start..]);
                cursor = text.len();
                break;
            }
            if depth == 0 {
                pending = Some(Pending {
                    content: String::new(),
                    private: tag.private,
                    protected_close: false,
                    visible_before: visible_ever,
                });
            } else if let Some(p) = pending.as_mut() {
                p.private |= tag.private;
            }
            depth += 1;
            cursor = tag.end;
            continue;
        }
        if depth > 0 {
            depth -= 1;
            if depth == 0 {
                // The block's content is reasoning: not shown.
                pending = None;
            } else if let Some(p) = pending.as_mut() {
                p.protected_close = true;
            }
            cursor = tag.end;
            continue;
        }
        // An orphan close with visible text on both sides: what came before was reasoning.
        if !js_trim(before).is_empty() && !js_trim(&text[tag.end..]).is_empty() {
            out.clear();
            visible_ever = false;
        }
        cursor = tag.end;
    }
    if cursor < text.len() {
        append(
            &mut out,
            &mut visible_ever,
            &mut pending,
            depth,
            &text[cursor..],
        );
    }
    if depth > 0 {
        if let Some(p) = pending.take() {
            let shown = !p.private
                && options.recover_unclosed
                && match options.mode {
                    Mode::Preserve => true,
                    Mode::Strict => !p.visible_before && !p.protected_close,
                };
            if shown {
                emit(&mut out, &mut visible_ever, &p.content);
            }
        }
    }
    out
}

/// What a reply needs for [`strip_reasoning_tags`] to change it: every tag opens with `<`.
pub const NEEDLES: Needles = Needles::exact(&["<"]);

/// The text without reasoning blocks and `<final>` markers (see the module doc); borrowed when
/// it has neither (then it is not trimmed either, as in OpenClaw).
///
/// ```
/// use transcript_hygiene::scrub::visible::reasoning::{strip_reasoning_tags, Options};
/// let o = Options::default();
/// assert_eq!(strip_reasoning_tags("<think>先想想</think>答案是 42。", o), "答案是 42。");
/// assert_eq!(strip_reasoning_tags("旧的推理</think>答案", o), "答案");
/// assert_eq!(strip_reasoning_tags("<think>只有推理，没有闭合", o), "只有推理，没有闭合");
/// ```
pub fn strip_reasoning_tags(text: &str, options: Options) -> Cow<'_, str> {
    if !NEEDLES.found(text) {
        return Cow::Borrowed(text);
    }
    let has_final = has_final_tags(text);
    let cleaned = if has_final {
        strip_final_tags(text)
    } else {
        Cow::Borrowed(text)
    };
    let has_reasoning = !scan(&cleaned).is_empty();
    if !has_final && !has_reasoning {
        return Cow::Borrowed(text);
    }
    let stripped: Cow<'_, str> = if has_reasoning {
        Cow::Owned(reduce(&cleaned, &MarkdownCode::find(&cleaned), options))
    } else {
        cleaned
    };
    let trimmed = match options.trim {
        Trim::None => &stripped[..],
        Trim::Start => stripped.trim_start_matches(is_js_whitespace),
        Trim::Both => js_trim(&stripped),
    };
    if trimmed == text {
        return Cow::Borrowed(text);
    }
    Cow::Owned(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_reasoning_tags(t, Options::default()).into_owned()
    }

    #[test]
    fn blocks_nesting_and_new_names() {
        assert_eq!(s("<think>a<think>b</think>c</think>答"), "答");
        assert_eq!(s("<thinking x='>'>r</thinking>ok"), "ok");
        assert_eq!(
            s("<REASONING>r</reasoning> ok <mm:think>x</mm:think>!"),
            "ok !"
        );
    }

    #[test]
    fn orphan_close_and_unclosed_recovery() {
        assert_eq!(s("reasoning</think>answer"), "answer");
        assert_eq!(s("</think>answer"), "answer");
        assert_eq!(s("<think>still thinking"), "still thinking");
        assert_eq!(s("answer <think>more"), "answer");
        assert_eq!(s("<internal>secret"), "");
        let partial = Options {
            recover_unclosed: false,
            ..Options::default()
        };
        assert_eq!(strip_reasoning_tags("<think>still", partial), "");
    }

    #[test]
    fn code_and_lookalikes_stay() {
        for t in [
            "`<think>` is a tag",
            "```\n<think>\n```",
            "<thinker>x</thinker>",
            "a < think",
        ] {
            assert!(
                matches!(
                    strip_reasoning_tags(t, Options::default()),
                    Cow::Borrowed(_)
                ),
                "{t}"
            );
        }
    }
}
