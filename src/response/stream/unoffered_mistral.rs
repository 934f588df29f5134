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
//! cut-call rule takes it ([`super::cut_body`]). The token named in
//! a sentence (`以 [TOOL_CALLS] 开头`), in inline code or a fence is no call's head and stays.

use serde_json::Value;

use super::{Machine, Verdict, WINDOW};
use crate::response::mistral::{self, Follows};
use crate::response::{bare_json, scan, Block, Family, Parsed};

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
                    // The JSON forms are `tool_json`'s; a head still arriving waits.
                    let json = rest.trim_start().starts_with(['[', '{']);
                    return if json || full {
                        Verdict::No
                    } else {
                        Verdict::More
                    };
                };
                if bare_json::offered(tools, name) {
                    return Verdict::No;
                }
                let (end, what) = match scan::balanced_end(rest, at, false) {
                    Some(end) => (end, "skipped-call: mistral: [TOOL_CALLS] call"),
                    // Cut by the end of the reply inside its arguments.
                    None if fin => (rest.len(), "truncated: mistral: cut off [TOOL_CALLS] call"),
                    None => return Verdict::More,
                };
                let raw = &self.buf[start..after + end];
                let mut p = Parsed::default();
                p.blocks.push(Block {
                    start: 0,
                    end: raw.len(),
                    calls: Vec::new(),
                    keep_raw: false,
                });
                p.problems.push(format!(
                    "{what} of {name:?}, a tool not offered; removed from content, raw text: {raw}"
                ));
                self.json.parsed = Some(p);
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
}
