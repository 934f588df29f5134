//! Internal trace lines (OpenClaw 2026.9.6, `stripAssistantInternalTraceLines` in
//! `src/shared/text/assistant-visible-text.ts`): agents that show tool progress in the chat
//! (`🛠️ Exec: ls`, `📖 Read: a.md`, `⚠️ 🛠️ Exec failed (exit 1)`, `tool_call: {…}`) feed those lines
//! back into the history, and models repeat them in their replies. From 2026.9.6 on a delivered
//! reply loses every such whole line outside Markdown code (with its line break).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::strip_lines_outside_code;
use super::needles::Needles;
use crate::js_text::{js_trim, JS_WHITESPACE_CLASS as WS};

/// What a trace line holds: a tool glyph (`🛠️` and `⚙️` with their U+FE0F), or `tool call`,
/// `tool_result`, `function-call`… (ASCII case ignored, as JavaScript's `/i`).
pub const NEEDLES: Needles = Needles {
    exact: &["📊", "🛠\u{FE0F}", "📖", "📝", "🔍", "🔎", "⚙\u{FE0F}"],
    ignore_case: &[
        "toolcall",
        "tool-call",
        "tool_call",
        "tool call",
        "toolresult",
        "tool-result",
        "tool_result",
        "tool result",
        "functioncall",
        "function-call",
        "function_call",
        "function call",
    ],
};

/// `(?:a|b|…)` of needles, escaped; `flags` opens the group (`?i-u:` for ASCII case ignored).
fn alternation(flags: &str, needles: &[&str]) -> String {
    let escaped: Vec<String> = needles.iter().map(|n| regex::escape(n)).collect();
    format!("(?{flags}{})", escaped.join("|"))
}

/// The glyphs that open a progress line.
static GLYPHS: LazyLock<String> = LazyLock::new(|| alternation(":", NEEDLES.exact));
/// The words of a call or result line.
static CHANNEL: LazyLock<String> = LazyLock::new(|| alternation("i-u:", NEEDLES.ignore_case));

/// Any line that can be a trace line has one of these.
static QUICK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("{}|{}", *GLYPHS, *CHANNEL)).expect("static regex"));

/// The four line shapes, each anchored at the start of the trimmed line.
static LINES: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    let (glyphs, channel) = (&*GLYPHS, &*CHANNEL);
    let quote = format!("(?:>{WS}*)?");
    let warn = "⚠\u{FE0F}";
    let tool = "🛠\u{FE0F}";
    let verbs = "(?i-u:Session Status|Exec|Read|Edit|Write|Patch|Search|Open|Click|Find|Screenshot|Update Plan|Tool Call|Tool Result|Function Call|Shell|Command)";
    let commands = "(?i-u:run|check|fetch|pull|push|view|show|list|switch|create|merge|rebase|stage|restore|reset|stash|search|find|print|copy|move|remove|install|start|cd|git|pnpm|npm|yarn|bun|node|python|python3|bash|sh)";
    // JavaScript's `\b` after a word: the next character is not an ASCII word character.
    let boundary = "(?:[^A-Za-z0-9_]|\\z)";
    let no_break = r"[^\r\n]";
    let nonspace = r"[^\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";
    [
        format!("^{quote}(?:{warn}{WS}*)?{glyphs}{WS}*{verbs}{WS}*:"),
        format!(
            "^{quote}{warn}{WS}*{tool}{WS}+(?:(?i-u:exec|bash){WS}+(?i-u:failed)(?:(?:{WS}+\\((?i-u:exit){WS}+-?[0-9]+\\))|(?:{WS}*:{no_break}*))?|{nonspace}{no_break}*{WS}+\\((?i-u:agent)\\)`{{0,2}}{WS}+(?i-u:failed)(?:{WS}*:{no_break}*)?){WS}*$"
        ),
        format!(
            // (`(?:elevated|pty)\b\s*(?:·|,)`: what follows the word is never a word character.)
            "^{quote}{tool}{WS}*(?:(?:(?i-u:elevated|pty){WS}*(?:·|,){WS}*)+)?(?:`{{1,2}}{WS}*{nonspace}|{commands}{boundary})"
        ),
        format!("^{quote}{channel}{WS}*[:=]"),
    ]
    .map(|p| Regex::new(&p).expect("static regex"))
});

/// Whether one line (untrimmed) is a trace line.
fn is_trace_line(line: &str) -> bool {
    let t = js_trim(line);
    LINES.iter().any(|re| re.is_match(t))
}

/// The text without trace lines outside code; borrowed when it has none.
///
/// ```
/// use transcript_hygiene::scrub::visible::trace_lines::strip_trace_lines;
/// assert_eq!(strip_trace_lines("🛠️ Exec: ls -la\n文件如下：\n"), "文件如下：\n");
/// ```
pub fn strip_trace_lines(text: &str) -> Cow<'_, str> {
    if !QUICK.is_match(text) {
        return Cow::Borrowed(text);
    }
    strip_lines_outside_code(text, is_trace_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_go() {
        for line in [
            "🛠️ Exec: npm test",
            "> 📖 Read: README.md",
            "⚠️ 🛠️ Exec failed (exit 2)",
            "⚠️ 🛠️ deploy (agent)`` failed: boom",
            "🛠️ elevated · git push",
            "🛠️ `rm -rf build`",
            "tool_call: {\"name\":\"read\"}",
            "Function-Call = x",
        ] {
            assert!(is_trace_line(line), "{line}");
        }
    }

    #[test]
    fn prose_that_mentions_tools_stays() {
        for line in [
            "The tool call failed, so I retried.",
            "🛠️ builder notes",
            "📖 Reading list: three books",
            "⚠️ 🛠️ Exec failed and then more",
            "我用 🛠️ Exec: 运行了命令",
        ] {
            assert!(!is_trace_line(line), "{line}");
        }
        let fenced = "```\n🛠️ Exec: ls\n```";
        assert!(matches!(strip_trace_lines(fenced), Cow::Borrowed(_)));
    }
}
