//! The byte applier of an [`BodyPlan`]: the repaired body written from the original bytes.
//!
//! A gateway forwards the body it was given; what no rule touched must go out as it came in (key
//! order, number formatting, escapes, whitespace). So the output is the input with a few ranges
//! replaced: the message array when its list changes (untouched messages and items copied as
//! written, separators compact), and the top-level members a plan removes. A message that is a
//! shallow copy is rewritten member by member: each member kept is copied as written, a member
//! set is written by `serde_json`, a new member goes last (as a JS spread or a `serde_json` map
//! insert orders it).

use super::edit::{BodyPlan, Item, Op, Out};
use super::node::Node;
use super::tape::{TNode, Tape};
use serde_json::Value;
use std::borrow::Cow;

/// A member of an object being rewritten.
#[derive(Clone, Copy)]
enum Member<'t, 'p> {
    Raw(TNode<'t>),
    Set(&'p Value),
    List(&'p [Item]),
    /// An object member rewritten: its members with these set.
    Sub(TNode<'t>, &'p [(&'static str, Value)]),
    /// The string member `key` of these input messages, joined (see [`Op::Join`]).
    Join(&'static str, &'p [usize]),
}

struct Writer<'t, 'p> {
    msgs: Vec<TNode<'t>>,
    /// The items of the last list an item was taken from: `(msg, list, items)`.
    cache: Option<(usize, &'p str, Vec<TNode<'t>>)>,
    out: String,
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Object edits that set each of `sets`.
fn set_edits<'t, 'p>(sets: &'p [(&'static str, Value)]) -> Vec<(&'p str, Option<Member<'t, 'p>>)> {
    sets.iter()
        .map(|(k, v)| (*k, Some(Member::Set(v))))
        .collect()
}

impl<'t, 'p> Writer<'t, 'p> {
    fn write_value(&mut self, v: &Value) {
        self.out
            .push_str(&serde_json::to_string(v).unwrap_or_else(|_| "null".into()));
    }

    /// An object: `base`'s members (or none), with `edits` applied in order.
    fn object(&mut self, base: Option<TNode<'t>>, edits: &[(&str, Option<Member<'t, 'p>>)]) {
        let mut members: Vec<(Cow<'t, str>, &'t str, Member<'t, 'p>)> = base
            .map(|b| {
                b.members()
                    .map(|(k, v)| (k.str().unwrap_or_default(), k.raw(), Member::Raw(v)))
                    .collect()
            })
            .unwrap_or_default();
        let mut new_keys: Vec<String> = Vec::new();
        for (k, m) in edits {
            let at = members.iter().position(|(name, ..)| name == k);
            match (at, m) {
                (Some(i), None) => {
                    members.remove(i);
                }
                (None, None) => {}
                (Some(i), Some(m)) => members[i].2 = *m,
                (None, Some(m)) => {
                    new_keys.push(json_str(k));
                    members.push((Cow::Owned(k.to_string()), "", *m));
                }
            }
        }
        self.out.push('{');
        let mut fresh = new_keys.iter();
        for (n, (_, raw_key, m)) in members.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            if raw_key.is_empty() {
                self.out
                    .push_str(fresh.next().map_or("\"\"", String::as_str));
            } else {
                self.out.push_str(raw_key);
            }
            self.out.push(':');
            match m {
                Member::Raw(v) => self.out.push_str(v.raw()),
                Member::Set(v) => self.write_value(v),
                Member::List(items) => self.list(items),
                Member::Sub(node, sets) => self.object(Some(*node), &set_edits(sets)),
                Member::Join(key, from) => self.join(key, from),
            }
        }
        self.out.push('}');
    }

    fn list(&mut self, items: &'p [Item]) {
        self.out.push('[');
        for (n, it) in items.iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            self.item(it);
        }
        self.out.push(']');
    }

    fn list_item(&mut self, msg: usize, list: &'p str, idx: usize) -> Option<TNode<'t>> {
        let fresh = !matches!(&self.cache, Some((m, l, _)) if *m == msg && *l == list);
        if fresh {
            let items = self
                .msgs
                .get(msg)
                .and_then(|m| m.get(list))
                .map(|l| l.items().collect())
                .unwrap_or_default();
            self.cache = Some((msg, list, items));
        }
        self.cache
            .as_ref()
            .and_then(|(_, _, v)| v.get(idx).copied())
    }

    fn item(&mut self, it: &'p Item) {
        match it {
            Item::Ref {
                msg,
                list,
                idx,
                sets,
            } => match self.list_item(*msg, list, *idx) {
                Some(node) if sets.is_empty() => self.out.push_str(node.raw()),
                Some(node) => self.object(Some(node), &set_edits(sets)),
                None => self.out.push_str("null"),
            },
            Item::RefIn {
                msg,
                list,
                idx,
                key,
                sets,
            } => match self.list_item(*msg, list, *idx) {
                Some(node) => match node.get(key).filter(|k| k.is_obj()) {
                    Some(inner) => {
                        self.object(Some(node), &[(key, Some(Member::Sub(inner, sets)))])
                    }
                    None => self.out.push_str(node.raw()),
                },
                None => self.out.push_str("null"),
            },
            Item::Patch {
                msg,
                list,
                idx,
                del,
                sets,
                inner,
            } => match self.list_item(*msg, list, *idx) {
                Some(node) if sets.is_empty() && inner.is_none() => {
                    // Only members removed: the item as written, less their bytes.
                    let members: Vec<(TNode, TNode)> = node.members().collect();
                    let gone = |k: TNode| del.iter().any(|d| k.str().as_deref() == Some(*d));
                    let (base, raw) = (node.span().start, node.raw());
                    let mut at = 0;
                    for r in cut_ranges(&members, gone) {
                        self.out.push_str(&raw[at..r.start - base]);
                        at = r.end - base;
                    }
                    self.out.push_str(&raw[at..]);
                }
                Some(node) => {
                    let mut edits: Vec<(&str, Option<Member>)> =
                        del.iter().map(|k| (*k, None)).collect();
                    edits.extend(sets.iter().map(|(k, v)| (*k, Some(Member::Set(v)))));
                    if let Some((key, inner_sets)) = inner {
                        if let Some(sub) = node.get(key).filter(|k| k.is_obj()) {
                            edits.push((key, Some(Member::Sub(sub, inner_sets))));
                        }
                    }
                    self.object(Some(node), &edits);
                }
                None => self.out.push_str("null"),
            },
            Item::TextOf { msg, prefix } => {
                let content = self.msgs.get(*msg).and_then(|m| m.get("content"));
                let inner = content
                    .filter(|c| c.is_str())
                    .map_or("", |c| &c.raw()[1..c.raw().len() - 1]);
                let p = json_str(prefix);
                self.out.push_str(r#"{"type":"text","text":""#);
                self.out.push_str(&p[1..p.len() - 1]);
                self.out.push_str(inner);
                self.out.push_str("\"}");
            }
            Item::New(v) => self.write_value(v),
        }
    }

    /// The strings `messages[i][key]` for `i` in `from`, as one JSON string: their escaped
    /// insides copied as written, a JSON line break between two.
    fn join(&mut self, key: &str, from: &[usize]) {
        self.out.push('"');
        let mut first = true;
        for i in from {
            let Some(s) = self
                .msgs
                .get(*i)
                .and_then(|m| m.get(key))
                .filter(|s| s.is_str())
            else {
                continue;
            };
            if !first {
                self.out.push_str(super::edit::JOIN_SEP);
            }
            first = false;
            self.out.push_str(&s.raw()[1..s.raw().len() - 1]);
        }
        self.out.push('"');
    }

    fn message(&mut self, o: &'p Out) {
        match o {
            Out::Keep(i) => match self.msgs.get(*i) {
                Some(m) => self.out.push_str(m.raw()),
                None => self.out.push_str("null"),
            },
            Out::Edit { from, ops } => {
                let edits: Vec<(&str, Option<Member>)> = ops
                    .iter()
                    .map(|op| match op {
                        Op::Set(k, v) => (*k, Some(Member::Set(v))),
                        Op::List(k, items) => (*k, Some(Member::List(items))),
                        Op::Del(k) => (*k, None),
                        Op::Join(k, from) => (*k, Some(Member::Join(k, from))),
                    })
                    .collect();
                let base = from.and_then(|i| self.msgs.get(i).copied());
                self.object(base, &edits);
            }
        }
    }
}

/// The byte ranges that remove an object's members for which `gone` holds, each run of them with
/// one separating comma (the one before it when it is last), so the rest reads as written.
fn cut_ranges(
    members: &[(TNode, TNode)],
    gone: impl Fn(TNode) -> bool,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut n = 0;
    while n < members.len() {
        let k = members[n].0;
        if gone(k) {
            let first = n;
            while n + 1 < members.len() && gone(members[n + 1].0) {
                n += 1;
            }
            out.push(match (members.get(n + 1), first) {
                (Some((next, _)), _) => k.span().start..next.span().start,
                (None, 0) => k.span().start..members[n].1.span().end,
                (None, _) => members[first - 1].1.span().end..members[n].1.span().end,
            });
        }
        n += 1;
    }
    out
}

/// The body of `tape` with `plan` applied, as bytes.
pub fn apply(tape: &Tape, plan: &BodyPlan) -> Vec<u8> {
    let root = tape.root();
    let members: Vec<(TNode, TNode)> = root.members().collect();
    // (range, replacement), in order.
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let gone = |k: TNode| plan.del.iter().any(|d| k.str().as_deref() == Some(*d));
    edits.extend(
        cut_ranges(&members, gone)
            .into_iter()
            .map(|r| (r, String::new())),
    );
    for (k, v) in members.iter().copied() {
        if let (Some(list), true) = (&plan.messages, k.str().as_deref() == Some(plan.key)) {
            let mut w = Writer {
                msgs: v.items().collect(),
                cache: None,
                out: String::with_capacity(v.span().len() + 64),
            };
            w.out.push('[');
            for (i, o) in list.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.message(o);
            }
            w.out.push(']');
            edits.push((v.span(), w.out));
        }
    }
    edits.sort_by_key(|(r, _)| r.start);
    let text = tape.text.as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for (range, with) in edits {
        out.extend_from_slice(&text[at..range.start]);
        out.extend_from_slice(with.as_bytes());
        at = range.end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// The body of `tape` with `plan` applied, its leaves first: each replaced value's bytes give way
/// to the new value's JSON, everything else is copied; when the plan also edits the message list
/// or removes members, the patched body is read again and [`apply`] runs on it (the plan's
/// references are to items, which the leaves do not move).
pub fn apply_all(tape: &Tape, plan: &BodyPlan) -> Result<Vec<u8>, super::WireError> {
    if plan.leaves.is_empty() {
        return Ok(apply(tape, plan));
    }
    let text = tape.text.as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for l in &plan.leaves {
        let Some(r) = l
            .span
            .clone()
            .filter(|r| r.start >= at && r.end <= text.len())
        else {
            continue;
        };
        out.extend_from_slice(&text[at..r.start]);
        out.extend_from_slice(
            serde_json::to_string(&l.value)
                .unwrap_or_else(|_| "null".into())
                .as_bytes(),
        );
        at = r.end;
    }
    out.extend_from_slice(&text[at..]);
    if plan.messages.is_none() && plan.del.is_empty() {
        return Ok(out);
    }
    let again = Tape::parse(&out)?;
    Ok(apply(&again, plan))
}

#[cfg(test)]
mod tests {
    use super::super::edit;
    use super::*;

    fn both(body: &str, plan: &BodyPlan) -> (String, Value) {
        let tape = Tape::parse(body.as_bytes()).unwrap();
        let bytes = String::from_utf8(apply(&tape, plan)).unwrap();
        let value: Value = serde_json::from_str(body).unwrap();
        (bytes, edit::apply(&value, plan))
    }

    #[test]
    fn untouched_bytes_stay_as_written_and_the_result_is_the_value_applier_s() {
        let body = r#"{ "model" : "m",
  "tools" : [ ],
  "messages" : [ {"role":"user", "content":"第一\u0021", "n": 1.50},
    {"role": "assistant", "content": null, "tool_calls": [ {"id": "x_1", "type": "function"} ], "x": {"y": [1e3]}} ],
  "tail": true }"#;
        let plan = edit::sample_plan();
        let (bytes, value) = both(body, &plan);
        assert_eq!(serde_json::from_str::<Value>(&bytes).unwrap(), value);
        assert_eq!(
            bytes,
            r#"{ "model" : "m",
  "messages" : [{"role":"user","content":[{"type":"text","text":"» \"q\" 第一\u0021"},{"type":"text","text":"b"}],"n":1.50},{"role":"assistant","content":null,"tool_calls":[{"id":"x1","type":"function"}],"x":{"y": [1e3]}},{"role":"user", "content":"第一\u0021", "n": 1.50},{"role":"tool","tool_call_id":"x1"}],
  "tail": true }"#
        );
    }

    /// Two messages' reasoning joined: their strings' insides copied as written (escapes kept),
    /// a line break between, a message without the field skipped; as the value applier gives it.
    #[test]
    fn a_joined_field_copies_the_strings_as_written() {
        use serde_json::json;
        let body = r#"{"messages": [{"role": "assistant", "content": "好", "reasoning_content": "先想\u0021"},
            {"role": "user", "content": "问"}, {"role": "assistant", "reasoning_content": "再想\"一\""}]}"#;
        let plan = BodyPlan {
            key: "messages",
            messages: Some(vec![Out::Edit {
                from: Some(0),
                ops: vec![Op::Join("reasoning_content", vec![0, 1, 2])],
            }]),
            del: Vec::new(),
            leaves: Vec::new(),
        };
        let (bytes, value) = both(body, &plan);
        assert!(
            bytes.contains(r#""reasoning_content":"先想\u0021\n再想\"一\"""#),
            "{bytes}"
        );
        assert_eq!(serde_json::from_str::<Value>(&bytes).unwrap(), value);
        assert_eq!(
            value["messages"][0]["reasoning_content"],
            json!("先想!\n再想\"一\"")
        );
    }

    /// A part losing a member keeps the rest of its bytes; with a member set too it is rewritten
    /// member by member; both as the value applier gives it.
    #[test]
    fn a_patched_item_loses_its_members_with_their_commas() {
        use serde_json::json;
        let patch = |del: Vec<&'static str>, sets: Vec<(&'static str, Value)>, inner| BodyPlan {
            key: "contents",
            messages: Some(vec![Out::Edit {
                from: Some(0),
                ops: vec![Op::List(
                    "parts",
                    vec![Item::Patch {
                        msg: 0,
                        list: "parts",
                        idx: 0,
                        del,
                        sets,
                        inner,
                    }],
                )],
            }]),
            del: vec![],
            leaves: Vec::new(),
        };
        let body =
            |part: &str| format!(r#"{{"contents": [{{"role": "model", "parts": [{part}]}}]}}"#);
        let call = r#""functionCall": {"name": "查询", "args": { "城市" : "北京" }}"#;
        let cases = [
            (
                format!(r#"{{"thoughtSignature": "bXNn", {call}}}"#),
                format!("{{{call}}}"),
            ),
            (
                format!(r#"{{{call} , "thought_signature" : "x"}}"#),
                format!("{{{call}}}"),
            ),
            (
                r#"{ "thought_signature": "x" }"#.to_string(),
                "{  }".to_string(),
            ),
        ];
        for (part, want) in cases {
            let plan = patch(vec!["thoughtSignature", "thought_signature"], vec![], None);
            let (bytes, value) = both(&body(&part), &plan);
            let written = format!(r#"{{"contents": [{{"role":"model","parts":[{want}]}}]}}"#);
            assert_eq!(bytes, written);
            assert_eq!(serde_json::from_str::<Value>(&bytes).unwrap(), value);
        }
        let part = format!(r#"{{"thought_signature": "msg_1", {call}}}"#);
        let plan = patch(
            vec!["thought_signature"],
            vec![(
                "thoughtSignature",
                json!("skip_thought_signature_validator"),
            )],
            Some(("functionCall", vec![("id", json!("c1"))])),
        );
        let (bytes, value) = both(&body(&part), &plan);
        assert_eq!(serde_json::from_str::<Value>(&bytes).unwrap(), value);
        assert_eq!(
            value["contents"][0]["parts"][0],
            json!({"functionCall": {"name": "查询", "args": {"城市": "北京"}, "id": "c1"},
                   "thoughtSignature": "skip_thought_signature_validator"})
        );
        let keys: Vec<&String> = value["contents"][0]["parts"][0]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            keys,
            ["functionCall", "thoughtSignature"],
            "a new member goes last"
        );
    }

    #[test]
    fn removed_members_take_their_separator_with_them() {
        let only = |del: Vec<&'static str>| BodyPlan {
            key: "messages",
            messages: None,
            del,
            leaves: Vec::new(),
        };
        let cases = [
            (r#"{"tools": [], "a": 1}"#, vec!["tools"], r#"{"a": 1}"#),
            (r#"{"a": 1, "tools": []}"#, vec!["tools"], r#"{"a": 1}"#),
            (r#"{ "tools": [] }"#, vec!["tools"], r#"{  }"#),
            (r#"{"a": 1, "b": 2, "c": 3}"#, vec!["b", "c"], r#"{"a": 1}"#),
            (r#"{"a": 1, "b": 2, "c": 3}"#, vec!["a", "c"], r#"{"b": 2}"#),
            (r#"{"a": 1, "b": 2, "c": 3}"#, vec!["a", "b"], r#"{"c": 3}"#),
        ];
        for (body, del, want) in cases {
            let (bytes, value) = both(body, &only(del));
            assert_eq!(bytes, want);
            assert_eq!(serde_json::from_str::<Value>(&bytes).unwrap(), value);
        }
    }
}
