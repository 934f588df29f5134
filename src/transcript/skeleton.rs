//! Building the working model ([`Msg`]) from a transcript description.
//!
//! Two sources feed the same rules: the compact skeleton string written by `js/codec.js` (the JS
//! boundary, which never hands Rust the whole transcript), and `serde_json` values (tests, the CLI,
//! byte-level entry points). The string layout is defined by the codec; this parser mirrors it
//! field for field, so a change to one is a change to both.

use super::model::*;
use serde_json::{Map, Value};

const SEP: char = '\u{1f}';

/// Reads skeleton fields in order.
struct Cursor<'a> {
    it: std::str::Split<'a, char>,
}

impl<'a> Cursor<'a> {
    fn next(&mut self) -> Result<&'a str, String> {
        self.it
            .next()
            .ok_or_else(|| "skeleton ended early (codec and parser disagree)".to_string())
    }

    fn val(&mut self) -> Result<Val, String> {
        let f = self.next()?;
        Ok(decode_val(f))
    }

    fn count(&mut self, tag: char) -> Result<usize, String> {
        let f = self.next()?;
        f.strip_prefix(tag)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("skeleton: expected a count, got {f:?}"))
    }

    fn text(&mut self) -> Result<(Option<TextInfo>, Val), String> {
        let f = self.next()?;
        text_from_field(f, self)
    }
}

/// One encoded value (see `val()` in js/codec.js).
fn decode_val(f: &str) -> Val {
    let Some(tag) = f.as_bytes().first() else {
        return Val::Absent;
    };
    let rest = &f[1..];
    match tag {
        b'"' => Val::Str(rest.to_string()),
        b'j' => Val::Str(serde_json::from_str(rest).unwrap_or_else(|_| rest.to_string())),
        b'n' => Val::Num(parse_js_number(rest)),
        b'N' => Val::Null,
        b'T' => Val::Bool(true),
        b'F' => Val::Bool(false),
        b'o' => Val::Object,
        b'a' => Val::Array,
        _ => Val::Other,
    }
}

fn parse_js_number(s: &str) -> f64 {
    match s {
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or(f64::NAN),
    }
}

/// Parses the codec's skeleton string into messages numbered by their input index.
pub fn parse(skeleton: &str) -> Result<Vec<Msg>, String> {
    let mut c = Cursor {
        it: skeleton.split(SEP),
    };
    let n = c.count('n')?;
    let mut msgs = Vec::with_capacity(n);
    for i in 0..n {
        msgs.push(parse_message(&mut c, i)?);
    }
    Ok(msgs)
}

fn parse_message(c: &mut Cursor, i: usize) -> Result<Msg, String> {
    let mut m = Msg::src(i);
    let tag = c.next()?;
    if tag != "M" {
        m.is_object = false;
        m.role = Val::Absent;
        m.content = Content::Other(decode_val(tag.get(1..).unwrap_or("")));
        return Ok(m);
    }
    m.role = c.val()?;
    m.stop_reason = c.val()?;
    m.timestamp = c.val()?;
    m.tool_call_id = c.val()?;
    m.tool_use_id = c.val()?;
    m.tool_name = c.val()?;
    m.error_message = c.val()?;
    m.has_details = c.next()? == "T";
    if c.next()? == "o" {
        m.provenance = Some(Provenance {
            kind: c.val()?,
            source_session_key: c.val()?,
            source_channel: c.val()?,
            source_tool: c.val()?,
        });
    }
    let usage = c.next()?;
    m.usage = if usage == "o" {
        let k = c.count('n')?;
        let mut fields = Vec::with_capacity(k);
        for _ in 0..k {
            let key = match c.val()? {
                Val::Str(s) => s,
                _ => String::new(),
            };
            fields.push((key, c.val()?));
        }
        UsageView::Fields(fields)
    } else {
        UsageView::NotObject(decode_val(usage))
    };
    let content = c.next()?;
    if let Some(n) = content.strip_prefix('A') {
        let n: usize = n.parse().map_err(|_| "skeleton: bad block count")?;
        let mut blocks = Vec::with_capacity(n);
        for j in 0..n {
            blocks.push(parse_block(c, i, j)?);
        }
        m.content = Content::Blocks(blocks);
    } else {
        // Re-read the field as text: rebuild a one-field cursor view.
        let (info, v) = text_from_field(content, c)?;
        m.content = match info {
            Some(info) => Content::Str {
                info,
                from: Some(i),
                prefix: String::new(),
            },
            None => Content::Other(v),
        };
    }
    Ok(m)
}

/// `Cursor::text` for a field that was already taken from the cursor.
fn text_from_field<'a>(f: &'a str, c: &mut Cursor<'a>) -> Result<(Option<TextInfo>, Val), String> {
    let (with_head, rest) = match f.as_bytes().first() {
        Some(b't') => (false, &f[1..]),
        Some(b'h') => (true, &f[1..]),
        _ => return Ok((None, decode_val(f))),
    };
    let blank = rest.starts_with('1');
    let len = rest.get(1..).and_then(|n| n.parse().ok()).unwrap_or(0);
    let head = if with_head {
        c.val()?.as_str().map(str::to_string)
    } else {
        None
    };
    let head_is_whole = head
        .as_deref()
        .is_some_and(|h| h.len() == len || h.encode_utf16().count() == len);
    Ok((
        Some(TextInfo {
            len,
            blank,
            head,
            head_is_whole,
        }),
        Val::Str(String::new()),
    ))
}

fn parse_block(c: &mut Cursor, i: usize, j: usize) -> Result<Block, String> {
    let mut b = Block::src(i, j);
    let tag = c.next()?;
    if tag != "B" {
        b.is_object = false;
        b.raw = decode_val(tag.get(1..).unwrap_or(""));
        return Ok(b);
    }
    b.ty = c.val()?;
    match b.ty.as_str() {
        Some("text") => {
            b.text = c.text()?.0;
            b.thought_signature = c.val()?;
            b.thought_signature_camel = c.val()?;
        }
        Some("thinking") => {
            b.thinking = c.text()?.0;
            b.thinking_signature = c.val()?;
            if b.thinking_signature == Val::Object {
                b.signature_object = Some((c.val()?, c.val()?));
            }
            b.thought_signature = c.val()?;
            b.thought_signature_camel = c.val()?;
        }
        Some("toolCall" | "toolUse" | "functionCall") => {
            b.id = c.val()?;
            b.name = c.val()?;
            b.input = c.val()?;
            b.arguments = c.val()?;
            b.thought_signature = c.val()?;
            b.thought_signature_camel = c.val()?;
        }
        Some("image") => {
            let d = c.next()?;
            if let Some(len) = d.strip_prefix('d') {
                let head = c.val()?.as_str().unwrap_or("").to_string();
                b.data = Some(ImageInfo {
                    len: len.parse().unwrap_or(0),
                    head,
                });
            }
            b.mime_type = c.val()?;
        }
        Some("toolResult") => {
            b.tool_use_id = c.val()?;
        }
        _ => {
            b.thought_signature = c.val()?;
            b.thought_signature_camel = c.val()?;
        }
    }
    Ok(b)
}

// ---- the same model from serde_json values ----

fn field(map: &Map<String, Value>, k: &str) -> Val {
    map.get(k).map_or(Val::Absent, Val::of_json)
}

fn text_of(v: Option<&Value>) -> Option<TextInfo> {
    v.and_then(Value::as_str).map(TextInfo::of_str)
}

/// Flattens a usage object one level deep, as the codec does.
pub fn flatten_usage(map: &Map<String, Value>) -> Vec<(String, Val)> {
    let mut out = Vec::new();
    for (k, v) in map {
        match v {
            Value::Object(inner) => {
                for (k2, v2) in inner {
                    out.push((format!("{k}.{k2}"), Val::of_json(v2)));
                }
            }
            other => out.push((k.clone(), Val::of_json(other))),
        }
    }
    out
}

/// The skeleton view of one block value (block `j` of input message `i`).
pub fn block_from_value(v: &Value, i: usize, j: usize, _new: bool) -> Block {
    let mut b = Block::src(i, j);
    let Value::Object(map) = v else {
        b.is_object = false;
        b.raw = Val::of_json(v);
        return b;
    };
    b.ty = field(map, "type");
    b.id = field(map, "id");
    b.name = field(map, "name");
    b.input = kind_only(map.get("input"));
    b.arguments = kind_only(map.get("arguments"));
    b.text = text_of(map.get("text"));
    b.thinking = text_of(map.get("thinking"));
    b.thinking_signature = field(map, "thinkingSignature");
    if let Some(Value::Object(sig)) = map.get("thinkingSignature") {
        b.signature_object = Some((field(sig, "id"), field(sig, "type")));
    }
    b.thought_signature = field(map, "thought_signature");
    b.thought_signature_camel = field(map, "thoughtSignature");
    b.tool_use_id = field(map, "toolUseId");
    if let Some(Value::String(d)) = map.get("data") {
        b.data = Some(ImageInfo {
            len: d.len(),
            head: d.chars().take(1024).collect(),
        });
    }
    b.mime_type = field(map, "mimeType");
    b
}

fn kind_only(v: Option<&Value>) -> Val {
    match v.map(Val::of_json) {
        None => Val::Absent,
        Some(Val::Str(_)) => Val::Str(String::new()),
        Some(other) => other,
    }
}

/// The skeleton view of a message array held as JSON.
pub fn from_values(values: &[Value]) -> Vec<Msg> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| message_from_value(v, i))
        .collect()
}

fn message_from_value(v: &Value, i: usize) -> Msg {
    let mut m = Msg::src(i);
    let Value::Object(map) = v else {
        m.is_object = false;
        m.content = Content::Other(Val::of_json(v));
        return m;
    };
    m.role = field(map, "role");
    m.stop_reason = field(map, "stopReason");
    m.timestamp = field(map, "timestamp");
    m.tool_call_id = field(map, "toolCallId");
    m.tool_use_id = field(map, "toolUseId");
    m.tool_name = field(map, "toolName");
    m.error_message = field(map, "errorMessage");
    m.has_details = map.contains_key("details");
    if let Some(Value::Object(p)) = map.get("provenance") {
        m.provenance = Some(Provenance {
            kind: field(p, "kind"),
            source_session_key: field(p, "sourceSessionKey"),
            source_channel: field(p, "sourceChannel"),
            source_tool: field(p, "sourceTool"),
        });
    }
    m.usage = match map.get("usage") {
        Some(Value::Object(u)) => UsageView::Fields(flatten_usage(u)),
        other => UsageView::NotObject(other.map_or(Val::Absent, Val::of_json)),
    };
    m.content = match map.get("content") {
        Some(Value::Array(blocks)) => Content::Blocks(
            blocks
                .iter()
                .enumerate()
                .map(|(j, b)| block_from_value(b, i, j, false))
                .collect(),
        ),
        Some(Value::String(s)) => Content::Str {
            info: TextInfo::of_str(s),
            from: Some(i),
            prefix: String::new(),
        },
        other => Content::Other(other.map_or(Val::Absent, Val::of_json)),
    };
    m
}
