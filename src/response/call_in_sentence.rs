//! A call opener named inside a sentence is text, not the start of a call block.
//!
//! Why: people describe call formats in chats that do not render backticks (Feishu, WeChat), so
//! the tokens stand bare in their prose: "支持 < | DSML | tool_use>、<｜DSML｜tool_calls> 等格式"
//! (AgentFlocks/flocks#687's sentence), "Kimi K2 的工具调用格式是 <|tool_calls_section_begin|>
//! 开头，…". The opener was read as a call block wherever it stood: the rest of the reply went,
//! reported as a cut or unreadable block. And an example call written in a sentence
//! (alibaba/rtp-llm#525: "例如 <tool_call>get_all_func</tool_call>.") came back as a call.
//!
//! The rule ([`super::sentence::named`], the shape of the `<|channel>` and `◁think▷` rules): an
//! opener tag or token (`<…>`) with words before it on its line and sentence text after it is
//! text. Sentence text is what a call body never starts with: after spaces, anything but a line
//! break, the end of the reply, a bracket or quote (`<`, `{`, `[`, `"`), an attribute
//! (`name=`) or a Kimi call id (`functions.get:0`); right after the opener (no space),
//! punctuation (`、`, `,`, `.`). A name glued to the opener (`<tool_call>get_weather<arg_key>`,
//! `<tool_call>刷新缓存`) is a body, as models write it.
//!
//! One more piece of evidence for the bare call GLM writes without arguments,
//! `<tool_call>NAME</tool_call>`: with no tools offered, after words on its line and with
//! sentence text after its closer on the same line (`例如 <tool_call>f</tool_call>. 因此`), it
//! is an example in a sentence, text. A model's own bare call ends its line or is followed by the
//! next call (`。<tool_call>RoleInfo</tool_call><tool_call>…`), and with tools offered it is read
//! as a call as before.

/// The closer of the bare GLM call.
const CLOSE: &str = "</tool_call>";
/// The longest name read for the bare-call rule; a longer one is not an example's.
const MAX_NAME: usize = 128;
/// The longest word read after an opener and spaces (an id or attribute is shorter).
const MAX_WORD: usize = 128;

/// Whether the call opener `marker` (the start of `rest`) is named in a sentence: `None` when
/// `rest` may still grow (`finished` false) and does not tell yet. `words_before`: text other
/// than spaces before it on its line; `tools`: tools were offered. Reads at most a word and a
/// name after it, and the spaces after the bare call's closer.
pub(crate) fn in_sentence(
    marker: &str,
    rest: &str,
    words_before: bool,
    tools: bool,
    finished: bool,
) -> Option<bool> {
    let n = if marker.starts_with('<') && marker.ends_with('>') {
        marker.len()
    } else {
        match dsml_section(rest, finished) {
            Some(Some(n)) => n,
            Some(None) => return Some(false),
            None => return None,
        }
    };
    let after = rest.get(n..).unwrap_or("");
    let named = super::sentence::named(words_before, after, finished, |t, spaced| {
        body(t, spaced, finished)
    })?;
    if named || !words_before || tools || marker != "<tool_call>" {
        return Some(named);
    }
    bare_example(after, finished)
}

/// The length of the DSML section opener (`<｜DSML｜tool_calls>` in any bar spelling, the `>`
/// included) that starts `rest`: `Some(None)` when `rest` starts no such whole tag (its stream
/// marker is `<` and a bar; an `invoke` tag has its attributes after it, a body), `None` when its
/// `>` may still come.
fn dsml_section(rest: &str, finished: bool) -> Option<Option<usize>> {
    let Some((h, "function_calls" | "toolcall")) = rest.get(1..).and_then(super::dsml::head) else {
        return Some(None);
    };
    let t = &rest[1 + h..];
    let s = t.trim_start_matches(' ');
    match s.as_bytes().first() {
        Some(b'>') => Some(Some(1 + h + t.len() - s.len() + 1)),
        None if !finished => None,
        _ => Some(None),
    }
}

/// Whether `t` (after the opener and `spaced` spaces) opens a call body.
fn body(t: &str, spaced: bool, finished: bool) -> Option<bool> {
    let Some(c) = t.chars().next() else {
        return Some(true);
    };
    if matches!(c, '<' | '{' | '[' | '"') {
        return Some(true);
    }
    if !spaced {
        return Some(!is_punctuation(c));
    }
    // A word after spaces: an attribute or a Kimi call id is the body.
    let end = t
        .bytes()
        .take(MAX_WORD)
        .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'<' | b'='));
    let word = match end {
        Some(e) => &t[..e],
        None if !finished && t.len() < MAX_WORD => return None,
        None => return Some(false),
    };
    if t.as_bytes().get(word.len()) == Some(&b'=') {
        return Some(is_name(word));
    }
    Some(
        word.rsplit_once(':').is_some_and(|(n, i)| {
            is_name(n) && !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())
        }),
    )
}

/// Punctuation that ends or continues a sentence right after a named token.
fn is_punctuation(c: char) -> bool {
    matches!(
        c,
        ',' | '.'
            | ';'
            | ':'
            | '!'
            | '?'
            | ')'
            | '、'
            | '，'
            | '。'
            | '：'
            | '；'
            | '！'
            | '？'
            | '）'
            | '」'
            | '』'
            | '》'
            | '”'
            | '’'
    )
}

/// An ASCII name as tools are named (`functions.get_weather`, `tool-1`).
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether `after` (right after a `<tool_call>` with words before it) is `NAME</tool_call>`
/// followed on its line by sentence text: an example named in a sentence.
fn bare_example(after: &str, finished: bool) -> Option<bool> {
    let n = after
        .bytes()
        .take(MAX_NAME + 1)
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')));
    let Some(n) = n.filter(|&n| n > 0 && n <= MAX_NAME) else {
        let cut = n.is_none() && after.len() <= MAX_NAME;
        return if cut && !finished { None } else { Some(false) };
    };
    let rest = &after[n..];
    let Some(rest) = rest.strip_prefix(CLOSE) else {
        return if !finished && CLOSE.starts_with(rest) {
            None
        } else {
            Some(false)
        };
    };
    match rest.trim_start_matches([' ', '\t']).as_bytes().first() {
        None if !finished => None,
        None | Some(b'\n' | b'\r' | b'<') => Some(false),
        Some(_) => Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(before: bool, rest: &str, tools: bool) -> Option<bool> {
        let m = rest.find('>').map_or(rest, |e| &rest[..=e]);
        in_sentence(m, rest, before, tools, true)
    }

    #[test]
    fn openers_in_sentences_are_text() {
        assert_eq!(
            named(true, "< | DSML | tool_use>、<｜DSML｜", false),
            Some(true)
        );
        assert_eq!(named(true, "<｜DSML｜tool_calls>、<||", false), Some(true));
        assert_eq!(
            named(true, "<||DSML||tool_calls> 等格式。", false),
            Some(true)
        );
        assert_eq!(
            named(true, "<|tool_calls_section_begin|> 开头，", false),
            Some(true)
        );
        assert_eq!(named(true, "<tool_call> tags", false), Some(true));
        assert_eq!(
            named(true, "<tool_call>get_all_func</tool_call>. \n因此", false),
            Some(true)
        );
    }

    #[test]
    fn leaks_stay_leaks() {
        assert_eq!(named(false, "<tool_call> tags", false), Some(false));
        assert_eq!(named(true, "<tool_call>\n{", false), Some(false));
        assert_eq!(
            named(true, "<tool_call>get_weather<arg_key>", false),
            Some(false)
        );
        assert_eq!(named(true, "<tool_call>刷新缓存", false), Some(false));
        assert_eq!(
            named(true, "<｜DSML｜tool_calls> <｜DSML｜invoke", false),
            Some(false)
        );
        assert_eq!(
            named(true, "<|tool_call_begin|> functions.bash:0 <|", false),
            Some(false)
        );
        assert_eq!(named(true, "<tool_call> name=\"f\">", false), Some(false));
        assert_eq!(
            named(true, "<tool_call>RoleInfo</tool_call><tool_call>", false),
            Some(false)
        );
        assert_eq!(
            named(true, "<tool_call>RoleInfo</tool_call>\n", false),
            Some(false)
        );
        assert_eq!(
            named(true, "<tool_call>f</tool_call>. 因此", true),
            Some(false)
        );
        assert_eq!(named(true, "<invoke name=\"f\">", false), Some(false));
        let dsml = |r: &str| in_sentence("<｜", r, true, false, true);
        assert_eq!(dsml("<｜DSML｜tool_calls>、<||"), Some(true));
        assert_eq!(dsml("<| DSML | tool_calls > 等格式"), Some(true));
        assert_eq!(dsml("<｜DSML｜tool_calls>\n<｜DSML｜invoke"), Some(false));
        assert_eq!(dsml("<｜DSML｜invoke name=\"f\"> 等"), Some(false));
        assert_eq!(
            in_sentence("<｜", "<｜DSML｜tool_calls", true, false, false),
            None
        );
    }

    #[test]
    fn a_stream_waits_only_while_the_text_does_not_tell() {
        let wait = |r: &str| in_sentence("<tool_call>", r, true, false, false);
        assert_eq!(wait("<tool_call>"), None);
        assert_eq!(wait("<tool_call>  "), None);
        assert_eq!(wait("<tool_call>get_all"), None);
        assert_eq!(wait("<tool_call>get_all</tool"), None);
        assert_eq!(wait("<tool_call>get_all</tool_call> "), None);
        assert_eq!(wait("<tool_call>get_all</tool_call>."), Some(true));
        assert_eq!(wait("<tool_call> tag"), None);
        assert_eq!(wait("<tool_call> tags "), Some(true));
        assert_eq!(wait("<tool_call>\n"), Some(false));
    }
}
