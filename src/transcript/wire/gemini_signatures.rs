//! Gemini thought signatures on the wire: the ones a Gemini target cannot verify go, the one
//! Gemini 3 requires is supplied.
//!
//! A thought signature is Gemini's encrypted record of its own reasoning, returned on a model
//! part (`thoughtSignature`; `thought_signature` in the snake-case JSON the API also reads) and
//! valid only where Gemini put it. Two shapes reach a gateway that it cannot verify:
//!
//! - a signature on a **user** content's part: signatures are only ever produced on model turns,
//!   so one there was carried over by a client and Gemini answers "Corrupted thought signature."
//!   (platberlitz/SillyBunny#647: a stored signature stamped onto user-role messages). It is
//!   removed, whatever its value, from a `functionResponse` part as from any other. The model turns' foreign values (a Claude `msg_…` id, anything
//!   that is not base64) are the transcript pass's `stripThoughtSignatures`, run by [`super::pass`]
//!   when the target's policy asks for it.
//! - a **missing** signature: Gemini 3 rejects a request whose current turn has a step whose
//!   first `functionCall` part carries none ("Function call is missing a thought_signature in
//!   functionCall parts. This is required for tools to work correctly, …", manthanabc/paws#103,
//!   nanbingxyz/5ire#405), as happens to every history that another model wrote or a client
//!   rebuilt without them. Google documents a stand-in for exactly that case
//!   (ai.google.dev/gemini-api/docs/thought-signatures, FAQ), and the gateways use it:
//!   jeremychone/rust-genai#115 and earendil-works/pi#1825 set `thoughtSignature:
//!   "skip_thought_signature_validator"` on the unsigned calls of a Gemini 3 request. Here only
//!   the parts Gemini validates get it: the first call of each model step after the latest user
//!   turn (the current turn), when the target model is Gemini 3 or later. Earlier turns are not
//!   validated and are left as written.
//! - another provider's **id** as a model part's signature (a Claude `msg_01…` message id, a
//!   `toolu_` / `call_` / `fc_` call id, an `rs_` reasoning id, stamped on by a client that
//!   converts between formats): the policy's base64 test keeps one whose length happens to decode
//!   (`msg_01XFDUDYJgAACzvnptvVoYEL`: 28 characters of the URL-safe alphabet), and Gemini answers
//!   "Corrupted thought signature.". Gemini's API writes its signatures in standard base64
//!   (proto3 JSON bytes), whose alphabet has no `_`, so a value that starts with one of these
//!   prefixes is never Gemini's: [`drop_foreign_ids`] removes it. A value without the prefix,
//!   Gemini's own or not, is left to the policy's test.

use crate::transcript::context::{block_path, Ctx};
use crate::transcript::model::{Block, Msg, Val};
use serde_json::json;

/// The stand-in Google documents for a call whose signature is unknown.
pub const SKIP_VALIDATOR: &str = "skip_thought_signature_validator";

/// The keys a part's signature is written under.
pub const KEYS: [&str; 2] = ["thoughtSignature", "thought_signature"];

/// Whether `model_id` names Gemini 3 or later (`gemini-3-pro-preview`, `models/gemini-3.1-flash`,
/// `google/gemini-3-flash`): the models that require a signature on the current turn's calls.
/// Gemma and Gemini 2.x do not.
pub fn requires_call_signatures(model_id: Option<&str>) -> bool {
    let Some(id) = model_id else {
        return false;
    };
    let id = id.to_ascii_lowercase();
    id.match_indices("gemini-").any(|(at, m)| {
        let rest = &id[at + m.len()..];
        let digits: &str = &rest[..rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len())];
        let starts_word = at == 0 || !id.as_bytes()[at - 1].is_ascii_alphanumeric();
        starts_word && digits.parse::<u32>().is_ok_and(|v| (3..1000).contains(&v))
    })
}

/// The value of `b`'s signature key `key` (one of [`KEYS`]).
fn signature_at<'b>(b: &'b Block, key: &str) -> &'b Val {
    if key == KEYS[0] {
        b.thought_signature_camel()
    } else {
        b.thought_signature()
    }
}

/// The id prefixes of other providers (Anthropic's message and tool-use ids, OpenAI's call,
/// function-call and reasoning item ids), each ending in `_`, which standard base64 has not.
const FOREIGN_ID_PREFIXES: [&str; 5] = ["msg_", "toolu_", "call_", "fc_", "rs_"];

/// Whether a signature is another provider's id (see the module doc): never Gemini's.
pub fn is_foreign_id(sig: &str) -> bool {
    let s = sig.trim_start();
    FOREIGN_ID_PREFIXES.iter().any(|p| s.starts_with(p))
}

/// Removes the model parts' signatures that are another provider's id, from `m` (a model turn).
pub fn drop_foreign_ids(m: &mut Msg, ctx: &mut Ctx) {
    drop_signatures(
        m,
        ctx,
        |v| v.as_str().is_some_and(is_foreign_id),
        "stripThoughtSignatures",
        "removed a thought signature that is another provider's id (Gemini: \"Corrupted thought signature.\")",
    );
}

/// Deletes each signature of `m`'s parts that `drop` picks, one change (`rule`: `detail`) a part.
fn drop_signatures(
    m: &mut Msg,
    ctx: &mut Ctx,
    drop: impl Fn(&Val) -> bool,
    rule: &'static str,
    detail: &'static str,
) {
    let picked = |b: &Block| b.is_object && KEYS.iter().any(|k| drop(signature_at(b, k)));
    let Some(blocks) = m.blocks() else { return };
    let hits: Vec<_> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| picked(b))
        .map(|(j, b)| (j, block_path(m, b)))
        .collect();
    if hits.is_empty() {
        return;
    }
    for (j, path) in hits {
        let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) else {
            continue;
        };
        for k in KEYS {
            if drop(signature_at(b, k)) {
                b.del(k);
            }
        }
        ctx.change(rule, path, || detail.into());
    }
    m.content_dirty = true;
}

fn signed(b: &Block) -> bool {
    KEYS.iter()
        .any(|k| !matches!(signature_at(b, k), Val::Absent))
}

/// Removes the signatures of user parts, and gives the first call of each step of the current
/// turn the documented stand-in when `gemini3` and it has none.
pub fn repair(turns: &mut [Msg], ctx: &mut Ctx, gemini3: bool) {
    // A `functionResponse` part is a user part too (the Gemini reader makes it a result
    // message whose one block carries the part's signature).
    let user = |m: &&mut Msg| m.is_user() || m.is_tool_result();
    for m in turns.iter_mut().filter(user) {
        drop_signatures(
            m,
            ctx,
            |v| !matches!(v, Val::Absent),
            "userThoughtSignature",
            "removed a thought signature from a user part (Gemini signs only model parts: \"Corrupted thought signature.\")",
        );
    }
    if !gemini3 {
        return;
    }
    let current = turns.iter().rposition(|m| m.is_user()).map_or(0, |u| u + 1);
    for m in turns[current..].iter_mut().filter(|m| m.is_assistant()) {
        let Some((j, path)) = m.blocks().and_then(|bs| {
            let j = bs.iter().position(|b| b.is_object && b.is_tool_call())?;
            Some((j, block_path(m, &bs[j])))
        }) else {
            continue;
        };
        let Some(b) = m.blocks_mut().and_then(|bs| bs.get_mut(j)) else {
            continue;
        };
        if signed(b) {
            continue;
        }
        b.set("thoughtSignature", json!(SKIP_VALIDATOR));
        ctx.change("skipThoughtSignatureValidator", path, || {
            format!("the current turn's call has no thought signature: set Google's documented {SKIP_VALIDATOR:?} (Gemini 3: \"Function call is missing a thought_signature in functionCall parts\")")
        });
        m.content_dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_providers_ids_are_foreign_signatures() {
        for id in [
            "msg_01XFDUDYJgAACzvnptvVoYEL",
            " toolu_01A09q90qw90lq917835lq9",
            "call_0fypS1hVX",
            "fc_682ce5bd92248191",
            "rs_68b14140",
        ] {
            assert!(is_foreign_id(id), "{id}");
        }
        // Gemini's own (standard base64, often `Ci…` / `Eq…`) and the documented stand-in.
        for sig in ["CiQB0e2K", "EqQBCg0+/w==", "msgAbCd", SKIP_VALIDATOR, ""] {
            assert!(!is_foreign_id(sig), "{sig}");
        }
    }

    #[test]
    fn gemini_3_and_later_require_call_signatures() {
        for yes in [
            "gemini-3-pro-preview",
            "models/gemini-3.1-flash-lite",
            "google/gemini-3-flash",
            "Gemini-4-Ultra",
        ] {
            assert!(requires_call_signatures(Some(yes)), "{yes}");
        }
        for no in [
            "gemini-2.5-pro",
            "gemma-3-27b-it",
            "notgemini-3",
            "gemini-pro-latest",
            "gemini-",
            "",
        ] {
            assert!(!requires_call_signatures(Some(no)), "{no}");
        }
        assert!(!requires_call_signatures(None));
    }
}
