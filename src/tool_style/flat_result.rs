//! Recognising a tool result that `resumeTaskFromHistory` flattened to text:
//! `[NAME Result]\n\n` + the result's text, `NAME` being the call's tool name or `Unknown Tool`.
//!
//! Kilo's json-era results (v4.111.1 to v4.118) began with their own `[<desc>] Result:` text, so
//! their flattened form repeats the header: `[read_file Result]\n\n[read_file for 'a'] Result:\n\n…`.
//! [`desc_split`] finds that inner header so the result can be rebuilt as the two text parts it
//! was, instead of one string carrying a header the model never saw in that form.

use std::sync::LazyLock;

use regex::Regex;

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A\[(Unknown Tool|[A-Za-z0-9_.:-]+) Result\]\n\n").expect("static regex")
});

/// The tool name and where the result's text starts (bytes).
pub fn parse(text: &str) -> Option<(&str, usize)> {
    // Prefilter before the regex.
    if !text.starts_with('[') || !text.contains(" Result]\n\n") {
        return None;
    }
    let c = HEADER.captures(text)?;
    Some((c.get(1)?.as_str(), c.get(0)?.end()))
}

/// In a result's text (from byte `from`), the end of a leading `[<desc>] Result:` header and the
/// start of what follows its `\n\n` separator.
pub fn desc_split(text: &str, from: usize) -> Option<(usize, usize)> {
    let rest = text.get(from..)?;
    if !rest.starts_with('[') {
        return None;
    }
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let head = rest.get(..line_end)?;
    if !head.ends_with("] Result:") {
        return None;
    }
    let end = from + line_end;
    if text.len() == end {
        return Some((end, end));
    }
    text.get(end..)?
        .starts_with("\n\n")
        .then_some((end, end + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_named_and_unknown_results() {
        assert_eq!(parse("[read_file Result]\n\nbody"), Some(("read_file", 20)));
        assert_eq!(
            parse("[Unknown Tool Result]\n\n"),
            Some(("Unknown Tool", 23))
        );
        assert_eq!(
            parse("[mcp_srv_tool Result]\n\nx"),
            Some(("mcp_srv_tool", 23))
        );
    }

    #[test]
    fn the_xml_protocol_header_is_not_a_flattened_result() {
        assert_eq!(parse("[read_file for 'a'] Result:"), None);
        assert_eq!(parse("[read_file Result]\nonly one newline"), None);
        assert_eq!(parse("see [x Result]\n\n"), None);
    }

    #[test]
    fn finds_the_kilo_json_era_inner_header() {
        let t = "[read_file Result]\n\n[read_file for 'a'. Reading] Result:\n\n<files/>";
        let (_, from) = parse(t).unwrap();
        let (end, rest) = desc_split(t, from).unwrap();
        assert_eq!(&t[from..end], "[read_file for 'a'. Reading] Result:");
        assert_eq!(&t[rest..], "<files/>");
        assert_eq!(desc_split("[x] Result:", 0), Some((11, 11)));
        assert_eq!(desc_split("plain output", 0), None);
    }
}
