//! A reply that runs on into a turn the model invented. A model that ran past its stop token
//! writes the user's next message and its own answer to it: ChatGLM3 printed its answer, then
//! `<|user|>` on its own line, a made-up user message, `<|assistant|>` and a second answer
//! (zai-org/ChatGLM3#279); GLM-4.6 under MLX wrote `<|user|>` and the user's input after its
//! answer (lmstudio-ai/lmstudio-bug-tracker#1992). A person reading the chat wants the reply
//! that was asked for: it ends where a token opening a new user or observation turn (GLM's
//! `<|user|>` and `<|observation|>`, ChatML's `<|im_start|>user`, Llama 3's
//! `<|start_header_id|>user<|end_header_id|>`, Gemma's, Granite's, Harmony's and Llama 4's user
//! headers: [`OPENERS`]; Granite's and Harmony's also with text after them right after removed
//! markup, [`INLINE`]) stands on its own line (up to three spaces before
//! it, or right after markup just removed such as `<|im_end|>`; spaces then a line break or the
//! end of the reply after it). An end token glued to the text with such a header after it
//! (`Paris.<|eot_id|><|start_header_id|>user<|end_header_id|>`) goes with it. What follows, the
//! token included, is removed from `content` and reported with its raw text (kind [`KIND`]);
//! nothing is lost.
//!
//! In a gpt-oss reply read by the stream, Harmony's user header after the model's message
//! (`<|channel|>final<|message|>已保存。<|end|><|start|>user<|message|>谢谢`) is this rule's too, not
//! one more message of the reply ([`harmony_user`]).
//!
//! The token named in a sentence (`GLM 用 <|user|> 开始用户轮`), in inline code or a fenced
//! example is text ([`super::orphan`]'s lone-token rule reads it first). The stream holds
//! nothing back for it: the token is decided on its line like any lone token, and from there on
//! every delta goes to the invented turn.
//!
//! The families read from plain text (`llama3_json`, `pythonic`, …, read whole at the reply's end)
//! run no lone-token rule, so the same rule is read on the whole text there ([`find`]): a header
//! that ends its line, outside code and reasoning, standing at its line's start or after a run of
//! end tokens ([`skip_end_tokens`], the stream's reading too) glued to the text or starting a line.

/// ChatML's header of a user turn (Qwen, Yi, and every model trained on ChatML).
pub const CHATML_USER: &str = "<|im_start|>user";
/// Llama 3's header of a user turn.
pub const LLAMA3_USER: &str = "<|start_header_id|>user<|end_header_id|>";

/// Granite 3's header of a user turn (its message follows on the same line).
pub const GRANITE_USER: &str = "<|start_of_role|>user<|end_of_role|>";
/// Gemma's header of a user turn.
pub const GEMMA_USER: &str = "<start_of_turn>user";
/// Harmony's (gpt-oss) header of a user message (its message follows on the same line).
pub const HARMONY_USER: &str = "<|start|>user<|message|>";
/// Llama 4's header of a user turn.
pub const LLAMA4_USER: &str = "<|header_start|>user<|header_end|>";

/// The tokens that open a user (or tool-result) turn: GLM's role tokens, the user headers of
/// ChatML, Llama 3, Granite, Gemma, Harmony and Llama 4 (lone tokens of
/// [`super::orphan::CLOSERS`]).
pub const OPENERS: &[&str] = &[
    "<|user|>",
    "<|observation|>",
    CHATML_USER,
    LLAMA3_USER,
    GRANITE_USER,
    GEMMA_USER,
    HARMONY_USER,
    LLAMA4_USER,
];

/// The headers whose template writes the message on the header's own line (Granite's
/// `<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>`, Harmony's
/// `<|start|>user<|message|>Hi<|end|>`): after a run of end tokens glued to the text
/// (`Done.<|end|><|start|>user<|message|>Thanks`) they open a turn with text after them on their
/// line; at a line's start without such a run they must end their line as the others do (a
/// sentence may start a line with the header it names).
pub const INLINE: &[&str] = &[GRANITE_USER, HARMONY_USER];

/// Whether `s` starts with one of [`INLINE`].
pub fn opens_inline(s: &str) -> bool {
    INLINE.iter().any(|o| s.starts_with(o))
}

/// Whether the Harmony header at the start of `s` (a `<|start|>`) is [`HARMONY_USER`]: in a
/// gpt-oss reply the stream then reads it as the start of an invented turn, not as one more
/// message of the reply (`None`: not known yet). Cut by the finished reply's end, it is read as
/// any cut header is.
pub fn harmony_user(s: &str, finished: bool) -> Option<bool> {
    if s.starts_with(HARMONY_USER) {
        Some(true)
    } else if !finished && HARMONY_USER.starts_with(s) {
        None
    } else {
        Some(false)
    }
}

/// The problem kind reported.
pub const KIND: &str = "invented-turn";

/// Whether `s` starts with one of [`OPENERS`].
pub fn opens(s: &str) -> bool {
    OPENERS.iter().any(|o| s.starts_with(o))
}

/// The problem message for the removed turn's raw text.
pub fn problem(raw: &str) -> String {
    format!(
        "{KIND}: the reply runs on into a turn the model wrote itself; removed from content, \
         raw text: {raw}"
    )
}

/// How many end tokens in a row are read as one run before a header (`<|im_end|><|eot_id|>`).
const RUN: usize = 4;

/// A lone end token of [`super::orphan::CLOSERS`] (not one of [`OPENERS`]) at the start of `s`:
/// its length.
fn end_token(s: &str) -> Option<usize> {
    match super::orphan::closer_at(s) {
        Some((i, false)) if !opens(s) => Some(super::orphan::CLOSERS[i].0.len()),
        _ => None,
    }
}

/// `s` after its leading whitespace and a run of at most [`RUN`] end tokens, each followed by
/// whitespace: where a header that the run's first token comes before would start.
pub fn skip_end_tokens(s: &str) -> &str {
    let mut rest = s.trim_start();
    for _ in 0..RUN {
        match end_token(rest) {
            Some(n) => rest = rest[n..].trim_start(),
            None => break,
        }
    }
    rest
}

/// Whether `at` in `text` starts its line: up to three spaces before it, then a line break or the
/// start of the text.
fn line_start(text: &str, at: usize) -> bool {
    let before = &text.as_bytes()[..at];
    let spaces = before.iter().rev().take_while(|&&b| b == b' ').count();
    let k = at - spaces;
    spaces <= 3 && (k == 0 || before[k - 1] == b'\n')
}

/// The start of the run of end tokens (whitespace between them and after them) that ends at `at`
/// in `text`, when it has one to [`RUN`] + 1 tokens (`None`: no token right before).
fn run_before(text: &str, at: usize) -> Option<usize> {
    let mut k = text[..at].trim_end().len();
    let mut start = None;
    for _ in 0..=RUN {
        let head = &text[..k];
        let Some(n) = super::orphan::CLOSERS
            .iter()
            .map(|(c, _)| *c)
            .filter(|c| head.ends_with(c))
            .find_map(|c| end_token(&head[head.len() - c.len()..]))
        else {
            break;
        };
        start = Some(k - n);
        k = text[..k - n].trim_end().len();
    }
    start
}

/// Where a whole reply read at once runs on into an invented turn ([`find`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// Where the text shown ends (the run of end tokens before the header goes too).
    pub end: usize,
    /// Where the header starts: the turn's raw text from there on.
    pub at: usize,
    /// The header is cut by the reply's end (`⏎<|start_header_id|>us`): removed and reported as
    /// a marker cut short, as the stream reports it.
    pub cut: bool,
}

/// The invented turn of a whole reply read at once (the plain-text families): the first header
/// that [`OPENERS`] names and that ends its line (or that the reply's end cuts after four
/// characters or more), is not inside `quoted` (code and reasoning, as a position test), and
/// follows a run of end tokens whose first is glued to the text (not after a colon: named) or
/// starts its line, or starts its line itself. The run's tokens are removed with the turn; the
/// header starts its raw text. Each `<` is looked at once, each run at most [`RUN`] + 1 tokens
/// back: linear.
pub fn find(text: &str, quoted: impl Fn(usize) -> bool) -> Option<Turn> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'<', &bytes[from..]) {
        let at = from + i;
        from = at + 1;
        let rest = &text[at..];
        let cut = rest.len() >= 4
            && OPENERS
                .iter()
                .any(|o| o.len() > rest.len() && o.starts_with(rest));
        let ends_line = match OPENERS.iter().find(|o| rest.starts_with(**o)) {
            Some(o) => {
                let after = rest[o.len()..].trim_start_matches([' ', '\t']);
                after.is_empty() || after.starts_with(['\n', '\r'])
            }
            None => cut,
        };
        let inline = opens_inline(rest);
        if !(ends_line || inline) || quoted(at) {
            continue;
        }
        // The run of end tokens before it goes with it (`…度。<|im_end|>`⏎`<|im_start|>user`).
        if let Some(r) = run_before(text, at) {
            let glued = text[..r]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_whitespace() && !matches!(c, ':' | '：'));
            if !quoted(r) && (glued || line_start(text, r)) {
                return Some(Turn { end: r, at, cut });
            }
        }
        if ends_line && line_start(text, at) {
            return Some(Turn { end: at, at, cut });
        }
    }
    None
}
