//! OpenClaw 2026.9.6's reply scrubbers (`src/shared/text/assistant-visible-text.ts` and friends),
//! the ones that are new in that release or changed their rule. They protect Markdown code as a
//! CommonMark parser sees it ([`markdown_code`]), where 2026.3.23's scrubbers used regexes over
//! fences and backticks. Each works on real UTF-8 text and returns `Cow::Borrowed` when it changed
//! nothing.
//!
//! Which release a caller gets is chosen with [`crate::openclaw::OpenClawVersion`]: the
//! scrubbers that exist in both releases dispatch on it, the new ones are 2026.9.6 only.

pub mod cached_find;
pub mod chain;
pub mod commonmark;
pub mod downgraded;
pub mod final_tags;
pub mod inbound_meta;
pub mod legacy_bracket;
pub mod markdown_code;
pub mod memories;
pub mod minimax;
pub mod needles;
pub mod paragraphs;
pub mod placeholders;
pub mod plain_tool_call;
pub mod prompt_echo;
pub mod reasoning;
pub mod runtime_context;
pub mod special_tokens;
mod text;
pub mod tool_call_xml;
pub mod trace_lines;
pub mod trim;
pub mod user_facing;
