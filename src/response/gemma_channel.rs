//! Gemma 4's `<|channel>` named inside a sentence is text, not the start of reasoning.
//!
//! Why: `<|channel>` is a special token that opens Gemma 4's thought channel
//! (`<|channel>thought\n…<channel|>answer`), so it was read as reasoning wherever it stood, and
//! the rest of the reply went to reasoning. But people name the token in prose when they report
//! the format (LostRuins/koboldcpp#2092: "…because the raw <|channel>thought tags are passed
//! directly into the text stream…"; lmstudio-bug-tracker#2013: "…<|channel>thought as the start
//! and <channel|> as the end."), and their sentence was cut.
//!
//! The rule, one definition for the stream machine and the whole-reply reading
//! ([`super::thinking`]): a `<|channel>` with words both sides is text: something other than
//! spaces before it on its line, and after it (and after the `thought` label, when it is there)
//! spaces then anything but a line break, the end of the reply or `<channel|>`. A leaked channel
//! lacks one side: it starts the reply or its line (the model's own output), or its label ends
//! the line (`thought` and a line break, as Gemma 4 writes it), or the channel closes at once
//! (`<|channel>thought<channel|>`, an empty channel). Inside code the token is text anyway.

/// The token that opens Gemma 4's channels.
pub(crate) const OPEN: &str = "<|channel>";
/// The token that closes one.
pub(crate) const CLOSE: &str = "<channel|>";
/// The label of the thought channel, written after [`OPEN`].
const LABEL: &str = "thought";

/// Whether text other than spaces stands before byte `at` of `text` on its line. Only the spaces
/// right before `at` are read.
pub(crate) fn words_before(text: &str, at: usize) -> bool {
    let b = &text.as_bytes()[..at];
    b.iter()
        .rposition(|&c| c != b' ')
        .is_some_and(|i| b[i] != b'\n')
}

/// Whether the `<|channel>` that starts `rest` is named in a sentence (text), given whether
/// [`words_before`] it: `None` when `rest` may still grow (`finished` false) and does not tell
/// yet. Reads at most the label and the spaces after it.
pub(crate) fn in_sentence(words_before: bool, rest: &str, finished: bool) -> Option<bool> {
    if !words_before {
        return Some(false);
    }
    let after = rest.get(OPEN.len()..).unwrap_or("");
    let after = match after.strip_prefix(LABEL) {
        Some(a) => a,
        None if !finished && LABEL.starts_with(after) => return None,
        None => after,
    };
    // Its body here: the closer right after it (an empty channel).
    super::sentence::named(true, after, finished, |t, _| {
        if t.starts_with(CLOSE) {
            Some(true)
        } else if !finished && CLOSE.starts_with(t) {
            None
        } else {
            Some(false)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(text: &str) -> Option<bool> {
        let at = text.find(OPEN).unwrap_or(0);
        in_sentence(words_before(text, at), &text[at..], true)
    }

    #[test]
    fn words_both_sides_make_it_text() {
        assert_eq!(
            named("because the raw <|channel>thought tags are passed"),
            Some(true)
        );
        assert_eq!(
            named("due to the custom <|channel> tags in the raw text"),
            Some(true)
        );
        assert_eq!(named("Gemma 4 的推理以 <|channel>thought 开头"), Some(true));
        assert_eq!(named("格式是<|channel>，然后"), Some(true));
        // A side without words: a leaked channel.
        assert_eq!(named("<|channel>thought tags are passed"), Some(false));
        assert_eq!(named("好的。\n  <|channel> 想一想"), Some(false));
        assert_eq!(named("好的。<|channel>thought\n想一想"), Some(false));
        assert_eq!(named("好的。<|channel>thought  \r\n想一想"), Some(false));
        assert_eq!(
            named("好的。<|channel>thought <channel|>北京晴。"),
            Some(false)
        );
        assert_eq!(named("好的。<|channel>"), Some(false));
    }

    #[test]
    fn a_stream_waits_only_while_the_text_does_not_tell() {
        let rest = |r: &str| in_sentence(true, r, false);
        for cut in [
            "<|channel>",
            "<|channel>tho",
            "<|channel>thought  ",
            "<|channel> <chan",
        ] {
            assert_eq!(rest(cut), None, "{cut:?}");
        }
        assert_eq!(rest("<|channel>thought\n"), Some(false));
        assert_eq!(rest("<|channel>thoughts"), Some(true));
        assert_eq!(rest("<|channel> t"), Some(true));
        assert_eq!(in_sentence(false, "<|channel>", false), Some(false));
    }
}
