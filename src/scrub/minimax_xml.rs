//! `stripMinimaxToolCallXml` (OpenClaw `src/agents/pi-embedded-utils.ts`): MiniMax models served
//! through OpenAI-compatible APIs sometimes write their tool calls into the reply text as
//! `<minimax:tool_call><invoke name="…">…</invoke></minimax:tool_call>` instead of structured
//! calls, and the user would see the XML. Only when the text mentions `minimax:tool_call` (any
//! case): every `<invoke …>…</invoke>` block is removed (an unclosed one stays), then every
//! `<minimax:tool_call>` / `</minimax:tool_call>` tag. Nothing else changes (no trimming).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::splice::Spliced;
use super::text::find_ci;

/// Text with none of these bytes is returned unchanged (every pattern removed starts with `<`).
pub const PREFILTER: &[u8] = b"<";

/// `<invoke` (any case, then an ASCII word boundary), attributes up to the first `>`, then the
/// shortest body up to `</invoke>` (any case).
pub(crate) static INVOKE_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<(?i-u:invoke)(?-u:\b)[^>]*>(?s:.)*?</(?i-u:invoke)>").expect("static regex")
});
pub(crate) static WRAPPER_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?(?i-u:minimax:tool_call)>").expect("static regex"));

/// The text without MiniMax tool-call XML; borrowed when nothing had to change.
pub fn strip_minimax_tool_call_xml(text: &str) -> Cow<'_, str> {
    strip_spliced(Spliced::new(text)).into_text()
}

/// The same on a [`Spliced`] text (the addon runs it on a proxy of the JS string).
pub fn strip_spliced(text: Spliced<'_>) -> Spliced<'_> {
    if !contains_marker(text.as_str()) {
        return text;
    }
    text.replace_all(&INVOKE_BLOCK, "")
        .replace_all(&WRAPPER_TAG, "")
}

/// `/minimax:tool_call/i`.
fn contains_marker(text: &str) -> bool {
    let mut at = 0;
    while let Some(i) = find_ci(text, ":tool_call", at) {
        if i >= 7 && text.as_bytes()[i - 7..i].eq_ignore_ascii_case(b"minimax") {
            return true;
        }
        at = i + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_minimax_tool_call_xml(t).into_owned()
    }

    #[test]
    fn removes_invoke_blocks_and_wrapper_tags() {
        let t = "Checking.<minimax:tool_call>\n<invoke name=\"read\">\n<parameter name=\"path\">a.txt</parameter>\n</invoke>\n</minimax:tool_call> Done.";
        assert_eq!(s(t), "Checking.\n\n Done.");
    }

    #[test]
    fn needs_the_minimax_marker() {
        let t = "<invoke name=\"x\">y</invoke>";
        assert!(matches!(strip_minimax_tool_call_xml(t), Cow::Borrowed(_)));
        assert_eq!(
            s("MINIMAX:TOOL_CALL <INVOKE a>b</Invoke>!"),
            "MINIMAX:TOOL_CALL !"
        );
    }

    #[test]
    fn unclosed_invoke_and_lone_closing_tag() {
        // An invoke without `</invoke>` is left; the closing wrapper tag is removed.
        assert_eq!(
            s("a <invoke name=\"f\"><parameter name=\"p\">1</minimax:tool_call>"),
            "a <invoke name=\"f\"><parameter name=\"p\">1"
        );
    }

    #[test]
    fn invoke_needs_a_word_boundary_and_shortest_body() {
        assert_eq!(
            s("minimax:tool_call <invoker>x</invoke> <invoke>1</invoke>2</invoke>"),
            "minimax:tool_call <invoker>x</invoke> 2</invoke>"
        );
        // A non-ASCII letter after `invoke` is a boundary in JavaScript's non-Unicode `\b`.
        assert_eq!(
            s("minimax:tool_call<invokeé>x</invoke>"),
            "minimax:tool_call"
        );
    }

    #[test]
    fn text_without_marker_is_borrowed() {
        assert!(matches!(strip_minimax_tool_call_xml(""), Cow::Borrowed("")));
        assert!(matches!(
            strip_minimax_tool_call_xml("plain :tool_call"),
            Cow::Borrowed(_)
        ));
    }
}
