//! A DSML parameter written as a self-closing invoke inside an open invoke, its value in the
//! `string` attribute (codex-relay pull 49, DeepSeek V4 through a relay):
//!
//! ```text
//! <｜｜DSML｜｜invoke name="exec_command">
//! <｜｜DSML｜｜invoke name="cmd" string="echo alpha" />
//! </｜｜DSML｜｜invoke>
//! ```
//!
//! Read as invokes it gave two calls, `exec_command {}` and `cmd {}` (a command run with no
//! arguments, and one that does not exist). A self-closing tag has no body, so it is no call; inside
//! an invoke it names one of that invoke's arguments. [`super::dsml::canonical`] rewrites it to
//! `<｜DSML｜parameter name="cmd" string="true">echo alpha</｜DSML｜parameter>` (the attribute's
//! text is kept as written, as `string="true"` keeps it).
//!
//! A self-closing invoke outside an invoke is a call with no arguments (DeepSeek-V4 writes one for
//! a tool that takes none, sglang pull 23915: `<｜DSML｜invoke name="submit"/>` in a section): it
//! is rewritten to an invoke with an empty body, so it reads as a whole call, not one the reply's
//! end cut. Its `string` attribute, if any, is then the type marker (`"true"`/`"false"`); any other
//! value is the parameter shape above with no invoke around it: no call (a tool named after a
//! parameter is not dispatched), rewritten to that parameter, which no call reads. Inside an
//! invoke, a self-closing invoke with no `string` attribute is a parameter with no value (`""`).

use super::xml_invoke::attr;

/// For an invoke tag whose head (after `<｜DSML｜invoke`) starts `rest`: when the tag is
/// self-closing (`… />`, on one line) with a name, its length from `rest` (through `>`) and
/// the canonical text it stands for, inside an open invoke (`inside`) or not (see the module
/// doc).
pub fn rewrite(rest: &str, inside: bool) -> Option<(usize, String)> {
    // Within a head window: a run of openers with no `>` is read once, not once per opener.
    let rest = super::scan::head_window(rest);
    let gt = memchr::memchr2(b'>', b'\n', rest.as_bytes())?;
    let head = rest[..gt].strip_suffix('/')?;
    if rest.as_bytes()[gt] != b'>' || head.contains('<') {
        return None;
    }
    let head = head.trim_end();
    let name = attr(head, "name")
        .map(str::trim)
        .filter(|n| !n.is_empty())?;
    if name.contains('"') {
        return None;
    }
    let value = attr(head, "string");
    let h = super::dsml::HEAD;
    let typed = matches!(value, None | Some("true" | "false"));
    let text = if inside || !typed {
        let value = value.unwrap_or("");
        format!("<{h}parameter name=\"{name}\" string=\"true\">{value}</{h}parameter>")
    } else {
        format!("<{h}invoke name=\"{name}\"></{h}invoke>")
    };
    Some((gt + 1, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_an_invoke_a_parameter_outside_a_call() {
        let (n, p) = rewrite(" name=\"cmd\" string=\"echo alpha\" />\n", true).unwrap_or_default();
        assert_eq!(n, " name=\"cmd\" string=\"echo alpha\" />".len());
        assert_eq!(
            p,
            "<｜DSML｜parameter name=\"cmd\" string=\"true\">echo alpha</｜DSML｜parameter>"
        );
        let param = |r: &str, inside| rewrite(r, inside).map(|(_, p)| p);
        assert_eq!(
            param(" name=\"cmd\" />", true).as_deref(),
            Some("<｜DSML｜parameter name=\"cmd\" string=\"true\"></｜DSML｜parameter>")
        );
        assert_eq!(
            param(" name=\"submit\"/>", false).as_deref(),
            Some("<｜DSML｜invoke name=\"submit\"></｜DSML｜invoke>")
        );
        assert_eq!(
            param(" name=\"submit\" string=\"true\" />", false).as_deref(),
            Some("<｜DSML｜invoke name=\"submit\"></｜DSML｜invoke>")
        );
        assert_eq!(
            param(" name=\"cmd\" string=\"ls\" />", false).as_deref(),
            Some("<｜DSML｜parameter name=\"cmd\" string=\"true\">ls</｜DSML｜parameter>")
        );
        assert_eq!(rewrite(" name=\"cmd\" string=\"x\">", true), None);
        assert_eq!(rewrite(" name=\"\" string=\"x\" />", true), None);
        assert_eq!(rewrite(" name=\"cmd\" string=\"x\" /", false), None);
    }
}
