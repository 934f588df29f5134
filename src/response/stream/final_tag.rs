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
//! marker of the stream machine's table, so the reasoning markers still lead it.
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

use super::{Kind, Lit, Machine};
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
        if self.think_mode == Mode::Keep {
            return Some(true);
        }
        if !close {
            if self.em.any_visible || self.final_open {
                return Some(true);
            }
            self.final_open = true;
            return Some(false);
        }
        if !self.final_open {
            return Some(true);
        }
        if len == "</final".len() && !self.buf[len..].trim_start().is_empty() {
            return Some(true);
        }
        if len == "</final".len() && !self.finished {
            return None;
        }
        self.final_open = false;
        Some(false)
    }
}
