//! `stripModelSpecialTokens` as OpenClaw 2026.9.6 does it (`src/shared/text/model-special-tokens.ts`,
//! openclaw#40020): control tokens a model leaks (`<|im_end|>`, `<|assistant|>`, DeepSeek's
//! `<｜end▁of▁sentence｜>`) are removed, not replaced by a space as 2026.3.23 did; a space is put
//! back only where the token joined two words (letter, mark or digit before it; letter or digit
//! after), so `好的<|im_end|>，` becomes `好的，` (2026.3.23: `好的 ，`). Tokens in Markdown code
//! are kept, and nothing else is touched: no space collapsing, no trim.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::markdown_code::MarkdownCode;
use super::needles::Needles;

/// What a reply needs for [`strip_model_special_tokens`] to change it.
pub const NEEDLES: Needles = Needles::exact(&["<|", "<｜"]);

static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<[|｜][^|｜]*[|｜]>").expect("static regex"));
/// A letter, mark or digit: the last character before a token.
static WORD_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A[\p{L}\p{M}\p{N}]\z").expect("static regex"));
/// A letter or digit: the first character after it.
static WORD_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A[\p{L}\p{N}]\z").expect("static regex"));

/// Whether the first character of `s` (its last when `last`) matches `re`.
fn char_is(re: &Regex, s: &str, last: bool) -> bool {
    let c = if last {
        s.chars().next_back()
    } else {
        s.chars().next()
    };
    c.is_some_and(|c| re.is_match(c.encode_utf8(&mut [0; 4])))
}

/// The text without model control tokens outside code; borrowed when nothing changed.
///
/// ```
/// use transcript_hygiene::scrub::visible::special_tokens::strip_model_special_tokens;
/// assert_eq!(strip_model_special_tokens("好的<|im_end|>，"), "好的，");
/// assert_eq!(strip_model_special_tokens("a<|sep|>b"), "a b");
/// ```
pub fn strip_model_special_tokens(text: &str) -> Cow<'_, str> {
    if !NEEDLES.found(text) || !TOKEN.is_match(text) {
        return Cow::Borrowed(text);
    }
    let code = MarkdownCode::find(text);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut changed = false;
    for m in TOKEN.find_iter(text) {
        out.push_str(&text[cursor..m.start()]);
        if code.overlaps(m.range()) {
            out.push_str(m.as_str());
        } else {
            changed = true;
            if char_is(&WORD_END, &out, true) && char_is(&WORD_START, &text[m.end()..], false) {
                out.push(' ');
            }
        }
        cursor = m.end();
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[cursor..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_model_special_tokens(t).into_owned()
    }

    #[test]
    fn removes_tokens_and_keeps_punctuation_tight() {
        assert_eq!(s("好的<|im_end|>，明白"), "好的，明白");
        assert_eq!(s("<|assistant|>Hello  world "), "Hello  world ");
        assert_eq!(s("<｜end▁of▁sentence｜>你好"), "你好");
    }

    #[test]
    fn a_space_joins_two_words_only() {
        assert_eq!(s("done<|end|>next"), "done next");
        assert_eq!(s("北京<|x|>上海"), "北京 上海");
        assert_eq!(s("done<|end|> next"), "done next");
        assert_eq!(s("done.<|end|>next"), "done.next");
    }

    #[test]
    fn tokens_in_code_stay_as_written() {
        let t = "用 `<|im_end|>` 结束<|im_end|>";
        assert_eq!(s(t), "用 `<|im_end|>` 结束");
        let fenced = "```\n<|im_start|>\n```";
        assert!(matches!(
            strip_model_special_tokens(fenced),
            Cow::Borrowed(_)
        ));
    }
}
