//! Never a garbage call: whatever a family parser read, a call is returned only when a tool could
//! really be called with it. A call is dropped (reported as `skipped-call`, with the raw text of
//! its block, so nothing is lost) when
//!
//! - its name carries quotes, backslashes, markup or whitespace (`"f`, `f\"`, `<f>`, `get weather`
//!   unless `tools` resolves it: a name with spaces that names one offered tool becomes that tool);
//! - the tools say which parameters it requires and its arguments hold none of them (a call whose
//!   arguments the reply lost);
//! - the reply was cut off inside its arguments (`max_tokens`): its block reaches the end of the
//!   text and does not end with a closing bracket, closing tag or special token, so its last value
//!   may be partial (`<parameter=n>\n4` could have been `42`; an agent would write half a file).
//!   A block cut after a complete argument (`{"a": 1}` with `</tool_call>` missing) keeps its call;
//! - its arguments, kept as written because they are not valid JSON, end inside a string
//!   (`{"q": "北京`): the text was cut there (a reply cut by `max_tokens` inside a value that held
//!   the block's closing tag, so the block ended at that tag), and no tool can run half a value;
//! - it has no arguments while its block shows it had some (`<parameter…` or `<arg_key>` that the
//!   family could not read, or a JSON call's arguments under the schema's `"properties"` key).
//!
//! A block whose every call is dropped leaves the visible text all the same: its markup is removed
//! (the user never sees it) and its raw text is in `problems`.

use serde_json::Value;

use super::bare_json::resolve;
use super::{Ctx, Parsed};

/// Drop the calls of `p` (read from `text`) that no tool could run.
pub fn drop_garbage(p: &mut Parsed, text: &str, cx: &Ctx) {
    let end = text.trim_end().len();
    for b in &mut p.blocks {
        let before = b.calls.len();
        let raw = text.get(b.start..b.end).unwrap_or("");
        let cut = b.end >= end && !ends_complete(raw);
        let lone = before == 1;
        let mut dropped: Vec<String> = Vec::new();
        let mut i = 0;
        b.calls.retain_mut(|c| {
            i += 1;
            // Only the last call of a block can be cut: the calls before it ended.
            if cut && i == before {
                dropped.push(format!(
                    "call {:?} was cut off inside its arguments",
                    c.name
                ));
                return false;
            }
            if ends_in_string(&c.arguments) {
                dropped.push(format!(
                    "call {:?} was cut off inside a string of its arguments",
                    c.name
                ));
                return false;
            }
            if lone
                && c.arguments.trim() == "{}"
                && (shows_arguments(super::qwen3_coder::past_garbled_head(raw))
                    || shows_schema_arguments(raw))
            {
                dropped.push(format!(
                    "call {:?} has arguments in its markup that could not be read",
                    c.name
                ));
                return false;
            }
            if !clean_name(&c.name) {
                match resolve(cx.tools, &c.name) {
                    Some(n) => c.name = n.to_owned(),
                    None => {
                        dropped.push(format!("name {:?} is not a tool name", c.name));
                        return false;
                    }
                }
            }
            if misses_every_required(cx.tools, &c.name, &c.arguments) {
                dropped.push(format!(
                    "call {:?} has none of the parameters its tool requires",
                    c.name
                ));
                return false;
            }
            true
        });
        if dropped.is_empty() {
            continue;
        }
        p.problems.push(format!(
            "skipped-call: {}; raw text: {raw}",
            dropped.join("; ")
        ));
        if b.calls.is_empty() && before > 0 {
            b.keep_raw = false;
        }
    }
}

/// Whether a block's raw text ends as only a complete block can: with a closing bracket, a
/// closing tag (`</…>`), the end of a self-closing tag (`/>`, Gemini's wrapped call) or a special token (`<|…|>`, `<｜…｜>`, `<tool_call|>`).
fn ends_complete(raw: &str) -> bool {
    // A fence the block was widened to (a call the model wrapped in one) closes after it.
    let t = raw.trim_end().trim_end_matches(['`', '~']).trim_end();
    // `}>`: the `>` of `<functioncall {…}>` right after the object it holds.
    if t.ends_with(['}', ']', ')']) || t.ends_with("/>") || t.ends_with("}>") {
        return true;
    }
    if !t.ends_with('>') {
        return false;
    }
    let tag = t.rfind('<').map_or("", |i| &t[i..]);
    tag.starts_with("</") || t.ends_with("|>") || t.ends_with("｜>")
}

/// Whether JSON-like `args` end inside a double-quoted string (a `"` opened and never closed).
/// Valid JSON never does, so only arguments kept as their raw text can.
fn ends_in_string(args: &str) -> bool {
    let b = args.as_bytes();
    let (quotes, backslash) = quotes_and_backslash(b);
    if !backslash {
        // No escapes (most arguments): each quote opens or closes a string, so an odd count ends
        // inside one.
        return quotes % 2 == 1;
    }
    let mut open = false;
    // Only quotes and backslashes matter: one `memchr2` pass (this runs on every call).
    let mut skip_to = 0;
    for i in memchr::memchr2_iter(b'"', b'\\', b) {
        if i < skip_to {
            continue;
        }
        if b[i] == b'"' {
            open = !open;
        } else if open {
            skip_to = i + 2;
        }
    }
    open
}

/// How many `"` `b` holds, and whether it holds a `\\`: one pass, eight bytes a word (this runs on
/// every call; a count and a search apart were ~190 instructions for a short object, callgrind).
fn quotes_and_backslash(b: &[u8]) -> (usize, bool) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // The high bit of each byte of `x` that is zero, exactly (no borrow runs between bytes).
    let zeros = |x: u64| !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
    let mut quotes = 0;
    let mut backslash = 0;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(<[u8; 8]>::try_from(w).unwrap_or_default());
        // One bit per quote, summed into the top byte.
        quotes += (((zeros(w ^ (ONES * u64::from(b'"'))) >> 7).wrapping_mul(ONES)) >> 56) as usize;
        backslash |= zeros(w ^ (ONES * u64::from(b'\\')));
    }
    for &c in words.remainder() {
        quotes += usize::from(c == b'"');
        backslash |= u64::from(c == b'\\');
    }
    (quotes, backslash != 0)
}

/// Argument markup of the XML-style families (Qwen3-Coder, Seed-OSS and MiniMax `<parameter`,
/// Step-3 `<steptml:parameter`, DSML `parameter name=`, GLM `<arg_key>`, MiniCPM5 `<param name=`).
fn shows_arguments(raw: &str) -> bool {
    ["<parameter", "parameter name=", "<arg_key>", "<param name="]
        .iter()
        .any(|m| memchr::memmem::find(raw.as_bytes(), m.as_bytes()).is_some())
}

/// Whether a JSON call's raw text holds a non-empty object under `"properties"`, the schema's
/// word, where no reader looks for arguments: a web-chat model behind Chat2API wrote
/// `{"tool_name": "exec", "properties": {"command": …}}` (Chat2API#38), read as `exec {}`.
fn shows_schema_arguments(raw: &str) -> bool {
    const KEY: &str = "\"properties\"";
    memchr::memmem::find_iter(raw.as_bytes(), KEY).any(|i| {
        raw[i + KEY.len()..]
            .trim_start()
            .strip_prefix(':')
            .and_then(|r| r.trim_start().strip_prefix('{'))
            .is_some_and(|r| !r.trim_start().starts_with('}'))
    })
}

/// A name a tool can have: no quotes, backslashes, angle brackets, braces or whitespace.
fn clean_name(name: &str) -> bool {
    if name.is_ascii() {
        // Byte by byte (every call's name comes here; `char::is_whitespace` is a Unicode lookup).
        return !name.is_empty() && !name.bytes().any(|c| NAME_STOPS[usize::from(c)]);
    }
    !name
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '<' | '>' | '{' | '}' | '`'))
}

/// The ASCII characters [`clean_name`] rules out.
const NAME_STOPS: [bool; 128] = super::scan::ascii_set(b"\"'\\<>{}`");

/// Whether the offered tool `name` requires parameters and `arguments` (a JSON object) has none.
fn misses_every_required(tools: Option<&Value>, name: &str, arguments: &str) -> bool {
    let schema = super::bare_json::schema(tools, name);
    let Some(required) = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty())
    else {
        return false;
    };
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        // Arguments that are not an object were reported by the parser; keep the call.
        return false;
    };
    !required
        .iter()
        .filter_map(Value::as_str)
        .any(|k| args.contains_key(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_ending_inside_a_string_were_cut() {
        assert!(ends_in_string(r#"{"q": "北京"#));
        assert!(ends_in_string(r#"{"q": "a\"b"#));
        assert!(!ends_in_string(r#"{"q": "a\"b"}"#));
        assert!(!ends_in_string(r#"{"a": 1,}"#));
        assert!(!ends_in_string(r#"{"q": "\\"}"#));
        assert!(ends_in_string(r#"{"a": "x", "b": "北"#));
        assert!(!ends_in_string(r#"{"a": "x", "b": "北"}"#));
    }

    /// The word count is the byte count, and a backslash is seen, at every place in a word.
    #[test]
    fn quotes_and_backslash_by_words_agree_with_bytes() {
        let text = r#"{"q": "北京 \"x\"", "a": [1, "b\\"], "c": "\u00e9"}"#.repeat(3);
        let b = text.as_bytes();
        for lo in 0..b.len() {
            for hi in lo..b.len().min(lo + 40) {
                let s = &b[lo..hi];
                let naive = (s.iter().filter(|&&c| c == b'"').count(), s.contains(&b'\\'));
                assert_eq!(quotes_and_backslash(s), naive, "{lo}..{hi}");
            }
        }
    }

    /// The ASCII table says what the character rule says, for every ASCII character.
    #[test]
    fn clean_name_by_bytes_agrees_with_the_char_rule() {
        let by_chars = |s: &str| {
            !s.is_empty()
                && !s.chars().any(|c| {
                    c.is_whitespace()
                        || matches!(c, '"' | '\'' | '\\' | '<' | '>' | '{' | '}' | '`')
                })
        };
        for b in 0u8..128 {
            let s = format!("get{}weather", char::from(b));
            assert_eq!(clean_name(&s), by_chars(&s), "{s:?}");
        }
        assert!(clean_name("查询天气") && !clean_name("查询\u{3000}天气") && !clean_name(""));
    }
}
