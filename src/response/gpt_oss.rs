//! gpt-oss (OpenAI's open-weight models) writes Harmony messages (reference §12):
//!
//! ```text
//! <|channel|>analysis<|message|>Reasoning…<|end|>
//! <|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"files": []}<|call|>
//! <|start|>assistant<|channel|>final<|message|>Answer<|return|>
//! ```
//!
//! The `analysis` channel is reasoning and is split off by [`super::thinking`] before this parser
//! runs. Here, a message whose header names a recipient (`to=functions.NAME`, before or after
//! `<|channel|>`) is a call: its body is the JSON arguments (kept as written and reported when
//! invalid) and the whole message is removed. Any other message (`final`, or a `commentary`
//! preamble, which is meant for the user) keeps its body as content and loses its header and its
//! `<|end|>`/`<|return|>`. A recipient outside `functions.` is one of Harmony's built-in tools
//! (`browser.search`, `container.exec`, `python`): it is a call (named as written) only when
//! `tools` offers a tool of that name; otherwise the message is removed and reported, never run.
//! Unlike SGLang, final text after a call is kept.
//!
//! With the markers stripped by the server, the same reply reads
//! `analysisThinking…assistantcommentary to=functions.read_file json{"files": []}…assistantfinalAnswer`.
//! That form is plain text, so it is read only when `options.model` names gpt-oss or `format` is
//! `gpt_oss` (this parser then reads both forms); the marker form is detected in `auto`. For any
//! other model the stripped call is read only when the evidence is strong: `to=functions.NAME`
//! where NAME is one of `options.tools`, then the header's own words (`commentary`, `json`) and a
//! complete JSON object; its header words before it (`assistant`, `commentary`, in either order:
//! `assistant to=functions.exec_command commentary json{…}` is how Codex users saw it) go with it.
//! Without tools, or naming no offered tool, the words are text.

use std::sync::LazyLock;

use regex::Regex;

use super::json_calls::read_value;
use super::scan::{balanced_end, Finder};
use super::{normalize_json_args, Block, Ctx, Parsed, RawCall};

const NAME: &str = "gpt_oss";
const START: &str = "<|start|>";
pub(crate) const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
/// Message terminators, consumed with the message.
const ENDS: [&str; 3] = ["<|call|>", "<|end|>", "<|return|>"];
/// The headers of the stripped form that carry no call, removed as markup.
pub(crate) const STRIPPED_HEADERS: &[&str] = &["assistantfinal", "assistantcommentary"];

static RECIPIENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"to=([^\s<]+)").expect("static regex"));
static STRIPPED_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:assistant\s*|\A\s*)(?:commentary\s+)?to=([A-Za-z_][\w.\-]*)[^{\n]{0,64}\s*\{")
        .expect("static regex")
});

pub fn parse(text: &str, cx: &Ctx) -> Parsed {
    let mut out = Parsed::default();
    marked(text, &mut out);
    stripped(text, &mut out);
    out.blocks.sort_by_key(|b| b.start);
    for b in &mut out.blocks {
        let had = b.calls.len();
        b.calls.retain(|c| {
            let builtin = c.name.contains('.') || c.name == "python";
            let keep = !builtin || super::bare_json::offered(cx.tools, &c.name);
            if !keep {
                out.problems.push(format!(
                    "skipped-call: built-in tool {:?} was not offered in tools; not a call",
                    c.name
                ));
            }
            keep
        });
        if had > 0 && b.calls.is_empty() {
            b.keep_raw = false;
        }
    }
    out.set_format_if_calls(NAME);
    out
}

/// The longest start a continued header may have (whitespace, `to=`, a recipient, spaces), so a
/// stream holds at most this much back while it waits for the `<|channel|>`.
const MAX_LEAD: usize = 256;

/// Where the first `<|channel|>` is when the reply starts with a recipient and nothing else before
/// it (` to=functions.NAME<|channel|>…`: the prompt ended with `<|start|>assistant`).
pub(crate) fn continued_header(text: &str) -> Option<usize> {
    let at = text.find(CHANNEL)?;
    lead_is_recipient(&text[..at]).then_some(at)
}

/// Whether `s` is whitespace, `to=`, a recipient and spaces: the start of a header whose
/// `<|start|>assistant` was in the prompt.
pub(crate) fn lead_is_recipient(s: &str) -> bool {
    s.len() <= MAX_LEAD
        && s.trim_start()
            .strip_prefix("to=")
            .map(|r| r.trim_end_matches([' ', '\t']))
            .is_some_and(|name| !name.is_empty() && !name.contains(not_in_name))
}

/// Whether the `<|channel|>` that starts `rest` is named in a sentence (text), given whether
/// words stand before it on its line ([`super::gemma_channel::words_before`]): after it, spaces
/// then anything but a line break, the end of the reply, another token (`<|`) or a channel word
/// (`analysis`, `commentary`, `final`). A header lacks one side: it starts its line or follows
/// `<|start|>assistant`, and names its channel (MCPJam/inspector#720: "The tags like
/// \"<|channel|>\" is not being handled perfectly." lost the token). The rule Gemma 4's
/// `<|channel>` follows ([`super::gemma_channel`]); a channel word cut by the reply's end is a
/// header's. `None` when `rest` may still grow
/// (`finished` false) and does not tell yet; reads at most the spaces and one word after it.
pub(crate) fn channel_in_sentence(words_before: bool, rest: &str, finished: bool) -> Option<bool> {
    if !words_before {
        return Some(false);
    }
    let t = rest
        .get(CHANNEL.len()..)
        .unwrap_or("")
        .trim_start_matches([' ', '\t']);
    let Some(&first) = t.as_bytes().first() else {
        return if finished { Some(false) } else { None };
    };
    if matches!(first, b'\n' | b'\r') || t.starts_with("<|") {
        return Some(false);
    }
    for c in CHANNELS {
        if let Some(r) = t.strip_prefix(c) {
            return match r.as_bytes().first() {
                None if !finished => None,
                Some(&b) if b.is_ascii_alphanumeric() || b == b'_' => Some(true),
                _ => Some(false),
            };
        }
        // A channel word the reply's end cut (`<|channel|>fin`): a header cut by `max_tokens`.
        if c.starts_with(t) {
            return if finished { Some(false) } else { None };
        }
    }
    if "<|".starts_with(t) {
        return if finished { Some(false) } else { None };
    }
    Some(true)
}

/// The rest of a header whose token `marker` (`<|start|>` or `<|channel|>`, any other marker: 0)
/// `rest` follows: its role or channel word and the `<|message|>` right after it
/// (`<|channel|>analysis<|message|>`), so the header is read as one token.
pub(crate) fn header_rest(marker: &str, rest: &str) -> usize {
    if marker != START && marker != CHANNEL {
        return 0;
    }
    let word = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    word + if rest[word..].starts_with(MESSAGE) {
        MESSAGE.len()
    } else {
        0
    }
}

/// Whether the `<|start|>` at `at` of `text` is named in a sentence ([`super::sentence::named`]):
/// words before it on its line, and after it spaces then words (`The <|start|> token opens a
/// message.`). A header writes its role right after it (`<|start|>assistant`), or another token.
fn start_in_sentence(text: &str, at: usize) -> bool {
    let before = super::gemma_channel::words_before(text, at);
    let after = &text[at + START.len()..];
    super::sentence::named(before, after, true, |t, spaced| {
        Some(!spaced || t.starts_with("<|"))
    }) == Some(true)
}

/// The markup of a header with no `<|message|>`, read from its token at `at` up to `limit` (the
/// next `<|start|>` or the end).
struct Header {
    /// Where its markup ends.
    end: usize,
    /// It names a recipient (`to=…`): a call whose arguments never came.
    recipient: bool,
    /// It runs to the end of the reply in header words (a reply cut inside its header).
    cut: bool,
}

/// Channel names (after `<|channel|>`) and the constraint's format (after `<|constrain|>`).
const CHANNELS: [&str; 3] = ["analysis", "commentary", "final"];
const CONSTRAIN: &str = "<|constrain|>";
const FORMAT: &str = "json";

/// The header at `at` (`<|start|>` and its role word, or `<|channel|>` and its channel), then,
/// separated by spaces, `to=RECIPIENT`, `<|constrain|>` (with `json`) and, once either came, a
/// bare `json`, and `<|channel|>` with its channel; nothing else. What is left up to the end
/// of the reply, when only spaces or the start of one of these (a cut word), makes it `cut`.
fn no_message(text: &str, at: usize, limit: usize) -> Header {
    let word = |s: &str, w: &str| {
        s.strip_prefix(w)
            .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
    };
    let mut h = Header {
        end: at,
        recipient: false,
        cut: false,
    };
    let mut formatted = false;
    let mut pos = at;
    loop {
        let r = &text[pos..limit];
        let t = r.trim_start_matches([' ', '\t']);
        let gap = r.len() - t.len();
        let len = if pos == at && r.starts_with(START) {
            let rest = &r[START.len()..];
            START.len()
                + rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len())
        } else if t.starts_with(CHANNEL) && (gap == 0 || pos > at) {
            let rest = &t[CHANNEL.len()..];
            gap + CHANNEL.len()
                + CHANNELS
                    .iter()
                    .find(|c| word(rest, c))
                    .map_or(0, |c| c.len())
        } else if pos > at && t.starts_with("to=") {
            let name = t[3..].find(not_in_name).unwrap_or(t.len() - 3);
            if name == 0 {
                break;
            }
            h.recipient = true;
            gap + 3 + name
        } else if pos > at && t.starts_with(CONSTRAIN) {
            formatted = true;
            let rest = &t[CONSTRAIN.len()..];
            gap + CONSTRAIN.len() + if word(rest, FORMAT) { FORMAT.len() } else { 0 }
        } else if pos > at && (h.recipient || formatted) && gap > 0 && word(t, FORMAT) {
            gap + FORMAT.len()
        } else {
            break;
        };
        pos += len;
    }
    h.end = pos;
    if limit == text.len() {
        let t = text[pos..].trim_start_matches([' ', '\t']);
        let words = [CHANNEL, CONSTRAIN, MESSAGE, "to=", FORMAT];
        h.cut = words.iter().chain(&CHANNELS).any(|w| w.starts_with(t));
    }
    h
}

/// Characters that end a recipient (a code span's backtick or tilde never belongs to one).
fn not_in_name(c: char) -> bool {
    c.is_whitespace() || matches!(c, '<' | '`' | '~')
}

/// Whether the start of a reply `s` may still become a continued header (a stream holds it back
/// until its `<|channel|>` or other text decides).
pub(crate) fn may_continue_header(s: &str) -> bool {
    if s.len() > MAX_LEAD {
        return false;
    }
    let t = s.trim_start();
    let Some(r) = t.strip_prefix("to=") else {
        return "to=".starts_with(t);
    };
    let name_end = r.find(not_in_name).unwrap_or(r.len());
    let rest = r[name_end..].trim_start_matches([' ', '\t']);
    rest.starts_with(CHANNEL) || CHANNEL.starts_with(rest)
}

fn name_of(recipient: &str) -> &str {
    recipient.strip_prefix("functions.").unwrap_or(recipient)
}

/// The marker form.
fn marked(text: &str, out: &mut Parsed) {
    let mut starts = Finder::new(START);
    let mut channels = Finder::new(CHANNEL);
    let mut messages = Finder::new(MESSAGE);
    let mut ends = ENDS.map(Finder::new);
    let mut lead = continued_header(text);
    let mut at = 0;
    while let Some(found) = [starts.find(text, at), channels.find(text, at)]
        .into_iter()
        .flatten()
        .min()
    {
        // The reply continues a header the prompt began (`<|start|>assistant`): its recipient
        // comes before the first `<|channel|>`. Only the first header found can be that one
        // (taken once: reading it again after a header with no message went round forever).
        let start = if lead.take() == Some(found) { 0 } else { found };
        if start == found
            && text[found..].starts_with(CHANNEL)
            && channel_in_sentence(
                super::gemma_channel::words_before(text, found),
                &text[found..],
                true,
            ) == Some(true)
        {
            // A `<|channel|>` named in a sentence is text.
            at = found + CHANNEL.len();
            continue;
        }
        if start == found && text[found..].starts_with(START) && start_in_sentence(text, found) {
            at = found + START.len();
            continue;
        }
        let next_start = starts.find(text, start + 1).unwrap_or(text.len());
        let Some(msg) = messages.find(text, start).filter(|&m| m < next_start) else {
            // A header with no message (`<|start|>assistant` left before a removed analysis, a
            // reply cut inside its header, a header followed by prose): its markup goes (tokens,
            // the role or channel word, a recipient, a constraint), any other text stays (a
            // continued header's recipient before its token goes too).
            let h = no_message(text, found, next_start);
            let from = if start == 0 && found > 0 { 0 } else { found };
            let recipient = h.recipient || from < found;
            let end = if h.cut { text.len() } else { h.end };
            out.blocks.push(markup(from, end));
            if recipient {
                let raw = &text[from..end];
                out.problems.push(if h.cut {
                    format!("{NAME}: <|message|> missing (truncated reply); removed, raw text: {raw}")
                } else {
                    format!("unreadable-block: {NAME}: a call header with no <|message|>, prose after it; removed, raw text: {raw}")
                });
            }
            if h.cut {
                break;
            }
            at = end;
            continue;
        };
        let header = &text[start..msg];
        let body_at = msg + MESSAGE.len();
        let term = ends
            .iter_mut()
            .zip(ENDS)
            .filter_map(|(f, m)| f.find(text, body_at).map(|i| (i, m.len())))
            .min();
        let next_header = [starts.find(text, body_at), channels.find(text, body_at)]
            .into_iter()
            .flatten()
            .min();
        let (body_end, end) = match (term, next_header) {
            (Some((t, len)), n) if n.is_none_or(|n| t < n) => (t, t + len),
            (_, Some(n)) => (n, n),
            (_, None) => (text.len(), text.len()),
        };
        match RECIPIENT.captures(header).and_then(|c| c.get(1)) {
            Some(r) => {
                if end == text.len() && term.is_none() {
                    out.problems
                        .push(format!("{NAME}: <|call|> missing (truncated reply)"));
                }
                let arguments =
                    normalize_json_args(&text[body_at..body_end], NAME, &mut out.problems);
                out.blocks.push(Block {
                    start,
                    end,
                    calls: vec![RawCall {
                        name: name_of(r.as_str()).to_owned(),
                        arguments,
                        id: None,
                    }],
                    keep_raw: false,
                });
            }
            None => {
                out.blocks.push(markup(start, body_at));
                if end > body_end {
                    out.blocks.push(markup(body_end, end));
                }
            }
        }
        at = end.max(body_at);
    }
}

/// The stripped form: `…assistantcommentary to=functions.NAME json{…}` calls and the
/// `assistantfinal` / `assistantcommentary` headers.
fn stripped(text: &str, out: &mut Parsed) {
    let mut taken_to = 0;
    let headers = stripped_calls(text);
    for (i, &(start, json_at, name)) in headers.iter().enumerate() {
        let limit = headers.get(i + 1).map_or(text.len(), |h| h.0);
        if start < taken_to || out.blocks.iter().any(|b| b.start <= start && start < b.end) {
            continue;
        }
        let (arguments, end) = match read_value(text, json_at) {
            Some((v, end)) => (super::args_value_to_text(v, NAME, &mut out.problems), end),
            None => {
                let end = balanced_end(&text[..limit], json_at, false).unwrap_or(limit);
                (
                    normalize_json_args(&text[json_at..end], NAME, &mut out.problems),
                    end,
                )
            }
        };
        out.blocks.push(Block {
            start,
            end,
            calls: vec![RawCall {
                name: name.to_owned(),
                arguments,
                id: None,
            }],
            keep_raw: false,
        });
        taken_to = end;
    }
    let mut extra = Parsed {
        blocks: std::mem::take(&mut out.blocks),
        ..Parsed::default()
    };
    extra.strip_markup(text, STRIPPED_HEADERS);
    out.blocks = extra.blocks;
}

/// `(start, json start, name)` of each stripped call header followed by a JSON object (the
/// header's words, and whatever else the line holds before the `{`, go with the call).
fn stripped_calls(text: &str) -> Vec<(usize, usize, &str)> {
    STRIPPED_CALL
        .captures_iter(text)
        .filter_map(|c| {
            let all = c.get(0)?;
            let name = name_of(c.get(1)?.as_str());
            let lead = all.as_str().len() - all.as_str().trim_start().len();
            Some((all.start() + lead, all.end() - 1, name))
        })
        .collect()
}

fn markup(start: usize, end: usize) -> Block {
    Block {
        start,
        end,
        calls: Vec::new(),
        keep_raw: false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{named, run};
    use serde_json::json;

    #[test]
    fn harmony_with_markers() {
        let t = "<|channel|>analysis<|message|>Need to read files. Maybe to=functions.x<|end|>\
                 <|start|>assistant<|channel|>commentary<|message|>Reading them now.<|end|>\
                 <|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"files\": [\"a<b>&c\", \"北京.txt\"]}<|call|>\
                 <|start|>assistant to=functions.stat<|channel|>commentary json<|message|>{\"path\": \"/tmp\\nx\"}<|call|>\
                 <|start|>assistant<|channel|>final<|message|>Done.<|return|>";
        let c = run(t, None, None, None);
        assert_eq!(c.format, Some("gpt_oss"));
        assert_eq!(c.reasoning, "Need to read files. Maybe to=functions.x");
        assert_eq!(c.content, "Reading them now.Done.");
        assert_eq!(
            named(&c),
            [
                ("read_file", json!({"files": ["a<b>&c", "北京.txt"]})),
                ("stat", json!({"path": "/tmp\nx"}))
            ]
        );
    }

    #[test]
    fn stripped_form_needs_the_model_hint() {
        let t = "analysisThe user wants files.assistantcommentary to=functions.read_file json{\"files\": []}assistantfinalHere they are.";
        let c = run(t, None, Some("openai/gpt-oss-120b"), None);
        assert_eq!(c.format, Some("gpt_oss"));
        assert_eq!(c.reasoning, "The user wants files.");
        assert_eq!(c.content, "Here they are.");
        assert_eq!(named(&c), [("read_file", json!({"files": []}))]);
        let plain = run(t, None, None, None);
        assert_eq!(plain.content, t);
        assert!(plain.tool_calls.is_empty());
    }

    #[test]
    fn truncated_and_malformed_calls() {
        let t = "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": ";
        let c = run(t, None, None, None);
        assert!(c.tool_calls.is_empty(), "cut off inside its arguments");
        assert!(c.problems.len() >= 2);
        assert_eq!(c.content, "");
    }

    #[test]
    fn a_continued_header_without_a_message_is_read_once() {
        // Both went round forever (the header taken for the continued one on every turn), until
        // memory ran out: cut in its header words, the header goes whole and is reported; with
        // prose after it, the header's words go, the prose stays, and the header is reported.
        use super::super::{clean_response, Options};
        let cut = clean_response(
            " to=functions.f<|channel|>commentary <|constrain|>json",
            &Options::default(),
        );
        assert_eq!((cut.content.as_str(), cut.problems.len()), ("", 1));
        let prose = "to=functions.f<|channel|>commentary <|constrain|>北京今天晴";
        let kept = clean_response(prose, &Options::default());
        assert_eq!(kept.content, "北京今天晴");
        assert_eq!(kept.problems.len(), 1);
    }

    #[test]
    fn continued_header_is_bounded_and_linear_when_streamed() {
        use super::super::stream::StreamCleaner;
        use super::super::Options;
        // A reply that starts like a recipient but never reaches its channel: the stream holds
        // back at most the lead, so pushing it in small pieces stays linear.
        let make = |n: usize| format!(" to=functions.{}", "a".repeat(n));
        super::super::linearity::assert_grows_linearly("gpt_oss continued header", &make, &|t| {
            let mut s = StreamCleaner::new(Options::default());
            for piece in t.as_bytes().chunks(64) {
                let _ = s.push(std::str::from_utf8(piece).unwrap_or(""));
            }
            let _ = s.finish();
        });
    }
}
