//! The spans of a DSML reply that are text, not markup, hidden from the invoke scan before it runs.
//!
//! A parameter's value ends only at its own `</｜DSML｜parameter>`: a Write whose content is a DSML
//! example (an agent editing its own docs, or a parser's test file) holds whole invoke openers
//! and section closers, and the invoke scan ([`super::xml_invoke`]) took them for the call's own,
//! cutting the value there (a call `x` with `{}`, `truncated`). The other DSML readers own their
//! spans too: the JSON of a `toolcall` block ([`super::dsml_toolcall`]), the fields of a named-tag
//! call ([`super::dsml_named`]), the parameters of a `<function>` head
//! ([`super::dsml_function`]); they are read first, and their blocks hidden the same way.
//!
//! Hidden means each `<` in the span replaced by [`HIDDEN`] (one byte for one, so every offset
//! holds): no tag starts there. What the readers slice from the hidden text they map back to the
//! text given ([`Hidden::in_text`]). A value the reply's end cut runs to the end, but for
//! a closing tag cut there (`…</｜DSML｜para`), which stays visible to the cut-closer rules. One
//! forward pass: each tag is looked for from where the last search stopped ([`Finder`]).

use super::scan::Finder;
use super::xml_invoke::{tag_here, Tags};

/// What a hidden `<` becomes.
const HIDDEN: u8 = 0x01;

/// A text with spans hidden (`hidden` is `None` while none of them holds a `<`).
pub struct Hidden<'t> {
    text: &'t str,
    hidden: Option<String>,
}

impl<'t> Hidden<'t> {
    /// `text` with `spans` hidden.
    pub fn new(text: &'t str, spans: &[(usize, usize)]) -> Self {
        let holds_tag = |&(a, b): &(usize, usize)| {
            text.as_bytes()
                .get(a..b)
                .is_some_and(|s| memchr::memchr(b'<', s).is_some())
        };
        if !spans.iter().any(holds_tag) {
            return Hidden { text, hidden: None };
        }
        let mut bytes = text.as_bytes().to_vec();
        for &(a, b) in spans {
            if let Some(span) = bytes.get_mut(a..b) {
                span.iter_mut()
                    .filter(|c| **c == b'<')
                    .for_each(|c| *c = HIDDEN);
            }
        }
        // One ASCII byte replaced by another: still UTF-8.
        let hidden = String::from_utf8(bytes).ok();
        Hidden { text, hidden }
    }

    /// The text the readers read.
    pub fn text(&self) -> &str {
        self.hidden.as_deref().unwrap_or(self.text)
    }

    /// The piece `v` of [`Hidden::text`] in the text given; `None` when nothing was hidden (`v`
    /// is a piece of that text already).
    pub fn in_text(&self, v: &str) -> Option<&'t str> {
        let hidden = self.hidden.as_deref()?;
        let a = (v.as_ptr() as usize)
            .checked_sub(hidden.as_ptr() as usize)
            .filter(|a| a + v.len() <= hidden.len())?;
        self.text.get(a..a + v.len())
    }
}

/// The values of the invokes' parameters in `text` (`tags`: the canonical DSML tags), as DSML's
/// grammar reads them in order: an invoke head, then parameters, each value running to its own
/// closer, until the invoke's closer or the next invoke head.
pub fn value_spans(text: &str, tags: &Tags) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut invokes = Finder::new(tags.invoke);
    let mut params = Finder::new(tags.param);
    let mut invoke_ends = Finder::new(tags.invoke_end);
    let mut param_ends = Finder::new(tags.param_end);
    let mut next_head = |mut from: usize| {
        while let Some(i) = invokes.find(text, from) {
            if tag_here(&text[i..], tags.invoke) {
                return Some(i);
            }
            from = i + tags.invoke.len();
        }
        None
    };
    let gt = |from: usize| memchr::memchr(b'>', &text.as_bytes()[from..]).map(|g| from + g + 1);
    let mut at = 0;
    while let Some(i) = next_head(at) {
        let Some(body) = gt(i + tags.invoke.len()) else {
            break;
        };
        at = body;
        // This invoke's parameters, up to its closer or the next head.
        loop {
            let stop = [invoke_ends.find(text, at), next_head(at)]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(text.len());
            let Some(p) = params.find(text, at).filter(|&p| p < stop) else {
                break;
            };
            if !tag_here(&text[p..], tags.param) {
                at = p + tags.param.len();
                continue;
            }
            let Some(v) = gt(p + tags.param.len()) else {
                return out;
            };
            let Some(e) = param_ends.find(text, v) else {
                // Cut by the reply's end: the value runs to it, but for its closer cut there.
                let cut = super::scan::cut_tag(&text[v..])
                    .map(|(lt, _)| v + lt)
                    .filter(|&lt| tags.param_end.starts_with(&text[lt..]));
                out.push((v, cut.unwrap_or(text.len())));
                return out;
            };
            out.push((v, e));
            at = e + tags.param_end.len();
        }
    }
    out
}
