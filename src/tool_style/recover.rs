//! The migration: flattened tool calls and results back to native `tool_use` / `tool_result`
//! pairs (seed 001's missing "迁移工具").
//!
//! Flattened text has no ids, so pairs are found by position: the Nth flattened call of an
//! assistant message goes with the Nth `[NAME Result]` block of the next user message when the
//! names agree. A result naming the call just paired is a second `tool_result` for the same id
//! (Kilo v4.111.1–v4.118 pushed one per `pushToolResult`) and is merged into it. A call whose
//! result is missing gets the `is_error` result Roo appends for interrupted calls; a result with no
//! call stays text. Every value loses exactly the newline the format added on each side; types
//! come back from the tools' schemas when given ([`super::schema`]).
//!
//! Two more shapes ([`super::call_less`]): Kilo v4.106–v4.111.0 histories, where native calls were
//! never recorded and only `[<desc>] Result:` texts remain, and, when asked (`xmlProtocol`),
//! genuine XML-protocol calls.
//!
//! And native calls Cline answered with user text (`[<desc>] Result:\n…`, no `tool_result`): the
//! text becomes the call's result ([`super::text_result`]).
//!
//! Native `tool_result`s sharing one id in a user message are merged too: Anthropic and OpenAI
//! both reject the repeat.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::call_less;
use super::flat_call::{self, FlatCall, Parsed};
use super::flat_result;
use super::ids::Ids;
use super::model::{Block, History, Part, ResultContent};
use super::plan::{
    slice, write_edits, write_str, Edit, PartSpec, Piece, ResultSpec, Spec, Str, Val,
};
use super::schema::{restore, restore_untyped, Restored, Tools};
use super::text_result;

/// The text Roo gives a call whose result never came.
pub const INTERRUPTED: &str = "Task was interrupted before this tool call could be completed.";

#[derive(Debug, Default)]
pub struct Options {
    pub tools: Tools,
    /// Convert genuine XML-protocol calls too.
    pub xml_protocol: bool,
}

impl Options {
    pub fn from_json(v: Option<&Value>) -> Result<Options, String> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(Options::default());
        };
        Ok(Options {
            tools: Tools::from_json(v.get("tools")),
            xml_protocol: v.get("xmlProtocol").and_then(Value::as_bool) == Some(true),
        })
    }
}

/// Something the caller should know: where (a path in the input history) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub path: String,
    pub kind: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub id: String,
    pub name: String,
    /// Where the call was (the block it was rebuilt from, or for a call never recorded, its result).
    pub call: String,
    pub result: Option<String>,
    pub source: &'static str,
}

#[derive(Debug, Default)]
pub struct Recovery {
    pub edits: Vec<Edit>,
    pub recovered: Vec<Pair>,
    pub unrecoverable: Vec<Note>,
    pub warnings: Vec<Note>,
}

pub fn path(m: usize, b: usize) -> String {
    format!("history[{m}].content[{b}]")
}

fn note(path: String, kind: &'static str, message: impl Into<String>) -> Note {
    Note {
        path,
        kind,
        message: message.into(),
    }
}

fn write_notes(out: &mut String, notes: &[Note]) {
    out.push('[');
    for (k, n) in notes.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str("{\"path\":");
        write_str(out, &n.path);
        out.push_str(",\"kind\":");
        write_str(out, n.kind);
        out.push_str(",\"message\":");
        write_str(out, &n.message);
        out.push('}');
    }
    out.push(']');
}

impl Recovery {
    /// The answer as JSON (written directly: see [`Spec::write`]).
    pub fn to_json_string(&self) -> String {
        let mut out = String::from("{\"edits\":");
        write_edits(&mut out, &self.edits);
        out.push_str(",\"recovered\":[");
        for (k, p) in self.recovered.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            out.push_str("{\"id\":");
            write_str(&mut out, &p.id);
            out.push_str(",\"name\":");
            write_str(&mut out, &p.name);
            out.push_str(",\"call\":");
            write_str(&mut out, &p.call);
            out.push_str(",\"result\":");
            match &p.result {
                Some(r) => write_str(&mut out, r),
                None => out.push_str("null"),
            }
            out.push_str(",\"source\":");
            write_str(&mut out, p.source);
            out.push('}');
        }
        out.push_str("],\"unrecoverable\":");
        write_notes(&mut out, &self.unrecoverable);
        out.push_str(",\"warnings\":");
        write_notes(&mut out, &self.warnings);
        out.push('}');
        out
    }
}

/// State shared by the rules of one pass.
pub struct Pass<'h> {
    pub h: &'h History,
    pub opts: &'h Options,
    pub ids: Ids,
    /// New content per message (`None`: untouched).
    pub content: Vec<Option<Vec<Spec>>>,
    pub out: Recovery,
}

impl<'h> Pass<'h> {
    /// A tool_use input from `(key, text range)` pairs of text `ti`, typed from the schema.
    pub fn input(
        &mut self,
        tool: &str,
        ti: usize,
        params: &[(&str, std::ops::Range<usize>)],
        at: &str,
    ) -> Vec<(String, Val)> {
        let text = self.h.text(ti);
        let mut input = Vec::with_capacity(params.len());
        for (k, r) in params {
            let raw = text.get(r.clone()).unwrap_or("");
            let types = self.opts.tools.types(tool, k);
            let as_text = || Val::Str(vec![slice(ti, text, r.start, r.end)]);
            let v = match types.map_or_else(|| restore_untyped(raw), |t| restore(raw, Some(t))) {
                Restored::Value(Value::String(_)) => as_text(),
                Restored::Value(v) => Val::Json(v),
                Restored::Lossy(kind) => {
                    self.out.unrecoverable.push(note(
                        format!("{at}.input.{k}"),
                        kind,
                        if kind == super::schema::OBJECT_LOST {
                            format!("{tool}.{k} was an object or array of objects; flattening wrote it as [object Object]. Kept as that text")
                        } else {
                            format!("{tool}.{k} is {raw:?}, which its schema's type cannot hold. Kept as text")
                        },
                    ));
                    as_text()
                }
            };
            input.push((k.to_string(), v));
        }
        input
    }

    pub fn check_tool(&mut self, name: &str, at: &str) {
        if self.opts.tools.given && !self.opts.tools.has(name) {
            self.out.warnings.push(note(
                at.to_string(),
                "unknown_tool",
                format!("{name} is not in options.tools; rebuilt as written, values left untyped"),
            ));
        }
    }

    fn blocks_of(&self, m: usize) -> Vec<Spec> {
        (0..self.h.msgs[m].blocks().len()).map(Spec::Keep).collect()
    }

    /// The content being built for message `m` (its blocks kept, to start with).
    pub fn edit(&mut self, m: usize) -> &mut Vec<Spec> {
        if self.content[m].is_none() {
            self.content[m] = Some(self.blocks_of(m));
        }
        self.content[m].get_or_insert_with(Vec::new)
    }
}

/// The pieces of a flattened result's text from byte `from`: one string, or Kilo's
/// `[<desc>] Result:` header and the output as two text parts.
fn result_pieces(ti: usize, text: &str, from: usize) -> Vec<Str> {
    match flat_result::desc_split(text, from) {
        Some((end, rest)) if rest < text.len() || end + 2 == rest => vec![
            vec![slice(ti, text, from, end)],
            vec![slice(ti, text, rest, text.len())],
        ],
        Some((end, _)) => vec![vec![slice(ti, text, from, end)]],
        None => vec![if from == text.len() {
            vec![Piece::Lit(String::new())]
        } else {
            vec![slice(ti, text, from, text.len())]
        }],
    }
}

fn result_content(mut pieces: Vec<Str>) -> ResultSpec {
    if pieces.len() == 1 {
        ResultSpec::Str(pieces.remove(0))
    } else {
        ResultSpec::Parts(pieces.into_iter().map(PartSpec::Text).collect())
    }
}

struct FlatResult<'a> {
    b: usize,
    ti: usize,
    name: &'a str,
    from: usize,
}

fn may_have_had_images(name: &str, text: &str) -> bool {
    name == "browser_action"
        || name == "read_file"
            && [
                ".png<", ".jpg<", ".jpeg<", ".gif<", ".webp<", ".png'", ".jpg'", ".jpeg'", ".gif'",
                ".webp'",
            ]
            .iter()
            .any(|e| text.contains(e))
}

/// Pairs the flattened calls of assistant message `a` with the flattened results of user message
/// `u` (`None`: no user message follows).
fn pair_flattened<'a>(
    p: &mut Pass<'a>,
    a: usize,
    calls: Vec<(usize, usize, FlatCall<'a>)>,
    u: Option<usize>,
    results: Vec<FlatResult<'a>>,
) {
    // (call index, result indices)
    let mut pairs: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut lone_results = Vec::new();
    let mut ci = 0;
    for (ri, r) in results.iter().enumerate() {
        if ci < calls.len() && calls[ci].2.name == r.name {
            pairs.push((ci, vec![ri]));
            ci += 1;
        } else if let Some(last) = pairs.last_mut().filter(|l| calls[l.0].2.name == r.name) {
            last.1.push(ri);
        } else if let Some(j) = (r.name != flatten_unknown())
            .then(|| (ci..calls.len()).find(|&j| calls[j].2.name == r.name))
            .flatten()
        {
            pairs.push((j, vec![ri]));
            ci = j + 1;
        } else {
            lone_results.push(ri);
        }
    }
    let paired: HashMap<usize, &Vec<usize>> = pairs.iter().map(|(c, rs)| (*c, rs)).collect();
    // Calls with no `[NAME Result]` that a result text answers (a Cline history flattened).
    let texts: HashMap<usize, (usize, usize)> = match u {
        Some(u) => {
            let missing: Vec<usize> = (0..calls.len())
                .filter(|k| !paired.contains_key(k))
                .collect();
            let names: Vec<&str> = missing.iter().map(|&k| calls[k].2.name).collect();
            let (blocks, said) = text_result::result_texts(p.h, u, &HashSet::new());
            text_result::pair(&names, &said)
                .into_iter()
                .zip(missing)
                .filter_map(|(j, k)| {
                    let tb = blocks[j?];
                    match p.h.msgs[u].blocks().get(tb) {
                        Some(Block::Text(ti)) => Some((k, (tb, *ti))),
                        _ => None,
                    }
                })
                .collect()
        }
        None => HashMap::new(),
    };
    let mut synthetic = Vec::new();
    let mut result_specs: HashMap<usize, Spec> = HashMap::new();
    let mut merged_away: HashSet<usize> = HashSet::new();
    for (k, (b, ti, call)) in calls.iter().enumerate() {
        let at = path(a, *b);
        let id = p.ids.at("recovered", a, *b);
        p.check_tool(call.name, &at);
        let input = p.input(call.name, *ti, &call.params, &at);
        p.edit(a)[*b] = Spec::ToolUse {
            id: id.clone(),
            name: call.name.to_string(),
            input,
        };
        let result_path = match (paired.get(&k), u) {
            (Some(rs), Some(u)) => {
                let mut pieces = Vec::new();
                for &ri in rs.iter() {
                    let r = &results[ri];
                    let text = p.h.text(r.ti);
                    if may_have_had_images(r.name, text) {
                        p.out.unrecoverable.push(note(
                            path(u, r.b),
                            "images_dropped",
                            "flattening dropped the images of tool results; any this result had are gone",
                        ));
                    }
                    pieces.extend(result_pieces(r.ti, text, r.from));
                }
                let first = results[rs[0]].b;
                if rs.len() > 1 {
                    p.out.warnings.push(note(
                        path(u, first),
                        "merged_results",
                        format!(
                            "{} results for one {} call merged into one tool_result",
                            rs.len(),
                            call.name
                        ),
                    ));
                }
                for &ri in &rs[1..] {
                    merged_away.insert(results[ri].b);
                }
                result_specs.insert(
                    first,
                    Spec::ToolResult {
                        base: None,
                        id: id.clone(),
                        content: result_content(pieces),
                        is_error: None,
                    },
                );
                Some(path(u, first))
            }
            (_, Some(u)) if texts.contains_key(&k) => {
                let (tb, ti) = texts[&k];
                result_specs.insert(tb, text_result::result_spec(&id, ti));
                Some(path(u, tb))
            }
            (_, Some(u)) => {
                p.out.warnings.push(note(
                    at.clone(),
                    "call_without_result",
                    format!(
                        "no [{} Result] in the next user message; an is_error result was added",
                        call.name
                    ),
                ));
                synthetic.push(Spec::ToolResult {
                    base: None,
                    id: id.clone(),
                    content: ResultSpec::Str(vec![Piece::Lit(INTERRUPTED.into())]),
                    is_error: Some(true),
                });
                let _ = u;
                None
            }
            (_, None) => {
                p.out.warnings.push(note(
                    at.clone(),
                    "call_without_result",
                    format!("{} has no result: no user message follows", call.name),
                ));
                None
            }
        };
        p.out.recovered.push(Pair {
            id,
            name: call.name.to_string(),
            call: at,
            result: result_path,
            source: "flattened",
        });
    }
    for ri in lone_results {
        let r = &results[ri];
        if let Some(u) = u {
            p.out.warnings.push(note(
                path(u, r.b),
                "result_without_call",
                format!(
                    "[{} Result] has no flattened call to pair with; left as text",
                    r.name
                ),
            ));
        }
    }
    let Some(u) = u else { return };
    if result_specs.is_empty() && synthetic.is_empty() {
        return;
    }
    let mut content: Vec<Spec> = Vec::new();
    let user_blocks = p.edit(u).clone();
    let string_content = matches!(p.h.msgs[u].content, super::model::Content::Str(_));
    if string_content {
        if let super::model::Content::Str(ti) = p.h.msgs[u].content {
            content.push(Spec::Text(vec![Piece::Whole(ti)]));
        }
    } else {
        for (b, spec) in user_blocks.into_iter().enumerate() {
            if merged_away.contains(&b) {
                continue;
            }
            content.push(result_specs.remove(&b).unwrap_or(spec));
        }
    }
    // Synthetic results go after the rebuilt ones, so results stay in call order.
    let at = content
        .iter()
        .rposition(|c| matches!(c, Spec::ToolResult { .. }))
        .map_or(0, |i| i + 1);
    content.splice(at..at, synthetic);
    p.content[u] = Some(content);
}

fn flatten_unknown() -> &'static str {
    super::flatten::UNKNOWN_TOOL
}

/// Merges native tool_results that share an id within message `m` (left untouched so far).
fn merge_native(p: &mut Pass<'_>, m: usize) {
    let blocks = p.h.msgs[m].blocks();
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for (b, blk) in blocks.iter().enumerate() {
        if let Block::ToolResult { id: Some(id), .. } = blk {
            match first.get(id.as_str()) {
                Some(&f) => groups.entry(f).or_default().push(b),
                None => {
                    first.insert(id, b);
                }
            }
        }
    }
    if groups.is_empty() {
        return;
    }
    let mut content = Vec::new();
    let dropped: HashSet<usize> = groups.values().flatten().copied().collect();
    for (b, blk) in blocks.iter().enumerate() {
        if dropped.contains(&b) {
            continue;
        }
        let Some(more) = groups.get(&b) else {
            content.push(Spec::Keep(b));
            continue;
        };
        let mut parts = Vec::new();
        let mut is_error = false;
        let mut id = String::new();
        for &k in std::iter::once(&b).chain(more.iter()) {
            if let Block::ToolResult {
                id: Some(i),
                content: c,
                is_error: e,
            } = &blocks[k]
            {
                id.clone_from(i);
                is_error |= *e;
                match c {
                    ResultContent::None => {}
                    ResultContent::Str(ti) => parts.push(PartSpec::Text(vec![Piece::Whole(*ti)])),
                    ResultContent::Parts(ps) => {
                        parts.extend((0..ps.len()).map(|s| PartSpec::Sub(k, s)))
                    }
                }
            }
        }
        let _ = blk;
        p.out.warnings.push(note(
            path(m, b),
            "merged_results",
            format!(
                "{} tool_results for id {id} merged into one",
                more.len() + 1
            ),
        ));
        content.push(Spec::ToolResult {
            base: Some(b),
            id,
            content: ResultSpec::Parts(parts),
            is_error: is_error.then_some(true),
        });
    }
    p.content[m] = Some(content);
}

pub fn recover(h: &History, opts: &Options) -> Recovery {
    let mut taken = Vec::new();
    for m in &h.msgs {
        for b in m.blocks() {
            match b {
                Block::ToolUse { id: Some(id), .. } | Block::ToolResult { id: Some(id), .. } => {
                    taken.push(id.clone())
                }
                _ => {}
            }
        }
    }
    let mut p = Pass {
        h,
        opts,
        ids: Ids::new(taken),
        content: vec![None; h.msgs.len()],
        out: Recovery::default(),
    };
    let mut visited_user = vec![false; h.msgs.len()];
    for a in 0..h.msgs.len() {
        let msg = &h.msgs[a];
        if msg.role != "assistant" {
            continue;
        }
        let u = (a + 1 < h.msgs.len() && h.msgs[a + 1].role == "user").then_some(a + 1);
        let mut calls = Vec::new();
        for (b, blk) in msg.blocks().iter().enumerate() {
            if let Block::Text(ti) = blk {
                match flat_call::parse(h.text(*ti)) {
                    Parsed::Call(c) => calls.push((b, *ti, c)),
                    Parsed::Broken { name } => p.out.unrecoverable.push(note(
                        path(a, b),
                        "truncated_call",
                        format!("text opens a flattened {name} call but does not close or parse; left as text"),
                    )),
                    Parsed::NotACall => {}
                }
            }
        }
        let mut results = Vec::new();
        if let Some(u) = u {
            visited_user[u] = true;
            for (b, blk) in h.msgs[u].blocks().iter().enumerate() {
                if let Block::Text(ti) = blk {
                    if let Some((name, from)) = flat_result::parse(h.text(*ti)) {
                        results.push(FlatResult {
                            b,
                            ti: *ti,
                            name,
                            from,
                        });
                    }
                }
            }
        }
        // A call alone in its block with padded values, answered by an XML-protocol
        // `[<desc>] Result:`, is a genuine XML call that merely looks flattened (models often
        // write `<attempt_completion>\n<result>\n…\n</result>\n</attempt_completion>`).
        let xml_answered = results.is_empty() && u.is_some_and(|u| call_less::has_xml_result(h, u));
        // Native calls were recorded: nothing is call-less, and their result texts are results.
        let native = msg
            .blocks()
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        if xml_answered || calls.is_empty() && results.is_empty() {
            if let Some(u) = u.filter(|_| !native) {
                call_less::recover_pair(&mut p, a, u);
            }
        } else {
            pair_flattened(&mut p, a, calls, u, results);
        }
        if let Some(u) = u.filter(|_| native) {
            text_result::recover_pair(&mut p, a, u);
        }
    }
    for (m, msg) in h.msgs.iter().enumerate() {
        if msg.role == "user" && !visited_user[m] {
            for (b, blk) in msg.blocks().iter().enumerate() {
                if let Block::Text(ti) = blk {
                    if let Some((name, _)) = flat_result::parse(h.text(*ti)) {
                        p.out.warnings.push(note(path(m, b), "result_without_call", format!("[{name} Result] does not follow an assistant message; left as text")));
                    }
                }
            }
        }
        if p.content[m].is_none() && msg.role != "assistant" {
            merge_native(&mut p, m);
        }
    }
    let Pass {
        content, mut out, ..
    } = p;
    out.edits = content
        .into_iter()
        .enumerate()
        .filter_map(|(msg, c)| c.map(|content| Edit { msg, content }))
        .collect();
    let _ = Part::Other;
    out
}

#[cfg(test)]
mod tests;
