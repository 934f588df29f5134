//! One file per rule. Each rule edits the skeleton in place and returns whether it changed anything.
pub mod canonicalize;
// pub mod tool_call_ids; (waits for policy + tool_call_id)
pub mod pairing;
pub mod tool_call_inputs;
