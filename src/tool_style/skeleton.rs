//! Reads js/tool_style.js's skeleton text message by message: each element of `msgs` is parsed
//! on its own and turned into the rules' [`Msg`] before the next is read, so no
//! `serde_json::Value` of the whole history is ever built (a history of thousands of messages
//! would otherwise become one tree of small heap objects, walked once and dropped). The layout is
//! [`crate::tool_style::model`]'s; js/tool_style.js writes `n` before `msgs`, so each message's
//! text indices are checked as it is read (without `n` before them: against the texts sent).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::model::{History, Msg};

/// A skeleton read: the operation, its options and the history (texts attached).
pub struct Skeleton {
    pub op: String,
    pub options: Option<Value>,
    pub history: History,
}

impl Skeleton {
    /// Reads `json` (the skeleton) with `texts` (the strings sent beside it).
    pub fn read(json: &str, texts: Vec<Option<String>>) -> Result<Skeleton, String> {
        let mut de = serde_json::Deserializer::from_str(json);
        let top = Top {
            sent: texts.len(),
            op: String::new(),
            n: None,
            options: None,
            msgs: Vec::new(),
            bad: None,
        };
        let top = de
            .deserialize_map(top)
            .and_then(|t| de.end().map(|()| t))
            .map_err(|e| format!("skeleton: {e}"))?;
        if let Some(e) = top.bad {
            return Err(e);
        }
        Ok(Skeleton {
            op: top.op,
            options: top.options.filter(|o| !o.is_null()),
            history: History {
                texts,
                msgs: top.msgs,
            },
        })
    }
}

/// The skeleton object, filled key by key (also its own visitor).
struct Top {
    /// How many texts were sent (the bound when `n` is not given first).
    sent: usize,
    op: String,
    n: Option<usize>,
    options: Option<Value>,
    msgs: Vec<Msg>,
    /// The first message the rules' model refused (a text index out of range).
    bad: Option<String>,
}

impl<'de> Visitor<'de> for Top {
    type Value = Top;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a skeleton object")
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Top, A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "op" => self.op = map.next_value::<Option<String>>()?.unwrap_or_default(),
                "n" => self.n = map.next_value()?,
                "options" => self.options = map.next_value()?,
                "msgs" => {
                    let n = self.n.unwrap_or(self.sent);
                    map.next_value_seed(Msgs { top: &mut self, n })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(self)
    }
}

/// The `msgs` array, read one message at a time into `top.msgs`.
struct Msgs<'a> {
    top: &'a mut Top,
    n: usize,
}

impl<'de> DeserializeSeed<'de> for Msgs<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Msgs<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some(len) = seq.size_hint() {
            self.top.msgs.reserve(len);
        }
        while let Some(m) = seq.next_element::<Value>()? {
            match Msg::from_json(&m, self.n) {
                Ok(m) => self.top.msgs.push(m),
                Err(e) => {
                    self.top.bad.get_or_insert(e);
                }
            }
        }
        Ok(())
    }
}
