//! A FunctionGemma block finished at its closing token may be followed by the same call written
//! again without its opener ([`crate::response::functiongemma_chain`]): the block is not emitted
//! before the text after the token says whether a chained `call:` follows. Whitespace and the
//! start of `call:` are waited for (read once over the deltas); `call:` makes the block run on to
//! its next closing token, where the parser reads the run; anything else (or the reply's end)
//! emits the block as it was read.

use super::{Machine, State};
use crate::response::{functiongemma_chain::continues, Family, Parsed};

impl Machine {
    /// The block of `f` finished at `e` (read as `p`), the text after it read for whitespace up to
    /// `from`: `Some(true)` emitted, `Some(false)` waiting for more text, `None` a chained call
    /// follows (the block runs on).
    pub(super) fn chain_end(
        &mut self,
        f: Family,
        e: usize,
        from: usize,
        p: Parsed,
    ) -> Option<bool> {
        let rest = self.buf.get(from..).unwrap_or("");
        let t = rest.trim_start();
        let at = self.buf.len() - t.len();
        match continues(t) {
            Some(true) => None,
            None if !self.finished => {
                self.chain = Some((e, at, p));
                Some(false)
            }
            _ => {
                self.emit_parsed(f, e, p);
                debug_assert!(matches!(self.state, State::Visible));
                Some(true)
            }
        }
    }
}
