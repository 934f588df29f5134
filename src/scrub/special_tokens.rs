//! `stripModelSpecialTokens` (OpenClaw `src/agents/pi-embedded-utils.ts`, openclaw#40020): GLM-5
//! and DeepSeek sometimes leak their control tokens (`<|assistant|>`, `<|tool_call_result_begin|>`,
//! `<｜begin▁of▁sentence｜>`) into the reply text. Every `<|…|>` token (ASCII `|` or full-width
//! `｜` on either side, no pipe inside, newlines allowed) becomes one space; then, only when a
//! token was found, runs of two or more ASCII spaces become one and the text is trimmed
//! (JavaScript's `trim`).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::splice::{Alphabet, Spliced};
use super::text::any_after;
use crate::js_text::{is_js_whitespace, js_trim};

/// Text with none of these bytes is returned unchanged (a token starts with `<`).
pub const PREFILTER: &[u8] = b"<";

/// Text holding none of these strings is returned unchanged: a token starts with `<` and a bar.
pub const NEEDLES: &[&str] = &["<|", "<｜"];

/// `<[|｜][^|｜]*[|｜]>`, with the full-width bar as `alphabet` writes it.
fn token(alphabet: Alphabet) -> Regex {
    let bar = regex::escape(alphabet.bar());
    Regex::new(&format!("<[|{bar}][^|{bar}]*[|{bar}]>")).expect("static regex")
}
static TOKEN: LazyLock<Regex> = LazyLock::new(|| token(Alphabet::Utf8));
static TOKEN_PROXY: LazyLock<Regex> = LazyLock::new(|| token(Alphabet::Proxy));
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"  +").expect("static regex"));

/// The text without model control tokens; borrowed when it has none.
pub fn strip_model_special_tokens(text: &str) -> Cow<'_, str> {
    strip_spliced(Spliced::new(text)).into_text()
}

/// The same on a [`Spliced`] text (the addon runs it on a proxy of the JS string).
pub fn strip_spliced(text: Spliced<'_>) -> Spliced<'_> {
    let alphabet = text.alphabet();
    let token = match alphabet {
        Alphabet::Utf8 => &*TOKEN,
        Alphabet::Proxy => &*TOKEN_PROXY,
    };
    let t = text.as_str();
    if !any_after(t, b'<', &["|", alphabet.bar()]) || !token.is_match(t) {
        return text;
    }
    let collapsed = text.replace_all(token, " ").replace_all(&SPACES, " ");
    let c = collapsed.as_str();
    let start = c.len() - c.trim_start_matches(is_js_whitespace).len();
    let end = start + js_trim(c).len();
    collapsed.slice(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_model_special_tokens(t).into_owned()
    }

    #[test]
    fn replaces_tokens_with_one_space_and_trims() {
        assert_eq!(s("<|assistant|>Hello  <|end|> world"), "Hello world");
        assert_eq!(s("<｜begin▁of▁sentence｜>你好"), "你好");
        assert_eq!(s("a<|x｜>b"), "a b");
    }

    #[test]
    fn collapses_spaces_everywhere_once_a_token_is_found() {
        assert_eq!(s("a    b<|t|>\n\n"), "a b");
        // No token: the text is untouched, double spaces and all.
        assert!(matches!(
            strip_model_special_tokens("a    b "),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn token_body_has_no_pipe_but_may_span_lines() {
        assert_eq!(s("<|a\nb|>x"), "x");
        // `<|a|` is not followed by `>`, and no other `<` starts a token.
        assert!(matches!(
            strip_model_special_tokens("<|a|b|>x"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            strip_model_special_tokens("a <| b"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            strip_model_special_tokens("x || y <|"),
            Cow::Borrowed(_)
        ));
    }
}
