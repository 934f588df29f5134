//! Native calls whose results were stored as user text (Cline with native tool calls).
//!
//! Cline records a native call as a `tool_use` block, but when it cannot map the call back to its
//! id (`toolUseIdMap` has no entry), `ToolResultUtils` stores the result as a plain text block
//! `[<desc>] Result:\n<output>` instead of a `tool_result`. A real task (see
//! `__test__/fixtures/cline/text-results.json`) has 213 of 231 calls answered this way. Before
//! each request Cline runs `ensureToolResultsFollowToolUse`, which gives every call left without a
//! `tool_result` one whose content is `result missing`, and then sends the text as user text.
//!
//! Here the text is what it says it is: the k-th unanswered call of an assistant message is
//! answered by the next result text of the following user message whose description names that
//! tool (`[execute_command for 'ls'] Result:` answers `execute_command`); when one call and one
//! result text remain, they go together whatever the description says (Cline describes
//! `use_subagents` as `[subagents]`). A call no text answers gets Cline's `result missing`.

use std::collections::HashSet;

use super::model::{Block, History};
use super::plan::{Piece, ResultSpec, Spec};
use super::recover::{path, Pair, Pass};
use super::xml_result;

/// The content Cline gives a call left without a result.
pub const RESULT_MISSING: &str = "result missing";

/// The tool a result text names: its first line is `[<desc>] Result:`.
///
/// ```
/// use transcript_hygiene::tool_style::text_result::header_name;
/// assert_eq!(header_name("[execute_command for 'ls'] Result:\n文件.txt").as_deref(), Some("execute_command"));
/// assert_eq!(header_name("see [x] Result:"), None);
/// ```
pub fn header_name(text: &str) -> Option<String> {
    let first = text.split('\n').next().unwrap_or("");
    xml_result::parse(first).map(|h| h.name)
}

/// For each call name, the candidate (index into `results`) that answers it, if any.
/// `results`: the tool names the result texts state, in block order.
///
/// ```
/// use transcript_hygiene::tool_style::text_result::pair;
/// let said = vec!["execute_command".to_string()];
/// assert_eq!(pair(&["read_file", "execute_command"], &said), vec![None, Some(0)]);
/// // One call, one result text: together, whatever the description says.
/// assert_eq!(pair(&["use_subagents"], &["subagents".to_string()]), vec![Some(0)]);
/// ```
pub fn pair(calls: &[&str], results: &[String]) -> Vec<Option<usize>> {
    let mut out = vec![None; calls.len()];
    let mut next = 0;
    for (k, name) in calls.iter().enumerate() {
        if let Some(j) = (next..results.len()).find(|&j| results[j] == *name) {
            out[k] = Some(j);
            next = j + 1;
        }
    }
    if calls.len() == 1 && results.len() == 1 {
        out[0] = Some(0);
    }
    out
}

/// The result texts of user message `u` (block indexes) and the tools they name, leaving out the
/// blocks in `skip`.
pub fn result_texts(h: &History, u: usize, skip: &HashSet<usize>) -> (Vec<usize>, Vec<String>) {
    let mut texts = Vec::new();
    let mut names = Vec::new();
    for (b, blk) in h.msgs[u].blocks().iter().enumerate() {
        if let Block::Text(ti) = blk {
            if let Some(name) = header_name(h.text(*ti)).filter(|_| !skip.contains(&b)) {
                texts.push(b);
                names.push(name);
            }
        }
    }
    (texts, names)
}

/// The `tool_result` that carries text block `tb` (text `ti`) whole, as Cline sends it.
pub fn result_spec(id: &str, ti: usize) -> Spec {
    Spec::ToolResult {
        base: None,
        id: id.to_string(),
        content: ResultSpec::Str(vec![Piece::Whole(ti)]),
        is_error: None,
    }
}

/// Recovery: the result texts that answer assistant message `a`'s native calls become their
/// `tool_result`s, first in user message `u` (Anthropic wants them before any text), in call
/// order. Calls no text answers are left as they are.
pub fn recover_pair(p: &mut Pass<'_>, a: usize, u: usize) {
    let h = p.h;
    let blocks = h.msgs[u].blocks();
    let taken: HashSet<usize> = match &p.content[u] {
        Some(c) => (0..blocks.len())
            .filter(|b| !c.contains(&Spec::Keep(*b)))
            .collect(),
        None => HashSet::new(),
    };
    let mut results = Vec::new();
    for c in unanswered(h, a, u, &taken) {
        let (Some(tb), Some(Block::Text(ti))) = (c.text, c.text.and_then(|t| blocks.get(t))) else {
            continue;
        };
        let name = match &h.msgs[a].blocks()[c.call] {
            Block::ToolUse { name, .. } => name.clone().unwrap_or_default(),
            _ => String::new(),
        };
        p.out.recovered.push(Pair {
            id: c.id.clone(),
            name,
            call: path(a, c.call),
            result: Some(path(u, tb)),
            source: "text_result",
        });
        results.push((tb, result_spec(&c.id, *ti)));
    }
    if results.is_empty() {
        return;
    }
    let v = p.edit(u);
    v.retain(|s| !results.iter().any(|(tb, _)| *s == Spec::Keep(*tb)));
    // After the tool_results already there, before everything else.
    let at = v
        .iter()
        .position(|s| match s {
            Spec::Keep(b) => !matches!(blocks.get(*b), Some(Block::ToolResult { .. })),
            Spec::ToolResult { .. } => false,
            _ => true,
        })
        .unwrap_or(v.len());
    v.splice(at..at, results.into_iter().map(|(_, s)| s));
}

/// One native call of assistant message `a` without a `tool_result` in the next message.
#[derive(Debug, Clone, PartialEq)]
pub struct Unanswered {
    /// The tool_use block in `a`.
    pub call: usize,
    pub id: String,
    /// The text block of the next user message that answers it.
    pub text: Option<usize>,
}

/// The native calls of assistant message `a` that user message `u` answers with no
/// `tool_result`, each with its result text. `skip`: text blocks of `u` already taken.
pub fn unanswered(h: &History, a: usize, u: usize, skip: &HashSet<usize>) -> Vec<Unanswered> {
    let answered: HashSet<&str> = h.msgs[u]
        .blocks()
        .iter()
        .filter_map(|b| match b {
            Block::ToolResult { id: Some(id), .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<(usize, &str, &str)> = h.msgs[a]
        .blocks()
        .iter()
        .enumerate()
        .filter_map(|(b, blk)| match blk {
            Block::ToolUse {
                id: Some(id), name, ..
            } if !answered.contains(id.as_str()) => {
                Some((b, id.as_str(), name.as_deref().unwrap_or("")))
            }
            _ => None,
        })
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let (texts, names) = result_texts(h, u, skip);
    let call_names: Vec<&str> = calls.iter().map(|c| c.2).collect();
    pair(&call_names, &names)
        .into_iter()
        .zip(calls)
        .map(|(j, (call, id, _))| Unanswered {
            call,
            id: id.to_string(),
            text: j.map(|j| texts[j]),
        })
        .collect()
}

/// Test history: two native calls, the next user message answering the first with text.
#[cfg(test)]
pub fn two_calls_one_answered() -> super::model::build::B {
    use super::model::build::{tool_use, B};
    use serde_json::json;
    let mut b = B::default();
    b.msg(
        "assistant",
        vec![
            tool_use("t1", "execute_command", json!({"command": "ls"})),
            tool_use("t2", "read_file", json!({"path": "a"})),
        ],
    );
    let r = b.text("[execute_command for 'ls'] Result:\n文件.txt");
    let env = b.text("<environment_details>\n</environment_details>");
    b.msg("user", vec![r, env]);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Call names, the names the result texts state, and the text each call gets.
    type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a [Option<usize>]);

    #[test]
    fn the_description_names_the_call_it_answers() {
        let cases: &[Case] = &[
            (&["execute_command"], &["execute_command"], &[Some(0)]),
            // The only call and the only result, whatever the description says.
            (&["use_subagents"], &["subagents"], &[Some(0)]),
            (
                &["read_file", "execute_command"],
                &["execute_command"],
                &[None, Some(0)],
            ),
            (
                &["read_file", "read_file"],
                &["read_file", "read_file"],
                &[Some(0), Some(1)],
            ),
            (&["read_file", "list_files"], &["x", "y"], &[None, None]),
            (&["read_file"], &[], &[None]),
        ];
        for (calls, results, want) in cases {
            let results: Vec<String> = results.iter().map(|s| s.to_string()).collect();
            assert_eq!(pair(calls, &results), *want, "{calls:?} {results:?}");
        }
    }

    #[test]
    fn reads_the_header_line_of_a_result_text() {
        assert_eq!(
            header_name("[execute_command for 'ls'] Result:\nCommand executed.").as_deref(),
            Some("execute_command")
        );
        assert_eq!(
            header_name("[subagents] Result:").as_deref(),
            Some("subagents")
        );
        assert_eq!(header_name("The [x] Result: was fine"), None);
        assert_eq!(header_name("[read_file Result]\n\nbody"), None);
    }

    #[test]
    fn pairs_unanswered_native_calls_with_their_texts() {
        let b = two_calls_one_answered();
        let got = unanswered(&b.h, 0, 1, &HashSet::new());
        assert_eq!(
            got,
            vec![
                Unanswered {
                    call: 0,
                    id: "t1".into(),
                    text: Some(0)
                },
                Unanswered {
                    call: 1,
                    id: "t2".into(),
                    text: None
                },
            ]
        );
    }
}
