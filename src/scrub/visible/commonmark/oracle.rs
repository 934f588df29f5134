//! This reading against OpenClaw 2026.9.6's own `findCodeRegions` (micromark): the answers it
//! gave on 3,000 generated Markdown texts (containers, fences, indentation, tabs, tables, links,
//! definitions, CJK and emoji; `benchmark/code-regions-corpus.mjs` writes them) and on the texts
//! appended after them (one of seeds 1 and 2 that differed, its variants and their twins), and the cases
//! that told the rules apart while this reading was written, each with the oracle's answer.
//! `TH_CODE_ORACLE=<file.jsonl>` checks a larger corpus written by the same script.

use std::ops::Range;

use super::code_regions;

const CORPUS: &str =
    include_str!("../../../../__test__/fixtures/code-regions/openclaw-2026.9.6.jsonl");

/// Every case of `jsonl` whose regions differ from the oracle's, described.
fn differences(jsonl: &str) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut bad = Vec::new();
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        total += 1;
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let text = case["text"].as_str().expect("text");
        let want: Vec<(Range<usize>, bool)> = case["regions"]
            .as_array()
            .expect("regions")
            .iter()
            .map(|r| {
                let at = |i: usize| r[i].as_u64().expect("offset") as usize;
                (at(0)..at(1), r[2].as_bool().expect("block"))
            })
            .collect();
        let ours = code_regions(text);
        if ours != want {
            bad.push(format!("{text:?}\n  oracle {want:?}\n  ours   {ours:?}"));
        }
    }
    (total, bad)
}

#[test]
fn code_regions_match_openclaw_2026_9_6_on_its_corpus() {
    let (total, bad) = differences(CORPUS);
    assert!(total >= 3000, "the corpus has {total} cases");
    assert!(
        bad.is_empty(),
        "{} of {total} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
#[ignore = "needs a corpus written by benchmark/code-regions-corpus.mjs (TH_CODE_ORACLE)"]
fn code_regions_match_openclaw_2026_9_6_on_a_larger_corpus() {
    let path = std::env::var("TH_CODE_ORACLE").expect("TH_CODE_ORACLE names a .jsonl corpus");
    let (total, bad) = differences(&std::fs::read_to_string(path).expect("the corpus"));
    let shown: Vec<&String> = bad.iter().take(10).collect();
    assert!(
        bad.is_empty(),
        "{} of {total} differ:\n{shown:#?}",
        bad.len()
    );
}

/// (text, the oracle's regions as text, block or span).
const CASES: &[(&str, &[(&str, bool)])] = &[
    // A quote opened after a paragraph closes it: four more spaces are code.
    ("a\n>     `x", &[("    `x", true)]),
    // A fence ended by a new container keeps its last line ending; ended by a lazy line, not.
    ("> ```\n> a\n- b", &[("```\n> a\n", true)]),
    ("> ```\n> a\nb", &[("```\n> a", true)]),
    ("- ```\n  a\n- b", &[("```\n  a\n", true)]),
    // An unclosed fence runs to the end of the text; a last line that holds only a list's
    // indentation adds just the line ending before it.
    ("```\na\n", &[("```\na\n", true)]),
    ("* ~~~ x\n  ", &[("~~~ x\n", true)]),
    ("* ~~~ x\n  \ny", &[("~~~ x\n  ", true)]),
    // Table cells are split before code spans; an escaped pipe stays in the cell.
    ("| b | c |\n| - | - |\n| `x|y` | z |", &[]),
    (
        "| b | c |\n| - | - |\n| `x\\|y` | z |",
        &[("`x\\|y`", false)],
    ),
    // A table interrupts a paragraph, and an indented line after it is code.
    ("a\n| b | c |\n| - | - |\n| `x` | z |", &[("`x`", false)]),
    (
        "| b | c |\n| - | - |\n    `x` | z |\n`y`",
        &[("    `x` | z |", true), ("`y`", false)],
    ),
    // A link destination and a definition keep their backticks; an image's alt text is no code.
    ("[a](`b`) `c`", &[("`c`", false)]),
    ("[a]:\n`x`\n`y`", &[("`y`", false)]),
    ("![x `b`](c) `d`", &[("`d`", false)]),
    // A code span opened in a label wins over the link; an autolink keeps its backticks.
    ("[x `b>  <http://a`b>](c)", &[("`b>  <http://a`", false)]),
    ("<http://x`y> `z`", &[("`z`", false)]),
    // Four columns of spaces in an indented block are code too.
    ("    a\n \t", &[("    a\n \t", true)]),
    ("用 `<|im_end|>` 结束", &[("`<|im_end|>`", false)]),
    // A reference to a definition (anywhere in the text, label case-folded, spaces collapsed) is a
    // link: the link opener before it is inactive, so the outer `](…)` is text. Not defined, or a
    // full reference to an undefined label: the outer link stands.
    ("[x [a] y](`z`)\n\n[a]: /u", &[("`z`", false)]),
    ("[x [t][a] y](`z`)\n\n[a]: /u", &[("`z`", false)]),
    ("[x [a][] y](`z`)\n\n[a]: /u", &[("`z`", false)]),
    ("[x [A  b] y](`z`)\n\n[a b]: /u", &[("`z`", false)]),
    ("[x [Ä] y](`z`)\n\n[ä]: /u", &[("`z`", false)]),
    ("[x [a](\n y](`z`)\n\n[a]: /u", &[("`z`", false)]),
    ("[x [c] y](`z`)\n\n[a]: /u", &[]),
    ("[x [a][c] y](`z`)\n\n[a]: /u", &[]),
    ("[x [a] y](`z`)\n\n[ä]: /u", &[]),
    ("![x [a] y](`z`)\n\n[a]: /u", &[]),
    // An escaped `!` makes the `[` after it a link, not an image: the link before it is then inactive.
    ("[\\![i](`x`) a](<`b`>)", &[("`b`", false)]),
    ("[![i](`x`) a](<`b`>)", &[]),
    // A reference's label keeps its backticks.
    ("[t][`a`] `b`\n\n[`a`]: /u", &[("`b`", false)]),
    // After a paragraph of definitions only, `===` is text, not an underline.
    ("[a]: /u\n===\n    `x`", &[("`x`", false)]),
    ("> [a]: /u\n> ===\n>     `x`", &[("`x`", false)]),
    ("[a]: /u\nb\n===\n    `x`", &[("    `x`", true)]),
    ("[a]: /u\n---\n`x`", &[("`x`", false)]),
];

#[test]
fn code_regions_of_the_cases_that_tell_the_rules_apart() {
    for (text, want) in CASES {
        let got: Vec<(&str, bool)> = code_regions(text)
            .into_iter()
            .map(|(r, block)| (&text[r], block))
            .collect();
        assert_eq!(got, *want, "{text:?}");
    }
}
