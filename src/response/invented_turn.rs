//! A reply that runs on into a turn the model invented. A model that ran past its stop token
//! writes the user's next message and its own answer to it: ChatGLM3 printed its answer, then
//! `<|user|>` on its own line, a made-up user message, `<|assistant|>` and a second answer
//! (zai-org/ChatGLM3#279); GLM-4.6 under MLX wrote `<|user|>` and the user's input after its
//! answer (lmstudio-ai/lmstudio-bug-tracker#1992). A person reading the chat wants the reply
//! that was asked for: it ends where a token opening a new user or observation turn (GLM's
//! `<|user|>` and `<|observation|>`, ChatML's `<|im_start|>user`, Llama 3's
//! `<|start_header_id|>user<|end_header_id|>`) stands on its own line (up to three spaces before
//! it, or right after markup just removed such as `<|im_end|>`; spaces then a line break or the
//! end of the reply after it). An end token glued to the text with such a header after it
//! (`Paris.<|eot_id|><|start_header_id|>user<|end_header_id|>`) goes with it. What follows, the
//! token included, is removed from `content` and reported with its raw text (kind [`KIND`]);
//! nothing is lost.
//!
//! The token named in a sentence (`GLM 用 <|user|> 开始用户轮`), in inline code or a fenced
//! example is text ([`super::orphan`]'s lone-token rule reads it first). The stream holds
//! nothing back for it: the token is decided on its line like any lone token, and from there on
//! every delta goes to the invented turn.

/// ChatML's header of a user turn (Qwen, Yi, and every model trained on ChatML).
pub const CHATML_USER: &str = "<|im_start|>user";
/// Llama 3's header of a user turn.
pub const LLAMA3_USER: &str = "<|start_header_id|>user<|end_header_id|>";

/// The tokens that open a user (or tool-result) turn: GLM's role tokens, ChatML's and Llama 3's
/// user headers (lone tokens of [`super::orphan::CLOSERS`]).
pub const OPENERS: &[&str] = &["<|user|>", "<|observation|>", CHATML_USER, LLAMA3_USER];

/// The problem kind reported.
pub const KIND: &str = "invented-turn";

/// Whether `s` starts with one of [`OPENERS`].
pub fn opens(s: &str) -> bool {
    OPENERS.iter().any(|o| s.starts_with(o))
}

/// The problem message for the removed turn's raw text.
pub fn problem(raw: &str) -> String {
    format!(
        "{KIND}: the reply runs on into a turn the model wrote itself; removed from content, \
         raw text: {raw}"
    )
}
