//! OpenClaw 2026.9.6's prompt-echo removal: `sanitizeUserFacingText`'s `conversationContext`
//! (`src/agents/embedded-agent-helpers/sanitize-user-facing-text.ts`). A channel prompt carries
//! the chat around the message under headings (`[Current message - respond to this]`, …); some
//! models copy that block back into their reply, sometimes quoted or as a list. OpenClaw removes
//! every copy of the prompt, line by line, each line allowed a Markdown wrapper in front
//! (`> `, `- `, `## `, `1. `, spaces), and, while a reply streams, a copy that has only begun.
//!
//! OpenClaw builds a regex from the prompt's lines for this; here the prompt is matched line by
//! line instead (no pattern is built from user text): the lines without a wrapper are found by
//! KMP over line keys, the wrappers are checked where a line can match. A prompt is verified
//! first, as OpenClaw does: one heading on a line of its own, outside code.
//!
//! Known difference: OpenClaw's line break `\r\n?|\n` may also read a reply's `\r\n` as two
//! breaks around an empty prompt line (prompt `a\n\nb`, reply `a\r\nb`); here `\r\n` is one.
//!
//! Cost: linear in the reply for a given prompt. Where the prompt's own lines start with a
//! Markdown wrapper (`> `, `- `), a reply full of near-copies can cost up to (reply lines ×
//! such prompt lines); the prompt is the caller's own text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use memchr::memmem;

use super::markdown_code::MarkdownCode;
use crate::js_text::js_trim;

/// The headings OpenClaw writes around a prompt's chat context.
pub const MARKERS: [&str; 3] = [
    "[Chat messages since your last reply - for context]",
    "[Recent chat messages - for context]",
    "[Current message - respond to this]",
];

/// Whether `text` holds one of the headings (OpenClaw's `hasConversationContextMarker`).
pub fn has_marker(text: &str) -> bool {
    MARKERS.iter().any(|m| text.contains(m))
}

/// A prompt verified to carry chat context, ready to find its copies in replies.
#[derive(Debug, Clone)]
pub struct PromptEcho {
    /// The trimmed prompt with `\r\n` and `\r` as `\n`.
    source: String,
    /// Its lines (without `\n`), as byte ranges of `source`.
    lines: Vec<Range<usize>>,
}

impl PromptEcho {
    /// The prompt `context` (OpenClaw's `conversationContext`), trimmed, when one heading stands
    /// on a line of its own outside code; `None` otherwise (then nothing is removed).
    ///
    /// ```
    /// use transcript_hygiene::scrub::visible::prompt_echo::PromptEcho;
    /// let prompt = "[Current message - respond to this]\n北京天气怎么样？";
    /// let echo = PromptEcho::prepare(prompt).unwrap();
    /// let reply = "[Current message - respond to this]\n北京天气怎么样？\n北京今天晴。";
    /// assert_eq!(echo.strip(reply, false), "\n北京今天晴。");
    /// assert!(PromptEcho::prepare("see `[Current message - respond to this]`").is_none());
    /// ```
    pub fn prepare(context: &str) -> Option<PromptEcho> {
        let source = js_trim(context);
        if source.is_empty() || !has_marker(source) || !heading_on_own_line(source) {
            return None;
        }
        let source = source.replace("\r\n", "\n").replace('\r', "\n");
        let mut lines = Vec::new();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', source.as_bytes()) {
            lines.push(start..end);
            start = end + 1;
        }
        lines.push(start..source.len());
        Some(PromptEcho { source, lines })
    }

    fn line(&self, i: usize) -> &[u8] {
        &self.source.as_bytes()[self.lines[i].clone()]
    }

    /// `text` without the prompt's copies (only when the text holds a heading); with
    /// `streaming`, also without a copy that has begun at its end. Borrowed when nothing goes.
    pub fn strip<'t>(&self, text: &'t str, streaming: bool) -> Cow<'t, str> {
        let cuts = if has_marker(text) {
            self.copies(text.as_bytes(), true)
        } else {
            Vec::new()
        };
        let result = if cuts.is_empty() {
            Cow::Borrowed(text)
        } else {
            let mut out = String::with_capacity(text.len());
            let mut kept = 0;
            for cut in cuts {
                out.push_str(&text[kept..cut.start]);
                kept = cut.end;
            }
            out.push_str(&text[kept..]);
            Cow::Owned(out)
        };
        if !streaming {
            return result;
        }
        let keep = self.begun_copy(&result);
        match result {
            Cow::Borrowed(t) if keep < t.len() => Cow::Owned(t[..keep].to_string()),
            Cow::Owned(mut t) => {
                t.truncate(keep);
                Cow::Owned(t)
            }
            unchanged => unchanged,
        }
    }

    /// The byte ranges of every copy, leftmost first and not overlapping, as OpenClaw's global
    /// regex replace finds them. `at_line_start`: whether `b` begins a line (`^` matches at 0);
    /// false for a stream's held text that begins inside a line.
    fn copies(&self, b: &[u8], at_line_start: bool) -> Vec<Range<usize>> {
        if self.lines.len() == 1 {
            self.single_line_copies(b, at_line_start)
        } else {
            self.multi_line_copies(b, at_line_start)
        }
    }

    /// A one-line prompt can be copied anywhere in a line.
    fn single_line_copies(&self, b: &[u8], at_line_start: bool) -> Vec<Range<usize>> {
        let lit = self.line(0);
        let finder = memmem::Finder::new(lit);
        let mut cuts = Vec::new();
        let mut pos = 0;
        while let Some(off) = finder.find(&b[pos..]) {
            let s = pos + off;
            let wrapped = caret_before(b, s, pos, at_line_start)
                .and_then(|p| longest_wrapped(b, p, lit).map(|q| (p, q)));
            let cut = match wrapped {
                Some((p, q)) => p..q + lit.len(),
                None => s..s + lit.len(),
            };
            pos = cut.end;
            cuts.push(cut);
        }
        cuts
    }

    /// A prompt of several lines: its first line ends a reply line, its middle lines are whole
    /// reply lines (each after a wrapper), its last line starts one (after a wrapper).
    fn multi_line_copies(&self, b: &[u8], at_line_start: bool) -> Vec<Range<usize>> {
        let rows = split_lines(b);
        let k = self.lines.len() - 1;
        if rows.len() <= k {
            return Vec::new();
        }
        // Middle lines compared by their key (the line without its wrapper).
        let mut keys: HashMap<&[u8], u32> = HashMap::new();
        let pattern: Vec<u32> = (1..k)
            .map(|i| {
                let next = keys.len() as u32;
                *keys.entry(key(self.line(i))).or_insert(next)
            })
            .collect();
        let wrapped: Vec<usize> = (1..k)
            .filter(|&i| wrapper_end(self.line(i), 0) > 0)
            .collect();
        let row_keys: Vec<u32> = rows
            .iter()
            .map(|r| keys.get(key(&b[r.clone()])).copied().unwrap_or(u32::MAX))
            .collect();
        let first = self.line(0);
        let last = self.line(k);
        let mut cuts: Vec<Range<usize>> = Vec::new();
        let mut next_row = 0;
        let mut end = 0;
        for t in occurrences(&row_keys[1..], &pattern) {
            // Rows j (first line) ..= j + k (last line).
            let j = t;
            if j < next_row || j + k >= rows.len() {
                continue;
            }
            let row = &rows[j];
            if !b[row.clone()].ends_with(first) {
                continue;
            }
            let s = row.end - first.len();
            if s < end {
                continue;
            }
            let middles_fit = wrapped.iter().all(|&i| {
                let r = &rows[j + i];
                let line = &b[r.clone()];
                line.ends_with(self.line(i)) && is_boundary(b, r.start, r.end - self.line(i).len())
            });
            if !middles_fit {
                continue;
            }
            let Some(q) = longest_wrapped(b, rows[j + k].start, last) else {
                continue;
            };
            let start = caret_before(b, s, end, at_line_start)
                .filter(|&p| is_boundary(b, p, s))
                .unwrap_or(s);
            end = q + last.len();
            cuts.push(start..end);
            next_row = j + k;
        }
        cuts
    }

    /// Where to cut a copy of the prompt that has begun at the end of `result` (OpenClaw's
    /// streaming branch of `stripVerifiedConversationContext`): the length to keep.
    fn begun_copy(&self, result: &str) -> usize {
        let first = self.line(0);
        let r = result.as_bytes();
        let search_start = match memmem::find(r, first) {
            Some(i) => i,
            None => {
                let back = utf16_len(result).saturating_sub(2 * utf16_len(&self.source));
                byte_at_utf16(result, back)
            }
        };
        let mut completed = 0;
        for c in candidates(r, search_start, first) {
            completed += 1;
            if completed > 16 {
                return search_start;
            }
            if self.copy_begins(&result[c..]) {
                return c;
            }
        }
        result.len()
    }

    /// Whether `rest` (from a candidate on) is a prompt copy cut short: as written, or with each
    /// line's Markdown wrapper taken off.
    fn copy_begins(&self, rest: &str) -> bool {
        let suffix = rest.replace("\r\n", "\n").replace('\r', "\n");
        let src = self.source.as_bytes();
        let short_prefix = |s: &[u8]| s.len() < src.len() && src.starts_with(s);
        if short_prefix(suffix.as_bytes()) {
            return true;
        }
        let mut unwrapped = Vec::with_capacity(suffix.len());
        for (i, line) in suffix.as_bytes().split(|&c| c == b'\n').enumerate() {
            if i == 0 {
                unwrapped.extend_from_slice(line);
                continue;
            }
            unwrapped.push(b'\n');
            let Some(range) = self.lines.get(i) else {
                unwrapped.extend_from_slice(line);
                continue;
            };
            let source_line = &src[range.clone()];
            let content = (!source_line.is_empty())
                .then(|| unwrapped_content(line, source_line))
                .flatten();
            match content {
                Some(c) => unwrapped.extend_from_slice(c),
                None if is_wrapper_begun(line) => {}
                None => unwrapped.extend_from_slice(line),
            }
        }
        short_prefix(&unwrapped)
    }
}

/// Whether one heading stands on a line of its own (a `\r` may end it) outside code.
fn heading_on_own_line(source: &str) -> bool {
    let b = source.as_bytes();
    let mut code: Option<MarkdownCode> = None;
    MARKERS.iter().any(|m| {
        memmem::find_iter(b, m).any(|at| {
            let end = at + m.len();
            let starts = at == 0 || b[at - 1] == b'\n';
            let ends = end == b.len() || b[end] == b'\n' || b[end] == b'\r';
            starts
                && ends
                && !code
                    .get_or_insert_with(|| MarkdownCode::find(source))
                    .contains(at)
        })
    })
}

/// The lines of `b` split at `\r\n`, `\r` and `\n`, without their breaks.
fn split_lines(b: &[u8]) -> Vec<Range<usize>> {
    let mut rows = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr2(b'\n', b'\r', &b[i..]) {
        let at = i + off;
        rows.push(start..at);
        i = if b[at] == b'\r' && b.get(at + 1) == Some(&b'\n') {
            at + 2
        } else {
            at + 1
        };
        start = i;
    }
    rows.push(start..b.len());
    rows
}

/// The end of the Markdown wrapper token at `i` (OpenClaw's `MARKDOWN_LINE_PREFIX` pieces: a
/// space or tab, `>`, or a list or heading marker followed by a space or tab), and whether it
/// needed that space after it.
fn token(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let blank = |j: usize| matches!(b.get(j), Some(b' ' | b'\t'));
    match *b.get(i)? {
        b' ' | b'\t' | b'>' => Some((i + 1, false)),
        b'-' | b'+' | b'*' => blank(i + 1).then_some((i + 1, true)),
        b'#' => {
            let n = b[i..].iter().take(7).take_while(|&&c| c == b'#').count();
            (n <= 6 && blank(i + n)).then_some((i + n, true))
        }
        b'0'..=b'9' => {
            let n = b[i..]
                .iter()
                .take(10)
                .take_while(|c| c.is_ascii_digit())
                .count();
            let dot = i + n;
            (n <= 9 && matches!(b.get(dot), Some(b'.' | b')')) && blank(dot + 1))
                .then_some((dot + 1, true))
        }
        _ => None,
    }
}

/// The end of the longest wrapper at `from` (tokens one after another).
fn wrapper_end(b: &[u8], mut from: usize) -> usize {
    while let Some((next, _)) = token(b, from) {
        from = next;
    }
    from
}

/// A line's key: the line without its wrapper. A reply line can match a prompt line only when
/// their keys are equal.
fn key(line: &[u8]) -> &[u8] {
    &line[wrapper_end(line, 0)..]
}

/// Whether the wrapper tokens from `from` reach `at` exactly.
fn is_boundary(b: &[u8], mut from: usize, at: usize) -> bool {
    while from < at {
        match token(b, from) {
            Some((next, _)) => from = next,
            None => return false,
        }
    }
    from == at
}

/// The last wrapper boundary from `from` at which `lit` starts (a regex's greedy wrapper).
fn longest_wrapped(b: &[u8], mut from: usize, lit: &[u8]) -> Option<usize> {
    let mut best = None;
    loop {
        if b[from..].starts_with(lit) {
            best = Some(from);
        }
        match token(b, from) {
            Some((next, _)) => from = next,
            None => return best,
        }
    }
}

/// The bytes a Markdown wrapper is made of.
const WRAPPER_BYTES: &[u8] = b"\t >-+*#0123456789.)";

/// The line start (`^` of a multiline regex: after `\n`, `\r`, U+2028, U+2029, or the text's
/// start when `at_line_start`) of `s`'s line when only wrapper bytes lie between it and `s`, and
/// it is not before `floor`.
fn caret_before(b: &[u8], s: usize, floor: usize, at_line_start: bool) -> Option<usize> {
    let mut p = s;
    while p > floor && WRAPPER_BYTES.contains(&b[p - 1]) {
        p -= 1;
    }
    (p >= floor && starts_line(b, p, at_line_start)).then_some(p)
}

/// Whether `^` matches at `p` (see [`caret_before`]).
fn starts_line(b: &[u8], p: usize, at_line_start: bool) -> bool {
    if p == 0 {
        return at_line_start;
    }
    matches!(b[p - 1], b'\n' | b'\r')
        || (p >= 3 && matches!(&b[p - 3..p], [0xE2, 0x80, 0xA8 | 0xA9]))
}

/// The smallest wrapper end `cs` of `line` (ending after a space, tab or `>`) whose rest is a
/// non-empty start of `source_line` (OpenClaw's `markdownWrapper` test).
fn unwrapped_content<'l>(line: &'l [u8], source_line: &[u8]) -> Option<&'l [u8]> {
    let mut cs = 0;
    loop {
        let rest = &line[cs..];
        if !rest.is_empty() && rest[0] == source_line[0] && source_line.starts_with(rest) {
            return Some(rest);
        }
        // Continue through markers to the next end after a space, tab or `>`.
        let mut next = cs;
        loop {
            let (end, needs_blank) = token(line, next)?;
            next = end;
            if !needs_blank {
                break;
            }
        }
        cs = next;
    }
}

/// Whether `line` is a wrapper, or a wrapper whose last marker has not got its space yet
/// (OpenClaw's `incompleteMarkdownWrapper`).
fn is_wrapper_begun(line: &[u8]) -> bool {
    let tail = &line[wrapper_end(line, 0)..];
    match tail {
        [] | [b'-' | b'+' | b'*'] => true,
        _ if tail.iter().all(|&c| c == b'#') => tail.len() <= 6,
        _ => {
            let digits = tail.iter().take_while(|c| c.is_ascii_digit()).count();
            let rest = &tail[digits..];
            (1..=9).contains(&digits) && matches!(rest, [] | [b'.' | b')'])
        }
    }
}

/// Where a copy may begin in `r` from `from`, in order: where the prompt's first line starts
/// (overlapping starts too), then where what is left is a start of it. Lazy: OpenClaw looks at 17
/// at most.
fn candidates<'a>(r: &'a [u8], from: usize, first: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let finder = memmem::Finder::new(first);
    let mut at = from;
    let full = std::iter::from_fn(move || {
        let i = at + finder.find(r.get(at..)?)?;
        at = i + 1;
        Some(i)
    });
    let partial = std::iter::once(()).flat_map(move |()| {
        // The suffixes of `r` that are proper prefixes of `first`, longest first (KMP).
        let fail = failure(first);
        let tail = r.len().saturating_sub(first.len()).max(from);
        let mut state = begun(&r[tail..], first, &fail);
        let mut lens = Vec::new();
        while state > 0 {
            if state < first.len() {
                lens.push(r.len() - state);
            }
            state = fail[state - 1];
        }
        lens
    });
    full.chain(partial)
}

/// The length of the longest end of `x` that is a start of `first` (`fail`: its KMP table).
fn begun(x: &[u8], first: &[u8], fail: &[usize]) -> usize {
    let mut state = 0;
    for &c in x {
        if state == first.len() {
            state = fail[state - 1];
        }
        while state > 0 && first[state] != c {
            state = fail[state - 1];
        }
        if first[state] == c {
            state += 1;
        }
    }
    state
}

/// KMP's failure table: per prefix length - 1, the longest proper border.
fn failure<T: PartialEq>(p: &[T]) -> Vec<usize> {
    let mut fail = vec![0; p.len()];
    let mut k = 0;
    for i in 1..p.len() {
        while k > 0 && p[i] != p[k] {
            k = fail[k - 1];
        }
        if p[i] == p[k] {
            k += 1;
        }
        fail[i] = k;
    }
    fail
}

/// Occurrences (start positions, overlapping ones too) of `pattern` in `text` (KMP).
fn occurrences<'a>(text: &'a [u32], pattern: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
    let fail = failure(pattern);
    let mut state = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        if pattern.is_empty() {
            i += 1;
            return (i <= text.len() + 1).then_some(i - 1);
        }
        while i < text.len() {
            let c = text[i];
            i += 1;
            while state > 0 && pattern[state] != c {
                state = fail[state - 1];
            }
            if pattern[state] == c {
                state += 1;
            }
            if state == pattern.len() {
                state = fail[state - 1];
                return Some(i - pattern.len());
            }
        }
        None
    })
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The byte index of UTF-16 offset `units` (the next character's when it falls inside a pair).
fn byte_at_utf16(s: &str, units: usize) -> usize {
    let mut u = 0;
    for (i, c) in s.char_indices() {
        if u >= units {
            return i;
        }
        u += c.len_utf16();
    }
    s.len()
}

pub mod stream;

#[cfg(test)]
mod tests;
