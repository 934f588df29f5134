//! A DSML call section opened again before its closer: the first one ends after its last
//! whole invoke, and what stands between the two is text again.
//!
//! Why: DeepSeek-V4 writes a `<｜DSML｜tool_calls>` section, leaves it open, goes on with the
//! tool's result it made up in a ```` ```json ```` fence (vllm-project/vllm-ascend#13794's
//! invented result), then opens a second section for its next call. A section is read up to its
//! closer, so the first one ran over the fence and the second opener: the fence went with the
//! calls, removed without a word (and, when no closer came at all, a cut reply reported). Read as
//! two sections, the fence right after the first one's calls is reported as the invented result
//! it is, as after a closed section ([`super::stream`]'s invented-result rule); prose there is
//! the answer's text.
//!
//! The evidence: in a section block (canonical text), another section opener at `s` with a
//! closed invoke before it and an invoke after it, none of the block's invokes running over `s`
//! (an opener inside a parameter's value is the value's). The invokes are read once more, for
//! their places (each block once, so linear); the calls are the ones the block read, shared out.

use super::xml_invoke::{invokes, Tags};
use super::Block;

/// `blocks` (read from the canonical `text` by [`super::xml_invoke::blocks`] with section
/// `(open, close)` and `tags`) with each section block that holds a reopened section split there.
pub fn split(
    text: &str,
    blocks: Vec<Block>,
    (open, close): (&str, &str),
    tags: &Tags,
) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        split_one(text, b, open, close, tags, &mut out);
    }
    out
}

/// Block `b` pushed to `out`, split at each reopened section opener in it.
fn split_one(text: &str, b: Block, open: &str, close: &str, tags: &Tags, out: &mut Vec<Block>) {
    let Some(inner) = text.get(b.start..b.end).and_then(|t| t.strip_prefix(open)) else {
        out.push(b);
        return;
    };
    let lo = b.start + open.len();
    let hi = b.end - inner.strip_suffix(close).map_or(0, |_| close.len());
    let body = &text[lo..hi];
    if b.calls.is_empty() || memchr::memmem::find(body.as_bytes(), open.as_bytes()).is_none() {
        out.push(b);
        return;
    }
    // Each invoke's body as a range of `text`: from after its head to its closer (or what ends it).
    let base = text.as_ptr() as usize;
    let spans: Vec<(usize, usize)> = invokes(body, tags, "", &mut Vec::new())
        .iter()
        .map(|inv| {
            let s = inv.body.as_ptr() as usize - base;
            (s, s + inv.body.len())
        })
        .collect();
    if spans.len() != b.calls.len() {
        out.push(b);
        return;
    }
    let Block {
        start, end, calls, ..
    } = b;
    let mut calls = calls.into_iter();
    let (mut seg, mut taken, mut j) = (start, 0, 0);
    for s in memchr::memmem::find_iter(body.as_bytes(), open.as_bytes()).map(|i| lo + i) {
        while j < spans.len() && spans[j].1 <= s {
            j += 1;
        }
        // An invoke after `s`, none over it, and a closed one in this piece before it.
        let before = spans.get(j.wrapping_sub(1)).filter(|_| j > taken);
        let Some(&(_, e)) = before else { continue };
        if spans.get(j).is_none_or(|&(a, _)| a <= s) || !text[e..].starts_with(tags.invoke_end) {
            continue;
        }
        out.push(Block {
            start: seg,
            end: e + tags.invoke_end.len(),
            calls: calls.by_ref().take(j - taken).collect(),
            keep_raw: false,
        });
        (seg, taken) = (s, j);
    }
    out.push(Block {
        start: seg,
        end,
        calls: calls.collect(),
        keep_raw: false,
    });
}
