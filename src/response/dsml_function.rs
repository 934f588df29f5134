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
//! invoke closer after it is text, but for the reply's last head when the reply ends inside its
//! parameters (cut by `max_tokens`: parameters from the head on, the last one cut or the invoke
//! closer missing) and something says it is a call: the tool is offered, or DSML markup or a
//! `string="…"` attribute follows the head. That call is removed to the end of the reply and
//! reported (`truncated`, the raw text kept). Each head's search stops at the next head, so many
//! heads stay linear. This reader sees the canonical spelling.

use super::bare_json::offered;
use super::deepseek_v32::{typed_param, Written};
use super::dsml::{canonical, section_end, FORMAT};
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

/// The `<function>` calls of `text` (canonical DSML spelling) added to `out`; `written` gives each
/// value as the model wrote it (the map rewrites DSML tags named inside a value).
pub fn read(text: &str, cx: &Ctx, out: &mut Parsed, written: &Written) {
    let mut next = find_from(text, OPEN, 0);
    while let Some(start) = next {
        let after = start + OPEN.len();
        next = find_from(text, OPEN, after);
        // What this call may read: up to the next head.
        let hi = next.unwrap_or(text.len());
        let Some(Some((name, len))) = head(&text[after..hi], true) else {
            continue;
        };
        let (arguments, end) = match call(text, after + len, hi, cx, name, written) {
            Read::Call(arguments, end) => (arguments, end),
            Read::Cut(args) if next.is_none() && cut_at_end(&text[after + len..], name, cx) => {
                if let Some((arguments, tag)) = args {
                    // Cut after its last value closed: the call is whole but for its closers. The
                    // cut closer is markup of its own, so the call is not taken for one cut inside
                    // its arguments ([`super::garbage`]).
                    out.problems.push(format!(
                        "{FORMAT}: {OPEN} call {name:?} cut off by the end of the reply after its \
                         last complete parameter (truncated); the call is returned"
                    ));
                    super::dsml::push_call(out, (start, tag), name, arguments);
                    if tag < text.len() {
                        out.blocks.push(Block {
                            start: tag,
                            end: text.len(),
                            calls: Vec::new(),
                            keep_raw: false,
                        });
                    }
                    return;
                }
                out.problems.push(format!(
                    "{FORMAT}: {OPEN} call {name:?} cut off by the end of the reply (truncated); no call"
                ));
                out.blocks.push(Block::of_calls(
                    start,
                    text.len(),
                    Vec::new(),
                    &mut out.problems,
                    || format!("{FORMAT}: {OPEN} call cut off; raw text kept in content"),
                ));
                return;
            }
            Read::Cut(_) | Read::No => {
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
            }
        };
        super::dsml::push_call(out, (start, end), name, arguments);
        if next.is_some_and(|n| n < end) {
            next = find_from(text, OPEN, end);
        }
    }
}

/// What the parameters after a head read as.
enum Read {
    /// The arguments and the block's end (past a section closer right after the invoke closer).
    Call(String, usize),
    /// No call: something other than a parameter or the invoke closer comes first.
    No,
    /// The text ends (at `hi`, or at the stream machine's NUL) inside the parameters or before
    /// the invoke closer; with the arguments when it ends after a closed parameter, in
    /// whitespace or inside the invoke closer (`…</｜DSML｜parameter>`⏎`</｜DSML｜inv`): every
    /// value is complete, so the call is returned, as every family returns a call cut there.
    /// A lone `<` there may open another parameter: no arguments. With them, where the cut
    /// closer starts (the end of the text when there is none).
    Cut(Option<(String, usize)>),
}

/// Whether the head of the tool `name` whose parameters (`rest`, right after the head) run to the
/// end of the reply says it is a call: the tool is offered, DSML markup follows it, or a parameter
/// carries DSML's `string="…"` attribute.
fn evidence(rest: &str, name: &str, cx: &Ctx) -> bool {
    offered(cx.tools, name)
        || memchr::memmem::find(rest.as_bytes(), b"DSML").is_some()
        || memchr::memmem::find(rest.as_bytes(), b" string=").is_some()
}

/// Whether the reply, ending in `rest` (what follows the head of the tool `name`, any DSML
/// spelling), was cut inside that call's parameters and something says it is a call (see the
/// module doc): the stream machine asks this of the reply's last head at its end.
pub fn cut(rest: &str, name: &str, cx: &Ctx) -> bool {
    let c = canonical(rest);
    // Only whether it reads as cut is asked: the values are not kept.
    matches!(
        call(&c.text, 0, c.text.len(), cx, name, &|_| None),
        Read::Cut(_)
    ) && cut_at_end(&c.text, name, cx)
}

/// Whether `rest` (what follows a head, up to the next head) holds an invoke closer in any
/// spelling: the stream machine asks this at the reply's end for the spellings its closer list
/// leaves out (spaced bars).
pub fn closed(rest: &str) -> bool {
    memchr::memmem::find(rest.as_bytes(), b"DSML").is_some()
        && find_from(&canonical(rest).text, INVOKE_END, 0).is_some()
}

/// For a head whose parameters (`rest`, canonical) read as [`Read::Cut`] at the end of the
/// reply: no invoke closer comes after it (one that does makes it an unreadable call, not a cut
/// one) and something says it is a call.
fn cut_at_end(rest: &str, name: &str, cx: &Ctx) -> bool {
    find_from(rest, INVOKE_END, 0).is_none() && evidence(rest, name, cx)
}

/// The parameters of the call named `name` from `at` to its invoke closer (before `hi`).
fn call(text: &str, mut at: usize, hi: usize, cx: &Ctx, name: &str, written: &Written) -> Read {
    match params(text, &mut at, hi, cx, name, written) {
        Some(r) => r,
        None => Read::No,
    }
}

/// [`call`]'s loop (`None`: [`Read::No`]).
fn params(
    text: &str,
    at: &mut usize,
    hi: usize,
    cx: &Ctx,
    name: &str,
    written: &Written,
) -> Option<Read> {
    let mut map = serde_json::Map::new();
    // The next of each parameter closer at or after where it was last looked for: each closer
    // is searched for once over the call, however many parameters close with the other one.
    let mut ends: [Option<Option<usize>>; 2] = [None; 2];
    loop {
        let t = text[*at..hi].trim_start();
        *at = hi - t.len();
        if let Some(rest) = t.strip_prefix(INVOKE_END) {
            let end = section_end(text, hi - rest.len());
            return Some(Read::Call(serde_json::Value::Object(map).to_string(), end));
        }
        if t.is_empty() || t == "\0" || INVOKE_END.starts_with(t.trim_end_matches('\0')) {
            let closed =
                !map.is_empty() && (t.is_empty() || t.starts_with("</") && !t.ends_with('\0'));
            let args = closed.then(|| (serde_json::Value::Object(map).to_string(), *at));
            return Some(Read::Cut(args));
        }
        let Some(open) = PARAM_OPENS.iter().find(|o| t.starts_with(**o)) else {
            let cut_tag = PARAM_OPENS
                .iter()
                .any(|o| o.starts_with(t.trim_end_matches('\0')));
            return cut_tag.then_some(Read::Cut(None));
        };
        let head_at = *at + open.len();
        let Some(gt) = memchr::memchr(b'>', &text.as_bytes()[head_at..hi]).map(|g| head_at + g)
        else {
            return Some(Read::Cut(None));
        };
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
        let Some((value_end, close)) = best else {
            return Some(Read::Cut(None));
        };
        let value = text[gt + 1..value_end].trim();
        let value = written(value).unwrap_or(value);
        let typed = typed_param(cx, name, pname, attr(head, "string"), value);
        map.insert(pname.to_owned(), typed);
        *at = value_end + close;
    }
}

#[cfg(test)]
mod tests {
    use super::super::linearity::{assert_grows_linearly, stream_in_deltas};
    use super::super::test_util::{named, run};
    use super::super::{clean_response, Options};
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
        // Heads with DSML's attribute and no closer at all: the reply's end cuts the last one,
        // whole and streamed in small deltas.
        let cut = |n: usize| {
            "<function>\n<name>bash</name>\n<parameter name=\"c\" string=\"true\">北京 "
                .repeat(n / 70 + 1)
        };
        assert_grows_linearly("dsml_function cut heads", &cut, &|t| {
            let _ = clean_response(t, &opts);
        });
        assert_grows_linearly("dsml_function cut heads, streamed", &cut, &|t| {
            stream_in_deltas(&opts, t, 64);
        });
        // Heads closed in the spaced spelling the stream's closer list leaves out, and heads
        // with spaced DSML parameters and no closer: each head's text up to the next is read
        // once at the reply's end ([`closed`]).
        let spaced = |n: usize| {
            "<function>\n<name>bash</name>\n< | DSML | parameter name=\"c\">北京</ | DSML | parameter>\n</ | DSML | invoke>\n"
                .repeat(n / 110 + 1)
        };
        let open = |n: usize| {
            "<function>\n<name>bash</name>\n< | DSML | parameter name=\"c\">北京 "
                .repeat(n / 70 + 1)
        };
        for (what, make) in [
            ("spaced", &spaced as &dyn Fn(usize) -> String),
            ("open", &open),
        ] {
            assert_grows_linearly(&format!("dsml_function {what} heads"), make, &|t| {
                let _ = clean_response(t, &opts);
            });
            assert_grows_linearly(
                &format!("dsml_function {what} heads, streamed"),
                make,
                &|t| {
                    stream_in_deltas(&opts, t, 64);
                },
            );
        }
    }
}
