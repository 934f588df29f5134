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
