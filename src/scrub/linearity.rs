//! Linearity of the OpenClaw-compatible scrubbers on adversarial text (openers that never close,
//! runs of `<`, `[` and backticks, unclosed fences), on the proxy the addon runs them on: the time at 1 MB is at most 15× the time at 100 KB (see
//! [`crate::response::linearity`]).

use super::reasoning_tags::{self, TagMode, Trim};
use super::splice::{self, Alphabet, Spliced};
use super::{downgraded, minimax_xml, special_tokens};
use crate::response::linearity::assert_linear;

/// Adversarial units, each repeated to 100 KB and 1 MB.
const UNITS: &[&str] = &[
    "minimax:tool_call <invoke name=\"x\"> <invoke </minimax:tool_call",
    "<|<|<｜<｜<|a\n",
    "</think><think x=\"",
    "`<think>` ``",
    "```\n<think>\n~~~\n</final>`",
    "[Tool Call: f (ID: 1)]\nArguments: {",
    "[Tool Result for ID 1]\n[Tool [Historical context: [[[[",
    "<<<<[[[[中文",
    "a <think> b </think> c\n</think>   \n",
    "   </think>x   ",
    "  ```xml\n  <think>\n  ```\n",
];

fn all(text: Spliced<'_>) -> usize {
    let a = minimax_xml::strip_spliced(text.clone()).as_str().len();
    let b = special_tokens::strip_spliced(text.clone()).as_str().len();
    let c = downgraded::strip_spliced(text.clone()).as_str().len();
    let d = reasoning_tags::strip_spliced(text.clone(), TagMode::Preserve, Trim::None);
    let e = reasoning_tags::strip_spliced(text.clone(), TagMode::Strict, Trim::Both);
    let f = reasoning_tags::strip_spliced_code_aware(text, TagMode::Strict, Trim::Both);
    a + b + c + d.as_str().len() + e.as_str().len() + f.as_str().len()
}

#[test]
fn every_scrubber_grows_linearly_on_adversarial_text() {
    // On the proxy, as the addon runs them (the real-text path is the same code).
    for unit in UNITS {
        assert_linear("scrubbers", unit, &|t| {
            let units: Vec<u16> = t.encode_utf16().collect();
            let proxy = splice::proxy(&units);
            assert!(all(Spliced::of(&proxy, Alphabet::Proxy)) <= 6 * t.len());
        });
    }
}

/// OpenClaw 2026.9.6's scrubbers ([`super::visible`]) on the same units plus their own markers.
/// Not covered, because not linear (as in OpenClaw, whose algorithm they follow): many
/// `[TOOL_CALL]` openers with no closing tag and no call payload (each rescans to the end), and
/// many `<function_calls>`/`<function_response>` openers with no closing tag.
#[test]
fn the_2026_9_6_scrubbers_grow_linearly_on_adversarial_text() {
    use super::visible::{
        downgraded as d, legacy_bracket as l, memories as m, minimax as x, plain_tool_call as p,
        reasoning as r, special_tokens as s, tool_call_xml as t, trace_lines as tr,
    };
    let extra = [
        "<relevant-memories></relevant-memories><relevant-memories>",
        "🛠️ Exec: ls\n",
        "<tool_call>{\"a\":\"</tool_call><function name=\"f\">{",
        "<think><internal></think></think>x",
        "[TOOL_CALL]{tool => \"x\", args => {}}[/TOOL_CALL] ",
        "[tool:x] {\"a\":\"b\"} [y]\n{\"k\":[1,2]} junk\n<function=f>\n<parameter=p>v\n",
        "[t]\n{\"a\":1}\n[/t]\ncommentary to=f code {\"a\":1}<|call|>\n[tool:r] <parameter=k>v</parameter>\n",
    ];
    // Units with code (backticks, tildes) are left out: the CommonMark parse is not linear on
    // them, see the ignored test below.
    let fenceless = UNITS
        .iter()
        .filter(|u| !u.contains('`') && !u.contains('~'));
    for unit in fenceless.chain(&extra) {
        assert_linear("2026.9.6 scrubbers", unit, &|text| {
            let n = s::strip_model_special_tokens(text).len()
                + m::strip_relevant_memories_tags(text).len()
                + tr::strip_trace_lines(text).len()
                + x::strip_minimax_tool_call_xml(text).len()
                + d::strip_downgraded_tool_call_text(text, false).len()
                + t::strip_tool_call_xml(text, true, false).len()
                + r::strip_reasoning_tags(text, r::Options::default()).len()
                + l::strip_legacy_bracket_blocks(text).len()
                + p::strip_plain_text_tool_calls(text, true).len();
            assert!(n <= 9 * text.len());
        });
    }
}

/// The CommonMark code regions behind the 2026.9.6 scrubbers grow linearly: many fences, runs of
/// unmatched backticks, nested containers, tables, and links that never close (markdown-rs, used
/// before, took 656 ms on 100 KB of `x\n```\nabc\n```\n` and 11.7 s on 400 KB).
#[test]
fn the_2026_9_6_code_regions_grow_linearly_on_many_fences() {
    for unit in [
        "x\n```\nabc\n```\n",
        "```\n<think>\n~~~\n</final>`",
        "`<think>` ``",
        "> - 1. `a\n>   b\n",
        "| a | `b` |\n| - | - |\n",
        "[a](bbb [a](<c ![d `e` [f]: g\n",
        "    code\n\n\t- x\n",
        "- > 1) ",
        "- a\n\n",
    ] {
        assert_linear("CommonMark code regions", unit, &|text| {
            assert!(
                super::visible::markdown_code::MarkdownCode::find(text)
                    .ranges()
                    .len()
                    <= text.len()
            );
        });
    }
}

/// A link definition, then nested link openers closed one by one: every `]` may be a reference,
/// and the link texts overlap (each read at most once up to 1,000 bytes, against a bound).
#[test]
fn the_2026_9_6_code_regions_grow_linearly_on_nested_references() {
    crate::response::linearity::assert_grows_linearly(
        "CommonMark code regions: a definition, then nested openers",
        &|n| format!("[a]: /u\n\n`x` {}{}", "[".repeat(n / 2), "]".repeat(n / 2)),
        &|text| {
            assert!(super::visible::commonmark::code_regions(text).len() <= 1);
        },
    );
}

/// One line of deeply nested list items, then as many blank lines (every list continues on a
/// blank line): the nesting bound keeps each blank line cheap.
#[test]
fn the_2026_9_6_code_regions_grow_linearly_after_deep_nesting() {
    crate::response::linearity::assert_grows_linearly(
        "CommonMark code regions: deep list, then blank lines",
        &|n| format!("{}{}`a`", "- ".repeat(n / 4), "\n".repeat(n / 2)),
        &|text| {
            assert!(super::visible::commonmark::code_regions(text).len() <= 1);
        },
    );
}
