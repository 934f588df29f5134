//! Literal search helpers shared by the scrubbers: they stand in for the case-insensitive regex
//! literals of the TypeScript they replace (`/\[Tool Call:/i`), whose `i` flag folds ASCII letters
//! only (ECMAScript non-Unicode canonicalisation never maps a non-ASCII letter to an ASCII one).
//! Each search jumps with `memchr` to the needle's first byte, so text without it costs one scan.

/// ECMAScript `\s` as a regex class body (the `regex` crate's `\s` differs: it has U+0085 and
/// lacks U+FEFF).
pub const JS_SPACE: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// The first `needle` at or after `from`, ASCII case-insensitively. `needle` must be ASCII and
/// start with a non-letter (`[`, `<`), so its first byte is searched exactly.
pub fn find_ci(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    let (&first, rest) = n.split_first()?;
    let mut at = from;
    while at < h.len() {
        let i = at + memchr::memchr(first, &h[at..])?;
        if h.len() - i >= n.len() && h[i + 1..i + n.len()].eq_ignore_ascii_case(rest) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// Whether `hay` has, right after some `first` byte, one of `tails` (ASCII case-insensitively).
/// One `memchr` pass over `first`, so a text without it costs one scan.
pub fn any_after(hay: &str, first: u8, tails: &[&str]) -> bool {
    let h = hay.as_bytes();
    memchr::memchr_iter(first, h).any(|i| {
        let rest = &h[i + 1..];
        tails
            .iter()
            .any(|t| rest.len() >= t.len() && rest[..t.len()].eq_ignore_ascii_case(t.as_bytes()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_ci_folds_ascii_only() {
        assert_eq!(find_ci("x [TOOL call: y", "[tool call:", 0), Some(2));
        assert_eq!(find_ci("[tool call:", "[tool call:", 1), None);
        assert_eq!(find_ci("[too", "[tool", 0), None);
        // U+212A KELVIN SIGN is not `k`, as in JavaScript's non-Unicode `i` flag.
        assert_eq!(find_ci("<invo\u{212A}e", "<invoke", 0), None);
    }

    #[test]
    fn any_after_checks_every_occurrence() {
        assert!(any_after("a < b <|x", b'<', &["|"]));
        assert!(!any_after("a < b", b'<', &["|"]));
        assert!(any_after("<｜", b'<', &["|", "｜"]));
    }
}
