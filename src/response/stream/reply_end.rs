//! What the machine decides when the reply ends (`finish`), gathered here: a reply cut by
//! `max_tokens` leaves a call half written, and what is left of it is told apart from prose only
//! once no more text can come. Each decision is asked at the reply's end (or once a block's next
//! bytes rule a wait out), never per delta, so it costs the reply's end and nothing before it.
//!
//! - a call marker cut mid-token (`<minimax:tool_c`): [`cut_marker`]; an end token or call
//!   section's begin token cut right after removed markup (`<|end|><|endo`):
//!   [`Machine::cut_after_removed`];
//! - a complete call cut inside its closer ([`super::cut_closer`]): [`Machine::ends_in_closer`],
//!   [`Machine::emit_cut_closer`];
//! - a bare DSML invoke that a section closer may still follow: [`Machine::dsml_trail_done`];
//! - DSML's `<function>` head and MiniMax-M3's headless fragment cut inside their parameters:
//!   [`Machine::dsml_function_cut`], [`Machine::m3_cut`];
//! - a call's opener with nothing of a call after it ([`crate::response::orphan`]'s lone
//!   openers): [`Machine::lone_at`];
//! - a call's opener with only the start of its body after it ([`cut_body`]), as a candidate
//!   of visible text ([`Machine::cut_call_at`], [`Machine::open_cut_call`]) or as a block that
//!   runs to the end and reads as nothing ([`Machine::emit_last_block`]), and so does Kimi K3's
//!   closing token cut inside its word (`<|close|>to`, [`crate::response::kimi_k3::cut_closer`]).

use serde_json::Value;

use super::{closers, cut_body, cut_closer, Machine, State, WINDOW};
use crate::response::{glm45, parse_family, tool_result, Family, Parsed};

/// Whether `rest`, the end of a reply and the start of a call marker, is clearly a cut marker
/// rather than prose ending in `<tool`: four characters or more, with the `|`, `｜`, `:`, `_` or `▁`
/// of a special token or a tag name (`<minimax:tool_c`, `<｜tool▁ca`, `<|tool_call`).
pub(super) fn cut_marker(rest: &str) -> bool {
    rest.chars().count() >= 4 && rest.contains(['|', '｜', ':', '_', '▁'])
}

/// Whether `t`, the end of a finished reply after a complete DSML call, is a section closer the
/// end cut (`</`, `</｜DSML｜tool_ca`, `</ | DSML | tool_ca`: any spelling).
fn cut_section_closer(t: &str) -> bool {
    t.len() < WINDOW && t.starts_with("</") && crate::response::dsml::head_prefix(&t[2..])
}

/// The problem reported for a marker cut by the reply's end (`raw`: what is left of it).
pub(super) fn cut_problem(raw: &str) -> String {
    format!("truncated: the reply ends inside the marker {raw:?}; removed")
}

impl Machine {
    /// Whether the finished reply ends, at candidate `c`, inside a lone token or a call section's
    /// begin token right after removed markup (only whitespace between): the end token run before
    /// it went ([`crate::response::orphan::cut_lone`]), and its cut rest goes with it.
    #[inline]
    pub(super) fn cut_after_removed(&self, c: usize) -> bool {
        self.finished
            && self.em.after_removed
            && self.buf[..c].trim().is_empty()
            && crate::response::orphan::cut_lone(&self.buf[c..])
    }

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
        let arriving = t.len() < WINDOW
            && ("</".starts_with(t)
                || t.starts_with("</") && crate::response::dsml::head_prefix(&t[2..]));
        match closer {
            // The closer: the scan asks there.
            Some(Some("function_calls")) => return None,
            // A section closer the reply's end cut (`</`, `</ | DSML | tool_ca`, any spelling):
            // the call before it is complete, the cut closer goes with it.
            _ if self.finished && cut_section_closer(t) => {
                let piece = t.to_owned();
                self.dsml_trail = None;
                let mut p = self.dsml_trail_reading(f, e, tools)?;
                let end = self.buf.len();
                p.blocks.last_mut()?.end = end;
                p.problems.push(cut_closer::message(
                    crate::response::dsml::SECTION_END,
                    &piece,
                ));
                return Some((end, p));
            }
            // Still arriving.
            _ if t.is_empty() || arriving => return None,
            _ => {}
        }
        // Anything else follows: the block ends at `e` if its reading says so.
        self.dsml_trail = None;
        self.dsml_trail_reading(f, e, tools).map(|p| (e, p))
    }

    /// The reading of the block `buf[..e]` with other text after it, when every block it reads
    /// ends by `e` (within the block's parse budget).
    fn dsml_trail_reading(&mut self, f: Family, e: usize, tools: Option<&Value>) -> Option<Parsed> {
        self.spent = self.spent.saturating_add(e);
        if self.spent > e.saturating_mul(16).saturating_add(1 << 20) {
            return None;
        }
        self.scratch.clear();
        self.scratch.push_str(&self.buf[..e]);
        self.scratch.push('\u{1}');
        let p = parse_family(f, &self.scratch, &self.ctx(tools));
        p.blocks.iter().all(|b| b.end <= e).then_some(p)
    }

    /// When `p`, the reading of the block that runs to the reply's end (or of a DSML block up to
    /// one of its closers), holds a block of calls with a json fence right after it and another
    /// block after that (a second DSML `toolcall` or reopened section after a result the model
    /// invented, [`super::invented`], [`crate::response::dsml_reopened`]): the block up to that
    /// call emitted, the rest left to the visible scanner, which reports the fence as it does
    /// after a last block. Each split reads again what was `read` of `buf`: within a budget of
    /// the reply's length, so a reply of many such blocks stays linear (past it, the fences stay
    /// text as before).
    pub(super) fn split_at_invented(
        &mut self,
        f: Family,
        p: &Parsed,
        read: usize,
        tools: Option<&Value>,
    ) -> bool {
        let Some((e, next)) = p.blocks.windows(2).find_map(|w| {
            let gap = self.buf.get(w[0].end..w[1].start)?;
            (!w[0].calls.is_empty() && super::code::opens_json_fence(gap))
                .then_some((w[0].end, w[1].start))
        }) else {
            return false;
        };
        let total = self.consumed + self.buf.len();
        self.split_spent = self.split_spent.saturating_add(read + e);
        if self.split_spent > total.saturating_mul(16).saturating_add(1 << 20) {
            return false;
        }
        let mut first = parse_family(f, &self.buf[..e], &self.ctx(tools));
        if f == Family::DeepSeekV32 {
            crate::response::deepseek_v32::reopened(&self.buf[next..], &mut first.problems);
        }
        if first.blocks.is_empty() || first.blocks.iter().any(|b| b.end > e) {
            return false;
        }
        self.emit_parsed(f, e, first);
        true
    }

    /// When `p`, the reading of the DSML block that runs to the reply's end, ends in a section
    /// left open with a json fence after its last invoke (a result the model invented, then the
    /// reply's end): the section emitted up to its last invoke closer, the fence left to the
    /// visible scanner, which reports it as it does after a closed section ([`super::invented`]).
    /// Read once, at the reply's end.
    fn end_before_fence(&mut self, f: Family, p: &Parsed, tools: Option<&Value>) -> bool {
        use crate::response::{dsml, xml_invoke};
        let end = self.buf.len();
        if f != Family::DeepSeekV32 || p.blocks.last().is_none_or(|b| b.end < end) {
            return false;
        }
        let c = dsml::canonical(&self.buf);
        const INVOKE_END: &str = "</｜DSML｜invoke>";
        let Some(k) = c
            .text
            .rfind(INVOKE_END)
            .map(|k| c.orig(k + INVOKE_END.len()))
        else {
            return false;
        };
        if k >= end || !super::code::opens_json_fence(&self.buf[k..]) {
            return false;
        }
        let first = parse_family(f, &self.buf[..k], &self.ctx(tools));
        let calls = |p: &Parsed| p.blocks.iter().map(|b| b.calls.len()).sum::<usize>();
        let section = dsml::SECTION_END;
        if first.blocks.iter().any(|b| b.end > k)
            || calls(&first) != calls(p)
            || !first
                .problems
                .contains(&xml_invoke::missing("deepseek_v32", section))
        {
            return false;
        }
        self.emit_parsed(f, k, first);
        true
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

    /// Whether the `<function>` head ending at `after` is closed, before the next head, by an
    /// invoke closer in a spelling [`closers`] leaves out (`</ | DSML | invoke>`), read at the end
    /// of the reply ([`crate::response::dsml_function::closed`]; each head reads up to the next).
    pub(super) fn dsml_function_closed(&mut self, after: usize) -> bool {
        let hi =
            (self.later_at(crate::response::dsml_function::OPEN, after)).unwrap_or(self.buf.len());
        crate::response::dsml_function::closed(&self.buf[after..hi])
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
        if s == tool_result::OPEN {
            return self.tool_result_at(c, after);
        }
        let r = &self.buf[after..];
        let t = r.trim_start();
        if !t.is_empty() && (r.len() == t.len() || !t.starts_with('<')) {
            // Something written right after it (`<function=`, `<tool_call>{`), or a call's body
            // after spaces (`<tool_call>\n{`): not lone. Told first: every call opens so.
            return Some(None);
        }
        let hinted = crate::response::orphan::lone_writer(s, self.hint);
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
        if again && s.starts_with(t) {
            // The same opener still arriving, or cut by the reply's end (removed as a cut marker
            // when it says so, [`cut_marker`]). A `<` that may start the call's body as well
            // (`<tool_call>\n<`) is the cut call's ([`cut_body`]) where the opener is a call's marker.
            return if !self.finished {
                None
            } else if cut_body::cut_call(&self.buf[c..]).is_some() && self.opens_calls(s) {
                Some(None)
            } else {
                Some(placed.then_some(s.len()))
            };
        }
        Some(None)
    }

    /// Whether `s` is a call opener the machine reads here (a marker of the locked family, or of
    /// any without a lock).
    fn opens_calls(&self, s: &str) -> bool {
        (self.table.lits.iter()).any(|l| l.s == s && matches!(l.kind, super::Kind::Call(_)))
    }

    /// Whether the text right before candidate `c` is visible text or removed markup (a call
    /// read before it) with no space before `c`.
    fn glued(&self, c: usize) -> bool {
        match self.buf[..c].chars().next_back() {
            Some(ch) => !ch.is_whitespace(),
            // Trailing whitespace held back counts, written or (the addon's way) only spanned.
            None => self.em.held_is_empty() && (self.em.any_visible || self.em.after_removed),
        }
    }

    /// At the finished reply's end, the call the opener at candidate `c` starts and the reply
    /// ends inside ([`cut_body`]): how much to remove, and whether that is all the rest. Asked
    /// once per opener still undecided at the end, reading a window after it: linear.
    pub(super) fn cut_call_at(&mut self, c: usize, tools: Option<&Value>) -> Option<(usize, bool)> {
        let cut = cut_body::cut_call(&self.buf[c..])?;
        if cut.empty && !(self.at_line_start(c) || self.glued(c)) {
            return None;
        }
        // An opener named in a sentence (`用 <|tool_call_begin|> 包起来`) starts no call.
        let words = self.words_before(c);
        let example = c == 0 && self.example_tail.introduces();
        let rest = &self.buf[c..];
        // A name or id cut by the reply's end right after the opener (`<|tool_call_begin|>
        // functions.get_`) is the call's, cut.
        let tail = rest.get(cut.opener.len()..).unwrap_or("").trim_start();
        let cut_name = !tail.is_empty()
            && tail
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
        let spaced = self.spaced_words_before(c);
        let named = crate::response::call_in_sentence::in_sentence(
            cut.opener, rest, words, spaced, example, tools, true,
        );
        if named == Some(true) && !cut_name {
            return None;
        }
        self.ends_inside(&cut, c).then_some((cut.len, cut.whole))
    }

    /// Whether the reply ends inside `cut`, found at `c`: no closer of it comes later (each
    /// search remembered per closer, [`Machine::later`], so many openers stay linear).
    fn ends_inside(&mut self, cut: &cut_body::Cut, c: usize) -> bool {
        let after = c + cut.opener.len();
        !cut.past || !cut.closers().any(|cl| self.later(cl, after))
    }

    /// The `len` bytes at the start of `buf` found by [`Machine::cut_call_at`]: removed, and
    /// reported when they are the cut call (a wrapper's opener goes silently; the call in it is
    /// read and reported on its own).
    pub(super) fn open_cut_call(&mut self, len: usize, whole: bool) {
        if whole {
            self.report_cut_call(len);
        }
        self.em.removed();
        self.drain(len);
    }

    /// The `truncated` problem of the cut call `buf[..len]`, its raw text kept.
    fn report_cut_call(&mut self, len: usize) {
        self.em.call_block_seen = true;
        self.em.problems.push(format!(
            "truncated: the reply ends inside a call's start (its opener and the first bytes of \
             its body); removed from content, raw text: {}",
            &self.buf[..len]
        ));
    }

    /// The block at the start of `buf`, which runs to the end of the finished reply: emitted as
    /// its family reads it, or, when that reading leaves it all text and it is a cut call's
    /// start ([`cut_body`]), removed and reported.
    pub(super) fn emit_last_block(&mut self, f: Family, tools: Option<&Value>) {
        let end = self.buf.len();
        let p = parse_family(f, &self.buf[..end], &self.ctx(tools));
        if self.split_at_invented(f, &p, end, tools) || self.end_before_fence(f, &p, tools) {
            return;
        }
        let mut p = p;
        if f == Family::DeepSeekV32 {
            // A section closer cut after the last call, in a spelling the block's scan does not
            // stop at (`</ | DSML | tool_ca` after `</ | DSML | invoke>`): it goes with the call.
            let tail = p.blocks.last().map_or(end, |b| b.end.min(end));
            let t = self.buf[tail..].trim_start();
            if tail < end && cut_section_closer(t) {
                let piece = t.to_owned();
                if let Some(b) = p.blocks.last_mut().filter(|b| !b.calls.is_empty()) {
                    b.end = end;
                    let closer = crate::response::dsml::SECTION_END;
                    p.problems.push(cut_closer::message(closer, &piece));
                }
            }
        }
        // What the reading leaves as text after its last block (all of it when none).
        let tail = p.blocks.last().map_or(0, |b| b.end.min(end));
        let mut at = end - self.buf[tail..].trim_start().len();
        // In a `<tool_calls>` wrapper after a call read, a named element with a string body
        // (removed whole, [`crate::response::named_tool_call`]) is a cut call too.
        let wrapped_call = f == Family::NamedToolCall
            && self
                .buf
                .starts_with(crate::response::named_tool_call::WRAP_OPEN)
            && p.blocks.iter().any(|b| !b.calls.is_empty());
        let mut cut = cut_body::cut_call(&self.buf[at..])
            .or_else(|| wrapped_call.then(|| cut_body::cut_after_call(&self.buf[at..]))?)
            .is_some_and(|cut| self.ends_inside(&cut, at));
        // Kimi K3's closing token cut inside its word (`<|close|>to`), glued to what is before.
        if !cut && f == Family::KimiK3 {
            let close = crate::response::kimi_k3::CLOSE;
            if let Some(k) = self.buf[tail..].rfind(close).map(|k| tail + k) {
                if crate::response::kimi_k3::cut_closer(&self.buf[k..]) && self.glued(k) {
                    (at, cut) = (k, true);
                }
                // Its reasoning closer cut (`<|close|>`, `<|close|>think<|s`), glued or on its
                // own line (R1 style: what came before was reasoning).
                let rest = &self.buf[k..];
                if !cut
                    && self.think_mode != crate::response::Mode::Keep
                    && crate::response::thinking::cut_closer_shows_token(rest)
                    && (self.glued(k) || self.at_line_start(k))
                {
                    (at, cut) = (k, true);
                }
            }
        }
        if cut {
            if at > 0 {
                self.emit_parsed(f, at, p);
            } else {
                self.state = State::Visible;
                self.pos = 0;
            }
            self.report_cut_call(end - at);
            self.em.removed();
            self.drain(end - at);
            return;
        }
        if tail > 0 && tail < end {
            // What the reading leaves after its last block is scanned as any visible text is
            // (an invented result's fence after the call, [`super::invented`]).
            self.emit_parsed(f, tail, p);
            return;
        }
        self.emit_parsed(f, end, p);
    }
}
