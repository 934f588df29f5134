//! Mistral calls after the `[TOOL_CALLS]` token (reference §11), in all three generations:
//! - before tokenizer v11: `[TOOL_CALLS] [{"name": "f", "arguments": {…}}, …]` (a JSON array;
//!   older models add an `"id"`);
//! - v11: `[TOOL_CALLS]name{json}`, one marker per call;
//! - v13 (Magistral, Devstral, Mistral-Small-3.2 and later): `[TOOL_CALLS]name[ARGS]{json}`, and
//!   with the call's id between them, `[TOOL_CALLS]name[CALL_ID]id[ARGS]{json}` (how
//!   mistral-common encodes an assistant's call with its id; a model echoing its history writes it).
//!
//! As vLLM 0.33 does, a missing `]` after `[TOOL_CALLS` or after `[ARGS` is tolerated. `auto`
//! detects `[TOOL_CALLS]` only when a call actually follows it ([`follows`]), so prose that
//! mentions the token is left alone. `[TOOL_CALLS]name[CALL_ID]id` whose id ends its line (no
//! `[ARGS]`) is a call abandoned before its arguments: removed and reported as one cut there,
//! but it does not make the reply Mistral's (another format's call after it is read). JSON is scanned properly (`arr[0]` inside a string does not end
//! anything). Text before and after the calls is kept (SGLang; smg drops the trailing text).
//! Reasoning (Magistral) is `[THINK]…[/THINK]`, split off by [`super::thinking`].
//!
//! A server that strips only `[TOOL_CALLS]` leaves `NAME[ARGS]{…}` or `NAME[CALL_ID]ID[ARGS]{…}`:
//! read with tools by [`super::named_json`] (an offered name, a strict JSON object that fits it),
//! from the tokens' shapes given here ([`stripped_head`], [`partial_head`]).
//!
//! Servers that drop special tokens leave the old array form bare: `[{"name": …, "arguments":
//! …}]`. For a Mistral model (named by `options.model`) that array is read as calls when it opens
//! the reply (nothing visible before it) and every item is a call object; anywhere else, or for
//! other models, it is JSON (with `tools`, [`super::tool_json`] reads it when it names them).
//!
//! Ids: Mistral's chat templates require tool-call ids of exactly 9 ASCII letters and digits when
//! the calls are sent back, so this family's ids are 9 characters, derived deterministically from
//! the call's index, name and arguments ([`call_id`]). An `"id"` the model wrote itself (old array
//! form) is kept when it already has that shape.

use serde_json::Value;

use super::json_calls::{call_from_value, cut_block_end, read_calls, read_value};
use super::scan::{balanced_end, Finder};
use super::{args_value_to_text, call_hash, Block, Ctx, Parsed, RawCall};

const NAME: &str = "mistral";
const MARKER: &str = "[TOOL_CALLS";
const ARGS: &str = "[ARGS";
const CALL_ID: &str = "[CALL_ID";

/// True when the text right after `[TOOL_CALLS]` (to the end of the reply) starts a call
/// ([`follows`] of a finished reply).
pub fn looks_like_calls(after: &str) -> bool {
    follows(after, true) == Some(Follows::Calls)
}

/// What the text right after `[TOOL_CALLS]` holds ([`follows`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follows {
    /// A call: a JSON array of objects, an object, `name{`, `name[ARGS]`,
    /// `name[CALL_ID]id[ARGS]`, or `name[CALL_ID]id` cut by the end of the reply.
    Calls,
    /// `name[CALL_ID]id` ending its line: a call abandoned before its arguments, the first `len`
    /// bytes. Removed and reported as a cut one is, but it does not make the reply Mistral's:
    /// another format's call after it is still read.
    Abandoned(usize),
    /// No call (`name[CALL_ID]id` with words after it on its line: a sentence naming the tokens).
    No,
}

/// What the text right after `[TOOL_CALLS]` holds. `None` only while `after` ends in the id's
/// form before that is known (`finished` false).
pub fn follows(after: &str, finished: bool) -> Option<Follows> {
    let t = after.trim_start();
    let yes = |b: bool| Some(if b { Follows::Calls } else { Follows::No });
    if let Some(r) = t.strip_prefix('[') {
        return yes(r.trim_start().starts_with('{'));
    }
    if t.starts_with('{') {
        return yes(true);
    }
    let (name, rest) = split_name(t);
    if name.is_empty() {
        return yes(false);
    }
    let Some((id, r)) = split_call_id(rest) else {
        return yes(rest.starts_with('{') || rest.starts_with(ARGS));
    };
    if id.len() > MAX_ID {
        return yes(false);
    }
    match after_id(r, finished)? {
        AfterId::Args | AfterId::End => yes(true),
        AfterId::LineEnd => Some(Follows::Abandoned(after.len() - r.len())),
        AfterId::Text => yes(false),
    }
}

/// The longest call id read after `[CALL_ID]` (Mistral's are 9 characters; longer ones are
/// kept up to this length): past it, no call.
const MAX_ID: usize = 64;

/// What follows a call's `[CALL_ID]id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterId {
    /// `[ARGS]` (after spaces or line breaks): the call goes on.
    Args,
    /// Nothing: the reply was cut after the id.
    End,
    /// A line break, then something else: the call was abandoned before its arguments.
    LineEnd,
    /// Words on the id's line: no call.
    Text,
}

/// What `r` (the text right after a call's id) says ([`AfterId`]); `None` while it may still
/// become `[ARGS]` or the end (`finished` false).
fn after_id(r: &str, finished: bool) -> Option<AfterId> {
    let line = r.trim_start_matches([' ', '\t']);
    let all = line.trim_start();
    if all.starts_with(ARGS) {
        return Some(AfterId::Args);
    }
    if all.is_empty() || ARGS.starts_with(all) {
        if !finished {
            return None;
        }
        if all.is_empty() {
            return Some(AfterId::End);
        }
    }
    Some(if line.starts_with(['\n', '\r']) {
        AfterId::LineEnd
    } else {
        AfterId::Text
    })
}

/// The id after `[CALL_ID]` (its `]` optional, spaces skipped) at the start of `rest`, and the
/// text right after the id: `None` when `rest` does not open with `[CALL_ID`.
fn split_call_id(rest: &str) -> Option<(&str, &str)> {
    let r = rest.strip_prefix(CALL_ID)?;
    let r = r.strip_prefix(']').unwrap_or(r).trim_start();
    let len = r
        .find(|c: char| c == '[' || c.is_whitespace())
        .unwrap_or(r.len());
    Some((&r[..len], &r[len..]))
}

/// `(name, rest)`: the function name at the start of `t` and what follows it (spaces skipped).
fn split_name(t: &str) -> (&str, &str) {
    let len = t
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(t.len());
    (&t[..len], t[len..].trim_start())
}

/// The call token whose text [`follows`] reads.
pub const TOKEN: &str = "[TOOL_CALLS]";

/// The name of the call whose named form (`NAME{`, `NAME[ARGS]{`, `NAME[CALL_ID]ID[ARGS]{`)
/// `after` (the text right after `[TOOL_CALLS]`) opens, and where its `{` is in `after`; `None`
/// for the JSON forms and anything else.
///
/// ```
/// use transcript_hygiene::response::mistral::named_head;
/// assert_eq!(named_head("f[ARGS]{\"a\": 1}"), Some(("f", 7)));
/// assert_eq!(named_head("f[CALL_ID]a1B2c3D4e[ARGS] {}"), Some(("f", 26)));
/// assert_eq!(named_head("f{}"), Some(("f", 1)));
/// assert_eq!(named_head("[{\"name\": \"f\"}]"), None);
/// assert_eq!(named_head("f[CALL_ID]a1 is the id"), None);
/// ```
pub fn named_head(after: &str) -> Option<(&str, usize)> {
    let (name, rest) = split_name(after.trim_start());
    if name.is_empty() {
        return None;
    }
    let rest = match split_call_id(rest) {
        Some((id, r)) if id.len() <= MAX_ID && after_id(r, true) == Some(AfterId::Args) => {
            r.trim_start()
        }
        Some(_) => return None,
        None => rest,
    };
    let rest = match rest.strip_prefix(ARGS) {
        Some(r) => r.strip_prefix(']').unwrap_or(r).trim_start(),
        None => rest,
    };
    rest.starts_with('{')
        .then(|| (name, after.len() - rest.len()))
}

/// The arguments token and the call-id token, whole, as a server that strips only
/// `[TOOL_CALLS]` leaves them around a call's name (`NAME[ARGS]{…}`, `NAME[CALL_ID]ID[ARGS]{…}`;
/// [`super::named_json`] reads that form, by its own evidence, with tools).
pub const ARGS_TOKEN: &str = "[ARGS]";
pub const CALL_ID_TOKEN: &str = "[CALL_ID]";

/// A byte of a call id written between `[CALL_ID]` and `[ARGS]`: no space, no bracket.
fn id_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || matches!(b, b'[' | b']'))
}

/// `head` less the `[CALL_ID]ID` that ends it (an id of 1 to 64 bytes, no space or
/// bracket), and the id; `None` when `head` does not end so. Looks at most that far back.
/// (Example at [`partial_head`].)
pub fn strip_call_id(head: &str) -> Option<(&str, &str)> {
    let from = super::scan::floor(
        head,
        head.len().saturating_sub(MAX_ID + CALL_ID_TOKEN.len()),
    );
    let k = from + head[from..].rfind(CALL_ID_TOKEN)?;
    let id = &head[k + CALL_ID_TOKEN.len()..];
    (!id.is_empty() && id.len() <= MAX_ID && id.bytes().all(id_byte)).then(|| (&head[..k], id))
}

/// The call's name end and its id, when `before` (the text right before a `{`) ends with the
/// tokens of a stripped call's head: `[ARGS]`, or `[CALL_ID]ID[ARGS]`.
pub fn stripped_head(before: &str) -> Option<(usize, Option<&str>)> {
    let head = before.strip_suffix(ARGS_TOKEN)?;
    Some(match strip_call_id(head) {
        Some((name, id)) => (name.len(), Some(id)),
        None => (head.len(), None),
    })
}

/// Where [`TOKEN`], or a prefix of it, ends `text` (a stream holds it back while a call's name may
/// follow it).
///
/// ```
/// use transcript_hygiene::response::mistral::partial_token;
/// assert_eq!(partial_token("好[TOOL_CALLS]"), Some(3));
/// assert_eq!(partial_token("好[TOOL_C"), Some(3));
/// assert_eq!(partial_token("好[TOOL_CALLS] "), None);
/// assert_eq!(partial_token("a[b"), None);
/// ```
pub fn partial_token(text: &str) -> Option<usize> {
    prefix_at_end(text, TOKEN)
}

/// Where the `[` that begins `tok`, or a prefix of it, ends `text`.
fn prefix_at_end(text: &str, tok: &str) -> Option<usize> {
    let b = text.as_bytes();
    let from = b.len().saturating_sub(tok.len());
    memchr::memrchr(b'[', &b[from..])
        .map(|k| from + k)
        .filter(|&k| tok.as_bytes().starts_with(&b[k..]))
}

/// Where the tokens after a call's name start when they are still arriving at the end of `text`
/// (a stream holds the name and them back until the `{` decides): a prefix of `[ARGS]`, of
/// `[CALL_ID]`, `[CALL_ID]` and an id still being written, or `[CALL_ID]ID` and a prefix of
/// `[ARGS]`. Looks at most `[CALL_ID]`, 64 bytes of id and `[ARGS]` back.
///
/// ```
/// use transcript_hygiene::response::mistral::{partial_head, strip_call_id};
/// let head = "查询 get_weather[CALL_ID]a1B2c3D4e";
/// assert_eq!(strip_call_id(head), Some(("查询 get_weather", "a1B2c3D4e")));
/// assert_eq!(strip_call_id("get_weather[CALL_ID]"), None);
/// assert_eq!(strip_call_id("get_weather[CALL_ID]a b"), None);
/// for t in ["f[AR", "f[ARGS]", "f[CALL", "f[CALL_ID]", "f[CALL_ID]a1B2", "f[CALL_ID]a1B2c3D4e[A"] {
///     assert_eq!(partial_head(t), Some(1), "{t}");
/// }
/// assert_eq!(partial_head("f[CALL_ID]a1 b"), None);
/// assert_eq!(partial_head("f[x"), None);
/// ```
pub fn partial_head(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if let Some(k) = prefix_at_end(text, ARGS_TOKEN) {
        return Some(strip_call_id(&text[..k]).map_or(k, |(name, _)| name.len()));
    }
    if let Some(k) = prefix_at_end(text, CALL_ID_TOKEN) {
        return Some(k);
    }
    let from = super::scan::floor(text, b.len().saturating_sub(MAX_ID + CALL_ID_TOKEN.len()));
    let k = from + text[from..].rfind(CALL_ID_TOKEN)?;
    let id = &b[k + CALL_ID_TOKEN.len()..];
    (id.len() <= MAX_ID && id.iter().all(|&c| id_byte(c))).then_some(k)
}

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut markers = Finder::new(MARKER);
    let mut at = 0;
    if let Some(b) = leading_array(text, &mut out.problems) {
        at = b.end;
        out.blocks.push(b);
    }
    while let Some(start) = markers.find(text, at) {
        at = after_marker(text, start);
        let found = markers.find(text, at);
        if let Some(b) = marker_block(text, start, found, &mut out.problems) {
            at = b.end.max(at);
            out.blocks.push(b);
        }
    }
    out.set_format_if_calls(NAME);
    out
}

/// The end of the `[TOOL_CALLS]` (or `[TOOL_CALLS`) marker at `start`.
fn after_marker(text: &str, start: usize) -> usize {
    let pos = start + MARKER.len();
    pos + usize::from(text[pos..].starts_with(']'))
}

/// The block of the marker at `start` (`found`: the next marker).
fn marker_block(
    text: &str,
    start: usize,
    found: Option<usize>,
    problems: &mut Vec<String>,
) -> Option<Block> {
    let pos = after_marker(text, start);
    let lead = text[pos..].len() - text[pos..].trim_start().len();
    let body_at = pos + lead;
    match text.as_bytes().get(body_at) {
        Some(b'[' | b'{') => json_form(text, start, body_at, found, problems),
        _ => named_form(text, start, body_at, found, problems),
    }
}

/// Whether a complete call follows the marker at `n` in `text` (see [`cut_block_end`]).
fn reads_at(text: &str, n: usize) -> bool {
    marker_block(text, n, None, &mut Vec::new()).is_some_and(|b| !b.calls.is_empty())
}

/// The bare call array that opens `text` (its `[TOOL_CALLS]` stripped), when every item is a
/// call object.
fn leading_array(text: &str, problems: &mut Vec<String>) -> Option<Block> {
    let at = text.len() - text.trim_start().len();
    if !text[at..].starts_with('[') {
        return None;
    }
    let (v, _) = read_value(text, at)?;
    let items = v.as_array()?;
    let calls = !items.is_empty()
        && items.iter().all(|i| {
            i.as_object()
                .is_some_and(|o| super::json_calls::is_call_object(o, None))
        });
    if !calls {
        return None;
    }
    json_form(text, at, at, None, problems)
}

/// `[TOOL_CALLS] [{…}, …]` or `[TOOL_CALLS] {…}`.
fn json_form(
    text: &str,
    start: usize,
    at: usize,
    found: Option<usize>,
    problems: &mut Vec<String>,
) -> Option<Block> {
    let next = found.unwrap_or(text.len());
    if let Some((v, end)) = read_value(text, at) {
        let items = match v {
            Value::Array(items) => items,
            other => vec![other],
        };
        let calls = items
            .into_iter()
            .filter_map(|item| {
                let id = item
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| is_mistral_id(s))
                    .map(str::to_owned);
                call_from_value(item, NAME, None, problems).map(|c| RawCall { id, ..c })
            })
            .collect();
        return Some(Block::of_calls(start, end, calls, problems, || {
            format!("{NAME}: [TOOL_CALLS] JSON holds no call; raw text kept in content")
        }));
    }
    let read = read_calls(text, at, None, next, NAME, None, problems);
    let end = if read.truncated && read.calls.is_empty() {
        problems.push(format!("{NAME}: call JSON cut off (truncated reply)"));
        cut_block_end(text, at, found, &[MARKER], reads_at)
    } else {
        read.end
    };
    Some(Block::of_calls(start, end, read.calls, problems, || {
        format!("{NAME}: [TOOL_CALLS] holds no readable call; raw text kept in content")
    }))
}

/// `[TOOL_CALLS]name{…}`, `[TOOL_CALLS]name[ARGS]{…}` or `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`
/// (the id kept when it has Mistral's shape, [`is_mistral_id`]).
fn named_form(
    text: &str,
    start: usize,
    at: usize,
    found: Option<usize>,
    problems: &mut Vec<String>,
) -> Option<Block> {
    let next = found.unwrap_or(text.len());
    let (name, rest) = split_name(&text[at..]);
    if name.is_empty() {
        return None;
    }
    // After `[CALL_ID]id` only `[ARGS]` may follow, or the end of a cut reply, or a line break
    // (a call abandoned before its arguments: removed and reported as a cut one, up to its id).
    let (cut_after_id, id, rest) = match split_call_id(rest) {
        Some((id, r)) => match after_id(r, true) {
            Some(AfterId::Args) => (false, Some(id).filter(|s| is_mistral_id(s)), r.trim_start()),
            Some(AfterId::End) => (true, None, ""),
            Some(AfterId::LineEnd) => {
                return Some(cut_before_args(name, start, text.len() - r.len(), problems))
            }
            Some(AfterId::Text) | None => return None,
        },
        None => (false, None, rest),
    };
    let mut pos = text.len() - rest.len();
    if let Some(r) = rest.strip_prefix(ARGS) {
        pos += ARGS.len();
        let r2 = r.strip_prefix(']').unwrap_or(r);
        pos += r.len() - r2.len();
        pos += r2.len() - r2.trim_start().len();
    } else if !(rest.starts_with('{') || cut_after_id) {
        return None;
    }
    if text.as_bytes().get(pos) != Some(&b'{') {
        return (pos >= text.len()).then(|| cut_before_args(name, start, next, problems));
    }
    let (arguments, end) = match read_value(text, pos) {
        Some((v, end)) => (args_value_to_text(v, NAME, problems), end),
        None => match text.get(..next).and_then(|t| balanced_end(t, pos, false)) {
            Some(e) => {
                problems.push(format!(
                    "{NAME}: call {name:?} has invalid JSON; arguments kept as the raw text"
                ));
                (text[pos..e].to_owned(), e)
            }
            None => {
                problems.push(format!("{NAME}: call {name:?} cut off (truncated reply)"));
                let end = cut_block_end(text, pos, found, &[MARKER], reads_at);
                return Some(Block::of_calls(start, end, Vec::new(), problems, || {
                    format!("{NAME}: truncated call kept in content")
                }));
            }
        },
    };
    Some(Block {
        start,
        end,
        calls: vec![RawCall {
            name: name.to_owned(),
            arguments,
            id: id.map(str::to_owned),
        }],
        keep_raw: false,
    })
}

/// The block `start..end` of a call cut off (or abandoned) before its arguments: no call,
/// reported.
fn cut_before_args(name: &str, start: usize, end: usize, problems: &mut Vec<String>) -> Block {
    problems.push(format!(
        "{NAME}: call {name:?} cut off before its arguments"
    ));
    Block::of_calls(start, end, Vec::new(), problems, || {
        format!("{NAME}: truncated call kept in content")
    })
}

/// Exactly 9 ASCII letters and digits.
pub fn is_mistral_id(s: &str) -> bool {
    s.len() == 9 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A deterministic 9-character alphanumeric id from the call's index, name and arguments.
pub fn call_id(index: usize, name: &str, arguments: &str) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut h = call_hash(name, arguments) ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut out = String::with_capacity(9);
    for _ in 0..9 {
        out.push(char::from(ALPHABET[(h % 62) as usize]));
        h /= 62;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use super::*;
    use serde_json::json;

    #[test]
    fn all_three_generations() {
        let old = "Sure. [TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"q\": \"arr[0] < 1 & 北京\"}, \"id\": \"abcDEF123\"}, \
                   {\"name\": \"get_time\", \"arguments\": {}}]";
        let c = run(old, None, None, None);
        assert_eq!(c.format, Some("mistral"));
        assert_eq!(c.content, "Sure.");
        assert_eq!(
            named(&c),
            [
                (
                    "get_weather",
                    json!({"city": "Paris", "q": "arr[0] < 1 & 北京"})
                ),
                ("get_time", json!({}))
            ]
        );
        assert_eq!(c.tool_calls[0].id(), "abcDEF123");
        assert!(is_mistral_id(c.tool_calls[1].id()));
        let v11 =
            "[TOOL_CALLS]get_weather{\"city\": \"Paris\"}[TOOL_CALLS]get_time{\"tz\": \"a\\nb\"}";
        assert_eq!(
            named(&run(v11, None, None, None)),
            [
                ("get_weather", json!({"city": "Paris"})),
                ("get_time", json!({"tz": "a\nb"}))
            ]
        );
        let v13 = "[THINK]The user wants weather [TOOL_CALLS]x{}[/THINK]Checking.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"東京\"} Then more.";
        let c = run(v13, None, None, None);
        assert_eq!(c.reasoning, "The user wants weather [TOOL_CALLS]x{}");
        assert_eq!(c.content, "Checking. Then more.");
        assert_eq!(named(&c), [("get_weather", json!({"city": "東京"}))]);
    }

    #[test]
    fn tolerant_markers_malformed_and_truncated() {
        let c = run("[TOOL_CALLSf[ARGS{\"a\": 1}", Some("mistral"), None, None);
        assert_eq!(named(&c), [("f", json!({"a": 1}))]);
        let c = run("[TOOL_CALLS]f[ARGS]{\"a\": 'x'}", None, None, None);
        assert_eq!(c.tool_calls[0].arguments(), "{\"a\": 'x'}");
        assert_eq!(c.problems.len(), 1);
        let t = "Ok [TOOL_CALLS]f[ARGS]{\"a\": \"cut";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty());
        assert_eq!(c.content, "Ok");
        assert!(!c.problems.is_empty());
        let p = "Write [TOOL_CALLS] before the calls.";
        assert_eq!(run(p, None, None, None).content, p);
    }

    #[test]
    fn ids_are_nine_alphanumerics_and_deterministic() {
        let a = call_id(0, "f", "{}");
        assert!(is_mistral_id(&a));
        assert_eq!(a, call_id(0, "f", "{}"));
        assert_ne!(a, call_id(1, "f", "{}"));
    }
}
