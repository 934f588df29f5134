//! Which call blocks cannot end at an inner closer. A block is finished at the first of its
//! family's closers after which the family's parser reads every block as ending there; for the
//! families whose calls sit inside a section (MiniMax-M2, DeepSeek, Kimi-K2, Qwen3-Coder), a
//! call's own closer (`</invoke>`, `<｜tool▁call▁end｜>`, `<|tool_call_end|>`, `</function>`)
//! is such a closer too, for the forms whose section wrapper a server stripped. Asking the parser
//! there about a block that opened with the section wrapper read every such block twice, since
//! each of those parsers reads a section with no closing token as running to the end of the text
//! (a truncated reply): such a block is never finished before its section's closer. This answers
//! that from the block's first and last tokens instead of a parse. (Debug builds check each
//! answer against the parser.)

use super::super::{deepseek_v3, kimi_k2, minimax_m2, scan, tokens, Family};

/// A family's section wrapper: its openers and its closers (none for a family without one).
fn section(f: Family) -> (&'static [&'static str], &'static [&'static str]) {
    match f {
        Family::MinimaxM2 => (&[minimax_m2::SECTION.0], &[minimax_m2::SECTION.1]),
        Family::DeepSeek => (&[deepseek_v3::CALLS_BEGIN], &[deepseek_v3::CALLS_END]),
        Family::KimiK2 => (&kimi_k2::SECTION_OPENERS, &kimi_k2::SECTION_CLOSERS),
        Family::Qwen3Coder => (&[scan::TOOL_CALL], &[scan::TOOL_CALL_END]),
        _ => (&[], &[]),
    }
}

/// Whether `block` ends with one of its family's section closers.
pub(super) fn ends_section(f: Family, block: &str) -> bool {
    section(f).1.iter().any(|c| block.ends_with(c))
}

/// Whether `block` (a call block of family `f`, from its opener up to a closer) opens with its
/// family's section wrapper and holds none of that section's closers: the family's parser then
/// reads the block as running on past its end, whatever follows. `closed`: the block was asked
/// about at one of those closers before, or now ([`ends_section`]). The machine asks at every
/// closer of a block in order, so that is whether the block holds one: no search of the block
/// (debug builds search it to check).
pub(super) fn unclosed(f: Family, block: &str, closed: bool) -> bool {
    let (opens, closes) = section(f);
    let Some(body) = opens.iter().find_map(|o| block.strip_prefix(o)) else {
        return false;
    };
    // Qwen3-Coder's parser takes `<tool_call>` as its section only before `<function=`.
    if f == Family::Qwen3Coder && !body.trim_start().starts_with("<function=") {
        return false;
    }
    debug_assert_eq!(
        closed,
        match closes {
            [c] => scan::find_from(body, c, 0).is_some(),
            _ => tokens::holds_any(body, closes),
        },
        "a section closer the machine did not ask about, or one it remembers wrongly"
    );
    !closed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the machine asks at a block's last closer, the block's earlier closers aside.
    fn unclosed(f: Family, block: &str) -> bool {
        super::unclosed(f, block, ends_section(f, block))
    }

    #[test]
    fn only_an_open_section_of_a_sectioned_family() {
        let mm = "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>";
        assert!(unclosed(Family::MinimaxM2, mm));
        assert!(!unclosed(
            Family::MinimaxM2,
            &format!("{mm}\n</minimax:tool_call>")
        ));
        // A bare invoke (its wrapper stripped) ends at `</invoke>`.
        assert!(!unclosed(
            Family::MinimaxM2,
            &mm["<minimax:tool_call>\n".len()..]
        ));
        let ds = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>";
        assert!(unclosed(Family::DeepSeek, ds));
        assert!(!unclosed(
            Family::DeepSeek,
            &ds["<｜tool▁calls▁begin｜>".len()..]
        ));
        let kimi = "<|reserved_token_163595|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>";
        assert!(unclosed(Family::KimiK2, kimi));
        assert!(!unclosed(
            Family::KimiK2,
            &format!("{kimi}<|tool_call_section_end|>")
        ));
        let qwen = "<tool_call>\n<function=f>\n<parameter=a>\n北京\n</parameter>\n</function>";
        assert!(unclosed(Family::Qwen3Coder, qwen));
        assert!(!unclosed(
            Family::Qwen3Coder,
            "<tool_call>\n{\"a\": 1}</function>"
        ));
        assert!(!unclosed(
            Family::Hermes,
            "<tool_call>\n<function=f></function>"
        ));
    }
}
