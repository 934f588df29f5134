//! The answer's vocabulary: new content for a message, written as references to the caller's
//! blocks and to slices of the caller's strings, so js/tool_style.js rebuilds only what changed
//! and large texts (tool outputs, file contents) never cross the boundary twice.

use serde_json::{json, Value};

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

pub fn str_json(s: &Str) -> Value {
    Value::Array(
        s.iter()
            .map(|p| match p {
                Piece::Lit(l) => json!(l),
                Piece::Whole(i) => json!([i]),
                Piece::Slice(i, a, b) => json!([i, a, b]),
            })
            .collect(),
    )
}

fn part_json(p: &PartSpec) -> Value {
    match p {
        PartSpec::Block(b) => json!(b),
        PartSpec::Sub(b, s) => json!([b, s]),
        PartSpec::Text(s) => json!({ "t": str_json(s) }),
    }
}

impl Spec {
    pub fn to_json(&self) -> Value {
        match self {
            Spec::Keep(b) => json!(b),
            Spec::Text(s) => json!({ "t": str_json(s) }),
            Spec::ToolUse { id, name, input } => {
                let input: Vec<Value> = input
                    .iter()
                    .map(|(k, v)| match v {
                        Val::Str(s) => json!([k, { "s": str_json(s) }]),
                        Val::Json(j) => json!([k, { "v": j }]),
                    })
                    .collect();
                json!({ "u": [id, name, input] })
            }
            Spec::ToolResult {
                base,
                id,
                content,
                is_error,
            } => {
                let c = match content {
                    ResultSpec::Str(s) => json!({ "s": str_json(s) }),
                    ResultSpec::Parts(p) => {
                        json!({ "p": p.iter().map(part_json).collect::<Vec<_>>() })
                    }
                };
                json!({ "r": [id, c, is_error], "base": base })
            }
        }
    }
}

pub fn edits_json(edits: &[Edit]) -> Value {
    Value::Array(
        edits
            .iter()
            .map(|e| {
                json!([
                    e.msg,
                    e.content.iter().map(Spec::to_json).collect::<Vec<_>>()
                ])
            })
            .collect(),
    )
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

    #[test]
    fn slices_are_in_utf16_units_so_js_slice_finds_the_same_text() {
        let t = "é😀<x>";
        // bytes: é=2, 😀=4; "<x>" starts at byte 6, UTF-16 unit 3.
        assert_eq!(slice(0, t, 6, 9), Piece::Slice(0, 3, 6));
        assert_eq!(slice(0, t, 0, t.len()), Piece::Whole(0));
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
            s.to_json(),
            json!({"u": ["x", "n", [["a", {"s": [[1, 2, 3]]}], ["b", {"v": 4}]]]})
        );
    }
}
