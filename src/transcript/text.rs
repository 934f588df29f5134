//! [`Text`], the string of the working model: a vocabulary word, a short string stored in place,
//! or a longer one on the heap.
//!
//! Parsing a skeleton made one heap allocation for every string that is not a vocabulary word
//! (tool-call ids, thinking signatures, tool names), and freeing the model one more: about two in
//! three messages of an agent's history hold such a string. Most are short (`call_0|fc_0`,
//! `toolu_01…` ids run 9–30 bytes), so those up to [`INLINE`] bytes live inside the value itself,
//! in the same 24 bytes a `Cow<'static, str>` took, and cost no allocation at all.

use std::fmt;
use std::ops::Deref;

/// The longest string stored in place, in bytes.
pub const INLINE: usize = 22;

/// A string of the model (see the module doc). Compares, hashes and prints as its `str`.
#[derive(Clone)]
pub enum Text {
    /// A static word: the skeleton's vocabulary, field names.
    Borrowed(&'static str),
    /// At most [`INLINE`] bytes, in place.
    Inline(InlineStr),
    /// A longer string.
    Heap(Box<str>),
}

/// The bytes of a short string and their length (always a whole UTF-8 string).
#[derive(Clone, Copy)]
pub struct InlineStr {
    len: u8,
    buf: [u8; INLINE],
}

impl Text {
    /// `s`, in place when it is short enough, else copied to the heap.
    ///
    /// ```
    /// use transcript_hygiene::transcript::text::Text;
    /// let id = Text::new("call_0|fc_00000000");
    /// assert!(matches!(id, Text::Inline(_)));
    /// assert_eq!(id, "call_0|fc_00000000");
    /// let signature = Text::new(&"c2lnbmF0dXJl".repeat(4));
    /// assert!(matches!(signature, Text::Heap(_)));
    /// assert_eq!(signature.len(), 48);
    /// // `trim` is `str::trim`, quicker on an id or name with plain ends.
    /// use transcript_hygiene::transcript::text::trim;
    /// assert_eq!(trim(&id), "call_0|fc_00000000");
    /// assert_eq!(trim(" 读取文件\u{3000}"), "读取文件");
    /// assert_eq!(trim("\u{0b}exec\r"), "exec");
    /// assert_eq!((trim("x"), trim(" "), trim("")), ("x", "", ""));
    /// ```
    pub fn new(s: &str) -> Text {
        if s.len() <= INLINE {
            let mut buf = [0u8; INLINE];
            buf[..s.len()].copy_from_slice(s.as_bytes());
            Text::Inline(InlineStr {
                len: s.len() as u8,
                buf,
            })
        } else {
            Text::Heap(s.into())
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Text::Borrowed(s) => s,
            // SAFETY: an `InlineStr` is made only by `Text::new`, which copies a whole `&str`
            // (its fields are private to this module), so its first `len` bytes are UTF-8.
            Text::Inline(i) => unsafe { std::str::from_utf8_unchecked(&i.buf[..i.len as usize]) },
            Text::Heap(s) => s,
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::Borrowed("")
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Self {
        Text::Borrowed(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        if s.len() <= INLINE {
            Text::new(&s)
        } else {
            Text::Heap(s.into_boxed_str())
        }
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Self {
        Text::new(s)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

/// `s.trim()`, answered without decoding a character when both ends are ASCII and not
/// whitespace, as an id or a tool name almost always is (`str::trim` decodes a character at each
/// end first: ~100 instructions a call, and the rules trim every call's id and name).
/// (Examples: [`Text::new`]'s.)
#[inline]
pub fn trim(s: &str) -> &str {
    let plain = |b: &u8| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ');
    match s.as_bytes() {
        [first, .., last] if plain(first) && plain(last) => s,
        [only] if plain(only) => s,
        _ => s.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_back_as_the_string_it_was_made_from() {
        let long = "x".repeat(INLINE + 1);
        let full = "a".repeat(INLINE);
        let cases: Vec<(Text, &str)> = vec![
            (Text::from("toolCall"), "toolCall"),
            (Text::new(""), ""),
            (Text::new("call_0|fc_00000000"), "call_0|fc_00000000"),
            // Chinese: 3 bytes a character, 7 fit in place, 8 do not.
            (Text::new("调用工具读取文件"), "调用工具读取文件"),
            (Text::new("调用工具读取文"), "调用工具读取文"),
            (Text::new(&full), &full),
            (Text::from(long.clone()), &long),
        ];
        for (t, s) in &cases {
            assert_eq!(t.as_str(), *s);
            assert_eq!(t, s);
            assert_eq!(t.clone(), Text::from(s.to_string()));
            assert_eq!(format!("{t}"), *s);
        }
        assert!(matches!(Text::new(&full), Text::Inline(_)));
        assert!(matches!(Text::from(long), Text::Heap(_)));
        assert!(matches!(Text::new("调用工具读取文件"), Text::Heap(_)));
        assert_ne!(Text::new("ab"), Text::new("a"));
    }

    #[test]
    fn trim_is_str_trim() {
        let ends = [
            "", "a", "读", " ", "\t", "\u{0b}", "\u{0c}", "\r", "\n", "\u{85}", "\u{a0}",
            "\u{3000}", "\u{feff}", "\u{1c}", "~", "\u{7f}",
        ];
        for a in ends {
            for b in ends {
                for mid in ["", "exec", "读取 文件"] {
                    let s = format!("{a}{mid}{b}");
                    assert_eq!(super::trim(&s), s.trim(), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn a_text_is_no_larger_than_the_cow_it_replaced() {
        assert_eq!(
            std::mem::size_of::<Text>(),
            std::mem::size_of::<std::borrow::Cow<'static, str>>()
        );
        assert_eq!(std::mem::size_of::<crate::transcript::model::Val>(), 24);
    }
}
