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

use super::xml_invoke::attr;

/// For an invoke tag whose head (after `<｜DSML｜invoke`) starts `rest`: when the tag is
/// self-closing (`… />`) with a name and a `string` attribute, its length from `rest` (through
/// `>`) and the canonical parameter it stands for.
pub fn as_parameter(rest: &str) -> Option<(usize, String)> {
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
    let value = attr(head, "string")?;
    if name.contains('"') {
        return None;
    }
    let h = super::dsml::HEAD;
    Some((
        gt + 1,
        format!("<{h}parameter name=\"{name}\" string=\"true\">{value}</{h}parameter>"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_closing_with_a_string_attribute_only() {
        let (n, p) = as_parameter(" name=\"cmd\" string=\"echo alpha\" />\n").unwrap_or_default();
        assert_eq!(n, " name=\"cmd\" string=\"echo alpha\" />".len());
        assert_eq!(
            p,
            "<｜DSML｜parameter name=\"cmd\" string=\"true\">echo alpha</｜DSML｜parameter>"
        );
        assert_eq!(as_parameter(" name=\"cmd\" string=\"x\">"), None);
        assert_eq!(as_parameter(" name=\"cmd\" />"), None);
        assert_eq!(as_parameter(" name=\"\" string=\"x\" />"), None);
        assert_eq!(as_parameter(" name=\"cmd\" string=\"x\" /"), None);
    }
}
