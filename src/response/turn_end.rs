//! The end-of-turn tokens a plain-text family strips (Llama 3's `<|eot_id|>` / `<|eom_id|>`,
//! Llama 4's `<|eot|>` / `<|eom|>`): removed where a server left them, kept where a sentence
//! names them.
//!
//! Why: read whole with the model named, each was removed wherever it stood, so
//! `每一轮以 <|eot|> 结束。` lost its token under `llama4_pythonic` while `auto` keeps it (the
//! orphan rule, [`super::orphan`]: inside a sentence a lone token is text). A leak stands at the
//! end of the answer or its line (`北京今天晴。<|eot|>`), after a call, or before another token;
//! a token with words before it on its line and words after it is named
//! ([`super::sentence::named`]), and stays.

use super::{sentence, Parsed};

/// [`Parsed::strip_markup`] of `tokens`, less the ones named in a sentence.
pub(crate) fn strip(out: &mut Parsed, text: &str, tokens: &[&str]) {
    out.strip_markup(text, tokens);
    out.blocks.retain(|b| {
        let token = b.calls.is_empty() && !b.keep_raw && tokens.contains(&&text[b.start..b.end]);
        !token || !named(text, b.start, b.end, tokens)
    });
}

/// Whether the token at `start..end` of `text` is named in a sentence: words before it on its
/// line that do not end a sentence (another of `tokens` right before it is a run of leaked
/// tokens, not words; `北京今天晴。 <|eot|>` a leak after a finished sentence), and after it spaces
/// then words (not another token).
fn named(text: &str, start: usize, end: usize, tokens: &[&str]) -> bool {
    let lead = text[..start].trim_end_matches(' ');
    let before = super::gemma_channel::words_before(text, start)
        && !tokens.iter().any(|t| lead.ends_with(t))
        && !super::thinking::ends_sentence(lead);
    token_named(before, &text[end..], true, false) == Some(true)
}

/// The "named in a sentence" test for a special token (one definition: these turn ends, the
/// reasoning markers other than `<think>`, [`super::thinking::named_marker`], and the call openers
/// that are not a whole tag, [`super::call_in_sentence`]): `words_before` it on its line that do
/// not end a sentence (the callers read it: [`super::thinking::ends_sentence`], one list), and
/// `after` it spaces then words, not another special token (`<|…`, a run of leaks). `spaced`: a
/// space must come first (the reasoning markers: glued to the text after them, they are a leak).
/// `None` when `after` may still grow (`finished` false) and does not tell yet.
pub(crate) fn token_named(
    words_before: bool,
    after: &str,
    finished: bool,
    spaced: bool,
) -> Option<bool> {
    token_named_unless(words_before, after, finished, spaced, |_| Some(false))
}

/// [`token_named`] for a token whose own body may follow it after a space (a call opener's
/// attribute, `<steptml:invoke name="f">`): `body(t)` says whether `t`, the text after the token
/// and its spaces, opens it (`Some(true)`: a leak; `None`: not known before more text comes).
pub(crate) fn token_named_unless(
    words_before: bool,
    after: &str,
    finished: bool,
    spaced: bool,
    body: impl FnOnce(&str) -> Option<bool>,
) -> Option<bool> {
    sentence::named(words_before, after, finished, |t, s| {
        if (spaced && !s) || t.starts_with("<|") {
            Some(true)
        } else if !finished && "<|".starts_with(t) {
            None
        } else {
            body(t)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::run;

    #[test]
    fn a_token_named_in_a_sentence_stays_a_leak_goes() {
        for (format, token) in [
            ("llama4_pythonic", "<|eot|>"),
            ("llama3_json", "<|eot_id|>"),
        ] {
            let named = format!("每一轮以 {token} 结束。");
            assert_eq!(run(&named, Some(format), None, None).content, named);
            let leak = format!("北京今天晴。{token}");
            assert_eq!(run(&leak, Some(format), None, None).content, "北京今天晴。");
            let line = format!("北京今天晴。\n{token}\n");
            assert_eq!(run(&line, Some(format), None, None).content, "北京今天晴。");
            let after_end = format!("北京今天晴。 {token} 明天多云。");
            assert_eq!(
                run(&after_end, Some(format), None, None).content,
                "北京今天晴。 明天多云。"
            );
            let run_of = format!("好的 {token}{token} 再见");
            assert_eq!(run(&run_of, Some(format), None, None).content, "好的 再见");
        }
    }

    #[test]
    fn spaced_needs_a_space_after_and_a_stream_waits_on_a_lone_angle() {
        use super::token_named;
        assert_eq!(token_named(true, " 结束。", true, true), Some(true));
        assert_eq!(token_named(true, "结束。", true, true), Some(false));
        assert_eq!(token_named(true, "结束。", true, false), Some(true));
        assert_eq!(token_named(true, " <|eot|>", true, true), Some(false));
        assert_eq!(token_named(true, " <", false, true), None);
        assert_eq!(token_named(true, " ", false, true), None);
        assert_eq!(token_named(false, " 结束。", true, true), Some(false));
    }
}
