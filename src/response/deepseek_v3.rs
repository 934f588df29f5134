//! DeepSeek V3 / V3-0324 / R1-0528 calls (reference §7, `deepseek_v3`), and the outer tokens
//! the whole DeepSeek family shares (U+FF5C `｜` and U+2581 `▁`, easy to get wrong):
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//! ```json
//! {"k": "v"}
//! ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//! ```
//!
//! Each call body is read as V3 (type, name line, JSON fence) or else as V3.1
//! ([`super::deepseek_v31`]); the format reported is that of the first call. Unlike vLLM,
//! pretty-printed multi-line arguments are accepted (as SGLang and smg do). A leaked
//! `<｜end▁of▁sentence｜>` (or a `<｜tool▁calls▁end｜>` left alone) is removed. Missing end
//! tokens (truncated reply) run to the end and are reported; invalid JSON arguments are kept as
//! written and reported. A V3 call whose begin tokens the server stripped
//! (`function<｜tool▁sep｜>NAME` then the fence and `<｜tool▁call▁end｜>`, as an AstrBot user saw
//! it in QQ, astrbot_plugin_stealer#8) is read as a call of its own.

use super::scan::{is_name, split_once};
use super::tokens::{Dialect, Next, Tokens};
use super::{deepseek_v31, normalize_json_args, Block, Ctx, Parsed, RawCall};

pub const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
pub const CALLS_END: &str = "<｜tool▁calls▁end｜>";
pub const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
pub const CALL_END: &str = "<｜tool▁call▁end｜>";
pub const SEP: &str = "<｜tool▁sep｜>";
pub const EOS: &str = "<｜end▁of▁sentence｜>";
/// The call type V3 writes before [`SEP`]; with the begin tokens stripped it opens the call.
pub const STRIPPED_TYPE: &str = "function";
/// [`STRIPPED_TYPE`] then [`SEP`]: the opener of a call whose begin tokens were stripped, whole
/// (a stream holds a reply's last bytes while they may begin it).
pub const STRIPPED_OPEN: &str = "function<｜tool▁sep｜>";

/// DeepSeek's tokens as [`Tokens`] reads them: the kinds are the indexes below.
const TOKENS: Dialect = Dialect {
    open: "<｜",
    close: "｜>",
    names: &[
        "tool▁calls▁begin",
        "tool▁calls▁end",
        "tool▁call▁begin",
        "tool▁call▁end",
        "tool▁sep",
        "end▁of▁sentence",
    ],
};
/// Kind masks of [`TOKENS`].
const K_CALLS_BEGIN: u32 = 1;
const K_CALLS_END: u32 = 1 << 1;
const K_CALL_BEGIN: u32 = 1 << 2;
const K_CALL_END: u32 = 1 << 3;
const K_SEP: u32 = 1 << 4;
const K_EOS: u32 = 1 << 5;

pub fn parse(text: &str, _cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    let tokens = Tokens::scan(text, &TOKENS);
    match one_section(text, &tokens, &mut out) {
        // One block, as the section read alone (a call-dense reply's blocks) is: no room for
        // four, grown into on the first push.
        Some(block) => out.blocks = vec![block],
        None => read_blocks(text, &tokens, &mut out),
    }
    out
}

/// Every block of `text` ([`parse`]'s general way, whatever its tokens).
fn read_blocks(text: &str, tokens: &Tokens, out: &mut Parsed) {
    let mut sections = Next::new(K_CALLS_BEGIN);
    let mut lones = Next::new(K_CALL_BEGIN);
    let mut eoss = Next::new(K_EOS);
    let mut section_ends = Next::new(K_CALLS_END);
    let mut call_ends = Next::new(K_CALL_END);
    let mut seps = Next::new(K_SEP);
    let t = tokens;
    let pos = |hit: Option<(usize, u32)>| hit.map(|(p, _)| p);
    // The last stripped call found: searched again only once `at` passes it (linear).
    let mut stripped_memo: Option<Option<usize>> = None;
    let mut at = 0;
    loop {
        let section = pos(sections.find(t, at));
        let lone = pos(lones.find(t, at));
        let eos = pos(eoss.find(t, at));
        let stripped = match stripped_memo {
            Some(hit) if hit.is_none_or(|h| h >= at) => hit,
            _ => {
                let hit = stripped_call(text, t, &mut seps, at);
                stripped_memo = Some(hit);
                hit
            }
        };
        // A section end left alone (its calls' begin tokens stripped) goes like the EOS token.
        let stray_end = pos(section_ends.find(t, at));
        let next = [section, lone, eos, stripped, stray_end]
            .into_iter()
            .flatten()
            .min();
        let Some(start) = next else { break };
        if Some(start) == eos || Some(start) == stray_end {
            let end = start
                + if Some(start) == eos {
                    EOS.len()
                } else {
                    CALLS_END.len()
                };
            out.blocks.push(Block {
                start,
                end,
                calls: Vec::new(),
                keep_raw: false,
            });
            at = end;
            continue;
        }
        let (body_at, body_end, end) = if Some(start) == section {
            let body_at = start + CALLS_BEGIN.len();
            match pos(section_ends.find(t, body_at)) {
                Some(c) => (body_at, c, c + CALLS_END.len()),
                None => {
                    out.problems
                        .push(format!("deepseek: {CALLS_END} missing (truncated reply)"));
                    (body_at, text.len(), text.len())
                }
            }
        } else {
            // A call whose section wrapper is missing: the call is its own block.
            match pos(call_ends.find(t, start)) {
                Some(c) => {
                    let mut end = c + CALL_END.len();
                    let rest = &text[end..];
                    if rest.trim_start().starts_with(CALLS_END) {
                        end += rest.len() - rest.trim_start().len() + CALLS_END.len();
                    }
                    (start, end, end)
                }
                None => (start, text.len(), text.len()),
            }
        };
        let calls = if Some(start) == stripped {
            stripped_calls(&text[start..body_end], out)
        } else {
            section_calls(text, t, (body_at, body_end), out)
        };
        let block = Block::of_calls(start, end, calls, &mut out.problems, no_call);
        out.blocks.push(block);
        at = end.max(start + 1);
    }
}

/// The problem of a block with no readable call.
fn no_call() -> String {
    "deepseek: tool-call section holds no readable call; raw text kept in content".into()
}

/// The block of a text whose tokens are one section and what it holds (its first token
/// `<｜tool▁calls▁begin｜>`, its last `<｜tool▁calls▁end｜>`, neither nor an end-of-sentence
/// token between them): the block [`parse`]'s loop reads from such a text, without its searches
/// for every other kind of start (what a call-dense reply's blocks are). Its section starts
/// first, so no other start comes before it; a stripped call's separator is inside it; and
/// nothing follows its end.
fn one_section(text: &str, tokens: &Tokens, out: &mut Parsed) -> Option<Block> {
    let (start, close) = tokens.wrapped(
        K_CALLS_BEGIN,
        K_CALLS_END,
        K_CALLS_BEGIN | K_CALLS_END | K_EOS,
    )?;
    let calls = section_calls(text, tokens, (start + CALLS_BEGIN.len(), close), out);
    let end = close + CALLS_END.len();
    Some(Block::of_calls(
        start,
        end,
        calls,
        &mut out.problems,
        no_call,
    ))
}

/// The start of the next `function<｜tool▁sep｜>` at or after `at` that no begin token opens.
fn stripped_call(text: &str, tokens: &Tokens, seps: &mut Next, at: usize) -> Option<usize> {
    let mut from = at;
    while let Some((s, _)) = seps.find(tokens, from) {
        if let Some(head) = text[..s].strip_suffix(STRIPPED_TYPE) {
            if head.len() >= at && !head.ends_with(CALL_BEGIN) {
                return Some(head.len());
            }
        }
        from = s + SEP.len();
    }
    None
}

/// The call of a stripped block (`function<｜tool▁sep｜>NAME…`, up to its end token).
fn stripped_calls(body: &str, out: &mut Parsed) -> Vec<RawCall> {
    let call_body = split_once(body, CALL_END).map_or(body, |(b, _)| b);
    let Some((name, raw_args)) = read_body(call_body) else {
        return Vec::new();
    };
    if out.format.is_none() {
        out.format = Some("deepseek_v3");
    }
    vec![RawCall {
        name: name.to_owned(),
        arguments: normalize_json_args(raw_args, "deepseek_v3", &mut out.problems),
        id: None,
    }]
}

/// Every call in the section body `text[lo..hi]` (`hi` is the end of the text, or the start or
/// the end of a token, so every token that starts inside the body ends inside it). The body's
/// tokens are walked once: a call is a begin token, the first end token after it (else the call
/// runs to `hi`: cut) and the first separator between them; the next call begins after its end.
fn section_calls(
    text: &str,
    tokens: &Tokens,
    (lo, hi): (usize, usize),
    out: &mut Parsed,
) -> Vec<RawCall> {
    // Most sections hold one call.
    let mut calls = Vec::with_capacity(1);
    let mut rest = tokens.between(lo, hi);
    let first = |toks: &[(usize, u32)], kind: u32| toks.iter().position(|&(_, k)| k & kind != 0);
    while let Some(b) = first(rest, K_CALL_BEGIN) {
        let call_at = rest[b].0 + CALL_BEGIN.len();
        let inside = &rest[b + 1..];
        let (call_end, body) = match first(inside, K_CALL_END) {
            Some(e) => {
                rest = &inside[e + 1..];
                (inside[e].0, &inside[..e])
            }
            None => {
                out.problems
                    .push(format!("deepseek: {CALL_END} missing (truncated reply)"));
                rest = &[];
                (hi, inside)
            }
        };
        // Both shapes split the body at its first separator.
        let parts = first(body, K_SEP).map(|s| {
            let s = body[s].0;
            (&text[call_at..s], &text[s + SEP.len()..call_end])
        });
        let (name, raw_args, format) = if let Some((n, a)) = parts.and_then(v3_parts) {
            (n, a, "deepseek_v3")
        } else if let Some((n, a)) = parts.and_then(deepseek_v31::parts) {
            (n, a, "deepseek_v31")
        } else {
            out.problems
                .push("deepseek: call without <｜tool▁sep｜> and a name skipped".into());
            continue;
        };
        if out.format.is_none() {
            out.format = Some(format);
        }
        let arguments = normalize_json_args(raw_args, format, &mut out.problems);
        calls.push(RawCall {
            name: name.to_owned(),
            arguments,
            id: None,
        });
    }
    calls
}

/// `(name, raw arguments)` of a V3 call body: `TYPE<｜tool▁sep｜>NAME\n```json\n…\n````.
pub fn read_body(body: &str) -> Option<(&str, &str)> {
    split_once(body, SEP).and_then(v3_parts)
}

/// [`read_body`] of a body split at its first separator.
fn v3_parts<'a>((_ty, rest): (&'a str, &'a str)) -> Option<(&'a str, &'a str)> {
    let (name, rest) = rest.split_once('\n')?;
    let name = name.trim();
    let args = rest.trim().strip_prefix("```json")?;
    let args = args.strip_suffix("```").unwrap_or(args);
    is_name(name).then_some((name, args.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_table_spells_the_tokens() {
        let spelled = TOKENS.spelled();
        assert_eq!(
            spelled,
            [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP, EOS]
        );
    }

    #[test]
    fn stripped_open_is_the_type_then_the_separator() {
        assert_eq!(STRIPPED_OPEN, format!("{STRIPPED_TYPE}{SEP}"));
    }

    #[test]
    fn v3_body_with_pretty_json() {
        let b = "function<｜tool▁sep｜>get_weather\n```json\n{\n  \"location\": \"Tokyo\"\n}\n```";
        assert_eq!(
            read_body(b),
            Some(("get_weather", "{\n  \"location\": \"Tokyo\"\n}"))
        );
    }

    #[test]
    fn calls_whose_begin_tokens_were_stripped() {
        let t = "function<｜tool▁sep｜>send_emoji\n```json\n{\"query\":\"害羞\"}\n```<｜tool▁call▁end｜>function<｜tool▁sep｜>ban\n```json\n{\"duration\":60}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>主人";
        let p = parse(t, &Ctx::default());
        let calls: Vec<_> = p.blocks.iter().flat_map(|b| b.calls.clone()).collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, r#"{"query":"害羞"}"#);
        assert_eq!(&t[p.blocks[1].end..], "主人");
        assert_eq!(p.format, Some("deepseek_v3"));
    }

    #[test]
    fn one_section_reads_as_the_general_loop() {
        // Texts that are one section (the shortcut) and texts that are not: both ways agree,
        // problems and format included. Names ending in `function` (a stripped call's head),
        // both call shapes, a call without separator, an empty section, a cut call, text around.
        let call = |name: &str, args: &str| format!("{CALL_BEGIN}{name}{SEP}{args}{CALL_END}");
        let v3 = format!(
            "{CALL_BEGIN}function{SEP}查询\n```json\n{{\"城市\": \"北京\"}}\n```{CALL_END}"
        );
        let bodies = [
            call("read_file", r#"{"path": "src/中.rs", "limit": 3}"#),
            call("get_function", "{}") + &call("b", r#"{"x": [1, 2]}"#),
            v3.clone() + "\n" + &call("c", "not json"),
            format!("{CALL_BEGIN}no separator{CALL_END}"),
            String::new(),
            format!("{CALL_BEGIN}cut{SEP}{{\"a\": 1"),
            format!("function{SEP}x\n```json\n{{}}\n```{CALL_END}"),
        ];
        for body in &bodies {
            for (before, after) in [("", ""), ("前言 ", ""), ("", " 后记"), ("", EOS)] {
                let t = format!("{before}{CALLS_BEGIN}{body}{CALLS_END}{after}");
                let tokens = Tokens::scan(&t, &TOKENS);
                let mut general = Parsed::default();
                read_blocks(&t, &tokens, &mut general);
                assert_eq!(parse(&t, &Ctx::default()), general, "{t}");
                let short = one_section(&t, &tokens, &mut Parsed::default()).is_some();
                assert_eq!(short, after != EOS, "{t}");
            }
        }
    }

    /// [`section_calls`] by a search per question (as it was written before it walked the body's
    /// tokens once): the reference the walk must agree with.
    fn searched_calls(
        text: &str,
        tokens: &Tokens,
        (lo, hi): (usize, usize),
        out: &mut Parsed,
    ) -> Vec<RawCall> {
        let mut calls = Vec::new();
        let (mut begins, mut ends, mut seps) = (
            Next::new(K_CALL_BEGIN),
            Next::new(K_CALL_END),
            Next::new(K_SEP),
        );
        let mut at = lo;
        while let Some(b) = begins.find_before(tokens, at, hi) {
            let call_at = b + CALL_BEGIN.len();
            let call_end = ends.find_before(tokens, call_at, hi).unwrap_or_else(|| {
                out.problems
                    .push(format!("deepseek: {CALL_END} missing (truncated reply)"));
                hi
            });
            at = (call_end + CALL_END.len()).min(hi).max(call_at);
            let parts = seps
                .find_before(tokens, call_at, call_end)
                .map(|s| (&text[call_at..s], &text[s + SEP.len()..call_end]));
            let (name, raw_args, format) = if let Some((n, a)) = parts.and_then(v3_parts) {
                (n, a, "deepseek_v3")
            } else if let Some((n, a)) = parts.and_then(deepseek_v31::parts) {
                (n, a, "deepseek_v31")
            } else {
                out.problems
                    .push("deepseek: call without <｜tool▁sep｜> and a name skipped".into());
                continue;
            };
            out.format.get_or_insert(format);
            let arguments = normalize_json_args(raw_args, format, &mut out.problems);
            calls.push(RawCall {
                name: name.to_owned(),
                arguments,
                id: None,
            });
        }
        calls
    }

    #[test]
    fn section_calls_walk_as_the_searches_did() {
        // Every sequence of up to five pieces (begin, end and separator tokens, a name, JSON,
        // Chinese text) as a section's body, cut or not: the same calls, problems and format.
        let pieces = [CALL_BEGIN, CALL_END, SEP, "f", "{\"a\":1}", "中"];
        let mut seqs: Vec<Vec<usize>> = vec![vec![]];
        let mut from = 0;
        for _ in 0..5 {
            let longest = seqs.len();
            for k in from..longest {
                for p in 0..pieces.len() {
                    let longer = [seqs[k].as_slice(), &[p]].concat();
                    seqs.push(longer);
                }
            }
            from = longest;
        }
        for seq in &seqs {
            let body: String = seq.iter().map(|&p| pieces[p]).collect();
            for end in [CALLS_END, ""] {
                let t = format!("{CALLS_BEGIN}{body}{end}");
                let tokens = Tokens::scan(&t, &TOKENS);
                let range = (CALLS_BEGIN.len(), t.len() - end.len());
                let (mut walked, mut searched) = (Parsed::default(), Parsed::default());
                let calls = section_calls(&t, &tokens, range, &mut walked);
                let want = searched_calls(&t, &tokens, range, &mut searched);
                assert_eq!((calls, walked), (want, searched), "{t}");
            }
        }
    }

    #[test]
    fn section_with_both_shapes_and_eos() {
        let t = "Hi<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n{\"x\": 1}\n```<｜tool▁call▁end｜>\n\
                 <｜tool▁call▁begin｜>b<｜tool▁sep｜>{\"y\": \"北京\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>";
        let p = parse(t, &Ctx::default());
        assert_eq!(p.format, Some("deepseek_v3"));
        let calls: Vec<_> = p.blocks.iter().flat_map(|b| b.calls.clone()).collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].arguments, r#"{"y":"北京"}"#);
        assert_eq!(p.blocks.len(), 2);
        assert_eq!(p.blocks[1].end, t.len());
    }
}
