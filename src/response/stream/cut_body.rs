//! A reply cut by `max_tokens` right after a call's opener, with the first bytes of the call's
//! body (`<tool_call>\n<fun`, `[TOOL_CALLS]get_`, `<invoke name="re`, `<function=sec`) or more
//! of it (`<invoke name="read">\n<parameter name="path">/etc/ap`): no closer will come and no
//! parser reads a call from it, so its markup stayed in front of the user. What follows an
//! opener tells a call from prose that names the tag: a real body starts the family's way
//! (Qwen3-Coder's `<function=`, Hermes' `{"`, GLM's name then `<arg_key>`), and prose does not
//! (`<tool_call> is the tag`, `用 <tool_call> 包住`).
//!
//! [`BODIES`] says, per family and opener, how a body starts ([`Step`]s). When the finished
//! reply ends inside that start, or goes past it with none of the call's closers after it, the
//! text from the opener on is a cut call: removed from `content` and reported (`truncated`, raw
//! text kept). Never for an opener alone (the lone-opener rule of [`crate::response::orphan`]
//! decides that; an opener whose syntax wants a value, `<function=`, only where markup stands),
//! nor for a bare word after a tag prose names too (`这里漏出了<tool_call>标签`: a name cut is
//! read only after an opener that is a special token or has its own syntax). A wrapper
//! (`<function_calls>`) around a cut call loses its opener only; the call in it is read on its
//! own (it may be whole, cut inside its closer: [`super::cut_closer`]). In code it is never
//! asked (code is text).
//!
//! Cost: asked once per opener still undecided when the reply ends (and once per block that
//! runs to the end); a head is read within [`WINDOW`] bytes, and the closers after it are
//! searched with the machine's remembered searches: linear in the reply.

use super::{closers, WINDOW};
use crate::response::scan::{floor, name_char};
use crate::response::{
    functionary, glm45, kimi_k2, kimi_k3, minimax_m2, mistral, named_tool_call, nemotron_v2,
    qwen3_coder, tool_json, xml_invoke, Family,
};

/// One step of a body's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Whitespace, possibly none.
    Ws,
    /// These bytes exactly.
    Lit(&'static str),
    /// A tool's name: one or more characters a name holds ([`name_char`]).
    Name,
}

/// How a family's call body starts after one of its openers; `strong`: the opener is a special
/// token or carries its own syntax (`<function=`, `<invoke name=`), so a name cut right after it
/// is a call too. A wrapper's body (`head` empty) is a call of its own after spaces: when that
/// call is cut, the wrapper's opener is markup and is removed alone, the call read on its own
/// (it may be whole, cut only inside its closer).
#[derive(Debug)]
pub(super) struct Body {
    pub(super) family: Family,
    pub(super) opener: &'static str,
    pub(super) strong: bool,
    pub(super) head: &'static [Step],
}

/// What [`cut_call`] found: the bytes to remove from the opener on, and whether that is the
/// whole rest of the reply (a wrapper's opener alone otherwise). `past`: the text goes past the
/// head, so the reply ends inside the call only if none of [`Cut::closers`] comes after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    pub(super) family: Family,
    pub(super) opener: &'static str,
    /// The family of the call in a wrapper.
    pub(super) inner: Option<Family>,
    pub(super) len: usize,
    pub(super) whole: bool,
    pub(super) past: bool,
    /// Nothing but the opener (one whose syntax wants a value: `<function=`): a cut call only
    /// where markup stands, at a line's start or right after text or markup.
    pub(super) empty: bool,
}

impl Cut {
    /// The tags that would close the call (or its wrapper) had the reply not been cut.
    pub(super) fn closers(&self) -> impl Iterator<Item = &'static str> + '_ {
        let wrapper = tool_json::WRAPPERS
            .iter()
            .filter(|(open, _)| *open == self.opener)
            .map(|(_, close)| *close);
        (closers(self.family).iter().copied())
            .chain(
                self.inner
                    .into_iter()
                    .flat_map(|f| closers(f).iter().copied()),
            )
            .chain(wrapper)
    }
}

use Step::{Lit, Name, Ws};

/// A JSON object's first key: `{"`.
const OBJECT: &[Step] = &[Ws, Lit("{"), Ws, Lit("\"")];
/// A JSON array's first object: `[{"`.
const ARRAY: &[Step] = &[Ws, Lit("["), Ws, Lit("{"), Ws, Lit("\"")];
/// MiniMax's invoke after `<invoke name=`: `"NAME">` then its first parameter.
const INVOKE_REST: &[Step] = &[Lit("\""), Name, Lit("\">"), Ws, Lit(xml_invoke::PARAM_OPEN)];
/// The same with its opener.
const INVOKE: &[Step] = &[
    Ws,
    Lit("<invoke name="),
    Lit("\""),
    Name,
    Lit("\">"),
    Ws,
    Lit(xml_invoke::PARAM_OPEN),
];

/// Every family's body starts, by opener (see the module doc).
pub(super) const BODIES: &[Body] = &[
    Body {
        family: Family::Hermes,
        opener: "<tool_call>",
        strong: false,
        head: OBJECT,
    },
    Body {
        family: Family::Qwen3Coder,
        opener: "<tool_call>",
        strong: false,
        head: &[Ws, Lit(functionary::FUNCTION)],
    },
    Body {
        family: Family::Qwen3Coder,
        opener: "<tool_call>",
        strong: false,
        head: &[Ws, Lit("<parameter=")],
    },
    Body {
        family: Family::Qwen3Coder,
        opener: "<tool_call>",
        strong: false,
        head: &[Ws, Lit(qwen3_coder::NAME_TAG)],
    },
    Body {
        family: Family::Glm,
        opener: "<tool_call>",
        strong: false,
        head: &[Name, Ws, Lit(glm45::KEY)],
    },
    Body {
        family: Family::Glm,
        opener: "<tool_call>",
        strong: false,
        head: &[Name, Ws, Lit("</tool_call>")],
    },
    // A stray value closer, or the key's opener lost (`NAME</arg_key>`, vLLM PR 47190).
    Body {
        family: Family::Glm,
        opener: "<tool_call>",
        strong: false,
        head: &[Name, Ws, Lit(glm45::VALUE_END)],
    },
    Body {
        family: Family::Glm,
        opener: "<tool_call>",
        strong: false,
        head: &[Name, Lit(glm45::KEY_END)],
    },
    // GLM-5.3's JSON form: `NAME>{…}`.
    Body {
        family: Family::Glm,
        opener: "<tool_call>",
        strong: false,
        head: &[Name, Lit(">"), Ws, Lit("{")],
    },
    Body {
        family: Family::MinimaxM3,
        opener: "<tool_call>",
        strong: false,
        head: INVOKE,
    },
    Body {
        family: Family::SeedOss,
        opener: "<seed:tool_call>",
        strong: true,
        head: &[Ws, Lit(functionary::FUNCTION)],
    },
    // Seed 2.0's attribute body (`<function name="exec">`, [`crate::response::seed_oss`]).
    Body {
        family: Family::SeedOss,
        opener: "<seed:tool_call>",
        strong: true,
        head: &[Ws, Lit("<function name=")],
    },
    Body {
        family: Family::Qwen3Coder,
        opener: functionary::FUNCTION,
        strong: true,
        head: &[Name, Lit(">"), Ws, Lit("<parameter=")],
    },
    // A stray quote before the `>` ([`qwen3_coder`]'s garbled `<function=NAME">`).
    Body {
        family: Family::Qwen3Coder,
        opener: functionary::FUNCTION,
        strong: true,
        head: &[Name, Lit("\">"), Ws, Lit("<parameter=")],
    },
    Body {
        family: Family::FunctionaryV31,
        opener: functionary::FUNCTION,
        strong: true,
        head: &[Name, Lit(">"), Ws, Lit("{")],
    },
    Body {
        family: Family::MinimaxM2,
        opener: "<invoke name=",
        strong: true,
        head: INVOKE_REST,
    },
    Body {
        family: Family::MinimaxM2,
        opener: "<invoke name=",
        strong: true,
        head: &[Lit("\""), Name, Lit("\">"), Ws, Lit("</invoke>")],
    },
    Body {
        family: Family::MinimaxM2,
        opener: minimax_m2::SECTION.0,
        strong: true,
        head: INVOKE,
    },
    Body {
        family: Family::MinimaxM2,
        opener: "<function_calls>",
        strong: false,
        head: &[],
    },
    Body {
        family: Family::MinimaxM2,
        opener: "<function_calls>",
        strong: false,
        head: INVOKE,
    },
    Body {
        family: Family::MinimaxM1,
        opener: named_tool_call::WRAP_OPEN,
        strong: false,
        head: OBJECT,
    },
    Body {
        family: Family::HunyuanA13b,
        opener: named_tool_call::WRAP_OPEN,
        strong: false,
        head: ARRAY,
    },
    Body {
        family: Family::NamedToolCall,
        opener: named_tool_call::WRAP_OPEN,
        strong: false,
        head: &[],
    },
    Body {
        family: Family::NamedToolCall,
        opener: named_tool_call::WRAP_OPEN,
        strong: false,
        head: &[Ws, Lit(named_tool_call::OPEN), Lit("\""), Name],
    },
    Body {
        family: Family::NamedToolCall,
        opener: named_tool_call::OPEN,
        strong: true,
        head: &[Lit("\""), Name, Lit("\">"), Ws, Lit("{")],
    },
    Body {
        family: Family::NemotronV2,
        opener: nemotron_v2::OPEN,
        strong: false,
        head: ARRAY,
    },
    Body {
        family: Family::Mistral,
        opener: mistral::TOKEN,
        strong: true,
        head: ARRAY,
    },
    Body {
        family: Family::Mistral,
        opener: mistral::TOKEN,
        strong: true,
        head: &[Name, Lit(mistral::ARGS_TOKEN), Ws, Lit("{")],
    },
    Body {
        family: Family::Mistral,
        opener: mistral::TOKEN,
        strong: true,
        head: &[
            Name,
            Lit(mistral::CALL_ID_TOKEN),
            Name,
            Lit(mistral::ARGS_TOKEN),
            Ws,
            Lit("{"),
        ],
    },
    Body {
        family: Family::KimiK2,
        opener: "<|tool_call_begin|>",
        strong: true,
        head: &[Ws, Name, Ws, Lit(kimi_k2::ARG_BEGIN)],
    },
    Body {
        family: Family::KimiK3,
        opener: kimi_k3::CALL_OPEN,
        strong: true,
        head: &[Lit("tool=\""), Name, Lit("\"")],
    },
    Body {
        family: Family::Longcat,
        opener: "<longcat_tool_call>",
        strong: false,
        head: &[Name, Ws, Lit("<longcat_arg_key>")],
    },
    Body {
        family: Family::Internlm2,
        opener: "<|action_start|>",
        strong: true,
        head: &[Ws, Lit("<|plugin|>")],
    },
];

/// A named element whose body is a JSON string, not an object (internetsb/Maizone#36's form):
/// inside `<tool_calls>` after a call read, such an element is removed whole and reported
/// ([`named_tool_call`]), so cut it goes the same way; asked only there ([`cut_after_call`]).
const STRING_BODY: &[Body] = &[Body {
    family: Family::NamedToolCall,
    opener: named_tool_call::OPEN,
    strong: true,
    head: &[Lit("\""), Name, Lit("\">"), Ws, Lit("\"")],
}];

/// How far a reply's end reaches into a head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// The text does not start that way.
    No,
    /// The text ends inside the head; `lit`: it reached into one of its literals.
    Inside { lit: bool },
    /// The whole head, then more.
    Past,
}

/// How far `text` (what follows an opener, to the end of the reply) goes into `head`.
pub(super) fn reach(head: &[Step], text: &str) -> Reach {
    let mut at = 0;
    let mut lit = false;
    for step in head {
        let rest = &text[at..];
        match *step {
            Step::Ws => at += rest.len() - rest.trim_start().len(),
            Step::Lit(s) => {
                if rest.len() < s.len() {
                    return if s.starts_with(rest) && !rest.is_empty() {
                        Reach::Inside { lit: true }
                    } else if rest.is_empty() {
                        Reach::Inside { lit }
                    } else {
                        Reach::No
                    };
                }
                if !rest.starts_with(s) {
                    return Reach::No;
                }
                lit = true;
                at += s.len();
            }
            Step::Name => {
                let n = rest
                    .char_indices()
                    .find(|&(_, c)| !name_char(c))
                    .map_or(rest.len(), |(i, _)| i);
                if n == rest.len() {
                    return Reach::Inside { lit };
                }
                if n == 0 {
                    return Reach::No;
                }
                at += n;
            }
        }
    }
    Reach::Past
}

/// The call cut at the reply's end that `text` (from an opener to the end of the reply) is (see
/// the module doc); `None`: not a cut call. Reads at most [`WINDOW`] bytes, twice for a wrapper.
pub(super) fn cut_call(text: &str) -> Option<Cut> {
    find(text, true, BODIES)
}

/// [`cut_call`] for the bodies that are a call's only inside a wrapper after a call read
/// ([`STRING_BODY`]).
pub(super) fn cut_after_call(text: &str) -> Option<Cut> {
    find(text, false, STRING_BODY)
}

/// [`cut_call`] over `bodies`, with wrappers or not (the call in a wrapper is not one).
fn find(text: &str, wrappers: bool, bodies: &[Body]) -> Option<Cut> {
    let short = text.len() <= WINDOW;
    let window = &text[..floor(text, WINDOW)];
    bodies.iter().find_map(|b| {
        let body = window.strip_prefix(b.opener)?;
        let solid = body.trim_start();
        // An opener alone is the lone-opener rule's, except where its syntax wants a value.
        if solid.is_empty() && !(short && b.strong && b.opener.ends_with('=')) {
            return None;
        }
        let whole = Cut {
            family: b.family,
            opener: b.opener,
            inner: None,
            len: text.len(),
            whole: true,
            past: false,
            empty: solid.is_empty(),
        };
        if b.head.is_empty() {
            let inner = &text[b.opener.len() + body.len() - solid.len()..];
            let call = find(inner, false, bodies).filter(|_| wrappers)?;
            return Some(Cut {
                inner: Some(call.family),
                len: b.opener.len(),
                whole: false,
                past: call.past,
                ..whole
            });
        }
        match reach(b.head, body) {
            Reach::No => None,
            Reach::Inside { lit } => (short && (lit || b.strong)).then_some(whole),
            Reach::Past => Some(Cut {
                past: true,
                ..whole
            }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_ending_inside_a_body_start_is_a_cut_call() {
        for (text, want) in [
            ("<tool_call>\n<fun", Some(Family::Qwen3Coder)),
            ("<tool_call>\n{\"na", Some(Family::Hermes)),
            ("<tool_call>search<", Some(Family::Glm)),
            ("<tool_call>查询天气\n<ar", Some(Family::Glm)),
            ("<invoke name=\"re", Some(Family::MinimaxM2)),
            ("[TOOL_CALLS]get_", Some(Family::Mistral)),
            ("<function=sec", Some(Family::Qwen3Coder)),
            (
                "<invoke name=\"read\">\n<parameter name=\"path\">/文档/很长的值",
                Some(Family::MinimaxM2),
            ),
            // An opener alone, a bare word after a tag prose names, prose after it.
            ("<tool_call>\n", None),
            ("<tool_call>标签", None),
            ("<tool_call> is the tag Qwen uses", None),
            ("<tool_call> 标签包住调用", None),
            ("<invoke name=\"工具名\"> 包住参数", None),
            ("<function=名称> 开头", None),
        ] {
            assert_eq!(cut_call(text).map(|c| c.family), want, "{text}");
        }
        // A wrapper around a cut call: its opener alone.
        let text = "<function_calls>\n<invoke name=\"get_group_members_info\">\n\n</i";
        let cut = cut_call(text).map(|c| (c.len, c.whole));
        assert_eq!(cut, Some(("<function_calls>".len(), false)));
        // Past the window, only a head read whole counts.
        let long = format!("<function={}", "a".repeat(WINDOW));
        assert!(cut_call(&long).is_none());
    }
}
