//! Format detection for `auto` mode and the small literal-search helpers every family shares.
//!
//! Detection must be cheap on a reply with no markers (the common case): it jumps from `<` to `<`
//! with `str::find(char)` (memchr) and compares marker literals only there, so a reply without `<`
//! costs one memchr pass. Only families whose markers are unambiguous are detected; the first
//! marker in the text wins. `<tool_call>` is shared by three grammars and is told apart by what
//! follows it (reference §4): `{` is Hermes, `<function=` is Qwen3-Coder, a bare name is GLM.

use super::Family;

pub const TOOL_CALL: &str = "<tool_call>";
pub const TOOL_CALL_END: &str = "</tool_call>";

/// Openers that name their family directly.
const OPENERS: &[(&str, Family)] = &[
    ("<minimax:tool_call>", Family::MinimaxM2),
    ("<|tool_calls_section_begin|>", Family::KimiK2),
    ("<|tool_call_section_begin|>", Family::KimiK2),
    ("<|tool_call_begin|>", Family::KimiK2),
    ("<｜tool▁calls▁begin｜>", Family::DeepSeek),
    ("<｜tool▁call▁begin｜>", Family::DeepSeek),
];

/// The family of the first unambiguous tool-call marker in `text`, if any. `unwrapped` also
/// accepts Qwen3-Coder's `<function=NAME>` without its `<tool_call>` wrapper.
pub fn detect(text: &str, unwrapped: bool) -> Option<Family> {
    let mut kimi_args = Finder::new("<|tool_call_argument_begin|>");
    let mut function_end = Finder::new("</function>");
    let mut from = 0;
    while let Some(off) = text[from..].find('<') {
        let at = from + off;
        let rest = &text[at..];
        if let Some(&(_, f)) = OPENERS.iter().find(|(m, _)| rest.starts_with(m)) {
            // A lone `<|tool_call_begin|>` counts only with its argument marker after it.
            if !rest.starts_with("<|tool_call_begin|>") || kimi_args.find(text, at).is_some() {
                return Some(f);
            }
        }
        if let Some(body) = rest.strip_prefix(TOOL_CALL) {
            if let Some(f) = classify_tool_call(body) {
                return Some(f);
            }
        }
        if unwrapped && rest.starts_with("<function=") && function_end.find(text, at).is_some() {
            return Some(Family::Qwen3Coder);
        }
        from = at + 1;
    }
    None
}

/// Which `<tool_call>` grammar `body` (the text right after the marker) is written in.
pub fn classify_tool_call(body: &str) -> Option<Family> {
    let t = body.trim_start();
    if t.starts_with('{') {
        return Some(Family::Hermes);
    }
    if t.starts_with("<function=") {
        return Some(Family::Qwen3Coder);
    }
    // GLM: a name, then `<arg_key>`, `</tool_call>` or a line break.
    let end = t.find(['<', '\n']).unwrap_or(t.len());
    let name = t[..end].trim();
    let next = &t[end..];
    let follows_ok = next.is_empty()
        || next.starts_with('\n')
        || next.starts_with("<arg_key>")
        || next.starts_with(TOOL_CALL_END);
    if follows_ok && is_name(name) {
        Some(Family::Glm)
    } else {
        None
    }
}

/// A plausible function name: non-empty, no whitespace, no quotes or brackets.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 256
        && !s
            .chars()
            .any(|c| c.is_whitespace() || "\"'<>{}[]()=,;`".contains(c))
}

/// Repeated forward searches for one needle in one text, amortised linear: it remembers its last
/// answer, so openers without closers (`<tool_call>` ×100 000, no `</tool_call>`) do not rescan
/// the rest of the text each time. `from` must not decrease between calls for the cache to help
/// (a smaller `from` is still answered correctly).
#[derive(Debug, Clone)]
pub struct Finder<'n> {
    needle: &'n str,
    last: Option<(usize, Option<usize>)>,
}

impl<'n> Finder<'n> {
    pub fn new(needle: &'n str) -> Self {
        Finder { needle, last: None }
    }

    /// The first `needle` at or after `from` in `haystack` (always the same haystack).
    pub fn find(&mut self, haystack: &str, from: usize) -> Option<usize> {
        if let Some((f, hit)) = self.last {
            if from >= f {
                match hit {
                    None => return None,
                    Some(h) if h >= from => return Some(h),
                    Some(_) => {}
                }
            }
        }
        let hit = find_from(haystack, self.needle, from);
        self.last = Some((from, hit));
        hit
    }
}

/// `haystack.find(needle)` starting at byte `from` (which must be a char boundary or the end).
pub fn find_from(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    haystack.get(from..)?.find(needle).map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_first_marker() {
        assert_eq!(detect("plain text", false), None);
        assert_eq!(detect("a < b and <b>bold</b>", false), None);
        assert_eq!(
            detect("x<tool_call>\n{\"name\":\"f\"}</tool_call>", false),
            Some(Family::Hermes)
        );
        assert_eq!(
            detect("<tool_call>\n<function=f>", false),
            Some(Family::Qwen3Coder)
        );
        assert_eq!(
            detect("<tool_call>get_weather\n<arg_key>", false),
            Some(Family::Glm)
        );
        assert_eq!(
            detect("<tool_call>refresh</tool_call>", false),
            Some(Family::Glm)
        );
        assert_eq!(
            detect("<minimax:tool_call>", false),
            Some(Family::MinimaxM2)
        );
        assert_eq!(
            detect("<｜tool▁calls▁begin｜>", false),
            Some(Family::DeepSeek)
        );
        assert_eq!(
            detect("<|tool_calls_section_begin|>", false),
            Some(Family::KimiK2)
        );
    }

    #[test]
    fn finder_matches_find_from() {
        let t = "a<x>b<x>c";
        let mut f = Finder::new("<x>");
        for from in 0..=t.len() {
            assert_eq!(f.find(t, from), find_from(t, "<x>", from));
        }
        assert_eq!(f.find(t, 0), Some(1));
    }

    #[test]
    fn prose_after_tool_call_tag_is_not_glm() {
        assert_eq!(detect("use the <tool_call> tag like this", false), None);
        assert_eq!(detect("<function=f>x</function>", false), None);
        assert_eq!(
            detect("<function=f>x</function>", true),
            Some(Family::Qwen3Coder)
        );
    }
}
