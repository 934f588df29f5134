//! A DSML section opener garbled by the detokenizer: a character in place of its `<` or of its
//! first bar, or written before them (`中｜DSML｜tool_calls>`, `<中DSML｜tool_calls>`,
//! `<中｜DSML｜tool_calls>`), or its `<` lost (`｜DSML｜tool_calls>`), on its own line before the
//! section's first invoke. The special token `｜DSML｜` is split into byte-level pieces when a
//! server mangles it (the spellings [`super::dsml`] lists); one piece decoded as another character
//! leaves a tag no reader knows. The invokes after it were read, but the opener stayed visible
//! (the streaming sweep's class D, `<中｜DSML｜tool_calls>`).
//!
//! The evidence: a line that holds nothing but such an opener (a section name, then `>`), then a
//! line break and a DSML invoke. The same opener in a sentence, or not before an invoke, stays as
//! written; code never gets here. The line goes with the invoke's block, as a lost `< calls>`
//! does ([`super::dsml_lost_head`]).

/// The longest line taken for a garbled opener (`< 中 ｜｜ DSML ｜｜ function_calls ｜>` fits).
const MAX: usize = 64;

/// The parts of a line that may be a garbled opener: whether it lost its `<`, whether a
/// character garbles it, and the rest (from the bars or `DSML`). `None` when the line cannot be
/// one.
fn parts(line: &str) -> Option<(bool, bool, &str)> {
    let s = line.trim_start_matches(' ');
    let rest = s.strip_prefix('<');
    let lost = rest.is_none();
    let s = rest.unwrap_or(s);
    let garbled = s
        .chars()
        .next()
        .filter(|&c| !c.is_ascii() && !c.is_whitespace() && !matches!(c, '｜' | '‖'));
    let s = garbled.map_or(s, |c| &s[c.len_utf8()..]);
    // `<｜DSML｜tool_calls>` and `<DSML｜tool_calls>` (first bar missing) are openers
    // [`super::dsml::head`] reads itself: neither is garbled.
    (lost || garbled.is_some()).then_some((lost, garbled.is_some(), s))
}

/// Whether `line` (one line, no line break) is a garbled section opener.
pub fn is_opener(line: &str) -> bool {
    let line = line.trim_end_matches([' ', '\r']);
    let Some((_, garbled, s)) = parts(line) else {
        return false;
    };
    matches!(super::dsml::head_with(s, !garbled), Some((n, "function_calls")) if &s[n..] == ">")
}

/// Whether `line` (the last line of a stream's buffer) may still become a garbled opener.
fn may_become(line: &str) -> bool {
    let Some((_, garbled, s)) = parts(line) else {
        return line.trim_start_matches(' ') == "<";
    };
    if s.is_empty() {
        return true;
    }
    super::dsml::head_prefix_with(s, !garbled)
        || super::dsml::head_with(s, !garbled)
            .is_some_and(|(n, name)| name == "function_calls" && s[n..].is_empty())
}

/// Where the garbled opener line that `before` (the text before a DSML invoke's `<`) ends with
/// starts: `before` ends with the opener's line, then whitespace holding a line break. The
/// text's start counts as a line's start (the caller checks it is one).
pub fn start_before(before: &str) -> Option<usize> {
    // Only the last bytes can hold the line and its break: a long run of spaces is no tail.
    let mut lo = before.len().saturating_sub(2 * MAX);
    while !before.is_char_boundary(lo) {
        lo += 1;
    }
    let w = &before[lo..];
    let t = w.trim_end();
    if !w[t.len()..].contains('\n') || t.is_empty() {
        return None;
    }
    let s = match memchr::memrchr(b'\n', t.as_bytes()) {
        Some(i) => i + 1,
        None if lo == 0 => 0,
        None => return None,
    };
    (t.len() - s <= MAX && is_opener(&t[s..])).then_some(lo + s)
}

/// Where the last line of `text` starts when it may still become a garbled opener before an
/// invoke (the opener so far, or the opener and whitespace after it holding a line break): a
/// stream holds it until it knows.
pub fn partial(text: &str) -> Option<usize> {
    if let Some(s) = start_before(text) {
        return Some(s);
    }
    let b = text.as_bytes();
    let lo = b.len().saturating_sub(MAX);
    let s = match memchr::memrchr(b'\n', &b[lo..]) {
        Some(i) => lo + i + 1,
        None if lo == 0 => 0,
        None => return None,
    };
    let line = text.get(s..)?;
    (!line.is_empty() && (may_become(line) || is_opener(line))).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opener_lines() {
        for l in [
            "<中｜DSML｜tool_calls>",
            "中｜DSML｜tool_calls>",
            "<中DSML｜tool_calls>",
            "｜DSML｜tool_calls>",
            "  <中｜｜DSML｜｜function_calls>",
            "<中 | DSML | calls>",
        ] {
            assert!(is_opener(l), "{l}");
        }
        for l in [
            "<｜DSML｜tool_calls>",
            "<DSML｜tool_calls>",
            "中｜DSML｜invoke>",
            "中｜DSML｜tool_calls> 开始",
            "a｜DSML｜tool_calls>",
            "中文｜DSML｜tool_calls>",
        ] {
            assert!(!is_opener(l), "{l}");
        }
    }

    #[test]
    fn before_an_invoke_and_held_tails() {
        let t = "好的。\n<中｜DSML｜tool_calls>\n";
        assert_eq!(start_before(t), Some("好的。\n".len()));
        assert_eq!(start_before("<中｜DSML｜tool_calls>\n  "), Some(0));
        assert_eq!(start_before("好的。\n<中｜DSML｜tool_calls>"), None);
        assert_eq!(start_before("说 中｜DSML｜tool_calls>\n"), None);
        assert_eq!(partial("好的。\n中"), Some("好的。\n".len()));
        assert_eq!(partial("好的。\n中｜DSML｜tool"), Some("好的。\n".len()));
        assert_eq!(partial(t), Some("好的。\n".len()));
        assert_eq!(
            partial("好的。\n<中 ｜ DSML ｜ tool_calls>"),
            Some("好的。\n".len())
        );
        assert_eq!(partial("<😀｜DSML｜tool_calls>"), Some(0));
        assert_eq!(partial("好的。\n中文"), None);
        assert_eq!(partial("好的。\n<中｜DSML｜tool_calls> 是"), None);
    }
}
