//! Where a model message comes from, for protocols whose tool results are parts of a user turn
//! (Anthropic's `tool_result` blocks, Gemini's `functionResponse` parts).
//!
//! The rules pair calls and results as messages, so such a reader splits a user turn into one
//! `toolResult` message per result and a `user` message of the rest, and may join several wire
//! messages into one model message (Gemini's run of model contents). Each model message keeps a
//! [`Src`] saying which wire message and items it stands for: the writer sends blocks back to
//! their items, and a change's model path is said in the body's terms.

/// Which items of wire message [`Src::wire`] a model message stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum From {
    /// The whole message: block `b` is item `b`.
    Whole,
    /// The result item `j`.
    Result(usize),
    /// The message's other items: block `b` is item `rest[b]`.
    Rest(Vec<usize>),
    /// A run of wire messages, one turn: block `b` is item `run[b].1` of wire message `run[b].0`.
    Run(Vec<(usize, usize)>),
}

/// A model message's wire message and items.
#[derive(Clone, Debug, PartialEq)]
pub struct Src {
    pub wire: usize,
    pub from: From,
}

impl Src {
    /// The wire `(message, item)` of model block `b`.
    pub fn item(&self, b: usize) -> (usize, usize) {
        match &self.from {
            From::Result(j) => (self.wire, *j),
            From::Rest(rest) => (self.wire, rest.get(b).copied().unwrap_or(b)),
            From::Run(run) => run.get(b).copied().unwrap_or((self.wire, b)),
            From::Whole => (self.wire, b),
        }
    }
}

/// A change's model path (`messages[k]`, `messages[k].content[b]`) in the body's terms:
/// `{list}[i]` / `{list}[i].{items}[j]`.
pub fn wire_path(path: &str, srcs: &[Src], list: &str, items: &str) -> String {
    let Some((k, b)) = super::parse_model_path(path) else {
        return path.to_string();
    };
    let Some(src) = srcs.get(k) else {
        return path.to_string();
    };
    match (&src.from, b) {
        (From::Result(_), _) | (_, Some(_)) => {
            let (i, j) = src.item(b.unwrap_or(0));
            format!("{list}[{i}].{items}[{j}]")
        }
        (_, None) => format!("{list}[{}]", src.wire),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_wire_item() {
        let srcs = [
            Src {
                wire: 0,
                from: From::Whole,
            },
            Src {
                wire: 1,
                from: From::Result(2),
            },
            Src {
                wire: 1,
                from: From::Rest(vec![0, 1, 3]),
            },
            Src {
                wire: 2,
                from: From::Run(vec![(2, 0), (3, 0), (3, 1)]),
            },
        ];
        let p = |path: &str| wire_path(path, &srcs, "contents", "parts");
        assert_eq!(p("messages[0].content[4]"), "contents[0].parts[4]");
        assert_eq!(p("messages[1]"), "contents[1].parts[2]");
        assert_eq!(p("messages[2].content[2]"), "contents[1].parts[3]");
        assert_eq!(p("messages[2]"), "contents[1]");
        assert_eq!(p("messages[3].content[2]"), "contents[3].parts[1]");
        assert_eq!(p("messages[9]"), "messages[9]");
    }
}
