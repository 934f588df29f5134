//! Reasoning blocks, split off before any tool-call parsing so that a call written inside
//! reasoning (a documented example, reference §0.5) is never taken for a real call.
//!
//! Markers (reference §22): `<think>…</think>` (DeepSeek-R1, Qwen3, GLM, MiniMax-M2, Step-3, ERNIE,
//! Kimi-K2 thinking, Hunyuan, Nemotron), `<mm:think>…</mm:think>` (MiniMax-M3),
//! `<|inner_prefix|>…<|inner_suffix|>` (Apertus), `<seed:think>…</seed:think>` (Seed-OSS; its
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

use super::scan::Finder;

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

/// One reasoning block: `outer` covers the tags, `inner` the reasoning text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Think {
    pub outer: Range<usize>,
    pub inner: Range<usize>,
    /// False when the block runs to the end of the reply without its closing tag.
    pub closed: bool,
}

/// The earliest hit among `markers` (with their finders) at or after `from`: `(position, length)`.
fn earliest(
    text: &str,
    finders: &mut [Finder<'static>],
    markers: &[&'static str],
    from: usize,
) -> Option<(usize, usize)> {
    finders
        .iter_mut()
        .zip(markers)
        .filter_map(|(f, m)| f.find(text, from).map(|i| (i, m.len())))
        .min()
}

struct Active {
    pair: &'static Pair,
    opens: Vec<Finder<'static>>,
    closes: Vec<Finder<'static>>,
    ends: Vec<Finder<'static>>,
}

fn has(text: &str, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

/// The reasoning blocks of `text`, in order, not overlapping.
pub fn find_blocks(text: &str, extra: Extra) -> Vec<Think> {
    let mut out = Vec::new();
    // Every always-on marker holds `hink`, `HINK`, `<|channel|>analysis` or `<|inner_`: four
    // passes decide for most replies instead of one per marker.
    if !extra.granite
        && !extra.harmony_stripped
        && !has(text, "hink")
        && !has(text, "HINK")
        && !has(text, "<|channel|>analysis")
        && !has(text, "<|inner_")
    {
        return out;
    }
    let mut pairs: Vec<&'static Pair> = ALWAYS.iter().collect();
    if extra.granite {
        pairs.push(&GRANITE);
    }
    let mut at = 0;
    if extra.harmony_stripped {
        pairs.push(&HARMONY_STRIPPED);
        // The reply starts in the analysis channel: `analysis…` up to the next stripped header.
        let lead = text.len() - text.trim_start().len();
        if text[lead..].starts_with("analysis") {
            let body = lead + "analysis".len();
            let mut ends: Vec<Finder<'static>> = HARMONY_STRIPPED_ENDS
                .iter()
                .map(|m| Finder::new(m))
                .collect();
            let end = earliest(text, &mut ends, HARMONY_STRIPPED_ENDS, body);
            let stop = end.map_or(text.len(), |(e, _)| e);
            out.push(Think {
                outer: 0..stop,
                inner: body..stop,
                closed: end.is_some(),
            });
            at = stop;
        }
    }
    let mut active: Vec<Active> = pairs
        .into_iter()
        .map(|pair| Active {
            pair,
            opens: pair.opens.iter().map(|m| Finder::new(m)).collect(),
            closes: pair.closes.iter().map(|m| Finder::new(m)).collect(),
            ends: pair.ends.iter().map(|m| Finder::new(m)).collect(),
        })
        .collect();
    while at < text.len() {
        let open = active
            .iter_mut()
            .enumerate()
            .filter_map(|(i, a)| {
                earliest(text, &mut a.opens, a.pair.opens, at).map(|(p, l)| (p, l, i))
            })
            .min();
        let close = active
            .iter_mut()
            .filter(|a| a.pair.r1)
            .filter_map(|a| earliest(text, &mut a.closes, a.pair.closes, at))
            .min();
        match (open, close) {
            (None, None) => break,
            // A closing tag first: R1-style at the start, otherwise a stray tag.
            (o, Some((c, len))) if o.is_none_or(|(o, _, _)| c < o) => {
                let start = if out.is_empty() && extra.r1 { 0 } else { c };
                out.push(Think {
                    outer: start..c + len,
                    inner: start..c,
                    closed: true,
                });
                at = c + len;
            }
            (Some((o, len, i)), _) => {
                let body = o + len;
                let a = &mut active[i];
                let close = earliest(text, &mut a.closes, a.pair.closes, body);
                let end = earliest(text, &mut a.ends, a.pair.ends, body);
                let block = match (close, end) {
                    (Some((c, clen)), e) if e.is_none_or(|(e, _)| c <= e) => Think {
                        outer: o..c + clen,
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
                at = block.outer.end.max(body);
                let unclosed = !block.closed;
                out.push(block);
                if unclosed {
                    break;
                }
            }
            // Unreachable by the guard above, kept total for safety.
            (None, Some(_)) => break,
        }
    }
    out
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
            inners("[THINK]a[/THINK]b◁think▷c◁/think▷d<|START_THINKING|>e<|END_THINKING|>f<seed:think>g</seed:think>"),
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
