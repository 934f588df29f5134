//! What a reply must hold for a 2026.9.6 scrubber to change it. Each scrubber states its needles
//! beside its rule; the JS wrappers test them before the text crosses into the addon (V8 searches
//! a string in a fraction of what reading a long reply costs), so a plain reply never crosses.
//! A scrubber returns its input unchanged when none of its needles occurs — each module's tests
//! and the parity spec hold it to that.

/// Strings of which a text must hold one for a scrubber to change it.
#[derive(Debug, Clone, Copy)]
pub struct Needles {
    /// Matched as written.
    pub exact: &'static [&'static str],
    /// Matched with ASCII case ignored.
    pub ignore_case: &'static [&'static str],
}

impl Needles {
    /// Needles matched as written only.
    pub const fn exact(exact: &'static [&'static str]) -> Needles {
        Needles {
            exact,
            ignore_case: &[],
        }
    }

    /// Whether `text` holds one of the needles.
    ///
    /// ```
    /// use transcript_hygiene::scrub::visible::needles::Needles;
    /// let n = Needles { exact: &["<|"], ignore_case: &["tool_call"] };
    /// assert!(n.found("a TOOL_CALL b") && n.found("好的<|im_end|>") && !n.found("纯文本"));
    /// ```
    pub fn found(&self, text: &str) -> bool {
        self.exact.iter().any(|n| text.contains(n))
            || self.ignore_case.iter().any(|n| {
                text.as_bytes()
                    .windows(n.len())
                    .any(|w| w.eq_ignore_ascii_case(n.as_bytes()))
            })
    }
}
