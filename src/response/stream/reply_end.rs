//! What the machine decides when the reply ends (`finish`), gathered here: a reply cut by
//! `max_tokens` leaves a call half written, and what is left of it is told apart from prose only
//! once no more text can come. Each decision is asked at the reply's end (or once a block's next
//! bytes rule a wait out), never per delta, so it costs the reply's end and nothing before it.
//!
//! - a call marker cut mid-token (`<minimax:tool_c`): [`cut_marker`];
//! - a complete call cut inside its closer ([`super::cut_closer`]): [`Machine::ends_in_closer`],
//!   [`Machine::emit_cut_closer`];
//! - a bare DSML invoke that a section closer may still follow: [`Machine::dsml_trail_done`];
//! - DSML's `<function>` head and MiniMax-M3's headless fragment cut inside their parameters:
//!   [`Machine::dsml_function_cut`], [`Machine::m3_cut`];
//! - a call's opener with nothing of a call after it ([`crate::response::orphan`]'s lone
//!   openers): [`Machine::lone_at`].

use serde_json::Value;

use super::{closers, cut_closer, Machine, State, WINDOW};
use crate::response::{glm45, parse_family, Family, Parsed};

/// Whether `rest`, the end of a reply and the start of a call marker, is clearly a cut marker
/// rather than prose ending in `<tool`: four characters or more, with the `|`, `｜`, `:`, `_` or `▁`
/// of a special token or a tag name (`<minimax:tool_c`, `<｜tool▁ca`, `<|tool_call`).
pub(super) fn cut_marker(rest: &str) -> bool {
    rest.chars().count() >= 4 && rest.contains(['|', '｜', ':', '_', '▁'])
}

impl Machine {
    /// Whether the finished reply ends inside a closer of `f` after the opener that ends at
    /// `after`, the call before it whole ([`cut_closer`]): the opener is a call's.
    pub(super) fn ends_in_closer(
        &mut self,
        f: Family,
        after: usize,
        tools: Option<&Value>,
    ) -> bool {
        let Some(cut) = cut_closer::cut_at(&self.buf[after..], closers(f)) else {
            return false;
        };
        if std::mem::replace(&mut self.cut_asked, true) {
            return false;
        }
        let cx = self.ctx(tools);
        cut_closer::complete(f, &self.buf, after + cut, closers(f), &cx).is_some()
    }

    /// The block, at the end of the finished reply, cut inside its closer at `cut`: emitted with
    /// the closer completed when that reads as a whole call ([`cut_closer`]); `false` otherwise.
    pub(super) fn emit_cut_closer(&mut self, f: Family, cut: usize, tools: Option<&Value>) -> bool {
        let cx = self.ctx(tools);
        let Some((text, p)) = cut_closer::complete(f, &self.buf, cut, closers(f), &cx) else {
            return false;
        };
        self.em.parsed(&text, self.consumed, p, f);
        self.drain(self.buf.len());
        self.state = State::Visible;
        self.pos = 0;
        true
    }

    /// The DSML block waiting at [`Machine::dsml_trail`], read as ending there (its end and
    /// reading) once the text after its whitespace shows no section closer comes (`None`: not
    /// known yet, or not finished there). The whitespace is read once over the deltas.
    pub(super) fn dsml_trail_done(
        &mut self,
        f: Family,
        tools: Option<&Value>,
    ) -> Option<(usize, Parsed)> {
        let (e, from) = self.dsml_trail?;
        let rest = self.buf.get(from..)?;
        let t = rest.trim_start();
        let at = self.buf.len() - t.len();
        self.dsml_trail = Some((e, at));
        let closer = t
            .strip_prefix("</")
            .map(|h| crate::response::dsml::head(h).map(|(_, n)| n));
        match closer {
            // The closer: the scan asks there.
            Some(Some("function_calls")) => return None,
            // Still arriving.
            _ if t.is_empty()
                || (t.len() < WINDOW
                    && ("</".starts_with(t)
                        || t.starts_with("</") && crate::response::dsml::head_prefix(&t[2..]))) =>
            {
                return None
            }
            _ => {}
        }
        // Anything else follows: the block ends at `e` if its reading says so.
        self.dsml_trail = None;
        self.spent = self.spent.saturating_add(e);
        if self.spent > e.saturating_mul(16).saturating_add(1 << 20) {
            return None;
        }
        self.scratch.clear();
        self.scratch.push_str(&self.buf[..e]);
        self.scratch.push('\u{1}');
        let p = parse_family(f, &self.scratch, &self.ctx(tools));
        p.blocks.iter().all(|b| b.end <= e).then_some((e, p))
    }

    /// Whether the current block opens with a DSML call that has no section around it: an
    /// invoke, or a `<function>` head ([`crate::response::dsml_function`]).
    pub(super) fn bare_dsml_call(&self) -> bool {
        self.buf.starts_with(crate::response::dsml_function::OPEN)
            || (self.buf.get(1..))
                .and_then(crate::response::dsml::head)
                .is_some_and(|(_, n)| n == "invoke")
    }

    /// Whether the `<function>` head ending at `after` is the finished reply's last one, cut
    /// inside its parameters ([`crate::response::dsml_function::cut`]).
    pub(super) fn dsml_function_cut(&self, after: usize, tools: Option<&Value>) -> bool {
        let rest = &self.buf[after..];
        match crate::response::dsml_function::head(rest, true) {
            Some(Some((name, len))) => {
                crate::response::dsml_function::cut(&rest[len..], name, &self.ctx(tools))
            }
            _ => false,
        }
    }

    /// Whether the headless MiniMax-M3 fragment whose first token starts at `at` was cut by the
    /// end of the finished reply ([`crate::response::minimax_m3::cut_fragment`]; what the
    /// reply's end says is read once, so many candidates stay linear).
    pub(super) fn m3_cut(&mut self, at: usize) -> bool {
        if crate::response::minimax_m3::quoted_before(&self.buf[..at]) {
            return false;
        }
        *self
            .m3_tail
            .get_or_insert_with(|| crate::response::minimax_m3::cut_fragment(&self.buf))
    }

    /// One of [`crate::response::orphan::LONE`] (`s`) or an orphan GLM argument pair at
    /// candidate `c`: the length of the leftover to remove, when it is one
    /// ([`crate::response::orphan`]'s rules); `Some(None)`: text; `None`: not known before more
    /// text comes.
    pub(super) fn lone_at(&mut self, c: usize, s: &str) -> Option<Option<usize>> {
        let after = c + s.len();
        if s == glm45::KEY {
            return self.orphan_pair_at(c, after);
        }
        let r = &self.buf[after..];
        let t = r.trim_start();
        if !t.is_empty() && (r.len() == t.len() || !t.starts_with('<')) {
            // Something written right after it (`<function=`, `<tool_call>{`), or a call's body
            // after spaces (`<tool_call>\n{`): not lone. Told first: every call opens so.
            return Some(None);
        }
        let hinted = matches!(self.hint, Some(Family::Hermes | Family::Qwen3Coder));
        let placed = self.at_line_start(c) || self.glued(c);
        if t.is_empty() {
            if !self.finished {
                return None;
            }
            return Some((placed || hinted).then_some(s.len()));
        }
        // The same opener again on a later line.
        let again = r[..r.len() - t.len()].contains('\n');
        if again && t.starts_with(s) {
            return Some(placed.then_some(s.len()));
        }
        if again && !self.finished && s.starts_with(t) {
            return None;
        }
        Some(None)
    }

    /// Whether the text right before candidate `c` is visible text with no space before `c`.
    fn glued(&self, c: usize) -> bool {
        match self.buf[..c].chars().next_back() {
            Some(ch) => !ch.is_whitespace(),
            None => self.em.held.is_empty() && self.em.any_visible,
        }
    }
}
