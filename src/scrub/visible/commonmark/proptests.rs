//! This reading of CommonMark code against the `markdown` crate (markdown-rs, a port of the
//! micromark parser OpenClaw runs) on generated Markdown: fences, spans, indented blocks, lists,
//! quotes, tables, tabs, line endings and CJK text, in random order.

use std::ops::Range;

use markdown::mdast::Node;
use markdown::{Constructs, ParseOptions};
use proptest::prelude::*;

use super::code_regions;

/// The code regions markdown-rs finds, as OpenClaw reads them (GFM tables on, raw HTML off).
fn reference(text: &str) -> Vec<(Range<usize>, bool)> {
    let options = ParseOptions {
        constructs: Constructs {
            html_flow: false,
            html_text: false,
            gfm_table: true,
            ..Constructs::default()
        },
        ..ParseOptions::default()
    };
    let Ok(tree) = markdown::to_mdast(text, &options) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending = vec![&tree];
    while let Some(node) = pending.pop() {
        if matches!(node, Node::Code(_) | Node::InlineCode(_)) {
            if let Some(p) = node.position() {
                found.push((p.start.offset..p.end.offset, matches!(node, Node::Code(_))));
            }
        }
        if let Some(children) = node.children() {
            pending.extend(children.iter().rev());
        }
    }
    found.sort_by_key(|(r, _)| r.start);
    found
}

const FRAGMENTS: &[&str] = &[
    "`",
    "``",
    "```",
    "````",
    "~~~",
    "```js",
    "~~~ x`",
    "\\`",
    "\\",
    "<",
    ">",
    "> ",
    "<http://a`b>",
    "<a`b@c.d>",
    "-",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "2) ",
    "10. ",
    "*",
    "---",
    "***",
    "===",
    "#",
    "# ",
    "|",
    "| a |",
    "| - |",
    "|---|",
    ":-",
    " | ",
    "\\|",
    "    ",
    "  ",
    " ",
    "\t",
    "\n",
    "\n",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "a",
    "word",
    "北京",
    "好的，",
    "<think>",
    "</think>",
    "[",
    "]",
    "(",
    ")",
    "x y",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn code_regions_match_markdown_rs(text in text()) {
        prop_assert_eq!(code_regions(&text), reference(&text), "{:?}", text);
    }
}

/// Compares with OpenClaw 2026.9.6 itself on a corpus its `findCodeRegions` answered (a JSON file
/// of `{text, regions: [[start, end, block]]}` in UTF-8 offsets, named by `TH_CODE_ORACLE`).
#[test]
#[ignore = "needs a corpus answered by the oracle"]
fn code_regions_match_the_oracle_corpus() {
    let Ok(path) = std::env::var("TH_CODE_ORACLE") else {
        return;
    };
    let corpus: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("corpus")).expect("json");
    let mut bad = 0;
    let mut rs_bad = 0;
    for case in &corpus {
        let text = case["text"].as_str().expect("text");
        let want: Vec<(Range<usize>, bool)> = case["regions"]
            .as_array()
            .expect("regions")
            .iter()
            .map(|r| {
                let n = |i: usize| r[i].as_u64().expect("offset") as usize;
                (n(0)..n(1), r[2].as_bool().expect("block"))
            })
            .collect();
        let ours = code_regions(text);
        let rs = std::panic::catch_unwind(|| reference(text));
        if rs.is_err() {
            eprintln!("markdown-rs panics on {text:?}");
        }
        rs_bad += usize::from(rs.as_ref().ok() != Some(&want));
        if ours != want {
            bad += 1;
            if bad <= 15 {
                eprintln!("{text:?}\n  oracle {want:?}\n  ours   {ours:?}\n  md-rs  {rs:?}");
            }
        }
    }
    eprintln!(
        "{bad} of {} differ from the oracle (markdown-rs: {rs_bad})",
        corpus.len()
    );
    assert_eq!(bad, 0);
}
