//! Jamba (AI21) calls (reference §21): `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`,
//! the same grammar as Hunyuan-A13B ([`super::hunyuan_a13b`]). A reply cannot tell the two apart,
//! so `auto` reports `hunyuan_a13b` unless `options.model` names Jamba (or `format` is `jamba`);
//! only the format name differs (Jamba has no `<answer>` wrapper to remove).

use super::hunyuan_a13b::spec;
use super::json_calls::Tagged;

pub const SPEC: Tagged = spec("jamba");

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn named_by_model_and_text_kept() {
        let t = "Sure.\n<tool_calls>[{\"name\": \"search\", \"arguments\": {\"q\": \"a & b\\n<c>\"}}]</tool_calls>\nThen I'll summarise.";
        let c = run(t, None, Some("ai21labs/AI21-Jamba-Mini-1.6"), None);
        assert_eq!(c.format, Some("jamba"));
        assert_eq!(c.content, "Sure.\nThen I'll summarise.");
        assert_eq!(named(&c), [("search", json!({"q": "a & b\n<c>"}))]);
        assert_eq!(run(t, None, None, None).format, Some("hunyuan_a13b"));
        let m = run(
            "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1,}}]</tool_calls>",
            Some("jamba"),
            None,
            None,
        );
        assert_eq!(m.tool_calls[0].arguments(), "{\"a\": 1,}");
        assert_eq!(m.problems.len(), 1);
    }
}
