//! GigaChat3 (Sber) calls (reference §21): `function call<|role_sep|>\n{"name": …, "arguments": {…}}`.
//! `<|role_sep|>` is a special token and the words before it are fixed, so `auto` detects the
//! form. There is no closing marker: the block ends with the JSON, and text after it is kept.
//! Bodies are read by [`super::json_calls`].

use super::json_calls::{parse_tagged, Body, Close, Tagged};
use super::{Ctx, Parsed};

const SPEC: Tagged = Tagged {
    name: "gigachat3",
    opens: &["function call<|role_sep|>"],
    body: Body::Object,
    close: Close::None,
    glued: false,
};

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    parse_tagged(text, &SPEC)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn call_with_text_around() {
        let t = "Сейчас проверю.\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Москва\", \"q\": \"a<b & c\"}}\nГотово.";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("gigachat3"));
        assert_eq!(c.content, "Сейчас проверю.\nГотово.");
        assert_eq!(
            named(&c),
            [("get_weather", json!({"city": "Москва", "q": "a<b & c"}))]
        );
    }

    #[test]
    fn malformed_and_truncated() {
        let c = run(
            "function call<|role_sep|>{\"name\": \"f\", \"arguments\": {\"a\": tru}}",
            None,
            None,
            None,
        );
        assert_eq!(c.tool_calls[0].arguments, "{\"a\": tru}");
        assert_eq!(c.problems.len(), 1);
        let t = "function call<|role_sep|>{\"name\": \"f\", \"argu";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "");
        assert_eq!(c.problems.len(), 1);
    }
}
