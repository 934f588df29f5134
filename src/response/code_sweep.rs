//! Do no harm, swept: every marker any family or reasoning rule knows, written alone in inline
//! code, in a fenced example with prose after it, and in a fenced example that ends the reply
//! (after a lead-in), comes back exactly as written under every explicit `format` and in `auto`.
//!
//! Why: a family read from plain text (`gpt_oss`, `llama4_pythonic`, …) is read whole at the
//! end of a reply, by its own parser, with its own idea of code; `gpt_oss` stripped a Harmony
//! template shown in a fence (`Harmony 模板：` then the fence) and `llama4_pythonic` a fenced
//! `<|eot|>`, while `auto` kept both. The markers come from their one definition each (the stream's
//! openers and closers, the orphan and lone tokens, the wrappers a parser strips), so a marker a
//! family gains is swept with no edit here. Whole replies only: the reply table's runner checks
//! whole == streamed for the rows that pin these cases (`harm-31.jsonl`).
//!
//! The same markers named in a sentence (words and a space before, a space and words after, on one
//! line; Chinese and English) stay too, under every format: a cut call opener there took the rest
//! of the sentence as a cut call (`每一轮以 <steptml:invoke 结束。` → `每一轮以`). Pairs still
//! lost would be listed ([`SENTENCE_GAPS`]; none now); rows in `sent-32.jsonl`, `sent-32b.jsonl`.

use super::test_util::run;

/// Every marker to sweep, each once.
fn markers() -> Vec<&'static str> {
    let mut v = super::stream::vocabulary();
    v.extend(super::orphan::CLOSERS.iter().map(|c| c.0));
    v.extend(super::orphan::LONE);
    v.extend(super::invented_turn::OPENERS);
    v.extend(super::llama4_pythonic::TURN_ENDS);
    v.extend(super::gpt_oss::STRIPPED_HEADERS);
    v.extend(super::kimi_k3::MARKUP);
    v.extend(super::command_r::RESPONSE_TAGS);
    v.extend(super::minimax_m2::FUNCTION_CALLS);
    // A backtick in a marker would end the span that quotes it.
    v.retain(|m| !m.contains('`'));
    v.sort_unstable();
    v.dedup();
    v
}

/// The places a marker is quoted, not written: inline code, a fence with prose after it, a fence
/// that ends the reply after a lead-in (Chinese and English), an indented code block with prose
/// after it and one that ends the reply.
fn quoted(m: &str) -> [String; 6] {
    [
        format!("用 `{m}` 结束。\n"),
        format!("例子：\n```\n{m}\n```\n就这样。"),
        format!("例子：\n```\n{m}\n```\n"),
        format!("Example:\n\n```text\n{m}\n```"),
        format!("例子：\n\n    {m}\n\n就这样。"),
        format!("Example:\n\n    {m}\n"),
    ]
}

#[test]
fn every_marker_quoted_in_code_stays_under_every_format() {
    let formats = std::iter::once(None).chain(super::FORMATS.iter().map(|f| Some(*f)));
    let mut failed = Vec::new();
    for format in formats {
        for m in markers() {
            for text in quoted(m) {
                let c = run(&text, format, None, None);
                let only_code = c.problems.iter().all(|p| p.starts_with("kept-as-code: "));
                if c.content != text || !c.tool_calls.is_empty() || !only_code {
                    failed.push(format!(
                        "{format:?} {text:?} -> {:?} {} call(s) {:?}",
                        c.content,
                        c.tool_calls.len(),
                        c.problems
                    ));
                }
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} quoted marker(s) not kept:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// The markers the sentence sweep still loses under a format, each `(format, marker)` (`None`:
/// no format): gaps, not choices. The sweep fails when one of them is kept, so the list cannot
/// go stale: take the entry off when its fix lands.
const SENTENCE_GAPS: &[(Option<&str>, &str)] = &[];

/// A marker named in a sentence, Chinese and English: words and a space before it, a space and
/// words after it, on one line.
fn named(m: &str) -> [String; 2] {
    [
        format!("每一轮以 {m} 结束。"),
        format!("Each turn ends with {m} in this template."),
    ]
}

#[test]
fn every_marker_named_in_a_sentence_stays_under_every_format() {
    let formats = std::iter::once(None).chain(super::FORMATS.iter().map(|f| Some(*f)));
    let mut failed = Vec::new();
    let mut gaps = std::collections::BTreeSet::new();
    for format in formats {
        for m in markers() {
            let mut lost = false;
            for text in named(m) {
                let c = run(&text, format, None, None);
                if c.content != text || !c.tool_calls.is_empty() || !c.problems.is_empty() {
                    lost = true;
                    if !SENTENCE_GAPS.contains(&(format, m)) {
                        failed.push(format!(
                            "{format:?} {text:?} -> {:?} {} call(s) {:?}",
                            c.content,
                            c.tool_calls.len(),
                            c.problems
                        ));
                    }
                }
            }
            if lost {
                gaps.insert((format, m));
            }
        }
    }
    let fixed: Vec<_> = SENTENCE_GAPS.iter().filter(|g| !gaps.contains(g)).collect();
    assert!(
        failed.is_empty() && fixed.is_empty(),
        "{} named marker(s) not kept:\n{}\nlisted in SENTENCE_GAPS but kept now (take them off): {fixed:?}",
        failed.len(),
        failed.join("\n")
    );
}
