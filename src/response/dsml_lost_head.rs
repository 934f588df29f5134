//! A DSML section opener whose head the detokenizer lost: `< calls>` on its own line, then the
//! first `<|DSML|invoke` (deepseek-web-api issue 11, DeepSeek V4.1's `calls` block). The call was
//! read but the opener stayed visible. It is an opener only when a DSML invoke follows it on a
//! later line (whitespace between); `< calls>` in a sentence stays as written.

/// The word of the lost opener.
const WORD: &str = "calls>";

/// Right after a `<` (`s`): `Some(n)` when `s` is such an opener, `n` the bytes of its spaces
/// and `calls` (up to its `>`); `Some(0)` when not; `None` when `s`, cut short by the end of a
/// stream's buffer (`fin` false), does not tell yet.
pub fn lost_head(s: &str, fin: bool) -> Option<usize> {
    let t = s.trim_start_matches(' ');
    let spaces = s.len() - t.len();
    let wait = if fin { Some(0) } else { None };
    if spaces == 0 {
        return Some(0);
    }
    let Some(after) = t.strip_prefix(WORD) else {
        return if WORD.starts_with(t) { wait } else { Some(0) };
    };
    let rest = after.trim_start();
    let gap = &after[..after.len() - rest.len()];
    if !gap.contains('\n') {
        return if rest.is_empty() { wait } else { Some(0) };
    }
    let Some(h) = rest.strip_prefix('<') else {
        return if rest.is_empty() { wait } else { Some(0) };
    };
    match super::dsml::head(h) {
        Some((_, "invoke")) => Some(spaces + WORD.len() - 1),
        None if !fin && super::dsml::head_prefix(h) => None,
        _ => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_before_an_invoke_on_a_later_line() {
        assert_eq!(
            lost_head(" calls>\n<|DSML|invoke name=\"f\">", true),
            Some(6)
        );
        assert_eq!(lost_head(" calls>\n<｜｜DSML｜｜invoke", true), Some(6));
        assert_eq!(lost_head(" calls> 只是占位符", true), Some(0));
        assert_eq!(
            lost_head(" calls> <|DSML|invoke name=\"f\">", true),
            Some(0)
        );
        assert_eq!(lost_head(" calls>\n<p>", true), Some(0));
        assert_eq!(lost_head("calls>\n<|DSML|invoke", true), Some(0));
        assert_eq!(lost_head(" cal", false), None);
        assert_eq!(lost_head(" calls>\n<|DS", false), None);
        assert_eq!(lost_head(" calls>\n<|DS", true), Some(0));
    }
}
