//! A call block that could not be read (cut off by `max_tokens`, broken markup) is removed from
//! `content` like any call block: the user never sees half a `<tool_call>`. Nothing is lost: its
//! raw text goes to `problems` (kind `unreadable-block`), in the message the family parser wrote
//! for it, so a caller can log it or retry.

use super::Block;

/// The words family parsers end a message with when they give up on a block.
const KEPT: &str = "raw text kept in content";

/// Give a family's "raw text kept in content" message `m` the raw text of its block (`raw`),
/// now removed from content; false (unchanged) for any other message. A family whose block holds
/// readable calls beside an unreadable one (a wrapper of several calls) attaches the unreadable
/// one's text itself, since the block is not kept raw.
///
/// ```
/// use transcript_hygiene::response::unreadable::attach;
/// let mut m = "f: call \"b\" does not read; raw text kept in content".to_owned();
/// assert!(attach(&mut m, "<b>x</b>"));
/// assert_eq!(m, "unreadable-block: f: call \"b\" does not read; removed from content, raw text: <b>x</b>");
/// ```
pub fn attach(m: &mut String, raw: &str) -> bool {
    let Some(head) = m.strip_suffix(KEPT) else {
        return false;
    };
    let head = head.trim_end_matches([';', ' ']);
    *m = format!("unreadable-block: {head}; removed from content, raw text: {raw}");
    true
}

/// Rewrite the problems of `blocks` (read from `text`) whose raw text was to be kept: the i-th
/// such message of `problems` gets the i-th unreadable block's raw text; a block without one gets
/// a message of its own.
///
/// ```
/// use transcript_hygiene::response::{unreadable::report, Block};
/// let text = "ok <tool_call>{\"na";
/// let b = Block { start: 3, end: text.len(), calls: vec![], keep_raw: true };
/// let mut p = vec!["hermes: no call; raw text kept in content".to_owned()];
/// report(&mut p, text, &[b]);
/// assert_eq!(p, ["unreadable-block: hermes: no call; removed from content, raw text: <tool_call>{\"na"]);
/// ```
pub fn report(problems: &mut Vec<String>, text: &str, blocks: &[Block]) {
    let mut raws = blocks
        .iter()
        .filter(|b| b.keep_raw)
        .map(|b| text.get(b.start..b.end).unwrap_or(""));
    for m in problems.iter_mut() {
        if !m.ends_with(KEPT) {
            continue;
        }
        let Some(raw) = raws.next() else {
            return;
        };
        attach(m, raw);
    }
    for raw in raws {
        problems.push(format!(
            "unreadable-block: call markup could not be read; removed from content, raw text: {raw}"
        ));
    }
}
