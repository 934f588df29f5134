//! Mistral's `[TOOL_CALLS]` call of a tool that is not offered, under `format: 'tool_json'`.
//! That format reads calls of the offered tools only (Mistral's head around an offered name goes
//! with its call, [`crate::response::named_json`]); a call of any other tool stayed in front of
//! the user as `[TOOL_CALLS]rm_rf[ARGS]{…}`, the special token and all. The token is the model's
//! own markup whatever the name (`auto` and `mistral` read the same text as a call), so the call
//! is removed and reported (`skipped-call`, its raw text kept), not returned: the caller named
//! the tools it runs. Only the named forms (`NAME{…}`, `NAME[ARGS]{…}`,
//! `NAME[CALL_ID]ID[ARGS]{…}`, [`mistral::named_head`]), once the object is complete; an abandoned
//! head (`NAME[CALL_ID]ID` ending its line) goes as Mistral's parser reports it; cut by the end
//! of the reply inside its object, it goes to the end (`truncated`), and cut before its `{` the
//! cut-call rule takes it ([`super::cut_body`]). The JSON forms (`[TOOL_CALLS][{"name": …,
//! "arguments": {…}}, …]`, or one such object) go by the same rule, the value as one block: the
//! offered items' calls returned, each other item reported (a mixed array loses neither); cut by
//! the end of the reply, removed to the end (`truncated`). The token named in
//! a sentence (`以 [TOOL_CALLS] 开头`), in inline code or a fence is no call's head and stays, as
//! does the array without the token (a JSON sample).

use serde_json::Value;

use super::{Machine, Verdict, WINDOW};
use crate::response::mistral::{self, Follows};
use crate::response::{bare_json, json_calls, scan, Family, Parsed, RawCall};

impl Machine {
    /// Whether the `[TOOL_CALLS]` ending at `after` (under `tool_json`) heads a call of a tool
    /// not offered: then the whole call is one block, read already (no call, reported).
    pub(super) fn check_unoffered_mistral(
        &mut self,
        after: usize,
        tools: Option<&Value>,
    ) -> Verdict {
        let fin = self.finished;
        let rest = &self.buf[after..];
        let full = fin || rest.len() >= WINDOW;
        let start = after - mistral::TOKEN.len();
        let len = match mistral::follows(rest, fin) {
            Some(Follows::Calls) => {
                let Some((name, at)) = mistral::named_head(rest) else {
                    let at = rest.len() - rest.trim_start().len();
                    if rest[at..].starts_with(['[', '{']) {
                        return self.unoffered_json(start, after, at, tools);
                    }
                    // A head still arriving waits.
                    return if full { Verdict::No } else { Verdict::More };
                };
                if bare_json::offered(tools, name) {
                    return Verdict::No;
                }
                let (end, what) = match scan::balanced_end(rest, at, false) {
                    Some(end) => (end, SKIPPED),
                    // Cut by the end of the reply inside its arguments.
                    None if fin => (rest.len(), CUT),
                    None => return Verdict::More,
                };
                let raw = &self.buf[start..after + end];
                let problem = unoffered(what, name, raw);
                self.json.parsed = Some(one_block(raw.len(), Vec::new(), vec![problem]));
                raw.len()
            }
            Some(Follows::Abandoned(n)) => {
                let name = rest.trim_start();
                let name = &name[..name.find('[').unwrap_or(name.len())];
                if bare_json::offered(tools, name.trim_end()) {
                    return Verdict::No;
                }
                mistral::TOKEN.len() + n
            }
            Some(Follows::No) if full => return Verdict::No,
            _ if full => return Verdict::No,
            _ => return Verdict::More,
        };
        self.json.fixed = Some((self.consumed + start, len));
        Verdict::Yes(Family::Mistral)
    }

    /// The JSON forms after the `[TOOL_CALLS]` at `start` (its end at `after`; the `[` or `{` at
    /// `after + at`): `[{"name": …, "arguments": {…}}, …]` or one such object. When every item
    /// is a call object, the whole value is one block, the token with it: the offered items'
    /// calls returned, each other item reported as [`Machine::check_unoffered_mistral`] reports
    /// a named call (before, the token stayed in front of the user even when every name was
    /// offered). An item that is no call object: `tool_json`'s own reading. Cut by the end of the
    /// reply: removed to the end (`truncated`).
    fn unoffered_json(
        &mut self,
        start: usize,
        after: usize,
        at: usize,
        tools: Option<&Value>,
    ) -> Verdict {
        let rest = &self.buf[after..];
        let Some(end) = scan::balanced_end(rest, at, false) else {
            if !self.finished {
                return Verdict::More;
            }
            let raw = &self.buf[start..];
            let problem = format!("{CUT} list; removed from content, raw text: {raw}");
            self.json.parsed = Some(one_block(raw.len(), Vec::new(), vec![problem]));
            return self.fixed(start, raw.len());
        };
        let items = match serde_json::from_str::<Value>(&rest[at..end]) {
            Ok(Value::Array(items)) => items,
            Ok(v @ Value::Object(_)) => vec![v],
            _ => return Verdict::No,
        };
        let name_of = |i: &Value| {
            let o = i
                .as_object()
                .filter(|o| json_calls::is_call_object(o, None))?;
            o.get("name").and_then(Value::as_str).map(str::to_owned)
        };
        let Some(names) = items.iter().map(name_of).collect::<Option<Vec<_>>>() else {
            return Verdict::No;
        };
        if names.is_empty() {
            return Verdict::No;
        }
        let (mut calls, mut problems) = (Vec::new(), Vec::new());
        for (item, name) in items.into_iter().zip(&names) {
            if bare_json::offered(tools, name) {
                calls.extend(json_calls::call_from_value(
                    item,
                    "mistral",
                    None,
                    &mut problems,
                ));
            } else {
                problems.push(unoffered(SKIPPED, name, &item.to_string()));
            }
        }
        let len = after + end - start;
        self.json.parsed = Some(one_block(len, calls, problems));
        self.fixed(start, len)
    }

    /// The block `start..start + len` of `buf`, read already ([`Machine::check_unoffered_mistral`]).
    fn fixed(&mut self, start: usize, len: usize) -> Verdict {
        self.json.fixed = Some((self.consumed + start, len));
        Verdict::Yes(Family::Mistral)
    }
}

/// The problem of a call removed: skipped (read whole) or cut by the end of the reply.
const SKIPPED: &str = "skipped-call: mistral: [TOOL_CALLS] call";
const CUT: &str = "truncated: mistral: cut off [TOOL_CALLS] call";

/// The one rule's report: the call `raw` of `name`, a tool not offered.
fn unoffered(what: &str, name: &str, raw: &str) -> String {
    format!("{what} of {name:?}, a tool not offered; removed from content, raw text: {raw}")
}

/// The calls read from one fixed block `len` bytes long.
fn one_block(len: usize, calls: Vec<RawCall>, problems: Vec<String>) -> Parsed {
    Parsed {
        problems,
        ..Parsed::whole(len, calls)
    }
}
