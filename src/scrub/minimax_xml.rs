//! `stripMinimaxToolCallXml` (OpenClaw `src/agents/pi-embedded-utils.ts`): MiniMax models served
//! through OpenAI-compatible APIs sometimes write their tool calls into the reply text as
//! `<minimax:tool_call><invoke name="…">…</invoke></minimax:tool_call>` instead of structured
//! calls, and the user would see the XML. Only when the text mentions `minimax:tool_call` (any
//! case): every `<invoke …>…</invoke>` block is removed (an unclosed one stays), then every
//! `<minimax:tool_call>` / `</minimax:tool_call>` tag. Nothing else changes (no trimming).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::splice::Spliced;
use super::text::find_ci;

/// Text with none of these bytes is returned unchanged (every pattern removed starts with `<`).
pub const PREFILTER: &[u8] = b"<";

/// `<invoke` (any case, then an ASCII word boundary), attributes up to the first `>`, then the
/// shortest body up to `</invoke>` (any case).
pub(crate) static INVOKE_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<(?i-u:invoke)(?-u:\b)[^>]*>(?s:.)*?</(?i-u:invoke)>").expect("static regex")
});
pub(crate) static WRAPPER_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?(?i-u:minimax:tool_call)>").expect("static regex"));

/// The text without MiniMax tool-call XML; borrowed when nothing had to change.
pub fn strip_minimax_tool_call_xml(text: &str) -> Cow<'_, str> {
    strip_spliced(Spliced::new(text)).into_text()
}

/// The same on a [`Spliced`] text (the addon runs [`removed`] on a proxy of the JS string).
pub fn strip_spliced(text: Spliced<'_>) -> Spliced<'_> {
    let removed = removed(text.as_str());
    without(text, &removed)
}

/// The ranges of `text` the rule removes, in order and not overlapping (empty when it changes
/// nothing): every invoke block, then every wrapper tag of the text those leave (a tag may be
/// joined across a removed block, as in OpenClaw's second `replace`; such a tag is given as its
/// pieces). The addon turns these into slices of the caller's string with no text copied.
pub(crate) fn removed(text: &str) -> Vec<Range<usize>> {
    let Some(first) = first_marker(text) else {
        return Vec::new();
    };
    let blocks = invoke_blocks(text);
    let kept = gaps(&blocks, text.len());
    let tags = if may_join_tags(text, &kept) {
        tags_of_kept_text(text, &kept)
    } else {
        // No tag spans a removed block: the tags of the text left are those of `text` outside
        // the blocks (a tag holds one `<`, at its start, so it is inside a block or outside all).
        // Every tag holds the marker: its `:` is at or after the first marker's.
        let mut inside = blocks.iter().peekable();
        wrapper_tags_from(text, first)
            .into_iter()
            .filter(|t| {
                while inside.next_if(|b| b.end <= t.start).is_some() {}
                inside.peek().is_none_or(|b| t.end <= b.start)
            })
            .collect()
    };
    merged(blocks, tags)
}

/// The longest wrapper tag, `</minimax:tool_call>`.
const TAG_LEN: usize = 20;

/// The ranges of `0..len` outside `removed` (in order), empty ones included.
fn gaps(removed: &[Range<usize>], len: usize) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(removed.len() + 1);
    let mut at = 0;
    for r in removed {
        out.push(at..r.start);
        at = r.end;
    }
    out.push(at..len);
    out
}

/// Whether a wrapper tag may span one of the joins between the `kept` ranges of `text`: when a
/// range between two joins is shorter than a tag, or the bytes on both sides of a join hold a
/// tag across it.
fn may_join_tags(text: &str, kept: &[Range<usize>]) -> bool {
    let inner = kept.get(1..kept.len().saturating_sub(1)).unwrap_or(&[]);
    if inner.iter().any(|g| g.len() < TAG_LEN - 1) {
        return true;
    }
    let mut window = String::with_capacity(2 * TAG_LEN);
    kept.windows(2).any(|w| {
        let (a, b) = (&w[0], &w[1]);
        // Whole characters only (a tag is ASCII: a cut character is no part of one).
        let mut from = a.start.max(a.end.saturating_sub(TAG_LEN - 1));
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let mut to = b.end.min(b.start + TAG_LEN - 1);
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        window.clear();
        window.push_str(&text[from..a.end]);
        let join = window.len();
        window.push_str(&text[b.start..to]);
        wrapper_tags(&window)
            .iter()
            .any(|t| t.start < join && join < t.end)
    })
}

/// The wrapper tags of the text `kept` leaves of `text`, as ranges of `text` (a tag across a
/// join as its pieces): the kept text is copied and searched (the rare case [`may_join_tags`]).
fn tags_of_kept_text(text: &str, kept: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut joined = String::with_capacity(text.len());
    // (offset in `joined`, range of `text`) of each kept range.
    let mut at = Vec::with_capacity(kept.len());
    for g in kept {
        at.push((joined.len(), g.clone()));
        joined.push_str(&text[g.clone()]);
    }
    let mut out = Vec::new();
    for t in wrapper_tags(&joined) {
        let first = at.partition_point(|(o, _)| *o <= t.start).saturating_sub(1);
        for (o, g) in &at[first..] {
            if *o >= t.end {
                break;
            }
            let (a, b) = (t.start.max(*o), t.end.min(o + g.len()));
            if a < b {
                out.push(g.start + a - o..g.start + b - o);
            }
        }
    }
    out
}

/// Two ordered lists of ranges, neither overlapping the other, as one ordered list.
fn merged(a: Vec<Range<usize>>, b: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.start <= y.start => a.next(),
            (Some(_), Some(_)) | (None, Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, None) => return out,
        };
        out.extend(next);
    }
}

/// `text` without the ranges `removed` (in order, not overlapping); `text` itself when none.
fn without<'a>(text: Spliced<'a>, removed: &[Range<usize>]) -> Spliced<'a> {
    if removed.is_empty() {
        return text;
    }
    let len = text.as_str().len();
    let mut out = text.builder();
    let mut at = 0;
    for r in removed {
        out.keep(at..r.start);
        at = r.end;
    }
    out.keep(at..len);
    out.finish()
}

/// The matches of [`WRAPPER_TAG`] in `text`, found without the regex: its case-insensitive
/// literal leaves the engine no prefilter, and its scan of a whole 50 KB reply cost ~40 µs (the
/// rest of the job a few). Each `:tool_call>` (found with `memchr`) has at most one match, ending
/// there and starting at the `<` of `<minimax` or `</minimax` (tested against the regex).
fn wrapper_tags(text: &str) -> Vec<Range<usize>> {
    wrapper_tags_from(text, 0)
}

/// [`wrapper_tags`] whose `:` is at or after byte `from`.
fn wrapper_tags_from(text: &str, mut from: usize) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    while let Some(p) = find_ci(text, ":tool_call>", from) {
        from = p + 1;
        if p < 8 || !b[p - 7..p].eq_ignore_ascii_case(b"minimax") {
            continue;
        }
        let start = match (b[p - 8], p.checked_sub(9).map(|i| b[i])) {
            (b'<', _) => p - 8,
            (b'/', Some(b'<')) => p - 9,
            _ => continue,
        };
        out.push(start..p + 11);
    }
    out
}

/// The matches of [`INVOKE_BLOCK`] in `text`, found without the regex: the regex engine finds a
/// match's start by scanning back from its end over the lazy body, to where the search began,
/// which cost ~50 µs on a 50 KB reply with one call in its middle (the whole job should take a
/// few). Same leftmost-first, non-overlapping matches (tested against the regex).
fn invoke_blocks(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    // The next `>` and `</invoke>` at or after some position (searches only move forward).
    let mut gt: Option<usize> = None;
    let mut close: Option<usize> = None;
    while let Some(p) = find_ci(text, "<invoke", from) {
        let after = p + 7;
        if b.get(after)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            from = p + 1;
            continue;
        }
        if gt.is_none_or(|g| g < after) {
            match memchr::memchr(b'>', &b[after..]) {
                Some(k) => gt = Some(after + k),
                None => break,
            }
        }
        let body = gt.map_or(after, |g| g + 1);
        if close.is_none_or(|c| c < body) {
            match find_ci(text, "</invoke>", body) {
                Some(c) => close = Some(c),
                None => break,
            }
        }
        let end = close.map_or(body, |c| c + 9);
        out.push(p..end);
        from = end;
    }
    out
}

/// `/minimax:tool_call/i`.
#[cfg(test)]
fn contains_marker(text: &str) -> bool {
    first_marker(text).is_some()
}

/// Where the first match of `/minimax:tool_call/i` has its `:`.
fn first_marker(text: &str) -> Option<usize> {
    let mut at = 0;
    while let Some(i) = find_ci(text, ":tool_call", at) {
        if i >= 7 && text.as_bytes()[i - 7..i].eq_ignore_ascii_case(b"minimax") {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> String {
        strip_minimax_tool_call_xml(t).into_owned()
    }

    #[test]
    fn removes_invoke_blocks_and_wrapper_tags() {
        let t = "Checking.<minimax:tool_call>\n<invoke name=\"read\">\n<parameter name=\"path\">a.txt</parameter>\n</invoke>\n</minimax:tool_call> Done.";
        assert_eq!(s(t), "Checking.\n\n Done.");
    }

    #[test]
    fn needs_the_minimax_marker() {
        let t = "<invoke name=\"x\">y</invoke>";
        assert!(matches!(strip_minimax_tool_call_xml(t), Cow::Borrowed(_)));
        assert_eq!(
            s("MINIMAX:TOOL_CALL <INVOKE a>b</Invoke>!"),
            "MINIMAX:TOOL_CALL !"
        );
    }

    #[test]
    fn unclosed_invoke_and_lone_closing_tag() {
        // An invoke without `</invoke>` is left; the closing wrapper tag is removed.
        assert_eq!(
            s("a <invoke name=\"f\"><parameter name=\"p\">1</minimax:tool_call>"),
            "a <invoke name=\"f\"><parameter name=\"p\">1"
        );
    }

    #[test]
    fn invoke_needs_a_word_boundary_and_shortest_body() {
        assert_eq!(
            s("minimax:tool_call <invoker>x</invoke> <invoke>1</invoke>2</invoke>"),
            "minimax:tool_call <invoker>x</invoke> 2</invoke>"
        );
        // A non-ASCII letter after `invoke` is a boundary in JavaScript's non-Unicode `\b`.
        assert_eq!(
            s("minimax:tool_call<invokeé>x</invoke>"),
            "minimax:tool_call"
        );
    }

    #[test]
    fn invoke_blocks_are_the_regex_matches() {
        let parts = [
            "<invoke",
            "<INVOKE",
            "<invoker",
            "<invokeé",
            " name=\"f\"",
            ">",
            "</invoke>",
            "</Invoke>",
            "x",
            "中",
            "\n",
            "<",
            "/",
            "invoke",
        ];
        same_as_regex(&parts, &INVOKE_BLOCK, invoke_blocks);
    }

    /// `scan` finds what `re` finds on every sequence of four of `parts`.
    fn same_as_regex(parts: &[&str], re: &Regex, scan: fn(&str) -> Vec<std::ops::Range<usize>>) {
        for t in crate::scrub::sequences_of_four(parts) {
            let want: Vec<_> = re.find_iter(&t).map(|m| m.range()).collect();
            assert_eq!(scan(&t), want, "{t:?}");
        }
    }

    #[test]
    fn wrapper_tags_are_the_regex_matches() {
        let parts = [
            "<",
            "/",
            "</",
            "minimax",
            "MiniMax",
            ":tool_call",
            ">",
            "<minimax:tool_call>",
            "</MINIMAX:tool_call>",
            "中",
            "x",
        ];
        same_as_regex(&parts, &WRAPPER_TAG, wrapper_tags);
    }

    #[test]
    fn a_wrapper_tag_joined_across_a_removed_block_is_removed() {
        // OpenClaw's second replace runs on the text the first one left.
        assert_eq!(
            s("minimax:tool_call <minimax:tool<invoke>x</invoke>_call>!"),
            "minimax:tool_call !"
        );
    }

    /// OpenClaw's rule as written: two regex replaces, the second on what the first left.
    fn two_replaces(t: &str) -> String {
        if !contains_marker(t) {
            return t.to_owned();
        }
        let once = INVOKE_BLOCK.replace_all(t, "");
        WRAPPER_TAG.replace_all(&once, "").into_owned()
    }

    #[test]
    fn removed_ranges_are_the_two_replaces() {
        // Tags whole and split around blocks, joins between short and long kept text, and
        // characters of several bytes on both sides of a join.
        let parts = [
            "<minimax:tool_call>",
            "<invoke a>x</invoke>",
            "</minimax:tool",
            "<mini",
            "max:tool_call>",
            "_call>",
            "中文",
            "a kept text longer than a tag",
            "<invoke>",
            "</invoke>",
            "\n",
        ];
        for t in crate::scrub::sequences_of_four(&parts) {
            assert_eq!(s(&t), two_replaces(&t), "{t:?}");
            // The ranges are ordered and apart, as the addon's slices need.
            let r = removed(&t);
            assert!(r.windows(2).all(|w| w[0].end <= w[1].start), "{t:?}");
        }
    }

    #[test]
    fn text_without_marker_is_borrowed() {
        assert!(matches!(strip_minimax_tool_call_xml(""), Cow::Borrowed("")));
        assert!(matches!(
            strip_minimax_tool_call_xml("plain :tool_call"),
            Cow::Borrowed(_)
        ));
    }
}
