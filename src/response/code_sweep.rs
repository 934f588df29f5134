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
