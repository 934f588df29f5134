//! What a rule may use besides the messages: lazy access to the few values the skeleton leaves out,
//! and the change log behind `report: true`.

use super::model::{Block, BlockOrigin, Msg, MsgOrigin};
use serde_json::Value;

/// Values the skeleton does not carry, fetched only when a rule needs them: an image's full base64
/// (when its header says it must be re-encoded), which attachments of a `sessions_spawn` call hold
/// inline content (to redact them).
/// The JS boundary answers through Node-API handles; JSON input answers from the values.
pub trait Source {
    /// Calls `f` with the UTF-8 bytes of the `data` string of block `block` of input message
    /// `msg`, lent for the call only (the boundary reads it into a buffer it reuses; a cache hit
    /// then needs no UTF-8 validation); false when there is no such string.
    fn with_image_data(&self, msg: usize, block: usize, f: &mut dyn FnMut(&[u8])) -> bool;
    /// For the array `block.field.list` of input message `msg`: which items are objects that have
    /// their own `key` (nothing else of the items is read). `None` when it is not an array.
    fn items_with_key(
        &self,
        msg: usize,
        block: usize,
        field: &str,
        list: &str,
        key: &str,
    ) -> Option<Vec<bool>>;
}

/// A [`Source`] over JSON messages.
pub struct JsonSource<'a>(pub &'a [Value]);

impl JsonSource<'_> {
    fn block_field(&self, msg: usize, block: usize, field: &str) -> Option<Value> {
        self.0
            .get(msg)?
            .get("content")?
            .get(block)?
            .get(field)
            .cloned()
    }
}

impl Source for JsonSource<'_> {
    fn with_image_data(&self, msg: usize, block: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        let data = self
            .0
            .get(msg)
            .and_then(|m| m.get("content")?.get(block)?.get("data")?.as_str());
        match data {
            Some(d) => {
                f(d.as_bytes());
                true
            }
            None => false,
        }
    }

    fn items_with_key(
        &self,
        msg: usize,
        block: usize,
        field: &str,
        list: &str,
        key: &str,
    ) -> Option<Vec<bool>> {
        let items = self
            .block_field(msg, block, field)?
            .get(list)?
            .as_array()?
            .clone();
        Some(
            items
                .iter()
                .map(|i| i.as_object().is_some_and(|o| o.contains_key(key)))
                .collect(),
        )
    }
}

/// A [`Source`] with nothing behind it (rules that never fetch).
pub struct NoSource;

impl Source for NoSource {
    fn with_image_data(&self, _: usize, _: usize, _: &mut dyn FnMut(&[u8])) -> bool {
        false
    }
    fn items_with_key(&self, _: usize, _: usize, _: &str, _: &str, _: &str) -> Option<Vec<bool>> {
        None
    }
}

/// One change a rule made, for callers that log them.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub rule: &'static str,
    pub path: String,
    pub detail: String,
}

/// Per-call state shared by the rules of one operation.
pub struct Ctx<'a> {
    pub source: &'a dyn Source,
    /// `Some` when the caller asked for a report.
    pub changes: Option<Vec<Change>>,
    /// Cache digests of input image payloads hashed during this call (message, block, digest):
    /// the codec remembers them per block object, so the next call with the same block and
    /// string looks the decision up without moving or hashing the payload again.
    pub image_digests: Vec<(usize, usize, crate::image::Digest)>,
    /// `Some` when the incremental pass tracks ids (`transcript::incremental`): every id the
    /// tool-call id allocator looked up or handed out, with the input message it belongs to.
    pub id_trace: Option<Vec<(usize, super::text::Text)>>,
}

impl<'a> Ctx<'a> {
    pub fn new(source: &'a dyn Source, report: bool) -> Ctx<'a> {
        Ctx {
            source,
            changes: report.then(Vec::new),
            image_digests: Vec::new(),
            id_trace: None,
        }
    }

    /// Records a change; `path` and `detail` are only formatted when a report was asked for.
    pub fn change(&mut self, rule: &'static str, path: Path, detail: impl FnOnce() -> String) {
        if let Some(c) = &mut self.changes {
            c.push(Change {
                rule,
                path: path.to_string(),
                detail: surrogates_as_sent(detail()),
            });
        }
    }
}

/// A detail as the caller reads it: details quote ids with `{:?}`, which writes a lone
/// surrogate's stand-in (see [`crate::transcript::skeleton::LONE_SURROGATE_BASE`]) as
/// `\u{10f800}`; the caller sent `\u{d800}`, so that is what the detail says.
pub(crate) fn surrogates_as_sent(detail: String) -> String {
    use crate::transcript::skeleton::is_lone_surrogate_stand_in;
    if !detail.contains("\\u{10f") {
        return detail;
    }
    let mut out = String::with_capacity(detail.len());
    let mut rest = detail.as_str();
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("\\\\") {
            out.push_str("\\\\");
            rest = after;
            continue;
        }
        let code = tail
            .strip_prefix("\\u{")
            .and_then(|t| t.split_once('}'))
            .and_then(|(hex, after)| Some((u32::from_str_radix(hex, 16).ok()?, after)))
            .and_then(|(n, after)| Some((char::from_u32(n)?, after)));
        match code {
            Some((c, after)) if is_lone_surrogate_stand_in(c) => {
                let unit = 0xD800 + (c as u32 - crate::transcript::skeleton::LONE_SURROGATE_BASE);
                out.push_str(&format!("\\u{{{unit:x}}}"));
                rest = after;
            }
            _ => {
                out.push('\\');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where a change was made. Cheap to make (rules make one per message they look at); it is
/// formatted only when a report was asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path {
    /// `messages`: the array as a whole.
    Whole,
    /// `messages[i]`.
    Msg(usize),
    /// `messages[new]`: a message a rule made.
    NewMsg,
    /// `messages[i].content[j]`.
    Block(usize, usize),
    /// `messages[i].content`: a block standing for a message's string content.
    StrContent(usize),
    /// `messages[i].content[new]`, or `messages[new].content[new]` without `i`.
    NewBlockIn(Option<usize>),
    /// `content[new]`: a block a rule made, its message unknown.
    NewBlock,
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Path::Whole => f.write_str("messages"),
            Path::Msg(i) => write!(f, "messages[{i}]"),
            Path::NewMsg => f.write_str("messages[new]"),
            Path::Block(i, j) => write!(f, "messages[{i}].content[{j}]"),
            Path::StrContent(i) => write!(f, "messages[{i}].content"),
            Path::NewBlockIn(Some(i)) => write!(f, "messages[{i}].content[new]"),
            Path::NewBlockIn(None) => f.write_str("messages[new].content[new]"),
            Path::NewBlock => f.write_str("content[new]"),
        }
    }
}

/// The path of a message: `messages[i]` for an input message, `messages[new]` for one a rule made.
pub fn msg_path(m: &Msg) -> Path {
    match m.origin {
        MsgOrigin::Src(i) => Path::Msg(i),
        MsgOrigin::New => Path::NewMsg,
    }
}

/// `messages[i].content[j]` for an input block.
pub fn block_path(m: &Msg, b: &Block) -> Path {
    block_path_in(m.src_index(), b)
}

/// [`block_path`] for a block of the message whose input index is `own` (usable while the
/// message's blocks are borrowed).
pub fn block_path_in(own: Option<usize>, b: &Block) -> Path {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => Path::Block(*msg as usize, *idx as usize),
        _ => Path::NewBlockIn(own),
    }
}

/// The input path of a block from its origin alone (usable while the message is borrowed).
pub fn block_origin_path(b: &Block) -> Path {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => Path::Block(*msg as usize, *idx as usize),
        BlockOrigin::FromStrContent { msg, .. } => Path::StrContent(*msg as usize),
        BlockOrigin::New(_) => Path::NewBlock,
    }
}

#[cfg(test)]
mod tests {
    use super::surrogates_as_sent;

    #[test]
    fn a_lone_surrogate_is_said_as_the_caller_sent_it() {
        let detail = format!("tool call id {:?} → {:?}", "call_\u{10f800}", "call");
        assert_eq!(
            surrogates_as_sent(detail),
            r#"tool call id "call_\u{d800}" → "call""#
        );
        let high = format!("{:?}", "\u{10ffff}x");
        assert_eq!(surrogates_as_sent(high), r#""\u{dfff}x""#);
        // The caller's own backslash text, and other escapes, stay.
        for own in [r"a\u{10f800}", "中文\u{0}"] {
            let d = format!("{own:?}");
            assert_eq!(surrogates_as_sent(d.clone()), d);
        }
    }
}
