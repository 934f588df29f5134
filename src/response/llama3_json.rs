//! Llama 3.1 / 3.2 / 3.3 JSON calls (`llama3_json`, reference §9):
//! `<|python_tag|>{"name": "search", "parameters": {"query": "weather"}}`, several separated by
//! `;`. The key is `parameters` (`arguments` is read too). The tag is often left out, leaving a bare
//! JSON object, so this family is read only when `options.format` is `llama3_json` or
//! `options.model` names a Llama-3 model; in plain `auto` no JSON is ever taken for a call (even
//! after `<|python_tag|>`).
//!
//! When named: objects after `<|python_tag|>` are read (invalid ones recovered and reported, as for
//! Hermes), and elsewhere any complete JSON object with a string `"name"` and an object
//! `"parameters"`/`"arguments"` is a call (with a Markdown fence around it); other JSON is left
//! alone. vLLM 0.14 drops the text before the call; it is kept here, as smg does. The built-in
//! tool form `<|python_tag|>brave_search.call(query="…")` is read as a call to `brave_search`.
//! Stray `<|eom_id|>` / `<|eot_id|>` turn ends are removed.

use super::json_calls::{bare_blocks, parse_tagged, Body, Close, Tagged};
use super::pyliteral::call;
use super::scan::Finder;
use super::{Block, Ctx, Parsed};

const NAME: &str = "llama3_json";
const TAG: &str = "<|python_tag|>";
const SPEC: Tagged = Tagged {
    name: NAME,
    opens: &[TAG],
    body: Body::Object,
    close: Close::None,
    glued: false,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &SPEC, cx.tools);
    builtin_calls(text, &mut out);
    let mut found = Vec::new();
    for (s, e) in out.gaps(text.len()) {
        for mut b in bare_blocks(&text[s..e], Body::Object, NAME, None, &mut out.problems) {
            b.start += s;
            b.end += s;
            found.push(b);
        }
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
    super::turn_end::strip(&mut out, text, super::functionary::TURN_ENDS);
    out.set_format_if_calls(NAME);
    out
}

/// `<|python_tag|>tool.call(k="v")` built-in tool calls.
fn builtin_calls(text: &str, out: &mut Parsed) {
    let mut tags = Finder::new(TAG);
    let mut at = 0;
    let mut found = Vec::new();
    while let Some(t) = tags.find(text, at) {
        at = t + TAG.len();
        // The tagged blocks are sorted by start: one binary search, not a scan of them all.
        if out.blocks.binary_search_by_key(&t, |b| b.start).is_ok() {
            continue;
        }
        if let Some((c, end)) = call(text, at) {
            found.push(Block {
                start: t,
                end,
                calls: vec![c],
                keep_raw: false,
            });
            at = end;
        }
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn tagged_and_bare_calls_when_named() {
        let t = "Here are some results: <|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"北京 & <weather>\\n\"}}; \
                 {\"name\": \"get_time\", \"parameters\": {}}<|eom_id|>";
        let c = run(t, None, Some("meta-llama/Llama-3.3-70B-Instruct"), None);
        assert_eq!(c.format, Some("llama3_json"));
        assert_eq!(c.content, "Here are some results:");
        assert_eq!(
            named(&c),
            [
                ("search", json!({"query": "北京 & <weather>\n"})),
                ("get_time", json!({}))
            ]
        );
        let bare =
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\", \"days\": 3}}";
        let c = run(bare, Some("llama3_json"), None, None);
        assert_eq!(
            named(&c),
            [("get_weather", json!({"city": "Paris", "days": 3}))]
        );
        assert_eq!(c.content, "");
    }

    #[test]
    fn ordinary_json_is_not_a_call() {
        let t = "The config is {\"name\": \"app\", \"version\": 2} and {\"name\": \"x\", \"parameters\": \"str\"}.";
        let c = run(t, Some("llama3_json"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, t);
        let call = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}";
        let c = run(call, None, None, None);
        assert!(c.tool_calls.is_empty(), "plain auto never reads bare JSON");
        let c = run(&format!("<|python_tag|>{call}"), None, None, None);
        assert!(c.tool_calls.is_empty(), "nor the tagged form");
    }

    #[test]
    fn builtin_malformed_and_truncated() {
        let c = run(
            "<|python_tag|>brave_search.call(query=\"rust 2024\")",
            Some("llama3_json"),
            None,
            None,
        );
        assert_eq!(named(&c), [("brave_search", json!({"query": "rust 2024"}))]);
        let c = run(
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1,}}",
            Some("llama3_json"),
            None,
            None,
        );
        assert_eq!(c.tool_calls[0].arguments(), "{\"a\": 1,}");
        assert_eq!(c.problems.len(), 1);
        let t = "Sure <|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": ";
        let c = run(t, Some("llama3_json"), None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "Sure");
    }
}
