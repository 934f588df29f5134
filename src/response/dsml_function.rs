//! A DSML call whose invoke head came out as plain `<function><name>NAME</name>`, as
//! deepseek-v4-flash leaked it into `content` (opencrabs issue 419):
//!
//! ```text
//! <function>
//! <name>bash</name>
//! <parameter name="command" string="true">opencrabs --version</｜｜DSML｜｜parameter>
//! </｜｜DSML｜｜invoke>
//! </｜｜DSML｜｜tool_calls>
//! ```
//!
//! The head is no DSML tag, but the closers are: `</｜DSML｜invoke>` (in any bar spelling,
//! [`super::dsml`]) is what makes it a call, so the head is read only with it after the
//! parameters. The head must be exactly `<function>`, then `<name>NAME</name>` (whitespace
//! between); each parameter opens with `<parameter` or `<｜DSML｜parameter` and closes with
//! `</｜DSML｜parameter>` or `</parameter>`; values are typed as DSML's are
//! ([`super::deepseek_v32::typed_param`]). The section closer after the invoke, with no section
//! opener before it, belongs to the block. Read with or without tools (the DSML tokens are the
//! evidence, as for every DSML call). A head whose parameters do not read up to its invoke closer
//! is removed with them and reported (`unreadable-block`, the raw text kept); a head with no
//! invoke closer after it is text. Each head's search stops at the next head, so many heads stay
//! linear. This reader sees the canonical spelling.

use super::deepseek_v32::typed_param;
use super::dsml::FORMAT;
use super::scan::{find_from, is_name};
use super::xml_invoke::attr;
use super::{Block, Ctx, Parsed};

/// The head's first tag.
pub const OPEN: &str = "<function>";
const NAME_OPEN: &str = "<name>";
const NAME_CLOSE: &str = "</name>";
const PARAM_OPENS: [&str; 2] = ["<｜DSML｜parameter", "<parameter"];
const PARAM_ENDS: [&str; 2] = ["</｜DSML｜parameter>", "</parameter>"];
const INVOKE_END: &str = "</｜DSML｜invoke>";
const SECTION_END: &str = "</｜DSML｜function_calls>";
/// The longest name read.
const MAX_NAME: usize = 64;

/// The tool name of the head whose `<function>` ends right before `s`: `Some(Some((name, len)))`
/// (`len`: the head's bytes in `s`), `Some(None)` when `s` holds no such head, `None` when `s`
/// ends before that is known and more may come (`fin` false).
pub fn head(s: &str, fin: bool) -> Option<Option<(&str, usize)>> {
    let more = if fin { Some(None) } else { None };
    let t = s.trim_start();
    if t.is_empty() {
        return if s.len() > MAX_NAME { Some(None) } else { more };
    }
    let Some(rest) = t.strip_prefix(NAME_OPEN) else {
        return if NAME_OPEN.starts_with(t) {
            more
        } else {
            Some(None)
        };
    };
    let window = &rest.as_bytes()[..rest.len().min(MAX_NAME + 1)];
    let Some(lt) = memchr::memchr(b'<', window) else {
        return if window.len() > MAX_NAME {
            Some(None)
        } else {
            more
        };
    };
    let after = &rest[lt..];
    if after.len() < NAME_CLOSE.len() && NAME_CLOSE.starts_with(after) {
        return more;
    }
    let name = rest[..lt].trim();
    if !after.starts_with(NAME_CLOSE) || !is_name(name) {
        return Some(None);
    }
    let len = s.len() - after.len() + NAME_CLOSE.len();
    Some(Some((name, len)))
}

/// The `<function>` calls of `text` (canonical DSML spelling) added to `out`.
pub fn read(text: &str, cx: &Ctx, out: &mut Parsed) {
    let mut next = find_from(text, OPEN, 0);
    while let Some(start) = next {
        let after = start + OPEN.len();
        next = find_from(text, OPEN, after);
        // What this call may read: up to the next head.
        let hi = next.unwrap_or(text.len());
        let Some(Some((name, len))) = head(&text[after..hi], true) else {
            continue;
        };
        let Some((arguments, end)) = call(text, after + len, hi, cx, name) else {
            // Its DSML closer says it was a call: removed, and reported with its raw text.
            if let Some(k) = find_from(&text[..hi], INVOKE_END, after + len) {
                let end = section_end(text, k + INVOKE_END.len());
                out.blocks.push(Block::of_calls(
                    start,
                    end,
                    Vec::new(),
                    &mut out.problems,
                    || format!("{FORMAT}: {OPEN} call does not read; raw text kept in content"),
                ));
                if next.is_some_and(|n| n < end) {
                    next = find_from(text, OPEN, end);
                }
            }
            continue;
        };
        super::dsml::push_call(out, (start, end), name, arguments);
        if next.is_some_and(|n| n < end) {
            next = find_from(text, OPEN, end);
        }
    }
}

/// The end of a block whose invoke closer ends at `at`: past a section closer right after it (a
/// section opener never came), or at the end of `text` when only the stream machine's NUL ("more
/// may come") follows, so the section closer may still come.
fn section_end(text: &str, at: usize) -> usize {
    let r = text[at..].trim_start();
    if let Some(after) = r.strip_prefix(SECTION_END) {
        text.len() - after.len()
    } else if r == "\0" {
        text.len()
    } else {
        at
    }
}

/// The parameters of the call named `name` from `at` to its invoke closer (before `hi`): its
/// arguments and the block's end (past a section closer right after it). `None`: no call.
fn call(text: &str, mut at: usize, hi: usize, cx: &Ctx, name: &str) -> Option<(String, usize)> {
    let mut map = serde_json::Map::new();
    // The next of each parameter closer at or after where it was last looked for: each closer
    // is searched for once over the call, however many parameters close with the other one.
    let mut ends: [Option<Option<usize>>; 2] = [None; 2];
    loop {
        let t = text[at..hi].trim_start();
        at = hi - t.len();
        if let Some(rest) = t.strip_prefix(INVOKE_END) {
            let end = section_end(text, hi - rest.len());
            return Some((serde_json::Value::Object(map).to_string(), end));
        }
        let open = PARAM_OPENS.iter().find(|o| t.starts_with(**o))?;
        let head_at = at + open.len();
        let gt = head_at + memchr::memchr(b'>', &text.as_bytes()[head_at..hi])?;
        let head = &text[head_at..gt];
        if !head.starts_with([' ', '\t', '\n']) {
            return None;
        }
        let pname = attr(head, "name")
            .map(str::trim)
            .filter(|n| !n.is_empty())?;
        let mut best: Option<(usize, usize)> = None;
        for (memo, c) in ends.iter_mut().zip(PARAM_ENDS) {
            let hit = match *memo {
                Some(Some(i)) if i > gt => Some(i),
                Some(None) => None,
                _ => find_from(&text[..hi], c, gt + 1),
            };
            *memo = Some(hit);
            if let Some(i) = hit.filter(|&i| best.is_none_or(|(b, _)| i < b)) {
                best = Some((i, c.len()));
            }
        }
        let (value_end, close) = best?;
        let value = text[gt + 1..value_end].trim();
        let typed = typed_param(cx, name, pname, attr(head, "string"), value);
        map.insert(pname.to_owned(), typed);
        at = value_end + close;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use super::super::{clean_response, linearity::assert_grows_linearly, Options};
    use super::*;
    use serde_json::json;

    #[test]
    fn heads_are_told_within_a_name() {
        assert_eq!(
            head("\n<name>bash</name>\n<p", true),
            Some(Some(("bash", 18)))
        );
        assert_eq!(head("\n<name>bash</na", false), None);
        assert_eq!(head("\n<nam", false), None);
        assert_eq!(head("\n<nam", true), Some(None));
        assert_eq!(head(" 和 <name>", false), Some(None));
        assert_eq!(head("<name>a b</name>", true), Some(None));
    }

    #[test]
    fn reads_the_call_with_its_dsml_closers_only() {
        let t = "<function>\n<name>bash</name>\n<parameter name=\"command\" string=\"true\">ls -l 北京</｜｜DSML｜｜parameter>\n<parameter name=\"n\" string=\"false\">3</｜｜DSML｜｜parameter>\n</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls>";
        let c = run(t, None, None, None);
        assert_eq!(c.content, "");
        assert_eq!(c.format, Some("deepseek_v4"));
        assert_eq!(
            named(&c),
            [("bash", json!({"command": "ls -l 北京", "n": 3}))]
        );
        // Plain closers: not this reader's (nothing says DSML).
        let plain =
            "<function>\n<name>bash</name>\n<parameter name=\"command\">ls</parameter>\n</invoke>";
        assert!(run(plain, None, None, None).tool_calls.is_empty());
    }

    #[test]
    fn many_heads_stay_linear() {
        let opts = Options::default();
        let make = |n: usize| {
            "<function>\n<name>bash</name>\n<parameter name=\"c\">北京 ".repeat(n / 50 + 1)
                + "</｜｜DSML｜｜invoke>"
        };
        assert_grows_linearly("dsml_function heads", &make, &|t| {
            let _ = clean_response(t, &opts);
        });
        let code = |n: usize| {
            format!(
                "`{}`",
                "<function><name>bash</name> DSML ".repeat(n / 34 + 1)
            )
        };
        assert_grows_linearly("dsml_function heads in code", &code, &|t| {
            let _ = clean_response(t, &opts);
        });
    }
}
