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
//! The evidence here instead: the request offered tools (`options.tools`), and a line starts
//! with one call `NAME(k=v, …)` or a list of them `[NAME(…), …]` (Python literals,
//! [`super::pyliteral`]), every `NAME` exactly an offered tool's name, every keyword one of the
//! tool's `properties` and every `required` one given (when its schema lists them). After the
//! call its line holds nothing, or prose: a space then a word (`remember(fact="…") I have
//! updated…`, gaia#2521's other run), or a word of a script written without spaces
//! (`get_weather(city="北京")查询一下`); a call with no keywords only alone on its line. The
//! arguments may run over several lines when the call's first line ends open (after `(`, `[` or
//! `,`), as a model writes a long call. A call inside a sentence, naming a tool not offered,
//! followed by code (`get_weather(city="x").temp`, `… == 1`), in inline code or a fence (the
//! stream machine keeps code as text) stays as written.

use serde_json::Value;

use super::bare_json::{offered, schema};
use super::named_json;
use super::pyliteral::{call, call_list};
use super::{Parsed, RawCall};

/// The format reported.
pub const NAME: &str = "pythonic";

/// The longest line looked at (a longer one is text).
pub const MAX_LINE: usize = 1 << 16;

/// The calls that start `line` (one line, no line break, or the lines of one call, [`span`]) when
/// it is one pythonic call or a list of them, all of offered tools with fitting keywords, and
/// then nothing or prose: the calls and where they end in `line`.
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
    let after = line[end..].trim_end();
    // Prose after the call only when the call has keywords.
    let prose_after = prose(after) && calls.iter().all(|c| c.arguments != "{}");
    if !(after.is_empty() || prose_after) {
        return None;
    }
    calls.iter().all(|c| fits(tools, c)).then_some((calls, end))
}

/// Whether `after` (what follows a call on its line, not empty) is prose: spaces then a word, or
/// right away a letter of a script written without spaces (not ASCII: `查询一下`).
fn prose(after: &str) -> bool {
    let t = after.trim_start_matches([' ', '\t']);
    let spaced = t.len() < after.len();
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() && (spaced || !c.is_ascii()))
}

/// How much of `rest` (from a call's name or its list's `[`, at a line's start) to read as the
/// call's text: its first line, or, when that line ends open (after `(`, `[` or `,`), the lines
/// up to the one its brackets close on, each a continuation of arguments ([`continues`]: a
/// keyword, a value or a closing bracket first). `Some(None)`: no call's text (a line that
/// continues nothing, longer than [`MAX_LINE`], or the reply ended with its brackets open);
/// `None`: more text may tell (`finished` false). Reads `rest` once, up to the first line that
/// continues nothing.
pub fn span(rest: &str, finished: bool) -> Option<Option<usize>> {
    let b = rest.as_bytes();
    let first = memchr::memchr(b'\n', b);
    let line = first.map_or(rest, |k| &rest[..k]);
    if let (Some(k), true) = (first, line.trim_end().ends_with(['(', '[', ','])) {
        // The continuation lines: up to the first that is no argument's.
        let list = rest.starts_with('[');
        let mut region = rest.len();
        let mut at = k + 1;
        while at < rest.len() && at <= MAX_LINE {
            let e = memchr::memchr(b'\n', &b[at..]).map_or(rest.len(), |e| at + e);
            let whole = e < rest.len() || finished;
            if whole && !continues(&rest[at..e], list) {
                region = at;
                break;
            }
            at = e + 1;
        }
        let open = region == rest.len() && !finished && rest.len() <= MAX_LINE;
        let Some(close) = closes(&b[..region.min(MAX_LINE)]) else {
            return if open { None } else { Some(None) };
        };
        return match memchr::memchr(b'\n', &b[close..]) {
            Some(e) => Some(Some(close + e)),
            None if finished => Some(Some(rest.len())),
            None if rest.len() <= MAX_LINE => None,
            None => Some(None),
        };
    }
    match first {
        Some(k) => Some(Some(k)),
        None if finished => Some(Some(rest.len())),
        None if rest.len() > MAX_LINE => Some(None),
        None => None,
    }
}

/// Whether `line` continues a call's arguments: after spaces, a keyword and `=`
/// (`    city="北京",`), a value (a quote, digit, sign or bracket) or a closing bracket; in a
/// list of calls, a call (`  get_weather(…),`) too.
fn continues(line: &str, list: bool) -> bool {
    let t = line.trim();
    let Some(c) = t.chars().next() else {
        return false;
    };
    if matches!(c, ')' | ']' | '}' | '"' | '\'' | '[' | '{' | '(' | '-') || c.is_ascii_digit() {
        return true;
    }
    let n = t
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let after = t[n..].trim_start();
    n > 0
        && ((after.starts_with('=') && !after.starts_with("=="))
            || (list && after.starts_with('(')))
}

/// Where the brackets opened in `b` (Python text) first all close again: the byte after the
/// closing one. Strings (`'…'`, `"…"`, with `\\` escapes) are skipped.
fn closes(b: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut escaped = false;
    for (i, &c) in b.iter().enumerate() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            b'\'' | b'"' => quote = Some(c),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
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
    let mut p = Parsed::whole(len, calls);
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
        assert!(read_line("get_weather(city='x') now", t).is_some());
        assert!(read_line("get_weather(city='x')查询一下", t).is_some());
        assert!(read_line("get_weather(city='x').temp", t).is_none());
        assert!(read_line("get_weather(city='x') == 1", t).is_none());
        assert!(read_line("get_weather(city='x')now", t).is_none());
        assert!(read_line("get_weather(\n  city='x',\n)", t).is_some());
        assert!(read_line("get_time(tz='UTC')", t).is_none());
        assert!(read_line("get_weather(town='x')", t).is_none());
        assert!(read_line("get_weather()", t).is_none());
        assert!(read_line("get_weather('x')", t).is_none());
        assert!(read_line("get_weather(city='x')", None).is_none());
    }

    #[test]
    fn spans_of_calls_over_lines() {
        assert_eq!(span("f(x=1)\nnext", false), Some(Some(6)));
        assert_eq!(span("f(x=1)", false), None);
        assert_eq!(span("f(x=1)", true), Some(Some(6)));
        let t = "f(\n  x='a)',\n) 好\nnext";
        assert_eq!(span(t, false), Some(Some(t.len() - 5)));
        assert_eq!(span("f(\n  x=1,", false), None);
        assert_eq!(span("f(\n  x=1,", true), Some(None));
        assert_eq!(span("f(x=1,\n  y=2)", true), Some(Some(13)));
        // A line that continues no argument ends the search.
        assert_eq!(span("f(\n这是函数\n)", false), Some(None));
        assert_eq!(span("f(\n  x=1,\nf(\n", false), Some(None));
        assert_eq!(span("[\n  f(x=1),\n]\n", false), Some(Some(13)));
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
        // Calls whose first line ends open, each followed by argument lines then the next call
        // (no bracket ever closes): each is read only to the next line that continues nothing.
        let lines = |n: usize| "get_weather(\n  city='北京',\n".repeat(n / 30 + 1);
        assert_grows_linearly("open multi-line calls", &lines, &|t| {
            stream_in_deltas(&opts, t, 64);
        });
    }
}
