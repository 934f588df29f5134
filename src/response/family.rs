//! Tool-call families: the format names of `options.format` ([`FORMATS`]), the family each name
//! and each `options.model` id stands for ([`Family::from_format`], [`Family::from_model`]), and the
//! dispatch to the family parsers ([`parse_family`]). One family is the unit of detection
//! ([`super::scan::detect`]) and parsing; a family may report several format names (GLM-4.5 and
//! 4.7, DeepSeek V3 and V3.1).

use super::json_calls::parse_tagged;
use super::{
    apertus, attr_tool_call, bracket_calls, command_r, deepseek_v3, deepseek_v32, doubao, ernie45,
    functionary, functiongemma, gemma4, gigachat3, glm45, gpt_oss, granite, granite_20b_fc, hermes,
    hunyuan_a13b, internlm2, jamba, kimi_k2, kimi_k3, llama3_json, llama4_pythonic, longcat,
    minicpm5, minimax_m1, minimax_m2, minimax_m3, mistral, named_tool_call, nemotron_v2, olmo3,
    phi4_mini, pythonic, qwen3_coder, seed_oss, step3, tool_json, xlam, Ctx, Parsed,
};

/// The format names this module implements.
pub const FORMATS: &[&str] = &[
    "hermes",
    "qwen3_coder",
    "seed_oss",
    "glm45",
    "glm47",
    "minimax_m1",
    "minimax_m2",
    "deepseek_v3",
    "deepseek_v31",
    "deepseek_v32",
    "deepseek_v4",
    "kimi_k2",
    "kimi_k3",
    "llama3_json",
    "pythonic",
    "llama4_pythonic",
    "mistral",
    "gpt_oss",
    "step3",
    "hunyuan_a13b",
    "ernie45",
    "longcat",
    "internlm2",
    "phi4_mini",
    "granite",
    "granite_20b_fc",
    "xlam",
    "jamba",
    "olmo3",
    "gigachat3",
    "gemma4",
    "bracket_calls",
    "command_r",
    "minimax_m3",
    "apertus",
    "nemotron_v2",
    "doubao",
    "functionary_v31",
    "functionary_v32",
    "minicpm5",
    "tool_json",
    "named_tool_call",
    "attr_tool_call",
    "functiongemma",
];

/// A tool-call family: the unit of detection and parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Hermes,
    Qwen3Coder,
    SeedOss,
    /// GLM-4.5 and GLM-4.7 share one tolerant parser.
    Glm,
    MinimaxM1,
    MinimaxM2,
    /// DeepSeek V3 and V3.1 share the outer tokens; each call's shape decides.
    DeepSeek,
    /// DeepSeek V3.2's DSML.
    DeepSeekV32,
    KimiK2,
    /// Kimi K3's XTML channels.
    KimiK3,
    Llama3Json,
    Pythonic,
    Llama4Pythonic,
    Mistral,
    GptOss,
    Step3,
    HunyuanA13b,
    Ernie45,
    Longcat,
    Internlm2,
    Phi4Mini,
    Granite,
    Granite20bFc,
    Xlam,
    Jamba,
    Olmo3,
    Gigachat3,
    /// Gemma 4's `<|tool_call>call:NAME{…}<tool_call|>`.
    Gemma4,
    /// `[TOOL_CALL]…[/TOOL_CALL]` and LM Studio's `…[END_TOOL_REQUEST]`.
    BracketCalls,
    /// Cohere's `<|START_ACTION|>[…]<|END_ACTION|>`.
    CommandR,
    /// MiniMax-M3's `]<]minimax[>[<tool_call>` with key-named parameter elements.
    MinimaxM3,
    /// Apertus' `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`.
    Apertus,
    /// Nemotron's `<TOOLCALL>[…]</TOOLCALL>`.
    NemotronV2,
    /// ByteDance Doubao's `<|FunctionCallBegin|>[…]<|FunctionCallEnd|>`.
    Doubao,
    /// Functionary v3.1's `<function=NAME>{…}</function>` (read only when named).
    FunctionaryV31,
    /// Functionary v3.2's `>>>NAME\n{…}` (read only when named).
    FunctionaryV32,
    /// MiniCPM5's unwrapped `<function name="NAME"><param name="K">V</param></function>`.
    Minicpm5,
    /// Bare JSON calls naming an offered tool, for any model ([`tool_json`]).
    ToolJson,
    /// `<tool_call name="NAME">{…}</tool_call>`, optionally in `<tool_calls>` ([`named_tool_call`]).
    NamedToolCall,
    /// `<tool_call id="ID" name="NAME">{…}</tool_call>` ([`attr_tool_call`]).
    AttrToolCall,
    /// FunctionGemma's `<start_function_call>call:NAME{…}<end_function_call>` ([`functiongemma`]).
    FunctionGemma,
}

impl Family {
    /// The family of a format name (`None` for an unknown or unimplemented name).
    pub fn from_format(name: &str) -> Option<Family> {
        Some(match name {
            "hermes" => Family::Hermes,
            "qwen3_coder" => Family::Qwen3Coder,
            "seed_oss" => Family::SeedOss,
            "glm45" | "glm47" => Family::Glm,
            "minimax_m1" => Family::MinimaxM1,
            "minimax_m2" => Family::MinimaxM2,
            "deepseek_v3" | "deepseek_v31" => Family::DeepSeek,
            "deepseek_v32" | "deepseek_v4" => Family::DeepSeekV32,
            "kimi_k2" => Family::KimiK2,
            "kimi_k3" => Family::KimiK3,
            "llama3_json" => Family::Llama3Json,
            "pythonic" => Family::Pythonic,
            "llama4_pythonic" => Family::Llama4Pythonic,
            "mistral" => Family::Mistral,
            "gpt_oss" => Family::GptOss,
            "step3" => Family::Step3,
            "hunyuan_a13b" => Family::HunyuanA13b,
            "ernie45" => Family::Ernie45,
            "longcat" => Family::Longcat,
            "internlm2" => Family::Internlm2,
            "phi4_mini" => Family::Phi4Mini,
            "granite" => Family::Granite,
            "granite_20b_fc" => Family::Granite20bFc,
            "xlam" => Family::Xlam,
            "jamba" => Family::Jamba,
            "olmo3" => Family::Olmo3,
            "gigachat3" => Family::Gigachat3,
            "gemma4" => Family::Gemma4,
            "bracket_calls" => Family::BracketCalls,
            "command_r" => Family::CommandR,
            "minimax_m3" => Family::MinimaxM3,
            "apertus" => Family::Apertus,
            "nemotron_v2" => Family::NemotronV2,
            "doubao" => Family::Doubao,
            "functionary_v31" => Family::FunctionaryV31,
            "functionary_v32" => Family::FunctionaryV32,
            "minicpm5" => Family::Minicpm5,
            "tool_json" => Family::ToolJson,
            "named_tool_call" => Family::NamedToolCall,
            "attr_tool_call" => Family::AttrToolCall,
            "functiongemma" => Family::FunctionGemma,
            _ => return None,
        })
    }

    /// The family an `options.model` id (`"provider/model-id"`, any case) names, if any. Only the
    /// families whose text forms differ from what `auto` detects need this (the bare-JSON and
    /// pythonic ones, shared markers such as `<tool_call>{`, prose reasoning); the choices:
    /// Llama 3.x → `llama3_json` (its default template; the pythonic template is opt-in, name
    /// `pythonic` for it), Llama 4 → `llama4_pythonic`, LFM2 and ToolACE → `pythonic`, OLMo-3 →
    /// `olmo3`, xLAM → `xlam`, Granite-20B-FunctionCalling → `granite_20b_fc`, other Granite →
    /// `granite`, ERNIE → `ernie45`, Jamba → `jamba`, Hunyuan → `hunyuan_a13b`, MiniMax-M1 →
    /// `minimax_m1`, DeepSeek-V3.2 (not V3.2-Exp, which writes V3.1's form) → `deepseek_v32`,
    /// gpt-oss → `gpt_oss`, MiniMax-M3 → `minimax_m3`, Nemotron → `nemotron_v2`, Apertus →
    /// `apertus`, Functionary → `functionary_v31` (ids with `v3.1`) or `functionary_v32`,
    /// MiniCPM5 → `minicpm5` (in `auto` too, with its template's body after the tag), the Mistral family (Mistral, Mixtral, Magistral, Devstral, Ministral,
    /// Codestral) → `mistral`, and Qwen3-Coder, Seed-OSS, Step-3, LongCat, InternLM, Phi-4-mini,
    /// GigaChat, FunctionGemma by name.
    pub fn from_model(model: &str) -> Option<Family> {
        let m = model.to_ascii_lowercase();
        let has = |s: &[&str]| s.iter().any(|p| m.contains(p));
        Some(if has(&["qwen"]) && has(&["coder"]) {
            Family::Qwen3Coder
        } else if has(&["functiongemma", "function-gemma", "function_gemma"]) {
            Family::FunctionGemma
        } else if has(&["functionary"]) {
            if has(&["v3.1", "v3-1", "v31"]) {
                Family::FunctionaryV31
            } else {
                Family::FunctionaryV32
            }
        } else if has(&["minicpm5", "minicpm-5", "minicpm_5"]) {
            Family::Minicpm5
        } else if has(&["seed-oss", "seed_oss"]) {
            Family::SeedOss
        } else if has(&["minimax-m1", "minimax_m1"]) {
            Family::MinimaxM1
        } else if has(&["minimax-m3", "minimax_m3"]) {
            Family::MinimaxM3
        } else if has(&["nemotron"]) && !has(&["nemotron-70b"]) {
            // Not Llama-3.1-Nemotron-70B-Instruct (2024), which writes Llama 3.1's JSON.
            Family::NemotronV2
        } else if has(&["apertus"]) {
            Family::Apertus
        } else if has(&["deepseek-v4", "deepseek_v4"])
            || (has(&["deepseek-v3.2", "deepseek_v3.2", "deepseek-v32"]) && !has(&["exp"]))
        {
            Family::DeepSeekV32
        } else if has(&["llama-4", "llama4", "llama_4"]) {
            Family::Llama4Pythonic
        } else if has(&["llama-3", "llama3", "llama_3"]) {
            Family::Llama3Json
        } else if has(&["lfm2", "toolace"]) {
            Family::Pythonic
        } else if has(&[
            "mistral",
            "mixtral",
            "magistral",
            "devstral",
            "ministral",
            "codestral",
        ]) {
            Family::Mistral
        } else if has(&["gpt-oss", "gpt_oss"]) {
            Family::GptOss
        } else if has(&["step3", "step-3"]) {
            Family::Step3
        } else if has(&["hunyuan"]) {
            Family::HunyuanA13b
        } else if has(&["ernie"]) {
            Family::Ernie45
        } else if has(&["longcat"]) {
            Family::Longcat
        } else if has(&["internlm"]) {
            Family::Internlm2
        } else if has(&["phi-4-mini", "phi4-mini", "phi_4_mini"]) {
            Family::Phi4Mini
        } else if has(&["granite-20b-functioncalling", "granite-20b-fc"]) {
            Family::Granite20bFc
        } else if has(&["granite"]) {
            Family::Granite
        } else if has(&["xlam"]) {
            Family::Xlam
        } else if has(&["jamba"]) {
            Family::Jamba
        } else if has(&["olmo-3", "olmo3"]) {
            Family::Olmo3
        } else if has(&["gigachat"]) {
            Family::Gigachat3
        } else {
            return None;
        })
    }

    /// Families whose text is plain JSON or Python (or prose reasoning): read only when named, and
    /// not covered by the special-token prefilter.
    pub fn reads_plain_text(self) -> bool {
        matches!(
            self,
            Family::Llama3Json
                | Family::Pythonic
                | Family::Llama4Pythonic
                | Family::Xlam
                | Family::Olmo3
                | Family::Granite
                | Family::GptOss
                | Family::Gemma4
                | Family::FunctionaryV32
        )
    }
}

/// Run one family's parser on a piece of visible (non-reasoning) text. The blocks come back
/// sorted, inside the text and not overlapping (a block that overlaps an earlier one is dropped
/// and reported), whatever the family parser did.
pub fn parse_family(family: Family, text: &str, cx: &Ctx) -> Parsed {
    let mut p = parse_family_raw(family, text, cx);
    p.normalize(text.len());
    super::garbage::drop_garbage(&mut p, text, cx);
    p
}

/// A family that is one tagged JSON grammar and nothing else is data: its `SPEC` goes to
/// [`parse_tagged`].
fn parse_family_raw(family: Family, text: &str, cx: &Ctx) -> Parsed {
    match family {
        Family::Hermes => parse_tagged(text, &hermes::SPEC, cx.tools),
        Family::Qwen3Coder => qwen3_coder::parse(text, cx),
        Family::SeedOss => seed_oss::parse(text, cx),
        Family::Glm => glm45::parse(text, cx),
        Family::MinimaxM1 => parse_tagged(text, &minimax_m1::SPEC, cx.tools),
        Family::MinimaxM2 => minimax_m2::parse(text, cx),
        Family::DeepSeek => deepseek_v3::parse(text, cx),
        Family::DeepSeekV32 => deepseek_v32::parse(text, cx),
        Family::KimiK2 => kimi_k2::parse(text, cx),
        Family::KimiK3 => kimi_k3::parse(text, cx),
        Family::Llama3Json => llama3_json::parse(text, cx),
        Family::Pythonic => pythonic::parse(text, cx),
        Family::Llama4Pythonic => llama4_pythonic::parse(text, cx),
        Family::Mistral => mistral::parse(text, cx),
        Family::GptOss => gpt_oss::parse(text, cx),
        Family::Step3 => step3::parse(text, cx),
        Family::HunyuanA13b => hunyuan_a13b::parse(text, cx),
        Family::Ernie45 => ernie45::parse(text, cx),
        Family::Longcat => longcat::parse(text, cx),
        Family::Internlm2 => parse_tagged(text, &internlm2::SPEC, cx.tools),
        Family::Phi4Mini => parse_tagged(text, &phi4_mini::SPEC, cx.tools),
        Family::Granite => parse_tagged(text, &granite::SPEC, cx.tools),
        Family::Granite20bFc => parse_tagged(text, &granite_20b_fc::SPEC, cx.tools),
        Family::Xlam => xlam::parse(text, cx),
        Family::Jamba => parse_tagged(text, &jamba::SPEC, cx.tools),
        Family::Olmo3 => olmo3::parse(text, cx),
        Family::Gigachat3 => gigachat3::parse(text, cx),
        Family::Gemma4 => gemma4::parse(text, cx),
        Family::BracketCalls => bracket_calls::parse(text, cx),
        Family::CommandR => command_r::parse(text, cx),
        Family::MinimaxM3 => minimax_m3::parse(text, cx),
        Family::Apertus => apertus::parse(text, cx),
        Family::NemotronV2 => parse_tagged(text, &nemotron_v2::SPEC, cx.tools),
        Family::Doubao => parse_tagged(text, &doubao::SPEC, cx.tools),
        Family::FunctionaryV31 => functionary::parse_v31(text, cx),
        Family::FunctionaryV32 => functionary::parse_v32(text, cx),
        Family::Minicpm5 => minicpm5::parse(text, cx),
        Family::ToolJson => tool_json::parse(text, cx),
        Family::NamedToolCall => named_tool_call::parse(text, cx),
        Family::AttrToolCall => attr_tool_call::parse(text, cx),
        Family::FunctionGemma => functiongemma::parse(text, cx),
    }
}
