//! A tool result the model wrote itself. LM Studio tells models that "the results of tool calls
//! will be provided in format [TOOL_RESULT] <result> [END_TOOL_RESULT]" (its system prompt,
//! lmstudio-ai/lmstudio-bug-tracker#825), and a model sometimes opens its reply with such a block
//! of its own (lmstudio-bug-tracker#994: an invented XML result, then the answer). No tool ran:
//! the block is neither a call nor text for a person, so it is removed from `content` and
//! reported with its raw text (kind `invented-result`), and the prose after it is kept.
//!
//! Only where it opens the reply (nothing visible before it; reasoning may precede it), up to the
//! first [`CLOSE`], which must end its line (spaces, then a line break or the end of the reply).
//! The tags named in a sentence (`format [TOOL_RESULT] <result> [END_TOOL_RESULT]`), after
//! visible text, in code, or with no closer are text. The stream holds the start of the reply
//! until the closer comes (one search, resumed across deltas).

/// The opening tag.
pub const OPEN: &str = "[TOOL_RESULT]";
/// The closing tag.
pub const CLOSE: &str = "[END_TOOL_RESULT]";
/// The problem kind reported.
pub const KIND: &str = "invented-result";

/// The problem reported for an invented result whose raw text is `raw` (this block, or a data
/// fence right after a call, [`super::stream`]'s `invented`).
pub fn problem(raw: &str) -> String {
    format!("{KIND}: a tool result the model wrote itself; removed from content, raw text: {raw}")
}
