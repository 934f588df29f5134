//! The text [`super::seed`] returns when cleaning leaves a reply with nothing to show: seed 000's
//! users got empty messages when a model answered with a tool call only, so a sanitised reply is
//! never empty. The caller may give its own text; by default it is in the reply's language:
//! Chinese (the seed's own wording) when CJK characters make up at least a third of the reply's
//! words, English otherwise.
//!
//! Words are counted over the whole raw reply (argument values often carry the user's language
//! when nothing else does), skipping markup tags (`<…>` starting with a letter, `/`, `|` or `｜`)
//! whose ASCII names would otherwise always win: each CJK character (Han ideographs, kana, CJK
//! punctuation, full-width forms) counts as one word, each run of ASCII letters as one. Hangul
//! is not counted as CJK here (a Korean reply gets the English text).

/// Seed 000's fallback message.
pub const ZH: &str = "抱歉，我遇到了一些技术问题。请换一种方式提问。";
/// Its English counterpart.
pub const EN: &str = "Sorry, I ran into a technical problem. Please try asking in a different way.";

/// The default fallback text for a reply (see the module doc).
pub fn default_text(reply: &str) -> &'static str {
    if is_mostly_cjk(reply) {
        ZH
    } else {
        EN
    }
}

/// Whether CJK characters are at least a third of the words of `reply`, markup excluded.
pub fn is_mostly_cjk(reply: &str) -> bool {
    let mut cjk = 0usize;
    let mut latin_words = 0usize;
    let mut in_word = false;
    let mut chars = reply.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '<'
            && chars
                .peek()
                .is_some_and(|&n| n.is_ascii_alphabetic() || "/|｜".contains(n))
        {
            // Skip the tag up to its `>` (or the end of the text).
            for t in chars.by_ref() {
                if t == '>' {
                    break;
                }
            }
            in_word = false;
            continue;
        }
        if c.is_ascii_alphabetic() {
            if !in_word {
                latin_words += 1;
                in_word = true;
            }
            continue;
        }
        in_word = false;
        if is_cjk(c) {
            cjk += 1;
        }
    }
    cjk > 0 && cjk * 2 >= latin_words
}

fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{303F}'   // CJK symbols and punctuation
        | '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // extension A
        | '\u{4E00}'..='\u{9FFF}' // unified ideographs
        | '\u{F900}'..='\u{FAFF}' // compatibility ideographs
        | '\u{FF00}'..='\u{FFEF}' // full-width forms
        | '\u{20000}'..='\u{3134F}' // extensions B–G
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_reply_gets_chinese_text() {
        assert_eq!(default_text("让我帮你查询。<invoke name=\"search\">"), ZH);
        // Argument values count when nothing else is written.
        assert_eq!(
            default_text("<tool_call>{\"name\": \"web_search\", \"arguments\": {\"query\": \"北京天气\"}}</tool_call>"),
            ZH
        );
    }

    #[test]
    fn english_or_no_words_gets_english_text() {
        assert_eq!(
            default_text("<invoke><exec><cmd>date</cmd></exec></invoke>"),
            EN
        );
        assert_eq!(
            default_text("Let me check the weather in 北京 for you today."),
            EN
        );
        assert_eq!(default_text(""), EN);
        assert_eq!(default_text("안녕하세요"), EN);
    }
}
