//! An example fence streamed line by line ([`Machine::fence_lines`]) holds back a marker whose
//! confirmation may come anywhere later in the fence: MiniMax-M3's namespace token before a tag
//! (`]<]minimax[>[<city>`) is markup in code only with a `</tool_call>` after it. The whole reply
//! reads the fence's body at once; a stream that let the token's line out before a bare
//! `</tool_call>` line came (itself no markup in code) reported no `kept-as-code` where the whole
//! reply did. The token's line and every line after it are now held until the closer comes (the
//! fence holds markup: everything goes out) or the fence ends ([`Machine::close_fence`] reads what
//! is held). The closer is looked for in the new bytes only, so a long held fence stays linear.
//!
//! LM Studio's `[` is confirmed by `[END_TOOL_REQUEST]` anywhere in the code, before it too; that
//! word's own `[` is such a marker and confirms itself as soon as its line is read, so nothing
//! needs to wait for it.

use super::{Check, Kind, Machine};
use crate::response::minimax_m3::NS;

/// What confirms a waiting MiniMax-M3 token.
const CLOSE: &[u8] = b"</tool_call>";

/// A marker of an example fence waiting for its confirming word (all absolute offsets).
#[derive(Debug, Clone, Copy)]
pub(super) struct FenceWait {
    /// The start of the marker's line: held from here.
    pub(super) line: usize,
    /// The confirming word counts at or after here.
    from: usize,
    /// The text looked at so far.
    searched: usize,
}

/// Where the confirming `</tool_call>` of a MiniMax-M3 namespace token at `at` of `bytes` (the
/// marker is the token less its first byte) may start, when a tag follows the token (`<` or
/// another token); `None`: not a fragment's token.
pub(super) fn m3_head(bytes: &[u8], at: usize) -> Option<usize> {
    let ns = NS.as_bytes();
    let from = (at + ns.len() - 1).min(bytes.len());
    let after = &bytes[from..];
    (after.starts_with(b"<") || after.starts_with(ns)).then_some(from)
}

/// The wait of a marker of `kind` at `c` of `bytes` (`base`: the absolute offset of `bytes`)
/// that the text so far does not confirm, when its confirming word may still come anywhere later
/// in the fence (MiniMax-M3's token).
pub(super) fn wait_for(kind: Kind, bytes: &[u8], base: usize, c: usize) -> Option<FenceWait> {
    if !matches!(kind, Kind::Call(Check::M3Fragment)) {
        return None;
    }
    let from = m3_head(bytes, c)?;
    Some(FenceWait {
        line: base + memchr::memrchr(b'\n', &bytes[..c]).map_or(0, |k| k + 1),
        from: base + from,
        searched: base + bytes.len(),
    })
}

impl Machine {
    /// A waiting marker's line in `buf`, after reading the text come since the last look: `None`
    /// when nothing waits; `Some(None)` when its confirming word came (the fence holds markup).
    pub(super) fn fence_wait_line(&mut self) -> Option<Option<usize>> {
        let w = self.fence_wait.as_mut()?;
        let b = self.buf.as_bytes();
        let start = w
            .from
            .max(w.searched.saturating_sub(CLOSE.len() - 1))
            .max(self.consumed);
        let hit = b
            .get(start - self.consumed..)
            .is_some_and(|r| memchr::memmem::find(r, CLOSE).is_some());
        w.searched = self.consumed + b.len();
        if hit {
            self.fence_wait = None;
            return Some(None);
        }
        Some(Some(w.line.saturating_sub(self.consumed)))
    }
}
