//! Reasoning blocks, split off before any tool-call parsing so that a call written inside
//! reasoning (a documented example, reference §0.5) is never taken for a real call.
//!
//! Markers (reference §22): `<think>…</think>` (DeepSeek-R1, Qwen3, GLM, MiniMax-M2, Step-3, ERNIE,
//! Kimi-K2 thinking, Hunyuan, Nemotron), `<thinking>…</thinking>` / `<thought>…</thought>` (Gemini
//! 2.5 and Gemma 4 through Google's OpenAI-compatible endpoint, Kimi K2.5 through Bedrock; read
//! only at the reply's start, their lone closers closing nothing), `<mm:think>…</mm:think>`
//! (MiniMax-M3), `<|inner_prefix|>…<|inner_suffix|>` (Apertus), `<seed:think>…</seed:think>` (Seed-OSS; its
//! `<seed:cot_budget_reflect>` notes sit inside and stay part of the reasoning), `[THINK]…[/THINK]`
//! (Magistral), `◁think▷…◁/think▷` (legacy Kimi), `<|START_THINKING|>…<|END_THINKING|>` (Cohere)
//! and gpt-oss's Harmony `analysis` channel (`<|channel|>analysis<|message|>…<|end|>`). These are
//! special tokens and always recognised. Two forms are plain prose and are read only when the
//! caller's format or model names their family ([`Extra`]): Granite's `Here is my thought
//! process:` … `Here is my response:`, and gpt-oss with its markers stripped
//! (`analysis…assistantfinal…`).
//!
//! Rules (smg's base parser, §22 rule 3): a closing tag with no opening tag before it closes a block
//! that starts at the beginning of the reply (R1 style: the opening tag was in the prompt); later
//! stray closing tags are removed as empty blocks; an opening tag that is never closed makes the
//! rest of the reply reasoning (truncated thinking), which the caller reports. A Harmony analysis
//! message also ends where the next message starts (`<|start|>`, `<|channel|>`), and a lone
//! `<|end|>` is not a reasoning close (it ends every Harmony message).

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};

pub const OPEN: &str = "<think>";
pub const CLOSE: &str = "</think>";

/// One kind of reasoning block.
pub(crate) struct Pair {
    pub(crate) opens: &'static [&'static str],
    pub(crate) closes: &'static [&'static str],
    /// A closing tag alone closes a block from the start of the reply (when [`Extra::r1`]).
    pub(crate) r1: bool,
    /// Markers that end the block without being part of it.
    pub(crate) ends: &'static [&'static str],
}

/// The first pairs of [`ALWAYS`] (`<think>`, `<seed:think>`, `[THINK]`, `<mm:think>`,
/// `<thinking>`/`<thought>`) open reasoning only before any visible text.
pub(crate) const PROSE_PAIRS: usize = 5;

/// The special-token pairs, always recognised (the stream cleaner scans for the same ones).
pub(crate) const ALWAYS: &[Pair] = &[
    Pair {
        opens: &[OPEN],
        closes: &[CLOSE],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<seed:think>"],
        closes: &["</seed:think>"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["[THINK]"],
        closes: &["[/THINK]"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<mm:think>"],
        closes: &["</mm:think>"],
        r1: true,
        ends: &[],
    },
    // `<thinking>…</thinking>` / `<thought>…</thought>`: Gemini 2.5 in OpenAI-compatible mode,
    // Gemma 4 through Google's OpenAI-compatible endpoint, Kimi K2.5 through Bedrock. Plain tag
    // names people write in prose, so read only where a reply starts, and a lone closer is text
    // (no template opens them in the prompt).
    Pair {
        opens: &["<thinking>", "<thought>"],
        closes: &["</thinking>", "</thought>"],
        r1: false,
        ends: &[],
    },
    Pair {
        opens: &["◁think▷"],
        closes: &["◁/think▷"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<|START_THINKING|>"],
        closes: &["<|END_THINKING|>"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<|inner_prefix|>"],
        closes: &["<|inner_suffix|>"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<|channel>thought", "<|channel>"],
        closes: &["<channel|>"],
        r1: false,
        ends: &[],
    },
    Pair {
        opens: &["<|open|>think<|sep|>"],
        closes: &["<|close|>think<|sep|>"],
        r1: true,
        ends: &[],
    },
    Pair {
        opens: &["<|channel|>analysis<|message|>"],
        closes: &["<|end|>"],
        r1: false,
        ends: &["<|start|>", "<|channel|>"],
    },
];

/// The index in [`ALWAYS`] of Gemma 4's channel pair, whose opener named inside a sentence is
/// text ([`super::gemma_channel`]).
pub(crate) const GEMMA_CHANNEL: usize = 8;

/// The index in [`ALWAYS`] of Kimi's `◁think▷` pair, whose opener named inside a sentence is
/// text ([`super::kimi_think`]).
pub(crate) const KIMI: usize = 5;

/// Whether a marker of pair `p` (of [`ALWAYS`]) named inside a sentence is text under the
/// special-token rule ([`marker_named`]): every special-token pair (Kimi's `◁think▷`, Cohere's
/// `<|START_THINKING|>`, Apertus's `<|inner_prefix|>`, Kimi K3's `<|open|>think<|sep|>`,
/// Harmony's analysis channel), not the prose pairs (`<think>` and its kin have their own rules)
/// nor Gemma 4's channel ([`super::gemma_channel`]).
///
/// Why: `每一轮以 <|START_THINKING|> 结束。` lost the rest of the reply to reasoning ("never
/// closed"), and `以 <|END_THINKING|> 结束` lost its token: people name these tokens in prose.
pub(crate) fn named_marker(p: usize) -> bool {
    (PROSE_PAIRS..ALWAYS.len()).contains(&p) && p != GEMMA_CHANNEL
}

/// Whether a marker of a [`named_marker`] pair is named in a sentence: words and a space before
/// it on its line (`spaced_before`), and after it a space then words, not another special token
/// ([`super::turn_end::token_named`], the one test). A leak lacks a side: glued to the text,
/// opening the reply or its line, followed by a line break or the end. `None`: wait for more.
pub(crate) fn marker_named(spaced_before: bool, after: &str, finished: bool) -> Option<bool> {
    super::turn_end::token_named(spaced_before, after, finished, true)
}

/// Whether words then a space stand right before byte `at` of `text` on its line, and those
/// words do not end a sentence ([`ends_sentence`]: `北京今天晴。 <|END_THINKING|>` is a leak). Reads
/// back over spaces only.
pub(crate) fn spaced_words_before(text: &str, at: usize) -> bool {
    let t = text[..at].trim_end_matches([' ', '\t']);
    t.len() < at && super::gemma_channel::words_before(text, at) && !ends_sentence(t)
}

/// Whether the opener of pair `i` (of [`ALWAYS`]) at byte `at` of `text` is text: Gemma 4's
/// `<|channel>` ([`super::gemma_channel`]) or Kimi's `◁think▷` ([`super::kimi_think`]) named
/// inside a sentence. Read on a whole reply.
fn opener_in_sentence(text: &str, at: usize, i: usize) -> bool {
    use super::gemma_channel::{in_sentence, words_before};
    let named = match i {
        GEMMA_CHANNEL => in_sentence,
        KIMI => super::kimi_think::in_sentence,
        _ if named_marker(i) => {
            let len = shortest_at(text, at, ALWAYS.get(i).map_or(&[], |p| p.opens)).unwrap_or(0);
            let named = marker_named(spaced_words_before(text, at), &text[at + len..], true);
            return named == Some(true);
        }
        _ => return false,
    };
    named(words_before(text, at), &text[at..], true) == Some(true)
}

/// Whether `rest`, a reasoning marker the reply's end cut (Kimi K3's `<|open|>thi`,
/// `<|close|>think<|s`, Harmony's `<|channel|>analysis<|mess`), already shows a whole special
/// token of it (`<|…|>`): that token is markup, removed with the cut rest as a cut call opener
/// is. A marker cut inside its first token (`<|START_THI`, `<thin`, `<|`) may be text.
pub(crate) fn cut_shows_token(rest: &str) -> bool {
    rest.starts_with("<|") && rest.contains("|>")
}

/// Whether `rest` (to the end of the reply) is a reasoning closer cut there after a whole special
/// token of it ([`cut_shows_token`]; Kimi K3's `<|close|>`, `<|close|>think<|s`).
pub(crate) fn cut_closer_shows_token(rest: &str) -> bool {
    cut_shows_token(rest)
        && ALWAYS
            .iter()
            .flat_map(|p| p.closes)
            .any(|c| c.len() > rest.len() && c.starts_with(rest))
}

/// Where a reasoning marker the end of `text` cut after a whole special token of it starts
/// ([`cut_shows_token`]: `好的。<|open|>think<|s`), for the families read whole, which the
/// stream's rule does not reach.
pub(crate) fn cut_at_end(text: &str) -> Option<usize> {
    let longest = ALWAYS
        .iter()
        .flat_map(|p| p.opens.iter().chain(p.closes))
        .map(|m| m.len())
        .max()
        .unwrap_or(0);
    let from = super::scan::floor(text, text.len().saturating_sub(longest));
    text[from..]
        .match_indices("<|")
        .map(|(i, _)| from + i)
        .find(|&k| {
            let rest = &text[k..];
            cut_shows_token(rest)
                && ALWAYS
                    .iter()
                    .flat_map(|p| p.opens.iter().chain(p.closes))
                    .any(|m| m.len() > rest.len() && m.starts_with(rest))
        })
}

/// The index in [`ALWAYS`] of the pair opened by `open` (0, `<think>`, when none is).
pub(crate) fn pair_of(open: &str) -> usize {
    ALWAYS
        .iter()
        .position(|p| p.opens.contains(&open))
        .unwrap_or(0)
}

const GRANITE: Pair = Pair {
    opens: &["Here is my thought process:", "Here's my thought process:"],
    closes: &["Here is my response:", "Here's my response:"],
    r1: false,
    ends: &[],
};

/// The stripped Harmony headers that end an analysis message.
const HARMONY_STRIPPED_ENDS: &[&str] =
    &["assistantfinal", "assistantcommentary", "assistantanalysis"];

const HARMONY_STRIPPED: Pair = Pair {
    opens: &["assistantanalysis"],
    closes: &[],
    r1: false,
    ends: HARMONY_STRIPPED_ENDS,
};

/// Prose reasoning forms, read only when the format or model names their family.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extra {
    /// Granite 3.2+: `Here is my thought process:` … `Here is my response:`.
    pub granite: bool,
    /// gpt-oss with the Harmony markers stripped: `analysis…assistantfinal…`.
    pub harmony_stripped: bool,
    /// The reply starts inside reasoning (the opening tag was in the prompt; see [`r1_hint`]): a
    /// closing tag with no opening tag before it makes everything before it reasoning. Without it
    /// such a tag is a stray tag, removed, and the text before it stays visible (a stream cannot
    /// hold back every reply on the chance that a `</think>` comes at its end).
    pub r1: bool,
    /// With [`Extra::r1`] from the model hint ([`r1_hint`]), not the caller's `reasoningOpen`: a
    /// closing tag inside a sentence does not end the reasoning ([`ends_opened_reasoning`]).
    pub r1_sentence: bool,
}

/// Model families whose chat template ends the prompt inside reasoning, so that their replies
/// start with reasoning and close it without the opening tag. Each entry is the substrings a
/// lower-cased `options.model` must all contain (any of the inner list); the README's table gives
/// each row's template evidence. Hybrid families whose template does not open reasoning (Qwen3
/// hybrids, GLM-4.5/4.6, Kimi-K2-Thinking, Nemotron Super v1.5) write the opening tag themselves
/// and are not listed; nor is DeepSeek-V4, whose thinking is chosen per request.
const OPENED_BY_TEMPLATE: &[&[&[&str]]] = &[
    // DeepSeek-R1 (updated template), its distills, and DeepSeek's thinking ids.
    &[&["deepseek"], &["r1", "reasoner", "think", "reason"]],
    &[&["qwq"]],
    // Qwen3 thinking variants (Qwen3-*-Thinking-2507, Qwen3-VL-*-Thinking).
    &[&["qwen3"], &["thinking"]],
    &[&[
        "qwen3.5", "qwen3_5", "qwen3-5", "qwen3.6", "qwen3_6", "qwen3-6",
    ]],
    &[&["minimax-m2", "minimax_m2"]],
    &[&["nemotron"], &["nano"], &["v2"]],
    &[&["step3", "step-3"]],
    &[&["kimi-k2.5", "kimi-k2-5", "kimi_k2.5", "kimi_k2_5"]],
    &[&["ernie"], &["thinking"]],
    // GLM-5.x: GLM-5.3's generation prompt opens `<think>` always, GLM-5.2's unless thinking is
    // switched off (then it closes it in the prompt and the reply has no `</think>`).
    &[&["glm-5", "glm5", "glm_5"]],
    // GLM-4.7 (and its Flash): the generation prompt is `<|assistant|><think>` unless thinking is
    // switched off (`</think>` then); GLM-4.5 and GLM-4.6 write their own `<think>`.
    &[&["glm-4.7", "glm4.7", "glm_4.7", "glm-4-7", "glm_4_7"]],
    // Seed-OSS opens `<seed:think>` only with a thinking budget of 0; held, never forced.
    &[&["seed-oss", "seed_oss"]],
];

/// Whether the format or model named by the caller is one whose chat template opens reasoning in
/// the prompt ([`OPENED_BY_TEMPLATE`]; by format: `minimax_m2`, `step3`,
/// `seed_oss`). With it, text before the first closing tag is reasoning; a reply with no closing
/// tag (thinking switched off, or a server that already split the reasoning off) stays visible,
/// which is why a stream holds the start back until a reasoning tag or the end decides.
pub fn r1_hint(format: Option<&str>, model: Option<&str>) -> bool {
    let by_format = matches!(format, Some("minimax_m2" | "step3" | "seed_oss"));
    let by_model = model.is_some_and(|m| {
        let m = m.to_ascii_lowercase();
        OPENED_BY_TEMPLATE
            .iter()
            .any(|all| all.iter().all(|any| any.iter().any(|p| m.contains(p))))
    });
    by_format || by_model
}

/// Whether a closing tag with no opening tag, between `before` (the reply up to it) and `after`
/// (the reply after it), ends the reasoning a model's template opened ([`r1_hint`]): when it
/// starts or ends its line (not after words and a space, [`named_at_line_end`]), is glued to an
/// ASCII letter or digit (`…= 408</think>408`,
/// `…straightforward</think>Answer`) or to markup (`…</tool_call></think>`, `…</think><tool_call>`),
/// or the text before it on its line ends a sentence (`.`, `。`, `!`, `?`, `…`, a closing bracket
/// or quote, spaces after it or not), as a model closes its reasoning. Inside a sentence
/// (`修复百炼 qwen 下</think> token前的…`, `补出 </think> 时`, a reply that names the tag, as an
/// answer a server already split writes it) it is text.
pub(crate) fn ends_opened_reasoning(before: &str, after: &str) -> bool {
    if after.starts_with('<') {
        return true;
    }
    if ends_line(after) {
        return !named_at_line_end(before);
    }
    let line = before.rsplit('\n').next().unwrap_or("");
    if line.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '>') {
        return true;
    }
    let t = line.trim_end_matches([' ', '\t', '\r']);
    t.is_empty() || ends_sentence(t)
}

/// Whether `t` ends a sentence: `.`, `。`, `!`, `?`, `…`, a closing bracket or quote. After a
/// finished sentence a marker is a leak, not a word of it: the `</think>` rule here, and every
/// special token's "named in a sentence" test ([`super::turn_end::token_named`]).
pub(crate) fn ends_sentence(t: &str) -> bool {
    t.ends_with([
        '.', '。', '!', '！', '?', '？', '…', ')', '）', ']', '】', '"', '”', '」', '』', '\'', '’',
    ])
}

/// Whether a closing tag that ends its line, after `before` (the reply up to it), is named in a
/// sentence rather than closing reasoning: words before it on its line, then spaces, and those
/// words do not end a sentence (`content 中包含思考内容 + </think>`, `…有时只有 </think>`). A model
/// closes its reasoning glued to its last word, after a sentence's end, or on a line of its own.
pub(crate) fn named_at_line_end(before: &str) -> bool {
    let mut tail = LineTail::default();
    tail.pass(before.rsplit('\n').next().unwrap_or(""));
    tail.named()
}

/// The end of the line a stream has passed, kept as text goes by in pieces, for
/// [`named_at_line_end`]: its last character other than a space and whether spaces followed it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LineTail {
    last: Option<char>,
    spaced: bool,
}

impl LineTail {
    /// `text` went by (the reply's next piece).
    pub(crate) fn pass(&mut self, text: &str) {
        match memchr::memrchr(b'\n', text.as_bytes()) {
            Some(p) => self.pass_line(true, &text[p + 1..]),
            None => self.pass_line(false, text),
        }
    }

    /// A piece went by whose last line is `line` (`new_line`: a line break came before it in the
    /// piece). The stream's drain has found that line break already, so it is not searched twice.
    pub(crate) fn pass_line(&mut self, new_line: bool, line: &str) {
        if new_line {
            *self = LineTail::default();
        }
        let t = line.trim_end_matches([' ', '\t']);
        if let Some(c) = t.chars().next_back() {
            self.last = Some(c);
            self.spaced = false;
        }
        self.spaced |= t.len() < line.len();
    }

    /// Whether a closing tag here, ending its line, is named in a sentence.
    pub(crate) fn named(&self) -> bool {
        self.spaced && self.words_unended()
    }

    /// Whether the line holds words and they do not end a sentence ([`ends_sentence`]).
    pub(crate) fn words_unended(&self) -> bool {
        self.last
            .is_some_and(|c| !ends_sentence(c.encode_utf8(&mut [0; 4])))
    }
}

/// One reasoning block: `outer` covers the tags, `inner` the reasoning text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Think {
    pub outer: Range<usize>,
    pub inner: Range<usize>,
    /// False when the block runs to the end of the reply without its closing tag.
    pub closed: bool,
}

/// The pairs [`find_blocks`] reads for one choice of prose forms, with one automaton over all
/// their markers, built once: the reply is read once, left to right, for every marker at a time.
/// A `memmem` search per marker (twenty-odd over the reply) was the largest part of
/// `sanitizeToolCall` on half-Chinese text, where the multi-byte markers' bytes are common.
struct Markers {
    pairs: Vec<&'static Pair>,
    /// Where the next marker of `pairs` (opening, closing or ending) starts; which markers match
    /// there is then read by comparing each (several may start at one place).
    any: AhoCorasick,
}

impl Markers {
    fn new(granite: bool, harmony_stripped: bool) -> Markers {
        let mut pairs: Vec<&'static Pair> = ALWAYS.iter().collect();
        if granite {
            pairs.push(&GRANITE);
        }
        if harmony_stripped {
            pairs.push(&HARMONY_STRIPPED);
        }
        let all = pairs
            .iter()
            .flat_map(|p| p.opens.iter().chain(p.closes).chain(p.ends));
        let any = AhoCorasick::builder()
            // The leftmost start, whatever its length: every marker starting there is compared.
            .match_kind(MatchKind::LeftmostFirst)
            .build(all)
            .expect("static reasoning markers");
        Markers { pairs, any }
    }

    /// The first place at or after `from` where a marker starts.
    fn next(&self, text: &str, from: usize) -> Option<usize> {
        let input = Input::new(text).span(from..text.len());
        self.any.find(input).map(|m| m.start())
    }

    /// The automaton for the prose forms `extra` turns on.
    fn of(extra: Extra) -> &'static Markers {
        static BY_EXTRA: [LazyLock<Markers>; 4] = [
            LazyLock::new(|| Markers::new(false, false)),
            LazyLock::new(|| Markers::new(true, false)),
            LazyLock::new(|| Markers::new(false, true)),
            LazyLock::new(|| Markers::new(true, true)),
        ];
        &BY_EXTRA[usize::from(extra.granite) | (usize::from(extra.harmony_stripped) << 1)]
    }
}

/// Whether a reasoning marker (opening, closing or ending) of the pairs `extra` turns on starts
/// at byte `at` of `text`. Every block [`blocks`] gives after its first starts at one (and no
/// marker starts with whitespace), so a caller can tell that visible text follows a block
/// without searching the rest of the reply.
pub(crate) fn marker_at(text: &str, at: usize, extra: Extra) -> bool {
    let rest = text.as_bytes().get(at..).unwrap_or(&[]);
    Markers::of(extra)
        .pairs
        .iter()
        .flat_map(|p| p.opens.iter().chain(p.closes).chain(p.ends))
        .any(|m| rest.starts_with(m.as_bytes()))
}

/// Whether `rest` starts with spaces, then a line break or the end.
pub(crate) fn ends_line(rest: &str) -> bool {
    matches!(
        rest.trim_start_matches([' ', '\t']).as_bytes().first(),
        None | Some(b'\n' | b'\r')
    )
}

/// The length of the shortest of `markers` that starts at `at` in `text`.
fn shortest_at(text: &str, at: usize, markers: &[&str]) -> Option<usize> {
    let rest = &text.as_bytes()[at..];
    markers
        .iter()
        .filter(|m| rest.starts_with(m.as_bytes()))
        .map(|m| m.len())
        .min()
}

/// The block of `pair` opened at `open`, its text starting at `body`: up to the first closing
/// tag of the pair (which wins over an ending marker at the same place), else up to the first
/// marker that ends it, else to the end of the reply, unclosed.
fn block(text: &str, markers: &Markers, pair: &Pair, open: usize, body: usize) -> Think {
    let mut from = body;
    while let Some(p) = markers.next(text, from) {
        if let Some(len) = shortest_at(text, p, pair.closes) {
            return Think {
                outer: open..p + len,
                inner: body..p,
                closed: true,
            };
        }
        if shortest_at(text, p, pair.ends).is_some() {
            return Think {
                outer: open..p,
                inner: body..p,
                closed: true,
            };
        }
        from = p + 1;
    }
    Think {
        outer: open..text.len(),
        inner: body..text.len(),
        closed: false,
    }
}

/// The reasoning blocks of `text`, in order, not overlapping.
pub fn find_blocks(text: &str, extra: Extra) -> Vec<Think> {
    blocks(text, extra).collect()
}

/// [`find_blocks`] one block at a time: a caller that stops early (the first block, the first
/// visible text between blocks) reads the reply only up to there, not to its end.
pub(crate) fn blocks(text: &str, extra: Extra) -> impl Iterator<Item = Think> + '_ {
    blocks_outside(text, extra, &[])
}

/// [`find_blocks`] with the code of `text` given (`code`: inline spans and fenced blocks, in
/// order): a marker inside code opens or closes nothing (code is text), as the stream machine
/// reads visible text. Used where a whole reply is read at once (the families read from plain
/// text).
pub(crate) fn find_blocks_outside(text: &str, extra: Extra, code: &[Range<usize>]) -> Vec<Think> {
    blocks_outside(text, extra, code).collect()
}

fn blocks_outside<'a>(
    text: &'a str,
    extra: Extra,
    code: &'a [Range<usize>],
) -> impl Iterator<Item = Think> + 'a {
    let markers = Markers::of(extra);
    // The first code region that may still hold a marker (markers come in order).
    let mut k = 0;
    let mut from = 0;
    let mut lead = None;
    if extra.harmony_stripped {
        // The reply starts in the analysis channel: `analysis…` up to the next stripped header.
        let start = text.len() - text.trim_start().len();
        if text[start..].starts_with("analysis") {
            let t = block(
                text,
                markers,
                &HARMONY_STRIPPED,
                0,
                start + "analysis".len(),
            );
            from = t.outer.end;
            lead = Some(t);
        }
    }
    // Whether no block came before (a closing tag then reads R1-style), and whether an unclosed
    // block ended the search.
    let mut first = lead.is_none();
    let mut done = false;
    let rest = std::iter::from_fn(move || {
        if done {
            return None;
        }
        while let Some(p) = markers.next(text, from) {
            while code.get(k).is_some_and(|r| r.end <= p) {
                k += 1;
            }
            if let Some(r) = code.get(k).filter(|r| r.start <= p) {
                from = r.end;
                continue;
            }
            // At one place the shortest opening tag wins, then the pair listed first; an opening
            // tag wins over a closing tag.
            let open = markers
                .pairs
                .iter()
                .enumerate()
                .filter_map(|(i, pair)| shortest_at(text, p, pair.opens).map(|len| (len, i)))
                .min();
            if let Some((len, i)) = open {
                if opener_in_sentence(text, p, i) {
                    from = p + 1;
                    continue;
                }
                let t = block(text, markers, markers.pairs[i], p, p + len);
                from = t.outer.end;
                done = !t.closed;
                first = false;
                return Some(t);
            }
            let close = markers
                .pairs
                .iter()
                .filter(|pair| pair.r1)
                .filter_map(|pair| shortest_at(text, p, pair.closes))
                .min();
            match close {
                // A closing tag first: R1-style at the start, otherwise a stray tag.
                Some(len) => {
                    let r1 = first
                        && extra.r1
                        && (!extra.r1_sentence
                            || ends_opened_reasoning(&text[..p], &text[p + len..]));
                    let start = if r1 { 0 } else { p };
                    from = p + len;
                    first = false;
                    return Some(Think {
                        outer: start..p + len,
                        inner: start..p,
                        closed: true,
                    });
                }
                None => from = p + 1,
            }
        }
        done = true;
        None
    });
    lead.into_iter().chain(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inners(text: &str) -> Vec<&str> {
        find_blocks(text, Extra::default())
            .into_iter()
            .map(|t| &text[t.inner])
            .collect()
    }

    /// The rule as it was first written, each marker searched on its own from every place: the
    /// one-pass reading must give the same blocks.
    fn each_marker_searched(text: &str, extra: Extra) -> Vec<Think> {
        let mut pairs: Vec<&Pair> = ALWAYS.iter().collect();
        if extra.granite {
            pairs.push(&GRANITE);
        }
        if extra.harmony_stripped {
            pairs.push(&HARMONY_STRIPPED);
        }
        let first = |ms: &[&str], from: usize| {
            ms.iter()
                .filter_map(|m| text[from..].find(m).map(|i| (from + i, m.len())))
                .min()
        };
        let block = |pair: &Pair, o: usize, body: usize| match (
            first(pair.closes, body),
            first(pair.ends, body),
        ) {
            (Some((c, l)), e) if e.is_none_or(|(e, _)| c <= e) => Think {
                outer: o..c + l,
                inner: body..c,
                closed: true,
            },
            (_, Some((e, _))) => Think {
                outer: o..e,
                inner: body..e,
                closed: true,
            },
            (_, None) => Think {
                outer: o..text.len(),
                inner: body..text.len(),
                closed: false,
            },
        };
        let mut out = Vec::new();
        let mut at = 0;
        let lead = text.len() - text.trim_start().len();
        if extra.harmony_stripped && text[lead..].starts_with("analysis") {
            let t = block(&HARMONY_STRIPPED, 0, lead + "analysis".len());
            at = t.outer.end;
            out.push(t);
        }
        while at < text.len() {
            let open = pairs
                .iter()
                .enumerate()
                .filter_map(|(i, p)| first(p.opens, at).map(|(o, l)| (o, l, i)))
                .min();
            let close = pairs
                .iter()
                .filter(|p| p.r1)
                .filter_map(|p| first(p.closes, at))
                .min();
            match (open, close) {
                (o, Some((c, len))) if o.is_none_or(|(o, _, _)| c < o) => {
                    let r1 = out.is_empty()
                        && extra.r1
                        && (!extra.r1_sentence
                            || ends_opened_reasoning(&text[..c], &text[c + len..]));
                    let start = if r1 { 0 } else { c };
                    out.push(Think {
                        outer: start..c + len,
                        inner: start..c,
                        closed: true,
                    });
                    at = c + len;
                }
                (Some((o, _, i)), _) if opener_in_sentence(text, o, i) => at = o + 1,
                (Some((o, len, i)), _) => {
                    let t = block(pairs[i], o, o + len);
                    at = t.outer.end;
                    let closed = t.closed;
                    out.push(t);
                    if !closed {
                        break;
                    }
                }
                _ => break,
            }
        }
        out
    }

    #[test]
    fn one_pass_finds_the_blocks_each_marker_searched_found() {
        let parts = [
            "<think>",
            "</think>",
            "<|channel>",
            "thought",
            "<channel|>",
            "<|channel|>analysis<|message|>",
            "<|end|>",
            "◁/think▷",
            "Here's my thought process:",
            "Here is my response:",
            "analysis",
            "assistantfinal",
        ];
        // No prose form and both (the two automata), each without and with the R1 reading.
        for k in [0, 4, 3, 7] {
            let extra = Extra {
                granite: k & 1 != 0,
                harmony_stripped: k & 2 != 0,
                r1: k & 4 != 0,
                r1_sentence: k & 4 != 0,
            };
            for t in crate::scrub::sequences_of_four(&parts) {
                assert_eq!(
                    find_blocks(&t, extra),
                    each_marker_searched(&t, extra),
                    "{t:?} {extra:?}"
                );
            }
        }
    }

    #[test]
    fn gemma_channel_index_names_the_channel_pair() {
        assert_eq!(pair_of(super::super::gemma_channel::OPEN), GEMMA_CHANNEL);
        assert_eq!(pair_of(super::super::kimi_think::OPEN), KIMI);
    }

    #[test]
    fn gemma_channel_named_in_a_sentence_opens_nothing() {
        let t = "不同的标记：<|channel>thought 开头，<channel|> 结尾。\n<|channel>thought\n想<channel|>答";
        assert_eq!(inners(t), ["thought\n想"]);
    }

    #[test]
    fn paired_blocks() {
        assert_eq!(inners("<think>a</think>b<think>c</think>d"), ["a", "c"]);
        assert!(find_blocks("no tags", Extra::default()).is_empty());
    }

    #[test]
    fn closing_only_is_r1_style() {
        let t = "I should call.\n</think>\n\nAnswer";
        let r1 = Extra {
            r1: true,
            ..Extra::default()
        };
        let b = find_blocks(t, r1);
        assert_eq!(b.len(), 1);
        assert_eq!(&t[b[0].inner.clone()], "I should call.\n");
        assert_eq!(&t[b[0].outer.end..], "\n\nAnswer");
    }

    #[test]
    fn stray_close_after_a_block_is_an_empty_block() {
        let t = "<think>a</think>x</think>y";
        assert_eq!(inners(t), ["a", ""]);
    }

    #[test]
    fn unclosed_open_runs_to_end() {
        let b = find_blocks("hi <think>still going", Extra::default());
        assert_eq!(b.len(), 1);
        assert!(!b[0].closed);
        assert_eq!(b[0].outer.end, "hi <think>still going".len());
    }

    #[test]
    fn other_special_token_markers() {
        assert_eq!(
            inners("[THINK]a[/THINK]b\n◁think▷c◁/think▷d<|START_THINKING|>e<|END_THINKING|>f<seed:think>g</seed:think>"),
            ["a", "c", "e", "g"]
        );
        let seed = "only seed\n</seed:think>rest";
        let b = find_blocks(
            seed,
            Extra {
                r1: true,
                ..Extra::default()
            },
        );
        assert_eq!(&seed[b[0].inner.clone()], "only seed\n");
        // Without the hint a lone closing tag is a stray tag: an empty block, the text stays.
        assert_eq!(inners(seed), [""]);
    }

    #[test]
    fn harmony_analysis_ends_at_end_or_next_message() {
        let t = "<|channel|>analysis<|message|>one<|end|>x<|channel|>analysis<|message|>two<|start|>assistant";
        assert_eq!(inners(t), ["one", "two"]);
        let b = find_blocks(t, Extra::default());
        assert_eq!(&t[b[1].outer.end..], "<|start|>assistant");
        assert!(find_blocks("a<|end|>b", Extra::default()).is_empty());
    }

    #[test]
    fn prose_forms_only_when_asked() {
        let g = "Here's my thought process:\nhmm\nHere is my response:\nHi";
        assert!(find_blocks(g, Extra::default()).is_empty());
        let on = Extra {
            granite: true,
            ..Extra::default()
        };
        let b = find_blocks(g, on);
        assert_eq!(&g[b[0].inner.clone()], "\nhmm\n");
        assert_eq!(&g[b[0].outer.end..], "\nHi");
        let h = "  analysisplan itassistantcommentary to=functions.f json{}assistantanalysismoreassistantfinalok";
        let on = Extra {
            harmony_stripped: true,
            ..Extra::default()
        };
        let inner: Vec<_> = find_blocks(h, on)
            .into_iter()
            .map(|t| &h[t.inner])
            .collect();
        assert_eq!(inner, ["plan it", "more"]);
        assert!(find_blocks(h, Extra::default()).is_empty());
    }
}
