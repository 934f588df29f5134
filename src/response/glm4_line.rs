//! GLM-4's own call form (glm-4-9b-chat): an offered tool's name alone on its line, its
//! arguments object starting the next: `query_train_info⏎{"departure": "上海", …}`.
//!
//! Why: GLM-4's template asks for the name and the JSON on two lines with no markup around them,
//! so a server that does not parse GLM-4's calls returns the call as the reply's text
//! (zai-org/GLM-4#36, a Chinese train query); the user sees a command that never ran.
//!
//! A word on a line and an object on the next is also how people write, so the evidence is the
//! same as for a name glued to its object ([`super::named_json`], which reads the object): the
//! word is exactly an offered tool's name, alone on its line (nothing before it on the line,
//! nothing after it but the line break), the `{` starts the very next line, and the object is
//! strict JSON that fits the tool. Inline code and fenced examples never get here.

use serde_json::Value;

use super::named_json::name_before;

/// The line break between the name and its object: `\n`, or `\r\n`.
fn strip_break(s: &str) -> Option<&str> {
    let s = s.strip_suffix('\n')?;
    Some(s.strip_suffix('\r').unwrap_or(s))
}

/// Where the offered name that ends `line` starts, when nothing is before it on its line.
fn alone(line: &str, tools: Option<&Value>) -> Option<usize> {
    let at = name_before(line, tools)?;
    let head = &line[..at];
    (head.is_empty() || head.ends_with('\n')).then_some(at)
}

/// The name's range when `before` (the text up to a `{`) ends with an offered name alone on its
/// line and the line break after it.
pub fn lead(before: &str, tools: Option<&Value>) -> Option<std::ops::Range<usize>> {
    let line = strip_break(before)?;
    Some(alone(line, tools)?..line.len())
}

/// Where a lead still waiting for its `{` at the end of `text` starts: an offered name alone on
/// its line followed by its line break, or by the `\r` of one (the name itself, before any break,
/// is held by [`super::named_json::partial_name_start`]).
pub fn partial(text: &str, tools: Option<&Value>) -> Option<usize> {
    let line = strip_break(text).or_else(|| text.strip_suffix('\r'))?;
    alone(line, tools)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_name_is_alone_on_its_line() {
        let t = json!([{"type": "function", "function": {"name": "query_train_info"}}]);
        let t = Some(&t);
        assert_eq!(
            lead("query_train_info\n", t),
            Some(0.."query_train_info".len())
        );
        assert_eq!(
            lead("好的。\nquery_train_info\r\n", t),
            Some("好的。\n".len().."好的。\nquery_train_info".len())
        );
        // Words before it on its line, a blank line, spaces, a longer word: no lead.
        for before in [
            "调用 query_train_info\n",
            "query_train_info\n\n",
            "query_train_info \n",
            "my_query_train_info\n",
            "query_train_info",
        ] {
            assert_eq!(lead(before, t), None, "{before:?}");
        }
        assert_eq!(lead("query_train_info\n", None), None);
        assert_eq!(
            partial("好的。\nquery_train_info\n", t),
            Some("好的。\n".len())
        );
        assert_eq!(partial("query_train_info\r", t), Some(0));
        assert_eq!(partial("query_train_info\nx", t), None);
    }
}
