//! The prompt echo on a reply that is still arriving (OpenClaw 2026.9.6's
//! `createVerifiedConversationContextStreamFilter`, which a delivery stream calls per chunk).
//!
//! OpenClaw's filter releases whatever its streaming call leaves, so text it has released can
//! later turn out to be the start of a copy of the prompt; it then stops releasing anything for
//! the rest of the reply. Here the contract is the one every stream of this package keeps: for any
//! chunking, the released pieces concatenate to [`PromptEcho::strip`] of the whole reply. To keep
//! it, only what could still become part of a copy is held back, and the decision uses the one
//! whole-text rule ([`PromptEcho::copies`]) on the held text:
//!
//! - lines that already read as the start of a copy (a line ending with the prompt's first line,
//!   then lines equal to the prompt's next lines up to their Markdown wrappers), with the line
//!   being written: at most as many lines as the prompt has;
//! - otherwise the end of the line being written that is a start of the prompt's first line,
//!   with the Markdown wrapper before it when only a wrapper stands between it and the line start;
//! - a trailing `\r` (it and a following `\n` are one line break).
//!
//! Each push costs the delta plus the held text, and the held text is re-read only when what
//! arrives can change the decision (a line break while whole lines are held), so a stream costs
//! linear time in its length for a given prompt.

use super::{
    begun, caret_before, failure, key, split_lines, starts_line, PromptEcho, WRAPPER_BYTES,
};

/// What can change the last decision (so a push that brings nothing else is only kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// Any text.
    Anything,
    /// Whole lines read as a begun copy: only a line break decides more.
    LineBreak,
    /// Only a Markdown wrapper is held, from a line start: a line break or another byte.
    NonWrapperByte,
}

/// One reply being streamed past the prompt echo: [`EchoStream::push`] each delta, then
/// [`EchoStream::finish`]; the returned pieces concatenate to [`PromptEcho::strip`] of the whole.
///
/// ```
/// use transcript_hygiene::scrub::visible::prompt_echo::{stream::EchoStream, PromptEcho};
/// let prompt = "[Current message - respond to this]\n北京天气怎么样？";
/// let mut s = EchoStream::new(PromptEcho::prepare(prompt));
/// let mut out = String::new();
/// for d in ["[Current message - re", "spond to this]\n北京天", "气怎么样？\n北京今天晴。"] {
///     out += &s.push(d).unwrap();
/// }
/// out += &s.finish().unwrap();
/// assert_eq!(out, "\n北京今天晴。");
/// ```
#[derive(Debug)]
pub struct EchoStream {
    echo: Option<PromptEcho>,
    /// KMP failure table of the prompt's first line.
    fail: Vec<usize>,
    /// The text not released yet.
    held: String,
    /// Whether `held` begins a line of the reply.
    at_line_start: bool,
    wait: Wait,
    finished: bool,
}

/// The error of a push or finish after [`EchoStream::finish`].
pub const FINISHED: &str =
    "the stream is finished; push() and finish() cannot be called after finish()";

impl EchoStream {
    /// A stream for the prompt `echo` ([`PromptEcho::prepare`]); `None` releases every delta as
    /// it comes (a prompt without chat context).
    pub fn new(echo: Option<PromptEcho>) -> EchoStream {
        let fail = echo.as_ref().map_or_else(Vec::new, |e| failure(e.line(0)));
        EchoStream {
            echo,
            fail,
            held: String::new(),
            at_line_start: true,
            wait: Wait::Anything,
            finished: false,
        }
    }

    /// Feeds one delta; returns the text that can no longer be part of a copy.
    pub fn push(&mut self, delta: &str) -> Result<String, &'static str> {
        if self.finished {
            return Err(FINISHED);
        }
        if self.echo.is_none() {
            return Ok(delta.to_string());
        }
        self.held.push_str(delta);
        let d = delta.as_bytes();
        let unchanged = match self.wait {
            Wait::Anything => false,
            Wait::LineBreak => memchr::memchr2(b'\n', b'\r', d).is_none(),
            Wait::NonWrapperByte => d.iter().all(|c| WRAPPER_BYTES.contains(c)),
        };
        if unchanged {
            return Ok(String::new());
        }
        Ok(self.decide())
    }

    /// Ends the reply: everything held, without the copies it completes.
    pub fn finish(&mut self) -> Result<String, &'static str> {
        if self.finished {
            return Err(FINISHED);
        }
        self.finished = true;
        let held = std::mem::take(&mut self.held);
        Ok(match &self.echo {
            Some(echo) => without(&held, &echo.copies(held.as_bytes(), self.at_line_start)),
            None => held,
        })
    }

    /// Releases what is decided: the held text up to where a copy could still begin, without the
    /// copies found whole before it.
    fn decide(&mut self) -> String {
        let Some(echo) = &self.echo else {
            return std::mem::take(&mut self.held);
        };
        let b = self.held.as_bytes();
        let n = b.len() - usize::from(b.last() == Some(&b'\r'));
        let t = &b[..n];
        let mut cuts = echo.copies(t, self.at_line_start);
        let first = echo.line(0);
        let k = echo.lines.len() - 1;
        let start =
            |s: usize, floor: usize| caret_before(t, s, floor, self.at_line_start).unwrap_or(s);
        let mut wait = Wait::Anything;
        let hold = if k == 0 {
            // A copy found is whole; one may have begun at the end.
            let e = cuts.last().map_or(0, |c| c.end);
            let from = e.max(n.saturating_sub(first.len() - 1));
            start(n - begun(&t[from..], first, &self.fail), e)
        } else {
            // A copy whose last line is the one being written may still grow.
            let rows = split_lines(t);
            let last = rows.len() - 1;
            cuts.retain(|c| c.end <= rows[last].start);
            let e = cuts.last().map_or(0, |c| c.end);
            let lines = (last.saturating_sub(k)..last).find_map(|j| {
                let row = &t[rows[j].clone()];
                let s = rows[j].end.checked_sub(first.len())?;
                let middles =
                    || (j + 1..last).all(|r| key(&t[rows[r].clone()]) == key(echo.line(r - j)));
                (row.ends_with(first) && s >= e && middles()).then_some(s)
            });
            match lines {
                Some(s) => {
                    wait = Wait::LineBreak;
                    start(s, e)
                }
                None => {
                    let from = rows[last].start.max(e).max(n.saturating_sub(first.len()));
                    start(n - begun(&t[from..], first, &self.fail), e)
                }
            }
        };
        let out = without(&self.held[..hold], &cuts);
        if hold > 0 {
            self.at_line_start = starts_line(b, hold, self.at_line_start);
        }
        self.held.drain(..hold);
        if wait == Wait::Anything
            && self.at_line_start
            && self.held.bytes().all(|c| WRAPPER_BYTES.contains(&c))
        {
            wait = Wait::NonWrapperByte;
        }
        self.wait = wait;
        out
    }
}

/// `text` without the byte ranges `cuts` (sorted, not overlapping, inside `text`).
fn without(text: &str, cuts: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for c in cuts {
        out.push_str(&text[kept..c.start]);
        kept = c.end;
    }
    out.push_str(&text[kept..]);
    out
}

#[cfg(test)]
mod tests;
