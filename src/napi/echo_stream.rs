//! `ConversationContextStreamNative`: the prompt echo on a streamed reply
//! ([`crate::scrub::visible::prompt_echo::stream`]), its state owned by Rust. One native call per
//! delta; the answer is the text released. Deltas cross as UTF-16 with lone surrogates mapped to
//! one private-use block for the whole stream and back, as `ResponseStreamCleanerNative` does.

use super::text::{JsText, Text};
use crate::lone_surrogates::PieceMap;
use crate::poison::Poison;
use crate::scrub::visible::prompt_echo::stream::EchoStream;
use crate::scrub::visible::prompt_echo::PromptEcho;
use napi::{Error, JsString, Result, Status};
use napi_derive::napi;

fn finished(msg: &str) -> Error {
    Error::new(
        Status::GenericFailure,
        format!("ConversationContextStreamCleaner: {msg}"),
    )
}

/// One streamed reply (see `ConversationContextStreamCleaner` in index.d.ts); the JS wrapper
/// rejoins a surrogate pair split across two deltas before they get here.
#[napi(js_name = "ConversationContextStreamNative")]
pub struct ConversationContextStreamNative {
    inner: Poison<EchoStream>,
    lone: PieceMap,
}

#[napi]
impl ConversationContextStreamNative {
    /// `conversation_context`: the prompt whose copies go (none: every delta goes as it is).
    #[napi(constructor, catch_unwind)]
    pub fn new(conversation_context: Option<String>) -> Self {
        let echo = conversation_context
            .as_deref()
            .and_then(PromptEcho::prepare);
        ConversationContextStreamNative {
            inner: Poison::new(EchoStream::new(echo)),
            lone: PieceMap::default(),
        }
    }

    /// One delta in; the text it releases out.
    #[napi(catch_unwind)]
    pub fn push(&mut self, delta: JsString) -> Result<JsText> {
        let delta = Text::read(delta)?.decode_piece(&mut self.lone);
        let out = self.inner.run(|s| s.push(&delta)).map_err(finished)?;
        Ok(self.lone.restore(out))
    }

    /// The rest.
    #[napi(catch_unwind)]
    pub fn finish(&mut self) -> Result<JsText> {
        let out = self.inner.run(|s| s.finish()).map_err(finished)?;
        Ok(self.lone.restore(out))
    }
}
