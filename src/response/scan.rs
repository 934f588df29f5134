//! Format detection for `auto` mode and the small literal-search helpers every family shares.
//!
//! Detection must be cheap on a reply with no markers (the common case): [`may_hold_markers`] is
//! one `memchr2` pass for `<` and `[` (every special-token marker contains one of them; `◁think▷`
//! and Google's fence label `tool_code`, [`super::tool_code`], are checked with one more `memmem`
//! pass each), and [`detect`] then jumps from `<`/`[` to `<`/`[` and
//! compares marker literals only there. Only families whose markers are unambiguous are detected
//! without a hint; the first marker in the text wins. `<tool_call>` is shared by several grammars and
//! is told apart by what follows it (reference §4): `{` is Hermes, `<function=` is Qwen3-Coder, `[`
//! is Granite, a bare name is GLM. `<tool_calls>` is MiniMax-M1 when a `{` follows and the
//! Hunyuan/Jamba array form when a `[` follows.
//!
//! Bare-JSON and pythonic families (`llama3_json`, `pythonic`, `llama4_pythonic`, `xlam`, `olmo3`)
//! are never detected from the text alone; [`detect`] considers their markers only when the hint
//! (the format named by the caller, or the family named by `options.model`, see
//! [`super::Family::from_model`]) is that family.

pub(crate) mod depth;

use super::Family;
use depth::{Brackets, Depth};

pub const TOOL_CALL: &str = "<tool_call>";
pub const TOOL_CALL_END: &str = "</tool_call>";

/// Openers that name their family directly.
const OPENERS: &[(&str, Family)] = &[
    ("<minimax:tool_call>", Family::MinimaxM2),
    ("<|tool_calls_section_begin|>", Family::KimiK2),
    ("<|tool_call_section_begin|>", Family::KimiK2),
    ("<|tool_call_begin|>", Family::KimiK2),
    ("<|open|>tools<|sep|>", Family::KimiK3),
    ("<|open|>response<|sep|>", Family::KimiK3),
    ("<｜tool▁calls▁begin｜>", Family::DeepSeek),
    ("<｜tool▁call▁begin｜>", Family::DeepSeek),
    ("<｜tool▁sep｜>", Family::DeepSeek),
    ("<seed:tool_call>", Family::SeedOss),
    ("<｜DSML｜function_calls>", Family::DeepSeekV32),
    ("<｜DSML｜invoke", Family::DeepSeekV32),
    ("<｜tool_calls_begin｜>", Family::Step3),
    ("<｜tool_call_begin｜>", Family::Step3),
    ("<steptml:invoke", Family::Step3),
    ("<longcat_tool_call>", Family::Longcat),
    ("<|tool_call|>", Family::Granite),
    ("<|channel|>", Family::GptOss),
    ("<|start|>assistant", Family::GptOss),
    ("<|tool_call>", Family::Gemma4),
    (super::functiongemma::OPEN, Family::FunctionGemma),
    ("<|python_start|>", Family::Llama4Pythonic),
    ("<|tool_call_start|>", Family::Pythonic),
    ("<|START_ACTION|>", Family::CommandR),
    ("<|START_RESPONSE|>", Family::CommandR),
    ("<|tools_prefix|>", Family::Apertus),
    ("<｜GCML｜tool_calls>", Family::Gigachat3),
    ("<|FunctionCallBegin|>", Family::Doubao),
    // MiniMax-M3's `]<]minimax[>[<tool_call>`, from its first `<`.
    ("<]minimax[>[<tool_call>", Family::MinimaxM3),
];

/// Openers of the families that are detected only when hinted.
const HINTED_OPENERS: &[(&str, Family)] = &[
    ("<|python_tag|>", Family::Llama3Json),
    ("<function_calls>", Family::Olmo3),
];

/// Cheap prefilter: false when `text` cannot hold any special-token marker of any family (nor
/// end in a Qwen3-Coder head that lost its `<`, [`super::units_scan::ends_in_gt`]).
pub fn may_hold_markers(text: &str) -> bool {
    memchr::memchr2(b'<', b'[', text.as_bytes()).is_some()
        || text.contains(MARKER_CHAR)
        || memchr::memmem::find(text.as_bytes(), super::tool_code::LABEL.as_bytes()).is_some()
        || super::units_scan::ends_in_gt(text.as_bytes())
}

/// The same test on UTF-16 units (the addon runs it before transcoding a JS string).
pub fn units_may_hold_markers(units: &[u16]) -> bool {
    units_scan(units, false).0
}

pub use super::units_scan::units_scan;

/// The one marker start that is not `<` or `[`: Kimi's `◁think▷`.
pub(super) const MARKER_CHAR: char = '◁';

/// The family of the first tool-call marker in `text`, if any. Unambiguous markers are always
/// recognised; the markers of `hint`'s family are recognised too (Qwen3-Coder's unwrapped
/// `<function=NAME>`, `<|python_tag|>`, `<|python_start|>`, …), and a detected family whose
/// grammar `hint`'s family shares is reported as `hint` (`<tool_call>{` is ERNIE-4.5 when the model
/// is ERNIE).
pub fn detect(text: &str, hint: Option<Family>) -> Option<Family> {
    Some(refine(detect_marker(text, hint)?, hint))
}

/// A detected family, reported as `hint`'s family when that shares its grammar.
pub fn refine(found: Family, hint: Option<Family>) -> Family {
    match (found, hint) {
        (Family::Hermes, Some(h @ (Family::Ernie45 | Family::Granite))) => h,
        (Family::Granite | Family::Mistral, Some(Family::Xlam)) => Family::Xlam,
        (Family::HunyuanA13b, Some(Family::Jamba)) => Family::Jamba,
        (f, _) => f,
    }
}

fn detect_marker(text: &str, hint: Option<Family>) -> Option<Family> {
    let mut kimi_args = Finder::new("<|tool_call_argument_begin|>");
    let mut function_end = Finder::new("</function>");
    let mut invoke_end = Finder::new("</invoke>");
    let mut toolcall_end = Finder::new("</TOOLCALL>");
    let mut bracket_ends = (
        Finder::new("[/TOOL_CALL]"),
        Finder::new("[END_TOOL_REQUEST]"),
    );
    let bytes = text.as_bytes();
    for at in memchr::memchr2_iter(b'<', b'[', bytes) {
        let rest = &text[at..];
        if bytes[at] == b'[' {
            if bracket_call(text, at, &mut bracket_ends) {
                return Some(Family::BracketCalls);
            }
            if let Some(after) = rest.strip_prefix("[TOOL_CALLS]") {
                if super::mistral::looks_like_calls(after) {
                    return Some(Family::Mistral);
                }
            }
            if text[..at].ends_with("functools") && rest[1..].trim_start().starts_with('{') {
                return Some(Family::Phi4Mini);
            }
            continue;
        }
        // Every `<` marker continues with one of these bytes; HTML and comparisons mostly do not.
        if !matches!(
            bytes.get(at + 1),
            Some(b'|' | 0xEF | b'm' | b's' | b'l' | b't' | b'f' | b'i' | b']' | b'T')
        ) {
            continue;
        }
        if let Some(&(_, f)) = OPENERS.iter().find(|(m, _)| rest.starts_with(m)) {
            // A lone `<|tool_call_begin|>` counts only with its argument marker after it.
            if !rest.starts_with("<|tool_call_begin|>") || kimi_args.find(text, at).is_some() {
                return Some(f);
            }
        }
        if let Some(&(_, f)) = HINTED_OPENERS
            .iter()
            .find(|(m, f)| Some(*f) == hint && rest.starts_with(m))
        {
            return Some(f);
        }
        if let Some(body) = rest.strip_prefix(TOOL_CALL) {
            if let Some(f) = classify_tool_call(body, None) {
                return Some(f);
            }
        }
        if let Some(after) = rest
            .strip_prefix(super::named_tool_call::OPEN)
            .or_else(|| rest.strip_prefix(super::named_tool_call::WRAP_OPEN))
        {
            if super::named_tool_call::head(after, true) == Some(true) {
                return Some(Family::NamedToolCall);
            }
        }
        if let Some(after) = rest.strip_prefix(super::attr_tool_call::OPEN) {
            if super::attr_tool_call::head(after, true) == Some(true) {
                return Some(Family::AttrToolCall);
            }
        }
        if let Some(body) = rest.strip_prefix("<tool_calls>") {
            match body.trim_start().as_bytes().first() {
                Some(b'{') => return Some(Family::MinimaxM1),
                Some(b'[') => return Some(Family::HunyuanA13b),
                _ => {}
            }
        }
        if let Some(body) = rest.strip_prefix("<|action_start|>") {
            if body.trim_start().starts_with("<|plugin|>") {
                return Some(Family::Internlm2);
            }
        }
        if let Some(body) = rest.strip_prefix("<function_call>") {
            if body.trim_start().starts_with('{') {
                return Some(Family::Granite20bFc);
            }
        }
        if rest.starts_with("<invoke name=") && invoke_end.find(text, at).is_some() {
            return Some(Family::MinimaxM2);
        }
        if rest.starts_with(super::nemotron_v2::OPEN) && toolcall_end.find(text, at).is_some() {
            return Some(Family::NemotronV2);
        }
        if rest.starts_with("<|role_sep|>") && text[..at].ends_with("function call") {
            return Some(Family::Gigachat3);
        }
        if let Some(body) = rest.strip_prefix(super::gigachat3::FUNCTION_CALL) {
            if body.trim_start().starts_with('{') {
                return Some(Family::Gigachat3);
            }
        }
        if rest.starts_with("<function=")
            && (super::qwen3_coder::strong_head(rest, true) == Some(true)
                || (hint == Some(Family::Qwen3Coder) && function_end.find(text, at).is_some()))
        {
            return Some(Family::Qwen3Coder);
        }
    }
    None
}

/// Whether a bracketed call ([`super::bracket_calls`]) opens at `at` (a `[`): `[TOOL_CALL]` or
/// `[TOOL_REQUEST]` with its closing word later, or `[NAME]` alone on a line, then `{`, with
/// `[END_TOOL_REQUEST]` later (as the stream's checks decide).
fn bracket_call(text: &str, at: usize, ends: &mut (Finder, Finder)) -> bool {
    let rest = &text[at..];
    if rest.starts_with("[TOOL_CALL]") {
        return ends.0.find(text, at).is_some();
    }
    if rest.starts_with("[TOOL_REQUEST]") {
        return ends.1.find(text, at).is_some();
    }
    let r = &rest[1..];
    let r = head_window(r);
    let Some(close) = r.find(']') else {
        return false;
    };
    let t = r[close + 1..].trim_start_matches([' ', '\t', '\r']);
    is_name(&r[..close])
        && &r[..close] != "TOOL_REQUEST"
        && t.starts_with('\n')
        && t.trim_start().starts_with('{')
        && ends.1.find(text, at).is_some()
}

/// How far after an opener the stream holds text to settle what it opens; every reader's `head`
/// decides within it (an opener still undecided that far is no call).
pub const HEAD_WINDOW: usize = 256;

/// The first [`HEAD_WINDOW`] bytes of `s` (to a character boundary).
pub fn head_window(s: &str) -> &str {
    let mut i = s.len().min(HEAD_WINDOW);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// What a reader's `head` decides on: the text after an opener as far as [`head_window`] reaches,
/// and how a head still undecided there settles ([`HeadWindow::pending`]).
pub struct HeadWindow<'a> {
    /// The text read.
    pub view: &'a str,
    /// More text follows the view.
    more: bool,
    /// The reply has ended.
    finished: bool,
}

impl<'a> HeadWindow<'a> {
    pub fn new(after: &'a str, finished: bool) -> Self {
        let view = head_window(after);
        HeadWindow {
            view,
            more: view.len() < after.len(),
            finished,
        }
    }

    /// An undecided head: no call when text follows the window (no head is that long); at the end
    /// of the reply, `cut` (whether what was read is a call cut off); else `None`, wait for more.
    pub fn pending(&self, cut: bool) -> Option<bool> {
        match (self.more, self.finished) {
            (true, _) => Some(false),
            (false, true) => Some(cut),
            (false, false) => None,
        }
    }
}

/// Which `<tool_call>` grammar `body` (the text right after the marker) is written in. `tools`
/// (the offered tools, when known) settles a GLM name that is no ASCII word.
pub fn classify_tool_call(body: &str, tools: Option<&serde_json::Value>) -> Option<Family> {
    let t = body.trim_start();
    if t.starts_with('{') {
        return Some(Family::Hermes);
    }
    if t.starts_with("<function=") || super::qwen3_coder::garbled_head(t, true) == Some(true) {
        return Some(Family::Qwen3Coder);
    }
    if t.starts_with('[') {
        return Some(Family::Granite);
    }
    if t.starts_with(super::minimax_m3::NS) || t.starts_with("<invoke ") {
        return Some(Family::MinimaxM3);
    }
    // GLM-5.3-Flash's JSON form: a name, `>`, then the JSON arguments on the same line.
    if super::glm45::json_head(t).is_some() {
        return Some(Family::Glm);
    }
    // GLM: a name, then `<arg_key>`, `</tool_call>` or a line break.
    let end = t.find(['<', '\n']).unwrap_or(t.len());
    let name = t[..end].trim();
    let next = &t[end..];
    // The name glued to its first key, the `<arg_key>` between lost (vLLM PR 47190): GLM's
    // markup, read by [`super::glm45`] when an offered tool's name starts the word.
    if next.starts_with(super::glm45::KEY_END) {
        return super::glm45::glued_word(name).then_some(Family::Glm);
    }
    let follows_ok = next.is_empty()
        || next.starts_with('\n')
        || next.starts_with(super::glm45::KEY)
        || next.starts_with(super::glm45::VALUE_END)
        || next.starts_with(TOOL_CALL_END);
    if !follows_ok || !is_name(name) {
        return None;
    }
    // A GLM name is a tool's: an ASCII word, or an offered tool. Another word is a call only
    // with GLM's markup right after it (an argument, or the closer: `NAME\n</tool_call>` is
    // GLM-4.5's call without arguments); else it is prose that names the tag
    // (`会带出<think>,<tool_call>字符`, then the text's end or a line break and more prose).
    let markup = |r: &str| {
        r.starts_with(super::glm45::KEY)
            || r.starts_with(super::glm45::VALUE_END)
            || r.starts_with(TOOL_CALL_END)
    };
    let markup = markup(next) || next.strip_prefix('\n').is_some_and(markup);
    if name.is_ascii() || markup || super::bare_json::offered(tools, name) {
        Some(Family::Glm)
    } else {
        None
    }
}

/// A plausible function name: a letter or digit, no whitespace, no quotes or brackets, no CJK
/// punctuation (`.` alone at the end of a sentence is not a name, nor `标签，` in one).
pub fn is_name(s: &str) -> bool {
    if s.len() > 256 {
        return false;
    }
    if s.is_ascii() {
        // Byte by byte through a table: the char path's `str::contains` per character was a
        // search of its own for every character of every call's name.
        let b = s.as_bytes();
        return b.iter().any(u8::is_ascii_alphanumeric)
            && !b.iter().any(|&c| NAME_STOPS[usize::from(c)]);
    }
    s.chars().any(char::is_alphanumeric) && s.chars().all(name_char)
}

/// Whether `c` may stand in a name ([`is_name`]'s characters: no whitespace, quotes, brackets or
/// CJK punctuation).
pub(crate) fn name_char(c: char) -> bool {
    !(c.is_whitespace() || NAME_STOP_CHARS.contains(c) || is_cjk_punctuation(c))
}

/// The ASCII characters besides whitespace that no name holds.
const NAME_STOP_CHARS: &str = "\"'<>{}[]()=,;`";

/// CJK and full-width punctuation (`。`, `，`, `、`, `：`, `「`…): a sentence's, never a name's.
fn is_cjk_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303F}' | '\u{FF01}'..='\u{FF0F}' | '\u{FF1A}'..='\u{FF20}'
        | '\u{FF3B}'..='\u{FF40}' | '\u{FF5B}'..='\u{FF65}')
}

/// The ASCII characters [`is_name`] rules out.
const NAME_STOPS: [bool; 128] = ascii_set(NAME_STOP_CHARS.as_bytes());

/// A table of ASCII characters: `char::is_whitespace`'s (tab, line feed, vertical tab, form feed,
/// carriage return, space) and `extra`.
pub(crate) const fn ascii_set(extra: &[u8]) -> [bool; 128] {
    let mut t = [false; 128];
    let ws = [b'\t', b'\n', 0x0B, 0x0C, b'\r', b' '];
    let mut i = 0;
    while i < ws.len() {
        t[ws[i] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// The tag the end of `body` cut before its `>` (its last `<`, within the last
/// [`HEAD_WINDOW`] bytes, with no `>` after it): where it starts, and the text before it with its
/// trailing whitespace trimmed. How the parsers find a closing tag cut by `max_tokens`.
pub fn cut_tag(body: &str) -> Option<(usize, &str)> {
    let tail = &body.as_bytes()[body.len().saturating_sub(HEAD_WINDOW)..];
    let lt = body.len() - tail.len() + memchr::memrchr(b'<', tail)?;
    if body[lt..].contains('>') {
        return None;
    }
    Some((lt, body[..lt].trim_end()))
}

/// Repeated forward searches for one needle in one text, amortised linear: it remembers its last
/// answer, so openers without closers (`<tool_call>` ×100 000, no `</tool_call>`) do not rescan
/// the rest of the text each time. `from` must not decrease between calls for the cache to help
/// (a smaller `from` is still answered correctly).
#[derive(Debug, Clone)]
pub struct Finder<'n> {
    needle: &'n str,
    last: Option<(usize, Option<usize>)>,
}

impl<'n> Finder<'n> {
    pub fn new(needle: &'n str) -> Self {
        Finder { needle, last: None }
    }

    /// The first `needle` at or after `from` in `haystack` (always the same haystack).
    pub fn find(&mut self, haystack: &str, from: usize) -> Option<usize> {
        if let Some((f, hit)) = self.last {
            if from >= f {
                match hit {
                    None => return None,
                    Some(h) if h >= from => return Some(h),
                    Some(_) => {}
                }
            }
        }
        let hit = find_from(haystack, self.needle, from);
        self.last = Some((from, hit));
        hit
    }
}

/// `haystack.find(needle)` starting at byte `from` (which must be a char boundary or the end).
///
/// SIMD `memmem` rather than `str::find` (Two-Way): the reasoning and call scanners call this for
/// a dozen markers over the same reply, and it was their largest cost. But building a `memmem`
/// searcher costs more than scanning a few hundred bytes, and most searches inside a call block
/// end that soon (a closing tag): on replies dense with calls, building searchers was a fifth of
/// the time (perf). So the first [`NEAR`] positions are tried with `memchr` on the needle's first
/// byte, and only the rest of a long haystack gets a searcher. A match of a UTF-8 needle always
/// starts on a char boundary.
pub fn find_from(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    let rest = haystack.get(from..)?.as_bytes();
    let n = needle.as_bytes();
    let Some((&first, tail)) = n.split_first() else {
        return Some(from);
    };
    let near = rest.len().min(NEAR);
    if let Some(p) = find_near(rest, near, first, tail) {
        return Some(from + p);
    }
    if near == rest.len() {
        return None;
    }
    memchr::memmem::find(&rest[near..], n).map(|i| from + near + i)
}

/// The first `p < near` where `rest[p..]` starts with `first` then `tail`.
#[inline]
fn find_near(rest: &[u8], near: usize, first: u8, tail: &[u8]) -> Option<usize> {
    let Some(&second) = tail.first() else {
        return memchr::memchr(first, &rest[..near]);
    };
    #[cfg(target_arch = "x86_64")]
    {
        find_pair_sse2(rest, near, [first, second], tail)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut at = 0;
        while let Some(i) = memchr::memchr(first, &rest[at..near]) {
            let p = at + i;
            // The second byte first: most candidates (every `<` of a call block's other tags)
            // end there, without a call to `memcmp` for the rest.
            if rest.get(p + 1) == Some(&second) && rest[p + 1..].starts_with(tail) {
                return Some(p);
            }
            at = p + 1;
        }
        None
    }
}

/// [`find_near`] for a needle of two bytes or more, with SSE2: each 16 positions compared with
/// the needle's first byte and the next 16 with its second, so only the places where both agree
/// are compared further. A call block's tags all begin with `<` (and half with `</`): a search
/// per candidate `<` was a `memchr` call each, a quarter of a reply dense with Qwen3-Coder calls
/// (callgrind). SSE2 is part of the x86-64 baseline, so no feature check.
#[cfg(target_arch = "x86_64")]
#[inline]
fn find_pair_sse2(rest: &[u8], near: usize, pair: [u8; 2], tail: &[u8]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // Positions `p < end` have a byte after them.
    let end = near.min(rest.len().saturating_sub(1));
    let hit = |p: usize| rest[p] == pair[0] && rest[p + 1..].starts_with(tail);
    if rest.len() < 17 {
        return (0..end).find(|&q| rest[q + 1] == pair[1] && hit(q));
    }
    // The first position in `p..end` of the 16 from `at` (`at <= p`) where both bytes agree
    // and the rest of the needle follows.
    let first = |at: usize, p: usize, m: u32| -> Option<usize> {
        let mut m = m >> (p - at);
        if end - p < 16 {
            m &= (1u32 << (end - p)) - 1;
        }
        while m != 0 {
            let q = p + m.trailing_zeros() as usize;
            if rest[q + 1..].starts_with(tail) {
                return Some(q);
            }
            m &= m - 1;
        }
        None
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; each load reads `rest[at..at + 16]` and
    // `rest[at + 1..at + 17]`, and `at + 17 <= rest.len()` holds at each (the loop's condition,
    // and `rest.len() - 17` for the last block, `rest.len() >= 17` above).
    unsafe {
        let (a, b) = (_mm_set1_epi8(pair[0] as i8), _mm_set1_epi8(pair[1] as i8));
        let mask_at = |at: usize| -> u32 {
            let p = rest.as_ptr().add(at);
            let x = _mm_cmpeq_epi8(_mm_loadu_si128(p.cast::<__m128i>()), a);
            let y = _mm_cmpeq_epi8(_mm_loadu_si128(p.add(1).cast::<__m128i>()), b);
            _mm_movemask_epi8(_mm_and_si128(x, y)) as u32
        };
        let mut p = 0;
        while p < end && p + 17 <= rest.len() {
            if let Some(q) = first(p, p, mask_at(p)) {
                return Some(q);
            }
            p += 16;
        }
        if p >= end {
            return None;
        }
        // The last positions, fewer than 17 bytes from the end: one block that ends at the
        // text's end, overlapping positions already tried (their bits dropped), where a
        // position-by-position loop was most of a search through a short call block.
        let last = rest.len() - 17;
        first(last, p, mask_at(last))
    }
}

/// `haystack.split_once(needle)` by [`find_from`]: `str`'s own builds a Two-Way searcher for
/// each call, which cost more than the search in a call block's few hundred bytes (perf).
pub fn split_once<'a>(haystack: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let at = find_from(haystack, needle, 0)?;
    Some((&haystack[..at], &haystack[at + needle.len()..]))
}

/// How many positions [`find_from`] tries before it builds a `memmem` searcher.
const NEAR: usize = 256;

/// The first `needle` in `text[from..limit]` that is not inside a JSON string (`"…"` with
/// backslash escapes): a closing tag written inside an argument's value does not end a call. `None`
/// when there is none, or when a string is still open at `limit` (a reply cut inside it). Linear in
/// the bytes scanned. `needle` must not start with `"`.
///
/// ```
/// use transcript_hygiene::response::scan::find_outside_strings;
/// let t = r#"{"s": "</tool_call> & <b>"}}</tool_call>"#;
/// assert_eq!(find_outside_strings(t, 0, t.len(), "</tool_call>"), Some(28));
/// assert_eq!(find_outside_strings(t, 0, 27, "</tool_call>"), None);
/// ```
pub fn find_outside_strings(text: &str, from: usize, limit: usize, needle: &str) -> Option<usize> {
    let bytes = text.as_bytes().get(..limit)?;
    let n = needle.as_bytes();
    let first = *n.first()?;
    debug_assert_ne!(first, b'"');
    let mut i = from;
    loop {
        let j = i + memchr::memchr2(b'"', first, bytes.get(i..)?)?;
        if bytes[j] != b'"' {
            if bytes[j..].starts_with(n) {
                return Some(j);
            }
            i = j + 1;
            continue;
        }
        // Past the string that opens at `j`.
        let mut k = j + 1;
        loop {
            let q = k + memchr::memchr2(b'"', b'\\', bytes.get(k..)?)?;
            if bytes[q] == b'"' {
                i = q + 1;
                break;
            }
            k = q + 2;
        }
    }
}

/// The largest char boundary of `s` at or below `i`.
pub fn floor(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The end (exclusive) of the bracketed value that opens at `at` (`{`, `[` or `(`), skipping
/// strings in `"` (and in `'` when `single_quotes`, for Python literals) with backslash escapes.
/// Bracket kinds are not matched against each other, only counted (`depth::Depth`). `None` when
/// the text ends first. Linear in the bytes scanned.
pub fn balanced_end(text: &str, at: usize, single_quotes: bool) -> Option<usize> {
    let bytes = text.as_bytes();
    // `at` must hold a bracket (a closing one closes at once).
    if !matches!(bytes.get(at)?, b'{' | b'[' | b'(' | b'}' | b']' | b')') {
        return None;
    }
    let brackets = if single_quotes {
        Brackets::Python
    } else {
        Brackets::Parens
    };
    Depth::new(brackets).scan(&bytes[at..]).map(|n| at + n)
}

/// A work budget for scans that try many candidate positions (bare JSON, pythonic lists): each
/// attempt is charged the bytes it read, so adversarial input (`{"a": "{"a": "{…`) stays linear.
#[derive(Debug, Clone)]
pub struct Budget(usize);

impl Budget {
    /// A budget of a few passes over `text`.
    pub fn for_text(text: &str) -> Self {
        Budget(text.len().saturating_mul(16).saturating_add(1 << 20))
    }

    /// Charge `n` bytes; false once the budget is spent.
    pub fn charge(&mut self, n: usize) -> bool {
        self.0 = self.0.saturating_sub(n);
        self.0 > 0
    }

    /// True once the budget is spent.
    pub fn spent(&self) -> bool {
        self.0 == 0
    }

    /// [`balanced_end`], charged the bytes it scanned (to the end of the text when the value never
    /// closes). `None` when the value never closes or the budget is now spent: a scan over many
    /// candidate openers skips the first and stops at the second ([`Budget::spent`]).
    pub fn balanced_end(&mut self, text: &str, at: usize, single_quotes: bool) -> Option<usize> {
        let end = balanced_end(text, at, single_quotes);
        let scanned = end.unwrap_or(text.len()) - at;
        if self.charge(scanned) {
            end
        } else {
            None
        }
    }
}

/// Widen `start..end` to cover a Markdown code fence around it (`` ```json\n…\n``` ``, any
/// language word or none), when
/// the fence holds nothing else.
pub fn widen_to_fence(text: &str, start: usize, end: usize) -> (usize, usize) {
    let before = text[..start].trim_end();
    let lang = before.len()
        - before
            .trim_end_matches(|c: char| c.is_ascii_alphanumeric())
            .len();
    let Some(open) = before[..before.len() - lang].strip_suffix("```") else {
        return (start, end);
    };
    let after = &text[end..];
    let lead = after.len() - after.trim_start().len();
    if after[lead..].starts_with("```") {
        (open.len(), end + lead + 3)
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair search agrees with `str::find` for the needle at every place of texts up to past
    /// [`NEAR`], among decoys that share its first byte or its first two.
    #[test]
    fn find_from_agrees_with_std_around_blocks_and_near() {
        for needle in ["</parameter>", "<p", "<", "｜>"] {
            for len in (0..34).chain([255, 256, 257, 300]) {
                for at in (0..=len).step_by(if len > 40 { 11 } else { 1 }) {
                    // Decoys: `<` alone, `</` and `</p` before the needle, Chinese around it.
                    let mut t = "<a </x </pa 北".repeat(len / 10 + 1);
                    let keep = (0..=len).rev().find(|&i| t.is_char_boundary(i));
                    t.truncate(keep.unwrap_or(0));
                    let cut = (0..=at.min(t.len())).rev().find(|&i| t.is_char_boundary(i));
                    t.insert_str(cut.unwrap_or(0), needle);
                    for from in (0..=t.len()).filter(|&i| t.is_char_boundary(i)).step_by(5) {
                        let want = t[from..].find(needle).map(|i| from + i);
                        assert_eq!(find_from(&t, needle, from), want, "{t:?} {needle:?} {from}");
                    }
                }
            }
        }
    }

    /// The ASCII table says what the character rule says, for every ASCII character in a name.
    #[test]
    fn is_name_by_bytes_agrees_with_the_char_rule() {
        let by_chars = |s: &str| {
            s.chars().any(char::is_alphanumeric)
                && !s
                    .chars()
                    .any(|c| c.is_whitespace() || "\"'<>{}[]()=,;`".contains(c))
        };
        for b in 0u8..128 {
            let c = char::from(b);
            for s in [format!("read{c}file"), format!("{c}"), format!("{c}{c}")] {
                assert_eq!(is_name(&s), by_chars(&s), "{s:?}");
            }
        }
        assert!(is_name("读取文件") && !is_name("读取\u{3000}文件") && !is_name(""));
    }

    #[test]
    fn split_once_agrees_with_std() {
        let text = "<｜tool▁calls▁begin｜><|tool_call_argument_begin|>北京";
        for m in (0..=text.len()).filter(|&m| text.is_char_boundary(m)) {
            for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let (hay, needle) = (&text[at..], &text[..m]);
                assert_eq!(split_once(hay, needle), hay.split_once(needle));
            }
        }
        assert_eq!(
            split_once("a<｜tool▁sep｜>b", "<｜tool▁sep｜>"),
            Some(("a", "b"))
        );
        assert_eq!(split_once("a b", "<"), None);
    }

    #[test]
    fn find_from_is_str_find_near_and_far() {
        // Matches before, across and after the positions tried without a searcher.
        for pad in [0, 1, 200, 250, 254, 255, 256, 257, 300, 1000] {
            let hay = format!(
                "{}<tool_cal<tool_call>中文</tool_call>",
                "<a".repeat(pad / 2) + &"x".repeat(pad % 2)
            );
            for needle in ["<tool_call>", "</tool_call>", "中文", "<", "absent", ""] {
                for from in [0, pad / 2, pad] {
                    let want = hay[from..].find(needle).map(|i| i + from);
                    assert_eq!(
                        find_from(&hay, needle, from),
                        want,
                        "{pad} {needle:?} {from}"
                    );
                }
            }
        }
        assert_eq!(find_from("abc", "b", 9), None);
    }

    #[test]
    fn detects_by_first_marker() {
        assert_eq!(detect("plain text", None), None);
        assert_eq!(detect("a < b and <b>bold</b>", None), None);
        assert_eq!(
            detect("x<tool_call>\n{\"name\":\"f\"}</tool_call>", None),
            Some(Family::Hermes)
        );
        assert_eq!(
            detect("<tool_call>\n<function=f>", None),
            Some(Family::Qwen3Coder)
        );
        assert_eq!(
            detect("<tool_call>get_weather\n<arg_key>", None),
            Some(Family::Glm)
        );
        assert_eq!(
            detect("<tool_call>refresh</tool_call>", None),
            Some(Family::Glm)
        );
        assert_eq!(detect("<minimax:tool_call>", None), Some(Family::MinimaxM2));
        assert_eq!(
            detect("<｜tool▁calls▁begin｜>", None),
            Some(Family::DeepSeek)
        );
        assert_eq!(
            detect("<|tool_calls_section_begin|>", None),
            Some(Family::KimiK2)
        );
    }

    #[test]
    fn detects_the_new_families_by_their_markers() {
        let cases: &[(&str, Family)] = &[
            ("x<seed:tool_call>", Family::SeedOss),
            ("<｜DSML｜function_calls>", Family::DeepSeekV32),
            ("<｜tool_calls_begin｜>", Family::Step3),
            ("<longcat_tool_call>", Family::Longcat),
            ("<|action_start|> <|plugin|>", Family::Internlm2),
            ("<|tool_call|>[", Family::Granite),
            ("<|python_start|>[", Family::Llama4Pythonic),
            ("<|tool_call_start|>[", Family::Pythonic),
            ("<|tool_call>call:f{}", Family::Gemma4),
            ("<tool_call>[{", Family::Granite),
            ("<tool_calls>\n{", Family::MinimaxM1),
            ("<tool_calls>[", Family::HunyuanA13b),
            ("<function_call> {", Family::Granite20bFc),
            ("function call<|role_sep|>{", Family::Gigachat3),
            ("好的<|function_call|>{", Family::Gigachat3),
            ("ok functools[{", Family::Phi4Mini),
            ("[TOOL_CALLS]f[ARGS]{", Family::Mistral),
            ("[TOOL_CALLS] [{", Family::Mistral),
            ("<|channel|>final<|message|>", Family::GptOss),
        ];
        for &(t, f) in cases {
            assert_eq!(detect(t, None), Some(f), "{t}");
        }
        // Shared grammars follow the model hint.
        assert_eq!(
            detect("<tool_call>{", Some(Family::Ernie45)),
            Some(Family::Ernie45)
        );
        assert_eq!(
            detect("<tool_calls>[", Some(Family::Jamba)),
            Some(Family::Jamba)
        );
        // Plain-text families only with their hint.
        for (t, f) in [
            ("<|python_tag|>{", Family::Llama3Json),
            ("<function_calls>", Family::Olmo3),
        ] {
            assert_eq!(detect(t, None), None, "{t}");
            assert_eq!(detect(t, Some(f)), Some(f), "{t}");
        }
        for t in [
            "[TOOL_CALLS] is a token",
            "functools [x]",
            "<tool_calls>none",
        ] {
            assert_eq!(detect(t, None), None, "{t}");
        }
    }

    #[test]
    fn balanced_end_skips_strings() {
        assert_eq!(balanced_end("{\"a\": \"}\"} x", 0, false), Some(10));
        assert_eq!(balanced_end("[f(a='])')] x", 0, true), Some(11));
        assert_eq!(balanced_end("[f(a='])')] x", 0, false), Some(8));
        assert_eq!(balanced_end("{\"a\": [", 0, false), None);
        assert_eq!(balanced_end("x{}", 0, false), None);
    }

    #[test]
    fn prefilter() {
        assert!(!may_hold_markers(
            "plain text, (parens) {braces} — and 北京"
        ));
        assert!(may_hold_markers("a [TOOL_CALLS]"));
        assert!(may_hold_markers("x ◁think▷"));
        assert!(may_hold_markers(
            "```tool_code\nprint(default_api.f())\n```"
        ));
        for t in [
            "a [TOOL_CALLS]",
            "x ◁think▷",
            "a <",
            "plain 中文 text",
            "```tool_code\nf()\n```",
            "tool_cod tool code",
            "好的。\nfunction=bash\">\n",
            "a -> b",
            "a > b 中",
        ] {
            let units: Vec<u16> = t.encode_utf16().collect();
            assert_eq!(units_may_hold_markers(&units), may_hold_markers(t), "{t}");
        }
        assert_eq!(widen_to_fence("a\n```json\n{}\n```\nb", 10, 12), (2, 16));
        assert_eq!(widen_to_fence("a {} b", 2, 4), (2, 4));
    }

    #[test]
    fn finder_matches_find_from() {
        let t = "a<x>b<x>c";
        let mut f = Finder::new("<x>");
        for from in 0..=t.len() {
            assert_eq!(f.find(t, from), find_from(t, "<x>", from));
        }
        assert_eq!(f.find(t, 0), Some(1));
    }

    #[test]
    fn prose_after_tool_call_tag_is_not_glm() {
        assert_eq!(detect("use the <tool_call> tag like this", None), None);
        // A GLM name is a tool's: an ASCII word, an offered tool, or one with GLM's markup after.
        let tools = serde_json::json!([{"name": "刷新缓存"}]);
        for (body, tools, glm) in [
            ("字符\n测试的模型包含", None, false),
            ("字符", None, false),
            ("刷新缓存", Some(&tools), true),
            ("刷新缓存\n</tool_call>", None, true),
            ("查询天气\n<arg_key>城市</arg_key>", None, true),
            ("refresh\nmore", None, true),
            ("send_command_to_shellcommand</arg_key>", None, true),
            ("browser_action task</arg_key>", None, true),
            ("a b c</arg_key>", None, false),
        ] {
            let want = glm.then_some(Family::Glm);
            assert_eq!(classify_tool_call(body, tools), want, "{body:?}");
        }
        assert_eq!(detect("<function=f>x</function>", None), None);
        assert_eq!(
            detect("<function=f>x</function>", Some(Family::Qwen3Coder)),
            Some(Family::Qwen3Coder)
        );
        assert_eq!(
            detect("<function=f>\n<parameter=a>1</function>", None),
            Some(Family::Qwen3Coder)
        );
    }
}
