//! A linear reading of where CommonMark puts code, for OpenClaw 2026.9.6's `findCodeRegions`
//! (which parses the whole reply with micromark, GFM tables on, raw HTML off, and keeps the
//! `code` and `inlineCode` nodes). Only the rules that decide code are here: block quotes and
//! list items with their lazy continuation lines ([`containers`]), fenced and indented code,
//! ATX and setext headings and thematic breaks ([`leaves`]), GFM tables ([`table`]), paragraphs
//! and the link reference definitions that open them ([`definitions`]), all driven line by line
//! by [`blocks`]; in inline content, read once the pass has collected every definition's label,
//! code spans, backslash escapes and autolinks ([`spans`]) and inline and reference links and
//! images ([`links`]).
//!
//! It replaces the `markdown` crate (markdown-rs), which grows quadratically with the number of
//! fenced blocks, panicked on 39 of 20,000 generated texts (one was
//! `"10. ~~~ x`#\n+ (  \n\n| - |*x y)\r</think>好的，"`), and differed from micromark on 0.4–0.8% of
//! them. This reading gives OpenClaw's answer on every one of the 3,000 texts of the committed
//! corpus ([`oracle`]) and on the cases that told reference links apart (a reference to a
//! definition makes an earlier `[` inactive; a paragraph made only of definitions takes no setext
//! underline) and on 70,000 more (seeds 1 and 2 of `benchmark/code-regions-corpus.mjs`, 35,000
//! each; the one text of those that differed until indented code begun on a lazy line was read as
//! micromark reads it, `"*\n\n\n \t…\n    >"`, is in the committed corpus).
//!
//! Containers nest at most [`blocks::MAX_DEPTH`] deep, so that a blank line stays cheap.

mod blocks;
mod containers;
mod cursor;
mod definitions;
mod leaves;
mod link_parts;
mod links;
mod spans;
mod table;

use std::ops::Range;

/// The code regions of `text`, sorted by start: byte ranges (delimiters and fences included)
/// and whether each is a block (fenced or indented) rather than a code span.
///
/// ```
/// use transcript_hygiene::scrub::visible::commonmark::code_regions;
/// let text = "> 用 `<think>`\n\n```\n<|im_end|>\n```\n[a](`dest`)";
/// let found: Vec<(&str, bool)> = code_regions(text).into_iter().map(|(r, b)| (&text[r], b)).collect();
/// assert_eq!(found, [("`<think>`", false), ("```\n<|im_end|>\n```", true)]);
/// ```
pub fn code_regions(text: &str) -> Vec<(Range<usize>, bool)> {
    let (blocks, spans) = blocks::scan(text);
    let mut all: Vec<(Range<usize>, bool)> = blocks
        .into_iter()
        .map(|r| (r, true))
        .chain(spans.into_iter().map(|r| (r, false)))
        .collect();
    all.sort_by_key(|(r, _)| r.start);
    all
}

#[cfg(test)]
mod oracle;
