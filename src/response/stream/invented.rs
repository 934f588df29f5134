//! A tool result the model invented right after its call, in a `json` fence.
//!
//! Why: a model that writes its call as text does not stop there the way a native call stops the
//! turn; it goes on and writes what it expects the tool to return, as data in a ```` ```json ````
//! fence, before any tool ran (DeepSeek-V4-Flash on vLLM-Ascend after a DSML call, with Chinese
//! prose before it: vllm-project/vllm-ascend#13794; a Read result with a `size` and `content`
//! it made up). The call is read; the invented result is neither a call nor text for a person:
//! removed from `content` and reported with its raw text, kind `invented-result`, the kind LM
//! Studio's `[TOOL_RESULT]` blocks have ([`crate::response::tool_result`]).
//!
//! The evidence: the fence's info word is `json` (`jsonc`, `json5`), and it comes right after a
//! block that held calls, with only whitespace between (nothing visible since the call). A fence
//! after prose, or with no call before it, is content; a fence that reads as calls (a second call
//! written as JSON, tools offered) is read as before. Text after the fence stays.

use super::code::Fence;
use super::Machine;
use crate::response::tool_result;

impl Machine {
    /// Fence `f`, which opens at `k` in `buf`, marked invented when the rule says so.
    pub(super) fn invented_fence(&self, k: usize, f: Fence) -> Fence {
        let invented = f.json && self.em.after_call && self.buf[..k].trim().is_empty();
        Fence { invented, ..f }
    }

    /// `buf[..end]` is an invented result's fence: removed and reported.
    pub(super) fn drop_invented(&mut self, end: usize) {
        let p = tool_result::problem(&self.buf[..end]);
        self.em.problems.push(p);
        self.em.removed();
        self.drain(end);
    }
}
