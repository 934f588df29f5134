//! Legacy `[TOOL_CALL]` blocks (OpenClaw 2026.9.6, `stripLegacyBracketToolCallBlocks` in
//! `src/shared/text/assistant-visible-text.ts`): some models (MiniMax-era and OpenRouter
//! fine-tunes) write calls as `[TOOL_CALL]{tool => "read", args => {…}}[/TOOL_CALL]` and echo
//! results as `[TOOL_RESULT]{…}[/TOOL_RESULT]`. A block is removed when its payload looks like a
//! call (`tool => "name"` and `args =>`) or a result (JSON, or `tool|result|output|content` with
//! `=>` or `:`); without a closing tag it runs to the end of the reply. Blocks that start in
//! Markdown code stay, and so does a close tag in code (the block then runs to the end).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::LazyCode;
use super::needles::Needles;
use crate::js_text::JS_WHITESPACE_CLASS as WS;

/// What a reply needs for [`strip_legacy_bracket_blocks`] to change it.
pub const NEEDLES: Needles = Needles::exact(&["["]);

static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"\[{WS}*(?i-u:TOOL_(CALL|RESULT)){WS}*\]")).expect("static regex")
});
static CLOSE_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"\[{WS}*/{WS}*(?i-u:TOOL_CALL){WS}*\]")).expect("static regex")
});
static CLOSE_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"\[{WS}*/{WS}*(?i-u:TOOL_RESULT){WS}*\]")).expect("static regex")
});
/// JavaScript's `\b` before a word: the previous character is not an ASCII word character.
const START: &str = r"(?:^|[^A-Za-z0-9_])";
static CALL_TOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"{START}(?i-u:tool){WS}*=>{WS}*["'][A-Za-z_][A-Za-z0-9_.:-]{{0,119}}["']"#
    ))
    .expect("static regex")
});
static CALL_ARGS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"{START}(?i-u:args){WS}*=>")).expect("static regex"));
static RESULT_JSON: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\A{WS}*[\{{\[]")).expect("static regex"));
static RESULT_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{START}(?i-u:tool|result|output|content){WS}*(?:=>|:)"
    ))
    .expect("static regex")
});

fn is_call(payload: &str) -> bool {
    CALL_TOOL.is_match(payload) && CALL_ARGS.is_match(payload)
}

fn is_result(payload: &str) -> bool {
    RESULT_JSON.is_match(payload) || RESULT_FIELD.is_match(payload)
}

/// The text without legacy bracket call/result blocks; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::legacy_bracket::strip_legacy_bracket_blocks;
/// let t = "好的[TOOL_CALL]{tool => \"read\", args => {\"path\":\"a\"}}[/TOOL_CALL]，已读取";
/// assert_eq!(strip_legacy_bracket_blocks(t), "好的，已读取");
/// ```
pub fn strip_legacy_bracket_blocks(text: &str) -> Cow<'_, str> {
    if !OPEN.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut code = LazyCode::new(text);
    let mut out = String::new();
    let mut cursor = 0;
    for c in OPEN.captures_iter(text) {
        let (Some(open), Some(kind)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if open.start() < cursor || code.get().contains(open.start()) {
            continue;
        }
        let result = kind.as_str().eq_ignore_ascii_case("RESULT");
        let close_re = if result { &*CLOSE_RESULT } else { &*CLOSE_CALL };
        let close = close_re
            .find_at(text, open.end())
            .filter(|m| !code.get().contains(m.start()));
        let payload = &text[open.end()..close.map_or(text.len(), |m| m.start())];
        if !(if result {
            is_result(payload)
        } else {
            is_call(payload)
        }) {
            continue;
        }
        out.push_str(&text[cursor..open.start()]);
        cursor = close.map_or(text.len(), |m| m.end());
        if cursor == text.len() {
            break;
        }
    }
    if out.is_empty() && cursor == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[cursor..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_legacy_bracket_blocks(t).into_owned()
    }

    #[test]
    fn calls_and_results_go() {
        assert_eq!(
            s("a [tool_call]{tool => 'exec', args => {}}[/TOOL_CALL] b"),
            "a  b"
        );
        assert_eq!(s("a[TOOL_RESULT]{\"ok\":1}[/TOOL_RESULT]b"), "ab");
        assert_eq!(s("a[TOOL_RESULT] output: 3"), "a");
    }

    #[test]
    fn blocks_that_are_not_calls_and_code_stay() {
        for t in [
            "[TOOL_CALL] please run the tests [/TOOL_CALL]",
            "[TOOL_RESULT] fine [/TOOL_RESULT]",
            "`[TOOL_CALL]{tool => \"x\", args => {}}[/TOOL_CALL]`",
        ] {
            assert!(
                matches!(strip_legacy_bracket_blocks(t), Cow::Borrowed(_)),
                "{t}"
            );
        }
    }
}
