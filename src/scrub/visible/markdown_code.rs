//! Where the code is, as OpenClaw 2026.9.6 decides it (`findCodeRegions`,
//! `packages/markdown-core`): every scrubber of its reply chain leaves markup inside code as
//! written, and from 2026.9.6 on "inside code" is what a CommonMark parser with GFM tables (raw
//! HTML off) says is a code block (fenced or indented) or a code span, in any container (lists,
//! quotes). 2026.3.23 used a regex over fences and backticks ([`crate::scrub::code_regions`]).
//!
//! The reading is [`super::commonmark`]: the CommonMark rules that decide code, in one linear
//! pass, checked against OpenClaw 2026.9.6's own answers. Like OpenClaw, text with no backtick,
//! tilde, tab or four spaces in a row has no code and is not read.

use std::borrow::Cow;
use std::ops::Range;

use super::commonmark::code_regions;

/// The code regions of one text: byte ranges, sorted by start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownCode {
    regions: Vec<Range<usize>>,
    /// Per region: a code block (fenced or indented), not a code span.
    blocks: Vec<bool>,
}

impl MarkdownCode {
    /// The code blocks and code spans of `text`.
    ///
    /// ```
    /// use transcript_hygiene::scrub::visible::markdown_code::MarkdownCode;
    /// let code = MarkdownCode::find("a `b` c\n\n    indented\n");
    /// assert_eq!(code.ranges(), &[2..5, 9..21]);
    /// assert!(MarkdownCode::find("no code here").ranges().is_empty());
    /// ```
    pub fn find(text: &str) -> MarkdownCode {
        if !might_have_code(text) {
            return MarkdownCode::default();
        }
        let (regions, blocks) = code_regions(text).into_iter().unzip();
        MarkdownCode { regions, blocks }
    }

    /// The regions, sorted by start.
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.regions
    }

    /// Per region, in the order of [`MarkdownCode::ranges`]: a code block, not a code span.
    pub fn blocks(&self) -> impl Iterator<Item = bool> + '_ {
        self.blocks.iter().copied()
    }

    /// Whether byte `pos` is inside a region (OpenClaw's `isInsideCode`).
    pub fn contains(&self, pos: usize) -> bool {
        let i = self.regions.partition_point(|r| r.end <= pos);
        self.regions.get(i).is_some_and(|r| r.start <= pos)
    }

    /// The code block (not span) that holds byte `pos`, if any.
    pub fn block_at(&self, pos: usize) -> Option<Range<usize>> {
        self.regions
            .iter()
            .zip(&self.blocks)
            .find(|(r, &block)| block && r.start <= pos && pos < r.end)
            .map(|(r, _)| r.clone())
    }

    /// Whether `range` overlaps a region.
    pub fn overlaps(&self, range: Range<usize>) -> bool {
        let i = self.regions.partition_point(|r| r.end <= range.start);
        self.regions.get(i).is_some_and(|r| r.start < range.end)
    }
}

/// OpenClaw's gate: ``/[`~\t]| {4}/``.
fn might_have_code(text: &str) -> bool {
    memchr::memchr3(b'`', b'~', b'\t', text.as_bytes()).is_some() || text.contains("    ")
}

/// A lazily found [`MarkdownCode`]: scrubbers ask only when a marker is there to protect.
#[derive(Debug)]
pub struct LazyCode<'a> {
    text: &'a str,
    code: Option<MarkdownCode>,
}

impl<'a> LazyCode<'a> {
    /// Nothing is parsed until [`LazyCode::get`].
    pub fn new(text: &'a str) -> Self {
        LazyCode { text, code: None }
    }

    /// The regions of the text (parsed on the first call).
    pub fn get(&mut self) -> &MarkdownCode {
        self.code
            .get_or_insert_with(|| MarkdownCode::find(self.text))
    }
}

/// OpenClaw's `stripLinesOutsideCode`: every line (without its `\n`, and without a `\r` before
/// that `\n`) for which `strip` says yes is removed with its line break, unless it starts inside
/// code. Borrowed when no line goes.
pub fn strip_lines_outside_code(text: &str, strip: impl Fn(&str) -> bool) -> Cow<'_, str> {
    let mut code = LazyCode::new(text);
    let mut out = String::new();
    let mut kept = 0;
    let mut start = 0;
    while start < text.len() {
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i + 1);
        let raw = &text[start..end];
        let line = match raw.strip_suffix('\n') {
            Some(l) => l.strip_suffix('\r').unwrap_or(l),
            None => raw,
        };
        if strip(line) && !code.get().contains(start) {
            out.push_str(&text[kept..start]);
            kept = end;
        }
        start = end;
    }
    if kept == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(t: &str) -> Vec<&str> {
        MarkdownCode::find(t)
            .ranges()
            .iter()
            .map(|r| &t[r.clone()])
            .collect()
    }

    #[test]
    fn fences_spans_and_indented_blocks_are_code() {
        assert_eq!(spans("x\n```js\n<think>\n```\ny"), ["```js\n<think>\n```"]);
        assert_eq!(spans("用 `<|im_end|>` 结束"), ["`<|im_end|>`"]);
        assert_eq!(spans("p\n\n    code\n"), ["    code"]);
    }

    #[test]
    fn code_inside_lists_and_quotes_counts_and_an_indent_after_prose_does_not() {
        assert_eq!(spans("- item `a`\n> q `b`"), ["`a`", "`b`"]);
        // Four spaces continuing a paragraph are a lazy continuation, not code.
        assert!(spans("para\n    not code").is_empty());
    }

    #[test]
    fn contains_and_overlaps_use_half_open_ranges() {
        let code = MarkdownCode::find("a `b` c");
        assert!(!code.contains(1) && code.contains(2) && code.contains(4) && !code.contains(5));
        assert!(code.overlaps(4..6) && !code.overlaps(5..7) && !code.overlaps(0..2));
    }
}
