//! Seed 000's API (`sanitizeToolCall`, `sanitizeThinkingTags`), for agents written against it:
//! Chinese open-weight models behind OpenAI-compatible APIs (MiniMax, Zhipu GLM, early Qwen) write
//! tool calls into the reply text, and users got garbled or empty messages. The seed strips the
//! markup per provider, taken from the model id's first segment (`"minimax/MiniMax-M2.1"`):
//!
//! | provider | here |
//! | --- | --- |
//! | `minimax` | the cleaner, then the seed's rule when the text has `minimax:tool_call` or `<invoke` (any case): `<invoke …>…</invoke>` blocks and `<minimax:tool_call>` tags outside code removed |
//! | `zhipu`, `glm` | the cleaner, then the seed's ```` ```tool_call … ``` ```` fences removed |
//! | `qwen`, `qwen-portal` | the cleaner (the seed left this a TODO; the cleaner knows Qwen's Hermes and Qwen3-Coder forms) |
//! | anything else | the cleaner, then the seed's generic rules: ```` ```tool_call ```` / ```` ```function ```` fences, then, outside code, `<invoke …>…</invoke>` blocks and `<tool_call…>`, `</tool_call>`, `<function…>`, `</function>` tags that stand as markup |
//!
//! A generic tag stands as markup when it (or a run of such tags with only spaces between them)
//! starts or ends its line: `好的<tool_call>` and `</function>` alone on a line are leftovers of a
//! call, while `The <tool_call> tag wraps a call.` or `ends every call with </tool_call> and
//! nothing else` only name the tag and stay. The tag's name must end there (`<function_calls>`
//! and `<tool_calls>` are other tags, which the cleaner reads). "Code" for every rule here is
//! OpenClaw's code regions plus fences indented by one to three spaces (CommonMark), so a guide
//! quoting a call in an indented ```` ```xml ```` block keeps it.
//!
//! "The cleaner" is [`clean_response`] in [`Mode::Strip`] for calls (every format it detects,
//! truncated calls included) with reasoning kept: reasoning is [`sanitize_thinking_tags`]'s job,
//! and nothing inside it is taken for a call.
//!
//! A reply that cleaning leaves with nothing visible (blank once reasoning blocks are set aside)
//! gets a fallback text ([`super::fallback`]); when reasoning was kept, the fallback follows it.
//! An empty input is returned as it is.
//!
//! The seed's `<cmd>` special case (a canned "I cannot run commands" reply replacing the whole
//! reply when a call has a `<cmd>` element) is not reproduced: it discarded the visible text
//! around the call; the fallback covers the case where nothing is left.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::code_regions::CodeRegions;
use super::fallback;
use super::minimax_xml::{INVOKE_BLOCK, WRAPPER_TAG};
use super::text::find_ci;
use crate::js_text::{is_js_whitespace, js_trim};
use crate::response::{clean_response, clean_response_r1, thinking, Mode, Options};

/// Text with no `<` is returned unchanged by [`sanitize_thinking_tags`] (every tag starts with
/// one). The tool-call step has no fixed prefilter: the cleaner's formats decide.
pub const THINKING_PREFILTER: &[u8] = b"<";

/// The provider families of the seed's dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Minimax,
    /// `zhipu` or `glm`.
    Zhipu,
    /// `qwen` or `qwen-portal`.
    Qwen,
    Generic,
}

impl Provider {
    /// The provider of a model id: its first `/`-separated segment, lower-cased.
    pub fn of_model(model: &str) -> Provider {
        let first = model.split('/').next().unwrap_or("").to_lowercase();
        match first.as_str() {
            "minimax" => Provider::Minimax,
            "zhipu" | "glm" => Provider::Zhipu,
            "qwen" | "qwen-portal" => Provider::Qwen,
            _ => Provider::Generic,
        }
    }

    /// The key of this family in the seed's config (`providers.minimax` …).
    pub fn config_key(self) -> Option<&'static str> {
        match self {
            Provider::Minimax => Some("minimax"),
            Provider::Zhipu => Some("zhipu"),
            Provider::Qwen => Some("qwen"),
            Provider::Generic => None,
        }
    }
}

/// The text used when nothing visible is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback<'a> {
    /// In the reply's language ([`fallback::default_text`]).
    Auto,
    Text(&'a str),
}

/// Which cleanings one call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps<'a> {
    pub tool_calls: bool,
    pub thinking: bool,
    /// `None`: may return a blank text (only thinking stripped, as the seed's function does).
    pub fallback: Option<Fallback<'a>>,
}

/// `sanitizeToolCall(model, content)`: tool-call markup removed per provider, never blank.
pub fn sanitize_tool_call<'a>(model: &str, content: &'a str, fb: Fallback) -> Cow<'a, str> {
    sanitize(
        model,
        content,
        Steps {
            tool_calls: true,
            thinking: false,
            fallback: Some(fb),
        },
    )
}

/// `sanitizeThinkingTags(content)`: reasoning blocks removed with their text (`<think>…</think>`,
/// and the R1 form where only `</think>` is in the reply), then any `<think>`/`</think>` tag of
/// any case that is left. May return an empty text.
pub fn sanitize_thinking_tags(content: &str) -> Cow<'_, str> {
    sanitize(
        "",
        content,
        Steps {
            tool_calls: false,
            thinking: true,
            fallback: None,
        },
    )
}

/// The steps asked for, then the fallback (see the module doc).
pub fn sanitize<'a>(model: &str, content: &'a str, steps: Steps) -> Cow<'a, str> {
    if content.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut text = Cow::Borrowed(content);
    if steps.tool_calls {
        text = own_if_changed(text, |t| {
            strip_tool_calls(Provider::of_model(model), model, t)
        });
    }
    if steps.thinking {
        text = own_if_changed(text, strip_thinking);
    }
    let Cow::Owned(cleaned) = text else {
        return Cow::Borrowed(content);
    };
    if cleaned == content {
        return Cow::Borrowed(content);
    }
    let Some(fb) = steps.fallback else {
        return Cow::Owned(cleaned);
    };
    if !visible_is_blank(&cleaned) {
        return Cow::Owned(cleaned);
    }
    let fallback_text = match fb {
        Fallback::Auto => fallback::default_text(content),
        Fallback::Text(t) => t,
    };
    let kept = js_trim(&cleaned);
    if kept.is_empty() {
        Cow::Owned(fallback_text.to_owned())
    } else {
        Cow::Owned(format!("{kept}\n\n{fallback_text}"))
    }
}

/// Applies `f` to the current text, keeping the borrow when `f` changed nothing.
fn own_if_changed<'a>(text: Cow<'a, str>, f: impl FnOnce(&str) -> Cow<'_, str>) -> Cow<'a, str> {
    let out = match f(&text) {
        Cow::Borrowed(_) => None,
        Cow::Owned(s) => Some(s),
    };
    match out {
        Some(s) => Cow::Owned(s),
        None => text,
    }
}

/// Whether nothing but reasoning blocks and whitespace is left.
fn visible_is_blank(text: &str) -> bool {
    // The blocks are found once, read R1-style; without R1 only a closing tag that comes first
    // reads otherwise (a stray tag rather than the end of reasoning begun at the start), so the
    // first block is mended instead of searching the reply again (each search reads it once per
    // reasoning marker). They are read one at a time, and only while no visible text is seen:
    // every block after the first starts at a marker, none of which starts with whitespace, so
    // when the first character after a block that is not whitespace starts no marker, it is
    // visible, and the rest of the reply is not searched (that search was a fifth of a
    // half-Chinese `sanitizeToolCall`).
    let mut blocks = thinking::blocks(text, R1);
    let first = blocks.next().map(|mut t| {
        if !r1_reading(text, Some(&t)) && t.inner.start == t.outer.start {
            t.outer.start = t.inner.end;
            t.inner.start = t.inner.end;
        }
        t
    });
    let mut at = 0;
    for t in first.into_iter().chain(blocks) {
        if !js_trim(&text[at..t.outer.start]).is_empty() {
            return false;
        }
        at = t.outer.end;
        match text[at..].find(|c| !is_js_whitespace(c)) {
            None => return true,
            Some(q) if !thinking::marker_at(text, at + q, R1) => return false,
            Some(_) => {}
        }
    }
    js_trim(&text[at..]).is_empty()
}

/// The blocks read R1-style (see [`thinking::Extra::r1`]).
const R1: thinking::Extra = thinking::Extra {
    granite: false,
    harmony_stripped: false,
    r1: true,
    r1_sentence: false,
};

/// The seed's R1 reading, whatever the model: a closing tag with no opening tag before it ends
/// reasoning begun at the start of the reply. Kept only where a reader would see it so, when the
/// tag ends its line or opens the reply (`</mm:think>你好！`, a turn without reasoning): inside a
/// sentence (`模板把没有思考的回合写成 </mm:think> 加回答`) it is text.
fn lone_close_ends_line(text: &str) -> bool {
    r1_reading(text, thinking::blocks(text, R1).next().as_ref())
}

/// [`lone_close_ends_line`] given the first block of `text` read R1-style.
fn r1_reading(text: &str, first: Option<&thinking::Think>) -> bool {
    match first {
        Some(t) if t.outer.start == 0 && t.inner.start == 0 => {
            let rest = text[t.outer.end..].trim_start_matches([' ', '\t', '\r']);
            js_trim(&text[t.inner.clone()]).is_empty() || rest.is_empty() || rest.starts_with('\n')
        }
        _ => false,
    }
}

/// The cleaner in strip mode, then the seed's rules for the provider.
fn strip_tool_calls<'a>(provider: Provider, model: &str, content: &'a str) -> Cow<'a, str> {
    let cleaned = clean_response(content, &cleaner_options(model)).content;
    let mut text = if cleaned == content {
        Cow::Borrowed(content)
    } else {
        Cow::Owned(cleaned)
    };
    match provider {
        Provider::Minimax => {
            if has_minimax_marker(&text) || has_invoke(&text) {
                text = own_if_changed(text, |t| replace_outside_code(&INVOKE_BLOCK, t));
                text = own_if_changed(text, |t| replace_outside_code(&WRAPPER_TAG, t));
            }
        }
        Provider::Zhipu => {
            if text.contains("```tool_call") {
                text = own_if_changed(text, |t| replace_cow(&ZHIPU_FENCE, t));
            }
        }
        Provider::Qwen => {}
        Provider::Generic => {
            if text.contains("```") {
                text = own_if_changed(text, |t| replace_cow(&GENERIC_FENCE, t));
            }
            if memchr::memchr(b'<', text.as_bytes()).is_some() {
                text = own_if_changed(text, |t| replace_outside_code(&INVOKE_BLOCK, t));
                text = own_if_changed(text, |t| replace_standing_tags(&GENERIC_TAG, t));
            }
        }
    }
    // The seed trims what it returns for Zhipu; every provider's cleaned text is trimmed here
    // (in place: copying a long reply again cost as much as comparing it).
    match text {
        Cow::Owned(mut s) => {
            s.truncate(s.trim_end_matches(is_js_whitespace).len());
            s.drain(..s.len() - s.trim_start_matches(is_js_whitespace).len());
            Cow::Owned(s)
        }
        b => b,
    }
}

/// The cleaner's options for the tool-call step.
fn cleaner_options(model: &str) -> Options {
    Options {
        model: Some(model.to_owned()),
        tool_calls: Mode::Strip,
        thinking: Mode::Keep,
        ..Options::default()
    }
}

/// Whether the tool-call step leaves a text unchanged when it holds none of `<`, `[`, `◁` and
/// `` ` `` ([`crate::response::scan::may_hold_markers`] false and no fence): the cleaner's
/// prefilter decides without reading it ([`crate::response::unmarked`]) and every provider rule
/// needs one of those characters. The addon asks this before transcoding the JS string.
pub fn tool_calls_skip_unmarked(model: &str) -> bool {
    // No tools in these options: a `{` does not matter.
    crate::response::unmarked(&cleaner_options(model), false).is_some()
}

/// `minimax:tool_call` in any ASCII case, as the seed's `/minimax:tool_call/i` finds it (so
/// `MiniMax:tool_call`, the vendor's own spelling, counts: earlier builds needed a lower-case `m`,
/// a slip of the port, and left `<MiniMax:tool_call>` tags visible). Found from `:tool_call`: an
/// `m` is common in prose, and a search from each cost ~20 µs on a 50 KB reply.
fn has_minimax_marker(text: &str) -> bool {
    let b = text.as_bytes();
    let mut at = 0;
    while let Some(i) = find_ci(text, ":tool_call", at) {
        if i >= 7 && b[i - 7..i].eq_ignore_ascii_case(b"minimax") {
            return true;
        }
        at = i + 1;
    }
    false
}

/// `/<invoke\b/i`.
fn has_invoke(text: &str) -> bool {
    let b = text.as_bytes();
    let mut at = 0;
    while let Some(i) = find_ci(text, "<invoke", at) {
        match b.get(i + 7) {
            Some(c) if c.is_ascii_alphanumeric() || *c == b'_' => at = i + 1,
            _ => return true,
        }
    }
    false
}

static ZHIPU_FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)```tool_call.*?```").expect("static regex"));
static GENERIC_FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)```(?:tool_call|function).*?```").expect("static regex"));
static GENERIC_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"</?(?i-u:tool_call|function)(?:[\s=/][^>]*)?>").expect("static regex")
});
static THINK_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?(?i-u:think)>").expect("static regex"));

fn replace_cow<'a>(re: &Regex, text: &'a str) -> Cow<'a, str> {
    re.replace_all(text, "")
}

/// Removes the matches of `re` that do not start inside code (fences, inline backticks).
fn replace_outside_code<'a>(re: &Regex, text: &'a str) -> Cow<'a, str> {
    replace_matches(re, text, false)
}

/// Removes the matches of `re` outside code that stand as markup (see the module doc).
fn replace_standing_tags<'a>(re: &Regex, text: &'a str) -> Cow<'a, str> {
    replace_matches(re, text, true)
}

/// The matches of `re` outside code, grouped into runs separated by spaces or tabs only; a run is
/// removed when `standing` is false or it starts or ends its line. Linear: the blanks looked at
/// around one run are never looked at for another.
fn replace_matches<'a>(re: &Regex, text: &'a str, standing: bool) -> Cow<'a, str> {
    if !re.is_match(text) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let code = CodeRegions::find_indented(text);
    let in_code = |p: usize| code.contains(p);
    let mut runs: Vec<Range<usize>> = Vec::new();
    for m in re.find_iter(text).filter(|m| !in_code(m.start())) {
        match runs.last_mut() {
            Some(r) if standing && b[r.end..m.start()].iter().all(is_blank) => r.end = m.end(),
            _ => runs.push(m.range()),
        }
    }
    let edge = |c: Option<&u8>| c.is_none_or(|c| *c == b'\n');
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in runs {
        let starts = edge(b[..r.start].iter().rev().find(|c| !is_blank(c)));
        let ends = edge(b[r.end..].iter().find(|c| !is_blank(c)));
        if standing && !starts && !ends {
            continue;
        }
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    if at == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// A space, tab or carriage return.
fn is_blank(c: &u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// Reasoning blocks by the cleaner, then stray `<think>` tags of any case.
fn strip_thinking(content: &str) -> Cow<'_, str> {
    if memchr::memchr(b'<', content.as_bytes()).is_none() {
        return Cow::Borrowed(content);
    }
    let opts = Options {
        tool_calls: Mode::Keep,
        thinking: Mode::Strip,
        ..Options::default()
    };
    let cleaned = clean_response_r1(content, &opts, lone_close_ends_line(content)).content;
    let text = if cleaned == content {
        Cow::Borrowed(content)
    } else {
        Cow::Owned(cleaned)
    };
    let out = own_if_changed(text, |t| replace_outside_code(&THINK_TAG, t));
    match out {
        Cow::Owned(s) => Cow::Owned(js_trim(&s).to_owned()),
        b => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(model: &str, t: &str) -> String {
        sanitize_tool_call(model, t, Fallback::Auto).into_owned()
    }

    #[test]
    fn blank_test_reads_the_blocks_once_as_it_read_them_twice() {
        // What `visible_is_blank` did: the blocks found again with the R1 reading decided.
        let twice = |text: &str| {
            let extra = thinking::Extra {
                r1: lone_close_ends_line(text),
                ..thinking::Extra::default()
            };
            let mut at = 0;
            for t in thinking::find_blocks(text, extra) {
                if !js_trim(&text[at..t.outer.start]).is_empty() {
                    return false;
                }
                at = t.outer.end;
            }
            js_trim(&text[at..]).is_empty()
        };
        let parts = [
            "</think>",
            "<think>",
            "想",
            " ",
            "\n",
            "a",
            "</mm:think>",
            "<think>x",
            // A marker that starts no block here, and JavaScript whitespace that is not ASCII.
            "<channel|>",
            "\u{3000}",
        ];
        for t in crate::scrub::sequences_of_four(&parts) {
            assert_eq!(visible_is_blank(&t), twice(&t), "{t:?}");
        }
    }

    #[test]
    fn minimax_marker_is_found_in_any_case_as_the_seed_regex_finds_it() {
        // The seed tests `/minimax:tool_call/i`.
        for (t, found) in [
            ("a <minimax:tool_call> b", true),
            ("minimax:TOOL_CALL", true),
            ("mINIMAX:tool_call", true),
            ("MiniMax:tool_call", true),
            ("MINIMAX:TOOL_CALL", true),
            ("Minimax:Tool_Call then minimax:tool_call", true),
            ("模型 MiniMax:tool_call 中文", true),
            ("nimax:tool_call", false),
            (":tool_call", false),
            ("xminimax:tool_cal", false),
            ("mini max:tool_call", false),
        ] {
            assert_eq!(has_minimax_marker(t), found, "{t:?}");
        }
    }

    #[test]
    fn markup_in_code_is_kept_by_the_seed_api() {
        // A deployment guide showing MiniMax's format, and a request quoting the tags.
        let guide = "MiniMax 的输出格式：\n```xml\n<minimax:tool_call>\n<invoke name=\"search_web\">\n<parameter name=\"q\">x</parameter>\n</invoke>\n</minimax:tool_call>\n```\n以上是示例。";
        assert_eq!(tc("minimax/MiniMax-M2.5", guide), guide);
        let ask = "希望支持将思考内容使用 `<think></think>` 标签拼接到回复中";
        assert_eq!(sanitize_thinking_tags(ask), ask);
        // Outside code the seed's rules still apply.
        assert_eq!(
            tc("minimax/MiniMax-M2.5", "好的<invoke name=\"f\"></invoke>"),
            "好的"
        );
    }

    #[test]
    fn a_lone_closing_tag_ends_reasoning_only_when_it_ends_its_line() {
        let t = "MiniMax-M3 的模板把没有思考的回合写成 </mm:think> 加回答。";
        assert_eq!(sanitize_thinking_tags(t), t);
        let steps = Steps {
            tool_calls: true,
            thinking: true,
            fallback: Some(Fallback::Auto),
        };
        assert_eq!(sanitize("MiniMaxAI/MiniMax-M3", t, steps), t);
        assert_eq!(sanitize("MiniMax-M2.5", t, steps), t);
        assert_eq!(
            sanitize("MiniMax-M2.5", "</mm:think>你好！", steps),
            "你好！"
        );
        let leak = "用户想知道天气，先查一下。\n</think>\n\n今天晴。";
        assert_eq!(sanitize_thinking_tags(leak), "今天晴。");
    }

    #[test]
    fn seed_cases() {
        let out = tc(
            "minimax/MiniMax-M2.1",
            "<invoke><exec><cmd>date \"+%H:%M:%S\"</cmd></exec></invoke>",
        );
        assert_eq!(out, fallback::EN);
        let t = "你好，现在是下午3点。";
        assert!(matches!(
            sanitize_tool_call("minimax/MiniMax-M2.1", t, Fallback::Auto),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            tc(
                "minimax/MiniMax-M2.1",
                "让我帮你查询。<invoke><exec>...</exec></invoke>"
            ),
            "让我帮你查询。"
        );
    }

    #[test]
    fn minimax_structured_and_truncated_calls() {
        let t = "查一下。<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"q\">天气</parameter>\n</invoke>\n</minimax:tool_call>";
        assert_eq!(tc("minimax/M2", t), "查一下。");
        let t = "OK <minimax:tool_call><invoke name=\"search\"><parameter name=\"q\">cut";
        assert_eq!(tc("MiniMax/M2", t), "OK");
        assert_eq!(
            tc(
                "minimax/M2",
                "<minimax:tool_call><invoke name=\"s\"></invoke></minimax:tool_call>"
            ),
            fallback::EN
        );
    }

    #[test]
    fn zhipu_fences_and_glm_calls() {
        let t = "好的\n```tool_call\n{\"name\": \"f\"}\n```";
        assert_eq!(tc("zhipu/glm-4", t), "好的");
        assert_eq!(tc("glm/glm-4.5", "```tool_call\n{}\n```"), fallback::EN);
        let t = "稍等<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>";
        assert_eq!(tc("zhipu/glm-4.5", t), "稍等");
    }

    #[test]
    fn qwen_uses_the_cleaner_only() {
        let t = "Sure.<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
        assert_eq!(tc("qwen/qwen2.5", t), "Sure.");
        // The generic seed rule for bare `<function…>` tags is not applied to Qwen.
        assert_eq!(tc("qwen-portal/x", "a <function> b"), "a <function> b");
    }

    #[test]
    fn generic_rules_skip_code() {
        // Tags that start or end their line are leftovers; tags named in a sentence are words.
        assert_eq!(
            tc(
                "openai/gpt",
                "a\n<function name=x>\nb\n</function> </tool_call>\nc"
            ),
            "a\n\nb\n\nc"
        );
        assert_eq!(tc("openai/gpt", "好的<tool_call>"), "好的");
        for prose in [
            "a <function name=x> b </function> c",
            "The template ends every call with </tool_call> and nothing else.",
            "Ok\n<function_calls>\nsearch(q=1)\n</function_calls>",
        ] {
            assert_eq!(tc("openai/gpt", prose), prose);
        }
        // A fence indented by up to three spaces is code.
        let t = "  ```xml\n  <invoke name=\"f\"></invoke>\n  ```\nDone";
        assert_eq!(tc("openai/gpt", t), t);
        assert_eq!(
            super::super::code_regions::indented_fences(t),
            vec![Range {
                start: 0,
                end: t.len() - 4
            }]
        );
        let t = "Use `<tool_call>` tags.";
        assert!(matches!(
            sanitize_tool_call("openai/gpt", t, Fallback::Auto),
            Cow::Borrowed(_)
        ));
        assert_eq!(tc("x", "```function\nf()\n```\nDone"), "Done");
    }

    #[test]
    fn generic_rules_grow_linearly() {
        use crate::response::linearity::assert_linear;
        for unit in [
            "a <function name=x> b </tool_call> c ",
            "<tool_call> <function>  ",
            "x <tool_call>\n",
            " ```\n<tool_call>\n   ~~~\n",
        ] {
            assert_linear("seed generic tags", unit, &|t| {
                assert!(tc("openai/gpt", t).len() <= t.len() + fallback::EN.len());
            });
        }
    }

    #[test]
    fn fallback_follows_kept_reasoning_and_can_be_given() {
        let t =
            "<think>need a call</think><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
        let out = tc("qwen/q", t);
        assert_eq!(
            out,
            format!("<think>need a call</think>\n\n{}", fallback::EN)
        );
        assert_eq!(sanitize_thinking_tags(&out), fallback::EN);
        let mine = sanitize_tool_call(
            "qwen/q",
            "<tool_call>{\"name\": \"f\"}</tool_call>",
            Fallback::Text("…"),
        );
        assert_eq!(mine, "…");
    }

    #[test]
    fn thinking_tags() {
        assert_eq!(sanitize_thinking_tags("<think>plan</think>\n答案"), "答案");
        assert_eq!(sanitize_thinking_tags("plan\n</think>\nanswer"), "answer");
        // Inside a sentence only the tag goes, as the seed's `replace(/<\/?think>/gi, '')` did.
        assert_eq!(sanitize_thinking_tags("plan</think>answer"), "plananswer");
        assert_eq!(sanitize_thinking_tags("a <THINK>b</Think> c"), "a b c");
        assert_eq!(sanitize_thinking_tags("<think>only</think>"), "");
        assert!(matches!(sanitize_thinking_tags("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize_thinking_tags(""), "");
    }

    #[test]
    fn empty_input_is_returned() {
        assert_eq!(tc("minimax/x", ""), "");
    }

    #[test]
    fn provider_dispatch() {
        assert_eq!(
            Provider::of_model("MiniMax/MiniMax-M2.1"),
            Provider::Minimax
        );
        assert_eq!(Provider::of_model("glm"), Provider::Zhipu);
        assert_eq!(Provider::of_model("qwen-portal/coder"), Provider::Qwen);
        assert_eq!(Provider::of_model("minimax-m2"), Provider::Generic);
    }
}
