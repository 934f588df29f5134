//! The stream machine's reading of a pythonic call of an offered tool that starts its line
//! ([`crate::response::offered_pythonic`]): `NAME(…)`, found at its `(` (a candidate byte once
//! tools are offered), or `[NAME(…)]`, at its `[`. The line (or the lines of a call whose first
//! line ends open, [`offered_pythonic::span`]) is read once it is complete (or the reply ends);
//! until then the stream holds it from the name or the `[` (held text is asked again only as
//! [`Machine::recheck`] allows, so a long line stays linear).

use serde_json::Value;

use super::{Check, Decision, Kind, Machine};
use crate::response::{named_json, offered_pythonic, Family};

impl Machine {
    /// Where a pythonic line whose `(` or `[` is at `c` starts: its name before a `(`, or `c`.
    #[inline]
    fn line_head(&self, c: usize, tools: Option<&Value>) -> Option<usize> {
        if !(self.braces && self.has_tools) {
            return None;
        }
        let start = match self.buf.as_bytes().get(c)? {
            b'(' => named_json::name_before(&self.buf[..c], tools)?,
            b'[' => c,
            _ => return None,
        };
        self.at_line_start(start).then_some(start)
    }

    /// Where the text held for a pythonic line at candidate `c` starts (`c` when none).
    pub(super) fn offered_line_start(&self, c: usize, tools: Option<&Value>) -> usize {
        self.line_head(c, tools).unwrap_or(c)
    }

    /// What starts at candidate `c` when it is a pythonic line's `(` or `[`; `None`: not that,
    /// decide as usual.
    pub(super) fn decide_offered_line(
        &mut self,
        c: usize,
        tools: Option<&Value>,
    ) -> Option<Decision> {
        let start = self.line_head(c, tools)?;
        let rest = &self.buf[start..];

        if self.buf.as_bytes()[c] == b'[' {
            // Only a word that is (or may still become) an offered name after the `[`.
            let word = rest[1..].trim_start();
            let n = word
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                .count();
            let (name, after) = word.split_at(n);
            let grows = after.is_empty() && !self.finished;
            let named = if grows {
                crate::response::bare_json::names(tools).any(|t| t.starts_with(name))
            } else {
                crate::response::bare_json::offered(tools, name)
            };
            if !named {
                return None;
            }
        }
        let line = match offered_pythonic::span(rest, self.finished) {
            Some(Some(k)) => &rest[..k],
            Some(None) => return None,
            None => return Some(Decision::More),
        };
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (calls, len) = offered_pythonic::read_line(line, tools)?;
        let q = self.consumed + start;
        self.json.fixed = Some((q, len));
        self.json.parsed = Some(offered_pythonic::parsed(calls, len));
        // Python text chooses no family: other calls of the reply are read as before.
        self.json.unchosen = Some(q);
        Some(Decision::Yes {
            start,
            len,
            kind: Kind::Call(Check::Fam(Family::Pythonic)),
        })
    }
}
