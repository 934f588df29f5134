//! CDATA sections in an XML parameter's value (`<![CDATA[find "/home" -type d]]>`): the one
//! reading every XML-parameter reader that meets them shares. MiniCPM5's template writes them
//! (see [`super::minicpm5`]); DeepSeek V4 through ds2api wrote them in DSML parameters (ds2api
//! issue 389), where the shell got the wrapper with the command.

use std::borrow::Cow;

/// A CDATA section's opener.
pub const OPEN: &str = "<![CDATA[";
/// A CDATA section's closer.
pub const CLOSE: &str = "]]>";

/// `raw` with the inside of each CDATA section taken as written and the text outside them
/// read by `outside` (entities decoded, or kept). An unclosed section runs to the end.
pub fn read<'a>(raw: &'a str, outside: impl Fn(&str) -> Cow<'_, str>) -> Cow<'a, str> {
    if memchr::memmem::find(raw.as_bytes(), OPEN.as_bytes()).is_none() {
        return match outside(raw) {
            Cow::Borrowed(_) => Cow::Borrowed(raw),
            Cow::Owned(s) => Cow::Owned(s),
        };
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&outside(&rest[..i]));
        let inner = &rest[i + OPEN.len()..];
        let end = inner.find(CLOSE).unwrap_or(inner.len());
        out.push_str(&inner[..end]);
        rest = &inner[(end + CLOSE.len()).min(inner.len())..];
    }
    out.push_str(&outside(rest));
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_unwrapped_outside_kept() {
        assert_eq!(
            read(
                "<![CDATA[find \"/home\" -type d]]>",
                super::super::minimax_m2::decode_entities
            ),
            "find \"/home\" -type d"
        );
        assert_eq!(
            read(
                "a <![CDATA[<b>]]> c",
                super::super::minimax_m2::decode_entities
            ),
            "a <b> c"
        );
        assert_eq!(
            read("<![CDATA[cut", super::super::minimax_m2::decode_entities),
            "cut"
        );
        assert!(matches!(
            read("plain", super::super::xml_invoke::as_written),
            Cow::Borrowed("plain")
        ));
    }
}
