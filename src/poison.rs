//! State kept across native calls (a streamed reply's) that a panic left half-updated is not used
//! again.
//!
//! Why: every export catches panics (`#[napi(catch_unwind)]`), so a bug that panics inside
//! `push` becomes a JS error and the process lives on. But the stream's state stops wherever the
//! panic left it: text held back but not yet emitted, a call half-settled. A later `push` on it
//! would go on from there and could silently drop or repeat text. [`Poison`] marks the state
//! while a call runs on it; when a call never returned, every later one is refused with an error
//! (the caller starts a new stream), as a `Mutex` is poisoned.

/// What a call on state that an earlier call left half-updated gets.
pub const POISONED: &str =
    "an earlier call failed inside (a bug; please report it) and left this stream unusable";

/// State that refuses to be used again after a call on it did not return.
#[derive(Debug)]
pub struct Poison<T> {
    inner: T,
    running: bool,
}

impl<T> Poison<T> {
    /// The state, not poisoned.
    pub fn new(inner: T) -> Self {
        Poison {
            inner,
            running: false,
        }
    }

    /// `f` on the state, or `Err(POISONED)` when an earlier call unwound from inside `f`.
    pub fn run<R>(
        &mut self,
        f: impl FnOnce(&mut T) -> Result<R, &'static str>,
    ) -> Result<R, &'static str> {
        if self.running {
            return Err(POISONED);
        }
        self.running = true;
        let r = f(&mut self.inner);
        self.running = false;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::stream::StreamCleaner;
    use crate::response::Options;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// As `ResponseStreamCleanerNative::push` runs under napi's `catch_unwind`: a panic in the
    /// middle of a push is caught, the stream then refuses every call, and a new stream on the
    /// same thread reads the same reply as it should (no state of the thread was left broken).
    #[test]
    fn a_stream_a_panic_left_half_updated_is_refused() {
        let mut s = Poison::new(StreamCleaner::new(Options::default()));
        assert!(s.run(|s| s.push("<think>先")).is_ok());
        let caught = catch_unwind(AssertUnwindSafe(|| {
            s.run(|s| -> Result<(), &'static str> {
                s.push("想想</thi")?;
                panic!("a bug inside push");
            })
        }));
        assert!(caught.is_err());
        assert_eq!(s.run(|s| s.push("nk>")).err(), Some(POISONED));
        assert_eq!(s.run(|s| s.finish()).err(), Some(POISONED));

        let mut fresh = Poison::new(StreamCleaner::new(Options::default()));
        let mut content = String::new();
        for piece in ["<think>先", "想想</thi", "nk>", "读取文件。"] {
            content += &fresh
                .run(|s| s.push(piece))
                .map(|c| c.content)
                .unwrap_or_default();
        }
        let end = fresh.run(|s| s.finish()).map(|e| e.chunk.content);
        assert_eq!(content + &end.unwrap_or_default(), "读取文件。");
    }
}
