//! OpenClaw 2026.9.6's `trimTextPreservingCode`: trims a reply like `String.prototype.trim`, except
//! that a reply opening with an indented code block keeps that block's indentation (trimming it
//! would turn the code into prose).

use super::markdown_code::MarkdownCode;
use crate::js_text::is_js_whitespace;

/// `text` trimmed at the start (and at the end too with `both`), keeping a leading code block whole.
///
/// ```
/// use transcript_hygiene::scrub::visible::trim::trim_preserving_code;
/// assert_eq!(trim_preserving_code("\n\n    code\n", true), "    code");
/// assert_eq!(trim_preserving_code("  说明  ", true), "说明");
/// ```
pub fn trim_preserving_code(text: &str, both: bool) -> &str {
    let mut trimmed = text.trim_start_matches(is_js_whitespace);
    if !trimmed.is_empty() && trimmed.len() != text.len() {
        let content_start = text.len() - trimmed.len();
        if let Some(block) = MarkdownCode::find(text).block_at(content_start) {
            trimmed = &text[block.start..];
        }
    }
    if both {
        trimmed.trim_end_matches(is_js_whitespace)
    } else {
        trimmed
    }
}
