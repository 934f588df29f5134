//! OLMo-3 (AI2) calls (reference §10): one Python call per line inside
//! `<function_calls>\nget_weather(city="London")\nget_time()\n</function_calls>`, with no list
//! brackets. `<function_calls>` is also a tag people write in prompts about other models, and the
//! body is plain Python, so this family is read only when `options.format` is `olmo3` or
//! `options.model` names OLMo-3. A block that does not read completely stays in the text
//! (reported); a missing `</function_calls>` runs to the end (reported).

use super::pythonic::wrapped;
use super::{Ctx, Parsed};

const NAME: &str = "olmo3";
/// Opens a block of calls (it also opens MiniMax's Anthropic-style wrapper, a family of its own).
pub(crate) const OPEN: &str = "<function_calls>";

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    out.blocks = wrapped(text, OPEN, "</function_calls>", NAME, &mut out.problems);
    out.set_format_if_calls(NAME);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn one_call_per_line_with_text_around() {
        let t = "Let me look.\n<function_calls>\nget_weather(city=\"São Paulo\", units='metric')\nsearch(q=\"a < b && c\\nd\", limit=5)\n</function_calls>\nBack soon.";
        let c = run(t, None, Some("allenai/Olmo-3-7B-Instruct"), None);
        assert_eq!(c.format, Some("olmo3"));
        assert_eq!(c.content, "Let me look.\nBack soon.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"city": "São Paulo", "units": "metric"})
                ),
                ("search", json!({"q": "a < b && c\nd", "limit": 5}))
            ]
        );
        assert!(
            run(t, None, None, None).tool_calls.is_empty(),
            "not in plain auto"
        );
    }

    #[test]
    fn unreadable_or_truncated_blocks_are_removed() {
        let t = "<function_calls>\n<invoke name=\"x\"></invoke>\n</function_calls>";
        let c = run(t, Some("olmo3"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        let t = "<function_calls>\nf(a=1)\ng(b=";
        let c = run(t, Some("olmo3"), None, None);
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 2);
    }
}
