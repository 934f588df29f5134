//! Calls written inside reasoning. Kimi-K2-Thinking and some Qwen3 builds put their whole call
//! block inside `<think>…</think>` and nothing after it: the call is real, and a reply that drops
//! it leaves the agent waiting. Other models write calls in their reasoning only to consider them
//! and make the real call after it. So:
//!
//! - when a call block exists outside reasoning (read or not), calls inside reasoning are
//!   reasoning text, never run;
//! - when none does and a reasoning block holds a **complete** call block (its closing marker
//!   written, read as the visible-text scanner reads it: code spans and example fences inside the
//!   reasoning stay text; a Kimi section whose end token alone was cut holds whole calls, and its
//!   cut is reported with them, [`kimi_k2::SECTION_END_CUT`]), its calls are returned, reported
//!   as `call-in-reasoning` — when `tools` are offered, only calls naming one of them (an example
//!   the model considers names none);
//! - the reasoning text keeps the block as written: a reader of the reasoning sees what the model
//!   thought, and the reasoning can stream as it comes.
//!
//! The decision needs the whole reply (a call outside may come after the reasoning), so the calls
//! come at `finish`; nothing else is held back. The reasoning's raw text is kept until then (only
//! when calls are extracted), and read once, by a fresh [`Machine`]: linear in the reasoning.

use serde_json::Value;

use super::Machine;
use crate::response::{call_id, kimi_k2, mistral, problem, scan, Family, Mode, Options, RawCall};

/// The raw text of each reasoning block.
#[derive(Debug, Default)]
pub(super) struct Held {
    /// The options the reasoning is read with (`None`: calls are not extracted, nothing kept).
    opts: Option<Box<Options>>,
    current: String,
    blocks: Vec<String>,
}

impl Held {
    /// What a machine with `opts` keeps: nothing unless it extracts calls.
    pub(super) fn new(opts: &Options, calls_on: bool) -> Held {
        let on = calls_on && opts.tool_calls == Mode::Extract;
        Held {
            opts: on.then(|| {
                Box::new(Options {
                    format: opts.format.clone(),
                    model: opts.model.clone(),
                    tool_calls: Mode::Extract,
                    thinking: Mode::Keep,
                    reasoning_open: Some(false),
                    ..Options::default()
                })
            }),
            ..Held::default()
        }
    }

    /// `s` is raw reasoning text of the current block.
    pub(super) fn text(&mut self, s: &str) {
        if self.opts.is_some() {
            self.current.push_str(s);
        }
    }

    /// The current reasoning block ended.
    pub(super) fn end_block(&mut self) {
        if !self.current.is_empty() {
            self.blocks.push(std::mem::take(&mut self.current));
        }
    }
}

impl Machine {
    /// At `finish`: the calls of the reasoning's complete call blocks, when no call was met
    /// outside reasoning.
    pub(super) fn calls_from_reasoning(&mut self, tools: Option<&Value>) {
        self.held.end_block();
        if self.em.call_block_seen {
            return;
        }
        let Some(opts) = self.held.opts.take() else {
            return;
        };
        let mut found: Vec<(Option<Family>, Vec<RawCall>)> = Vec::new();
        let mut cuts = 0;
        for text in std::mem::take(&mut self.held.blocks) {
            // Reasoning with no `<` or `[` holds no call marker: one `memchr2` pass.
            if !scan::may_hold_markers(&text) {
                continue;
            }
            let mut m = Machine::with_r1(&opts, false);
            // Reasoning inside reasoning is not read again.
            m.held = Held::default();
            let (Ok(first), Ok(end)) = (m.push(&text, tools), m.finish(tools)) else {
                continue;
            };
            // A Kimi section whose end token alone was cut, or any block cut inside its closer
            // ([`super::cut_closer`]), holds whole calls: complete, its cut reported with them.
            let cut = |m: &String| m == kimi_k2::SECTION_END_CUT || super::cut_closer::is_cut(m);
            let incomplete = end
                .problems
                .iter()
                .any(|m| !cut(m) && matches!(problem::kind(m), "truncated" | "unreadable-block"));
            if incomplete {
                continue;
            }
            let offered = offered(tools);
            let calls = first
                .tool_calls
                .into_iter()
                .chain(end.chunk.tool_calls)
                .filter(|t| offered.as_ref().is_none_or(|o| o.contains(&t.name())));
            let raw = calls
                .enumerate()
                .map(|(j, t)| {
                    // The model's own id (Kimi's `functions.f:0`) is kept; a generated one is
                    // generated again for the call's place in the whole reply.
                    let (id, name, arguments) = (t.id(), t.name(), t.arguments());
                    let own = id != call_id(j, name, arguments)
                        && id != mistral::call_id(j, name, arguments);
                    RawCall {
                        id: own.then(|| id.to_owned()),
                        name: name.to_owned(),
                        arguments: arguments.to_owned(),
                    }
                })
                .collect::<Vec<_>>();
            if !raw.is_empty() {
                cuts += end.problems.iter().filter(|m| cut(m)).count();
                found.push((m.lock, raw));
            }
        }
        let n: usize = found.iter().map(|(_, c)| c.len()).sum();
        if n == 0 {
            return;
        }
        self.em.problems.push(format!(
            "call-in-reasoning: {n} call(s) read from reasoning, none was written outside it"
        ));
        for _ in 0..cuts {
            self.em.problems.push(kimi_k2::SECTION_END_CUT.to_owned());
        }
        for (family, calls) in found {
            self.em.calls(calls, family.unwrap_or(Family::Hermes));
        }
    }
}

/// The names of the offered tools (`None`: no tools given, any name goes).
fn offered(tools: Option<&Value>) -> Option<Vec<&str>> {
    let list = tools?.as_array().filter(|a| !a.is_empty())?;
    Some(
        list.iter()
            .filter_map(|t| t.get("function").unwrap_or(t).get("name")?.as_str())
            .collect(),
    )
}
