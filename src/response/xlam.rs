//! Salesforce xLAM calls (reference §20): a bare JSON array of `{"name", "arguments"}` objects. It
//! may follow `</think>` (split off as reasoning), sit in a ```` ```json ```` fence, follow
//! `[TOOL_CALLS]`, or sit inside `<tool_call>…</tool_call>`. A bare array is ordinary JSON to
//! anyone else, so this family is read only when `options.format` is `xlam` or `options.model`
//! names xLAM; then the `[TOOL_CALLS]` and `<tool_call>` forms are read (bad JSON recovered and
//! reported), and elsewhere any complete array whose items are all call-shaped objects (a string
//! `"name"` and an object `"arguments"`) is a call list, with its fence. Unlike vLLM, the text after
//! the calls is kept too.

use super::json_calls::{bare_blocks, parse_tagged, Body, Close, Tagged};
use super::scan::TOOL_CALL;
use super::{Ctx, Parsed};

const NAME: &str = "xlam";
const TAGGED: [Tagged; 2] = [
    Tagged {
        name: NAME,
        opens: &["[TOOL_CALLS]"],
        body: Body::Array,
        close: Close::None,
        glued: false,
    },
    Tagged {
        name: NAME,
        opens: &[TOOL_CALL],
        body: Body::Either,
        close: Close::Optional("</tool_call>"),
        glued: false,
    },
];

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    for spec in &TAGGED {
        let p = parse_tagged(text, spec, cx.tools);
        out.problems.extend(p.problems);
        // The blocks kept so far are sorted and disjoint: one binary search per new block finds
        // the only ones it could overlap (a scan of all of them was quadratic on `<tool_call>{`
        // ×100 000).
        let kept = out.blocks.len();
        for b in p.blocks {
            let i = out.blocks[..kept].partition_point(|o| o.end <= b.start);
            if out.blocks[..kept].get(i).is_none_or(|o| b.end <= o.start) {
                out.blocks.push(b);
            }
        }
        out.blocks.sort_by_key(|b| b.start);
    }
    let mut found = Vec::new();
    for (s, e) in out.gaps(text.len()) {
        for mut b in bare_blocks(&text[s..e], Body::Either, NAME, None, &mut out.problems) {
            b.start += s;
            b.end += s;
            found.push(b);
        }
    }
    out.blocks.append(&mut found);
    out.blocks.sort_by_key(|b| b.start);
    out.set_format_if_calls(NAME);
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn fenced_array_after_reasoning() {
        let t = "<think>use both</think>Calling:\n```json\n[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京 <&>\"}}, \
                 {\"name\": \"get_time\", \"arguments\": {\"tz\": \"a\\nb\"}}]\n```\n";
        let c = run(t, None, Some("Salesforce/Llama-xLAM-2-8b-fc-r"), None);
        assert_eq!(c.format, Some("xlam"));
        assert_eq!(c.reasoning, "use both");
        assert_eq!(c.content, "Calling:");
        assert_eq!(
            named(&c),
            [
                ("get_weather", json!({"city": "北京 <&>"})),
                ("get_time", json!({"tz": "a\nb"}))
            ]
        );
        assert!(
            run(t, None, None, None).tool_calls.is_empty(),
            "not in plain auto"
        );
        // With prose after it, the fence is an example: kept as written, reported.
        let example = format!("{t}ok");
        let c = run(
            &example,
            None,
            Some("Salesforce/Llama-xLAM-2-8b-fc-r"),
            None,
        );
        assert!(c.tool_calls.is_empty());
        assert_eq!(
            c.content,
            example.strip_prefix("<think>use both</think>").unwrap()
        );
    }

    #[test]
    fn tagged_forms_and_non_calls() {
        let c = run(
            "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            None,
            Some("xlam-7b"),
            None,
        );
        assert_eq!(
            (c.format, named(&c)),
            (Some("xlam"), vec![("f", json!({"a": 1}))])
        );
        let c = run(
            "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": 'x'}}]</tool_call>",
            Some("xlam"),
            None,
            None,
        );
        assert_eq!(c.tool_calls[0].arguments(), "{\"a\": 'x'}");
        assert_eq!(c.content, "");
        let t = "Scores: [1, 2, 3] and [{\"name\": \"bob\", \"age\": 3}]";
        let c = run(t, Some("xlam"), None, None);
        assert_eq!((c.content.as_str(), c.tool_calls.len()), (t, 0));
    }
}
