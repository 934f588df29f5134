//! A request body as `js/request.js` describes it: the few fields the wire readers look at, so a
//! parsed body never crosses the boundary as JSON text.
//!
//! `sanitizeRequest(body)` on a parsed object used to send the whole body's JSON across
//! (22 ms for 1,000 messages where a plain JS pass takes 0.4 ms): the readers only look at roles,
//! types, ids, names, the kind of arguments and the length and blankness of texts. The JS codec
//! walks the body generically, guided by [`KEYS`] (the only protocol knowledge it has, defined
//! here once): a member whose key is not listed is not sent (only an object's first key is, for
//! Gemini's part types), a string under a [`TEXT`] key goes as its length and blankness, a
//! container under a [`SHALLOW`] key (or deeper than [`DEPTH`]) as its kind and item count. This
//! module reads that into a flat list of slots and answers the readers through [`Node`], the view
//! the tape and `serde_json::Value` also implement, so no reader is written twice.
//!
//! The encoding, in `nums` (a Float64Array) with the strings in `strs`, each after [`SEP`]:
//! a value is one of the value codes below; `STR`/`STR_JSON` take the next string (`STR_JSON`:
//! the string's JSON, for one holding `SEP`); `TEXT` is followed by the UTF-16 length and the
//! blank flag; `ARR` by the count and the items; `OBJ` by the member count and, per member, the
//! key's index in [`KEYS`] (or `-1` and the key as a string value) and the value;
//! `SHALLOW_ARR` by the count; `TEXT_HEAD` (a string under a [`HEAD`] key: an image's payload or
//! URL) by the UTF-16 length, the blank flag and a string value with its first [`HEAD_CHARS`]
//! characters.

use super::node::{Node, View};
use crate::transcript::model::TextInfo;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A string under this key is sent as its length and blankness only.
pub const TEXT: u8 = 1;
/// An array or object under this key is sent as its kind and item count only.
pub const SHALLOW: u8 = 2;
/// A string under this key is sent as its length, blankness and first [`HEAD_CHARS`] characters
/// (an image's payload or `data:` URL: the rest crosses only when the image step needs it).
pub const HEAD: u8 = 4;

/// Characters of a [`HEAD`] string sent: the 1,024 of a payload the image step reads first, after
/// a `data:` URL's prefix (`data:image/png;base64,` and up to 54 more characters of parameters; a
/// longer prefix leaves a shorter head, which at worst sends the image to the full check).
pub const HEAD_CHARS: usize = 1100;

/// The keys the wire readers and writers read, with how their values are sent. A reader that
/// asks a skeleton for another key is a bug (caught in debug builds).
pub const KEYS: &[(&str, u8)] = &[
    ("messages", 0),
    ("contents", 0),
    ("input", TEXT),
    ("tools", SHALLOW),
    ("role", 0),
    ("content", TEXT),
    ("tool_calls", 0),
    ("tool_call_id", 0),
    ("name", 0),
    ("id", 0),
    ("type", 0),
    ("function", 0),
    ("arguments", TEXT | SHALLOW),
    ("text", TEXT | SHALLOW),
    ("tool_use_id", 0),
    ("call_id", 0),
    ("parts", 0),
    ("functionCall", 0),
    ("functionResponse", 0),
    ("args", SHALLOW),
    ("thought", 0),
    ("signature", TEXT),
    ("data", TEXT | HEAD),
    ("image_url", HEAD),
    ("url", HEAD),
    ("output", TEXT),
    ("source", 0),
    ("media_type", 0),
    ("inlineData", 0),
    ("inline_data", 0),
    ("mimeType", 0),
    ("mime_type", 0),
    ("thoughtSignature", 0),
    ("thought_signature", 0),
    ("encrypted_content", TEXT),
    ("reasoning_content", TEXT),
    ("reasoning", TEXT | SHALLOW),
    ("reasoning_details", SHALLOW),
    ("extra_content", 0),
    ("google", 0),
    ("vertex", 0),
];

/// Containers at this depth (the body is 0) are sent shallow: the readers walk at most
/// `body.messages[i].content[j].function.name` (6), the image finder
/// `body.messages[i].content[j].content[k].source.data` (8) and
/// `body.contents[i].parts[j].functionResponse.parts[k].inlineData.data` (9).
pub const DEPTH: u32 = 9;

/// Separates the strings of `strs`.
pub const SEP: char = '\u{1f}';

pub const NULL: u8 = 0;
pub const TRUE: u8 = 1;
pub const FALSE: u8 = 2;
pub const NUM: u8 = 3;
pub const STR: u8 = 4;
pub const STR_JSON: u8 = 5;
pub const TEXT_INFO: u8 = 6;
pub const ARR: u8 = 7;
pub const OBJ: u8 = 8;
pub const SHALLOW_ARR: u8 = 9;
pub const SHALLOW_OBJ: u8 = 10;
/// The value of an unlisted first key: only the key is sent.
pub const SKIPPED: u8 = 11;
/// A [`HEAD`] string: its length, blank flag and head.
pub const TEXT_HEAD: u8 = 12;

/// A member's key that is not in [`KEYS`] (an object's first key).
const OTHER_KEY: u16 = u16::MAX;
/// No key: the root or an array item.
const NO_KEY: u16 = u16::MAX - 1;

#[derive(Clone, Copy, Debug)]
struct Slot {
    kind: u8,
    key: u16,
    /// STR: the string's start in `text`; TEXT_INFO: the length; containers: the count.
    a: u32,
    /// STR: its end; TEXT_INFO: 1 when blank.
    b: u32,
    /// The slot after this value's subtree.
    next: u32,
    /// For an OTHER_KEY member: where its key is in `text`.
    key_at: (u32, u32),
    /// TEXT_HEAD: where its head is in `text`.
    head: (u32, u32),
}

/// A body read from its skeleton.
#[derive(Debug, Default)]
pub struct Skeleton {
    /// The strings, one after another (a `STR_JSON` one decoded).
    text: String,
    slots: Vec<Slot>,
}

/// A value of a [`Skeleton`].
#[derive(Clone, Copy)]
pub struct SNode<'s> {
    skel: &'s Skeleton,
    idx: u32,
}

struct Reader<'a> {
    nums: &'a [f64],
    at: usize,
    strs: std::str::Split<'a, char>,
    out: Skeleton,
}

fn bad(what: &str) -> String {
    format!("the request skeleton is malformed ({what})")
}

impl Reader<'_> {
    fn num(&mut self) -> Result<f64, String> {
        let v = self
            .nums
            .get(self.at)
            .copied()
            .ok_or_else(|| bad("short"))?;
        self.at += 1;
        Ok(v)
    }

    fn count(&mut self) -> Result<u32, String> {
        let v = self.num()?;
        if (0.0..=f64::from(u32::MAX)).contains(&v) {
            Ok(v as u32)
        } else {
            Err(bad("a count"))
        }
    }

    /// The next string of `strs`, appended to `text`: its range there.
    fn string(&mut self, json: bool) -> Result<(u32, u32), String> {
        let s = self.strs.next().ok_or_else(|| bad("a missing string"))?;
        let start = self.out.text.len();
        if json {
            let v: String = serde_json::from_str(s).map_err(|_| bad("a string's JSON"))?;
            self.out.text.push_str(&v);
        } else {
            self.out.text.push_str(s);
        }
        let end = self.out.text.len();
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            _ => Err(bad("over 4 GiB of strings")),
        }
    }

    fn value(&mut self, key: u16, key_at: (u32, u32), depth: u32) -> Result<(), String> {
        if depth > DEPTH + 1 {
            return Err(bad("too deep"));
        }
        let code = self.num()?;
        let kind = code as u8;
        if f64::from(kind) != code {
            return Err(bad("a value code"));
        }
        let idx = self.out.slots.len();
        let mut slot = Slot {
            kind,
            key,
            a: 0,
            b: 0,
            next: 0,
            key_at,
            head: (0, 0),
        };
        match kind {
            NULL | TRUE | FALSE | NUM | SHALLOW_OBJ | SKIPPED => {}
            STR | STR_JSON => {
                (slot.a, slot.b) = self.string(kind == STR_JSON)?;
                slot.kind = STR;
            }
            TEXT_INFO => {
                slot.a = self.count()?;
                slot.b = self.count()?;
            }
            TEXT_HEAD => {
                slot.a = self.count()?;
                slot.b = self.count()?;
                let c = self.num()?;
                if c != f64::from(STR) && c != f64::from(STR_JSON) {
                    return Err(bad("a head"));
                }
                slot.head = self.string(c == f64::from(STR_JSON))?;
            }
            SHALLOW_ARR => slot.a = self.count()?,
            ARR | OBJ => slot.a = self.count()?,
            _ => return Err(bad("a value code")),
        }
        self.out.slots.push(slot);
        if kind == ARR {
            for _ in 0..slot.a {
                self.value(NO_KEY, (0, 0), depth + 1)?;
            }
        } else if kind == OBJ {
            for _ in 0..slot.a {
                let k = self.num()?;
                if k == -1.0 {
                    let c = self.num()?;
                    if c != f64::from(STR) && c != f64::from(STR_JSON) {
                        return Err(bad("a key"));
                    }
                    let at = self.string(c == f64::from(STR_JSON))?;
                    self.value(OTHER_KEY, at, depth + 1)?;
                } else if k >= 0.0 && (k as usize) < KEYS.len() && k.fract() == 0.0 {
                    self.value(k as u16, (0, 0), depth + 1)?;
                } else {
                    return Err(bad("a key"));
                }
            }
        }
        let next = u32::try_from(self.out.slots.len()).map_err(|_| bad("too many values"))?;
        self.out.slots[idx].next = next;
        Ok(())
    }
}

impl Skeleton {
    /// Reads the skeleton `js/wire-codec.js` wrote (`nums`, and `strs` with each string after
    /// [`SEP`]).
    ///
    /// ```
    /// use transcript_hygiene::transcript::wire::node::Node;
    /// use transcript_hygiene::transcript::wire::skeleton::{Skeleton, ARR, OBJ, SEP, STR};
    ///
    /// // `{"messages": [{"role": "user", …}]}`: an object of one member (key 0 of `KEYS`,
    /// // "messages") holding an array of one object, whose one sent member is key 4 ("role").
    /// let nums = [OBJ as f64, 1.0, 0.0, ARR as f64, 1.0, OBJ as f64, 1.0, 4.0, STR as f64];
    /// let strs = format!("{SEP}user");
    /// let body = Skeleton::parse(&nums, &strs).unwrap();
    /// let first = body.root().get("messages").unwrap().items().next().unwrap();
    /// assert_eq!(first.get("role").unwrap().str().as_deref(), Some("user"));
    ///
    /// // A cut skeleton is an error, not a panic.
    /// assert!(Skeleton::parse(&nums[..6], &strs).is_err());
    /// ```
    pub fn parse(nums: &[f64], strs: &str) -> Result<Skeleton, String> {
        let mut split = strs.split(SEP);
        // `strs` starts with SEP: the first piece is empty.
        split.next();
        let mut r = Reader {
            nums,
            at: 0,
            strs: split,
            out: Skeleton {
                text: String::with_capacity(strs.len()),
                slots: Vec::with_capacity(nums.len() / 2 + 1),
            },
        };
        r.value(NO_KEY, (0, 0), 0)?;
        if r.at != nums.len() {
            return Err(bad("trailing values"));
        }
        Ok(r.out)
    }

    /// The body.
    pub fn root(&self) -> SNode<'_> {
        SNode { skel: self, idx: 0 }
    }
}

/// The index of `key` in [`KEYS`].
fn key_code(key: &str) -> Option<u16> {
    KEYS.iter().position(|(k, _)| *k == key).map(|i| i as u16)
}

/// The items of an array node, or the members' values of an object node.
pub struct SItems<'s> {
    skel: &'s Skeleton,
    at: u32,
    end: u32,
}

impl<'s> Iterator for SItems<'s> {
    type Item = SNode<'s>;
    fn next(&mut self) -> Option<SNode<'s>> {
        if self.at >= self.end {
            return None;
        }
        let n = SNode {
            skel: self.skel,
            idx: self.at,
        };
        self.at = self.skel.slots.get(self.at as usize)?.next;
        Some(n)
    }
}

impl<'s> SNode<'s> {
    fn slot(self) -> Slot {
        self.skel.slots[self.idx as usize]
    }

    fn children(self) -> SItems<'s> {
        let s = self.slot();
        let end = if matches!(s.kind, ARR | OBJ) {
            s.next
        } else {
            self.idx + 1
        };
        SItems {
            skel: self.skel,
            at: self.idx + 1,
            end,
        }
    }

    fn key(self) -> Cow<'s, str> {
        let s = self.slot();
        match s.key {
            OTHER_KEY => Cow::Borrowed(&self.skel.text[s.key_at.0 as usize..s.key_at.1 as usize]),
            k => Cow::Borrowed(KEYS.get(k as usize).map_or("", |(name, _)| name)),
        }
    }
}

impl<'s> Node<'s> for SNode<'s> {
    type Items = SItems<'s>;

    fn view(self) -> View<'s, Self> {
        let s = self.slot();
        match s.kind {
            TRUE => View::Bool(true),
            FALSE => View::Bool(false),
            NUM => View::Num,
            STR => View::Str(Cow::Borrowed(&self.skel.text[s.a as usize..s.b as usize])),
            // Its text was not sent: readers take it through `text_info` (or `head`).
            TEXT_INFO | TEXT_HEAD => View::Str(Cow::Borrowed("")),
            ARR | SHALLOW_ARR => View::Arr(self),
            OBJ | SHALLOW_OBJ => View::Obj(self),
            _ => View::Null,
        }
    }

    fn get(self, key: &str) -> Option<Self> {
        let code = key_code(key);
        debug_assert!(
            code.is_some(),
            "the request skeleton does not carry {key:?}"
        );
        let code = code?;
        if self.slot().kind != OBJ {
            return None;
        }
        self.children().find(|m| m.slot().key == code)
    }

    fn items(self) -> SItems<'s> {
        if self.slot().kind == ARR {
            self.children()
        } else {
            SItems {
                skel: self.skel,
                at: 0,
                end: 0,
            }
        }
    }

    fn first_key(self) -> Option<Cow<'s, str>> {
        if self.slot().kind != OBJ {
            return None;
        }
        self.children().next().map(SNode::key)
    }

    fn to_value(self) -> Value {
        match self.view() {
            View::Null => Value::Null,
            View::Bool(b) => Value::Bool(b),
            View::Num => Value::from(0),
            View::Str(s) => Value::String(s.into_owned()),
            View::Arr(_) => Value::Array(self.items().map(Node::to_value).collect()),
            View::Obj(_) => Value::Object(
                self.children()
                    .map(|m| (m.key().into_owned(), m.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }

    fn item_count(self) -> usize {
        let s = self.slot();
        match s.kind {
            ARR | SHALLOW_ARR => s.a as usize,
            _ => 0,
        }
    }

    fn is_empty_array(self) -> bool {
        matches!(self.slot().kind, ARR | SHALLOW_ARR) && self.slot().a == 0
    }

    fn head(self, max: usize) -> Option<(usize, Cow<'s, str>)> {
        let s = self.slot();
        if s.kind != TEXT_HEAD {
            let whole = self.str()?;
            let len = whole.encode_utf16().count();
            return Some((len, whole));
        }
        let head = &self.skel.text[s.head.0 as usize..s.head.1 as usize];
        let mut units = 0;
        let end = head
            .char_indices()
            .find(|(_, c)| {
                units += c.len_utf16();
                units > max
            })
            .map_or(head.len(), |(i, _)| i);
        Some((s.a as usize, Cow::Borrowed(&head[..end])))
    }

    fn text_info(self) -> Option<TextInfo> {
        let s = self.slot();
        match s.kind {
            TEXT_INFO | TEXT_HEAD => Some(TextInfo {
                len: s.a,
                blank: s.b != 0,
                head: (s.a == 0).then(Box::default),
                head_is_whole: s.a == 0,
            }),
            STR => Some(TextInfo::of_str(
                &self.skel.text[s.a as usize..s.b as usize],
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{"messages": [{"role": "user", "content": <text of 5, not blank>, "x": …}], "model": …}`
    /// with `model` first (an unlisted first key) and a shallow `tools`.
    fn sample() -> (Vec<f64>, String) {
        let k = |name: &str| f64::from(key_code(name).unwrap());
        let nums = vec![
            OBJ as f64,
            3.0, // body
            -1.0,
            STR as f64,
            SKIPPED as f64, // "model": …
            k("tools"),
            SHALLOW_ARR as f64,
            0.0,
            k("messages"),
            ARR as f64,
            1.0,
            OBJ as f64,
            2.0,
            k("role"),
            STR as f64,
            k("content"),
            TEXT_INFO as f64,
            5.0,
            0.0,
        ];
        (nums, "\u{1f}model\u{1f}user".to_string())
    }

    #[test]
    fn reads_what_the_codec_sent() {
        let (nums, strs) = sample();
        let s = Skeleton::parse(&nums, &strs).unwrap();
        let root = s.root();
        assert_eq!(root.first_key().as_deref(), Some("model"));
        assert!(root.get("tools").unwrap().is_empty_array());
        let msgs = root.get("messages").unwrap();
        assert_eq!(msgs.item_count(), 1);
        let m = msgs.items().next().unwrap();
        assert_eq!(m.get("role").and_then(Node::str).as_deref(), Some("user"));
        let info = m.get("content").and_then(Node::text_info).unwrap();
        assert_eq!((info.len, info.blank, info.whole()), (5, false, None));
        assert!(m.get("tool_calls").is_none());
    }

    #[test]
    fn a_malformed_skeleton_is_an_error_not_a_panic() {
        let (nums, strs) = sample();
        for cut in 0..nums.len() {
            assert!(
                Skeleton::parse(&nums[..cut], &strs).is_err(),
                "cut at {cut}"
            );
        }
        assert!(Skeleton::parse(&[OBJ as f64, 1.0, 999.0, 0.0], "").is_err());
        assert!(Skeleton::parse(&[STR as f64], "").is_err());
        assert!(Skeleton::parse(&[42.0], "").is_err());
        assert!(Skeleton::parse(&[ARR as f64, 1e12], "").is_err());
    }

    fn string(s: &str, nums: &mut Vec<f64>, strs: &mut String) {
        strs.push(SEP);
        if s.contains(SEP) {
            nums.push(f64::from(STR_JSON));
            strs.push_str(&serde_json::to_string(s).unwrap());
        } else {
            nums.push(f64::from(STR));
            strs.push_str(s);
        }
    }

    /// What `js/request.js` writes of `v` (the codec's rules, for this test only: JS is the
    /// codec; this lets `cargo test` check the skeleton carries every field the readers read).
    fn encode(v: &Value, flags: u8, depth: u32, nums: &mut Vec<f64>, strs: &mut String) {
        let shallow = flags & SHALLOW != 0 || depth >= DEPTH;
        match v {
            Value::Null => nums.push(f64::from(NULL)),
            Value::Bool(b) => nums.push(f64::from(if *b { TRUE } else { FALSE })),
            Value::Number(_) => nums.push(f64::from(NUM)),
            Value::String(s) if flags & HEAD != 0 => {
                nums.extend([
                    f64::from(TEXT_HEAD),
                    s.encode_utf16().count() as f64,
                    f64::from(u8::from(s.trim().is_empty())),
                ]);
                let cut: String = s.chars().take(HEAD_CHARS).collect();
                string(&cut, nums, strs);
            }
            Value::String(s) if flags & TEXT != 0 => nums.extend([
                f64::from(TEXT_INFO),
                s.encode_utf16().count() as f64,
                f64::from(u8::from(s.trim().is_empty())),
            ]),
            Value::String(s) => string(s, nums, strs),
            Value::Array(a) if shallow => nums.extend([f64::from(SHALLOW_ARR), a.len() as f64]),
            Value::Array(a) => {
                nums.extend([f64::from(ARR), a.len() as f64]);
                for x in a {
                    encode(x, 0, depth + 1, nums, strs);
                }
            }
            Value::Object(_) if shallow => nums.push(f64::from(SHALLOW_OBJ)),
            Value::Object(o) => {
                nums.push(f64::from(OBJ));
                let at = nums.len();
                nums.push(0.0);
                let mut count = 0u32;
                for (i, (k, x)) in o.iter().enumerate() {
                    if let Some(c) = key_code(k) {
                        nums.push(f64::from(c));
                        encode(x, KEYS[c as usize].1, depth + 1, nums, strs);
                    } else if i == 0 {
                        nums.push(-1.0);
                        string(k, nums, strs);
                        nums.push(f64::from(SKIPPED));
                    } else {
                        continue;
                    }
                    count += 1;
                }
                nums[at] = f64::from(count);
            }
        }
    }

    /// Every real-error fixture: the plan and the changes read from the skeleton are those read
    /// from the whole value (in a debug build, a reader asking for a key the skeleton does not
    /// carry panics here).
    #[test]
    fn the_skeleton_gives_the_plans_the_whole_body_gives() {
        use super::super::{fixtures::FIXTURES, plan_json, Protocol};
        let mut n = 0;
        for file in FIXTURES {
            let all: Value = serde_json::from_str(file).unwrap();
            let protocol = all["protocol"]
                .as_str()
                .and_then(Protocol::from_name)
                .unwrap();
            for case in all["cases"].as_array().unwrap() {
                let opts = super::super::fixtures::options(&case["target"], protocol);
                let (mut nums, mut strs) = (Vec::new(), String::new());
                encode(&case["body"], 0, 0, &mut nums, &mut strs);
                let skel = Skeleton::parse(&nums, &strs).unwrap();
                let want = plan_json(&case["body"], protocol, &opts).unwrap();
                let body = &case["body"];
                let fetch =
                    |_: SNode, path: &[super::super::edit::Seg], f: &mut dyn FnMut(&[u8])| {
                        match super::super::edit::value_at(body, path).and_then(Value::as_str) {
                            Some(s) => {
                                f(s.as_bytes());
                                true
                            }
                            None => false,
                        }
                    };
                let got = super::super::plan_with(skel.root(), protocol, &opts, &fetch).unwrap();
                assert_eq!(got.plan, want.plan, "{}", case["name"]);
                assert_eq!(got.changes, want.changes, "{}", case["name"]);
                n += 1;
            }
        }
        assert!(n >= 20);
    }
}
