//! What a rule may use besides the messages: lazy access to the few values the skeleton leaves out,
//! and the change log behind `report: true`.

use super::model::{Block, BlockOrigin, Msg, MsgOrigin};
use serde_json::Value;

/// Values the skeleton does not carry, fetched only when a rule needs them: an image's full base64
/// (when its header says it must be re-encoded), which attachments of a `sessions_spawn` call hold
/// inline content (to redact them).
/// The JS boundary answers through Node-API handles; JSON input answers from the values.
pub trait Source {
    /// The `data` string of block `block` of input message `msg`.
    fn image_data(&self, msg: usize, block: usize) -> Option<String>;
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
    fn image_data(&self, msg: usize, block: usize) -> Option<String> {
        self.block_field(msg, block, "data")
            .and_then(|v| v.as_str().map(str::to_string))
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
    fn image_data(&self, _: usize, _: usize) -> Option<String> {
        None
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
}

impl<'a> Ctx<'a> {
    pub fn new(source: &'a dyn Source, report: bool) -> Ctx<'a> {
        Ctx {
            source,
            changes: report.then(Vec::new),
        }
    }

    /// Records a change; `detail` is only built when a report was asked for.
    pub fn change(&mut self, rule: &'static str, path: String, detail: impl FnOnce() -> String) {
        if let Some(c) = &mut self.changes {
            c.push(Change {
                rule,
                path,
                detail: detail(),
            });
        }
    }
}

/// `messages[i]` for an input message, `messages[new]` for one a rule made.
pub fn msg_path(m: &Msg) -> String {
    match m.origin {
        MsgOrigin::Src(i) => format!("messages[{i}]"),
        MsgOrigin::New => "messages[new]".to_string(),
    }
}

/// `messages[i].content[j]` for an input block.
pub fn block_path(m: &Msg, b: &Block) -> String {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => format!("messages[{msg}].content[{idx}]"),
        _ => format!("{}.content[new]", msg_path(m)),
    }
}

/// The input path of a block from its origin alone (usable while the message is borrowed).
pub fn block_origin_path(b: &Block) -> String {
    match &b.origin {
        BlockOrigin::Src { msg, idx } => format!("messages[{msg}].content[{idx}]"),
        BlockOrigin::FromStrContent { msg, .. } => format!("messages[{msg}].content"),
        BlockOrigin::New(_) => "content[new]".to_string(),
    }
}
