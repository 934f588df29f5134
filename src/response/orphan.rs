//! Orphan closing tags: the closing tag of a call wrapper whose opening tag never came.
//!
//! Why: servers strip the opening token of a call block far more often than the closing one
//! (Ollama's qwen3-coder template leaves `<function=…>…</function>\n</tool_call>`, MiniMax through
//! OpenCode leaves `<invoke …>…</invoke>\n</minimax:tool_call>`, Qwen2.5 writes its JSON then
//! `</tool_call>`). The call before the tag is read by its own rule (the unwrapped Qwen function,
//! the unwrapped invoke, a JSON call naming an offered tool); what is left is the tag, which a
//! person reading the chat should not see.
//!
//! DeepSeek's end tokens are the same kind of leftover: `<｜end▁of▁sentence｜>` after a DSML block,
//! and DeepSeek-Coder's end of turn `<|EOT|>` (its instruct models' `eos_token`, id 32021; the
//! R1-Distill tokenizers carry it too), which a tt-inference-server stream sent right before an
//! empty call section (tenstorrent/tt-inference-server#2157). Such a lone token is also removed
//! right before one of [`BEGINS`] (spaces between at most), wherever it stands.
//!
//! Gemma's end tokens are the same: `<eos>` (oMLX under `structured_outputs` returned
//! `apple<eos>`, jundot/omlx#1087) and `<end_of_turn>` (gemma.cpp printed `Hey! What's up?
//! 😊<end_of_turn>`, google/gemma.cpp#276). A lone token (one with no opening tag) is also removed
//! when it is written right after the text (no space between) and only whitespace follows it to
//! the end of the reply: that is where a server that forgot to stop on it leaves it. Inside a
//! sentence (`序列以 <eos> 结束。`) or after a space at the end (`最后一个 token 是 <eos>`) it
//! stays text.
//!
//! Other models' end and role tokens are the same leftovers, glued to a reply's last word by a
//! server that did not stop on them: ChatML's `<|im_end|>` (moltis-org/moltis#306: `Hello! How
//! can I help you today?<|im_end|>`; LostRuins/koboldcpp#543 for Yi), Llama 3's `<|eot_id|>`
//! after a JSON call (deepseek-ai/DeepSeek-V3#826), Phi-3's `<|end|>`, Kimi-VL's
//! `<|im_assistant|>` at an answer's end (Blaizzy/mlx-vlm#1932), `<|endoftext|>` (Phi-3 writes
//! `<|end|><|endoftext|>`: the second follows removed markup), GLM's `<|user|>` and `<|observation|>`,
//! Cohere's `<|END_RESPONSE|>`, Llama 4's `<|eot|>`, `<|end_of_text|>` (Llama 3, Granite) and
//! Harmony's `<|return|>`, and the user-turn headers of [`super::invented_turn`]. Right after a colon
//! (`返回结果中有：<|im_end|>`, an issue title) the token is named, not leaked, and stays; a lone
//! token written right after one that stays is text too, the run being one
//! (`结尾：<|end|><|endoftext|>`: the second went as glued to the text while the first stayed).
//! GLM-4.5V/4.6V box their answer in `<|begin_of_box|>…<|end_of_box|>` (Blaizzy/mlx-vlm#2170):
//! the opener is also removed where it opens the reply (nothing visible before it), and the
//! closer is text when its opener was kept as text (`答案是 <|begin_of_box|>42<|end_of_box|>`
//! stays whole).
//!
//! The rule (the stream machine applies it, [`super::stream`]): one of [`CLOSERS`] outside a call
//! block is removed when only whitespace separates it from markup removed just before it, or when
//! it stands alone on its line (up to three spaces before it, spaces then a line break or the end
//! of the reply after it) and its opening tag was not written as text before it (then it closes
//! that text: `<function_calls>` … `</function_calls>` in an OLMo reply read without its hint).
//! `</invoke>` and `</parameter>` (an XML call's closers, QwenLM/qwen-code#10700: a reply ending
//! `Done.\n</parameter>\n</invoke>`) follow the same rule, and so do DeepSeek's DSML closers in
//! every bar spelling (can1357/oh-my-pi#10556: a V4 reply ending `…状态。\n\n</｜DSML｜parameter>\n
//! </｜DSML｜invoke>\n</｜DSML｜tool_calls>` with no opener anywhere), read by
//! [`super::dsml::head`] ([`dsml_closer`]) rather than listed.
//! Anywhere else, inside a sentence (`end each call with </tool_call>.`), it is text; in inline
//! code and fenced blocks it is always text.
//!
//! Lone openers are the other leftover: a server that read the call into `tool_calls` may leave
//! its opening tag in `content` (Rapid-MLX#448: `<tool_call>` whole, `<function` streamed), and a
//! reply cut right after its opener is nothing else (signalnine/q27#32: a reply that is only
//! `<tool_call>` twice). One of [`LONE`] with nothing of a call after it (only whitespace to the
//! end of the reply, or a line break and the same opener again) is removed and reported
//! (`unreadable-block`, its raw text kept) when it stands at a line's start (up to three spaces
//! before it), right after the text (no space between: `…查看<tool_call>`), or, at the very end of
//! the reply, anywhere when the format or model names a family that writes it (Hermes,
//! Qwen3-Coder).
//! Inside a sentence (`用 <tool_call> 包住调用`), after a space at the end of a reply of any other
//! model, and in code it is text.
//!
//! GLM's argument pairs are left the same way when a server or the model dropped the call's head
//! (THUDM/GLM#224: `<arg_key>filePath</arg_key><arg_value>…</arg_value>` then `</tool_call>`):
//! such a pair outside every call is markup, removed and reported, when it follows removed markup
//! (only whitespace between) or stands at a line's start with `</tool_call>` right after it, and
//! no `<tool_call>` was kept as text before it (then the pair is that text's); see
//! [`super::glm45::orphan_pair_head`]. A pair inside a sentence or alone in prose is text.

/// The closing tags read as orphans, each with its opening tag, then the lone tokens (no opening
/// tag: [`lone_tokens`]). [`super::stream`] keeps one bit for each, by its index here, and for
/// each of DSML's closers: see [`DSML_STARTS`].
pub const CLOSERS: &[(&str, Option<&str>)] = &[
    ("</tool_call>", Some("<tool_call>")),
    ("</minimax:tool_call>", Some("<minimax:tool_call>")),
    ("</tool_calls>", Some("<tool_calls>")),
    ("</function_calls>", Some("<function_calls>")),
    // An invoke's and a parameter's closers left at the end of a reply whose call markup was
    // stripped (qwen-code#10700: `</parameter></invoke>` in the visible text).
    ("</invoke>", Some("<invoke")),
    ("</parameter>", Some("<parameter")),
    // DeepSeek's end-of-sentence token, left after a DSML block.
    ("<｜end▁of▁sentence｜>", None),
    // DeepSeek-Coder's end-of-turn token.
    ("<|EOT|>", None),
    // Gemma's end of sequence and end of turn.
    ("<eos>", None),
    ("<end_of_turn>", None),
    // ChatML's end of turn (Qwen, Yi), Llama 3's, Phi-3's, and Kimi's assistant role token.
    ("<|im_end|>", None),
    ("<|eot_id|>", None),
    ("<|end|>", None),
    ("<|im_assistant|>", None),
    // GLM-4.5V/4.6V's answer box.
    (BOX_BEGIN, None),
    (BOX_END, None),
    // The end of text of Qwen, GLM and Phi (after `<|end|>` on every Phi-3 reply in
    // Vali-98/ChatterUI#66), GLM's user and observation role tokens (its stop tokens: the reply
    // ends where they come; AstrBotDevs/AstrBot#5675), and Cohere's end of response
    // (lmstudio-ai/lmstudio-bug-tracker#1535: every reply ending `<|END_RESPONSE|>`).
    ("<|endoftext|>", None),
    ("<|user|>", None),
    ("<|observation|>", None),
    ("<|END_RESPONSE|>", None),
    // Llama 4's end of turn, and the end of text of Llama 3 and Granite: end tokens like the
    // others, glued to the text before a user header a model that ran on writes after them
    // (`好的。<|eot|><|header_start|>user<|header_end|>`, [`super::invented_turn`]).
    ("<|eot|>", None),
    ("<|end_of_text|>", None),
    // Harmony's (gpt-oss) end of the final message, its stop token: glued to the text before
    // a user message the model went on to write (`已保存。<|return|><|start|>user<|message|>…`).
    ("<|return|>", None),
    // ChatML's and Llama 3's headers of a user turn: a model that ran past its end token writes
    // them before a user message it invents ([`super::invented_turn`]).
    (super::invented_turn::CHATML_USER, None),
    (super::invented_turn::LLAMA3_USER, None),
    // Granite's, Gemma's, Harmony's and Llama 4's user headers, for the same reason.
    (super::invented_turn::GRANITE_USER, None),
    (super::invented_turn::GEMMA_USER, None),
    (super::invented_turn::HARMONY_USER, None),
    (super::invented_turn::LLAMA4_USER, None),
];

/// GLM-4.5V/4.6V's answer-box opener: the one lone token also removed where it opens the reply
/// (nothing visible before it).
pub const BOX_BEGIN: &str = "<|begin_of_box|>";
/// Its closer, text when its opener was kept as text.
pub const BOX_END: &str = "<|end_of_box|>";

/// The starts of DSML's closing tags in every bar spelling [`super::dsml::head`] reads (`</`
/// and the head's first character); [`dsml_closer`] settles the rest.
pub const DSML_STARTS: &[&str] = super::dsml::CLOSER_STARTS;

/// DSML's canonical tag names ([`super::dsml::head`]): the closer of each has the bit after
/// [`CLOSERS`]' bits, in this order.
const DSML_NAMES: &[&str] = &["function_calls", "invoke", "parameter", "toolcall"];

/// The stream's masks of closers and DSML names: one bit per entry of [`CLOSERS`], then one per
/// DSML name.
pub type CloserBits = u64;

// One bit per closer and DSML name in a [`CloserBits`].
const _: () = assert!(CLOSERS.len() + DSML_NAMES.len() <= CloserBits::BITS as usize);

/// A DSML closing tag at the start of `s` (which starts with one of [`DSML_STARTS`]), in any
/// spelling DSML is read in (`</｜DSML｜invoke>`, `</｜｜DSML｜｜tool_calls>`, `</ | DSML | parameter >`):
/// `(its bit, its length)`; `Some(None)`: not one; `None`: `s` is cut short before that is known.
/// Only the first `window` bytes are read (a longer head is none).
pub fn dsml_closer(s: &str, finished: bool, window: usize) -> Option<Option<(usize, usize)>> {
    let full = finished || s.len() >= window;
    let mut end = s.len().min(window);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let h = s.get(2..end).unwrap_or_default();
    let Some((n, canon)) = super::dsml::head(h) else {
        return (full || !super::dsml::head_prefix(h)).then_some(None);
    };
    let t = h[n..].trim_start_matches(' ');
    if t.starts_with('>') {
        let bit = CLOSERS.len() + DSML_NAMES.iter().position(|&w| w == canon)?;
        return Some(Some((bit, 2 + h.len() - t.len() + 1)));
    }
    (full || !t.is_empty()).then_some(None)
}

/// Whether only DSML closers (a run of up to four, [`dsml_closer`], the last maybe cut) and
/// whitespace follow to the end of `s`, the end of the reply when `finished`: a closer glued to the text before them is
/// a stray one (`…42.</｜DSML｜tool_calls>`, vllm#56184). `None`: not known yet.
pub fn dsml_closers_to_end(s: &str, finished: bool) -> Option<bool> {
    let mut rest = s.trim_start();
    for _ in 0..4 {
        // The last one cut by the reply's end (`</`, `</｜DS`) is one of the run (it goes as a
        // cut marker).
        let cut = rest.strip_prefix("</").filter(|h| !h.contains('>'));
        if finished && cut.is_some_and(super::dsml::head_prefix) {
            return Some(true);
        }
        if !DSML_STARTS.iter().any(|d| rest.starts_with(d)) {
            break;
        }
        match dsml_closer(rest, finished, usize::MAX)? {
            Some((_, n)) => rest = rest[n..].trim_start(),
            None => return Some(false),
        }
    }
    if rest.is_empty() || !finished && DSML_STARTS.iter().any(|d| d.starts_with(rest)) {
        return finished.then_some(rest.is_empty());
    }
    Some(false)
}

/// The bits of every DSML closer: set together when a DSML tag is kept as text.
pub const DSML_BITS: CloserBits = ((1 << DSML_NAMES.len()) - 1) << CLOSERS.len();

/// Whether a DSML opening tag of any name starts `s` (`<`, bars, `DSML`: `<｜DSML｜invoke`, `<DSML｜invoke`,
/// `<｜DSML｜read_file>`, `< | DSML | …`); read in the first 64 bytes.
pub fn dsml_opener(s: &str) -> bool {
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let Some(h) = s[..end].strip_prefix('<') else {
        return false;
    };
    let t = h.trim_start_matches([' ', '｜', '‖', '|']);
    let Some(after) = t.strip_prefix("DSML") else {
        return false;
    };
    // The first bar missing (`<DSML｜invoke`): the bar after `DSML` is written.
    t.len() < h.len() || after.trim_start_matches(' ').starts_with(['｜', '‖', '|'])
}

/// The orphan closer at the start of `s` and whether it has an opening tag (`false`: a lone
/// token): its bit.
pub fn closer_at(s: &str) -> Option<(usize, bool)> {
    if let Some(i) = CLOSERS.iter().position(|(c, _)| s.starts_with(c)) {
        return Some((i, CLOSERS[i].1.is_some()));
    }
    let (bit, _) = dsml_closer(s, true, usize::MAX)??;
    Some((bit, true))
}

/// Call openers removed when nothing of a call follows them (see the module doc): Hermes' and
/// Qwen's, Seed-OSS's `<seed:tool_call>` and Mistral's `[TOOL_CALLS]` (special tokens, left alone
/// by a reply cut right after them).
pub const LONE: &[&str] = &[
    "<tool_call>",
    "<function",
    super::seed_oss::OPEN,
    super::mistral::TOKEN,
];

/// Whether `hint` names a family that writes the lone opener `s` (then it goes at the very end
/// of the reply wherever it stands).
pub fn lone_writer(s: &str, hint: Option<super::Family>) -> bool {
    use super::Family;
    match s {
        super::seed_oss::OPEN => hint == Some(Family::SeedOss),
        super::mistral::TOKEN => hint == Some(Family::Mistral),
        _ => matches!(hint, Some(Family::Hermes | Family::Qwen3Coder)),
    }
}

/// The call-section begin tokens before which a lone end token (no opening tag) is a leftover too.
pub const BEGINS: &[&str] = &[
    super::deepseek_v3::CALLS_BEGIN,
    super::deepseek_v3::CALL_BEGIN,
];

/// Whether `s`, what follows a lone end token (and the run of them after it) to the end of the
/// reply, is the start of another lone token or of one of [`BEGINS`] that the reply's end cut
/// (`<|end|><|endo`, `<|EOT|><｜t`): not empty, shorter than the token, and its first bytes. The
/// lone token before it goes, and so does the cut one (nothing of it can be read).
pub fn cut_lone(s: &str) -> bool {
    !s.is_empty()
        && lone_tokens()
            .chain(BEGINS.iter().copied())
            .any(|t| t.len() > s.len() && t.starts_with(s))
}

/// The lone tokens of [`CLOSERS`]: those with no opening tag.
pub fn lone_tokens() -> impl Iterator<Item = &'static str> {
    CLOSERS
        .iter()
        .filter_map(|&(c, o)| o.is_none().then_some(c))
}
