//! Cohere Command-R7B / Command-A / Cohere2-MoE calls, read from their chat template
//! (CohereForAI/c4ai-command-r7b-12-2024 `chat_template`): the reply is
//! `<|START_THINKING|>…<|END_THINKING|>` (reasoning, split off by [`super::thinking`]), then
//! either `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {…}}, …]<|END_ACTION|>`
//! or `<|START_RESPONSE|>text<|END_RESPONSE|>`. The action list is read by
//! [`super::json_calls`] (its `tool_name` key is read as the name); the response tokens are removed
//! and the text between them kept. The tokens are special, so `auto` detects them. Checked against
//! llama.cpp's Command-R7B parser, which documents the same reply
//! (`<|START_THINKING|>…<|END_THINKING|><|START_ACTION|>[{"tool_call_id":"1","tool_name":"func","parameters":{}}]<|END_ACTION|>`);
//! a single action object instead of the list is read too.

use super::json_calls::{parse_tagged, Body, Close, Tagged};
use super::{Ctx, Parsed};

const NAME: &str = "command_r";
/// The markup-only tokens around the visible answer.
pub const RESPONSE_TAGS: &[&str] = &["<|START_RESPONSE|>", "<|END_RESPONSE|>"];
const SPEC: Tagged = Tagged {
    name: NAME,
    opens: &["<|START_ACTION|>"],
    body: Body::Either,
    close: Close::Required("<|END_ACTION|>"),
    glued: false,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_tagged(text, &SPEC, cx.tools);
    out.strip_markup(text, RESPONSE_TAGS);
    out
}
