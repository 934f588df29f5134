//! A stray word in place of the call wrapper's opener, before a bare `<invoke name="…">`.
//!
//! Why: Claude (Opus 4.7/4.8 in Claude Code, and behind agents such as OpenClaw or KiroCrew)
//! sometimes writes its call with the `<function_calls>` opener replaced by a literal word and
//! the `antml:` namespace dropped: `court` (anthropics/claude-code#73856, #72352, #74518: "literal
//! `court` replaces `<function_calls>` opener"), `count` (#77061, #64112, glued:
//! `count<invoke name="Read">`), `course` (kirodotdev/KiroCrew#7833), `card` (#79469), `call`
//! (NousResearch/hermes-agent#35706). The invoke is read as MiniMax's unwrapped invoke
//! ([`super::minimax_m2`]); the word is what is left of the opener, not prose, and goes with it.
//!
//! The evidence: a line that holds nothing but one lowercase ASCII word of at most [`MAX`] letters
//! (no space, no capital, no punctuation), then the invoke right after it, on the next line or
//! glued to the word. A word inside a sentence, a capitalised one (a heading a person wrote), or a
//! lone word not followed by an invoke stays text; code never gets here.

/// The longest word taken for a stray opener.
pub const MAX: usize = 12;

/// The invoke opener the word stands before.
pub const INVOKE: &str = "<invoke name=";

/// Whether `w` is a word of the shape (1..=[`MAX`] lowercase ASCII letters).
fn is_word(w: &[u8]) -> bool {
    (1..=MAX).contains(&w.len()) && w.iter().all(u8::is_ascii_lowercase)
}

/// Where the stray word that `before` ends with starts: `before` ends with a word of the shape,
/// then nothing or one line break (`\n` or `\r\n`), and the word starts `before` or follows a
/// line break. The text's start counts as a line's start (the caller checks it is one).
pub fn start_before(before: &str) -> Option<usize> {
    let b = before.as_bytes();
    let mut e = b.len();
    if e > 0 && b[e - 1] == b'\n' {
        e -= 1;
        if e > 0 && b[e - 1] == b'\r' {
            e -= 1;
        }
    }
    let lo = e.saturating_sub(MAX + 1);
    let s = (lo..e)
        .rev()
        .find(|&i| !b[i].is_ascii_lowercase())
        .map_or(lo, |i| i + 1);
    if !is_word(&b[s..e]) || (s > 0 && b[s - 1] != b'\n') {
        return None;
    }
    Some(s)
}

/// Whether `rest`, the end of a finished reply, is [`INVOKE`] cut by that end after `<inv` at
/// least (`<inv`, `<invo`, `<invoke na`): after a stray word, the call the word stands before.
pub fn cut_invoke(rest: &str) -> bool {
    (4..INVOKE.len()).contains(&rest.len()) && INVOKE.starts_with(rest)
}

/// Where the last line of `text` starts when it may still become a stray word before an invoke
/// (the word so far, the word and its line break, or those and a start of [`INVOKE`]): a stream
/// holds it until it knows. The text's start counts as a line's start.
pub fn partial(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    // Only the last `MAX + 2 + INVOKE.len()` bytes can be such a tail.
    let lo = b.len().saturating_sub(MAX + 2 + INVOKE.len());
    let s = memchr::memrchr(b'\n', &b[lo..]).map_or(lo, |i| lo + i + 1);
    // A tail ending with the word's line break: the line before it.
    let s = if s == b.len() || (b.len() - s == 1 && b[s] == b'\r') {
        return start_before(text);
    } else {
        s
    };
    if s == lo && lo > 0 {
        return None;
    }
    let w = b[s..].iter().take_while(|c| c.is_ascii_lowercase()).count();
    let rest = &text[s + w..];
    (is_word(&b[s..s + w]) && INVOKE.starts_with(rest)).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lines() {
        assert_eq!(start_before("court\n"), Some(0));
        assert_eq!(
            start_before("…確認します。\n\ncourt\n"),
            Some("…確認します。\n\n".len())
        );
        assert_eq!(start_before("ok\ncount"), Some(3));
        assert_eq!(start_before("x\r\ncard\r\n"), Some(3));
        assert_eq!(start_before("the court\n"), None);
        assert_eq!(start_before("Court\n"), None);
        assert_eq!(start_before("court.\n"), None);
        assert_eq!(start_before("court\n\n"), None);
        assert_eq!(start_before("abcdefghijklm\n"), None);
        assert_eq!(start_before(""), None);
    }

    #[test]
    fn cut_invokes() {
        for (rest, cut) in [
            ("<inv", true),
            ("<invo", true),
            ("<invoke name", true),
            ("<in", false),
            ("<invoice", false),
            ("<invoke name=", false),
            ("<invoke name=\"R", false),
        ] {
            assert_eq!(cut_invoke(rest), cut, "{rest}");
        }
    }

    #[test]
    fn tails_held() {
        assert_eq!(partial("Done.\ncou"), Some(6));
        assert_eq!(partial("Done.\ncourt\n"), Some(6));
        // The invoke's `<` on the next line is a candidate: the stream asks `start_before` there.
        assert_eq!(partial("Done.\ncourt\n<inv"), None);
        assert_eq!(partial("court<invoke na"), Some(0));
        assert_eq!(partial("Done.\ncourt \n"), None);
        assert_eq!(partial("Done.\ncourt\nThe"), None);
        assert_eq!(partial("Done.\nCourt"), None);
        assert_eq!(partial("Done."), None);
    }
}
