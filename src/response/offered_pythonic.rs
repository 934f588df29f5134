//! A Python-style call of an offered tool, alone on its line, with no family named:
//! `remember(fact="…", category="preference")` or `[get_weather(city="北京")]`.
//!
//! Why: models behind servers that give them no native tool calls (GAIA's email agent on the NPU
//! path, amd/gaia#2521: "Response, verbatim and in its entirety: `remember(fact=…)`"), and small
//! Llama-family models whose template teaches the pythonic list, write the call as Python text;
//! the agent never runs it and the user sees internal syntax. [`super::pythonic`] and
//! [`super::llama4_pythonic`] read such text only when the format or model names them, because
//! Python is what people write.
//!
//! The evidence here instead: the request offered tools (`options.tools`), and a line holds
//! nothing but one call `NAME(k=v, …)` or a list of them `[NAME(…), …]` (Python literals,
//! [`super::pyliteral`]), every `NAME` exactly an offered tool's name, every keyword one of the
//! tool's `properties` and every `required` one given (when its schema lists them). A call inside
//! a sentence, naming a tool not offered, in inline code or a fence (the stream machine keeps
//! code as text), or written across lines stays as written.

use serde_json::Value;

use super::bare_json::{offered, schema};
use super::named_json;
use super::pyliteral::{call, call_list};
use super::{Block, Parsed, RawCall};

/// The format reported.
pub const NAME: &str = "pythonic";

/// The longest line looked at (a longer one is text).
pub const MAX_LINE: usize = 1 << 16;

/// The calls of `line` (one line, no line break, spaces after it allowed) when it is nothing but
/// one pythonic call or a list of them, all of offered tools with fitting keywords: the calls and
/// where they end in `line`.
pub fn read_line(line: &str, tools: Option<&Value>) -> Option<(Vec<RawCall>, usize)> {
    if line.len() > MAX_LINE {
        return None;
    }
    let (calls, end) = if line.starts_with('[') {
        call_list(line, 0)?
    } else {
        let (c, end) = call(line, 0)?;
        (vec![c], end)
    };
    if !line[end..].trim_end().is_empty() {
        return None;
    }
    calls.iter().all(|c| fits(tools, c)).then_some((calls, end))
}

/// The call's name is offered exactly and its keywords fit the tool's schema
/// ([`named_json::fits`]); a call with no keywords fits a tool that requires none.
fn fits(tools: Option<&Value>, c: &RawCall) -> bool {
    if !offered(tools, &c.name) {
        return false;
    }
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(&c.arguments) else {
        return false;
    };
    if args.is_empty() {
        let required = schema(tools, &c.name)
            .and_then(|p| p.get("required"))
            .and_then(Value::as_array);
        return required.is_none_or(Vec::is_empty);
    }
    named_json::fits(tools, &c.name, &args)
}

/// The reading of a block that is exactly such a line's calls (`len` bytes).
pub fn parsed(calls: Vec<RawCall>, len: usize) -> Parsed {
    let mut p = Parsed::default();
    p.blocks.push(Block {
        start: 0,
        end: len,
        calls,
        keep_raw: false,
    });
    p.set_format_if_calls(NAME);
    p
}

#[cfg(test)]
mod tests {
    use super::super::linearity::{assert_grows_linearly, stream_in_deltas};
    use super::super::{clean_response, Options};
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_of_offered_calls() {
        let tools = json!([{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
            "required": ["city"]}}}]);
        let t = Some(&tools);
        let (calls, end) = read_line("get_weather(city='上海')  ", t).unwrap();
        assert_eq!((calls[0].name.as_str(), end), ("get_weather", 26));
        assert!(read_line("[get_weather(city=\"北京\")]", t).is_some());
        assert!(read_line("get_weather(city='x') now", t).is_none());
        assert!(read_line("get_time(tz='UTC')", t).is_none());
        assert!(read_line("get_weather(town='x')", t).is_none());
        assert!(read_line("get_weather()", t).is_none());
        assert!(read_line("get_weather('x')", t).is_none());
        assert!(read_line("get_weather(city='x')", None).is_none());
    }

    #[test]
    fn lines_and_held_lines_stay_linear() {
        let tools = json!([{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
        let opts = Options {
            tools: Some(tools),
            ..Options::default()
        };
        // Lines of calls; a name glued to `(` on every word of one line that never ends; calls
        // whose arguments never close, each on a long line, arriving in 64-byte deltas (each
        // line held to its end, asked again only as the held text grows by a quarter).
        let lines = |n: usize| "get_weather(city='北京')\n说明\n".repeat(n / 36 + 1);
        assert_grows_linearly("pythonic lines", &lines, &|t| {
            let _ = clean_response(t, &opts);
        });
        let glued = |n: usize| "get_weather(x ".repeat(n / 14 + 1);
        assert_grows_linearly("names glued to ( on one line", &glued, &|t| {
            let _ = clean_response(t, &opts);
        });
        let open = |n: usize| {
            let line = format!("get_weather(city='{}\n", "北京abc ".repeat(800));
            line.repeat(n / line.len() + 1)
        };
        assert_grows_linearly("unclosed pythonic lines, streamed", &open, &|t| {
            stream_in_deltas(&opts, t, 64);
        });
    }
}
