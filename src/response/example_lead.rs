//! Words that introduce an example right before a markup token: `例如 `, `比如：`, `for example `,
//! `e.g. `, `such as `.
//!
//! Why: GLM's bare call `<tool_call>NAME</tool_call>` at the end of a line of prose
//! ("例如 <tool_call>get_all_func</tool_call>" then a line break) reads, by what follows it, just
//! like a model's own call (anolis iflow-cli#283: "我来获取角色信息并读取相关文件。<tool_call>RoleInfo
//! </tool_call><tool_call>…"). What precedes tells them apart: a model's call follows the end of
//! its sentence (`。`, `.`) or stands alone; a word that introduces an example makes the token a
//! part of the sentence, named, not written ([`super::call_in_sentence`]). A colon alone does not
//! decide ("我来查一下：" then a call is how models lead into a call).

/// The words, lowercase; an ASCII word must start a word (`unlike` is not `like`).
const WORDS: &[&str] = &[
    "例如",
    "比如",
    "譬如",
    "诸如",
    "例如说",
    "比如说",
    "像是",
    "类似",
    "形如",
    "e.g.",
    "eg.",
    "for example",
    "for instance",
    "such as",
    "like",
];

/// The last bytes of [`WORDS`], in either ASCII case (the words are compared ignoring it).
const LAST: [bool; 256] = last_bytes(WORDS);

const fn last_bytes(words: &[&str]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_bytes();
        let b = w[w.len() - 1];
        t[b.to_ascii_lowercase() as usize] = true;
        t[b.to_ascii_uppercase() as usize] = true;
        i += 1;
    }
    t
}

/// Punctuation allowed between the word and the token (`例如：`, `e.g.,`).
const AFTER: &[char] = &[':', '：', ',', '，'];

/// The most line text kept by [`LeadTail`] (the longest word, its punctuation and spaces).
const KEEP: usize = 48;

/// Whether `before` (the text before a token on its line, or the end of it) ends with a word that
/// introduces an example, then optional punctuation and spaces.
pub(crate) fn introduces(before: &str) -> bool {
    let t = before.trim_end_matches([' ', '\t']);
    let t = t.strip_suffix(AFTER).unwrap_or(t);
    let t = t.trim_end_matches([' ', '\t']);
    // Most lines before a token end in no word's last byte (or are empty: a call on its own
    // line): told from that byte alone, the words are not compared one by one.
    if !t.as_bytes().last().is_some_and(|&b| LAST[usize::from(b)]) {
        return false;
    }
    WORDS.iter().any(|w| {
        let Some(k) = t.len().checked_sub(w.len()) else {
            return false;
        };
        let Some(end) = t.get(k..) else {
            return false;
        };
        end.eq_ignore_ascii_case(w)
            && (!w.is_ascii()
                || !t[..k]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_'))
    })
}

/// The end of the line a stream has passed (at most [`KEEP`] bytes), kept as text goes by in
/// pieces, for [`introduces`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LeadTail {
    text: String,
}

impl LeadTail {
    /// A piece went by whose last line is `line` (`new_line`: a line break came before it in the
    /// piece; the stream's drain has found it already, so it is not searched twice).
    pub(crate) fn pass_line(&mut self, new_line: bool, line: &str) {
        if new_line {
            self.text.clear();
        }
        self.text
            .push_str(&line[ceil(line, line.len().saturating_sub(KEEP))..]);
        if self.text.len() > KEEP {
            let cut = ceil(&self.text, self.text.len() - KEEP);
            self.text.drain(..cut);
        }
    }

    /// Whether the line passed so far ends with a word that introduces an example.
    pub(crate) fn introduces(&self) -> bool {
        introduces(&self.text)
    }
}

/// The first char boundary of `s` at or after `i`.
fn ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_words() {
        assert!(introduces("GLM 可能输出，例如 "));
        assert!(introduces("比如："));
        assert!(introduces("may emit, for example "));
        assert!(introduces("tags such as"));
        assert!(introduces("E.g., "));
        assert!(!introduces("我来获取角色信息并读取相关文件。"));
        assert!(!introduces("Let me check:"));
        assert!(!introduces("unlike "));
        assert!(!introduces(""));
    }

    #[test]
    fn the_tail_follows_the_line() {
        let mut t = LeadTail::default();
        t.pass_line(false, "第一行 例如");
        assert!(t.introduces());
        // The piece `第一行 例如\n`: its last line (after the break) is empty.
        t.pass_line(true, "");
        assert!(!t.introduces());
        t.pass_line(false, "很长的一段话".repeat(20).as_str());
        t.pass_line(false, "，比");
        t.pass_line(false, "如 ");
        assert!(t.introduces());
        t.pass_line(false, "x");
        assert!(!t.introduces());
    }
}
