//! A family read whole ([`Family::reads_plain_text`]): its markers named in a sentence are text.
//!
//! Why: with the model named, `pythonic`, `llama4_pythonic`, `olmo3`, `gemma4` and `gpt_oss` are
//! read by their own parser at the end of the reply, and each took a marker wherever it stood:
//! `每一轮以 <|python_start|> 结束。` lost the rest of its sentence (a call cut by the reply's end,
//! unreadable), `每一轮以 <tool_call|> 结束。` (Gemma 4) and `每一轮以 assistantfinal 结束。`
//! (Harmony's header with its tokens stripped) lost the token, while `auto` keeps them. A marker is
//! named in a sentence as [`crate::response::turn_end::token_named`] says (words then a space
//! before it on its line, a space then words after it, not another token), and not a call's body
//! either (`[`, `{`, `"` or `<` after it); the reply is then read in the pieces between the named
//! markers, which stay as written. A leak lacks a side and is read as before: glued
//! (`…assistantfinal答案`, how vLLM and Ollama showed gpt-oss's stripped headers), alone on its
//! line, opening the reply, followed by a call body, cut at the reply's end. A marker inside a
//! block that reads as a call (an argument's text) is the call's.

use std::ops::Range;

use super::Family;
use crate::response::{gemma_channel, gpt_oss, olmo3, turn_end, Parsed};

/// The markers of `f` read for a sentence around them: its stream openers
/// ([`super::openers`]), OLMo-3's wrapper, Harmony's stripped headers.
fn markers(f: Family) -> Vec<&'static str> {
    let mut v: Vec<_> = super::openers(f, false).into_iter().map(|o| o.1).collect();
    match f {
        Family::Olmo3 => v.push(olmo3::OPEN),
        Family::GptOss => v.extend(gpt_oss::STRIPPED_HEADERS),
        _ => {}
    }
    v
}

/// The ranges of `text` (a piece the family `f` parsed into `p`) where one of its markers is
/// named in a sentence, in order, outside the blocks that hold calls. Empty for most replies.
pub(super) fn ranges(f: Family, text: &str, p: &Parsed) -> Vec<Range<usize>> {
    let markers = markers(f);
    let mut found = Vec::new();
    for m in &markers {
        for at in memchr::memmem::find_iter(text.as_bytes(), m.as_bytes()) {
            let end = at + m.len() + gpt_oss::header_rest(m, &text[at + m.len()..]);
            if named(text, at, end) {
                found.push(at..end);
            }
        }
    }
    if found.is_empty() {
        return found;
    }
    found.sort_by_key(|r| r.start);
    let mut calls: Vec<(usize, usize)> = (p.blocks.iter())
        .filter(|b| !b.calls.is_empty())
        .map(|b| (b.start, b.end))
        .collect();
    calls.sort_unstable();
    let mut out: Vec<Range<usize>> = Vec::with_capacity(found.len());
    for r in found {
        let i = calls.partition_point(|c| c.0 <= r.start);
        let in_call = i > 0 && r.start < calls[i - 1].1;
        if !in_call && out.last().is_none_or(|l| l.end <= r.start) {
            out.push(r);
        }
    }
    out
}

/// Whether the marker at `at..end` of `text` is named in a sentence: words then a space before
/// it on its line (not another token, `…|>`: a run of leaks), a space then words after it that
/// open no call body.
fn named(text: &str, at: usize, end: usize) -> bool {
    let lead = &text[..at];
    let before = lead.ends_with(' ')
        && gemma_channel::words_before(text, at)
        && !lead.trim_end_matches(' ').ends_with("|>");
    let after = &text[end..];
    let body = after
        .trim_start_matches([' ', '\t'])
        .starts_with(['[', '{', '"', '<']);
    !body && turn_end::token_named(before, after, true, true) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_spaced_words() {
        assert!(named("每一轮以 <|x|> 结束。", 13, 18));
        let t = "好的 <|python_start|> [f()]";
        assert!(!named(t, 7, 7 + "<|python_start|>".len()));
        assert!(!named("好的<|x|> 结束", 6, 11));
        assert!(!named("好的 <|x|>\n结束", 7, 12));
        assert!(!named("<|a|> <|x|> 结束", 6, 11));
    }
}
