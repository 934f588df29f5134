//! JavaScript's idea of whitespace, for the rules that must trim or test strings exactly as the
//! TypeScript they replace does (`String.prototype.trim`, the regex class `\s`). Rust's
//! `char::is_whitespace` differs: it includes U+0085 and lacks U+FEFF.

/// ECMAScript WhiteSpace and LineTerminator code points.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The same set as a regex class, for patterns ported from JavaScript's `\s` (Rust's `\s` is
/// Unicode White_Space: it has U+0085 and lacks U+FEFF).
pub const JS_WHITESPACE_CLASS: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// `s.trim()` as JavaScript does it.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_the_ecmascript_whitespace_set() {
        assert_eq!(js_trim("\u{FEFF} x \u{00A0}"), "x");
        assert_eq!(js_trim("\u{2028}x\u{2029}"), "x");
        assert_eq!(js_trim("\u{0085}x"), "\u{0085}x");
    }
}
