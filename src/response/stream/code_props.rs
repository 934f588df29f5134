//! Property: a reply whose model markup (every family's calls and reasoning tags) sits only in
//! inline code or fenced blocks after prose comes back unchanged — no call, no reasoning — whole
//! and streamed under random chunkings. Prose is Chinese and English mixed. And with the same
//! markup outside code, between prose and runs of whitespace, the ranges of the reply the cleaner
//! records ([`super::Spans`], what the addon hands JavaScript as slices) spell its content.

use proptest::prelude::*;

use super::StreamCleaner;
use crate::response::{clean_response, clean_response_spans, Cleaned, Mode, Options};

const PROSE: &[&str] = &[
    "这是一个解释。",
    "模型的输出格式如下：",
    "Here is how the template writes it:",
    "请注意 a < b 与 [1, 2] 的区别，",
    "so the parser must skip it.",
    "参考部署指南。",
    "If x > 3 then { y }.",
];

/// Markup of every family, without backticks and blank lines.
const MARKUP: &[&str] = &[
    "<think>先想</think>",
    "</think>",
    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>",
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>",
    "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"q\">天气</parameter>\n</invoke>\n</minimax:tool_call>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]",
    "<|channel|>analysis<|message|>hmm<|end|>",
    "<seed:tool_call><function=f></function></seed:tool_call>",
    "[THINK]x[/THINK]",
    "<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>",
    "<mm:think>想一想</mm:think>",
    "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
    "<|tool_call>call:f{a:<|\"|>北京<|\"|>}<tool_call|>",
    "<|channel>thought\n想<channel|>",
    "<|START_THINKING|>x<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|>",
    "<|tools_prefix|>[{\"f\": {\"a\": 1}}]<|tools_suffix|>",
    "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {}}]</TOOLCALL>",
    "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"f\">\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
    "<|function_call|>{\"name\": \"f\", \"arguments\": {}}",
    "function call<|role_sep|>{\"name\": \"f\", \"arguments\": {}}",
    "<function name=\"f\"><param name=\"a\">1</param></function>",
    "<|tool_call_start|>[f(a=1)]<|tool_call_end|>",
    "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    "[TOOL_CALL]{tool => \"f\", args => {--a \"1\"}}[/TOOL_CALL]",
];

const LANGS: &[&str] = &["", "xml", "json", "text", "python", "jinja"];

#[derive(Debug, Clone)]
enum Piece {
    Prose(usize),
    Inline(usize, usize),
    Fence(usize, usize, bool),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        (0..PROSE.len()).prop_map(Piece::Prose),
        (0..MARKUP.len(), 1..3usize).prop_map(|(m, n)| Piece::Inline(m, n)),
        (0..MARKUP.len(), 0..LANGS.len(), any::<bool>())
            .prop_map(|(m, l, t)| Piece::Fence(m, l, t)),
    ]
}

fn render(first: usize, pieces: &[Piece]) -> String {
    let mut s = PROSE[first].to_owned();
    for p in pieces {
        match *p {
            Piece::Prose(i) => s.push_str(PROSE[i]),
            Piece::Inline(m, n) => {
                let ticks = "`".repeat(n);
                s.push_str(&format!(" {ticks}{}{ticks} ", MARKUP[m]));
            }
            Piece::Fence(m, l, tilde) => {
                let f = if tilde { "~~~" } else { "```" };
                s.push_str(&format!("\n{f}{}\n{}\n{f}\n", LANGS[l], MARKUP[m]));
            }
        }
    }
    s
}

/// `t` cut at `cuts` (taken modulo its length, rounded up to char boundaries) and streamed.
fn streamed(t: &str, cuts: &[usize], opts: &Options) -> Cleaned {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (t.len() + 1)).collect();
    at.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for mut c in at {
        while !t.is_char_boundary(c) {
            c += 1;
        }
        if c > from {
            pieces.push(&t[from..c]);
            from = c;
        }
    }
    pieces.push(&t[from..]);
    crate::response::cases::streamed(&pieces, opts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn markup_only_in_code_comes_back_unchanged(
        first in 0..PROSE.len(),
        pieces in prop::collection::vec(piece(), 1..6),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let t = render(first, &pieces);
        let opts = Options::default();
        let whole = clean_response(&t, &opts);
        prop_assert_eq!(&whole.content, &t);
        prop_assert!(whole.tool_calls.is_empty() && whole.reasoning.is_empty());
        prop_assert_eq!(whole.format, None);
        prop_assert!(whole.problems.iter().all(|p| p.starts_with("kept-as-code: ")));
        prop_assert_eq!(streamed(&t, &cuts, &opts), whole);
    }

    #[test]
    fn kept_ranges_spell_the_content(
        parts in prop::collection::vec((0..PROSE.len() + MARKUP.len() + 4, 0..4usize), 1..10),
        modes in (0..3usize, 0..3usize),
        tail in 0..4usize,
    ) {
        // Markup outside code, prose, and whitespace before and after each (the whitespace
        // rule holds some back and drops some); both modes of calls and of reasoning.
        const SPACE: &[&str] = &["", " ", "\n\n", " \n "];
        let mut t = String::new();
        for &(p, w) in &parts {
            t.push_str(SPACE[w]);
            match p.checked_sub(PROSE.len()) {
                None => t.push_str(PROSE[p]),
                Some(m) => t.push_str(MARKUP.get(m).copied().unwrap_or("`<tool_call>`")),
            }
        }
        t.push_str(SPACE[tail]);
        let mode = [Mode::Extract, Mode::Strip, Mode::Keep];
        let opts = Options { tool_calls: mode[modes.0], thinking: mode[modes.1], ..Options::default() };
        let (whole, spans) = clean_response_spans(&t, &opts);
        prop_assert!(spans.is_some_and(|s| s.spell(&t, &whole.content)), "{:?} -> {:?}", t, whole.content);
        prop_assert_eq!(whole, clean_response(&t, &opts));
    }
}

/// Code tracking stays linear: the time for 1 MB over the time for 100 KB of adversarial code
/// (backtick runs of ever new lengths in one paragraph, unclosed fences of markup, lone backticks
/// before markers) stays far below the 100× a quadratic scan would give, whole and streamed.
#[test]
fn code_tracking_is_linear() {
    fn runs(n: usize) -> String {
        let mut s = String::from("x ");
        let mut k = 1;
        while s.len() < n {
            s.push_str(&"`".repeat(k));
            s.push_str("a<b ");
            k += 1;
        }
        s
    }
    let units: [fn(usize) -> String; 3] = [
        runs,
        |n| "\n```json\n<tool_call>{\"name\": \"f\"".repeat(n / 32),
        |n| "x ``` <tool_call>{ `` [TOOL_CALLS] ".repeat(n / 34),
    ];
    let clean = |t: &str| {
        let whole = clean_response(t, &Options::default());
        let mut s = StreamCleaner::new(Options::default());
        for chunk in t.as_bytes().chunks(64) {
            let _ = s.push(std::str::from_utf8(chunk).unwrap_or(""));
        }
        let _ = s.finish();
        assert!(whole.content.len() <= t.len());
    };
    // The first input is not one unit repeated: its run lengths grow with it (about √(2n)
    // distinct lengths, ~1,400 at 1 MB, most bytes inside long runs). A stream delivers such a
    // run a few bytes at a time; counting it again from its start at every delta grew as n^1.5
    // (15.2–15.5× for 10×); each run is now counted once ([`super::code::Ticks`]).
    for (i, unit) in units.iter().enumerate() {
        crate::response::linearity::assert_grows_linearly(&format!("code unit {i}"), unit, &clean);
    }
}
