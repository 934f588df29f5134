//! One read-only view of a JSON value, so each protocol's reader and writer is written once and
//! runs on a `serde_json::Value` (the public Rust API), on raw bytes (the gateway's body, see
//! [`super::tape`]) and on the skeleton of a JS object (see [`super::skeleton`]) alike.
//!
//! The readers only look: a field by name, an array's items in order, a string's text, a value's
//! kind. A [`Node`] answers exactly that and nothing more, and never copies a string it can lend.

use serde_json::Value;
use std::borrow::Cow;

/// What a node is, with the string's text and containers left as nodes.
pub enum View<'a, N> {
    Null,
    Bool(bool),
    Num,
    Str(Cow<'a, str>),
    Arr(N),
    Obj(N),
}

/// A JSON value as the wire readers see it.
///
/// ```
/// use serde_json::json;
/// use transcript_hygiene::transcript::wire::node::Node;
///
/// let v = json!({"role": "user", "content": ["a", "b"]});
/// assert_eq!((&v).get("role").and_then(Node::str).as_deref(), Some("user"));
/// assert_eq!((&v).get("content").map(|c| c.items().count()), Some(2));
/// ```
pub trait Node<'a>: Copy + 'a {
    /// The items of an array (nothing for any other value), in order.
    type Items: Iterator<Item = Self>;

    fn view(self) -> View<'a, Self>;
    /// The member `key` of an object (`None` for another value or a missing key).
    fn get(self, key: &str) -> Option<Self>;
    fn items(self) -> Self::Items;
    /// The first key of an object (`None` for another value or an empty object).
    fn first_key(self) -> Option<Cow<'a, str>>;
    /// The value as a `serde_json::Value`: for the small values a rule rewrites, never a body.
    fn to_value(self) -> Value;

    /// What the rules know of a string (its length, blankness and, when at hand, its text).
    fn text_info(self) -> Option<crate::transcript::model::TextInfo> {
        self.str()
            .map(|s| crate::transcript::model::TextInfo::of_str(&s))
    }
    /// A string's length in UTF-16 units (as JS counts) and its first `max` units at most (whole
    /// characters): what an image's payload is first judged on.
    fn head(self, max: usize) -> Option<(usize, Cow<'a, str>)> {
        let s = self.str()?;
        let len = if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        let mut units = 0;
        let end = s
            .char_indices()
            .find(|(_, c)| {
                units += c.len_utf16();
                units > max
            })
            .map_or(s.len(), |(i, _)| i);
        Some(match s {
            Cow::Borrowed(b) => (len, Cow::Borrowed(&b[..end])),
            Cow::Owned(mut o) => {
                o.truncate(end);
                (len, Cow::Owned(o))
            }
        })
    }
    /// Where the value's bytes are in the body, when it was read from bytes.
    fn byte_span(self) -> Option<std::ops::Range<usize>> {
        None
    }
    fn str(self) -> Option<Cow<'a, str>> {
        match self.view() {
            View::Str(s) => Some(s),
            _ => None,
        }
    }
    fn is_str(self) -> bool {
        matches!(self.view(), View::Str(_))
    }
    fn is_obj(self) -> bool {
        matches!(self.view(), View::Obj(_))
    }
    fn is_null(self) -> bool {
        matches!(self.view(), View::Null)
    }
    /// An array with no items.
    fn is_empty_array(self) -> bool {
        matches!(self.view(), View::Arr(_)) && self.items().next().is_none()
    }
    /// The number of items of an array (0 for any other value).
    fn item_count(self) -> usize {
        self.items().count()
    }
    /// How the value is named in an error (`a string`, `null`).
    fn what(self) -> &'static str {
        match self.view() {
            View::Null => "null",
            View::Bool(_) => "a boolean",
            View::Num => "a number",
            View::Str(_) => "a string",
            View::Arr(_) => "an array",
            View::Obj(_) => "an object",
        }
    }
}

/// How a possibly missing value is named in an error.
pub fn describe<'a, N: Node<'a>>(v: Option<N>) -> &'static str {
    v.map_or("nothing", Node::what)
}

/// Items of a `Value`: an array's, or none.
pub type ValueItems<'a> = std::slice::Iter<'a, Value>;

impl<'a> Node<'a> for &'a Value {
    type Items = ValueItems<'a>;

    fn view(self) -> View<'a, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(_) => View::Num,
            Value::String(s) => View::Str(Cow::Borrowed(s)),
            Value::Array(_) => View::Arr(self),
            Value::Object(_) => View::Obj(self),
        }
    }
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }
    fn items(self) -> Self::Items {
        self.as_array().map_or([].iter(), |a| a.iter())
    }
    fn first_key(self) -> Option<Cow<'a, str>> {
        self.as_object()?
            .keys()
            .next()
            .map(|k| Cow::Borrowed(k.as_str()))
    }
    fn to_value(self) -> Value {
        self.clone()
    }
    fn item_count(self) -> usize {
        self.as_array().map_or(0, Vec::len)
    }
}
