//! Code regions of a Markdown-ish text, as OpenClaw's `findCodeRegions`
//! (`src/shared/text/code-regions.ts`) finds them, so reasoning tags quoted in code are left alone:
//!
//! - fenced blocks: a line starting with ```` ``` ```` or `~~~` (at the very start or after a line
//!   break not already taken by the previous block) and having a line break after it, up to a
//!   line that is exactly the same three characters (with its line break), or to the end;
//! - inline spans: a run of backticks, at least one other character (line breaks included), and
//!   the next run of backticks; a span wholly inside a fenced block is not added.
//!
//! Positions are byte offsets; [`CodeRegions::contains`] answers "is this offset in code" with a
//! binary search over the union of the regions (OpenClaw scans every region per question).

use std::ops::Range;

use crate::js_text::is_js_whitespace;

/// The code regions of one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeRegions {
    /// Disjoint, sorted union of all regions.
    merged: Vec<Range<usize>>,
}

impl CodeRegions {
    /// Finds the regions of `text`; one `memchr` pass each for fences and backticks.
    pub fn find(text: &str) -> CodeRegions {
        Self::find_with(text)
    }

    /// The same, plus fences indented by one to three spaces as CommonMark allows (a guide quoted
    /// with an indent) and Markdown's indented code blocks
    /// ([`crate::response::indented_code`]), which OpenClaw's rule does not see: the code-aware
    /// readings (`codeAware`, `sanitizeToolCall`'s generic rules), which then agree with
    /// `cleanResponse` on what is code.
    pub fn find_indented(text: &str) -> CodeRegions {
        let mut more = indented_fences(text);
        more.extend(crate::response::indented_code::blocks(text));
        Self::merge(Self::find_with(text), more)
    }

    fn find_with(text: &str) -> CodeRegions {
        let fenced = fenced_blocks(text);
        let mut all = fenced.clone();
        let mut k = 0;
        for span in inline_spans(text) {
            while k < fenced.len() && fenced[k].end < span.end {
                k += 1;
            }
            let inside = fenced
                .get(k)
                .is_some_and(|f| span.start >= f.start && span.end <= f.end);
            if !inside {
                all.push(span);
            }
        }
        Self::merge(CodeRegions::default(), all)
    }

    /// These regions and `more`, sorted and merged.
    pub fn with(self, more: Vec<Range<usize>>) -> CodeRegions {
        Self::merge(self, more)
    }

    /// `base`'s regions and `more`, sorted and merged.
    fn merge(base: CodeRegions, more: Vec<Range<usize>>) -> CodeRegions {
        if more.is_empty() {
            return base;
        }
        let mut all = base.merged;
        all.extend(more);
        all.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(all.len());
        for r in all {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        CodeRegions { merged }
    }

    /// Whether byte offset `pos` lies in a region (`start <= pos < end`).
    pub fn contains(&self, pos: usize) -> bool {
        let i = self.merged.partition_point(|r| r.end <= pos);
        self.merged.get(i).is_some_and(|r| r.start <= pos)
    }

    /// The merged regions, sorted and disjoint.
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.merged
    }
}

/// `text` with every character inside code that is not whitespace made `\x01` bytes, a byte no
/// scrubber rule matches: the scrubbers then never see markup quoted in code, while positions,
/// line breaks and the whitespace a trim looks at stay where they were. `None` when `text` has no
/// code. (Code regions start and end at ASCII bytes, so the result is valid UTF-8 wherever the
/// masked bytes were; multi-byte characters inside code become several `\x01`.)
pub fn mask(text: &str) -> Option<String> {
    if memchr::memchr2(b'`', b'~', text.as_bytes()).is_none()
        && !crate::response::indented_code::may_hold_blocks(text)
    {
        return None;
    }
    let code = CodeRegions::find_indented(text);
    if code.merged.is_empty() {
        return None;
    }
    let mut b = text.as_bytes().to_vec();
    for r in &code.merged {
        for (i, c) in text.get(r.clone()).unwrap_or("").char_indices() {
            if !is_js_whitespace(c) {
                b[r.start + i..r.start + i + c.len_utf8()].fill(0x01);
            }
        }
    }
    String::from_utf8(b).ok()
}

/// `/(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\2(?:\n|$)|$)/g`, region = the match without its
/// leading line break.
fn fenced_blocks(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    // Where the regex's next match attempt starts (its `lastIndex`).
    let mut from = 0;
    loop {
        // Candidate fence starts: offset 0 when the search starts there, then after each `\n`.
        let mut found = None;
        let mut at = from;
        if at == 0 {
            if let Some(r) = fence_at(b, 0) {
                found = Some(r);
            }
        }
        while found.is_none() {
            let Some(nl) = memchr::memchr(b'\n', b.get(at..).unwrap_or(&[])) else {
                break;
            };
            let s = at + nl + 1;
            found = fence_at(b, s);
            at = s;
        }
        let Some(r) = found else { break };
        from = r.end;
        out.push(r);
        if from >= b.len() {
            break;
        }
    }
    out
}

/// The fenced block whose opening fence starts at `s`, if the regex matches there.
fn fence_at(b: &[u8], s: usize) -> Option<Range<usize>> {
    let fence = b.get(s..s + 3)?;
    if fence != b"```" && fence != b"~~~" {
        return None;
    }
    let nl = s + 3 + memchr::memchr(b'\n', &b[s + 3..])?;
    let body = nl + 1;
    let mut at = body;
    // The shortest body followed by `\n` + the same fence + (`\n` or the end).
    while let Some(k) = memchr::memchr(b'\n', b.get(at..).unwrap_or(&[])) {
        let p = at + k;
        if b.get(p + 1..p + 4) == Some(fence) {
            match b.get(p + 4) {
                None => return Some(s..p + 4),
                Some(b'\n') => return Some(s..p + 5),
                _ => {}
            }
        }
        at = p + 1;
    }
    Some(s..b.len())
}

/// Fenced blocks whose fence is indented by one to three spaces (CommonMark), which OpenClaw's
/// code regions do not see: from the opening line to a closing line of at least as many of the
/// same character, or to the end. Unindented fences are followed too, so an indented line inside
/// one is not taken for an opening. One pass over the lines; sorted and disjoint.
pub fn indented_fences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if !text.contains(" ```") && !text.contains(" ~~~") {
        return out;
    }
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    // The open fence: its character, its length, where it started and whether it was indented.
    let mut open: Option<(u8, usize, usize, bool)> = None;
    let mut at = 0;
    while at < text.len() {
        let end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1);
        let line = &text.as_bytes()[at..end];
        let indent = line.iter().take_while(|c| **c == b' ').count();
        let ch = line.get(indent).copied().unwrap_or(0);
        let run = line[indent..].iter().take_while(|c| **c == ch).count();
        let fence = indent <= 3 && (ch == b'`' || ch == b'~') && run >= 3;
        match open {
            Some((c, n, start, indented)) => {
                let bare = line[indent + run..].iter().all(blank);
                if fence && ch == c && run >= n && bare {
                    if indented {
                        out.push(start..end);
                    }
                    open = None;
                }
            }
            None if fence => open = Some((ch, run, at, indent > 0)),
            None => {}
        }
        at = end;
    }
    if let Some((_, _, start, true)) = open {
        out.push(start..text.len());
    }
    out
}

/// `/`+[^`]+`+/g`: a run of backticks, at least one other byte, the next run of backticks.
fn inline_spans(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'`', b.get(at..).unwrap_or(&[])) {
        let start = at + k;
        let mut open_end = start;
        while b.get(open_end) == Some(&b'`') {
            open_end += 1;
        }
        // At least one non-backtick byte (the run stopped at one, unless the text ended).
        let Some(c) = memchr::memchr(b'`', b.get(open_end + 1..).unwrap_or(&[])) else {
            break;
        };
        let close = open_end + 1 + c;
        let mut end = close;
        while b.get(end) == Some(&b'`') {
            end += 1;
        }
        out.push(start..end);
        at = end;
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn ranges(t: &str) -> Vec<Range<usize>> {
        CodeRegions::find(t).ranges().to_vec()
    }

    #[test]
    fn fenced_block_with_closing_line() {
        let t = "a\n```js\n<think>\n```\nb";
        assert_eq!(ranges(t), [2..t.len() - 1]);
        assert!(CodeRegions::find(t).contains(8));
        assert!(!CodeRegions::find(t).contains(t.len() - 1));
    }

    #[test]
    fn unclosed_fence_runs_to_end_and_needs_a_line_break() {
        assert_eq!(ranges("~~~\nx"), [0..5]);
        assert_eq!(ranges("```"), Vec::<Range<usize>>::new());
        // A closing line must be exactly the fence: "```js" does not close.
        assert_eq!(ranges("```\na\n```js\nb"), [0..13]);
    }

    #[test]
    fn fence_right_after_a_closed_one_is_not_an_opening() {
        // The closing fence's line break is taken, so the next "```" line has none before it;
        // its inline-span reading still makes the text after it code.
        let t = "```\na\n```\n```\nb\n```";
        let f = fenced_blocks(t);
        assert_eq!(f, [0..10]);
        assert_eq!(ranges(t), [0..19]);
    }

    #[test]
    fn indented_fences_only_when_asked() {
        let t = "Steps:\n  ```xml\n  <invoke name=\"f\">\n";
        assert!(!CodeRegions::find(t).contains(t.find("<invoke").unwrap_or(0)));
        let r = CodeRegions::find_indented(t);
        assert!(r.contains(t.find("<invoke").unwrap_or(0)));
        // Four spaces is an indented code block's business, not a fence.
        assert!(indented_fences("    ```\nx\n    ```\n").is_empty());
    }

    #[test]
    fn inline_spans() {
        assert_eq!(ranges("x `<think>` y"), [2..11]);
        assert_eq!(ranges("``a`"), [0..4]);
        assert_eq!(ranges("a `` b"), Vec::<Range<usize>>::new());
        assert_eq!(ranges("`a\nb` `c"), [0..5]);
    }
}
