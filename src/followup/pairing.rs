//! Pairing of the assistant's calls with the gateway's results, the one rule a follow-up must never
//! get wrong: every call answered exactly once, in call order, and nothing appended twice when a
//! follow-up is fed back as the next round's original.

use super::{Followup, PairingError};
use std::collections::{HashMap, HashSet};

/// One result to append, in call order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// `toolResults[result]` answers call `id`.
    Result {
        result: usize,
        id: String,
        name: Option<String>,
    },
    /// No result for call `id`: a synthetic error result (`onMissing: 'synthesize'`).
    Synthetic { id: String, name: Option<String> },
}

/// What to append after the original's messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Order {
    pub append_assistant: bool,
    pub items: Vec<Item>,
}

fn err(id: Option<&str>, message: String) -> PairingError {
    PairingError {
        id: id.map(str::to_string),
        message,
    }
}

/// Checks the pairing and orders the results by call.
///
/// Errors: a call without an id, a call id used twice, a result whose id is missing or matches no
/// call, two results for one call, a call with no result (unless `synthesize`). A call already
/// answered in the original (a follow-up fed back in) needs no new result, and the assistant is
/// not appended again when all its calls are already in the original.
pub fn order(f: &Followup) -> Result<Order, PairingError> {
    let mut ids: Vec<&str> = Vec::with_capacity(f.calls.len());
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(f.calls.len());
    for (k, (id, _)) in f.calls.iter().enumerate() {
        let Some(id) = id.as_deref().filter(|s| !s.is_empty()) else {
            return Err(err(
                None,
                format!("assistant: tool call {k} has no id; it cannot be paired with a result"),
            ));
        };
        if index.insert(id, ids.len()).is_some() {
            return Err(err(
                Some(id),
                format!("assistant: tool call id {id:?} is used by more than one call"),
            ));
        }
        ids.push(id);
    }
    let mut by_call: Vec<Option<usize>> = vec![None; ids.len()];
    for (i, id) in f.results.iter().enumerate() {
        let Some(id) = id.as_deref().filter(|s| !s.is_empty()) else {
            return Err(err(
                None,
                format!("toolResults[{i}]: toolCallId is missing; expected the id of one of the assistant's tool calls"),
            ));
        };
        let Some(&k) = index.get(id) else {
            return Err(err(
                Some(id),
                format!("toolResults[{i}]: no tool call of the assistant has id {id:?}"),
            ));
        };
        if by_call[k].is_some() {
            return Err(err(
                Some(id),
                format!("toolResults[{i}]: tool call {id:?} already has a result"),
            ));
        }
        by_call[k] = Some(i);
    }
    let answered: HashSet<&str> = f.history_results.iter().map(String::as_str).collect();
    let mut items = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        let name = f.calls[k].1.clone();
        match by_call[k] {
            // Already answered in the original: a follow-up fed back in is not applied twice.
            _ if answered.contains(id) => {}
            Some(result) => items.push(Item::Result {
                result,
                id: id.to_string(),
                name,
            }),
            None if f.synthesize => items.push(Item::Synthetic {
                id: id.to_string(),
                name,
            }),
            None => {
                return Err(err(
                    Some(id),
                    format!("tool call {id:?} has no result in toolResults (pass onMissing: 'synthesize' to answer it with an error result)"),
                ))
            }
        }
    }
    let present: HashSet<&str> = f.history_calls.iter().map(String::as_str).collect();
    let append_assistant = ids.is_empty() || !ids.iter().all(|id| present.contains(id));
    Ok(Order {
        append_assistant,
        items,
    })
}
