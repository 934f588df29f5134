//! Property tests (the bounded fuzz target CI runs with `cargo test`): replies built from marker
//! fragments of every family this crate knows, random text and multi-byte characters. Whatever
//! the input: no panic; with tool calls and thinking in `Keep` mode `clean_response` returns the
//! input; text without markers comes back unchanged (borrowed) from every function; the seed API
//! never turns a non-blank reply into a blank one; lone surrogates survive the round trip.
//! 512 cases per property keep the whole file under ~10 s in a debug build.

use std::borrow::Cow;

use proptest::prelude::*;

use super::downgraded::strip_downgraded_tool_call_text;
use super::minimax_xml::strip_minimax_tool_call_xml;
use super::reasoning_tags::{strip_reasoning_tags_from_text, TagMode, Trim};
use super::seed::{sanitize, sanitize_thinking_tags, sanitize_tool_call, Fallback, Steps};
use super::special_tokens::strip_model_special_tokens;
use super::splice::{self, Alphabet, Spliced};
use crate::js_text::js_trim;
use crate::lone_surrogates;
use crate::response::{clean_response, Mode, Options};

const FRAGMENTS: &[&str] = &[
    "<think>",
    "</think>",
    "<thinking>",
    "</thought>",
    "< / think >",
    "<antThinking x=1>",
    "<final>",
    "</final>",
    "<tool_call>",
    "</tool_call>",
    "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
    "{\"name\": \"g\", \"arguments\": \"{\\\"x\\\":",
    "<function=f>",
    "</function>",
    "<parameter=a>",
    "</parameter>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<invoke name=\"f\">",
    "<invoke>",
    "</invoke>",
    "<parameter name=\"p\">",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|assistant|>",
    "<|",
    "|>",
    "[Tool Call: f (ID: 1)]",
    "Arguments: ",
    "[Tool Result for ID 1]",
    "[Historical context: x]",
    "[tool ",
    "```",
    "```tool_call\n",
    "~~~",
    "`",
    "\n",
    "\r\n",
    " ",
    "  ",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ":",
    "<",
    ">",
    "/",
    "=",
    "get_weather",
    "北京",
    "😀",
    "é",
    "\u{2028}",
    "\u{FEFF}",
    "\u{10FFFF}",
];

fn reply() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(FRAGMENTS).prop_map(str::to_owned),
        1 => ".{0,6}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// Text with none of the characters any marker starts with.
fn plain() -> impl Strategy<Value = String> {
    "[^<\\[`]{0,64}"
}

fn all_scrubbers(t: &str) -> Vec<Cow<'_, str>> {
    vec![
        strip_minimax_tool_call_xml(t),
        strip_model_special_tokens(t),
        strip_downgraded_tool_call_text(t),
        strip_reasoning_tags_from_text(t, TagMode::Strict, Trim::Both),
        strip_reasoning_tags_from_text(t, TagMode::Preserve, Trim::None),
        sanitize_thinking_tags(t),
        sanitize_tool_call("minimax/m", t, Fallback::Auto),
        sanitize_tool_call("glm/m", t, Fallback::Auto),
        sanitize_tool_call("qwen/qwen3-coder", t, Fallback::Auto),
        sanitize_tool_call("openai/gpt", t, Fallback::Auto),
    ]
}

/// Replies with the characters the proxy maps specially: CJK, the full-width bar, non-ASCII
/// JavaScript whitespace, a control byte, an emoji (two UTF-16 units).
fn proxied_reply() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(FRAGMENTS).prop_map(str::to_owned),
        2 => prop::sample::select(&["中文", "｜", "\u{3000}", "\u{a0}", "\u{2}", "😀", "\u{feff}", "  ", "\n", "`", "```\n", "[Tool Call: f]\nArguments: {\"a\": \"中\"}"][..]).prop_map(str::to_owned),
        1 => ".{0,6}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// The scrubbers run on a proxy of the UTF-16 units (`proxy`: what the addon builds for that
/// scrubber), rebuilt from the units.
fn by_proxy(
    t: &str,
    proxy: fn(&[u16], &mut Vec<u8>),
    f: impl for<'a> Fn(Spliced<'a>) -> Spliced<'a>,
) -> String {
    let units: Vec<u16> = t.encode_utf16().collect();
    let mut bytes = Vec::new();
    proxy(&units, &mut bytes);
    let proxy = String::from_utf8(bytes).unwrap_or_default();
    let out = f(Spliced::of(&proxy, Alphabet::Proxy));
    String::from_utf16(&out.to_units(&units)).unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_proxy_gives_what_the_text_gives(t in proxied_reply()) {
        let full = splice::proxy_into;
        prop_assert_eq!(by_proxy(&t, splice::ascii_proxy_into, super::minimax_xml::strip_spliced), strip_minimax_tool_call_xml(&t));
        prop_assert_eq!(by_proxy(&t, full, super::special_tokens::strip_spliced), strip_model_special_tokens(&t));
        prop_assert_eq!(by_proxy(&t, full, super::downgraded::strip_spliced), strip_downgraded_tool_call_text(&t));
        for (mode, trim) in [(TagMode::Strict, Trim::Both), (TagMode::Preserve, Trim::Start), (TagMode::Preserve, Trim::None)] {
            prop_assert_eq!(by_proxy(&t, full, |s| super::reasoning_tags::strip_spliced(s, mode, trim)), strip_reasoning_tags_from_text(&t, mode, trim));
        }
    }

    #[test]
    fn nothing_panics_and_keep_mode_is_identity(t in reply()) {
        for mode in [Mode::Extract, Mode::Strip] {
            let _ = clean_response(&t, &Options { tool_calls: mode, thinking: mode, ..Options::default() });
        }
        let kept = clean_response(&t, &Options {
            tool_calls: Mode::Keep,
            thinking: Mode::Keep,
            ..Options::default()
        });
        prop_assert_eq!(&kept.content, &t);
        prop_assert!(kept.tool_calls.is_empty());
        let _ = all_scrubbers(&t);
    }

    #[test]
    fn text_without_markers_is_unchanged(t in plain()) {
        let c = clean_response(&t, &Options::default());
        prop_assert_eq!(&c.content, &t);
        prop_assert!(c.tool_calls.is_empty());
        for out in all_scrubbers(&t) {
            prop_assert!(matches!(out, Cow::Borrowed(_)), "changed: {:?}", out);
        }
    }

    #[test]
    fn text_without_a_prefilter_byte_is_unchanged(t in reply()) {
        type Scrub = fn(&str) -> Cow<'_, str>;
        let cases: [(&[u8], Scrub); 5] = [
            (super::minimax_xml::PREFILTER, strip_minimax_tool_call_xml),
            (super::special_tokens::PREFILTER, strip_model_special_tokens),
            (super::downgraded::PREFILTER, strip_downgraded_tool_call_text),
            (super::reasoning_tags::PREFILTER, |t| strip_reasoning_tags_from_text(t, TagMode::Preserve, Trim::Start)),
            (super::seed::THINKING_PREFILTER, sanitize_thinking_tags),
        ];
        for (prefilter, f) in cases {
            let without: String = t.chars().filter(|c| !c.is_ascii() || !prefilter.contains(&(*c as u8))).collect();
            prop_assert!(matches!(f(&without), Cow::Borrowed(_)), "{:?} changed {:?}", prefilter, without);
        }
        // The special-token needles js/scrub.js asks V8 for: a `<` then a bar.
        let without = super::special_tokens::NEEDLES.iter().fold(t.clone(), |s, n| s.replace(n, "<"));
        if !super::special_tokens::NEEDLES.iter().any(|n| without.contains(n)) {
            prop_assert!(matches!(strip_model_special_tokens(&without), Cow::Borrowed(_)), "changed {:?}", without);
        }
    }

    #[test]
    fn seed_api_never_blanks_a_reply(t in reply(), model in prop::sample::select(&["minimax/m", "zhipu/g", "qwen/q", "x/y"][..])) {
        let steps = Steps { tool_calls: true, thinking: true, fallback: Some(Fallback::Auto) };
        for out in [sanitize(model, &t, steps), sanitize_tool_call(model, &t, Fallback::Auto)] {
            if !js_trim(&t).is_empty() && out != t {
                prop_assert!(!js_trim(&out).is_empty());
            }
        }
    }

    #[test]
    fn lone_surrogates_round_trip(units in prop::collection::vec(
        prop_oneof![any::<u16>(), 0xD800u16..0xE000, Just(0x3Cu16)], 0..48)) {
        match lone_surrogates::transcode(&units) {
            Some(t) => {
                prop_assert_eq!(lone_surrogates::encode_utf16(&t), units.clone());
                prop_assert_eq!(Some(t), String::from_utf16(&units).ok());
            }
            None => prop_assert!(lone_surrogates::has_lone_surrogate(&units)),
        }
        let (text, map) = lone_surrogates::decode(&units);
        match map {
            Some(m) => prop_assert_eq!(m.to_utf16(&text), units),
            None => prop_assert!(!lone_surrogates::has_lone_surrogate(&units)),
        }
    }
}
