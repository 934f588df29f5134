//! The skeleton js/tool_style.js sends: an Anthropic-format history reduced to what the rules
//! read. Strings the rules may inspect travel once in `texts` and are named by index everywhere
//! else, so the plan can point back at them (and at slices of them) instead of copying them.
//!
//! Layout (JSON): `{op, msgs, options}`, `msgs[i] = [role, content]`, where `content` is a
//! text index (string content), `null` (anything else) or an array of blocks:
//! `["t", ti]` text, `["u", id, name, input]` tool_use, `["r", id, rc, isError]` tool_result,
//! `["i", sourceType]` image, `["o", type]` any other block. A tool_result's `rc` is `null`, a
//! text index, or an array of parts `["t", ti]`, `["i", sourceType]`, `["o", type]`.
//! The texts travel beside the JSON, as an array of strings (Node-API copies each one; no JSON
//! escaping either way). `n` counts the texts the skeleton names; an operation that reads none
//! gets an empty array, and a text not sent reads as empty.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(usize),
    ToolUse {
        id: Option<String>,
        name: Option<String>,
        input: Option<Value>,
    },
    ToolResult {
        id: Option<String>,
        content: ResultContent,
        is_error: bool,
    },
    /// `url`: the source is a URL rather than base64 data.
    Image {
        url: bool,
    },
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResultContent {
    None,
    Str(usize),
    Parts(Vec<Part>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(usize),
    Image { url: bool },
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Str(usize),
    Blocks(Vec<Block>),
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub role: String,
    pub content: Content,
}

impl Msg {
    pub fn blocks(&self) -> &[Block] {
        match &self.content {
            Content::Blocks(b) => b,
            _ => &[],
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub texts: Vec<Option<String>>,
    pub msgs: Vec<Msg>,
}

fn opt_str(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

fn index(v: Option<&Value>, texts: usize, what: &str) -> Result<usize, String> {
    match v.and_then(Value::as_u64) {
        Some(i) if (i as usize) < texts => Ok(i as usize),
        _ => Err(format!("skeleton: bad text index in {what}")),
    }
}

fn image(v: &[Value]) -> bool {
    v.get(1).and_then(Value::as_str) == Some("url")
}

impl History {
    /// The text `i` (empty when it was not sent).
    pub fn text(&self, i: usize) -> &str {
        self.texts.get(i).and_then(|t| t.as_deref()).unwrap_or("")
    }

    /// The history of a skeleton text and its texts (see [`crate::tool_style::skeleton`]).
    pub fn from_skeleton(json: &str, texts: Vec<Option<String>>) -> Result<History, String> {
        super::skeleton::Skeleton::read(json, texts).map(|s| s.history)
    }
}

impl Msg {
    /// One message of the skeleton, `[role, content]`; a text index must be below `n` (how many
    /// texts the skeleton names).
    pub fn from_json(m: &Value, n: usize) -> Result<Msg, String> {
        let role = opt_str(m.get(0)).unwrap_or_default();
        let content = match m.get(1) {
            Some(Value::Number(_)) => Content::Str(index(m.get(1), n, "content")?),
            Some(Value::Array(blocks)) => {
                let mut out = Vec::with_capacity(blocks.len());
                for b in blocks {
                    out.push(Self::block(b, n)?);
                }
                Content::Blocks(out)
            }
            _ => Content::Other,
        };
        Ok(Msg { role, content })
    }

    fn block(b: &Value, n: usize) -> Result<Block, String> {
        let a = b.as_array().map(Vec::as_slice).unwrap_or(&[]);
        Ok(match a.first().and_then(Value::as_str) {
            Some("t") => Block::Text(index(a.get(1), n, "text block")?),
            Some("u") => Block::ToolUse {
                id: opt_str(a.get(1)),
                name: opt_str(a.get(2)),
                input: a.get(3).cloned(),
            },
            Some("r") => Block::ToolResult {
                id: opt_str(a.get(1)),
                content: match a.get(2) {
                    Some(Value::Number(_)) => ResultContent::Str(index(a.get(2), n, "result")?),
                    Some(Value::Array(parts)) => {
                        let mut out = Vec::with_capacity(parts.len());
                        for p in parts {
                            let p = p.as_array().map(Vec::as_slice).unwrap_or(&[]);
                            out.push(match p.first().and_then(Value::as_str) {
                                Some("t") => Part::Text(index(p.get(1), n, "result part")?),
                                Some("i") => Part::Image { url: image(p) },
                                _ => Part::Other,
                            });
                        }
                        ResultContent::Parts(out)
                    }
                    _ => ResultContent::None,
                },
                is_error: a.get(3).and_then(Value::as_bool) == Some(true),
            },
            Some("i") => Block::Image { url: image(a) },
            _ => Block::Other,
        })
    }
}

#[cfg(test)]
pub mod build {
    //! Builders for the rules' tests.
    use super::*;
    use serde_json::json;

    #[derive(Default)]
    pub struct B {
        pub h: History,
    }

    impl B {
        pub fn t(&mut self, s: &str) -> usize {
            self.h.texts.push(Some(s.to_string()));
            self.h.texts.len() - 1
        }
        pub fn text(&mut self, s: &str) -> Block {
            Block::Text(self.t(s))
        }
        pub fn msg(&mut self, role: &str, blocks: Vec<Block>) -> &mut Self {
            self.h.msgs.push(Msg {
                role: role.into(),
                content: Content::Blocks(blocks),
            });
            self
        }
        pub fn str_msg(&mut self, role: &str, s: &str) -> &mut Self {
            let i = self.t(s);
            self.h.msgs.push(Msg {
                role: role.into(),
                content: Content::Str(i),
            });
            self
        }
    }

    pub fn tool_use(id: &str, name: &str, input: Value) -> Block {
        Block::ToolUse {
            id: Some(id.into()),
            name: Some(name.into()),
            input: Some(input),
        }
    }

    #[test]
    fn reads_the_skeleton_layout() {
        let texts = vec![Some("hi".to_string()), Some("out".to_string())];
        let v = json!({"op": "detect", "n": 2, "msgs": [
            ["user", 0],
            ["assistant", [["u", "a", "read_file", {"path": "x"}], ["o", "thinking"]]],
            ["user", [["r", "a", [["t", 1], ["i", "base64"]], true]]]
        ]});
        let h = History::from_skeleton(&v.to_string(), texts).unwrap();
        assert_eq!(h.msgs[0].content, Content::Str(0));
        assert_eq!(
            h.msgs[1].blocks()[0],
            tool_use("a", "read_file", json!({"path": "x"}))
        );
        assert_eq!(
            h.msgs[2].blocks()[0],
            Block::ToolResult {
                id: Some("a".into()),
                content: ResultContent::Parts(vec![Part::Text(1), Part::Image { url: false }]),
                is_error: true
            }
        );
    }

    #[test]
    fn a_text_index_out_of_range_is_an_error_not_a_panic() {
        let v = json!({"msgs": [["user", [["t", 3]]]]});
        assert!(History::from_skeleton(&v.to_string(), vec![None]).is_err());
        // `n` bounds the indices when the texts were not sent (an operation that reads none).
        let v = json!({"n": 4, "msgs": [["user", [["t", 3]]]]});
        assert!(History::from_skeleton(&v.to_string(), vec![]).is_ok());
        let v = json!({"n": 3, "msgs": [["user", [["r", "a", [["t", 3]], false]]]]});
        assert!(History::from_skeleton(&v.to_string(), vec![]).is_err());
        assert!(History::from_skeleton("{\"msgs\": [", vec![]).is_err());
    }
}
