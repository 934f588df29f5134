//! JSON data in visible text: a call-shaped value nested in an object is the object's data.
//!
//! Why: with tools offered, the machine reads a bare JSON call at any `{` or `[` of visible text
//! ([`super::Machine::check_tool_json`]). An object whose own head is no call's holds such values
//! as data: a message quoted whole (`{"role": "assistant", "tool_calls": [{"name": …}]}`), a
//! result (`{"data": {"name": …, "arguments": {…}}}`). Reading them ran a call nobody made and
//! left the object's shell visible (`{"role": "assistant", "tool_calls":}`). So once a `{` that
//! opens an object (`{`, a quoted key, `:`) is found to be no call, every candidate until that
//! object closes is text too, as [`crate::response::json_calls::bare_blocks`] reads whole replies
//! (other JSON is skipped whole). The object's depth is followed over the bytes the machine passes,
//! each once (as they are drained, or when a candidate inside asks), so the reading depends on the
//! text alone, however it was cut.

use crate::response::scan::depth::{Brackets, Depth};

/// The object being followed: `(absolute start, absolute scanned-to, its scan)`.
#[derive(Debug, Default)]
pub(in crate::response) struct DataObject {
    open: Option<(usize, usize, Depth)>,
}

impl DataObject {
    /// Follow the object whose `{` is at absolute `at` (no-op when it is followed already).
    pub(in crate::response) fn start(&mut self, at: usize) {
        if self.open.is_none() {
            self.open = Some((at, at, Depth::new(Brackets::Json)));
        }
    }

    /// Pass the object's scan over `bytes`, which start at absolute `from`: the bytes not seen yet
    /// are followed until the object closes. (Asked at every drain: nothing to do but a test when
    /// no object is followed, so that much is inlined.)
    #[inline]
    pub(in crate::response) fn pass(&mut self, bytes: &[u8], from: usize) {
        if self.open.is_some() {
            self.follow(bytes, from);
        }
    }

    fn follow(&mut self, bytes: &[u8], from: usize) {
        let Some((start, to, mut depth)) = self.open else {
            return;
        };
        let Some(rest) = bytes.get(to.saturating_sub(from)..) else {
            return;
        };
        self.open = match depth.scan(rest) {
            Some(_) => None,
            None => Some((start, to.max(from) + rest.len(), depth)),
        };
    }

    /// Whether absolute `q` lies inside the object followed, `bytes` (from absolute `from`)
    /// holding every byte from its scan's end up to `q`.
    pub(in crate::response) fn holds(&mut self, bytes: &[u8], from: usize, q: usize) -> bool {
        match self.open {
            Some((start, ..)) if start < q => {
                self.pass(&bytes[..q.saturating_sub(from).min(bytes.len())], from);
                self.open.is_some()
            }
            _ => false,
        }
    }
}

/// Whether `rest` (starting at a `{`) opens a JSON object: spaces, a quoted key on one line (at
/// most 256 bytes), spaces, `:`. `None`: not known before more text comes (`finished`: none will).
pub(in crate::response) fn object_head(rest: &str, finished: bool) -> Option<bool> {
    let more = if finished { Some(false) } else { None };
    let t = rest.get(1..)?.trim_start();
    let Some(key) = t.strip_prefix('"') else {
        return if t.is_empty() { more } else { Some(false) };
    };
    let b = key.as_bytes();
    let mut k = 0;
    while k < b.len() && k <= 256 {
        match b[k] {
            b'\\' => k += 2,
            b'\n' => return Some(false),
            b'"' => {
                let after = key.get(k + 1..).unwrap_or("").trim_start();
                return match after.as_bytes().first() {
                    Some(b':') => Some(true),
                    Some(_) => Some(false),
                    None => more,
                };
            }
            _ => k += 1,
        }
    }
    if k > 256 {
        Some(false)
    } else {
        more
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_heads() {
        assert_eq!(object_head("{\"role\": \"assistant\"", false), Some(true));
        assert_eq!(object_head("{ \"键\"\n :", false), Some(true));
        assert_eq!(object_head("{\"ro", false), None);
        assert_eq!(object_head("{\"ro", true), Some(false));
        assert_eq!(object_head("{\"a\\\"b\" ", false), None);
        assert_eq!(object_head("{ y }", false), Some(false));
        assert_eq!(object_head("{\"a\", \"b\"}", false), Some(false));
        assert_eq!(object_head("{\"a\nb\": 1}", false), Some(false));
    }

    #[test]
    fn followed_to_its_close_across_pieces() {
        let t = br#"{"a": "}", "b": [{"name": "f"}]} {"name": "g"}"#;
        let inner = t.iter().position(|&b| b == b'[').unwrap();
        let after = t.len() - 13;
        for cut in 0..=t.len() {
            let mut d = DataObject::default();
            d.start(0);
            d.pass(&t[..cut], 0);
            if inner >= cut {
                assert!(d.holds(&t[cut..], cut, inner), "{cut}");
            }
            assert!(!d.holds(&t[cut..], cut, after), "{cut}");
        }
    }
}
