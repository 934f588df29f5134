//! Provider-specific transcript hygiene: the repairs a conversation needs before it is replayed to a
//! model, matching OpenClaw 2026.3.23-2's `sanitizeSessionHistory` and its per-rule helpers.
//!
//! The rules run on [`model::Msg`], a skeleton of the transcript (see ARCHITECTURE.md): they never
//! see the full JS objects, and what they decide leaves as a [`plan`].

pub mod capabilities;
pub mod census;
pub mod context;
pub mod history_options;
pub mod incremental;
pub mod model;
pub mod ops;
pub mod pipeline;
pub mod plan;
pub mod policy;
pub mod policy_json;
pub mod provider_id;
pub mod read_set;
pub mod reorder;
pub mod rules;
pub mod skeleton;
pub mod str_table;
pub mod text;
pub mod tool_call_id;
pub mod usage;
pub mod v2026_9;
pub mod wire;

pub use context::{Change, Ctx, JsonSource, NoSource, Source};
pub use model::FIELD_NAMES;
#[cfg(test)]
pub mod testutil;
