//! FunctionGemma calls: `<start_function_call>call:NAME{key:<escape>value<escape>}<end_function_call>`,
//! the format of Google's FunctionGemma (Gemma 3 270M tuned for function calling; its model card's
//! "Formatting and best practices": six control tokens, `<escape>` the quote of every string).
//!
//! Why its own reader: the tokens reach `content` when a server has no parser for them, and Gemma
//! 4 writes them too when a prompt asks for this syntax (flutter_gemma issue #238:
//! `<start_function_call>get_financial_overview{}</end_function_call>`, a call with neither the
//! `call:` word nor the right closing token). The body is Gemma 4's object notation with
//! `<escape>` in place of `<|"|>`, read by [`super::gemma4`]'s reader (one definition of the body);
//! the `call:` word may be missing, and `</end_function_call>` closes a block as
//! `<end_function_call>` does. A block whose call does not read stays out of `content` and is
//! reported; one cut off by the end of the reply still gives its call when the arguments read.
//! A `call:NAME{…}` written again after a block's closing token, without the opener, is read by
//! [`super::functiongemma_chain`].

use super::gemma4::{parse_blocks, Syntax};
use super::{Ctx, Parsed};

const NAME: &str = "functiongemma";
/// The token that opens a call.
pub const OPEN: &str = "<start_function_call>";
/// The tokens that close one: the model's own, and the tag-like spelling Gemma 4 writes.
pub const CLOSES: &[&str] = &["<end_function_call>", "</end_function_call>"];
/// FunctionGemma's string quote token.
pub const QUOTE: &str = "<escape>";

const SYNTAX: Syntax = Syntax {
    name: NAME,
    open: OPEN,
    closes: CLOSES,
    quote: QUOTE,
    call_word_optional: true,
};

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = parse_blocks(text, &SYNTAX);
    super::functiongemma_chain::add_chained(text, &SYNTAX, cx, &mut out);
    out.strip_markup(text, CLOSES);
    out.set_format_if_calls(NAME);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_quoted_strings_and_the_call_word_optional() {
        let t = "好的。<start_function_call>call:get_weather{city:<escape>北京, 朝阳{区}<escape>,days:3}<end_function_call>";
        let p = parse(t, &Ctx::default());
        assert_eq!(
            p.call_pairs(),
            [(
                "get_weather".to_owned(),
                r#"{"city":"北京, 朝阳{区}","days":3}"#.to_owned()
            )]
        );
        assert_eq!(&t[..p.blocks[0].start], "好的。");
        let t = "<start_function_call>get_financial_overview{}</end_function_call>";
        let p = parse(t, &Ctx::default());
        assert_eq!(p.call_pairs()[0].0, "get_financial_overview");
        assert_eq!(p.blocks[0].end, t.len());
    }
}
