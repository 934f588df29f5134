//! The JS boundary and nothing else: decode what JS sent, call the core, encode the answer.
//!
//! Transcript operations take the codec's skeleton string plus the original message array (as a
//! handle, read only for the rare values the skeleton leaves out) and return the plan as JSON.
//! Reply text is read through [`text`], which keeps lone UTF-16 surrogates.
//! Every export catches panics (`catch_unwind`), so no Rust panic can take the Node process down.

mod echo_stream;
mod followup;
mod image_cache;
mod response;
mod response_stream;
mod scalar;
mod scrub;
mod session_file;
mod source;
mod string_read;
mod text;
mod tool_style;
mod transcript;
mod visible;
mod wire;

/// Runs once when Node loads the addon (only the mimalloc benchmark builds need it).
#[cfg(feature = "mi")]
#[napi_derive::module_init]
fn init() {
    crate::allocator::tune();
}
