//! DeepSeek-V4's DSML `toolcall` tag followed by its arguments as fenced JSON, as a DeepSeek-V4-Flash
//! deployment leaked it into `content` (vLLM-Ascend issue 13794):
//!
//! ````text
//! 让我将表格加宽，并优化列宽比例。
//!
//! <｜DSML｜toolcall>Read
//!
//! ```json
//! {"file_path":"/tmp/gen_report.js","offset":100,"limit":20}
//! ```
//! ````
//!
//! The DSML special token is the evidence (prose does not write it); the tool name follows it on
//! its line, then the arguments: one JSON object, in a ```` ``` ```` / ```` ```json ```` fence or
//! bare. The block ends with the closing fence (or the object, without a fence). A block
//! whose object never closes ran to the end of the reply (`max_tokens`): no call, removed and
//! reported. The bars of the tag may be spelled as every DSML tag's ([`super::dsml`]); this
//! reader sees the canonical spelling.

use super::scan::{balanced_end, is_name, Finder};
use super::{normalize_json_args, Block, Ctx, Parsed};

use super::deepseek_v32::Written;
use super::dsml::FORMAT as NAME;
/// The tag in its canonical spelling.
pub const OPEN: &str = "<｜DSML｜toolcall>";

/// The `toolcall` blocks of `text` (canonical DSML spelling) added to `out`; `written` gives the
/// arguments as the model wrote them (the map rewrites DSML tags named inside a string).
pub fn read(text: &str, _cx: &Ctx, out: &mut Parsed, written: &Written) {
    let mut opens = Finder::new(OPEN);
    let mut at = 0;
    while let Some(start) = opens.find(text, at) {
        let after = start + OPEN.len();
        // The name's line, looked for within a name's length (a longer line has no name).
        let window = &text.as_bytes()[after..text.len().min(after + 260)];
        let line_end = match memchr::memchr(b'\n', window) {
            Some(i) => after + i,
            None if after + window.len() == text.len() => text.len(),
            None => after,
        };
        let name = text.get(after..line_end).unwrap_or("").trim();
        let (body_at, fenced) = args_start(text, line_end);
        let object = body_at.filter(|&b| text[b..].starts_with('{'));
        let Some(obj) = object.filter(|_| is_name(name)) else {
            // A tag with nothing readable after it: the token alone is markup.
            let cut = body_at == Some(text.len());
            if cut {
                out.problems
                    .push(format!("{NAME}: {OPEN} cut off (truncated reply)"));
            }
            let end = if cut { text.len() } else { line_end };
            out.blocks.push(Block::of_calls(
                start,
                end,
                Vec::new(),
                &mut out.problems,
                || format!("{NAME}: {OPEN} has no JSON arguments; raw text kept in content"),
            ));
            at = end.max(after);
            continue;
        };
        let Some(obj_end) = balanced_end(text, obj, false) else {
            // The object runs to the end of the reply: everything after the tag is the cut call.
            out.problems.push(format!(
                "{NAME}: {OPEN} arguments cut off (truncated reply)"
            ));
            out.blocks.push(Block::of_calls(
                start,
                text.len(),
                Vec::new(),
                &mut out.problems,
                || {
                    format!(
                        "{NAME}: {OPEN} block does not read as a call; raw text kept in content"
                    )
                },
            ));
            return;
        };
        let end = if fenced {
            fence_close(text, obj_end).unwrap_or(obj_end)
        } else {
            obj_end
        };
        let raw = &text[obj..obj_end];
        let arguments = normalize_json_args(written(raw).unwrap_or(raw), NAME, &mut out.problems);
        at = super::dsml::push_call(out, (start, end), name, arguments);
    }
}

/// Where the arguments start after the name's line ending at `line_end`: past blank lines and an
/// opening fence line (` ``` ` or ` ```json `). `None` when a fence line has another info word;
/// `Some(len)` when the text ends first.
fn args_start(text: &str, line_end: usize) -> (Option<usize>, bool) {
    let rest = text[line_end..].trim_start();
    let at = text.len() - rest.len();
    let Some(info) = rest.strip_prefix("```") else {
        return (Some(at), false);
    };
    let nl = info.find('\n').unwrap_or(info.len());
    if !matches!(info[..nl].trim(), "" | "json") {
        return (None, true);
    }
    let body = info[nl..].trim_start();
    (Some(text.len() - body.len()), true)
}

/// The end of the closing fence when only whitespace comes between `from` and it and after it
/// on its line.
fn fence_close(text: &str, from: usize) -> Option<usize> {
    let rest = text[from..].trim_start();
    let after = rest.strip_prefix("```")?;
    let at = text.len() - after.len();
    let blank = after
        .bytes()
        .take_while(|b| *b != b'\n')
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    // The block ends with the fence; the line break after it is text.
    match after.as_bytes().get(blank) {
        None | Some(b'\n') => Some(at),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn fenced_and_bare_arguments() {
        let t = "好的。\n\n<｜DSML｜toolcall>Read\n\n```json\n{\"file_path\":\"/tmp/说明.md\",\"limit\":20}\n```\n之后";
        let c = run(t, None, None, None);
        assert_eq!(
            named(&c),
            [("Read", json!({"file_path": "/tmp/说明.md", "limit": 20}))]
        );
        assert_eq!(c.content, "好的。\n之后");
        assert_eq!(c.format, Some("deepseek_v4"));
        let c = run("<‖DSML‖toolcall>ls\n{\"path\": \".\"}", None, None, None);
        assert_eq!(named(&c), [("ls", json!({"path": "."}))]);
    }

    #[test]
    fn cut_blocks_give_no_call() {
        for t in [
            "好的。<｜DSML｜toolcall>Read\n```json\n{\"file_path\": \"/tm",
            "好的。<｜DSML｜toolcall>Read\n",
        ] {
            let c = run(t, None, None, None);
            assert!(c.tool_calls.is_empty(), "{t}");
            assert_eq!(c.content, "好的。", "{t}");
        }
    }
}
