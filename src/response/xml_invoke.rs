//! Shared reading of the `<PREFIX:invoke name="F"><PREFIX:parameter name="K" …>V</…parameter></…invoke>`
//! call bodies written by Step-3 (`steptml:`) and DeepSeek-V3.2's DSML (`｜DSML｜`), and of the
//! section/call wrappers around them; MiniMax-M2's unprefixed invokes and MiniCPM5's
//! `<function name="F"><param name="K">V</param></function>` (no section) are read the same way.
//!
//! A value ends only at its exact closing tag (so `<`, `>` and `&` inside it are kept, where vLLM
//! 0.14's Step-3 parser loses such a parameter) and is trimmed; entities are not decoded. An
//! invoke ends at its closing tag or at the next invoke. Missing closing tags (truncated reply) run
//! to the end of the enclosing body and are reported; an invoke with an empty name is skipped.

use std::borrow::Cow;

use super::scan::{find_from, Finder};
use super::typing::{typed_arguments, Style};
use super::{Block, Ctx, RawCall};

/// The tag names of one dialect (openers without their `>`, e.g. `<steptml:invoke`).
#[derive(Debug, Clone, Copy)]
pub struct Tags {
    pub invoke: &'static str,
    pub invoke_end: &'static str,
    pub param: &'static str,
    pub param_end: &'static str,
}

/// One invoke as written: its name, its parameters and its raw body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoke<'a> {
    pub name: &'a str,
    pub params: Vec<Param<'a>>,
    pub body: &'a str,
}

/// One parameter: its name, its `string="…"` attribute if any, and its trimmed value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param<'a> {
    pub name: &'a str,
    pub string: Option<&'a str>,
    pub value: &'a str,
}

/// The value of attribute `key` in a tag head (` name="x" string="true"`), quoted or not.
pub fn attr<'a>(head: &'a str, key: &str) -> Option<&'a str> {
    let mut at = 0;
    while let Some(i) = find_from(head, key, at) {
        at = i + key.len();
        let before_ok = i == 0 || head[..i].ends_with(|c: char| c.is_whitespace());
        let rest = head[at..].trim_start();
        let Some(rest) = rest.strip_prefix('=').filter(|_| before_ok) else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
            let inner = &rest[1..];
            return Some(inner.find(q).map_or(inner, |e| &inner[..e]));
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(rest.len());
        return Some(&rest[..end]);
    }
    None
}

/// Is `rest` (the text at an opener without `>`) really that tag, not a longer name?
fn tag_here(rest: &str, opener: &str) -> bool {
    rest.strip_prefix(opener)
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_whitespace() || c == '>')
}

/// Every invoke in `body`.
pub fn invokes<'a>(
    body: &'a str,
    tags: &Tags,
    family: &str,
    problems: &mut Vec<String>,
) -> Vec<Invoke<'a>> {
    let mut out = Vec::new();
    let mut ends = Finder::new(tags.invoke_end);
    let mut next = Finder::new(tags.invoke);
    let mut at = 0;
    while let Some(i) = find_from(body, tags.invoke, at) {
        at = i + tags.invoke.len();
        if !tag_here(&body[i..], tags.invoke) {
            continue;
        }
        let head_at = i + tags.invoke.len();
        let Some(gt) = find_from(body, ">", head_at) else {
            problems.push(format!("{family}: invoke tag cut off; call dropped"));
            break;
        };
        let inv_end = match [ends.find(body, gt), next.find(body, gt)]
            .into_iter()
            .flatten()
            .min()
        {
            Some(e) => e,
            None => {
                problems.push(format!(
                    "{family}: {} missing (truncated reply)",
                    tags.invoke_end
                ));
                body.len()
            }
        };
        at = inv_end.max(gt + 1);
        let name = attr(&body[head_at..gt], "name").unwrap_or("").trim();
        if name.is_empty() {
            problems.push(format!("{family}: invoke with an empty name skipped"));
            continue;
        }
        let inner = &body[gt + 1..inv_end];
        out.push(Invoke {
            name,
            params: params(inner, tags, name, family, problems),
            body: inner,
        });
    }
    out
}

fn params<'a>(
    body: &'a str,
    tags: &Tags,
    func: &str,
    family: &str,
    problems: &mut Vec<String>,
) -> Vec<Param<'a>> {
    let mut out = Vec::new();
    let mut ends = Finder::new(tags.param_end);
    let mut at = 0;
    while let Some(p) = find_from(body, tags.param, at) {
        at = p + tags.param.len();
        if !tag_here(&body[p..], tags.param) {
            continue;
        }
        let head_at = p + tags.param.len();
        let Some(gt) = find_from(body, ">", head_at) else {
            break;
        };
        let value_end = match ends.find(body, gt) {
            Some(e) => e,
            None => {
                problems.push(format!(
                    "{family}: call {func:?}: {} missing (truncated)",
                    tags.param_end
                ));
                body.len()
            }
        };
        let head = &body[head_at..gt];
        if let Some(name) = attr(head, "name").map(str::trim).filter(|n| !n.is_empty()) {
            out.push(Param {
                name,
                string: attr(head, "string"),
                value: body[gt + 1..value_end].trim(),
            });
        }
        at = (value_end + tags.param_end.len())
            .min(body.len())
            .max(gt + 1);
    }
    out
}

/// The wrappers of a dialect: a section of calls and, optionally, a per-call wrapper.
#[derive(Debug, Clone, Copy)]
pub struct Wrappers {
    /// `None` for a dialect whose invokes stand alone (MiniCPM5).
    pub section: Option<(&'static str, &'static str)>,
    pub call: Option<(&'static str, &'static str)>,
}

/// Blocks of calls: a section, a per-call wrapper without its section, or a bare invoke (each
/// whichever comes first). `read` turns a block's body into calls.
pub fn blocks(
    text: &str,
    w: &Wrappers,
    tags: &Tags,
    family: &str,
    problems: &mut Vec<String>,
    mut read: impl FnMut(&str, &mut Vec<String>) -> Vec<RawCall>,
) -> Vec<Block> {
    let mut out = Vec::new();
    let mut kinds: Vec<(&str, &str, Finder, Finder)> = Vec::new();
    if let Some((o, c)) = w.section {
        kinds.push((o, c, Finder::new(o), Finder::new(c)));
    }
    if let Some((o, c)) = w.call {
        kinds.push((o, c, Finder::new(o), Finder::new(c)));
    }
    kinds.push((
        tags.invoke,
        tags.invoke_end,
        Finder::new(tags.invoke),
        Finder::new(tags.invoke_end),
    ));
    let last = kinds.len() - 1;
    let mut at = 0;
    while let Some((start, k)) = kinds
        .iter_mut()
        .enumerate()
        .filter_map(|(k, (_, _, f, _))| f.find(text, at).map(|i| (i, k)))
        .min()
    {
        let (open, close, _, closes) = &mut kinds[k];
        let bare = k == last;
        if bare && !tag_here(&text[start..], open) {
            at = start + open.len();
            continue;
        }
        let body_at = if bare { start } else { start + open.len() };
        let (body_end, end) = match closes.find(text, body_at) {
            Some(c) if bare => (c + close.len(), c + close.len()),
            Some(c) => (c, c + close.len()),
            None => {
                problems.push(format!("{family}: {close} missing (truncated reply)"));
                (text.len(), text.len())
            }
        };
        let calls = read(&text[body_at..body_end], problems);
        out.push(Block::of_calls(start, end, calls, problems, || {
            format!("{family}: call block holds no readable invoke; raw text kept in content")
        }));
        at = end.max(start + 1);
    }
    out
}

/// The invokes of `body` as calls, each value first read by `decode` (entities, CDATA, or
/// [`as_written`]), then typed in `style` from the tools' schemas.
pub fn typed_invokes<'a, 'v>(
    body: &'a str,
    tags: &Tags,
    family: &str,
    cx: &Ctx,
    style: Style,
    decode: impl Fn(&'a str) -> Cow<'v, str>,
    problems: &mut Vec<String>,
) -> Vec<RawCall> {
    invokes(body, tags, family, problems)
        .into_iter()
        .map(|inv| {
            let values: Vec<(&str, Cow<str>)> = inv
                .params
                .iter()
                .map(|p| (p.name, decode(p.value)))
                .collect();
            RawCall {
                arguments: typed_arguments(
                    values.iter().map(|(k, v)| (*k, v.as_ref())),
                    cx.tools,
                    inv.name,
                    style,
                ),
                name: inv.name.to_owned(),
                id: None,
            }
        })
        .collect()
}

/// A value taken exactly as written (for [`typed_invokes`]).
pub fn as_written(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes() {
        assert_eq!(attr(" name=\"a b\" string=\"true\"", "name"), Some("a b"));
        assert_eq!(attr(" name='x' string=false", "string"), Some("false"));
        assert_eq!(attr(" name=x/", "name"), Some("x"));
        assert_eq!(attr(" rename=\"y\" name=\"z\"", "name"), Some("z"));
        assert_eq!(attr(" other=\"1\"", "name"), None);
    }
}
