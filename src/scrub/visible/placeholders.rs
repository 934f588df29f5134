//! OpenClaw 2026.9.6's `stripInternalPlaceholderLines` (`sanitize-user-facing-text.ts`): when a
//! tool printed nothing, OpenClaw writes `(no output)` into the tool result, and when it trims a
//! history it writes `[tool calls omitted]`; models copy both into their replies. A line that is
//! only one of them (ASCII case ignored for the second, spaces and tabs around it) goes with its
//! line break, unless it starts inside Markdown code.

use std::borrow::Cow;

use super::markdown_code::strip_lines_outside_code;
use crate::js_text::js_trim;

/// What a text must hold for this rule to change it.
pub const NEEDLES: super::needles::Needles = super::needles::Needles {
    exact: &["(no output)"],
    ignore_case: &[OMITTED],
};

const OMITTED: &str = "[tool calls omitted]";

fn is_placeholder(line: &str) -> bool {
    let t = line.trim_matches([' ', '\t']);
    t.eq_ignore_ascii_case(OMITTED) || js_trim(line) == "(no output)"
}

/// The text without placeholder lines outside code; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::placeholders::strip_placeholder_lines;
/// assert_eq!(strip_placeholder_lines("结果：\n(no output)\n完成"), "结果：\n完成");
/// assert_eq!(strip_placeholder_lines("it said (no output) twice"), "it said (no output) twice");
/// ```
pub fn strip_placeholder_lines(text: &str) -> Cow<'_, str> {
    if !NEEDLES.found(text) {
        return Cow::Borrowed(text);
    }
    strip_lines_outside_code(text, is_placeholder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_placeholder_lines_go_and_code_or_prose_stays() {
        let t = "a\n  [Tool Calls Omitted]\t\n\u{3000}(no output)\u{3000}\nb";
        assert_eq!(strip_placeholder_lines(t), "a\nb");
        for same in [
            "```\n(no output)\n```",
            "    [tool calls omitted]",
            "x [tool calls omitted]",
            "\u{3000}[tool calls omitted]",
        ] {
            assert_eq!(strip_placeholder_lines(same), same);
        }
    }
}
