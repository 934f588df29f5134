//! The tools a caller offered (`options.tools`), as evidence for calls written without markers.
//!
//! A call written as plain text (a stripped Gemma `call:NAME{…}`, a bare JSON object) looks like
//! ordinary prose or data; what makes it a call is that its name is one of the tools the request
//! offered. [`offered`] answers that, and [`resolve`] maps a name the model wrote with spaces or in
//! another case (`"get weather"`) to the offered tool it stands for (`get_weather`), so a call is
//! never made to a tool the caller does not have.

use serde_json::Value;

/// The names of the offered tools (`tools[].function.name`, or a flat `tools[].name`).
pub fn names(tools: Option<&Value>) -> impl Iterator<Item = &str> {
    tools
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("function").unwrap_or(t).get("name")?.as_str())
}

/// The parameters schema of the offered tool `name` (`function.parameters`, or an Anthropic-style
/// `input_schema`), if it has one.
pub fn schema<'t>(tools: Option<&'t Value>, name: &str) -> Option<&'t Value> {
    let tool = tools.and_then(Value::as_array)?.iter().find_map(|t| {
        let f = t.get("function").unwrap_or(t);
        (f.get("name")?.as_str()? == name).then_some(f)
    })?;
    tool.get("parameters").or_else(|| tool.get("input_schema"))
}

/// Whether `name` is exactly one of the offered tools.
pub fn offered(tools: Option<&Value>, name: &str) -> bool {
    names(tools).any(|n| n == name)
}

/// The offered tool `name` stands for: itself, or the one tool that equals it once spaces, `-`
/// and `_` are made the same and case is ignored. `None` when no tool (or more than one) matches.
pub fn resolve<'t>(tools: Option<&'t Value>, name: &str) -> Option<&'t str> {
    if let Some(n) = names(tools).find(|n| *n == name) {
        return Some(n);
    }
    let want = key(name);
    let mut hits = names(tools).filter(|n| key(n) == want);
    let first = hits.next()?;
    hits.next().is_none().then_some(first)
}

/// What [`resolve`] compares names by: trimmed, `' '` and `-` made `_`, ASCII letters lower case.
fn key(s: &str) -> String {
    s.trim().chars().map(fold).collect()
}

/// One character as [`key`] sees it (length-preserving, so a key is found in a folded text).
fn fold(c: char) -> char {
    match c {
        ' ' | '-' => '_',
        c => c.to_ascii_lowercase(),
    }
}

/// The same on one ASCII byte (other bytes are left as they are, as [`fold`] leaves other chars).
fn fold_byte(b: u8) -> u8 {
    match b {
        b' ' | b'-' => b'_',
        b => b.to_ascii_lowercase(),
    }
}

/// Whether a text may name an offered tool the way any reader of unmarked text needs it named:
/// every call read without markers (a bare JSON object, `NAME{…}`, the log line, ReAct's
/// `Action:`, a stripped Harmony header) counts only when its name is offered or [`resolve`]s to
/// an offered tool, so a text holding no tool's [`key`] anywhere (case, spaces and `-` folded)
/// holds none of those calls. A name written with a JSON escape (`\u0065xec`) is the one way a
/// name can differ from its text: a `\u`, or any `\` when a tool's name holds a character JSON
/// escapes short, answers "may".
///
/// It lets [`super::unmarked`] answer without the full pass for a reply whose `{` are code and
/// data: with twenty tools offered, a 50 KB reply of JSON samples cost 45× the same reply without
/// tools. Built once per options (kept with them, see [`super::Options::offered`]).
#[derive(Debug, Clone, Default)]
pub struct OfferedNames {
    built: std::sync::OnceLock<Index>,
}

#[derive(Debug, Clone)]
struct Index {
    /// The tool names it was built from, to see that it still belongs to the options' tools.
    names: Vec<String>,
    /// The folded names, all ASCII; `None` when some name is not (then every text "may").
    keys: Option<aho_corasick::AhoCorasick>,
    /// The longest key, in bytes.
    longest: usize,
    /// The longest name, in bytes (as written: a glued name is taken exactly).
    longest_name: usize,
    /// Some name holds a character JSON escapes short (`"`, `\`, `/`, a control character).
    short_escapes: bool,
}

impl Index {
    fn new(tools: Option<&Value>) -> Index {
        let names: Vec<String> = names(tools).map(str::to_owned).collect();
        let keys: Vec<String> = names.iter().map(|n| key(n)).collect();
        let usable = keys.iter().all(|k| !k.is_empty() && k.is_ascii());
        Index {
            longest: keys.iter().map(String::len).max().unwrap_or(0),
            longest_name: names.iter().map(String::len).max().unwrap_or(0),
            short_escapes: keys.iter().any(|k| {
                k.bytes()
                    .any(|b| matches!(b, b'"' | b'\\' | b'/') || b < 0x20)
            }),
            keys: usable
                .then(|| aho_corasick::AhoCorasick::new(&keys).ok())
                .flatten(),
            names,
        }
    }

    fn belongs_to(&self, tools: Option<&Value>) -> bool {
        let mut given = names(tools);
        self.names.iter().all(|n| given.next() == Some(n.as_str())) && given.next().is_none()
    }
}

/// Pairs of units that the readers of unmarked text other than a glued `NAME{` need (see
/// [`OfferedNames::glued_only`]): the end of a `"name"` key, of a `"tool"` key, `to=functions.`,
/// `' with arguments`, `Action`.
const LEADS: [(u8, u8); 5] = [
    (b'e', b'"'),
    (b'l', b'"'),
    (b'=', b'f'),
    (b'\'', b' '),
    (b'A', b'c'),
];

/// Folded text is searched in windows of this many units (plus the longest key, so a name across
/// two windows is found).
const WINDOW_UNITS: usize = 4096;

impl OfferedNames {
    fn index(&self, tools: Option<&Value>) -> Option<Index> {
        let built = self.built.get_or_init(|| Index::new(tools));
        // Options whose tools were replaced after the index was built: read them afresh.
        (!built.belongs_to(tools)).then(|| Index::new(tools))
    }

    /// Whether `text` may name one of `tools` (see [`OfferedNames`]); `tools` must be the ones
    /// of the options this is kept with (else it is rebuilt for this call).
    ///
    /// ```
    /// use serde_json::json;
    /// use transcript_hygiene::response::bare_json::OfferedNames;
    /// let tools = json!([{"type": "function", "function": {"name": "get_weather"}}]);
    /// let names = OfferedNames::default();
    /// assert!(names.may_name(Some(&tools), r#"{"name": "Get Weather", "arguments": {}}"#));
    /// assert!(!names.may_name(Some(&tools), r#"配置：{"retries": 3}"#));
    /// assert!(names.may_name(Some(&tools), r#"好的 call:get_weather({"city": "北京"})"#));
    /// assert!(!names.may_name(Some(&tools), r#"render({"城市": "北京"})"#));
    /// ```
    pub fn may_name(&self, tools: Option<&Value>, text: &str) -> bool {
        if let Some(answer) = self.glued_only(tools, text.as_bytes()) {
            return answer;
        }
        self.may_name_in(tools, text.len(), |from, to, out| {
            out.extend(text.as_bytes()[from..to].iter().map(|&b| fold_byte(b)))
        })
    }

    /// The same on UTF-16 units (the addon asks before transcoding the JS string). Units that are
    /// not ASCII are written as `0x80`: every key is ASCII here, so none is found across one.
    pub fn may_name_units(&self, tools: Option<&Value>, units: &[u16]) -> bool {
        if let Some(answer) = self.glued_only(tools, units) {
            return answer;
        }
        self.may_name_in(tools, units.len(), |from, to, out| {
            out.extend(units[from..to].iter().map(
                |&u| {
                    if u < 0x80 {
                        fold_byte(u as u8)
                    } else {
                        0x80
                    }
                },
            ))
        })
    }

    /// The quick answer for a text that holds no backslash and none of [`LEADS`]: every reader of
    /// unmarked text but one needs one of those (a JSON `"name"`/`"tool_name"` key ends `e"`, a
    /// `"tool"` key `l"`, a
    /// stripped Harmony header holds `=f`, the log line `' `, ReAct `Ac`), and the ones left, a
    /// name glued to its `{` (`exec{…}`, [`super::named_json::name_before`]; or to `({`, Gemma's
    /// stripped `call:NAME({…})`) or to its `(` (a pythonic line,
    /// [`super::offered_pythonic`]), take the name exactly as offered: the word right before each
    /// `{` (or `({`, or `(`) decides. `None`: the full search does.
    fn glued_only<T: Copy + Into<u32>>(&self, tools: Option<&Value>, s: &[T]) -> Option<bool> {
        let fresh = self.index(tools);
        let ix = fresh.as_ref().or_else(|| self.built.get())?;
        ix.keys.as_ref()?;
        let at = |i: usize| s[i].into();
        let Some(&last) = s.last() else {
            return Some(false);
        };
        if Into::<u32>::into(last) == u32::from(b'\\') {
            return None;
        }
        // Each unit with the one after it, 64 at a time (plain compares the compiler widens):
        // a lead (`None`), or a name byte or `(` right before a `{` (only then are the words read),
        // or a name byte right before a `(`. The chunks where such a pair stands are kept: only
        // there are the words read (code is dense in `(` and `{`; reading the word before each of
        // them doubled the cost of a reply of code with tools offered).
        let mut lead = false;
        let mut glued_chunks: Vec<usize> = Vec::new();
        for (ci, (ca, cb)) in (s[..s.len() - 1].chunks(64).zip(s[1..].chunks(64))).enumerate() {
            let mut glued = false;
            for (&x, &y) in ca.iter().zip(cb) {
                let (x, y): (u32, u32) = (x.into(), y.into());
                let word = ((x | 0x20).wrapping_sub(u32::from(b'a')) < 26)
                    | (x.wrapping_sub(u32::from(b'0')) < 10)
                    | (x == u32::from(b'_'))
                    | (x == u32::from(b'-'))
                    | (x == u32::from(b'.'));
                lead |= (x == u32::from(b'\\'))
                    | LEADS.iter().fold(false, |h, &(a, b)| {
                        h | ((x == u32::from(a)) & (y == u32::from(b)))
                    });
                glued |= ((word | (x == u32::from(b'('))) & (y == u32::from(b'{')))
                    | (word & (y == u32::from(b'(')));
            }
            if lead {
                return None;
            }
            if glued {
                glued_chunks.push(ci);
            }
        }
        if glued_chunks.is_empty() {
            return Some(false);
        }
        let n = s.len();
        let name_byte = |u: u32| {
            u < 0x80 && {
                let b = u as u8;
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
            }
        };
        // A word decides only where its pair was seen glued: the unit before the `{` or `(` at
        // `j` (pair `j - 1` of the chunks above) is a name byte or `(`.
        let glued_at = glued_chunks
            .into_iter()
            .flat_map(|ci| ci * 64 + 1..(ci * 64 + 65).min(n));
        for j in glued_at.filter(|&j| at(j) == u32::from(b'{') || at(j) == u32::from(b'(')) {
            let j = if at(j) == u32::from(b'{') && j > 0 && at(j - 1) == u32::from(b'(') {
                j - 1
            } else {
                j
            };
            let mut k = j;
            while k > 0 && j - k <= ix.longest_name && name_byte(at(k - 1)) {
                k -= 1;
            }
            let word = k..j;
            let first = if word.is_empty() { 0 } else { at(k) };
            let starts = first < 0x80 && ((first as u8).is_ascii_alphabetic() || first == 0x5F);
            if word.len() <= ix.longest_name
                && starts
                && ix.names.iter().any(|name| {
                    name.len() == word.len()
                        && name
                            .bytes()
                            .zip(word.clone())
                            .all(|(b, q)| u32::from(b) == at(q))
                })
            {
                return Some(true);
            }
        }
        Some(false)
    }

    fn may_name_in(
        &self,
        tools: Option<&Value>,
        len: usize,
        folded: impl Fn(usize, usize, &mut Vec<u8>),
    ) -> bool {
        let fresh = self.index(tools);
        let Some(ix) = fresh.as_ref().or_else(|| self.built.get()) else {
            return true;
        };
        let Some(keys) = &ix.keys else {
            return true;
        };
        let mut buf = Vec::with_capacity(WINDOW_UNITS + ix.longest);
        let mut at = 0;
        while at < len {
            let to = (at + WINDOW_UNITS + ix.longest).min(len);
            buf.clear();
            folded(at, to, &mut buf);
            if keys.is_match(&buf[..]) {
                return true;
            }
            // A `\u` escape (or any escape, when a name holds a character escaped short) may
            // spell a name out (the window's overlap shows what follows its last byte).
            let new = &buf[..(to - at).min(WINDOW_UNITS)];
            if memchr::memchr_iter(b'\\', new)
                .any(|b| ix.short_escapes || buf.get(b + 1) == Some(&b'u'))
            {
                return true;
            }
            at += WINDOW_UNITS;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_resolve_against_the_tools() {
        let tools =
            json!([{"type": "function", "function": {"name": "get_weather"}}, {"name": "Read"}]);
        let t = Some(&tools);
        assert!(offered(t, "Read"));
        assert!(!offered(t, "read"));
        assert_eq!(resolve(t, "get weather"), Some("get_weather"));
        assert_eq!(resolve(t, "Get-Weather"), Some("get_weather"));
        assert_eq!(resolve(t, "read"), Some("Read"));
        assert_eq!(resolve(t, "write"), None);
        assert_eq!(resolve(None, "x"), None);
    }

    #[test]
    fn glued_names_are_answered_without_the_full_search() {
        let tools =
            json!([{"name": "exec"}, {"type": "function", "function": {"name": "read_file"}}]);
        let (n, t) = (OfferedNames::default(), Some(&tools));
        let code = "Set it: `{\"retries\": 3}` then\n```js\nconst cfg = { retries: 3 }\nrun(cfg, { dryRun: false })\n```\n";
        assert_eq!(n.glued_only(t, code.as_bytes()), Some(false));
        let units: Vec<u16> = "好的：exec{\"command\": \"ls\"}".encode_utf16().collect();
        assert_eq!(n.glued_only(t, &units[..]), Some(true));
        // Taken exactly, as `named_json` takes a glued name; a longer word is not the name.
        assert_eq!(
            n.glued_only(t, b"Exec{1} my_exec{2} read_file_x{3}"),
            Some(false)
        );
        // What other readers need sends the text to the full search.
        for s in [
            "{\"name\": \"exec\"}",
            "to=functions.exec {}",
            "Action: exec",
            "a\\u0065",
        ] {
            assert_eq!(n.glued_only(t, s.as_bytes()), None, "{s}");
        }
    }

    /// The words read only in the chunks where a glued pair stands answer as reading the word
    /// before every `{` and `(` did: on text of name bytes, brackets and spaces, glued pairs
    /// falling on either side of the 64-unit chunk boundaries, as bytes and as UTF-16 units.
    #[test]
    fn glued_chunks_answer_as_every_bracket_did() {
        use proptest::prelude::*;
        let tools = json!([{"name": "ab"}, {"name": "x_a"}, {"name": "b"}]);
        let (n, t) = (OfferedNames::default(), Some(&tools));
        let names = ["ab", "x_a", "b"];
        // The reading before: the word before each `{` or `(` of the whole text.
        let every = |s: &[u8]| {
            (0..s.len())
                .filter(|&j| matches!(s[j], b'{' | b'('))
                .any(|j| {
                    let j = if s[j] == b'{' && j > 0 && s[j - 1] == b'(' {
                        j - 1
                    } else {
                        j
                    };
                    let mut k = j;
                    while k > 0 && j - k <= 3 && is_name_byte(s[k - 1]) {
                        k -= 1;
                    }
                    let w = &s[k..j];
                    w.first()
                        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                        && names.iter().any(|m| m.as_bytes() == w)
                })
        };
        fn is_name_byte(b: u8) -> bool {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
        }
        let unit = prop::sample::select(vec![
            "a", "b", "x", "_", "(", "{", " ", "\n", ".", "ab", "x_a", "中",
        ]);
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 512,
            ..ProptestConfig::default()
        });
        runner
            .run(&prop::collection::vec(unit, 0..160), |parts| {
                let s = parts.concat();
                let want = (!s.is_empty()).then(|| every(s.as_bytes()));
                let got = n.glued_only(t, s.as_bytes());
                prop_assert_eq!(got.unwrap_or(false), want.unwrap_or(false), "{:?}", s);
                let units: Vec<u16> = s.encode_utf16().collect();
                let got16 = n.glued_only(t, &units[..]);
                let ascii: Vec<u8> = s
                    .chars()
                    .map(|c| if c.is_ascii() { c as u8 } else { 0x80 })
                    .collect();
                prop_assert_eq!(
                    got16.unwrap_or(false),
                    (!s.is_empty()) && every(&ascii),
                    "{:?}",
                    s
                );
                Ok(())
            })
            .unwrap();
    }

    /// The pre-check is sound: a reply without markers that it says names no offered tool comes
    /// out of the full reading unchanged. Run on every reply case (and the case with its markers
    /// blanked out, which leaves bare JSON, `NAME{…}` and prose), with the case's tools and with a
    /// fixed set, and on calls written every way the readers accept a name.
    #[test]
    fn a_reply_naming_no_offered_tool_is_read_unchanged() {
        use crate::response::stream::StreamCleaner;
        use crate::response::{braced_call, braced_call_units, cases, scan, Options};
        let fixed = json!([
            {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
            {"type": "function", "function": {"name": "exec"}},
            {"name": "Get-Weather"},
            {"name": "run tests"},
        ]);
        let mut texts: Vec<(String, Option<Value>)> = Vec::new();
        for c in cases::load() {
            let own = c.options.get("tools").cloned();
            let blanked: String = c
                .input
                .chars()
                .map(|ch| {
                    if matches!(ch, '<' | '[' | '◁') {
                        ' '
                    } else {
                        ch
                    }
                })
                .collect();
            for t in [&c.input, &blanked] {
                texts.push((t.clone(), Some(fixed.clone())));
                texts.push((t.clone(), own.clone()));
            }
        }
        let written = [
            r#"好的 {"name": "read_file", "arguments": {"path": "a.txt"}}"#,
            r#"{"name": "READ FILE", "arguments": {"path": "a.txt"}}"#,
            r#"{"name": "re\u0061d_file", "arguments": {"path": "a.txt"}}"#,
            r#"{"arguments": {"path": "a.txt"}, "name": "read-file"}"#,
            r#"让我执行：exec{"command": "ls -la"}"#,
            "Called Tool: 'exec' with arguments: {'command': 'ls'}",
            "Thought: list it\nAction: exec\nAction Input: {\"command\": \"ls\"}",
            "assistant to=functions.exec json{\"command\": \"ls\"}",
            r#"{"name": "get weather", "parameters": {"city": "北京"}}"#,
            r#"{"name": "Run-Tests", "arguments": {"filter": "x"}}"#,
            r#"说明文字很长。{"tool_name": "exec", "tool_input": {"command": "ls"}}"#,
            "先看看：\nread_file{\"path\": \"a.txt\"}",
            "先看看：\nread_file(path='a.txt')",
        ];
        for w in written {
            texts.push((w.to_owned(), Some(fixed.clone())));
        }
        let (mut skipped, mut read) = (0, 0);
        for (text, tools) in texts {
            if scan::may_hold_markers(&text) || !text.contains(['{', '(']) || tools.is_none() {
                continue;
            }
            let o = Options {
                tools: tools.clone(),
                ..Options::default()
            };
            let units: Vec<u16> = text.encode_utf16().collect();
            let may = braced_call(&o, &text);
            let brace = text.contains('{');
            assert_eq!(may, braced_call_units(&o, &units, brace), "{text}");
            let mut s = StreamCleaner::new(o.clone());
            let (first, end) = (s.push(&text).unwrap(), s.finish().unwrap());
            let changed = first.content + &end.chunk.content != text
                || !first.tool_calls.is_empty()
                || !end.problems.is_empty();
            assert!(
                may || !changed,
                "a call in a reply said to name no tool: {text}"
            );
            skipped += usize::from(!may);
            read += usize::from(changed);
        }
        // Both sides are exercised: replies answered without the full pass, and calls read.
        assert!(skipped > 100 && read >= written.len(), "{skipped} {read}");
    }
}
