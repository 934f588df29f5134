//! One file per rule. Each rule edits the skeleton in place and returns whether it changed anything.
pub mod canonicalize;
pub mod dangling_tool_uses;
pub mod drop_thinking;
pub mod google_ordering;
pub mod images;
pub mod inter_session;
pub mod limit_history;
pub mod merge_turns;
pub mod openai_function_call_pairs;
pub mod openai_reasoning;
pub mod pairing;
pub mod thought_signatures;
pub mod tool_call_ids;
pub mod tool_call_inputs;
pub mod tool_result_details;
pub mod usage_snapshots;
