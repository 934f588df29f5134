//! Gemma's reserved `<unusedNNNN>` tokens (`<unused0>` … `<unused6241>` in Gemma 3 and 4's
//! vocabularies), which a model that has collapsed writes instead of text: Ollama streamed line
//! after line of `<unused49>` from Gemma 4 with thinking off (ollama/ollama#17459). There are
//! thousands of them, so they are one pattern (`<unused`, digits, `>`), not entries of the
//! special-token list ([`super::orphan::CLOSERS`]); the stream machine removes one where it
//! removes a lone end token such as `<eos>` (after removed markup, alone on its line, or glued to
//! the text's end), and leaves it as text inside a sentence and in code.

/// What every such token starts with (the stream machine's marker for the pattern).
pub const PREFIX: &str = "<unused";
/// The most digits a token has (the vocabularies hold fewer than 10 000).
const MAX_DIGITS: usize = 5;

/// The length of the `<unusedN>` token `s` starts with: `Some(Some(len))`; `Some(None)` when `s`
/// does not start with one; `None` when `s` ends inside what may still become one (`finished`:
/// nothing more comes, so it is not one).
pub fn token_at(s: &str, finished: bool) -> Option<Option<usize>> {
    let Some(rest) = s.strip_prefix(PREFIX) else {
        return match PREFIX.starts_with(s) && !finished {
            true => None,
            false => Some(None),
        };
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits > MAX_DIGITS {
        return Some(None);
    }
    match rest.as_bytes().get(digits) {
        Some(b'>') if digits > 0 => Some(Some(PREFIX.len() + digits + 1)),
        None if !finished => None,
        _ => Some(None),
    }
}

#[cfg(test)]
mod tests {
    use super::token_at;

    #[test]
    fn digits_then_a_bracket() {
        assert_eq!(token_at("<unused49>\n", false), Some(Some(10)));
        assert_eq!(token_at("<unused4", false), None);
        assert_eq!(token_at("<unu", false), None);
        assert_eq!(token_at("<unused4", true), Some(None));
        assert_eq!(token_at("<unused>", false), Some(None));
        assert_eq!(token_at("<unused123456>", false), Some(None));
        assert_eq!(token_at("<unusual>", false), Some(None));
    }
}
