//! A substring search that remembers its last answer. The 2026.9.6 readers OpenClaw wrote as
//! loops of `indexOf(needle, from)` ask for the same needle again and again from positions that
//! only grow; a search that found nothing, or found a hit still ahead of the new position,
//! answers from memory, so those readers stay linear.

use memchr::memmem;

/// One needle's search, with its last answer.
#[derive(Debug)]
pub struct CachedFind {
    finder: memmem::Finder<'static>,
    /// `(from, found)` of the last search.
    last: Option<(usize, Option<usize>)>,
}

impl CachedFind {
    /// A search for `needle`; nothing remembered yet.
    pub fn new(needle: &'static str) -> Self {
        CachedFind {
            finder: memmem::Finder::new(needle.as_bytes()),
            last: None,
        }
    }

    /// Forgets the last answer (before searching a changed rule or text).
    pub fn forget(&mut self) {
        self.last = None;
    }

    /// `text.indexOf(needle, from)`.
    ///
    /// ```
    /// use transcript_hygiene::scrub::visible::cached_find::CachedFind;
    /// let mut end = CachedFind::new("</a>");
    /// let t = "x</a>y</a>";
    /// assert_eq!((end.at(t, 0), end.at(t, 1), end.at(t, 2), end.at(t, 7)), (Some(1), Some(1), Some(6), None));
    /// ```
    pub fn at(&mut self, text: &str, from: usize) -> Option<usize> {
        self.find_by(text, from, |_| None)
    }

    /// The first occurrence at or after `from` that `reject` lets stand: `reject(hit)` is `None`
    /// to take it, or `Some(next)` to search on from `next`. The answer is remembered for later
    /// calls from further on, whatever `reject` they pass: give one needle one rule.
    pub fn find_by(
        &mut self,
        text: &str,
        from: usize,
        mut reject: impl FnMut(usize) -> Option<usize>,
    ) -> Option<usize> {
        if let Some((f, found)) = self.last {
            if from >= f && found.is_none_or(|h| h >= from) {
                return found;
            }
        }
        let b = text.as_bytes();
        let mut at = from;
        let found = loop {
            let Some(i) = b.get(at..).and_then(|rest| self.finder.find(rest)) else {
                break None;
            };
            let hit = at + i;
            match reject(hit) {
                None => break Some(hit),
                Some(next) => at = next,
            }
        };
        self.last = Some((from, found));
        found
    }
}
