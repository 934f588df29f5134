//! OpenAI Responses `reasoning` items carrying `encrypted_content`, for a target that cannot
//! read them.
//!
//! A stateless Responses client (`store: false`, `include: ["reasoning.encrypted_content"]`)
//! replays each reasoning item with the blob OpenAI encrypted for itself. Only OpenAI (its own
//! API, Azure OpenAI, the Codex backend, GitHub Copilot's OpenAI models) can decrypt it; any other server that speaks Responses
//! (a gateway routing the body to another provider) fails on the blob, and OpenAI's own answer to
//! a blob it did not make is "The encrypted content for item rs_… could not be verified."
//! (`invalid_encrypted_content`, openai/codex#8138, continuedev/continue#10643). The body does
//! not say which model made the items, so the target decides: for a provider outside OpenAI's
//! family the items go, and the turn keeps its calls and messages; for OpenAI's family (or no
//! provider named: the protocol's own) they stay.

use crate::transcript::context::Ctx;
use crate::transcript::model::{Block, Msg};
use crate::transcript::rules::drop_thinking::drop_blocks;

/// The providers that decrypt OpenAI's reasoning (`None`: the Responses API's own, OpenAI).
pub fn decrypts(provider: Option<&str>) -> bool {
    let Some(p) = provider else {
        return true;
    };
    matches!(
        crate::js_text::js_trim(p).to_ascii_lowercase().as_str(),
        "openai"
            | "openai-codex"
            | "azure"
            | "azure-openai"
            | "azure-openai-responses"
            | "github-copilot"
    )
}

/// A `reasoning` item whose `encrypted_content` is a non-blank string.
fn is_encrypted(b: &Block) -> bool {
    b.is_object
        && b.ty() == Some("reasoning")
        && b.x
            .as_deref()
            .is_some_and(|x| x.signature.is_non_blank_str())
}

/// Drops the encrypted reasoning items of every assistant turn.
pub fn drop_encrypted_reasoning(msgs: &mut [Msg], ctx: &mut Ctx) -> bool {
    let mut changed = false;
    for m in msgs.iter_mut().filter(|m| m.is_assistant()) {
        changed |= drop_blocks(
            m,
            ctx,
            "dropEncryptedReasoning",
            is_encrypted,
            "dropped a reasoning item whose encrypted_content only OpenAI can read",
            "",
        );
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::decrypts;

    #[test]
    fn openai_s_family_decrypts_and_no_one_else() {
        for p in [
            None,
            Some("openai"),
            Some(" Azure-OpenAI "),
            Some("openai-codex"),
        ] {
            assert!(decrypts(p), "{p:?}");
        }
        for p in ["xai", "openrouter", "vllm", "anthropic", ""] {
            assert!(!decrypts(Some(p)), "{p}");
        }
    }
}
