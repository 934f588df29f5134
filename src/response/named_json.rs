//! A call written as an offered tool's name glued to a JSON object of its arguments:
//! `让我正确执行：exec{"command": "ls -la"}`.
//!
//! Why: with the call markup lost (a model that imitates the transcript's rendering of earlier
//! calls, or a server that stripped the special tokens around `NAME` and `{…}`), some models write
//! a call as the bare tool name followed directly by its arguments object, in the middle of a
//! sentence (OpenClaw#39626, in Chinese). A person reading the chat sees a command that never ran.
//!
//! The evidence must be strong, because a word followed by braces is also code people write
//! (`fn{`, `exec{…}` in a DSL): the word is exactly the name of a tool the request offered
//! (`options.tools`), glued to the `{` (no space), not part of a longer word; the braces hold one
//! complete JSON object; and when the tool has a JSON schema, every key of the object is one of
//! its `properties` and every `required` one is there (without a schema, the object must not be
//! empty). Inline code and fenced examples never get here (the stream machine treats them as
//! text). In a stream, a trailing word that may still become such a name is held back (at most as
//! long as the longest tool name), so a streamed reply is cut exactly as the whole one.
//!
//! The same rule reads the line agent frameworks log for a call, which models trained on such
//! logs write instead of calling: `Called Tool: 'NAME' with arguments: {'key': 'value'}`
//! (smolagents' wording, seen in SkyworkAI/DeepResearchAgent#69), its arguments a Python dict or
//! JSON; the block starts at `Called Tool:`.
//!
//! And the ReAct step agents prompt for (LangChain's `create_react_agent`, Xinference's ReAct
//! mode), which a model asked to call tools natively sometimes writes instead: an
//! `Action: NAME` line, then `Action Input: {…}` (colons ASCII or full-width). Prose that explains
//! ReAct writes placeholders there (`Action: the action to take`); only an offered tool's name
//! with a JSON object that fits it is a call. The block starts at `Action:`; a `Thought:` line
//! before it stays visible.
//!
//! Two more leads whose special tokens a server stripped, read by the same evidence (an offered
//! name, a strict JSON object that fits it): Gemma 4's `call:NAME({…})` (the `<|tool_call>` and
//! `<tool_call|>` around it gone; the `)` must follow the object), and Mistral's
//! `NAME[ARGS]{…}` with only its `[TOOL_CALLS]` gone, or with the call's id between the name
//! and the arguments, `NAME[CALL_ID]ID[ARGS]{…}` (a `[TOOL_CALLS]` still there goes with the
//! block; an id of Mistral's shape is kept).
//!
//! Gemma's `call:NAME({…}` whose `)` never comes: followed by anything but spaces it is prose
//! showing a call, and stays as written; at the very end of the reply (nothing after the object
//! but the spaces a `)` may follow), it is a call whose `)` the reply's cut took, read as any
//! call whose closing markup was cut off after complete arguments is, and reported truncated.

use serde_json::{Map, Value};

use super::bare_json::{names, offered, schema};
use super::json_calls::read_value;
use super::mistral;
use super::scan::Budget;
use super::{args_value_to_text, Block, RawCall};

/// The bytes a tool name may hold here: ASCII letters, digits, `_`, `-` and `.`.
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The length of the run of [`name_byte`]s that ends `text`, when it is no longer than the
/// longest offered name (only that much is looked at, so a stream asking again at the same `{`
/// is not charged for a long run each time).
fn word_run(text: &str, tools: Option<&Value>) -> Option<usize> {
    let longest = names(tools).map(str::len).max()?;
    let run = text
        .as_bytes()
        .iter()
        .rev()
        .take(longest + 1)
        .take_while(|&&b| name_byte(b))
        .count();
    (run <= longest).then_some(run)
}

/// The log line's words before and after the tool's name.
const CALLED_OPEN: &str = "Called Tool: '";
const CALLED_MID: &str = "' with arguments: ";

/// What names the tool right before a `{`: the block's start, the name's range, and how the
/// arguments are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lead {
    pub start: usize,
    pub name: std::ops::Range<usize>,
    pub args: Args,
    /// What follows the object ([`tail_end`]).
    pub tail: Tail,
}

/// What goes with a call after its arguments object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: the call ends with its object.
    None,
    /// The lead opens with `<` (Gemini's `<call:default_api:NAME{…}/>`): a `/>` right after the
    /// object goes with the call when it is there.
    Slash,
    /// Gemma's `call:NAME({…})`: the `)` must follow, or there is no call.
    Paren,
}

/// How a lead's arguments object is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    Json,
    /// A Python dict (the log line), or JSON.
    Python,
    /// Gemini's object notation (bare keys, values unquoted or quoted), read as Gemma 4's
    /// ([`super::gemma4::object_at`]), or JSON.
    Object,
}

/// Gemini's tool namespace, written before the name of a call it leaks as text.
const GEMINI_NS: &str = "default_api:";
/// The longest word (ASCII letters) glued before [`GEMINI_NS`] with a `:` (`call:`, `declaration:`,
/// a garbled token) that goes with the call.
const GEMINI_PREFIX: usize = 16;

/// The lead that ends `before` (an offered tool's name glued to the `{`, the log line, a ReAct
/// step, or GLM-4's name alone on the line before).
pub fn lead_before(before: &str, tools: Option<&Value>) -> Option<Lead> {
    if let Some(start) = name_before(before, tools) {
        if let Some(ns) = prefix_start(&before[..start]) {
            let lead = with_angle(before, ns);
            // Quoted (`"default_api:f{…}"`, a JSON sample's string): a mention, not a call.
            if quoted(before, lead) {
                return None;
            }
            return Some(Lead {
                start: lead,
                name: start..before.len(),
                args: Args::Object,
                tail: if lead < ns { Tail::Slash } else { Tail::None },
            });
        }
        return Some(Lead {
            start,
            name: start..before.len(),
            args: Args::Json,
            tail: Tail::None,
        });
    }
    if let Some(head) = before.strip_suffix('(') {
        return paren_lead(head, tools);
    }
    if let Some((name_end, _)) = mistral::stripped_head(before) {
        let head = &before[..name_end];
        let name_at = name_before(head, tools)?;
        return Some(Lead {
            start: marker_start(&head[..name_at]),
            name: name_at..head.len(),
            args: Args::Json,
            tail: Tail::None,
        });
    }
    if let Some(head) = before.strip_suffix(CALLED_MID) {
        let name_at = name_before(head, tools)?;
        let start = head[..name_at].strip_suffix(CALLED_OPEN)?.len();
        return Some(Lead {
            start,
            name: name_at..head.len(),
            args: Args::Python,
            tail: Tail::None,
        });
    }
    react_before(before, tools).or_else(|| {
        // GLM-4's name alone on its line, the object on the next (`glm4_line`).
        let name = super::glm4_line::lead(before, tools)?;
        Some(Lead {
            start: name.start,
            name,
            args: Args::Json,
            tail: Tail::None,
        })
    })
}

/// ReAct's words: `Action: NAME` then, on a later line, `Action Input: `.
const ACTION: &str = "Action";
const ACTION_INPUT: &str = "Action Input";

/// `s` less a leading `:` or `：` (spaces around it skipped); `None` without one.
fn colon(s: &str) -> Option<&str> {
    let t = s.trim_start_matches(' ');
    let t = t.strip_prefix(':').or_else(|| t.strip_prefix('：'))?;
    Some(t.trim_start_matches(' '))
}

/// The ReAct lead that ends `before`: `Action: NAME`, a line break, `Action Input:`.
fn react_before(before: &str, tools: Option<&Value>) -> Option<Lead> {
    let t = before.trim_end_matches(' ');
    let t = t
        .strip_suffix(':')
        .or_else(|| t.strip_suffix('：'))?
        .trim_end_matches(' ');
    let head = t.strip_suffix(ACTION_INPUT)?;
    let line = head.trim_end_matches([' ', '\t', '\r']);
    let line = line.strip_suffix('\n')?.trim_end_matches([' ', '\t', '\r']);
    let name_at = name_before(line, tools)?;
    let before_name = line[..name_at].trim_end_matches(' ');
    let before_colon = before_name
        .strip_suffix(':')
        .or_else(|| before_name.strip_suffix('：'))?
        .trim_end_matches(' ');
    let start = before_colon.strip_suffix(ACTION)?.len();
    // `Action` starts its line, and the lead is no longer than a stream holds back.
    let longest = names(tools).map(str::len).max()?;
    if (!before[..start].is_empty() && !before[..start].ends_with('\n'))
        || before.len() - start > 2 * ACTION_INPUT.len() + longest + REACT_SPACES
    {
        return None;
    }
    Some(Lead {
        start,
        name: name_at..line.len(),
        args: Args::Json,
        tail: Tail::None,
    })
}

/// Whether the lead at `start` sits right after a quote (`"call:f(…"`, a JSON sample's string):
/// a mention, not a call.
fn quoted(before: &str, start: usize) -> bool {
    before[..start].ends_with(['"', '\''])
}

/// Gemma's `call:NAME(` lead (`head` is the text before the `(`): `call:` at the start of a word,
/// then an offered name; the arguments are one strict JSON object, then `)`.
fn paren_lead(head: &str, tools: Option<&Value>) -> Option<Lead> {
    let name_at = name_before(head, tools)?;
    let start = call_word_start(&head[..name_at])?;
    (!quoted(head, start)).then_some(Lead {
        start,
        name: name_at..head.len(),
        args: Args::Json,
        tail: Tail::Paren,
    })
}

/// Where a lead whose name starts at the end of `head` begins: at a Mistral `[TOOL_CALLS]`
/// right before the name (a server that strips only some special tokens may leave it; it goes
/// with the call), else at the name.
fn marker_start(head: &str) -> usize {
    head.strip_suffix(mistral::TOKEN)
        .map_or(head.len(), str::len)
}

/// The word Gemma 4 writes before a call's name (`call:NAME{…}`, its special tokens stripped),
/// which Gemini writes before its namespace too.
const CALL: &str = "call:";

/// Where the prefix that ends `head` (the text right before an offered tool's name) starts:
/// Gemini's namespace (after its glued word, [`gemini_prefix_start`]) or Gemma's `call:` at the
/// start of a word. `None`: no such prefix.
fn prefix_start(head: &str) -> Option<usize> {
    if let Some(ns) = head.strip_suffix(GEMINI_NS) {
        return Some(gemini_prefix_start(ns));
    }
    call_word_start(head)
}

/// Where Gemma's `call:` that ends `head` starts, when it starts a word.
fn call_word_start(head: &str) -> Option<usize> {
    let at = head.strip_suffix(CALL)?.len();
    head[..at]
        .bytes()
        .next_back()
        .is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'_')
        .then_some(at)
}

/// Where a call whose lead has `tail` and whose object ends at `end` ends: past a `/>` that
/// closes Gemini's wrapped form or the `)` of Gemma's `call:NAME({…})` (up to [`TAIL_SPACES`]
/// spaces before either). [`TailEnd::More`] while the text ends before that is known and more
/// may come (`finished` false); [`TailEnd::Missing`] when the `)` a call needs is not there;
/// [`TailEnd::Cut`] when the finished reply ends where that `)` would come.
///
/// ```
/// use transcript_hygiene::response::named_json::{tail_end, Tail, TailEnd};
/// let t = "<call:default_api:f{a:1}/> ok";
/// assert_eq!(tail_end(t, 24, Tail::Slash, true), TailEnd::At(26));
/// assert_eq!(tail_end(&t[..25], 24, Tail::Slash, false), TailEnd::More);
/// assert_eq!(tail_end(t, 24, Tail::None, true), TailEnd::At(24));
/// let g = "call:f({\"a\": 1} ) 好";
/// assert_eq!(tail_end(g, 15, Tail::Paren, true), TailEnd::At(17));
/// assert_eq!(tail_end(&g[..16], 15, Tail::Paren, false), TailEnd::More);
/// assert_eq!(tail_end(&g[..16], 15, Tail::Paren, true), TailEnd::Cut(16));
/// assert_eq!(tail_end(&g[..15], 15, Tail::Paren, true), TailEnd::Cut(15));
/// assert_eq!(tail_end(&g[..17], 15, Tail::Paren, true), TailEnd::At(17));
/// assert_eq!(tail_end("call:f({\"a\": 1} 好", 15, Tail::Paren, true), TailEnd::Missing);
/// ```
pub fn tail_end(text: &str, end: usize, tail: Tail, finished: bool) -> TailEnd {
    let close = match tail {
        Tail::None => return TailEnd::At(end),
        Tail::Slash => "/>",
        Tail::Paren => ")",
    };
    let rest = &text[end..];
    let t = rest.trim_start_matches(' ');
    let spaces = rest.len() - t.len();
    if spaces <= TAIL_SPACES && t.starts_with(close) {
        TailEnd::At(end + spaces + close.len())
    } else if !finished && spaces <= TAIL_SPACES && close.starts_with(t) {
        TailEnd::More
    } else if tail == Tail::Paren && spaces <= TAIL_SPACES && t.is_empty() {
        TailEnd::Cut(text.len())
    } else if tail == Tail::Paren {
        TailEnd::Missing
    } else {
        TailEnd::At(end)
    }
}

/// The spaces allowed between a call's object and its `/>` or `)` (past them, a stream would
/// have to hold text back without bound).
pub const TAIL_SPACES: usize = 8;

/// What [`tail_end`] found after a call's object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailEnd {
    /// The call ends here.
    At(usize),
    /// Not known before more text comes.
    More,
    /// The `)` the call needs is not there: no call.
    Missing,
    /// The reply ends where the `)` would come: a call whose `)` was cut off, ending here.
    Cut(usize),
}

/// Where a Gemini call whose namespace starts at the end of `head` begins: at the word glued
/// before it with a `:` (`call:`, `declaration:`, `Lie:`), when there is one, else there.
fn gemini_prefix_start(head: &str) -> usize {
    head.strip_suffix(':')
        .and_then(glued_word_start)
        .unwrap_or(head.len())
}

/// Where the word of 1 to [`GEMINI_PREFIX`] ASCII letters that ends `text` starts, when it starts
/// a word (no letter, digit or `_` right before it).
fn glued_word_start(text: &str) -> Option<usize> {
    let n = text
        .bytes()
        .rev()
        .take(GEMINI_PREFIX + 1)
        .take_while(u8::is_ascii_alphabetic)
        .count();
    let at = text.len() - n;
    let bounded = text[..at]
        .bytes()
        .next_back()
        .is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'_');
    ((1..=GEMINI_PREFIX).contains(&n) && bounded).then_some(at)
}

/// `at`, or the `<` right before it (Gemini's wrapped form).
fn with_angle(text: &str, at: usize) -> usize {
    if text[..at].ends_with('<') {
        at - 1
    } else {
        at
    }
}

/// Where a Gemini lead that may still be completing at the end of `text` starts: the namespace
/// (or a prefix of it) at its end, after an optional glued `WORD:`, then a prefix of an offered
/// name; or a `WORD:` alone at the end.
fn partial_gemini_start(text: &str, tools: Option<&Value>) -> Option<usize> {
    let word = partial_name_start(text, tools).unwrap_or(text.len());
    let head = &text[..word];
    if let Some(at) = prefix_start(head) {
        return Some(with_angle(head, at));
    }
    // A word that may grow into an offered name may be the namespace's start too (`Lie:d`).
    // The namespace itself may still be arriving: its longest prefix that ends `text`.
    let cut = (1..GEMINI_NS.len())
        .rev()
        .find(|&k| text.ends_with(&GEMINI_NS[..k]))
        .map_or(text.len(), |k| text.len() - k);
    if cut < text.len() {
        let start = gemini_prefix_start(&text[..cut]);
        // `default_api` must start a word (or follow the glued prefix).
        let free = text[..cut]
            .bytes()
            .next_back()
            .is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'_');
        return (start < cut || free).then_some(with_angle(text, start));
    }
    // A glued `WORD:` alone may still become the prefix.
    let start = gemini_prefix_start(text);
    if start < text.len() {
        return Some(with_angle(text, start));
    }
    // So may a word still being written (`Lie`, `cal`), or a `<` before it.
    let start = glued_word_start(text).unwrap_or(text.len());
    (start < text.len() || text.ends_with('<')).then(|| with_angle(text, start))
}

/// Whether `tail` (from an `A` to the end of a reply) may still become a ReAct lead.
fn partial_react(tail: &str, tools: Option<&Value>) -> bool {
    let Some(rest) = tail.strip_prefix(ACTION) else {
        return tail.len() < ACTION.len() && ACTION.starts_with(tail);
    };
    if rest.trim_start_matches(' ').is_empty() {
        return true;
    }
    let Some(rest) = colon(rest) else {
        return false;
    };
    let n = rest.bytes().take_while(|&b| name_byte(b)).count();
    let (name, after) = rest.split_at(n);
    if after.is_empty() {
        return names(tools).any(|t| t.starts_with(name));
    }
    if !offered(tools, name) {
        return false;
    }
    let after = after.trim_start_matches([' ', '\t', '\r']);
    let Some(next) = after.strip_prefix('\n') else {
        return after.is_empty();
    };
    let next = next.trim_start_matches([' ', '\t', '\r']);
    let Some(r) = next.strip_prefix(ACTION_INPUT) else {
        return next.len() < ACTION_INPUT.len() && ACTION_INPUT.starts_with(next);
    };
    r.trim_start_matches(' ').is_empty() || colon(r).is_some_and(str::is_empty)
}

/// Where a lead that may still be completing at the end of `text` starts (`None`: none).
pub fn partial_lead_start(text: &str, tools: Option<&Value>) -> Option<usize> {
    // A Mistral `[TOOL_CALLS]` before it goes with the name ([`marker_start`]).
    let word = partial_name_start(text, tools).map(|w| marker_start(&text[..w]));
    let longest = names(tools).map(str::len).max()?;
    let window = CALLED_OPEN.len() + longest + CALLED_MID.len();
    let from = text.len().saturating_sub(window);
    let called = memchr::memchr_iter(b'C', &text.as_bytes()[from..])
        .map(|k| from + k)
        .find(|&k| partial_log_line(&text[k..], tools));
    // A ReAct lead: `Action:`, the name, spaces, a line break, `Action Input:`, spaces.
    let window = 2 * ACTION_INPUT.len() + longest + REACT_SPACES;
    let from = text.len().saturating_sub(window);
    let react = memchr::memchr_iter(b'A', &text.as_bytes()[from..])
        .map(|k| from + k)
        .find(|&k| partial_react(&text[k..], tools));
    let gemini = partial_gemini_start(text, tools);
    let glm4 = super::glm4_line::partial(text, tools);
    let start = [
        word,
        called,
        react,
        gemini,
        glm4,
        partial_stripped(text, tools),
        mistral::partial_token(text),
    ]
    .into_iter()
    .flatten()
    .min();
    // A quote right before a lead makes it a mention ([`quoted`]): it stays with the lead, and
    // one that ends the text waits to see whether a lead follows it.
    match start {
        Some(s) if quoted(text, s) => Some(s - 1),
        Some(s) => Some(s),
        None => quoted(text, text.len()).then(|| text.len() - 1),
    }
}

/// Where a lead of a call whose special tokens were stripped, still completing at the end of
/// `text`, starts: Gemma's `call:NAME(` before its `{`, or an offered name followed by a prefix of
/// Mistral's `[ARGS]`.
fn partial_stripped(text: &str, tools: Option<&Value>) -> Option<usize> {
    if let Some(head) = text.strip_suffix('(') {
        return paren_lead(head, tools).map(|l| l.start);
    }
    args_lead_start(&text[..mistral::partial_head(text)?], tools)
}

/// Where the lead of Mistral's `NAME[ARGS]{…}` or `NAME[CALL_ID]ID[ARGS]{…}` starts when
/// `before` (the text before one of its `[`) ends with an offered name, or with one and its
/// `[CALL_ID]ID`: at the name, or at a `[TOOL_CALLS]` right before it.
pub fn args_lead_start(before: &str, tools: Option<&Value>) -> Option<usize> {
    let before = mistral::strip_call_id(before).map_or(before, |(head, _)| head);
    let name_at = name_before(before, tools)?;
    Some(marker_start(&before[..name_at]))
}

/// The spaces a held-back ReAct lead may hold (past them, it is not held back).
const REACT_SPACES: usize = 16;

/// Whether `tail` (the end of a reply) may still become the log line's lead.
fn partial_log_line(tail: &str, tools: Option<&Value>) -> bool {
    let Some(rest) = tail.strip_prefix(CALLED_OPEN) else {
        return tail.len() < CALLED_OPEN.len() && CALLED_OPEN.starts_with(tail);
    };
    let n = rest.bytes().take_while(|&b| name_byte(b)).count();
    let (name, after) = rest.split_at(n);
    if after.is_empty() {
        return names(tools).any(|t| t.starts_with(name));
    }
    offered(tools, name) && CALLED_MID.starts_with(after)
}

/// The start of the word that ends `before` (the maximal run of [`name_byte`]s), when that word
/// is exactly an offered tool's name.
pub fn name_before(before: &str, tools: Option<&Value>) -> Option<usize> {
    let start = before.len() - word_run(before, tools)?;
    // A name starts with a letter or `_` (`3{`, `-{` are not calls).
    let first = *before.as_bytes().get(start)?;
    ((first.is_ascii_alphabetic() || first == b'_') && offered(tools, &before[start..]))
        .then_some(start)
}

/// Where a word at the end of `text` that may still grow into an offered tool's name starts
/// (`None`: no such word). Only a run no longer than the longest offered name is considered.
pub fn partial_name_start(text: &str, tools: Option<&Value>) -> Option<usize> {
    let start = text.len() - word_run(text, tools)?;
    let word = &text[start..];
    (!word.is_empty() && names(tools).any(|n| n.starts_with(word))).then_some(start)
}

/// Whether `args` fit the offered tool `name`'s parameters: never an empty object; with a schema,
/// every `required` key is present and, when it lists `properties`, every key is one of them.
pub fn fits(tools: Option<&Value>, name: &str, args: &Map<String, Value>) -> bool {
    if args.is_empty() {
        return false;
    }
    let Some(params) = schema(tools, name) else {
        return true;
    };
    let required_there = params
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .all(|k| args.contains_key(k))
        });
    let keys_known = params
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|props| args.keys().all(|k| props.contains_key(k)));
    required_there && keys_known
}

/// The call of the object at `at` (`text[at]` is `{`, its value ends at `end`) after `lead`,
/// when the object fits the tool.
pub fn call_at(
    text: &str,
    lead: &Lead,
    at: usize,
    end: usize,
    tools: Option<&Value>,
) -> Option<RawCall> {
    let body = &text[..end];
    let read = match lead.args {
        // Gemma 4 writes a call that lost its `<|tool_call>call:` as the bare name glued to its
        // object, in its own notation (mattn/tensai PR 217): read so when its `<|"|>` string
        // token is there to say so.
        Args::Json => read_value(body, at).or_else(|| {
            body[at..]
                .contains(super::gemma4::QUOTE)
                .then(|| super::gemma4::object_at(body, at))
                .flatten()
        }),
        Args::Python => super::pyliteral::literal(body, at, 0),
        Args::Object => read_value(body, at).or_else(|| super::gemma4::object_at(body, at)),
    };
    let (Value::Object(args), e) = read? else {
        return None;
    };
    let name = &text[lead.name.clone()];
    // Mistral's `NAME[CALL_ID]ID[ARGS]{…}`: an id of Mistral's shape is kept, as its parser does.
    let id = (lead.name.end < at)
        .then(|| mistral::stripped_head(&text[..at]))
        .flatten()
        .and_then(|(_, id)| id)
        .filter(|id| mistral::is_mistral_id(id));
    (e == end && fits(tools, name, &args)).then(|| RawCall {
        name: name.to_owned(),
        arguments: args_value_to_text(Value::Object(args), "named_json", &mut Vec::new()),
        id: id.map(str::to_owned),
    })
}

/// Whether the object at `at` after `lead`, cut off by the end of the reply, shows it was the
/// tool's arguments as strongly as a whole one would: its first key (JSON `"k"`, Python `'k'` or
/// a bare word, then `:` or `=`) is one the tool takes (one of its schema's `properties`; any key
/// when its schema lists none). A `{` with nothing after it, or prose, is no evidence, except
/// after Mistral's `[TOOL_CALLS]NAME[ARGS]` (its special tokens written around an offered name
/// say the call as strongly as a key would).
pub fn cut_evidence(text: &str, lead: &Lead, at: usize, tools: Option<&Value>) -> bool {
    if text[lead.start..].starts_with(mistral::TOKEN)
        && mistral::stripped_head(&text[..at]).is_some()
    {
        return true;
    }
    let rest = text[at + 1..].trim_start();
    let (key, after) = match rest.as_bytes().first() {
        Some(&q @ (b'"' | b'\'')) => {
            let body = &rest[1..];
            let Some(e) = body.find(q as char) else {
                return false;
            };
            (&body[..e], &body[e + 1..])
        }
        _ => {
            let n = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..n], &rest[n..])
        }
    };
    if key.is_empty() || !after.trim_start().starts_with([':', '=']) {
        return false;
    }
    let name = &text[lead.name.clone()];
    match schema(tools, name)
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
    {
        Some(props) => props.contains_key(key),
        None => true,
    }
}

/// Every `NAME{…}` call (and log line) in `text` (the reading [`super::tool_json::parse`] adds to
/// bare JSON); a call whose `)` the end of the reply cut off is reported in `problems`.
pub fn blocks(text: &str, tools: Option<&Value>, problems: &mut Vec<String>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut budget = Budget::for_text(text);
    let mut skip_to = 0;
    for at in memchr::memchr_iter(b'{', text.as_bytes()) {
        if at < skip_to {
            continue;
        }
        let Some(lead) = lead_before(&text[..at], tools) else {
            continue;
        };
        let Some(end) = budget.balanced_end(text, at, false) else {
            if budget.spent() {
                break;
            }
            continue;
        };
        if let Some(call) = call_at(text, &lead, at, end, tools) {
            let end = match tail_end(text, end, lead.tail, true) {
                TailEnd::At(end) => end,
                TailEnd::Cut(end) => {
                    problems.push(format!(
                        "{}: call {:?} cut off before its ')' (truncated reply)",
                        super::tool_json::NAME,
                        call.name
                    ));
                    end
                }
                TailEnd::More | TailEnd::Missing => continue,
            };
            out.push(Block {
                start: lead.start,
                end,
                calls: vec![call],
                keep_raw: false,
            });
            skip_to = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Value {
        json!([
            {"type": "function", "function": {"name": "exec", "parameters": {"type": "object",
                "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
                "required": ["command"]}}},
            {"name": "note"}
        ])
    }

    #[test]
    fn gemini_namespace_and_its_glued_word_lead_the_call() {
        let t = tools();
        let t = Some(&t);
        let lead = lead_before("好的。declaration:default_api:exec", t);
        assert_eq!(lead.as_ref().map(|l| l.start), Some("好的。".len()));
        assert_eq!(lead.map(|l| l.args), Some(Args::Object));
        // A longer word, or one glued to letters before it, is not part of the call.
        assert_eq!(
            lead_before("xdeclarationdeclaration:default_api:exec", t).map(|l| l.start),
            Some("xdeclarationdeclaration:".len())
        );
        // While streaming, the namespace, its glued word or a `WORD:` at the end is held back.
        for (text, held) in [
            ("好的。call:default_api:ex", "好的。".len()),
            ("好的。call:default_a", "好的。".len()),
            ("好的 Lie:", "好的 ".len()),
            ("ok default_api:", "ok ".len()),
        ] {
            assert_eq!(partial_lead_start(text, t), Some(held), "{text}");
        }
        assert_eq!(partial_lead_start("and", t), None);
    }

    #[test]
    fn the_name_is_a_whole_offered_word() {
        let t = tools();
        let t = Some(&t);
        assert_eq!(
            name_before("让我正确执行：exec", t),
            Some("让我正确执行：".len())
        );
        assert_eq!(name_before("run exec", t), Some(4));
        assert_eq!(name_before("myexec", t), None);
        assert_eq!(name_before("exe", t), None);
        assert_eq!(name_before("exec", None), None);
        assert_eq!(partial_name_start("执行：ex", t), Some("执行：".len()));
        assert_eq!(partial_name_start("执行：exec", t), Some("执行：".len()));
        assert_eq!(partial_name_start("执行：exex", t), None);
        assert_eq!(partial_name_start("a ", t), None);
        let line = "Called Tool: 'exec' with arguments: ";
        assert_eq!(
            lead_before(&format!("好的 {line}"), t),
            Some(Lead {
                start: "好的 ".len(),
                name: "好的 Called Tool: '".len().."好的 Called Tool: 'exec".len(),
                args: Args::Python,
                tail: Tail::None,
            })
        );
        assert_eq!(lead_before("Called Tool: 'run' with arguments: ", t), None);
        for cut in 1..line.len() {
            let text = format!("好的 {}", &line[..cut]);
            assert_eq!(partial_lead_start(&text, t), Some("好的 ".len()), "{text}");
        }
        // Not the log line; only its last word waits (it may still become a glued `WORD:`).
        assert_eq!(
            partial_lead_start("Called Tool: 'run' with", t),
            Some("Called Tool: 'run' ".len())
        );
    }

    #[test]
    fn gemma_call_word_and_gemini_angle_lead_the_call() {
        let t = tools();
        let t = Some(&t);
        let lead = lead_before("好的。call:exec", t);
        assert_eq!(
            lead.as_ref().map(|l| (l.start, l.args)),
            Some(("好的。".len(), Args::Object))
        );
        let lead = lead_before("好的。<call:default_api:exec", t);
        assert_eq!(
            lead.map(|l| (l.start, l.tail)),
            Some(("好的。".len(), Tail::Slash))
        );
        // Glued to a longer word, or quoted (a JSON sample's string): no such lead.
        assert_eq!(
            lead_before("recall:exec", t).map(|l| l.args),
            Some(Args::Json)
        );
        assert_eq!(lead_before("{\"a\": \"call:exec", t), None);
        assert_eq!(lead_before("{\"a\": \"default_api:exec", t), None);
        // Held while arriving: the `<`, the word, the prefix, the name.
        for text in [
            "好的。<",
            "好的。<cal",
            "好的。<call:",
            "好的。<call:default_a",
            "好的。<call:ex",
        ] {
            assert_eq!(partial_lead_start(text, t), Some("好的。".len()), "{text}");
        }
    }

    #[test]
    fn the_object_must_fit_the_schema() {
        let t = tools();
        let t = Some(&t);
        let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert!(fits(t, "exec", &obj(json!({"command": "ls"}))));
        assert!(!fits(t, "exec", &obj(json!({"cmd": "ls"}))));
        assert!(!fits(t, "exec", &obj(json!({"timeout": 3}))));
        assert!(fits(t, "note", &obj(json!({"text": "x"}))));
        assert!(!fits(t, "note", &obj(json!({}))));
    }

    #[test]
    fn blocks_start_at_the_name() {
        let t = tools();
        let text = "让我正确执行：exec{\"command\": \"ls\"} 然后 exec{\"cmd\": 1} exec {\"command\": \"x\"}";
        let mut problems = Vec::new();
        let b = blocks(text, Some(&t), &mut problems);
        assert!(problems.is_empty());
        assert_eq!(b.len(), 1);
        assert_eq!(&text[b[0].start..b[0].end], "exec{\"command\": \"ls\"}");
        assert_eq!(b[0].calls[0].arguments, r#"{"command":"ls"}"#);
    }
}
