//! The spellings of DeepSeek's DSML tags seen in the wild, mapped to the canonical one.
//!
//! DeepSeek-V3.2 and V4 write `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>` (V4's block
//! name), `<｜DSML｜invoke name=…>` and `<｜DSML｜parameter name=… string="true|false">` with the
//! full-width bar U+FF5C. Servers whose tokenizer or detokenizer mangles the special token leak
//! them with other bars: doubled `｜｜` (GenericAgent issue #804, opencrabs issue #419), the double
//! vertical line `‖` U+2016, the ASCII `|`, with spaces around the bars, and with the first bar
//! missing on every tag (`<DSML｜tool_calls>`, `</DSML｜invoke>`: a spelling several DSML
//! parsers list, as "missing bar" or a `<DSML｜tool_calls` start prefix). V4.1 also names the
//! section `calls` (`<｜｜DSML｜｜ calls>`, command-code issue 909). [`canonical`] rewrites every
//! such tag to `<｜DSML｜NAME` (and `tool_calls` and `calls` to `function_calls`) and keeps a map
//! from the rewritten text back to the original, so [`super::deepseek_v32`] reads one spelling and
//! reports ranges of the text it was given. Two drifted shapes are rewritten on the way: a section
//! opener that lost its head (`< calls>`, [`super::dsml_lost_head`]) and a self-closing invoke:
//! inside an invoke a parameter, outside one a call with no arguments ([`super::dsml_self_closing`]).

use std::borrow::Cow;

use super::{Block, Parsed, RawCall};

/// The format DeepSeek's DSML calls are reported as (V3.2's grammar, V4's `toolcall` tag, and
/// tags named after the tool).
pub const FORMAT: &str = "deepseek_v4";

/// The one call `name(arguments)` read from `start` to `end` (in the text the reader was given)
/// added to `out` as its block, the format set; returns `end`, where the reader goes on.
pub fn push_call(
    out: &mut Parsed,
    (start, end): (usize, usize),
    name: &str,
    arguments: String,
) -> usize {
    let call = RawCall {
        name: name.to_owned(),
        arguments,
        id: None,
    };
    out.blocks.push(Block::of_calls(
        start,
        end,
        vec![call],
        &mut out.problems,
        String::new,
    ));
    out.format.get_or_insert(FORMAT);
    end
}

/// The canonical tag head (after `<` or `</`).
pub const HEAD: &str = "｜DSML｜";

/// The tag names a DSML tag may carry.
const NAMES: &[(&str, &str)] = &[
    ("function_calls", "function_calls"),
    ("tool_calls", "function_calls"),
    ("calls", "function_calls"),
    ("invoke", "invoke"),
    ("parameter", "parameter"),
    ("toolcall", "toolcall"),
];

/// The closing tags after which a streamed block may end, in the unspaced spellings (a spaced
/// one is read too, at the end of the reply).
pub const CLOSERS: &[&str] = &[
    "</｜DSML｜function_calls>",
    "</｜｜DSML｜｜function_calls>",
    "</‖DSML‖function_calls>",
    "</|DSML|function_calls>",
    "</｜DSML｜tool_calls>",
    "</｜｜DSML｜｜tool_calls>",
    "</‖DSML‖tool_calls>",
    "</|DSML|tool_calls>",
    "</｜DSML｜calls>",
    "</｜｜DSML｜｜calls>",
    "</‖DSML‖calls>",
    "</|DSML|calls>",
    "</｜DSML｜invoke>",
    "</｜｜DSML｜｜invoke>",
    "</‖DSML‖invoke>",
    "</|DSML|invoke>",
    "</DSML｜function_calls>",
    "</DSML|function_calls>",
    "</DSML｜tool_calls>",
    "</DSML|tool_calls>",
    "</DSML｜calls>",
    "</DSML|calls>",
    "</DSML｜invoke>",
    "</DSML|invoke>",
];

/// The starts of a DSML opening tag in every spelling [`head`] reads: `<` and the head's first
/// character (a bar, a space before one, or `D` when the first bar is missing). A stream looks
/// for these and lets [`head`] settle the rest.
pub const STARTS: &[&str] = &["<｜", "<‖", "<|", "< ", "<D"];

/// [`STARTS`] of the closing tags (`</` and the head's first character).
pub const CLOSER_STARTS: &[&str] = &["</｜", "</‖", "</|", "</ ", "</D"];

/// The canonical section closer.
pub const SECTION_END: &str = "</｜DSML｜function_calls>";

/// The end of a call block whose invoke closer ends at `at` in `text` (canonical spelling), when
/// no section opener came before it: past a section closer right after it (whitespace between),
/// which belongs to the call, or at the end of `text` when only the stream machine's NUL ("more
/// may come") follows, so that the section closer may still come; else `at`.
pub fn section_end(text: &str, at: usize) -> usize {
    let r = text[at..].trim_start();
    if let Some(after) = r.strip_prefix(SECTION_END) {
        text.len() - after.len()
    } else if r == "\0" {
        text.len()
    } else {
        at
    }
}

/// One rewritten tag head: `orig` bytes at `orig_at` became `canon` bytes at `canon_at`.
#[derive(Debug, Clone, Copy)]
struct Edit {
    orig_at: usize,
    orig_len: usize,
    canon_at: usize,
    canon_len: usize,
}

/// A text with its DSML tags in the canonical spelling, and the way back.
#[derive(Debug)]
pub struct Canonical<'a> {
    pub text: Cow<'a, str>,
    edits: Vec<Edit>,
    /// The block name of the first section tag seen: `true` for V4's `tool_calls` (or `calls`).
    pub v4: bool,
}

impl Canonical<'_> {
    /// The position in the original text of position `p` of the canonical text (a position inside
    /// a rewritten tag head maps to that head's start).
    pub fn orig(&self, p: usize) -> usize {
        let i = self.edits.partition_point(|e| e.canon_at <= p);
        let Some(e) = i.checked_sub(1).and_then(|i| self.edits.get(i)) else {
            return p;
        };
        if p < e.canon_at + e.canon_len {
            if p == e.canon_at {
                e.orig_at
            } else {
                e.orig_at + e.orig_len
            }
        } else {
            p - (e.canon_at + e.canon_len) + e.orig_at + e.orig_len
        }
    }

    /// [`Self::orig`] of `p` when `p` is not strictly inside a rewritten tag head (a place the
    /// original text has too).
    fn orig_exact(&self, p: usize) -> Option<usize> {
        let i = self.edits.partition_point(|e| e.canon_at <= p);
        match i.checked_sub(1).and_then(|i| self.edits.get(i)) {
            Some(e) if p > e.canon_at && p < e.canon_at + e.canon_len => None,
            _ => Some(self.orig(p)),
        }
    }

    /// `v`, a piece of the canonical text (a parameter's value), as `orig` (the text this one was
    /// made from) wrote it: the map rewrites tags, and a value naming a DSML tag (a Write of a
    /// file documenting DSML) must come back exactly as the model wrote it. `None` when nothing
    /// in `v` was rewritten or its ends are not places of `orig` (then `v` is as written).
    pub fn as_written<'o>(&self, orig: &'o str, v: &str) -> Option<&'o str> {
        if self.edits.is_empty() {
            return None;
        }
        let base = self.text.as_ptr() as usize;
        let a = (v.as_ptr() as usize)
            .checked_sub(base)
            .filter(|a| a + v.len() <= self.text.len())?;
        let (x, y) = (self.orig_exact(a)?, self.orig_exact(a + v.len())?);
        orig.get(x..y).filter(|w| *w != v)
    }
}

/// A bar run: one or two of `｜`, `‖`, `|`, with spaces around. Returns the bytes read.
fn bars(s: &str) -> Option<usize> {
    let t = s.trim_start_matches(' ');
    let mut n = s.len() - t.len();
    let mut count = 0;
    let mut rest = t;
    while count < 2 {
        let Some(c) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '｜' | '‖' | '|'))
        else {
            break;
        };
        n += c.len_utf8();
        rest = &rest[c.len_utf8()..];
        count += 1;
    }
    if count == 0 {
        return None;
    }
    let t = rest.trim_start_matches(' ');
    Some(n + rest.len() - t.len())
}

/// If a DSML tag head starts at `s` (right after `<` or `</`): its length and canonical name.
/// The bars before `DSML` may be missing (`DSML｜invoke`); the ones after it may not.
pub fn head(s: &str) -> Option<(usize, &'static str)> {
    head_with(s, false)
}

/// [`head`], the bars before `DSML` required when `first_bar` (a line that lost its `<` is an
/// opener only with them, [`super::dsml_garbled_opener`]).
pub fn head_with(s: &str, first_bar: bool) -> Option<(usize, &'static str)> {
    let a = match bars(s) {
        Some(a) => a,
        None if !first_bar && s.starts_with("DSML") => 0,
        None => return None,
    };
    let rest = s[a..].strip_prefix("DSML")?;
    let b = bars(rest)?;
    let rest = &rest[b..];
    let &(word, canon) = NAMES.iter().find(|(w, _)| rest.starts_with(w))?;
    let mut n = a + 4 + b + word.len();
    let mut after = &rest[word.len()..];
    // A section name with a bar after it (`<|DSML|tool_calls|`, ds2api issue 389): the bar is
    // the head's, as the one before `DSML` is.
    if canon == "function_calls" {
        if let Some(t) = bars(after) {
            n += t;
            after = &after[t..];
        }
    }
    if !after
        .chars()
        .next()
        .is_none_or(|c| c == '>' || c.is_whitespace())
    {
        return None;
    }
    Some((n, canon))
}

/// After an `invoke` head: `Some(true)` when its name is empty (`name=""`: a sentence quoting the
/// tag, as in `回复里出现了 < | DSML| invoke name="" > 这样的字符串`; no call has an empty name),
/// `None` when `s` is cut short before that is known, `Some(false)` otherwise.
pub fn empty_name(s: &str) -> Option<bool> {
    const EMPTY: &[&str] = &["name=\"\"", "name=''"];
    let t = s.trim_start_matches(' ');
    if EMPTY.iter().any(|e| t.starts_with(e)) {
        Some(true)
    } else if EMPTY.iter().any(|e| e.starts_with(t)) {
        None
    } else {
        Some(false)
    }
}

/// Whether `s` (right after `<`, cut short by the end of a stream's buffer) may still become a
/// DSML tag head.
pub fn head_prefix(s: &str) -> bool {
    head_prefix_with(s, false)
}

/// [`head_prefix`], the bars before `DSML` optional unless `first_bar` ([`head_with`]).
pub fn head_prefix_with(s: &str, first_bar: bool) -> bool {
    fn skip_bars(s: &str) -> (&str, usize) {
        let mut t = s.trim_start_matches(' ');
        let mut n = 0;
        while n < 2 {
            match t.chars().next() {
                Some(c @ ('｜' | '‖' | '|')) => {
                    t = t[c.len_utf8()..].trim_start_matches(' ');
                    n += 1;
                }
                _ => break,
            }
        }
        (t, n)
    }
    let (t, n) = skip_bars(s);
    if t.is_empty() {
        return true;
    }
    if n == 0 && (first_bar || !"DSML".starts_with(t) && !t.starts_with("DSML")) {
        return false;
    }
    let Some(t) = t.strip_prefix("DSML") else {
        return "DSML".starts_with(t);
    };
    let (t, n) = skip_bars(t);
    t.is_empty() || (n > 0 && NAMES.iter().any(|(w, _)| w.starts_with(t)))
}

/// Whether `s`, right after a `<` and running to the end of a finished reply, is a DSML opener
/// cut before its attributes: a bar written, then what may still become a head (`｜DSML｜inv`,
/// `| DS`, `DSML｜inv` with the first bar missing), or a whole head with nothing after it
/// (`｜DSML｜invoke`). Four characters at least with the `<` (`<｜DS`, as a cut marker must have):
/// the call's start the reply's end cut, not text.
pub fn cut_opener(s: &str) -> bool {
    let bar = |t: &str| t.trim_start_matches(' ').starts_with(['｜', '‖', '|']);
    let first_bar_missing = s.strip_prefix("DSML").is_some_and(bar);
    if s.chars().nth(2).is_none() || !bar(s) && !first_bar_missing {
        return false;
    }
    match head(s) {
        Some((n, _)) => s[n..].trim().is_empty(),
        None => head_prefix(s),
    }
}

/// A DSML tag head that the end of `text` cuts (`<｜｜DSML｜｜inv`, `</ | DSML | par`, `<|DS`),
/// spelled otherwise than the canonical way: where its head starts (after `<` or `</`) and that
/// head cut at the same place in the canonical spelling (`｜DSML｜inv`, `｜DSML｜par`, `｜DS`). A
/// bar must be written (`< ` alone is no tag yet), but for a closer's `</` then spaces, which
/// becomes `</` (its bars still to come). Reads the last [`HEAD_WINDOW`] bytes.
fn cut_head(text: &str) -> Option<(usize, String)> {
    const HEAD_WINDOW: usize = 64;
    let tail = &text.as_bytes()[text.len().saturating_sub(HEAD_WINDOW)..];
    let lt = text.len() - tail.len() + memchr::memrchr(b'<', tail)?;
    let at = lt + 1 + usize::from(text.as_bytes().get(lt + 1) == Some(&b'/'));
    let s = text.get(at..)?;
    // `</` then spaces: a closer's head whose first bar is still to come.
    let spaced = at == lt + 2 && !s.is_empty() && s.bytes().all(|b| b == b' ');
    if spaced {
        return Some((at, String::new()));
    }
    if !s.contains(['｜', '‖', '|']) || !head_prefix(s) || head(s).is_some() {
        return None;
    }
    let is_bar = |c: char| matches!(c, '｜' | '‖' | '|' | ' ');
    let rest = s.trim_start_matches(is_bar);
    let mut canon = String::from("｜");
    if let Some(after) = rest.strip_prefix("DSML") {
        canon.push_str("DSML");
        let name = after.trim_start_matches(is_bar);
        if name.len() < after.len() && after.contains(['｜', '‖', '|']) {
            canon.push('｜');
            canon.push_str(name);
        }
    } else {
        canon.push_str(rest);
    }
    (canon != s).then_some((at, canon))
}

/// `text` with every DSML tag head in the canonical spelling (borrowed when it already is).
pub fn canonical(text: &str) -> Canonical<'_> {
    let mut edits = Vec::new();
    let mut out = String::new();
    let mut copied = 0;
    let mut v4 = None;
    // Inside an invoke's body (its opener read, its closer not yet).
    let mut open_invoke = false;
    for at in memchr::memchr_iter(b'<', text.as_bytes()) {
        if at < copied {
            continue;
        }
        let close = text.as_bytes().get(at + 1) == Some(&b'/');
        let h_at = at + 1 + usize::from(close);
        let rest = text.get(h_at..).unwrap_or("");
        let (len, name) = match head(rest) {
            Some(h) => h,
            // `< calls>` before an invoke: the section opener, its head lost.
            None if !close => match super::dsml_lost_head::lost_head(rest, true) {
                Some(n) if n > 0 => (n, "function_calls"),
                _ => continue,
            },
            None => continue,
        };
        if name == "invoke" && !close {
            match super::dsml_self_closing::rewrite(&rest[len..], open_invoke) {
                Some((n, tag)) => {
                    out.push_str(&text[copied..at]);
                    edits.push(Edit {
                        orig_at: at,
                        orig_len: h_at + len + n - at,
                        canon_at: out.len(),
                        canon_len: tag.len(),
                    });
                    out.push_str(&tag);
                    copied = h_at + len + n;
                    continue;
                }
                None => open_invoke = true,
            }
        } else if name != "parameter" {
            open_invoke = false;
        }
        let orig = &text[h_at..h_at + len];
        if v4.is_none() && name == "function_calls" {
            v4 = Some(
                !orig
                    .trim_end_matches(['｜', '‖', '|', ' '])
                    .ends_with("function_calls"),
            );
        }
        // A section opener that lost its `>` (`<｜DSML｜tool_calls`, then a line break and the
        // next tag, opencode#24566) gets it back: the section tag takes no attributes.
        let after = &text[h_at + len..];
        let gap = after.len() - after.trim_start().len();
        let gt = if h_at == at + 1
            && name == "function_calls"
            && after[..gap].contains('\n')
            && after[gap..].starts_with('<')
        {
            ">"
        } else {
            ""
        };
        let canon_len = HEAD.len() + name.len() + gt.len();
        if gt.is_empty()
            && orig.len() == canon_len
            && orig.starts_with(HEAD)
            && orig.ends_with(name)
        {
            continue;
        }
        out.push_str(&text[copied..h_at]);
        edits.push(Edit {
            orig_at: h_at,
            orig_len: len,
            canon_at: out.len(),
            canon_len,
        });
        out.push_str(HEAD);
        out.push_str(name);
        out.push_str(gt);
        copied = h_at + len;
    }
    if let Some((at, canon)) = cut_head(text).filter(|&(at, _)| at >= copied) {
        // A tag the end of the text cut inside its head, in another spelling: its bars made
        // canonical too, so a reader that finds a cut canonical tag finds this one.
        out.push_str(&text[copied..at]);
        edits.push(Edit {
            orig_at: at,
            orig_len: text.len() - at,
            canon_at: out.len(),
            canon_len: canon.len(),
        });
        out.push_str(&canon);
        copied = text.len();
    }
    let text = if edits.is_empty() {
        Cow::Borrowed(text)
    } else {
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    };
    Canonical {
        text,
        edits,
        v4: v4.unwrap_or(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bar_spelling_becomes_the_canonical_one() {
        for (t, want) in [
            ("<｜DSML｜invoke name=\"f\">", "<｜DSML｜invoke name=\"f\">"),
            (
                "<｜｜DSML｜｜invoke name=\"f\">",
                "<｜DSML｜invoke name=\"f\">",
            ),
            ("<‖DSML‖tool_calls>", "<｜DSML｜function_calls>"),
            ("</|DSML|parameter>", "</｜DSML｜parameter>"),
            ("< ｜ DSML ｜ invoke>", "<｜DSML｜invoke>"),
            ("<|DSML|invokes>", "<|DSML|invokes>"),
            ("<｜｜DSML｜｜ calls>", "<｜DSML｜function_calls>"),
            ("</｜｜DSML｜｜ calls>", "</｜DSML｜function_calls>"),
            ("<|DSML|callsign>", "<|DSML|callsign>"),
            ("<DSML>", "<DSML>"),
            ("<｜DSML｜tool_calls\n<", "<｜DSML｜function_calls>\n<"),
            ("</｜DSML｜tool_calls\n<", "</｜DSML｜function_calls\n<"),
            (
                "<｜DSML｜tool_calls 而不是 <",
                "<｜DSML｜function_calls 而不是 <",
            ),
            // A tag head cut by the end of the text.
            ("a\n<｜｜DSML｜｜inv", "a\n<｜DSML｜inv"),
            ("a</ | DSML | para", "a</｜DSML｜para"),
            ("a</‖DSML", "a</｜DSML"),
            ("a<|DS", "a<｜DS"),
            ("a<｜DSML｜inv", "a<｜DSML｜inv"),
            ("a < b", "a < b"),
            ("a <| b", "a <| b"),
            ("a < ", "a < "),
            ("a </ ", "a </"),
        ] {
            assert_eq!(canonical(t).text, want, "{t}");
        }
        for (s, cut) in [
            ("｜DSML｜inv", true),
            ("｜｜DSML｜｜invoke", true),
            (" | DS", true),
            ("｜DSML｜tool_calls", true),
            ("｜DS", true),
            ("｜D", false),
            ("｜", false),
            ("| x", false),
            ("｜DSML｜invoke name=\"a", false),
            ("DSML｜inv", true),
            ("DSML｜", true),
            ("DSML", false),
            ("DSMLx", false),
        ] {
            assert_eq!(cut_opener(s), cut, "{s}");
        }
        assert!(canonical("<‖DSML‖tool_calls>").v4);
        assert!(!canonical("<｜DSML｜function_calls>").v4);
        assert!(canonical("<｜｜DSML｜｜ calls>").v4);
    }

    #[test]
    fn positions_map_back() {
        let t = "ab<‖DSML‖invoke name=\"f\">x</‖DSML‖invoke>yz";
        let c = canonical(t);
        let canon = c.text.to_string();
        let x = canon.find('x').unwrap_or(0);
        assert_eq!(&t[c.orig(x)..c.orig(x) + 1], "x");
        assert_eq!(c.orig(2), 2);
        assert_eq!(c.orig(canon.len()), t.len());
        assert_eq!(&t[c.orig(canon.len() - 2)..], "yz");
    }
}
