//! The `<final>…</final>` wrapper some agent prompts ask a model to put around its answer
//! (OpenClaw's reasoning-tag prompt for Gemini and Gemma; openclaw#65867: `</think> <final>Since
//! you asked again…`). OpenClaw's user-facing scrubbers remove the markers and keep the words; a
//! reply cleaned with `cleanResponse` showed them. A person reading the chat wants the answer
//! without its wrapper, so:
//!
//! - `<final>` (or `<final.`, the garbled opener of openclaw_conversation#7's
//!   `<final. What do you need?</final`) is removed when nothing visible comes before it: it
//!   opens the reply, or follows removed markup (reasoning, a call). Elsewhere (`用 <final>
//!   包住答案`) it is text, as a reasoning opener after visible text is.
//! - `</final>` is removed when it closes such an opener; `</final` without its `>` only at the
//!   very end of the reply (whitespace aside). A closing tag with no removed opener is text.
//! - Inside code spans and fences both are text, and with `thinking: 'keep'` too (the reply's
//!   wrapper goes with its reasoning markup). Nothing is reported: the words are all kept.
//!
//! The markers are looked for in visible text (never inside a call block), after every other
//! marker of the stream machine's table, so the reasoning markers still lead it. A family read
//! from plain text (`llama3_json`, `pythonic`, gpt-oss, Gemma 4, …: the reply is read whole at
//! `finish`) gets the same rule on the text between its call blocks ([`batch_text`],
//! [`batch_reasoning_end`]): one rule whichever family the format or model names.
//!
//! Inside reasoning a `<final>` is reasoning, except in the one reply shape where it can only be
//! the answer (openclaw#87712, in Chinese: `<think>…<final>老板，…</final>` with no `</think>`,
//! so the whole answer ended up in reasoning): the reasoning block (`<think>`, `<seed:think>`,
//! `[THINK]`, `<mm:think>`) is never closed, and the reply ends with a `</final>` (whitespace
//! aside). Then the reasoning ends at the last `<final>` before that `</final>`, and the wrapper
//! is removed as above. A `<final>` written in reasoning that is closed later (quoted in code,
//! or named in prose) stays reasoning, and so does one when the reply does not end with the
//! wrapper's closer. A stream holds the reasoning from such a `<final>` back until the block's
//! closing tag or the reply's end decides.

use std::ops::Range;

use super::{Emitter, Kind, Lit, Machine};
use crate::response::thinking::{Think, ALWAYS, PROSE_PAIRS};
use crate::response::Mode;

/// The wrapper's opener.
pub(super) const OPEN: &str = "<final>";
const CLOSE: &str = "</final>";

/// The opener, its garbled form, the closer, and the closer cut before its `>` (the closer
/// before the cut one: the table is read in order).
const MARKERS: [(&str, bool); 4] = [
    (OPEN, false),
    ("<final.", false),
    (CLOSE, true),
    ("</final", true),
];

/// The wrapper's markers for the stream machine's table ([`Kind::Final`]: whether it closes).
pub(super) fn final_lits() -> impl Iterator<Item = Lit> {
    MARKERS.into_iter().map(|(s, close)| Lit {
        pre: "",
        s,
        kind: Kind::Final(close),
    })
}

impl Machine {
    /// At the end of a reply whose reasoning was never closed and holds a `<final>` (`buf`
    /// starts there): when the reply ends with `</final>`, the reasoning ends at the last
    /// `<final>` before it and the rest is read as visible text. `false`: it stays reasoning.
    pub(super) fn final_ends_reasoning(&mut self) -> bool {
        let t = self.buf.trim_end();
        let Some(close) = t.strip_suffix(CLOSE) else {
            return false;
        };
        let Some(open) = close.rfind(OPEN) else {
            return false;
        };
        self.final_in_think = false;
        self.think_text(open);
        self.em.reasoning_end();
        self.held.end_block();
        self.state = super::State::Visible;
        self.pos = 0;
        true
    }

    /// Whether the wrapper marker of `len` bytes at the start of `buf` is text (`None`: not known
    /// before more text comes). A removed opener is remembered until its closer.
    pub(super) fn final_is_text(&mut self, close: bool, len: usize) -> Option<bool> {
        let rule = Rule {
            keep: self.think_mode == Mode::Keep,
            visible: self.em.any_visible,
            finished: self.finished,
        };
        rule.is_text(&mut self.final_open, close, len, &self.buf[len..])
    }
}

/// What the rule reads of the reply around a marker.
struct Rule {
    /// Reasoning markup is kept (`thinking: 'keep'`): the wrapper is text.
    keep: bool,
    /// Visible text came before the marker.
    visible: bool,
    /// `rest` runs to the reply's end.
    finished: bool,
}

impl Rule {
    /// Whether the marker (a closer when `close`, `len` bytes, `rest` after it) is text (`None`:
    /// not known before more text comes). `open`: an opener was removed and its closer has not
    /// come.
    fn is_text(&self, open: &mut bool, close: bool, len: usize, rest: &str) -> Option<bool> {
        if self.keep {
            return Some(true);
        }
        if !close {
            if self.visible || *open {
                return Some(true);
            }
            *open = true;
            return Some(false);
        }
        if !*open {
            return Some(true);
        }
        let cut = len == "</final".len();
        if cut && !rest.trim_start().is_empty() {
            return Some(true);
        }
        if cut && !self.finished {
            return None;
        }
        *open = false;
        Some(false)
    }
}

/// A reply read whole by a plain-text family: its text (after any stripped lead), where that
/// starts in the reply, its code (inline spans and fences: text), and whether reasoning markup
/// is kept.
pub(super) struct Whole<'a> {
    pub(super) text: &'a str,
    pub(super) base: usize,
    pub(super) code: &'a [Range<usize>],
    pub(super) keep: bool,
}

/// Visible text `w.text[s..e]` (outside reasoning and call blocks) of a reply read whole, emitted
/// with its wrapper markers read by the rule above, as the stream reads them. `open`: as in
/// [`Rule::is_text`].
pub(super) fn batch_text(em: &mut Emitter, open: &mut bool, w: &Whole, s: usize, e: usize) {
    let b = w.text.as_bytes();
    let mut from = s;
    for p in memchr::memchr_iter(b'<', &b[s..e]).map(|p| p + s) {
        if p < from || in_code(w.code, p) {
            continue;
        }
        let rest = &w.text[p..e];
        let Some(&(m, close)) = MARKERS.iter().find(|(m, _)| rest.starts_with(m)) else {
            continue;
        };
        em.text(&w.text[from..p], w.base + from);
        from = p;
        let rule = Rule {
            keep: w.keep,
            visible: em.any_visible,
            finished: true,
        };
        let end = p + m.len();
        if rule.is_text(open, close, m.len(), &w.text[end..]) == Some(false) {
            em.removed();
            from = end;
        }
    }
    em.text(&w.text[from..e], w.base + from);
}

/// Whether byte `p` is inside one of `code` (in order, not overlapping).
fn in_code(code: &[Range<usize>], p: usize) -> bool {
    let i = code.partition_point(|r| r.end <= p);
    code.get(i).is_some_and(|r| r.start <= p)
}

/// The reasoning blocks of a reply read whole (`thinks`, in order): when the last one is a
/// prose pair's (`<think>`, …) never closed and the reply ends with `</final>`, it ends at the
/// last `<final>` before that closer, as [`Machine::final_ends_reasoning`] reads a stream.
pub(super) fn batch_reasoning_end(text: &str, thinks: &mut [Think], keep: bool) {
    let Some(t) = thinks.last_mut() else {
        return;
    };
    let prose = ALWAYS[..PROSE_PAIRS]
        .iter()
        .any(|p| p.opens.iter().any(|o| text[t.outer.start..].starts_with(o)));
    if keep || t.closed || !prose {
        return;
    }
    let inner = text[t.inner.clone()].trim_end();
    let Some(before) = inner.strip_suffix(CLOSE) else {
        return;
    };
    if let Some(o) = before.rfind(OPEN) {
        let at = t.inner.start + o;
        t.inner.end = at;
        t.outer.end = at;
        t.closed = true;
    }
}
