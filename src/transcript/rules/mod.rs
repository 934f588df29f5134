//! One file per rule. Each rule edits the skeleton in place and returns whether it changed anything.
