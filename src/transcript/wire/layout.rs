//! Where the model's blocks sit in a wire message.
//!
//! The model keeps a message's content as one block list; a wire message may spread it over
//! several places (OpenAI chat: the string or the parts of `content`, then `tool_calls`, then the
//! reasoning fields `reasoning_content` / `reasoning` as `thinking` blocks). The
//! reader records, per input message, how many blocks come from each place, so the writer can send
//! each block back to where it came from, and a change's path can be said in the body's terms.

/// Where one model block of an input message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The message's string `content`.
    Str,
    /// `content[j]`.
    Part(usize),
    /// `<call list>[k]`.
    Call(usize),
    /// A message field read as a block (`reasoning_content`).
    Field(&'static str),
}

/// The message fields that hold an assistant's reasoning (DeepSeek, vLLM, SGLang, Kimi:
/// `reasoning_content`; OpenRouter, Ollama: `reasoning`, both strings; OpenRouter:
/// `reasoning_details`, an array of `reasoning.text` / `reasoning.summary` /
/// `reasoning.encrypted` entries), read as `thinking` blocks after the calls, in this order.
pub const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_details"];

/// The one of [`REASONING_FIELDS`] that is an array of entries, not a string.
pub const REASONING_DETAILS: &str = REASONING_FIELDS[2];

/// The places of one input message's model blocks: `[string | parts…] [calls…] [fields…]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgLayout {
    /// Block 0 is the string content.
    pub str_block: bool,
    /// Blocks that are `content[j]`.
    pub parts: usize,
    /// Blocks that are calls, after the content's.
    pub calls: usize,
    /// Which of [`REASONING_FIELDS`] are blocks, after the calls (bit `f` for field `f`).
    pub fields: u8,
    /// Which of [`REASONING_FIELDS`] the message has with a value that is no reasoning (`null`,
    /// `[]`, a number …): no block, but the key is there for a target that rejects it.
    pub void_fields: u8,
}

impl MsgLayout {
    fn content_blocks(&self) -> usize {
        usize::from(self.str_block) + self.parts
    }

    /// The place of model block `idx`.
    pub fn place(&self, idx: usize) -> Place {
        let c = self.content_blocks();
        if idx >= c + self.calls {
            let mut present = REASONING_FIELDS
                .iter()
                .enumerate()
                .filter(|(f, _)| self.fields & (1 << f) != 0)
                .map(|(_, k)| *k);
            return match present.nth(idx - c - self.calls) {
                Some(k) => Place::Field(k),
                None => Place::Call(idx - c),
            };
        }
        if idx >= c {
            Place::Call(idx - c)
        } else if self.str_block {
            Place::Str
        } else {
            Place::Part(idx)
        }
    }
}

/// The layout of a body's messages.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// The body's message array key (`messages`).
    pub key: &'static str,
    /// The message's call list key (`tool_calls`).
    pub call_list: &'static str,
    pub msgs: Vec<MsgLayout>,
}

impl Layout {
    pub fn place(&self, msg: usize, idx: usize) -> Place {
        self.msgs
            .get(msg)
            .map_or(Place::Part(idx), |l| l.place(idx))
    }

    /// A change's model path (`messages[3].content[2]`) in the body's terms
    /// (`messages[3].tool_calls[0]`).
    pub fn wire_path(&self, path: &str) -> String {
        let key = self.key;
        match super::parse_model_path(path) {
            Some((i, Some(j))) => match self.place(i, j) {
                Place::Str => format!("{key}[{i}].content"),
                Place::Part(k) => format!("{key}[{i}].content[{k}]"),
                Place::Call(k) => format!("{key}[{i}].{}[{k}]", self.call_list),
                Place::Field(f) => format!("{key}[{i}].{f}"),
            },
            _ => format!("{key}{}", path.strip_prefix("messages").unwrap_or(path)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_paths_name_the_wire_place() {
        let layout = Layout {
            key: "messages",
            call_list: "tool_calls",
            msgs: vec![
                MsgLayout::default(),
                MsgLayout {
                    str_block: true,
                    parts: 0,
                    calls: 2,
                    fields: 0,
                    void_fields: 0,
                },
                MsgLayout {
                    str_block: false,
                    parts: 2,
                    calls: 1,
                    fields: 0b10,
                    void_fields: 0b1,
                },
            ],
        };
        assert_eq!(
            layout.wire_path("messages[1].content[0]"),
            "messages[1].content"
        );
        assert_eq!(
            layout.wire_path("messages[1].content[2]"),
            "messages[1].tool_calls[1]"
        );
        assert_eq!(
            layout.wire_path("messages[2].content[1]"),
            "messages[2].content[1]"
        );
        assert_eq!(
            layout.wire_path("messages[2].content[2]"),
            "messages[2].tool_calls[0]"
        );
        assert_eq!(
            layout.wire_path("messages[2].content[3]"),
            "messages[2].reasoning"
        );
        assert_eq!(layout.wire_path("messages[4]"), "messages[4]");
        assert_eq!(layout.wire_path("messages[new]"), "messages[new]");
    }
}
