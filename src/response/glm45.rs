//! GLM-4.5 / 4.6 (`glm45`) and GLM-4.7 / GLM-5 (`glm47`) calls (reference §4):
//! `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>`, and the same
//! without line breaks, possibly with no arguments at all (`<tool_call>refresh_cache</tool_call>`).
//!
//! One tolerant parser reads both: the name is the text after `<tool_call>` up to the first
//! `<arg_key>`, `</tool_call>` or line break, trimmed; the format reported is `glm45` when a line
//! break ends the name, else `glm47`. Keys and values are trimmed and typed by GLM's rule
//! ([`Style::Glm`]). A missing `</arg_value>` or `</tool_call>` (truncated reply) runs to the end
//! of the block and is reported. Two slips GLM models make under load are read as meant: a value
//! whose opening `<arg_value>` is missing (`<arg_key>q</arg_key>text</arg_value>`, vLLM issue
//! 49248) ends at its closing tag, and a stray `</arg_value>` right after the name of a call
//! without arguments (`<tool_call>tool_12</arg_value>`, fireworks python-sdk issue 119) is dropped.
//!
//! GLM-5.3-Flash writes most calls in a JSON form (sglang PR 37925): `<tool_call>NAME>{…}`, the
//! arguments as one JSON object on the same line, `</tool_call>` after it or not at all. The
//! block ends with the object (and the closing tag when only whitespace comes between). Its
//! names may be written `Display/function` (`Weather/get_weather_by_city`): a `/`-separated
//! name becomes the segment that is an offered tool, else its last segment (OpenAI tool names
//! cannot hold `/`). An object that never closes is a truncated call: no call, raw text reported.
//!
//! A third slip loses the `<arg_key>` between the name and the first key, so the two are one word
//! (`<tool_call>send_command_to_shellcommand</arg_key><arg_value>echo test</arg_value>`, vLLM PR
//! 47190): only an offered tool whose name starts the word, with a key the tool takes after it,
//! splits it ([`read_glued`]); otherwise the block is reported, never a guessed call. A GLM name
//! is a tool's: a word that is not ASCII is a head only when `tools` offers it or `<arg_key>`
//! follows ([`super::scan::classify_tool_call`]), so Chinese prose after a `<tool_call>` that a
//! sentence names (`…会带出<think>,<tool_call>字符` then a line break) stays text.
//!
//! LongCat writes the same grammar with its own tag names (`<longcat_tool_call>NAME
//! <longcat_arg_key>K</longcat_arg_key> <longcat_arg_value>V</longcat_arg_value>
//! </longcat_tool_call>`): the tag names are a parameter ([`Tags`]), one reader for both.

use super::scan::{
    balanced_end, classify_tool_call, find_from, is_name, Finder, TOOL_CALL, TOOL_CALL_END,
};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, Family, Parsed, RawCall};
use serde_json::Value;

/// An argument's key tag (an orphan pair starts with it, [`super::orphan`]).
pub const KEY: &str = "<arg_key>";
/// The end of an argument's key.
pub const KEY_END: &str = "</arg_key>";
const VALUE: &str = "<arg_value>";
/// The end of an argument's value.
pub const VALUE_END: &str = "</arg_value>";

/// The tag names of one spelling of GLM's grammar, and the format names it reports.
pub struct Tags {
    pub open: &'static str,
    pub close: &'static str,
    pub key: &'static str,
    pub key_end: &'static str,
    pub value: &'static str,
    pub value_end: &'static str,
    /// The format when a line break ends the name (GLM-4.5), and when not (GLM-4.7).
    pub formats: (&'static str, &'static str),
    /// The label of its problems.
    pub label: &'static str,
}

/// GLM's own tags.
pub const GLM: Tags = Tags {
    open: TOOL_CALL,
    close: TOOL_CALL_END,
    key: KEY,
    key_end: KEY_END,
    value: VALUE,
    value_end: VALUE_END,
    formats: ("glm45", "glm47"),
    label: "glm",
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    parse_with(text, cx, &GLM)
}

/// Whether `body` (the text after the opener, up to and with its closer) is a call head in
/// `tags`' spelling: a name, then a key tag, the closer, a stray value closer or a line break
/// ([`classify_tool_call`] for GLM's own tags; another spelling has no JSON form to tell apart).
fn is_head(body: &str, tags: &Tags, cx: &Ctx) -> bool {
    if std::ptr::eq(tags, &GLM) {
        return classify_tool_call(body, cx.tools) == Some(Family::Glm) || cut_head(body, cx.tools);
    }
    let t = body.trim_start();
    let end = t.find(['<', '\n']).unwrap_or(t.len());
    let (name, next) = (t[..end].trim(), &t[end..]);
    let markup = |r: &str| {
        r.starts_with(tags.key) || r.starts_with(tags.value_end) || r.starts_with(tags.close)
    };
    // A tool's name (an ASCII word or an offered tool) with the markup right after it; a
    // sentence that names the tags (`<longcat_tool_call> 标签里用 <longcat_arg_key>`) is text.
    is_name(name)
        && (name.is_ascii() || super::bare_json::offered(cx.tools, name))
        && (markup(next) || next.strip_prefix('\n').is_some_and(markup))
}

/// [`parse`] with the tag names of `tags`.
pub fn parse_with(text: &str, cx: &Ctx, tags: &Tags) -> Parsed {
    let mut out = Parsed::default();
    let mut closes = Finder::new(tags.close);
    let mut opens = Finder::new(tags.open);
    let mut at = 0;
    while let Some(start) = find_from(text, tags.open, at) {
        let body_at = start + tags.open.len();
        let close = closes.find(text, body_at);
        let body_end = close.unwrap_or(text.len());
        // Classified with its closer, so that a body running to the text's end is a cut one.
        let head_end = close.map_or(text.len(), |c| c + tags.close.len());
        if !is_head(&text[body_at..head_end], tags, cx) {
            at = body_at;
            continue;
        }
        let json = std::ptr::eq(tags, &GLM)
            .then(|| json_block(text, body_at, &mut opens, cx, &mut out))
            .flatten();
        if let Some(b) = json {
            if out.format.is_none() && !b.calls.is_empty() {
                out.format = Some("glm47");
            }
            at = b.end;
            out.blocks.push(b);
            continue;
        }
        let end = close.map_or(text.len(), |c| c + tags.close.len());
        // A closing tag the end of the reply cut, after a call written whole ([`cut_closer`]).
        let mut cut = None;
        if close.is_none() {
            out.problems.push(format!(
                "{}: {} missing (truncated reply)",
                tags.label, tags.close
            ));
            cut = cut_closer(&text[body_at..], tags, cx).map(|k| body_at + k);
        }
        let body = &text[body_at..cut.unwrap_or(body_end)];
        if close.is_none() && cut.is_none() && cut_head(body, cx.tools) {
            // A bare name and a cut tag that may have gone on as `</arg_key>`: arguments unknown.
            out.problems.push(format!(
                "{}: call {:?} cut off inside a closing tag that may start {} (truncated reply, its arguments unknown); raw text kept in content",
                tags.label,
                body[..body.rfind('<').unwrap_or(0)].trim(),
                tags.key_end
            ));
            out.blocks.push(Block {
                start,
                end,
                calls: Vec::new(),
                keep_raw: true,
            });
            at = end;
            continue;
        }
        let (call, format) = read_call(body, close.is_some(), cx, tags, &mut out.problems);
        if out.format.is_none() && call.is_some() {
            out.format = Some(format);
        }
        match (call, cut) {
            (Some(c), Some(k)) => {
                // The call's block ends where the cut tag starts, which is markup of its own:
                // the call is not taken for one cut inside its arguments ([`super::garbage`]).
                out.blocks.push(Block {
                    start,
                    end: k,
                    calls: vec![c],
                    keep_raw: false,
                });
                out.blocks.push(Block {
                    start: k,
                    end,
                    calls: Vec::new(),
                    keep_raw: false,
                });
            }
            (Some(c), None) => out.blocks.push(Block {
                start,
                end,
                calls: vec![c],
                keep_raw: false,
            }),
            (None, _) => out.blocks.push(Block {
                start,
                end,
                calls: Vec::new(),
                keep_raw: true,
            }),
        }
        at = end;
    }
    out
}

/// Where a closing tag that the end of the reply cut starts in `body` (the text after a call's
/// opener, which no closer follows), when the call before it is whole: every argument's value
/// closed (`…</arg_value>`, then `</`, `</to`… of `</tool_call>`), or a call without arguments
/// whose cut tag can only be its closer or the stray `</arg_value>` GLM-5.2 writes after such a
/// name (`tool_12</t`, `tool_12</arg_v`). A piece that may also start `</arg_key>` after a bare
/// name (`tool_12</`, `tool_12</arg_`: the name may be glued to a first key, vLLM PR 47190, and
/// its arguments cut) is a whole call only when `tools` offers that name and no offered tool
/// starts it; `None` otherwise, so the call is read as cut ([`super::garbage`]).
fn cut_closer(body: &str, tags: &Tags, cx: &Ctx) -> Option<usize> {
    let (lt, piece) = cut_piece(body, tags)?;
    let starts = |tag: &str| tag.len() > piece.len() && tag.starts_with(piece);
    let before = body[..lt].trim_end();
    if let Some(head) = before.strip_suffix(tags.value_end) {
        // After a closed value, or after a bare name's stray `</arg_value>`: only the closer.
        // Every call with arguments holds a key's closer (the glued head of vLLM PR 47190 too).
        let args = head.contains(tags.key_end);
        return (starts(tags.close) && (args || is_name(head.trim()))).then_some(lt);
    }
    let name = before.trim_start();
    if !is_name(name) || !(starts(tags.close) || starts(tags.value_end)) {
        return None;
    }
    // `</arg_key>` too: a name glued to its first key unless tools say the name is a tool's.
    let certain = !starts(tags.key_end)
        || (super::bare_json::offered(cx.tools, name) && split_glued(name, cx.tools).is_none());
    certain.then_some(lt)
}

/// The last tag of `body` when the end of the text cut it right after its `</` or later (no `>`
/// yet; only the last closing tag's length of `tags` is looked at): where it starts, its bytes.
fn cut_piece<'b>(body: &'b str, tags: &Tags) -> Option<(usize, &'b str)> {
    let longest = tags
        .close
        .len()
        .max(tags.key_end.len())
        .max(tags.value_end.len());
    let tail = &body.as_bytes()[body.len().saturating_sub(longest)..];
    let lt = body.len() - tail.len() + memchr::memrchr(b'<', tail)?;
    let piece = &body[lt..];
    (piece.starts_with("</") && !piece.contains(['>', ' ', '\n'])).then_some((lt, piece))
}

/// Whether `body` (the text after a `<tool_call>` that no closer follows, to the end of the
/// reply) is a call head the end of the reply cut inside its first closing tag: a tool's name
/// (an ASCII word, or an offered tool), then `</` and up to all but the last byte of
/// `</tool_call>`, `</arg_value>` or `</arg_key>` (`tool_12</`, `list</arg_va`). The stream asks
/// this of a finished reply's last opener, the parser of a block with no closer.
pub fn cut_head(body: &str, tools: Option<&Value>) -> bool {
    if body.len() > super::scan::HEAD_WINDOW {
        return false;
    }
    let Some((lt, piece)) = cut_piece(body, &GLM) else {
        return false;
    };
    let name = body[..lt].trim();
    let starts = |tag: &str| tag.len() > piece.len() && tag.starts_with(piece);
    is_name(name)
        && (name.is_ascii() || super::bare_json::offered(tools, name))
        && (starts(TOOL_CALL_END) || starts(VALUE_END) || starts(KEY_END))
}

/// The head of an argument pair written outside any call at the start of `t` (which starts with
/// [`KEY`]): `<arg_key>K</arg_key>` (K on one line, at most 256 bytes, no tag in it) or a bare
/// `<arg_key>` (the key lost, THUDM/GLM#224), then spaces and `<arg_value>`. `Some(Some(at))`: a
/// pair head, its value starting at `at`; `Some(None)`: not one; `None`: not known before more
/// text comes (`finished`: none will).
pub fn orphan_pair_head(t: &str, finished: bool) -> Option<Option<usize>> {
    let after_key = |k: usize| -> Option<Option<usize>> {
        let r = &t[k..];
        let v = r.trim_start();
        let at = k + r.len() - v.len();
        if v.starts_with(VALUE) {
            Some(Some(at + VALUE.len()))
        } else if !finished && VALUE.starts_with(v) {
            None
        } else {
            Some(None)
        }
    };
    let r = t.get(KEY.len()..)?;
    if r.trim_start().starts_with('<') || (!finished && r.trim_start().is_empty()) {
        // No key (`<arg_key><arg_value>`), or not known yet.
        return match after_key(KEY.len()) {
            Some(Some(at)) => Some(Some(at)),
            Some(None) if r.trim_start().starts_with(KEY_END) => {
                after_key(KEY.len() + (r.len() - r.trim_start().len()) + KEY_END.len())
            }
            other => other,
        };
    }
    let window = &r.as_bytes()[..r.len().min(256)];
    match memchr::memchr2(b'<', b'\n', window) {
        Some(i) if r[i..].starts_with(KEY_END) => after_key(KEY.len() + i + KEY_END.len()),
        Some(i) if !finished && KEY_END.starts_with(&r[i..]) => None,
        Some(_) => Some(None),
        None if !finished && r.len() < 256 => None,
        None => Some(None),
    }
}

/// GLM-5.3-Flash's JSON form at the start of `t` (the text after `<tool_call>`, spaces trimmed):
/// the end of its name (at `>`) and where its `{` is. The name ends at the first `>`, `<` or line
/// break, which must be `>` with `{` after it on the same line.
pub fn json_head(t: &str) -> Option<(usize, usize)> {
    let g = t
        .find(['>', '<', '\n'])
        .filter(|&g| t.as_bytes()[g] == b'>')?;
    let after = &t[g + 1..];
    let ws = after.len() - after.trim_start_matches([' ', '\t']).len();
    (after[ws..].starts_with('{') && is_name(t[..g].trim())).then_some((g, g + 1 + ws))
}

/// The block of a JSON-form call whose body starts at `body_at`, if it is one.
fn json_block(
    text: &str,
    body_at: usize,
    opens: &mut Finder,
    cx: &Ctx,
    out: &mut Parsed,
) -> Option<Block> {
    let t = text[body_at..].trim_start();
    let lead = text.len() - body_at - t.len();
    let (g, b) = json_head(t)?;
    let start = body_at - TOOL_CALL.len();
    let name = resolve_name(t[..g].trim(), cx);
    let brace = body_at + lead + b;
    // The object ends before the next call opens (many unclosed openers stay linear).
    let limit = opens.find(text, brace).unwrap_or(text.len());
    let Some(e) = balanced_end(&text[..limit], brace, false) else {
        out.problems.push(format!(
            "glm: call {name:?}: JSON arguments cut off (truncated reply)"
        ));
        return Some(Block {
            start,
            end: limit,
            calls: Vec::new(),
            keep_raw: true,
        });
    };
    let arguments = super::normalize_json_args(&text[brace..e], "glm47", &mut out.problems);
    let rest = &text[e..];
    let ws = rest.len() - rest.trim_start().len();
    let end = if rest[ws..].starts_with(TOOL_CALL_END) {
        e + ws + TOOL_CALL_END.len()
    } else {
        e
    };
    Some(Block {
        start,
        end,
        calls: vec![RawCall {
            name,
            arguments,
            id: None,
        }],
        keep_raw: false,
    })
}

/// A name written `A/B`: the segment that is an offered tool (the whole name first), else the last.
fn resolve_name(name: &str, cx: &Ctx) -> String {
    if !name.contains('/') || super::bare_json::offered(cx.tools, name) {
        return name.to_owned();
    }
    let mut parts = name.split('/').map(str::trim).filter(|p| !p.is_empty());
    let last = parts.clone().next_back().unwrap_or(name);
    parts
        .find(|p| super::bare_json::offered(cx.tools, p))
        .unwrap_or(last)
        .to_owned()
}

/// One call's body. A value that holds its own closing tag (`<arg_value>a </arg_value> b</arg_value>`,
/// a call writing GLM markup) runs to the last `</arg_value>` before the next `<arg_key>`; in a
/// block cut off before `</tool_call>` such a value may have been cut anywhere after its first
/// closer, so the call is not returned (`skipped-call`): no tool gets half a value.
fn read_call(
    body: &str,
    closed: bool,
    cx: &Ctx,
    tags: &Tags,
    problems: &mut Vec<String>,
) -> (Option<RawCall>, &'static str) {
    let lead = body.len() - body.trim_start_matches([' ', '\t']).len();
    let name_end = [body[lead..].find(tags.key), body[lead..].find('\n')]
        .into_iter()
        .flatten()
        .min()
        .map_or(body.len(), |i| i + lead);
    let format = if body[name_end..].starts_with('\n') {
        tags.formats.0
    } else {
        tags.formats.1
    };
    // GLM-5.2 writes a no-argument call as `NAME</arg_value>` (a stray closing tag).
    let name = body[..name_end].trim();
    let name = name
        .strip_suffix(tags.value_end)
        .map_or(name, str::trim_end);
    if !is_name(name) {
        // The name glued to its first key (no `<arg_key>` before the first `</arg_key>`).
        if let Some(lt) = body[lead..].find('<').map(|i| lead + i) {
            if body[lt..].starts_with(tags.key_end) {
                return read_glued(body, &body[lead..lt], lt, closed, cx, tags, problems);
            }
        }
        problems.push(format!(
            "{}: call has no valid name; raw text kept in content",
            tags.label
        ));
        return (None, format);
    }
    let mut pairs = Vec::new();
    let mut key_ends = Finder::new(tags.key_end);
    let mut value_ends = Finder::new(tags.value_end);
    let mut keys = Finder::new(tags.key);
    let mut at = name_end;
    while let Some(k) = keys.find(body, at) {
        let key_at = k + tags.key.len();
        let Some(key_end) = key_ends.find(body, key_at) else {
            problems.push(format!(
                "{}: call {name:?}: {} missing; argument dropped",
                tags.label, tags.key_end
            ));
            break;
        };
        let after_key = key_end + tags.key_end.len();
        let rest = &body[after_key..];
        let ws = rest.len() - rest.trim_start().len();
        let value_at = if rest[ws..].starts_with(tags.value) {
            after_key + ws + tags.value.len()
        } else {
            // The opening `<arg_value>` left out (GLM-4.7 family under load): the value still
            // ends at its `</arg_value>`, when that comes before the next key.
            let next_key = keys.find(body, after_key);
            match value_ends.find(body, after_key) {
                Some(e) if next_key.is_none_or(|n| e < n) => after_key,
                _ => {
                    problems.push(format!(
                        "{}: call {name:?}: {} without {}",
                        tags.label, tags.key, tags.value
                    ));
                    at = after_key;
                    continue;
                }
            }
        };
        let value_end = match value_ends.find(body, value_at) {
            Some(first) => {
                let next_key = keys.find(body, first).unwrap_or(body.len());
                let mut last = first;
                while let Some(e) = value_ends
                    .find(body, last + tags.value_end.len())
                    .filter(|&e| e < next_key)
                {
                    last = e;
                }
                if last != first && !closed {
                    problems.push(format!(
                        "skipped-call: {}: call {name:?}: a value holds {} and the reply was cut; its end is unknown",
                        tags.label, tags.value_end
                    ));
                    return (None, format);
                }
                last
            }
            None => {
                problems.push(format!(
                    "{}: call {name:?}: {} missing (truncated)",
                    tags.label, tags.value_end
                ));
                body.len()
            }
        };
        pairs.push((
            body[key_at..key_end].trim(),
            body[value_at..value_end].trim(),
        ));
        at = (value_end + tags.value_end.len()).min(body.len());
    }
    let arguments = typed_arguments(pairs, cx.tools, name, Style::Glm);
    (
        Some(RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        }),
        format,
    )
}

/// Whether `word` (the text between `<tool_call>` and a `</arg_key>`) may be a tool's name glued
/// to its first key: one word, or two words a space apart (`browser_action task`), each a name.
pub fn glued_word(word: &str) -> bool {
    let mut words = word.split_whitespace();
    words.next().is_some_and(is_name) && words.next().is_none_or(is_name) && words.next().is_none()
}

/// A call whose head lost the `<arg_key>` between the name and the first key (vLLM PR 47190:
/// `<tool_call>send_command_to_shellcommand</arg_key><arg_value>echo test</arg_value>`): `word`
/// is the two glued, `</arg_key>` at `key_end`. Only an offered tool whose name starts the word,
/// with a plausible key after it (one of the tool's `properties` when its schema lists them;
/// such a tool is preferred, then the longest name), splits it; else there is no call (no
/// guess), the block is reported with its raw text.
fn read_glued(
    body: &str,
    word: &str,
    key_end: usize,
    closed: bool,
    cx: &Ctx,
    tags: &Tags,
    problems: &mut Vec<String>,
) -> (Option<RawCall>, &'static str) {
    match split_glued(word.trim(), cx.tools) {
        Some((name, key)) => {
            let mended = format!("{name}{}{key}{}", tags.key, &body[key_end..]);
            read_call(&mended, closed, cx, tags, problems)
        }
        None => {
            problems.push(format!(
                "{}: call name and first key glued ({:?}, the {} lost) and no offered tool's name starts it; raw text kept in content",
                tags.label,
                word.trim(),
                tags.key
            ));
            (None, tags.formats.1)
        }
    }
}

/// The offered tool's name and the key that `word` glues together (see [`read_glued`]).
fn split_glued<'w>(word: &'w str, tools: Option<&Value>) -> Option<(&'w str, &'w str)> {
    let mut best: Option<(&str, &str, bool)> = None;
    for tool in super::bare_json::names(tools) {
        let Some(rest) = word.strip_prefix(tool) else {
            continue;
        };
        let key = rest.trim_start();
        if !plausible_key(key) {
            continue;
        }
        let props = super::bare_json::schema(tools, tool)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        let fits = match props {
            Some(p) if !p.contains_key(key) => continue,
            Some(_) => true,
            None => false,
        };
        if best.is_none_or(|(n, _, f)| (fits, tool.len()) > (f, n.len())) {
            best = Some((&word[..tool.len()], key, fits));
        }
    }
    best.map(|(n, k, _)| (n, k))
}

/// An argument key as tools name them: an ASCII letter or `_`, then letters, digits, `_`, `-`, `.`.
fn plausible_key(k: &str) -> bool {
    let b = k.as_bytes();
    b.first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && b.len() <= 64
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(text: &str, cx: &Ctx) -> Vec<(String, String)> {
        parse(text, cx).call_pairs()
    }

    #[test]
    fn glm45_and_glm47_shapes() {
        let t45 = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>";
        let p = parse(t45, &Ctx::default());
        assert_eq!(p.format, Some("glm45"));
        assert_eq!(
            calls(t45, &Ctx::default()),
            [("get_weather".into(), r#"{"city":"Beijing"}"#.into())]
        );
        let t47 = "<tool_call>search<arg_key>query</arg_key><arg_value>rust</arg_value></tool_call><tool_call>refresh_cache</tool_call>";
        assert_eq!(parse(t47, &Ctx::default()).format, Some("glm47"));
        assert_eq!(
            calls(t47, &Ctx::default()),
            [
                ("search".into(), r#"{"query":"rust"}"#.into()),
                ("refresh_cache".into(), "{}".into())
            ]
        );
    }

    #[test]
    fn string_schema_keeps_json_text() {
        let tools = json!([{"function": {"name": "f", "parameters": {"properties": {"s": {"type": "string"}}}}}]);
        let cx = Ctx {
            tools: Some(&tools),
            unwrapped: false,
        };
        let t = "<tool_call>f<arg_key>s</arg_key><arg_value>{\"a\": 1}</arg_value><arg_key>n</arg_key><arg_value>42</arg_value></tool_call>";
        assert_eq!(
            calls(t, &cx),
            [("f".into(), r#"{"s":"{\"a\": 1}","n":42}"#.into())]
        );
    }

    #[test]
    fn slips_under_load_read_as_meant() {
        let t = "<tool_call>search<arg_key>query</arg_key>how many vacation days left</arg_value></tool_call>";
        assert_eq!(
            calls(t, &Ctx::default()),
            [(
                "search".into(),
                r#"{"query":"how many vacation days left"}"#.into()
            )]
        );
        let t = "<tool_call>tool_12</arg_value></tool_call>";
        assert_eq!(calls(t, &Ctx::default()), [("tool_12".into(), "{}".into())]);
        // A key with no value at all before the next key is still dropped.
        let t = "<tool_call>f<arg_key>a</arg_key><arg_key>b</arg_key><arg_value>2</arg_value></tool_call>";
        assert_eq!(
            calls(t, &Ctx::default()),
            [("f".into(), r#"{"b":2}"#.into())]
        );
    }

    #[test]
    fn truncated_value_runs_to_the_end() {
        let t = "<tool_call>f<arg_key>k</arg_key><arg_value>partial text";
        let p = parse(t, &Ctx::default());
        assert_eq!(p.blocks[0].end, t.len());
        assert_eq!(p.blocks[0].calls[0].arguments, r#"{"k":"partial text"}"#);
        assert_eq!(p.problems.len(), 2);
    }
}
