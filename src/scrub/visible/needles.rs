//! What a reply must hold for a 2026.9.6 scrubber to change it. Each scrubber states its needles
//! beside its rule; the JS wrappers test them before the text crosses into the addon (V8 searches
//! a string in a fraction of what reading a long reply costs), so a plain reply never crosses.
//! A scrubber returns its input unchanged when none of its needles occurs — each module's tests
//! and the parity spec hold it to that.

use memchr::memmem;

/// Strings of which a text must hold one for a scrubber to change it.
#[derive(Debug, Clone, Copy)]
pub struct Needles {
    /// Matched as written.
    pub exact: &'static [&'static str],
    /// Matched with ASCII case ignored (written in lower case).
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
        self.exact.iter().any(|n| text.contains(n)) || self.found_ignoring_case(text.as_bytes())
    }

    /// Whether `bytes` holds one of the needles matched with ASCII case ignored. `bytes` is UTF-8,
    /// or a JS string read as Latin-1 (each UTF-16 unit cut to its low byte: an ASCII character
    /// reads as itself, so no needle is missed; a wider one can only add a false hit).
    ///
    /// One pass in blocks: each block is lowercased into a buffer on the stack and searched for
    /// the needles' last four bytes (`call`, `sult`: the words that make a trace line, rarer in
    /// prose than `tool`), and only those places are compared in full. A case-blind regex visits
    /// every byte with a class test instead.
    ///
    /// ```
    /// use transcript_hygiene::scrub::visible::needles::Needles;
    /// let n = Needles { exact: &[], ignore_case: &["tool_call", "function call"] };
    /// assert!(n.found_ignoring_case("a TOOL_Call b".as_bytes()));
    /// assert!(!n.found_ignoring_case("toolchain, functional 调用, tool recall".as_bytes()));
    /// ```
    pub fn found_ignoring_case(&self, bytes: &[u8]) -> bool {
        const BLOCK: usize = 4096;
        const ANCHOR: usize = 4;
        let mut anchors: Vec<&[u8]> = Vec::new();
        for n in self.ignore_case {
            debug_assert_eq!(
                *n,
                n.to_ascii_lowercase(),
                "case-blind needles are written in lower case"
            );
            let a = &n.as_bytes()[n.len().saturating_sub(ANCHOR)..];
            if !anchors.contains(&a) {
                anchors.push(a);
            }
        }
        let finders: Vec<(memmem::Finder<'_>, usize)> = anchors
            .iter()
            .map(|a| (memmem::Finder::new(a), a.len()))
            .collect();
        let Some(overlap) = anchors.iter().map(|a| a.len() - 1).max() else {
            return false;
        };
        // A needle ending where an anchor found at `at` (of `len` bytes) ends.
        let whole_at = |at: usize, len: usize| {
            let end = at + len;
            self.ignore_case.iter().any(|n| {
                n.len() <= end && bytes[end - n.len()..end].eq_ignore_ascii_case(n.as_bytes())
            })
        };
        let mut buf = [0u8; BLOCK];
        let mut start = 0;
        loop {
            let end = (start + BLOCK).min(bytes.len());
            let block = &bytes[start..end];
            for (d, s) in buf.iter_mut().zip(block) {
                *d = s.to_ascii_lowercase();
            }
            let folded = &buf[..block.len()];
            for (finder, len) in &finders {
                if finder.find_iter(folded).any(|i| whole_at(start + i, *len)) {
                    return true;
                }
            }
            if end == bytes.len() {
                return false;
            }
            start = end - overlap;
        }
    }
}
