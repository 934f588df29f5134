//! DeepSeek V3.1 / V3.1-Terminus / V3.2-Exp call shape (reference §7, `deepseek_v31`):
//! `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>`, with no type and no fence.
//! The outer tokens (shared with V3) are scanned by [`super::deepseek_v3`]; this file reads one
//! call's body, the text between `<｜tool▁call▁begin｜>` and `<｜tool▁call▁end｜>`.

use super::deepseek_v3::SEP;
use super::scan::{is_name, split_once};

/// `(name, raw arguments)` of a V3.1 call body, or `None` when it is not that shape.
pub fn read_body(body: &str) -> Option<(&str, &str)> {
    split_once(body, SEP).and_then(parts)
}

/// [`read_body`] of a body split at its first separator.
pub fn parts<'a>((name, args): (&'a str, &'a str)) -> Option<(&'a str, &'a str)> {
    let name = name.trim();
    is_name(name).then_some((name, args.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_name_and_arguments() {
        assert_eq!(
            read_body("get_weather<｜tool▁sep｜>{\"location\": \"Tokyo\"}"),
            Some(("get_weather", "{\"location\": \"Tokyo\"}"))
        );
        assert_eq!(read_body("no separator"), None);
        assert_eq!(read_body("<｜tool▁sep｜>{}"), None);
    }
}
