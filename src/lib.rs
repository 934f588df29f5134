//! transcript-hygiene: a Rust core, with a thin Node-API boundary, for cleaning what goes to an LLM
//! and what comes back from it.
//!
//! - [`transcript`]: provider-specific repairs of a conversation before each model call.
//! - [`response`]: recovering tool calls written as text by open-weight models.
//! - [`followup`]: the request that returns a gateway-run tool's results to the model.
//! - [`tool_style`]: XML-text vs native tool blocks: converting, detecting, and migrating
//!   histories flattened to XML text back to native blocks.
//! - [`scrub`]: outbound text scrubbers (OpenClaw's, and seed 000's `sanitizeToolCall` API).
//! - [`lone_surrogates`]: JS strings with lone UTF-16 surrogates through Rust's `str` and back.
//! - [`utf16_pieces`]: a cleaned text as slices of the caller's JS string.
//! - [`image`]: measuring, downscaling and re-encoding base64 image payloads.
//! - [`session_file`]: repairing a session's JSONL file on disk.
//! - [`atomic_file`]: the one crash-safe file writer (session repair and the CLI).
//! - [`poison`]: a stream's state that a caught panic left half-updated is not used again.
//! - `allocator`: the global allocator and its tuning.
//! - `napi`: the JS boundary and nothing else (only in the addon build).
//!
//! Library code never calls `unwrap()`: a value that can be missing is an error with its path, not
//! a panic (every export also catches panics, but a caught panic is still a bug). The `expect`s left
//! outside tests are the compilation of fixed regexes, which every test run exercises.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

#[cfg(feature = "mi")]
mod allocator;
pub mod atomic_file;
pub mod followup;
pub mod image;
pub mod js_text;
pub mod lone_surrogates;
pub mod openclaw;
pub mod poison;
pub mod response;
pub mod scrub;
pub mod session_file;
pub mod tool_style;
pub mod transcript;
pub mod utf16_pieces;

#[cfg(not(test))]
mod napi;
#[cfg(test)]
mod napi_exports;
#[cfg(test)]
mod test_clock;
