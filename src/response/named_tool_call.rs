//! A call written as an XML element named by its `name` attribute, its body the JSON arguments,
//! alone or several inside a `<tool_calls>` wrapper:
//!
//! ```text
//! <tool_calls>
//! <tool_call name="read_feed">{"nickname": "WebUI用户", "target_name": "xxx"}</tool_call>
//! </tool_calls>
//! ```
//!
//! Why: no model's chat template asks for this shape, but agent frameworks render the calls of
//! earlier turns so when they flatten a history to text (a harness writing
//! `<tool_call name="{name}">{arguments}</tool_call>` for each call, MaiBot's replyer), and a
//! model that reads its own earlier calls in that shape writes its next call in it instead of
//! calling: a QQ bot's reply was exactly the block above (internetsb/Maizone#36, in Chinese chat).
//! The person reading the chat sees markup and the call never runs.
//!
//! Its closing tag is Hermes' `</tool_call>`, but the opener carries the name, so it is read here
//! rather than by [`super::hermes`]: an opener starts a call only when it reads as one ([`head`]):
//! a quoted name, `>`, whitespace, then `{` (the arguments) or `</tool_call>` (none). Prose that
//! names the tag (`用 <tool_call name="x"> 标签`) has no `{` after it and stays text; code spans
//! and fences never get here (the stream machine keeps them as text). `auto` detects the family by
//! that same shape.
//!
//! Bad input: arguments that are not a JSON object, or JSON that does not parse, give no call
//! (never a call with half its arguments): the block is removed and its raw text reported
//! ([`super::unreadable`]). A closing tag inside a JSON string does not end the call. A call whose
//! arguments end but whose `</tool_call>` never comes (a reply cut by `max_tokens`) is kept and
//! reported as `truncated`; one cut inside its arguments is no call, reported as `truncated` and
//! its raw text kept. A missing `</tool_calls>` is not reported (the calls inside are complete).
//!
//! The opener's name may be followed by an `id` (`<tool_call name="f" id="call_00_x">`, DeepSeek
//! V4's [`super::attr_tool_call`] call with its attributes the other way round): read the same,
//! the id kept. The same wrapper around call elements named after an offered tool (Qwen 3.6's
//! `<tool_calls><read path="/etc/hostname" /></tool_calls>`) is read by
//! [`super::tool_elements`], with `tools` only.

use serde_json::Value;

use super::attr_tool_call::Attrs;
use super::json_calls::read_value;
use super::scan::{find_outside_strings, Finder, HeadWindow, HEAD_WINDOW};
use super::{args_value_to_text, Block, Ctx, Parsed, RawCall};

const NAME: &str = "named_tool_call";
/// The opener of a call, up to its name's opening quote.
pub const OPEN: &str = "<tool_call name=";
/// The closing tag of a call.
pub const CLOSE: &str = "</tool_call>";
/// The optional wrapper around one or more calls.
pub const WRAP_OPEN: &str = "<tool_calls>";
pub const WRAP_CLOSE: &str = "</tool_calls>";

/// What follows an opener.
enum Head<'t> {
    /// A call: its name, its id when the tag gives one, and where its body starts (after `>`).
    Call(&'t str, Option<&'t str>, usize),
    /// The text ends inside the opener (a cut call, or more may come).
    Cut,
    /// Not a call.
    No,
}

/// Read the opener's tail `after` (the text right after [`OPEN`]); offsets are into `after`.
/// After the name, an `id` attribute may come before `>` (DeepSeek V4's call with its
/// attributes the other way round, read as [`super::attr_tool_call`] reads them).
fn read_head(after: &str) -> Head<'_> {
    let Some(q @ ('"' | '\'')) = after.chars().next() else {
        return if after.is_empty() {
            Head::Cut
        } else {
            Head::No
        };
    };
    let inner = &after[1..];
    let limit = inner.len().min(HEAD_WINDOW);
    let name_end = inner.as_bytes()[..limit]
        .iter()
        .position(|&b| b == q as u8 || matches!(b, b'<' | b'>' | b'\n' | b'{' | b'}'));
    let Some(e) = name_end else {
        return if inner.len() <= HEAD_WINDOW {
            Head::Cut
        } else {
            Head::No
        };
    };
    if inner.as_bytes()[e] != q as u8 || inner[..e].trim().is_empty() {
        return Head::No;
    }
    let name = &inner[..e];
    let rest = &inner[e + 1..];
    let t = rest.trim_start_matches([' ', '\t']);
    match t.as_bytes().first() {
        Some(b'>') => Head::Call(name, None, after.len() - t.len() + 1),
        None => Head::Cut,
        Some(_) => match super::attr_tool_call::read_attrs(rest) {
            Attrs::Tag {
                id: Some(id),
                name: None,
                body,
            } if super::attr_tool_call::plain(name) => {
                Head::Call(name, Some(id), after.len() - rest.len() + body)
            }
            Attrs::Cut => Head::Cut,
            _ => Head::No,
        },
    }
}

/// Whether the text `after` an opener starts a call: after [`OPEN`], a quoted name, `>`,
/// whitespace, then `{` or [`CLOSE`]; after [`WRAP_OPEN`], whitespace then such a call. `None`
/// when the text ends before that is known and more may come (`finished` false). At the end of
/// the reply (`finished`), a text cut inside the opener or right after its `>` is a cut call; a
/// wrapper with nothing after it is text.
///
/// ```
/// use transcript_hygiene::response::named_tool_call::head;
/// assert_eq!(head("\"read_feed\">{\"nickname\": \"用户\"}", true), Some(true));
/// assert_eq!(head("\n<tool_call name=\"f\">\n{}", true), Some(true));
/// assert_eq!(head("\"x\"> 标签包住参数", true), Some(false));
/// assert_eq!(head("\"read_fe", false), None);
/// assert_eq!(head("\"read_fe", true), Some(true));
/// assert_eq!(head("\n{\"name\": \"f\"}", true), Some(false));
/// ```
pub fn head(after: &str, finished: bool) -> Option<bool> {
    let window = HeadWindow::new(after, finished);
    let view = window.view;
    if !view.starts_with(['"', '\'']) {
        // After the wrapper: whitespace, then a call's opener.
        let t = view.trim_start();
        let off = view.len() - t.len();
        return if t.starts_with(OPEN) {
            head(&after[off + OPEN.len()..], finished)
        } else if OPEN.starts_with(t) {
            window.pending(false)
        } else {
            Some(false)
        };
    }
    match read_head(view) {
        Head::No => Some(false),
        Head::Cut => window.pending(true),
        Head::Call(_, _, body) => body_head(&view[body..], &window),
    }
}

/// [`head`], or (after the wrapper) a call element of an offered tool
/// ([`super::tool_elements::head`]): what the stream machine asks at this family's openers.
pub fn head_offered(after: &str, finished: bool, tools: Option<&Value>) -> Option<bool> {
    match head(after, finished) {
        Some(true) => Some(true),
        named => match super::tool_elements::head(after, finished, tools) {
            Some(false) => named,
            elements => elements,
        },
    }
}

/// Whether the text after a whole opening tag (its `>`) starts a call's body: `{` or [`CLOSE`]
/// after whitespace; only the start of [`CLOSE`] so far is undecided (a cut call at the end).
/// Shared with [`super::attr_tool_call::head`].
pub(super) fn body_head(after_tag: &str, window: &HeadWindow) -> Option<bool> {
    let b = after_tag.trim_start();
    if b.starts_with('{') || b.starts_with(CLOSE) {
        Some(true)
    } else if CLOSE.starts_with(b) {
        window.pending(true)
    } else {
        Some(false)
    }
}

/// Every call block of the family in `text`.
pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Finder::new(OPEN);
    let mut at = 0;
    while let Some(open) = opens.find(text, at) {
        let wrap = text[at..open]
            .trim_end()
            .strip_suffix(WRAP_OPEN)
            .map(|s| at + s.len());
        let mut pos = open;
        let mut calls = Vec::new();
        let mut unreadable = false;
        let mut end = None;
        // The unreadable calls: their text and the first problem their reading pushed.
        let mut bad: Vec<(usize, usize, usize)> = Vec::new();
        loop {
            let limit = opens.find(text, pos + OPEN.len()).unwrap_or(text.len());
            let reported = out.problems.len();
            match read_call(text, pos, limit, !calls.is_empty(), &mut out.problems) {
                Read::No => break,
                Read::Call(call, e) => {
                    calls.push(call);
                    end = Some(e);
                }
                Read::Unreadable(e) => {
                    unreadable = true;
                    bad.push((pos, e, reported));
                    end = Some(e);
                }
            }
            let Some(e) = end else { break };
            if wrap.is_none() {
                break;
            }
            // Inside the wrapper: more calls, then its closing tag.
            let rest = &text[e..];
            let t = rest.trim_start();
            if t.starts_with(OPEN) && matches!(read_head(&t[OPEN.len()..]), Head::Call(..)) {
                pos = e + rest.len() - t.len();
                continue;
            }
            if let Some(after) = t.strip_prefix(WRAP_CLOSE) {
                end = Some(text.len() - after.len());
            } else if more_may_come(t) {
                // The stream machine asks at each closer with a NUL after the text: another call
                // (or the wrapper's closer) may still come, so the block is not finished.
                end = Some(text.len());
            }
            break;
        }
        let Some(mut end) = end else {
            at = open + OPEN.len();
            continue;
        };
        let start = wrap.unwrap_or(open);
        // A wrapper's last call cut off by the end of the reply is a block of its own, so the
        // calls before it (which ended) are not taken for cut ones.
        let mut cut = None;
        if let Some(&(s, e, _)) = bad.last().filter(|_| !calls.is_empty()) {
            if e == text.len() && end == e && !text[s..e].ends_with(CLOSE) {
                bad.pop();
                unreadable = !bad.is_empty();
                cut = Some(s);
                end = s;
            }
        }
        if unreadable && !calls.is_empty() {
            // A wrapper holding a readable call and an unreadable one: the calls are kept, and
            // each unreadable call's problem gets its text (the block is not kept raw).
            unreadable = false;
            for &(s, e, first) in &bad {
                for m in &mut out.problems[first..] {
                    if super::unreadable::attach(m, &text[s..e]) {
                        break;
                    }
                }
            }
        }
        let block = if unreadable {
            Block {
                start,
                end,
                calls: Vec::new(),
                keep_raw: true,
            }
        } else {
            Block::of_calls(start, end, calls, &mut out.problems, || {
                format!("{NAME}: no call; raw text kept in content")
            })
        };
        out.blocks.push(block);
        at = end;
        if let Some(s) = cut {
            out.blocks.push(Block {
                start: s,
                end: text.len(),
                calls: Vec::new(),
                keep_raw: true,
            });
            at = text.len();
        }
    }
    // The same wrapper around call elements named after offered tools.
    super::tool_elements::read(text, cx, &mut out);
    out.set_format_if_calls(NAME);
    out
}

/// Whether `rest`, what follows a wrapper's last call, ends with the stream machine's NUL ("more
/// may come") and may still continue the wrapper: nothing yet, or the start of a call's opener
/// or of the wrapper's closer.
fn more_may_come(rest: &str) -> bool {
    let Some(t) = rest.strip_suffix('\0') else {
        return false;
    };
    t.is_empty() || t.starts_with(OPEN) || OPEN.starts_with(t) || WRAP_CLOSE.starts_with(t)
}

/// One call read at an opener.
enum Read {
    /// Not a call: the opener is text.
    No,
    /// A call ending at the offset.
    Call(RawCall, usize),
    /// A block that holds no readable call, ending at the offset (reported).
    Unreadable(usize),
}

/// The call whose opener is at `pos`; `limit` is the next opener (a cut call ends there).
/// `after_call`: a call of the same wrapper came before, so an opener whose body is no JSON
/// object but ends with [`CLOSE`] is an unreadable call, not text.
fn read_call(
    text: &str,
    pos: usize,
    limit: usize,
    after_call: bool,
    problems: &mut Vec<String>,
) -> Read {
    let after_open = pos + OPEN.len();
    let (name, id, body_at) = match read_head(&text[after_open..]) {
        Head::Call(name, id, body) => (name, id, after_open + body),
        Head::Cut => {
            problems.push(format!(
                "{NAME}: the call's opening tag was cut off (truncated reply)"
            ));
            problems.push(format!("{NAME}: no call; raw text kept in content"));
            return Read::Unreadable(text.len());
        }
        Head::No => return Read::No,
    };
    let rest = text[body_at..limit].trim_start();
    let json_at = limit - rest.len();
    match read_body(text, json_at, limit, name, NAME, problems) {
        Body::Args(arguments, end) => {
            let call = RawCall {
                name: name.to_owned(),
                arguments,
                id: id.map(str::to_owned),
            };
            Read::Call(call, end)
        }
        Body::Unreadable(end) => Read::Unreadable(end),
        Body::NotJson => match find_outside_strings(text, json_at, limit, CLOSE) {
            Some(c) if after_call => {
                problems.push(format!(
                    "{NAME}: call {name:?} has arguments that are not a JSON object; raw text kept in content"
                ));
                Read::Unreadable(c + CLOSE.len())
            }
            _ => Read::No,
        },
    }
}

/// What follows a `<tool_call …>` opening tag, read from `json_at` (past the tag's trailing
/// spaces) up to `limit` (the next opener): a JSON object then [`CLOSE`], or [`CLOSE`] at once.
/// Shared by this family and [`super::attr_tool_call`], whose tags differ only in their attributes;
/// `family` names the one reporting.
pub(super) enum Body {
    /// The arguments' text and where the call ends.
    Args(String, usize),
    /// A block that holds no readable call, ending at the offset (reported).
    Unreadable(usize),
    /// Neither `{` nor the closing tag comes first: no body of this form.
    NotJson,
}

/// Reads the body of call `name` at `json_at` (see [`Body`]).
pub(super) fn read_body(
    text: &str,
    json_at: usize,
    limit: usize,
    name: &str,
    family: &str,
    problems: &mut Vec<String>,
) -> Body {
    let rest = &text[json_at..limit];
    if let Some(after) = rest.strip_prefix(CLOSE) {
        return Body::Args("{}".to_owned(), limit - after.len());
    }
    if limit == text.len() && CLOSE.starts_with(rest) {
        // The reply ends right after the opening tag.
        problems.push(format!(
            "{family}: call {name:?} was cut off after its opening tag (truncated reply)"
        ));
        problems.push(format!("{family}: no call; raw text kept in content"));
        return Body::Unreadable(limit);
    }
    if !rest.starts_with('{') {
        return Body::NotJson;
    }
    match read_value(&text[..limit], json_at) {
        Some((v, e)) if v.is_object() => {
            let arguments = args_value_to_text(v, family, problems);
            let tail = &text[e..limit];
            let ws = tail.len() - tail.trim_start().len();
            let end = if tail[ws..].starts_with(CLOSE) {
                e + ws + CLOSE.len()
            } else {
                problems.push(format!("{family}: {CLOSE} missing (truncated reply)"));
                e
            };
            Body::Args(arguments, end)
        }
        _ => match find_outside_strings(text, json_at, limit, CLOSE) {
            Some(c) => {
                problems.push(format!(
                    "{family}: call {name:?} has arguments that are not a JSON object; raw text kept in content"
                ));
                Body::Unreadable(c + CLOSE.len())
            }
            None => {
                problems.push(format!(
                    "{family}: call {name:?} was cut off inside its arguments (truncated reply)"
                ));
                problems.push(format!("{family}: no call; raw text kept in content"));
                Body::Unreadable(limit)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name, arguments)` pairs, block spans, problems.
    type Got = (Vec<(String, String)>, Vec<(usize, usize)>, Vec<String>);

    fn calls(text: &str) -> Got {
        let p = parse(text, &Ctx::default());
        let spans = p.blocks.iter().map(|b| (b.start, b.end)).collect();
        (p.call_pairs(), spans, p.problems)
    }

    #[test]
    fn wrapped_calls_are_one_block_with_the_wrapper() {
        let t = "好的\n<tool_calls>\n<tool_call name=\"a\">{\"x\": 1}</tool_call>\n<tool_call name='b'></tool_call>\n</tool_calls>\n完成";
        let (c, spans, p) = calls(t);
        assert_eq!(
            c,
            [("a".into(), r#"{"x":1}"#.into()), ("b".into(), "{}".into())]
        );
        let s = t.find("<tool_calls>").unwrap_or(0);
        let e = t.find("</tool_calls>").unwrap_or(0) + WRAP_CLOSE.len();
        assert_eq!(spans, [(s, e)]);
        assert!(p.is_empty(), "{p:?}");
    }

    #[test]
    fn closing_tag_inside_a_string_does_not_end_the_call() {
        let t = r#"<tool_call name="echo">{"s": "</tool_call> & <b>"}</tool_call>"#;
        let (c, spans, _) = calls(t);
        assert_eq!(c, [("echo".into(), r#"{"s":"</tool_call> & <b>"}"#.into())]);
        assert_eq!(spans, [(0, t.len())]);
        // Cut inside that string: no call, the block runs to the end.
        let cut = r#"<tool_call name="echo">{"s": "</tool_call> & "#;
        let (c, spans, p) = calls(cut);
        assert!(c.is_empty());
        assert_eq!(spans, [(0, cut.len())]);
        assert_eq!(crate::response::problem::kinds(&p)[0], "truncated");
    }

    #[test]
    fn an_unreadable_call_beside_a_readable_one_is_reported_with_its_text() {
        let first = "<tool_calls><tool_call name=\"a\">{}</tool_call>";
        let bad = "<tool_call name=\"like\">\"小明\"</tool_call>";
        let t = format!("{first}{bad}");
        let (c, spans, p) = calls(&t);
        assert_eq!(c, [("a".into(), "{}".into())]);
        assert_eq!(spans, [(0, t.len())]);
        assert_eq!(crate::response::problem::kinds(&p), ["unreadable-block"]);
        assert!(p[0].ends_with(&format!("raw text: {bad}")), "{p:?}");
        // The last call cut off: a block of its own (its text reported as any unreadable block's).
        let cut = "<tool_call name=\"c\">{\"s\": \"今天";
        let t = format!("{first}{cut}");
        let (c, spans, p) = calls(&t);
        assert_eq!(c, [("a".into(), "{}".into())]);
        assert_eq!(spans, [(0, first.len()), (first.len(), t.len())]);
        assert_eq!(
            crate::response::problem::kinds(&p),
            ["truncated", "unreadable-block"]
        );
        // While more may come (the stream machine's NUL), the wrapper is not finished.
        let t = format!("{first}\n\0");
        assert_eq!(calls(&t).1, [(0, t.len())]);
    }

    #[test]
    fn prose_naming_the_tag_is_not_a_call() {
        for t in [
            "用 <tool_call name=\"x\"> 标签包住参数。",
            "<tool_call name=\"x\">call it</tool_call>",
            "<tool_call name=x>{}</tool_call>",
        ] {
            let (c, spans, _) = calls(t);
            assert!(c.is_empty() && spans.is_empty(), "{t}");
        }
    }

    #[test]
    fn unparsable_arguments_give_no_call() {
        let t = r#"<tool_call name="f">{"a": 1,}</tool_call> ok"#;
        let (c, spans, p) = calls(t);
        assert!(c.is_empty());
        assert_eq!(spans, [(0, t.len() - 3)]);
        assert_eq!(p.len(), 1);
    }
}
