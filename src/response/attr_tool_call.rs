//! A call written as a `<tool_call>` element whose attributes carry the call's id and name, its
//! body the JSON arguments:
//!
//! ```text
//! <tool_call id="call_00_xxx" name="wechat_get_chat_history">
//! {"chat_name":"Aide & GPT-Runner 交流群","limit":80}
//! </tool_call>
//! ```
//!
//! Why: DeepSeek V4 (Pro, through `deepseek-chat` / `deepseek-reasoner`) now and then writes its
//! call into the content in this shape instead of calling, more often with many tools and a long
//! context (felinics/Memoh#435 and #436, in Chinese chat): the person reading the chat sees an
//! XML fragment and the tool never runs. No chat template asks for it; it is what agent harnesses
//! render earlier calls as, with the id the API gave them.
//!
//! Its opener starts with `id=` ([`OPEN`]); the same call with its name first
//! (`<tool_call name="f" id="x">`) starts with [`super::named_tool_call`]'s `name=` opener and is
//! read there, by this reader's attribute reader ([`read_attrs`]), its id kept too. An opener starts a call only when it reads as one ([`head`]): quoted
//! attributes (an `id`, a `name` that is a plain identifier, nothing else), `>`, whitespace,
//! then `{` (the arguments) or `</tool_call>` (none). Prose that names the tag has no `{` after
//! it and stays text; code spans and fences never get here (the stream machine keeps them as
//! text). `auto` detects the family by that same shape. The model's id is kept when it is a
//! plain token (letters, digits, `_`, `-`, `.`, `:`).
//!
//! Bad input: arguments that are not a JSON object, or JSON that does not parse, give no call
//! (never a call with half its arguments): the block is removed and its raw text reported
//! ([`super::unreadable`]). A closing tag inside a JSON string does not end the call. A call whose
//! arguments end but whose `</tool_call>` never comes (a reply cut by `max_tokens`) is kept and
//! reported as `truncated`; one cut inside its opener or its arguments is no call, reported as
//! `truncated`, its raw text kept in the problem.

use super::named_tool_call::{body_head, read_body, Body};
use super::scan::{Finder, HeadWindow, HEAD_WINDOW};
use super::{Block, Ctx, Parsed, RawCall};

const NAME: &str = "attr_tool_call";
/// The opener of a call, up to its id's opening quote.
pub const OPEN: &str = "<tool_call id=";
/// The closing tag of a call.
pub const CLOSE: &str = super::named_tool_call::CLOSE;

/// What follows an opener.
enum Head<'t> {
    /// A call: its id, its name and where its body starts (after `>`), offsets into the text
    /// after `<tool_call`.
    Call(&'t str, &'t str, usize),
    /// The text ends inside the opener (a cut call, or more may come).
    Cut,
    /// Not a call.
    No,
}

/// The attributes of a `<tool_call …>` tag as far as its `>`.
pub(super) enum Attrs<'t> {
    /// The tag's `id` and `name` (each at most once) and where its body starts (after `>`).
    Tag {
        id: Option<&'t str>,
        name: Option<&'t str>,
        body: usize,
    },
    /// The text ends inside the tag (a cut call, or more may come).
    Cut,
    /// Not such a tag.
    No,
}

/// Whether `s` is a plain token: a name or an id as APIs write them.
pub(super) fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Read the attributes of a tag from `tag`, which starts at the space before the first one:
/// `id` and `name`, each a quoted plain token, separated by spaces, then `>`. Offsets are into
/// `tag`. Shared with [`super::named_tool_call`], whose opener has read the name already and
/// may be followed by an `id` (`<tool_call name="f" id="x">`).
pub(super) fn read_attrs(tag: &str) -> Attrs<'_> {
    let b = tag.as_bytes();
    let (mut id, mut name) = (None, None);
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i >= b.len() || i > HEAD_WINDOW {
            return if i >= b.len() { Attrs::Cut } else { Attrs::No };
        }
        if b[i] == b'>' {
            return Attrs::Tag {
                id,
                name,
                body: i + 1,
            };
        }
        if i == start {
            // Attributes are separated by spaces.
            return Attrs::No;
        }
        let k = i;
        while i < b.len() && b[i].is_ascii_lowercase() {
            i += 1;
        }
        let key = &tag[k..i];
        if i >= b.len() {
            return Attrs::Cut;
        }
        if b[i] != b'=' || !matches!(key, "id" | "name") {
            return Attrs::No;
        }
        i += 1;
        let Some(&q @ (b'"' | b'\'')) = b.get(i) else {
            return if i >= b.len() { Attrs::Cut } else { Attrs::No };
        };
        let v = i + 1;
        let Some(len) = b[v..]
            .iter()
            .position(|&c| c == q || matches!(c, b'<' | b'>' | b'\n'))
        else {
            return if b.len() - v <= HEAD_WINDOW {
                Attrs::Cut
            } else {
                Attrs::No
            };
        };
        if b[v + len] != q || !plain(&tag[v..v + len]) {
            return Attrs::No;
        }
        let slot = if key == "id" { &mut id } else { &mut name };
        if slot.replace(&tag[v..v + len]).is_some() {
            return Attrs::No;
        }
        i = v + len + 1;
    }
}

/// Read the attributes after `<tool_call` (`tag` starts at the space before `id=`): both an id
/// and a name.
fn read_head(tag: &str) -> Head<'_> {
    match read_attrs(tag) {
        Attrs::Tag {
            id: Some(id),
            name: Some(name),
            body,
        } => Head::Call(id, name, body),
        Attrs::Cut => Head::Cut,
        Attrs::Tag { .. } | Attrs::No => Head::No,
    }
}

/// Whether the text `after` an [`OPEN`] starts a call: quoted attributes (an id, a name), `>`,
/// whitespace, then `{` or [`CLOSE`]. `None` when the text ends before that is known and more may
/// come (`finished` false). At the end of the reply (`finished`), a text cut inside the opener or
/// right after its `>` is a cut call (examples: the unit test `head_settles_as_the_stream_needs`;
/// no doctest, to spare CI a binary).
pub fn head(after: &str, finished: bool) -> Option<bool> {
    let window = HeadWindow::new(after, finished);
    // Read from the space before `id=`, as [`parse`] does.
    let tag = format!(" id={}", window.view);
    match read_head(&tag) {
        Head::No => Some(false),
        Head::Cut => window.pending(true),
        Head::Call(_, _, body) => body_head(&tag[body..], &window),
    }
}

/// Every call block of the family in `text`.
pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let mut opens = Finder::new(OPEN);
    let mut at = 0;
    while let Some(open) = opens.find(text, at) {
        let limit = opens.find(text, open + OPEN.len()).unwrap_or(text.len());
        match read_call(text, open, limit, &mut out.problems) {
            Read::No => at = open + OPEN.len(),
            Read::Call(call, end) => {
                let block = Block::of_calls(open, end, vec![call], &mut out.problems, || {
                    format!("{NAME}: no call; raw text kept in content")
                });
                out.blocks.push(block);
                at = end;
            }
            Read::Unreadable(end) => {
                out.blocks.push(Block {
                    start: open,
                    end,
                    calls: Vec::new(),
                    keep_raw: true,
                });
                at = end;
            }
        }
    }
    out.set_format_if_calls(NAME);
    out
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
fn read_call(text: &str, pos: usize, limit: usize, problems: &mut Vec<String>) -> Read {
    // From the space before `id=`.
    let tag_at = pos + OPEN.len() - " id=".len();
    let (id, name, body_at) = match read_head(&text[tag_at..limit]) {
        Head::Call(id, name, body) => (id, name, tag_at + body),
        Head::Cut if limit == text.len() => {
            problems.push(format!(
                "{NAME}: the call's opening tag was cut off (truncated reply)"
            ));
            problems.push(format!("{NAME}: no call; raw text kept in content"));
            return Read::Unreadable(limit);
        }
        Head::Cut | Head::No => return Read::No,
    };
    let rest = text[body_at..limit].trim_start();
    let json_at = limit - rest.len();
    match read_body(text, json_at, limit, name, NAME, problems) {
        Body::Args(arguments, end) => {
            let call = RawCall {
                name: name.to_owned(),
                arguments,
                id: Some(id.to_owned()),
            };
            Read::Call(call, end)
        }
        Body::Unreadable(end) => Read::Unreadable(end),
        Body::NotJson => Read::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name, arguments)` pairs, block spans, problem kinds.
    type Got = (
        Vec<(String, String)>,
        Vec<(usize, usize)>,
        Vec<&'static str>,
    );

    fn calls(text: &str) -> Got {
        let p = parse(text, &Ctx::default());
        let spans = p.blocks.iter().map(|b| (b.start, b.end)).collect();
        (
            p.call_pairs(),
            spans,
            crate::response::problem::kinds(&p.problems),
        )
    }

    #[test]
    fn attributes_in_either_order_and_the_id_kept() {
        let t = "好\n<tool_call name='f' id=\"call_00_a\">{\"城市\": \"北京\"}</tool_call>\n完成";
        let p = parse(t, &Ctx::default());
        assert!(
            p.blocks.is_empty(),
            "the opener starts with name=: not this family"
        );
        let t =
            "好\n<tool_call id=\"call_00_a\" name='f'>\n{\"城市\": \"北京\"}\n</tool_call>\n完成";
        let p = parse(t, &Ctx::default());
        assert_eq!(p.blocks.len(), 1);
        assert_eq!(p.blocks[0].calls[0].id.as_deref(), Some("call_00_a"));
        assert_eq!(&t[p.blocks[0].start..p.blocks[0].end], &t[4..t.len() - 7]);
    }

    #[test]
    fn head_settles_as_the_stream_needs() {
        assert_eq!(
            head("\"call_00_x\" name=\"f\">\n{\"城市\": \"北京\"}", true),
            Some(true)
        );
        assert_eq!(head("\"1\" name=\"f\"> 标签包住参数", true), Some(false));
        assert_eq!(head("\"1\" name=\"f(x)\">{}", true), Some(false));
        assert_eq!(head("\"call_00_x\" na", false), None);
        assert_eq!(head("\"call_00_x\" na", true), Some(true));
        assert_eq!(head("\"1\" name=\"f\">\n</tool_", false), None);
        let long = format!("\"{}", "x".repeat(300));
        assert_eq!(head(&long, false), Some(false));
    }

    #[test]
    fn prose_and_garbage_heads_are_not_calls() {
        for t in [
            "用 <tool_call id=\"1\" name=\"x\"> 标签包住参数。",
            "<tool_call id=\"1\">{}</tool_call>",
            "<tool_call id=\"1\" name=\"a b\">{}</tool_call>",
            "<tool_call id=\"1\" name=\"&quot;f\">{}</tool_call>",
            "<tool_call id=\"1\" name=\"f\" name=\"g\">{}</tool_call>",
            "<tool_call id=\"1\" type=\"x\" name=\"f\">{}</tool_call>",
            "<tool_call id=1 name=\"f\">{}</tool_call>",
        ] {
            let (c, spans, _) = calls(t);
            assert!(c.is_empty() && spans.is_empty(), "{t}");
        }
    }

    #[test]
    fn cut_and_bad_calls_are_reported_never_half_read() {
        let cut = "<tool_call id=\"c\" name=\"f\">{\"s\": \"</tool_call> 今天";
        let (c, spans, p) = calls(cut);
        assert!(c.is_empty());
        assert_eq!(spans, [(0, cut.len())]);
        assert_eq!(p, ["truncated", "unreadable-block"]);
        let t = "<tool_call id=\"c\" name=\"f\">{\"a\": 1,}</tool_call> ok";
        let (c, spans, p) = calls(t);
        assert!(c.is_empty());
        assert_eq!(spans, [(0, t.len() - 3)]);
        assert_eq!(p.len(), 1);
        let t = "<tool_call id=\"c\" name=\"f\">{\"a\": 1}";
        let (c, _, p) = calls(t);
        assert_eq!(c, [("f".into(), r#"{"a":1}"#.into())]);
        assert_eq!(p, ["truncated"]);
        let t = "<tool_call id=\"c\" na";
        let (c, spans, p) = calls(t);
        assert!(c.is_empty());
        assert_eq!(spans, [(0, t.len())]);
        assert_eq!(p, ["truncated", "unreadable-block"]);
    }
}
