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
//! `<tool_call>NAME</tool_call>`, after words on its line: with sentence text after its closer on
//! the same line (`例如 <tool_call>f</tool_call>. 因此`), or right after a word that introduces an
//! example (`例如 `, `比如：`, `for example `, [`super::example_lead`]), it is an example in a
//! sentence, text, unless `NAME` is an offered tool's. A model's own bare call follows the end of
//! its sentence and ends its line or is followed by the next call
//! (`。<tool_call>RoleInfo</tool_call><tool_call>…`); a call of an offered tool is read wherever
//! it stands.
//!
//! A DSML invoke tag (`<｜DSML｜invoke name="foo">`) after words with sentence text after its `>`,
//! and a Kimi call whose arguments token is followed by sentence text instead of JSON
//! (`调用是 <|tool_call_begin|> functions.foo:0 <|tool_call_argument_begin|> 这样`), are the call's
//! shape named in a sentence, text, unless they name an offered tool.
//!
//! A Kimi id without its `:index` between the call's tokens (`我来查一下 <|tool_call_begin|>
//! call_0 <|tool_call_argument_begin|> {…}`) is the call's body, not a sentence's word.

/// The closer of the bare GLM call.
const CLOSE: &str = "</tool_call>";
/// The longest name read for the bare-call rule; a longer one is not an example's.
const MAX_NAME: usize = 128;
/// The longest word read after an opener and spaces (an id or attribute is shorter).
const MAX_WORD: usize = 128;
/// The token after a Kimi call's id.
const KIMI_ARGS: &str = "<|tool_call_argument_begin|>";
/// Kimi's call token.
const KIMI_BEGIN: &str = "<|tool_call_begin|>";

/// Whether the call opener `marker` (the start of `rest`) is named in a sentence: `None` when
/// `rest` may still grow (`finished` false) and does not tell yet. `words_before`: text other
/// than spaces before it on its line; `spaced`: spaces right before it, after those words;
/// `example`: that text ends with a word introducing an example ([`super::example_lead`]);
/// `tools`: the offered tools. Reads at most a word and a name after it, and the spaces after
/// the bare call's closer.
pub(crate) fn in_sentence(
    marker: &str,
    rest: &str,
    words_before: bool,
    spaced: bool,
    example: bool,
    tools: Option<&serde_json::Value>,
    finished: bool,
) -> Option<bool> {
    let n = if marker.starts_with('<') && marker.ends_with('>') {
        marker.len()
    } else if marker.ends_with(['=', '[']) {
        // An opener that ends in its body's first character (MiniMax's `<invoke name=`,
        // Phi-4-mini's `functools[`): spaces right after it are no body's.
        let after = rest.get(marker.len()..).unwrap_or("");
        return super::sentence::named(words_before && spaced, after, finished, |t, spaced| {
            if spaced {
                body(t, spaced, finished)
            } else {
                Some(true)
            }
        });
    } else if cut_opener(marker) {
        let after = rest.get(marker.trim_end().len()..).unwrap_or("");
        return cut_named(words_before && spaced, after, finished);
    } else {
        match dsml_section(rest, finished) {
            Some(Some(n)) => n,
            Some(None) => return dsml_invoke(rest, words_before, spaced, tools, finished),
            None => return None,
        }
    };
    let after = rest.get(n..).unwrap_or("");
    let named = super::sentence::named(words_before, after, finished, |t, spaced| {
        body(t, spaced, finished)
    })?;
    if !named && words_before && marker == KIMI_BEGIN {
        return kimi_example(after, tools, finished);
    }
    if named || !words_before || marker != "<tool_call>" {
        return Some(named);
    }
    bare_example(after, example, tools, finished)
}

/// Whether `marker` is a call opener that is not a whole tag and ends apart from its body: a tag
/// cut before its attributes (`<steptml:invoke`, Kimi K3's `<|open|>call `), or a tag after a
/// word or namespace (`]<]minimax[>[<tool_call>`, DeepSeek's `function<｜tool▁sep｜>`). Not the
/// openers that end inside their body's syntax (`<invoke name=`, `<function=`, `functools[`),
/// nor DSML's stream starts (`<D`, `<｜`: the tag's head is read after them).
fn cut_opener(marker: &str) -> bool {
    marker.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '>' || c == ' ')
        && !super::dsml::STARTS.contains(&marker)
}

/// Whether a [`cut_opener`] (or a DSML invoke tag with no `name=`, `<｜DSML｜invoke`) is named in
/// a sentence ([`super::turn_end::token_named`], the special tokens' test): words and a space
/// before it (`spaced_before`), and `after` it a space then a word that is not its body (an
/// attribute, `name="f"`, or a Kimi call id). A leak lacks a side: glued to the text, opening
/// its line, followed by a line break, the end of the reply, a bracket or its body.
fn cut_named(spaced_before: bool, after: &str, finished: bool) -> Option<bool> {
    super::turn_end::token_named_unless(spaced_before, after, finished, true, |t| {
        if t.starts_with(|c: char| c.is_alphanumeric()) {
            body(t, true, finished)
        } else {
            Some(true)
        }
    })
}

/// Whether `after` (right after a Kimi `<|tool_call_begin|>` with words before it) is an id, the
/// arguments token and then sentence text rather than the JSON arguments, the id naming no
/// offered tool (`调用是 <|tool_call_begin|> functions.foo:0 <|tool_call_argument_begin|> 这样`):
/// the call's shape named in a sentence.
fn kimi_example(after: &str, tools: Option<&serde_json::Value>, finished: bool) -> Option<bool> {
    let wait = if finished { Some(false) } else { None };
    let t = after.trim_start_matches([' ', '\t']);
    let Some(n) = t
        .bytes()
        .take(MAX_WORD + 1)
        .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'<'))
    else {
        return if t.len() <= MAX_WORD {
            wait
        } else {
            Some(false)
        };
    };
    let id = &t[..n];
    let t = t[n..].trim_start_matches([' ', '\t']);
    let Some(args) = t.strip_prefix(KIMI_ARGS) else {
        return if KIMI_ARGS.starts_with(t) {
            wait
        } else {
            Some(false)
        };
    };
    kimi_args_named(id, args, tools, finished)
}

/// Whether a Kimi call with words before it on its line, id `id`, is its shape named in a
/// sentence: after its arguments token (`args` is the text after it) sentence text comes rather
/// than the JSON arguments, and the id names no offered tool. Also asked for a call whose begin
/// token was stripped or kept as text (`functions.foo:0 <|tool_call_argument_begin|> 这样`).
pub(crate) fn kimi_args_named(
    id: &str,
    args: &str,
    tools: Option<&serde_json::Value>,
    finished: bool,
) -> Option<bool> {
    let name = id.rsplit_once(':').map_or(id, |(n, _)| n);
    let name = name.strip_prefix("functions.").unwrap_or(name);
    let named = super::sentence::named(true, args, finished, |t, _| {
        Some(t.starts_with(['{', '[', '<']))
    })?;
    Some(named && !super::bare_json::offered(tools, name))
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

/// Whether the DSML invoke tag that starts `rest` (`<｜DSML｜invoke name="NAME">`, any bar
/// spelling) is named in a sentence: words before it on its line, sentence text after its `>`
/// rather than a parameter tag or a line break, and `NAME` no offered tool's
/// (`调用写成 <｜DSML｜invoke name="foo"> 开头`). `None`: not known before more text comes.
fn dsml_invoke(
    rest: &str,
    words_before: bool,
    spaced: bool,
    tools: Option<&serde_json::Value>,
    finished: bool,
) -> Option<bool> {
    if !words_before {
        return Some(false);
    }
    let Some((h, "invoke")) = rest.get(1..).and_then(super::dsml::head) else {
        return Some(false);
    };
    let wait = if finished { Some(false) } else { None };
    let t = rest[1 + h..].trim_start_matches(' ');
    let Some(t) = t.strip_prefix("name=\"") else {
        return if "name=\"".starts_with(t) {
            wait
        } else {
            // The tag cut before its name, named (`以 <｜DSML｜invoke 开头`).
            cut_named(spaced, &rest[1 + h..], finished)
        };
    };
    let Some(q) = t.bytes().take(MAX_NAME + 1).position(|b| b == b'"') else {
        return if t.len() <= MAX_NAME {
            wait
        } else {
            Some(false)
        };
    };
    let name = &t[..q];
    let t = t[q + 1..].trim_start_matches(' ');
    let Some(after) = t.strip_prefix('>') else {
        return if t.is_empty() { wait } else { Some(false) };
    };
    let named =
        super::sentence::named(true, after, finished, |t, spaced| body(t, spaced, finished))?;
    Some(named && !super::bare_json::offered(tools, name))
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
    let id = word
        .rsplit_once(':')
        .is_some_and(|(n, i)| is_name(n) && !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()));
    if id || !is_name(word) {
        return Some(id);
    }
    // An id without its index, then (after spaces) the token of the call's arguments.
    let next = &t[word.len()..];
    let Some(sp) = next
        .bytes()
        .take(MAX_WORD)
        .position(|b| !matches!(b, b' ' | b'\t'))
    else {
        let open = !finished && next.len() < MAX_WORD;
        return if open { None } else { Some(false) };
    };
    let next = &next[sp..];
    if next.starts_with(KIMI_ARGS) {
        Some(true)
    } else if KIMI_ARGS.starts_with(next) {
        // Still arriving, or cut by the reply's end inside the token: the call's.
        finished.then_some(true)
    } else {
        Some(false)
    }
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

/// Whether `after` (right after a `<tool_call>` with words before it) is `NAME</tool_call>`,
/// `NAME` no offered tool's, after a word introducing an example (`example`) or followed on its
/// line by sentence text: an example named in a sentence.
fn bare_example(
    after: &str,
    example: bool,
    tools: Option<&serde_json::Value>,
    finished: bool,
) -> Option<bool> {
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
    if super::bare_json::offered(tools, &after[..n]) {
        return Some(false);
    }
    if example {
        return Some(true);
    }
    match rest.trim_start_matches([' ', '\t']).as_bytes().first() {
        None if !finished => None,
        None | Some(b'\n' | b'\r' | b'<') => Some(false),
        Some(_) => Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `in_sentence` for the marker `m` at the start of `rest`, at the reply's end, with `f`
    /// offered when `tools`.
    fn read(m: &str, rest: &str, before: bool, lead: bool, tools: bool) -> Option<bool> {
        let offered = serde_json::json!([{"type": "function", "function": {"name": "f"}}]);
        in_sentence(
            m,
            rest,
            before,
            before,
            lead,
            tools.then_some(&offered),
            true,
        )
    }

    fn named(before: bool, rest: &str, tools: bool) -> Option<bool> {
        let m = rest.find('>').map_or(rest, |e| &rest[..=e]);
        read(m, rest, before, false, tools)
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
        assert_eq!(
            named(
                true,
                "<|tool_call_begin|> call_0 <|tool_call_argument_begin|> {",
                false
            ),
            Some(false)
        );
        let dsml = |r: &str| in_sentence("<｜", r, true, true, false, None, true);
        assert_eq!(dsml("<｜DSML｜tool_calls>、<||"), Some(true));
        assert_eq!(dsml("<| DSML | tool_calls > 等格式"), Some(true));
        assert_eq!(dsml("<｜DSML｜tool_calls>\n<｜DSML｜invoke"), Some(false));
        assert_eq!(
            dsml("<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter"),
            Some(false)
        );
        assert_eq!(
            dsml("<｜DSML｜invoke name=\"f\"><｜DSML｜parameter"),
            Some(false)
        );
        assert_eq!(dsml("<｜DSML｜invoke name=\"g\"> 开头"), Some(true));
        let offered = serde_json::json!([{"type": "function", "function": {"name": "f"}}]);
        let with = |r: &str| in_sentence("<｜", r, true, true, false, Some(&offered), true);
        assert_eq!(with("<｜DSML｜invoke name=\"f\"> 开头"), Some(false));
        assert_eq!(with("<｜DSML｜invoke name=\"g\"> 开头"), Some(true));
        assert_eq!(
            in_sentence(
                "<｜",
                "<｜DSML｜invoke name=\"g",
                true,
                true,
                false,
                None,
                false
            ),
            None
        );
        assert_eq!(
            in_sentence("<｜", "<｜DSML｜tool_calls", true, true, false, None, false),
            None
        );
    }

    #[test]
    fn cut_openers_need_a_space_and_a_word_both_sides() {
        let at = |m: &str, r: &str, spaced: bool, finished: bool| {
            in_sentence(m, r, true, spaced, false, None, finished)
        };
        let step = "<steptml:invoke";
        assert_eq!(at(step, "<steptml:invoke 开头", true, true), Some(true));
        assert_eq!(at(step, "<steptml:invoke 开头", false, true), Some(false));
        assert_eq!(
            at(step, "<steptml:invoke name=\"f\">", true, true),
            Some(false)
        );
        assert_eq!(at(step, "<steptml:invoke\n开头", true, true), Some(false));
        assert_eq!(at(step, "<steptml:invoke", true, true), Some(false));
        assert_eq!(at(step, "<steptml:invoke na", true, false), None);
        let kimi = "<|open|>call ";
        assert_eq!(at(kimi, "<|open|>call 开头", true, true), Some(true));
        assert_eq!(at(kimi, "<|open|>call tool=\"f\"", true, true), Some(false));
        let m3 = "]<]minimax[>[<tool_call>";
        assert_eq!(at(m3, &format!("{m3} 开头"), true, true), Some(true));
        assert_eq!(
            at(m3, &format!("{m3} ]<]minimax[>["), true, true),
            Some(false)
        );
        let ds = "function<｜tool▁sep｜>";
        assert_eq!(at(ds, &format!("{ds} 和函数名"), true, true), Some(true));
        assert_eq!(
            at(ds, &format!("{ds}get_weather\n"), true, true),
            Some(false)
        );
        let dsml = |r: &str, spaced: bool| in_sentence("<｜", r, true, spaced, false, None, true);
        assert_eq!(dsml("<｜DSML｜invoke 开头", true), Some(true));
        assert_eq!(dsml("<｜DSML｜invoke 开头", false), Some(false));
    }

    #[test]
    fn bare_calls_of_tools_not_offered_and_examples() {
        // With tools offered, a name no tool has in a sentence is an example.
        assert_eq!(
            named(true, "<tool_call>g</tool_call>. 因此", true),
            Some(true)
        );
        assert_eq!(named(true, "<tool_call>g</tool_call>\n", true), Some(false));
        let lead = |r: &str, tools: bool| read("<tool_call>", r, true, true, tools);
        assert_eq!(lead("<tool_call>g</tool_call>\n", false), Some(true));
        assert_eq!(lead("<tool_call>g</tool_call>", true), Some(true));
        assert_eq!(lead("<tool_call>f</tool_call>", true), Some(false));
        assert_eq!(lead("<tool_call>g<arg_key>", false), Some(false));
    }

    #[test]
    fn a_stream_waits_only_while_the_text_does_not_tell() {
        let wait = |r: &str| in_sentence("<tool_call>", r, true, true, false, None, false);
        assert_eq!(wait("<tool_call>"), None);
        assert_eq!(wait("<tool_call>  "), None);
        assert_eq!(wait("<tool_call>get_all"), None);
        assert_eq!(wait("<tool_call>get_all</tool"), None);
        assert_eq!(wait("<tool_call>get_all</tool_call> "), None);
        assert_eq!(wait("<tool_call>get_all</tool_call>."), Some(true));
        assert_eq!(wait("<tool_call> tag"), None);
        assert_eq!(wait("<tool_call> tags "), None);
        assert_eq!(wait("<tool_call> tags a"), Some(true));
        let kimi = |r: &str| in_sentence("<|tool_call_begin|>", r, true, true, false, None, false);
        assert_eq!(kimi("<|tool_call_begin|> call_0 <|tool_call_arg"), None);
        assert_eq!(kimi("<|tool_call_begin|> call_0 包"), Some(true));
        let cut = |r: &str| in_sentence("<|tool_call_begin|>", r, true, true, false, None, true);
        assert_eq!(
            cut("<|tool_call_begin|> call_0 <|tool_call_arg"),
            Some(false)
        );
        let args = "<|tool_call_begin|> functions.g:0 <|tool_call_argument_begin|>";
        assert_eq!(cut(&format!("{args} 这样")), Some(true));
        assert_eq!(cut(&format!("{args} {{\"a\": 1}}")), Some(false));
        assert_eq!(kimi(&format!("{args} ")), None);
        assert_eq!(wait("<tool_call>\n"), Some(false));
    }
}
