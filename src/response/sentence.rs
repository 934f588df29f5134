//! One reading of "a token named inside a sentence": the shape the in-prose rules share.
//!
//! Why: people name markup in prose when they report a format, often without backticks (chats
//! that do not render them), and a token read as markup there took words, or the rest of the
//! reply, from their sentence. Gemma 4's `<|channel>` ([`super::gemma_channel`]), Kimi's
//! `◁think▷` ([`super::kimi_think`]) and the call openers ([`super::call_in_sentence`]) each had
//! or needed this rule; it is written once here, each family saying only what its body looks like.
//!
//! The rule: a token is named in a sentence when something other than spaces stands before it on
//! its line, and after it come spaces then anything but a line break, the end of the reply or the
//! family's own body. A leak lacks one side: it starts its line, or its line ends right after it,
//! or its body follows.

/// Whether the token whose text after it is `after` is named in a sentence, given whether words
/// stand before it on its line ([`super::gemma_channel::words_before`]). `body(t, spaced)` says
/// whether `t` (the text after the token and its spaces, never empty, never a line break; `spaced`:
/// spaces came first) opens the family's body: `Some(true)` a body (a leak), `None` not known
/// until more text comes. `None` when `after` may still grow (`finished` false) and does not tell
/// yet.
pub(crate) fn named(
    words_before: bool,
    after: &str,
    finished: bool,
    body: impl FnOnce(&str, bool) -> Option<bool>,
) -> Option<bool> {
    if !words_before {
        return Some(false);
    }
    let t = after.trim_start_matches([' ', '\t']);
    match t.as_bytes().first() {
        None if !finished => None,
        None | Some(b'\n' | b'\r') => Some(false),
        Some(_) => body(t, t.len() != after.len()).map(|b| !b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_both_sides_and_no_body() {
        let never = |_: &str, _: bool| Some(false);
        assert_eq!(named(true, " 开头", true, never), Some(true));
        assert_eq!(named(false, " 开头", true, never), Some(false));
        assert_eq!(named(true, "  \n开头", true, never), Some(false));
        assert_eq!(named(true, "  ", true, never), Some(false));
        assert_eq!(named(true, "  ", false, never), None);
        assert_eq!(
            named(true, "{", true, |t, _| Some(t.starts_with('{'))),
            Some(false)
        );
        assert_eq!(named(true, "x", false, |_, _| None), None);
    }
}
