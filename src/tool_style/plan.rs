//! The answer's vocabulary: new content for a message, written as references to the caller's
//! blocks and to slices of the caller's strings, so js/tool_style.js rebuilds only what changed
//! and large texts (tool outputs, file contents) never cross the boundary twice.

use serde_json::Value;

/// A piece of a string being built.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Lit(String),
    /// The whole text `i`.
    Whole(usize),
    /// Text `i`, UTF-16 units `from..to` (JS `slice`).
    Slice(usize, usize, usize),
}

pub type Str = Vec<Piece>;

/// A tool_use input value: a string built from pieces, or a typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Str(Str),
    Json(Value),
}

/// One part of a rebuilt tool_result's array content.
#[derive(Debug, Clone, PartialEq)]
pub enum PartSpec {
    /// Block `b` of the same message, as it is.
    Block(usize),
    /// Part `s` of the content of tool_result block `b` of the same message.
    Sub(usize, usize),
    Text(Str),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResultSpec {
    Str(Str),
    Parts(Vec<PartSpec>),
}

/// One block of a message's new content.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Block `b` of the original message, the same object.
    Keep(usize),
    Text(Str),
    ToolUse {
        id: String,
        name: String,
        input: Vec<(String, Val)>,
    },
    /// `base`: a tool_result block whose other fields are kept (a merge).
    ToolResult {
        base: Option<usize>,
        id: String,
        content: ResultSpec,
        is_error: Option<bool>,
    },
}

/// Message `msg` gets `content`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub msg: usize,
    pub content: Vec<Spec>,
}

/// A JSON string literal.
pub fn write_str(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

fn write_usize(out: &mut String, n: usize) {
    out.push_str(&n.to_string());
}

/// `[piece, …]`: `"literal"`, `[i]`, `[i, from, to]`.
pub fn write_pieces(out: &mut String, s: &Str) {
    out.push('[');
    for (k, p) in s.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        match p {
            Piece::Lit(l) => write_str(out, l),
            Piece::Whole(i) => {
                out.push('[');
                write_usize(out, *i);
                out.push(']');
            }
            Piece::Slice(i, a, b) => {
                out.push_str(&format!("[{i},{a},{b}]"));
            }
        }
    }
    out.push(']');
}

fn write_part(out: &mut String, p: &PartSpec) {
    match p {
        PartSpec::Block(b) => write_usize(out, *b),
        PartSpec::Sub(b, s) => out.push_str(&format!("[{b},{s}]")),
        PartSpec::Text(s) => {
            out.push_str("{\"t\":");
            write_pieces(out, s);
            out.push('}');
        }
    }
}

impl Spec {
    /// The spec as JSON, written straight to `out`: a history's answer holds thousands of them,
    /// and building a `serde_json::Value` tree first cost more than the rules themselves.
    pub fn write(&self, out: &mut String) {
        match self {
            Spec::Keep(b) => write_usize(out, *b),
            Spec::Text(s) => {
                out.push_str("{\"t\":");
                write_pieces(out, s);
                out.push('}');
            }
            Spec::ToolUse { id, name, input } => {
                out.push_str("{\"u\":[");
                write_str(out, id);
                out.push(',');
                write_str(out, name);
                out.push_str(",[");
                for (k, (key, v)) in input.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    out.push('[');
                    write_str(out, key);
                    match v {
                        Val::Str(s) => {
                            out.push_str(",{\"s\":");
                            write_pieces(out, s);
                        }
                        Val::Json(j) => {
                            out.push_str(",{\"v\":");
                            out.push_str(&j.to_string());
                        }
                    }
                    out.push_str("}]");
                }
                out.push_str("]]}");
            }
            Spec::ToolResult {
                base,
                id,
                content,
                is_error,
            } => {
                out.push_str("{\"r\":[");
                write_str(out, id);
                out.push(',');
                match content {
                    ResultSpec::Str(s) => {
                        out.push_str("{\"s\":");
                        write_pieces(out, s);
                    }
                    ResultSpec::Parts(parts) => {
                        out.push_str("{\"p\":[");
                        for (k, p) in parts.iter().enumerate() {
                            if k > 0 {
                                out.push(',');
                            }
                            write_part(out, p);
                        }
                        out.push(']');
                    }
                }
                out.push_str(match is_error {
                    Some(true) => "},true],\"base\":",
                    Some(false) => "},false],\"base\":",
                    None => "},null],\"base\":",
                });
                match base {
                    Some(b) => write_usize(out, *b),
                    None => out.push_str("null"),
                }
                out.push('}');
            }
        }
    }
}

/// `[[msg, [spec, …]], …]`.
pub fn write_edits(out: &mut String, edits: &[Edit]) {
    out.push('[');
    for (k, e) in edits.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push('[');
        write_usize(out, e.msg);
        out.push_str(",[");
        for (j, spec) in e.content.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            spec.write(out);
        }
        out.push_str("]]");
    }
    out.push(']');
}

/// UTF-16 length of `s` (JS `length`).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// A piece for bytes `from..to` of text `ti` (whose content is `text`), in JS's units.
pub fn slice(ti: usize, text: &str, from: usize, to: usize) -> Piece {
    if from == 0 && to == text.len() {
        return Piece::Whole(ti);
    }
    if text.is_ascii() {
        return Piece::Slice(ti, from, to);
    }
    let a = utf16_len(text.get(..from).unwrap_or(""));
    let b = a + utf16_len(text.get(from..to).unwrap_or(""));
    Piece::Slice(ti, a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn slices_are_in_utf16_units_so_js_slice_finds_the_same_text() {
        let t = "é😀<x>";
        // bytes: é=2, 😀=4; "<x>" starts at byte 6, UTF-16 unit 3.
        assert_eq!(slice(0, t, 6, 9), Piece::Slice(0, 3, 6));
        assert_eq!(slice(0, t, 0, t.len()), Piece::Whole(0));
    }

    fn written(s: &Spec) -> Value {
        let mut out = String::new();
        s.write(&mut out);
        serde_json::from_str(&out).expect("valid JSON")
    }

    #[test]
    fn specs_encode_compactly() {
        let s = Spec::ToolUse {
            id: "x".into(),
            name: "n".into(),
            input: vec![
                ("a".into(), Val::Str(vec![Piece::Slice(1, 2, 3)])),
                ("b".into(), Val::Json(json!(4))),
            ],
        };
        assert_eq!(
            written(&s),
            json!({"u": ["x", "n", [["a", {"s": [[1, 2, 3]]}], ["b", {"v": 4}]]]})
        );
        let r = Spec::ToolResult {
            base: Some(2),
            id: "i\"d".into(),
            content: ResultSpec::Parts(vec![
                PartSpec::Block(0),
                PartSpec::Sub(2, 1),
                PartSpec::Text(vec![Piece::Lit("a\n".into()), Piece::Whole(3)]),
            ]),
            is_error: Some(true),
        };
        assert_eq!(
            written(&r),
            json!({"r": ["i\"d", {"p": [0, [2, 1], {"t": ["a\n", [3]]}]}, true], "base": 2})
        );
        let mut out = String::new();
        write_edits(
            &mut out,
            &[Edit {
                msg: 4,
                content: vec![Spec::Keep(1), Spec::Text(vec![])],
            }],
        );
        assert_eq!(out, r#"[[4,[1,{"t":[]}]]]"#);
    }
}
