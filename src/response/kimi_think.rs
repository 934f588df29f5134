//! Kimi's `◁think▷` named inside a sentence is text, not the start of reasoning.
//!
//! Why: `◁think▷…◁/think▷` is the legacy Kimi reasoning pair (Kimi-VL, Kimi-Dev), special tokens
//! read wherever they stood; but people name the tokens in prose when they report the format
//! (MoonshotAI/Kimi-VL#45: "It sometimes output special tokens like ◁think▷,◁/think▷, and …";
//! MoonshotAI/Kimi-Dev#6: "…I don't see the ◁think▷(or similar) tokens defined in there…"), and
//! words vanished from their sentences, or an unclosed one sent the rest of the reply to
//! reasoning.
//!
//! The rule, as for Gemma 4's `<|channel>` ([`super::gemma_channel`], [`super::sentence`]), one definition for the
//! stream machine and the whole-reply reading ([`super::thinking`], [`super::late_think`]): a
//! `◁think▷` with words both sides is text: something other than spaces before it on its line,
//! and after it spaces then anything but a line break or the end of the reply (its own closer
//! included: `parse out the ◁think▷◁/think▷` names the pair). A leaked block starts the reply or
//! its line (`◁think▷reasoning◁/think▷answer`), or its opener ends the line, and is read as
//! before. Once an opener was kept as text, a `◁/think▷` with no reasoning open is text too, as a
//! `</think>` after a `<think>` kept as text; any other stray one is removed as before (a special
//! token).

/// The token that opens Kimi's reasoning.
pub(crate) const OPEN: &str = "◁think▷";

/// Whether the `◁think▷` that starts `rest` is named in a sentence (text), given whether words
/// stand before it on its line ([`super::gemma_channel::words_before`]): `None` when `rest` may
/// still grow (`finished` false) and does not tell yet. Reads at most the spaces after it.
pub(crate) fn in_sentence(words_before: bool, rest: &str, finished: bool) -> Option<bool> {
    let after = rest.get(OPEN.len()..).unwrap_or("");
    // No body: any sentence text after it names it.
    super::sentence::named(words_before, after, finished, |_, _| Some(false))
}

#[cfg(test)]
mod tests {
    use super::super::gemma_channel::words_before;
    use super::*;

    fn named(text: &str) -> Option<bool> {
        let at = text.find(OPEN).unwrap_or(0);
        in_sentence(words_before(text, at), &text[at..], true)
    }

    #[test]
    fn words_both_sides_make_it_text() {
        assert_eq!(
            named("special tokens like ◁think▷,◁/think▷, and"),
            Some(true)
        );
        assert_eq!(named("doesn't parse out the ◁think▷◁/think▷"), Some(true));
        assert_eq!(named("Kimi-VL 的推理以 ◁think▷ 开头"), Some(true));
        // A side without words: a leaked block.
        assert_eq!(named("◁think▷想一想◁/think▷答"), Some(false));
        assert_eq!(named("好的。\n  ◁think▷想一想"), Some(false));
        assert_eq!(named("好的。◁think▷\n想一想"), Some(false));
        assert_eq!(named("好的。◁think▷  "), Some(false));
    }

    #[test]
    fn a_stream_waits_only_while_the_text_does_not_tell() {
        assert_eq!(in_sentence(true, "◁think▷  ", false), None);
        assert_eq!(in_sentence(true, "◁think▷ 想", false), Some(true));
        assert_eq!(in_sentence(true, "◁think▷\n", false), Some(false));
        assert_eq!(in_sentence(false, "◁think▷", false), Some(false));
    }
}
