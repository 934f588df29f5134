//! Gemma 4's thought channel with its `<|channel>` token stripped, at the start of a reply (the
//! tokens themselves are a reasoning pair of [`crate::response::thinking`]).
//!
//! Why: a server that drops special tokens leaves `thought\n…<channel|>answer`
//! (NickMonrad/kernel-ai-assistant#1057), and one whose chat template opened the channel in the
//! prompt (Gemma 4 does on the turn after a tool result: jundot/omlx PR 2533) gets the reasoning
//! with no opener at all, `…\n<channel|>answer` (attevon-llc/OpenTranscribe#439, ollama PR
//! 18288). Both showed the reasoning and the token to the user.
//!
//! The rule, for the whole reply and a stream alike (the machine holds the start back until it
//! is decided):
//! - `thought` and a line break first (spaces before aside), then the first `<channel|>`: the text
//!   between is reasoning, in `auto` (any model) and with `format: 'gemma4'`. The word alone is
//!   no evidence: with no `<channel|>` after it, or with the first one in code (an odd number of
//!   backticks before it: inline code, a fenced example; an indented code block), the reply is
//!   text.
//! - Without the word, only when the model (`gemma-4…`, [`crate::response::gemma4::names_gemma4`])
//!   or `format: 'gemma4'` names Gemma 4, and `reasoningOpen` is not `false`: the first
//!   `<channel|>`, within [`START_REGION`] bytes, not in code, with no `<|channel>` before it,
//!   and at the start or the end of its line (where the token falls between reasoning and
//!   answer; a sentence that names it, `以 <channel|> 结束`, has words on both sides), ends
//!   reasoning that began in the prompt. Anywhere else the reply is read as usual.

use super::{Machine, State, START_REGION};
use crate::response::gemma_channel::{CLOSE, OPEN};
use crate::response::scan::{find_from, floor};
use crate::response::Mode;

/// The word Gemma 4 writes after `<|channel>` to open its thought channel, with its line break.
pub(crate) const WORD: &str = "thought\n";

/// Where the machine stands in the reply's start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Lead {
    /// Where the machine goes when the start is not the channel.
    pub(super) after: State,
    /// The form without the word is read too (the model or the format names Gemma 4).
    pub(super) bare: bool,
    /// Whether the reply starts with [`WORD`]: `None` until known.
    word: Option<bool>,
    /// How far `<channel|>` was looked for, and the backticks met before there.
    scanned: usize,
    ticks: usize,
}

impl Lead {
    pub(super) fn new(after: State, bare: bool) -> Lead {
        Lead {
            after,
            bare,
            word: None,
            scanned: 0,
            ticks: 0,
        }
    }
}

impl Machine {
    /// [`State::GemmaLead`]: nothing of the reply has been emitted (`buf` is the reply so far).
    pub(super) fn step_gemma_lead(&mut self) -> bool {
        let start = self.buf.len() - self.buf.trim_start().len();
        if self.lead.word.is_none() {
            let t = &self.buf[start..];
            if t.starts_with(WORD) {
                self.lead.word = Some(true);
                self.lead.scanned = start + WORD.len();
            } else if !self.finished && WORD.starts_with(t) {
                return false;
            } else if self.lead.bare {
                self.lead.word = Some(false);
            } else {
                return self.leave_lead();
            }
        }
        let word = self.lead.word == Some(true);
        let from = self.lead.scanned;
        let hit = find_from(&self.buf, CLOSE, from);
        // Searched so far: up to the hit, or short of a token cut by the buffer's end.
        let to = match hit {
            Some(c) => c,
            None if self.finished => self.buf.len(),
            None => floor(&self.buf, self.buf.len().saturating_sub(CLOSE.len() - 1)).max(from),
        };
        self.lead.ticks += memchr::memchr_iter(b'`', &self.buf.as_bytes()[from..to]).count();
        self.lead.scanned = to;
        if !word {
            let lo = floor(&self.buf, from.saturating_sub(OPEN.len() - 1));
            let opened = find_from(&self.buf[..to], OPEN, lo).is_some();
            if opened || to > START_REGION {
                return self.leave_lead();
            }
        }
        let Some(c) = hit else {
            return if self.finished {
                self.leave_lead()
            } else {
                false
            };
        };
        // In code: an inline span, a fence, an indented code block.
        if self.lead.ticks % 2 == 1 || self.indented_code_line(c).is_some() {
            return self.leave_lead();
        }
        if !word {
            let before = self.buf[..c].trim_end_matches([' ', '\t']);
            let starts_line = before.is_empty() || before.ends_with('\n');
            if !starts_line {
                match self.ends_line(c + CLOSE.len()) {
                    None => return false,
                    Some(false) => return self.leave_lead(),
                    Some(true) => {}
                }
            }
        }
        let body = if word { start + WORD.len() } else { 0 };
        let end = c + CLOSE.len();
        self.held.text(&self.buf[body..c]);
        self.held.end_block();
        if self.think_mode == Mode::Keep {
            let Machine {
                em, buf, consumed, ..
            } = self;
            em.text(&buf[..end], *consumed);
        } else {
            self.em.removed();
            self.em.reasoning_begin();
            let Machine { em, buf, .. } = self;
            em.reasoning(&buf[body..c]);
            self.em.reasoning_end();
        }
        self.drain(end);
        self.state = State::Visible;
        self.pos = 0;
        true
    }

    /// The start is not the channel: read the reply as the machine would have from its start.
    fn leave_lead(&mut self) -> bool {
        self.state = self.lead.after;
        self.pos = 0;
        true
    }
}
