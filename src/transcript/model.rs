//! The working model every transcript rule runs on.
//!
//! A transcript never crosses into Rust whole. The JS codec (or [`crate::transcript::skeleton`] for
//! `serde_json` input) describes each message by the handful of fields the rules decide on: role, ids,
//! names, block types, signatures, text emptiness, image sizes. Rules edit that description in place.
//! Every message and block remembers where it came from, so the plan sent back to JS can say "keep
//! input message 7 as it is" for everything no rule touched, and give shallow edits for the rest.

use serde_json::Value;

/// A string of the skeleton: borrowed from a static vocabulary for the common ones (roles, block
/// types, usage keys), in place when short (ids), on the heap otherwise.
pub use super::text::Text;

/// A field's value as the skeleton shows it. Strings carry their full value; objects and arrays
/// only their kind (rules that need more fetch it through [`crate::transcript::Source`]).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Val {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Num(f64),
    Str(Text),
    Object,
    Array,
    Other,
}

impl Val {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A string with at least one non-whitespace character.
    pub fn non_blank_str(&self) -> Option<&str> {
        self.as_str().filter(|s| !super::text::trim(s).is_empty())
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Val::Absent)
    }

    /// Present and not null (JS `v != null`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Val::Absent | Val::Null)
    }

    /// JS truthiness. Objects and arrays are truthy; so is every non-empty string.
    pub fn is_truthy(&self) -> bool {
        match self {
            Val::Absent | Val::Null => false,
            Val::Bool(b) => *b,
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.is_empty(),
            Val::Object | Val::Array | Val::Other => true,
        }
    }

    /// The JSON of a scalar; `None` for values the skeleton only knows by kind.
    pub fn to_json(&self) -> Option<Value> {
        Some(match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(n) => num_json(*n),
            Val::Str(s) => Value::String(s.to_string()),
            _ => return None,
        })
    }

    /// The skeleton view of a JSON value.
    pub fn of_json(v: &Value) -> Val {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Val::Str(Text::new(s)),
            Value::Array(_) => Val::Array,
            Value::Object(_) => Val::Object,
        }
    }
}

/// The kind of a value whose content no rule reads (a tool call's `input` / `arguments`): one
/// byte where a [`Val`] takes 24, in the block every rule walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Absent,
    Null,
    Object,
    /// Anything else: a string, number, boolean, array, function …
    Other,
}

impl Kind {
    pub fn of(v: &Val) -> Kind {
        match v {
            Val::Absent => Kind::Absent,
            Val::Null => Kind::Null,
            Val::Object => Kind::Object,
            _ => Kind::Other,
        }
    }

    /// Present and not null (JS `v != null`).
    pub fn is_present(self) -> bool {
        !matches!(self, Kind::Absent | Kind::Null)
    }
}

/// A JS number as JSON: integral values stay integers (`10`, not `10.0`); NaN and infinities are
/// `null`, as `JSON.stringify` writes them.
pub fn num_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// What the skeleton knows of a text-like string field (`text`, `thinking`, string `content`).
#[derive(Clone, Debug, PartialEq, Default)]
///
/// 24 bytes (every text block and string content holds one): the length as `u32` (a JS string
/// is shorter than 2^30 units) and the head as a boxed `str`.
pub struct TextInfo {
    /// Length in UTF-16 code units, as JS counts it.
    pub len: u32,
    /// `s.trim() === ""`.
    pub blank: bool,
    /// The first characters, only when the codec was asked for them (inter-session user turns)
    /// or when the whole string is short; `head_is_whole` tells which.
    pub head: Option<Box<str>>,
    pub head_is_whole: bool,
}

impl TextInfo {
    pub fn of_str(s: &str) -> TextInfo {
        TextInfo {
            len: TextInfo::len_of(s.encode_utf16().count()),
            blank: s.trim().is_empty(),
            head: Some(s.into()),
            head_is_whole: true,
        }
    }

    /// A UTF-16 length as stored ([`u32::MAX`] for one past it, which no JS string reaches).
    pub fn len_of(units: usize) -> u32 {
        u32::try_from(units).unwrap_or(u32::MAX)
    }

    /// The whole string when the skeleton carried all of it.
    pub fn whole(&self) -> Option<&str> {
        if self.head_is_whole {
            self.head.as_deref()
        } else {
            None
        }
    }
}

/// What the skeleton knows of an image block's `data` string.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImageInfo {
    /// Length of the base64 string in characters.
    pub len: usize,
    /// Its first characters.
    pub head: String,
    /// The payload's cache digest, when the codec remembered it for this very
    /// string (see `image::cache`).
    pub digest: Option<crate::image::Digest>,
}

/// A new value for a field, as the plan will express it. Its JSON values are boxed, so an edit
/// takes 24 bytes, not the 72 a `serde_json::Value` (an `IndexMap` inside) does: a model holds one
/// edit list per message and block, and the first edit of each is stored in place ([`Edits`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Override {
    /// A literal JSON value.
    Json(Box<Value>),
    /// A literal string: a rewritten id, kept as the model's [`Text`] (in place when short), so
    /// renaming a call and its result allocates nothing.
    Str(Text),
    /// The same field of input message `k`, unchanged (used when merging turns).
    FromMsg(usize),
    /// `prefix + <input message k's field>` (both strings).
    Prefixed(Box<(String, usize)>),
    /// In the field's object, the array `list`: for the items at `items`, `key` is moved last and
    /// set to `value` (`{...field, [list]: field[list].map(…{...rest, [key]: value})}`).
    SetInItems(Box<ItemsEdit>),
    /// In the field's object, `key` set to `value` (`{...field, [key]: value}`; the key keeps its
    /// place when present), nothing else of the field read.
    SetKey(Box<(String, Value)>),
    /// A literal JSON value, the field moved last (`{...rest, [name]: value}`): 2026.9.6 rebuilds
    /// some blocks that way, and a host reading keys in order sees the difference.
    Last(Box<Value>),
    /// A literal JSON value every message that sets it shares (a synthetic result's `isError`
    /// and `details`): nothing built or freed per message. Written as [`Override::Json`] is.
    Static(&'static Value),
}

impl Override {
    /// The JSON of a literal ([`Override::Json`], [`Override::Str`]); `None` for the others.
    pub fn literal(&self) -> Option<std::borrow::Cow<'_, Value>> {
        match self {
            Override::Json(v) | Override::Last(v) => Some(std::borrow::Cow::Borrowed(&**v)),
            Override::Static(v) => Some(std::borrow::Cow::Borrowed(*v)),
            Override::Str(t) => Some(std::borrow::Cow::Owned(Value::String(t.to_string()))),
            _ => None,
        }
    }
}

/// The payload of [`Override::SetInItems`].
#[derive(Clone, Debug, PartialEq)]
pub struct ItemsEdit {
    pub list: String,
    pub items: Vec<usize>,
    pub key: String,
    pub value: Value,
}

/// One edit: `(name, Some(value))` sets a field, `(name, None)` deletes it.
type Edit = (Field, Option<Override>);

/// An edited field's name: its index in [`FIELD_NAMES`] (nearly every edit), or the name itself
/// (boxed twice: a thin pointer, for a rare name). 16 bytes where a [`Text`] took 24: one sits
/// in every message and block's [`Edits`].
#[derive(Clone, Debug, PartialEq)]
enum Field {
    Known(u8),
    #[allow(clippy::box_collection)]
    Other(Box<String>),
}

impl Field {
    fn of(name: &str) -> Field {
        match FIELD_NAMES.iter().position(|f| *f == name) {
            Some(k) => Field::Known(k as u8),
            None => Field::Other(Box::new(name.to_string())),
        }
    }

    /// The name (a [`FIELD_NAMES`] word itself when it is one).
    #[inline]
    fn as_str(&self) -> &str {
        match self {
            Field::Known(k) => FIELD_NAMES.get(*k as usize).copied().unwrap_or(""),
            Field::Other(s) => s,
        }
    }
}

impl PartialEq<str> for Field {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// Field edits on a message or block, in the order they were made. One list for sets and
/// deletes: every message and block of the model carries one, edited or not. The first edit is
/// stored in place: most edited messages and blocks get exactly one (a rewritten id), and a heap
/// list for each was a third of the allocations of a whole pass (and of the frees after it).
#[derive(Clone, Debug, Default)]
pub struct Edits {
    /// Each name appears once.
    list: EditList,
}

/// The edits in order: none, one in place, or two and more on the heap.
#[derive(Clone, Debug, Default)]
enum EditList {
    #[default]
    None,
    One(Edit),
    Many(Vec<Edit>),
}

impl EditList {
    fn as_slice(&self) -> &[Edit] {
        match self {
            EditList::None => &[],
            EditList::One(e) => std::slice::from_ref(e),
            EditList::Many(v) => v,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Edit] {
        match self {
            EditList::None => &mut [],
            EditList::One(e) => std::slice::from_mut(e),
            EditList::Many(v) => v,
        }
    }

    fn push(&mut self, e: Edit) {
        *self = match std::mem::take(self) {
            EditList::None => EditList::One(e),
            EditList::One(first) => {
                let mut v = Vec::with_capacity(4);
                v.push(first);
                v.push(e);
                EditList::Many(v)
            }
            EditList::Many(mut v) => {
                v.push(e);
                EditList::Many(v)
            }
        }
    }

    fn remove(&mut self, k: usize) {
        match self {
            EditList::One(_) if k == 0 => *self = EditList::None,
            EditList::Many(v) if k < v.len() => {
                v.remove(k);
            }
            _ => {}
        }
    }

    fn retain(&mut self, keep: impl Fn(&Edit) -> bool) {
        match self {
            EditList::One(e) if !keep(e) => *self = EditList::None,
            EditList::Many(v) => v.retain(|e| keep(e)),
            _ => {}
        }
    }
}

/// Equal when they set the same fields, in the same order, to the same values, and delete the
/// same fields in the same order (how sets and deletes interleave is not part of an edit).
impl PartialEq for Edits {
    fn eq(&self, other: &Edits) -> bool {
        self.sets().eq(other.sets()) && self.dels().eq(other.dels())
    }
}

/// The field names rules edit, so an edit does not allocate its name; the plan sends them as their
/// index (js/codec.js gets the list from `transcriptFieldNames()`).
pub const FIELD_NAMES: &[&str] = &[
    "id",
    "toolCallId",
    "toolUseId",
    "toolName",
    "content",
    "text",
    "thinking",
    "thinkingSignature",
    "thought_signature",
    "thoughtSignature",
    "type",
    "name",
    "input",
    "arguments",
    "role",
    "usage",
    "timestamp",
    "stopReason",
    "errorMessage",
    "details",
    "isError",
    "data",
    "mimeType",
    "provenance",
    "textSignature",
];

impl Edits {
    /// No edits yet, with room for `n` (a message a rule makes sets all its fields).
    pub fn with_capacity(n: usize) -> Edits {
        Edits {
            list: if n > 1 {
                EditList::Many(Vec::with_capacity(n))
            } else {
                EditList::None
            },
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.as_slice().is_empty()
    }

    /// The fields set, in the order they were first set (a name in [`FIELD_NAMES`] is that
    /// list's own word).
    pub fn sets(&self) -> impl Iterator<Item = (&str, &Override)> + '_ {
        self.list
            .as_slice()
            .iter()
            .filter_map(|(n, o)| o.as_ref().map(|o| (n.as_str(), o)))
    }

    /// The fields deleted, in the order they were deleted.
    pub fn dels(&self) -> impl Iterator<Item = &str> + '_ {
        self.list
            .as_slice()
            .iter()
            .filter(|(_, o)| o.is_none())
            .map(|(n, _)| n.as_str())
    }

    /// The value `name` is set to, if it is.
    pub fn get(&self, name: &str) -> Option<&Override> {
        self.list
            .as_slice()
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, o)| o.as_ref())
    }

    pub fn set(&mut self, name: &str, v: Override) {
        let list = self.list.as_mut_slice();
        match list.iter().position(|(n, _)| n == name) {
            Some(k) if list[k].1.is_some() => list[k].1 = Some(v),
            Some(k) => {
                // A set after a delete: it goes last among the sets.
                self.list.remove(k);
                self.push(name, Some(v));
            }
            None => self.push(name, Some(v)),
        }
    }

    pub fn del(&mut self, name: &str) {
        let list = self.list.as_slice();
        match list.iter().position(|(n, _)| n == name) {
            Some(k) if list[k].1.is_none() => {}
            Some(k) => {
                self.list.remove(k);
                self.push(name, None);
            }
            None => self.push(name, None),
        }
    }

    /// Forgets a set of `name` (the field keeps what it had; not a delete).
    pub fn unset(&mut self, name: &str) {
        self.list.retain(|(n, o)| o.is_none() || n != name);
    }

    /// Appends a set of `name`, which must not be set yet (a new message's fields, in key order).
    pub fn push_set(&mut self, name: &str, v: Override) {
        self.push(name, Some(v));
    }

    fn push(&mut self, name: &str, v: Option<Override>) {
        self.list.push((Field::of(name), v));
    }
}

/// Where a block came from. 16 bytes (every block holds one): indices as `u32` (a JS array
/// holds fewer than 2^32 items) and the rare cases boxed.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockOrigin {
    /// Block `idx` of input message `msg` (see [`Block::src_at`]).
    Src { msg: u32, idx: u32 },
    /// A block made by a rule; its full JSON is here (edits are applied to it directly). Boxed:
    /// rare, and every block of the model is as large as its largest origin.
    New(Box<Value>),
    /// `{type: "text", text: prefix + <input message msg's string content>}` (a rule turning a
    /// string content into a block: rare, so the prefix is boxed).
    FromStrContent { msg: u32, prefix: Box<String> },
}

/// An input index as stored in the model (`u32`: a JS array holds fewer than 2^32 items).
#[inline]
pub fn ix(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The block types rules and the skeleton tell apart, as one byte ([`Block::ty_tag`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum BlockType {
    /// Not a string (absent, null, a number …).
    #[default]
    Absent,
    Text,
    Thinking,
    RedactedThinking,
    ToolCall,
    ToolUse,
    FunctionCall,
    Image,
    ToolResult,
    Tool,
    /// Any other string: read [`Block::ty`].
    Other,
}

impl BlockType {
    /// The tag of a type string.
    pub const fn of_str(ty: &str) -> BlockType {
        const TYPES: [(&str, BlockType); 10] = [
            ("text", BlockType::Text),
            ("thinking", BlockType::Thinking),
            ("redacted_thinking", BlockType::RedactedThinking),
            ("toolCall", BlockType::ToolCall),
            ("toolUse", BlockType::ToolUse),
            ("functionCall", BlockType::FunctionCall),
            ("image", BlockType::Image),
            ("toolResult", BlockType::ToolResult),
            ("tool", BlockType::Tool),
            ("", BlockType::Other),
        ];
        let mut k = 0;
        while k < TYPES.len() - 1 {
            if same(ty, TYPES[k].0) {
                return TYPES[k].1;
            }
            k += 1;
        }
        BlockType::Other
    }

    pub fn of(v: &Val) -> BlockType {
        v.as_str().map_or(BlockType::Absent, BlockType::of_str)
    }
}

/// The value each [`BlockType`] tag stands for, by the tag's number (none for `Absent` and
/// `Other`: their value is kept in the block).
static TYPE_VALS: [Val; 11] = [
    Val::Absent,
    Val::Str(Text::Borrowed("text")),
    Val::Str(Text::Borrowed("thinking")),
    Val::Str(Text::Borrowed("redacted_thinking")),
    Val::Str(Text::Borrowed("toolCall")),
    Val::Str(Text::Borrowed("toolUse")),
    Val::Str(Text::Borrowed("functionCall")),
    Val::Str(Text::Borrowed("image")),
    Val::Str(Text::Borrowed("toolResult")),
    Val::Str(Text::Borrowed("tool")),
    Val::Absent,
];

/// A content block as the rules see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub origin: BlockOrigin,
    /// `false` for `null`, numbers, strings … inside a content array.
    pub is_object: bool,
    /// For a non-object: whether it is truthy in JS (the only thing rules ask of it).
    pub raw_truthy: bool,
    /// The type as one byte: rules test it on every block they walk. Its value is the tag's
    /// word; any other (a string no tag names, `null`, a number …) is kept in the extras
    /// ([`BlockExtra::ty_other`]). Set with [`Block::set_ty`].
    ty_tag: BlockType,
    pub id: Val,
    pub name: Val,
    /// Only the kind of `input` / `arguments`.
    pub input: Kind,
    pub arguments: Kind,
    pub text: Option<TextInfo>,
    /// The fields only some block types have, boxed so the common text and tool-call blocks stay
    /// small (the model of a 10,000-message transcript must stay cache-friendly).
    pub x: Option<Box<BlockExtra>>,
    pub edits: Edits,
}

/// Block fields that only thinking, image and Anthropic-native blocks (or Gemini-signed ones) have.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BlockExtra {
    /// The block's `type` when no [`BlockType`] tag names it (a rare string, a non-string).
    pub ty_other: Val,
    pub thinking: Option<TextInfo>,
    /// A string that does not open with `{` is known by blankness only (the skeleton's
    /// [`crate::transcript::skeleton::UNSENT_SIGNATURE`] stands for its text).
    pub thinking_signature: Val,
    /// `id` and `type` of an object-valued `thinkingSignature`.
    /// Boxed: rare (an object signature), and 48 bytes in place in every thinking block's
    /// extras.
    pub signature_object: Option<Box<(Val, Val)>>,
    pub thought_signature: Val,
    pub thought_signature_camel: Val,
    pub tool_use_id: Val,
    /// A `toolResult` or `tool` block's other id fields ([`RESULT_BLOCK_ID_FIELDS`], sent in
    /// 2026.9.6 mode only), boxed: they are rare.
    pub result_ids: Option<Box<[Val; RESULT_BLOCK_ID_FIELDS.len()]>>,
    /// Boxed: only image blocks have it, and it is larger than the rest of a thinking block's
    /// extras.
    pub data: Option<Box<ImageInfo>>,
    pub mime_type: Val,
    /// A tool call's `partialJson` (sent in 2026.9.6 mode only) and, when it is a string, how
    /// many keys an object `arguments` has.
    pub partial_json: Val,
    pub argument_keys: Option<usize>,
    /// A reasoning block's `signature`, and a `redacted_thinking` block's `thinkingSignature` and
    /// `data`, by presence and blankness only (sent in 2026.9.6 mode only).
    pub signature: Presence,
    pub redacted_signature: Presence,
    pub redacted_data: Presence,
    /// Text to put in front of `text` (inter-session marker).
    pub text_prefix: Option<String>,
    /// A text block's `textSignature` (sent in 2026.9.6 mode only), as `thinking_signature`: a
    /// string that does not open with `{` is known by blankness only.
    pub text_signature: Val,
    /// A wire tool call carries a vendor extension (OpenAI chat's `extra_content`, whatever it
    /// holds, `null` included): what a closed-schema target's rule removes.
    pub extension: bool,
}

/// What the skeleton knows of a field read only for whether it is there and, for a string,
/// whether it is blank: two flags (three of these sit in every block's extras).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Presence {
    present: bool,
    non_blank_str: bool,
}

impl Presence {
    /// From what the skeleton says of the field: its text when a string, else its value.
    pub fn new(text: Option<&TextInfo>, val: &Val) -> Presence {
        match text {
            Some(t) => Presence {
                present: true,
                non_blank_str: !t.blank,
            },
            None => Presence {
                present: val.is_present(),
                non_blank_str: false,
            },
        }
    }

    pub fn of_json(v: Option<&Value>) -> Presence {
        match v {
            Some(Value::String(s)) => Presence {
                present: true,
                non_blank_str: !s.trim().is_empty(),
            },
            other => Presence::new(None, &other.map_or(Val::Absent, Val::of_json)),
        }
    }

    /// Present and not null (JS `v != null`).
    pub fn is_present(&self) -> bool {
        self.present
    }

    /// A string with a non-whitespace character.
    pub fn is_non_blank_str(&self) -> bool {
        self.non_blank_str
    }
}

static ABSENT: Val = Val::Absent;

impl Block {
    /// The extra fields, created on first write.
    pub fn x_mut(&mut self) -> &mut BlockExtra {
        self.x.get_or_insert_with(Default::default)
    }

    fn x_val(&self, f: impl FnOnce(&BlockExtra) -> &Val) -> &Val {
        self.x.as_deref().map_or(&ABSENT, f)
    }

    pub fn thinking(&self) -> Option<&TextInfo> {
        self.x.as_deref().and_then(|x| x.thinking.as_ref())
    }

    pub fn thinking_signature(&self) -> &Val {
        self.x_val(|x| &x.thinking_signature)
    }

    pub fn signature_object(&self) -> Option<&(Val, Val)> {
        self.x
            .as_deref()
            .and_then(|x| x.signature_object.as_deref())
    }

    pub fn thought_signature(&self) -> &Val {
        self.x_val(|x| &x.thought_signature)
    }

    pub fn thought_signature_camel(&self) -> &Val {
        self.x_val(|x| &x.thought_signature_camel)
    }

    /// See [`BlockExtra::extension`].
    pub fn extension(&self) -> bool {
        self.x.as_deref().is_some_and(|x| x.extension)
    }

    pub fn tool_use_id(&self) -> &Val {
        self.x_val(|x| &x.tool_use_id)
    }

    /// A result block's ids (OpenClaw 2026.9.6's `extractToolResultMatchIds`): `toolUseId` and
    /// each of [`RESULT_BLOCK_ID_FIELDS`] holding a string that is not blank, trimmed.
    pub fn result_ids(&self) -> impl Iterator<Item = &str> {
        let others = self.x.as_deref().and_then(|x| x.result_ids.as_deref());
        std::iter::once(self.tool_use_id())
            .chain(others.into_iter().flatten())
            .filter_map(|v| v.as_str().map(super::text::trim).filter(|s| !s.is_empty()))
    }

    pub fn data(&self) -> Option<&ImageInfo> {
        self.x.as_deref().and_then(|x| x.data.as_deref())
    }

    pub fn mime_type(&self) -> &Val {
        self.x_val(|x| &x.mime_type)
    }

    /// Text to put in front of `text` (inter-session marker).
    pub fn text_prefix(&self) -> Option<&str> {
        self.x.as_deref().and_then(|x| x.text_prefix.as_deref())
    }

    pub fn set_text_prefix(&mut self, prefix: Option<String>) {
        if prefix.is_some() || self.x.is_some() {
            self.x_mut().text_prefix = prefix;
        }
    }

    pub fn partial_json(&self) -> &Val {
        self.x_val(|x| &x.partial_json)
    }

    pub fn text_signature(&self) -> &Val {
        self.x_val(|x| &x.text_signature)
    }

    /// An empty object block from input message `msg`, block `idx`; the skeleton fills the fields.
    pub fn src(msg: usize, idx: usize) -> Block {
        Block {
            origin: BlockOrigin::Src {
                msg: ix(msg),
                idx: ix(idx),
            },
            is_object: true,
            raw_truthy: true,
            ty_tag: BlockType::Absent,
            id: Val::Absent,
            name: Val::Absent,
            input: Kind::Absent,
            arguments: Kind::Absent,
            text: None,
            x: None,
            edits: Edits::default(),
        }
    }

    /// A block made by a rule from its JSON; its skeleton view is read from the JSON.
    pub fn new_json(v: Value) -> Block {
        let mut b = crate::transcript::skeleton::block_from_value(&v, 0, 0, true);
        b.origin = BlockOrigin::New(Box::new(v));
        b
    }

    /// `{type:"text", text}`. Its view is written directly, not read back from the JSON as
    /// [`Block::new_json`] does (a field lookup, hashed, for every field a block can have: most
    /// of what a synthetic tool result cost); a test checks the two agree.
    pub fn new_text(text: &str) -> Block {
        let mut map = serde_json::Map::with_capacity(2);
        map.insert("type".into(), Value::String("text".into()));
        map.insert("text".into(), Value::String(text.into()));
        Block {
            origin: BlockOrigin::New(Box::new(Value::Object(map))),
            ty_tag: BlockType::Text,
            text: Some(TextInfo::of_str(text)),
            ..Block::src(0, 0)
        }
    }

    pub fn ty(&self) -> Option<&str> {
        self.ty_val().as_str()
    }

    pub fn is_type(&self, t: &str) -> bool {
        self.ty() == Some(t)
    }

    /// The `type` field as the skeleton shows it (whatever its value).
    pub fn ty_val(&self) -> &Val {
        match self.ty_tag {
            BlockType::Absent | BlockType::Other => self.x_val(|x| &x.ty_other),
            t => &TYPE_VALS[t as usize],
        }
    }

    /// The type as a tag ([`BlockType::Other`] for any other string).
    #[inline]
    pub fn ty_tag(&self) -> BlockType {
        self.ty_tag
    }

    /// Sets the view of the `type` field (no edit: see [`Block::set`] for that).
    pub fn set_ty(&mut self, v: Val) {
        let tag = BlockType::of(&v);
        self.set_ty_tagged(v, tag);
    }

    /// Sets the type's view from a value whose tag is known (the skeleton's vocabulary code).
    #[inline(always)]
    pub(crate) fn set_ty_tagged(&mut self, v: Val, tag: BlockType) {
        debug_assert_eq!(tag, BlockType::of(&v));
        self.ty_tag = tag;
        if matches!(tag, BlockType::Absent | BlockType::Other) && !v.is_absent() {
            self.x_mut().ty_other = v;
        } else if let Some(x) = self.x.as_deref_mut() {
            x.ty_other = Val::Absent;
        }
    }

    /// `type === "text"`.
    #[inline]
    pub fn is_text(&self) -> bool {
        self.ty_tag == BlockType::Text
    }

    /// `type === "thinking"`.
    #[inline]
    pub fn is_thinking(&self) -> bool {
        self.ty_tag == BlockType::Thinking
    }

    /// `type === "image"`.
    #[inline]
    pub fn is_image(&self) -> bool {
        self.ty_tag == BlockType::Image
    }

    /// `toolCall`, `toolUse` or `functionCall`: the block shapes that count as tool calls.
    #[inline]
    pub fn is_tool_call(&self) -> bool {
        matches!(
            self.ty_tag,
            BlockType::ToolCall | BlockType::ToolUse | BlockType::FunctionCall
        )
    }

    /// The call id when it is a non-empty string.
    pub fn call_id(&self) -> Option<&str> {
        self.id.as_str().filter(|s| !s.is_empty())
    }

    /// Sets a field, keeping the skeleton view in step with the edit.
    pub fn set(&mut self, name: &str, v: Value) {
        self.view_set(name, Val::of_json(&v));
        if let BlockOrigin::New(obj) = &mut self.origin {
            if let Value::Object(map) = &mut **obj {
                map.insert(name.to_string(), v);
            }
            return;
        }
        self.edits.set(name, Override::Json(Box::new(v)));
    }

    pub fn set_str(&mut self, name: &str, s: &str) {
        self.set(name, Value::String(s.to_string()));
    }

    /// [`Block::set`], the field moved last ([`Override::Last`]).
    pub fn set_last(&mut self, name: &str, v: Value) {
        self.view_set(name, Val::of_json(&v));
        if let BlockOrigin::New(obj) = &mut self.origin {
            if let Value::Object(map) = &mut **obj {
                map.shift_remove(name);
                map.insert(name.to_string(), v);
            }
            return;
        }
        self.edits.set(name, Override::Last(Box::new(v)));
    }

    /// [`Block::set`] to a string held as [`Text`] (an [`Override::Str`]: no JSON value made).
    pub fn set_text(&mut self, name: &str, t: Text) {
        if let BlockOrigin::New(_) = self.origin {
            return self.set(name, Value::String(t.to_string()));
        }
        self.view_set(name, Val::Str(t.clone()));
        self.edits.set(name, Override::Str(t));
    }

    /// In object field `name`, array `list`: sets `key` of the items at `items` to `value`, moving it
    /// last, without reading the rest of the field.
    pub fn set_in_items(
        &mut self,
        name: &str,
        list: &str,
        items: Vec<usize>,
        key: &str,
        value: Value,
    ) {
        if let BlockOrigin::New(v) = &mut self.origin {
            if let Some(Value::Array(arr)) = v.get_mut(name).and_then(|f| f.get_mut(list)) {
                for i in &items {
                    if let Some(Value::Object(item)) = arr.get_mut(*i) {
                        item.shift_remove(key);
                        item.insert(key.to_string(), value.clone());
                    }
                }
            }
            return;
        }
        let ov = Override::SetInItems(Box::new(ItemsEdit {
            list: list.into(),
            items,
            key: key.into(),
            value,
        }));
        self.edits.set(name, ov);
    }

    /// Deletes a field (a no-op in the plan when it is absent already).
    pub fn del(&mut self, name: &str) {
        self.view_set(name, Val::Absent);
        if let BlockOrigin::New(obj) = &mut self.origin {
            if let Value::Object(map) = &mut **obj {
                map.remove(name);
                return;
            }
        }
        self.edits.del(name);
    }

    fn view_set(&mut self, name: &str, v: Val) {
        match name {
            "type" => self.set_ty(v),
            "id" => self.id = v,
            "name" => self.name = v,
            "input" => self.input = Kind::of(&v),
            "arguments" => self.arguments = Kind::of(&v),
            "thinkingSignature" => {
                let x = self.x_mut();
                x.signature_object = None;
                x.thinking_signature = v
            }
            "thought_signature" => self.x_mut().thought_signature = v,
            "thoughtSignature" => self.x_mut().thought_signature_camel = v,
            "toolUseId" => self.x_mut().tool_use_id = v,
            "mimeType" => self.x_mut().mime_type = v,
            "partialJson" => self.x_mut().partial_json = v,
            "textSignature" => self.x_mut().text_signature = v,
            "text" => {
                self.text = match &v {
                    Val::Str(s) => Some(TextInfo::of_str(s)),
                    _ => None,
                }
            }
            "thinking" => {
                self.x_mut().thinking = match &v {
                    Val::Str(s) => Some(TextInfo::of_str(s)),
                    _ => None,
                }
            }
            "data" => {
                self.x_mut().data = match &v {
                    Val::Str(s) => Some(Box::new(ImageInfo {
                        len: s.len(),
                        head: s.chars().take(1024).collect(),
                        digest: None,
                    })),
                    _ => None,
                }
            }
            _ => {}
        }
    }

    /// Input message and block of a block read from the input (`None` for one a rule made).
    #[inline]
    pub fn src_at(&self) -> Option<(usize, usize)> {
        match self.origin {
            BlockOrigin::Src { msg, idx } => Some((msg as usize, idx as usize)),
            _ => None,
        }
    }

    /// Whether the plan must describe this block rather than point at the input block.
    pub fn is_changed(&self) -> bool {
        !matches!(self.origin, BlockOrigin::Src { .. })
            || !self.edits.is_empty()
            || self.text_prefix().is_some()
    }
}

/// `message.provenance`, when it is an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub kind: Val,
    pub source_session_key: Val,
    pub source_channel: Val,
    pub source_tool: Val,
}

/// `message.usage` as the skeleton shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum UsageView {
    /// Not an object (absent, null, a number …).
    NotObject(Val),
    /// An object, flattened one level deep: `("input", Num)`, `("cost", Object)`, `("cost.total", Num)`.
    Fields(Vec<(Text, Val)>),
    /// An object already in the normalised shape (pi-ai's: the five counts, then `cost` with its
    /// five, all finite, `input` not negative), read straight into its snapshot: the common case,
    /// and building the flattened list for it was the largest single cost of parsing.
    Snapshot(Box<crate::transcript::usage::UsageSnapshot>),
}

/// The id fields of a `toolResult` or `tool` block besides `toolUseId`, which OpenClaw 2026.9.6
/// reads too, in the order the codec sends them in 2026.9.6 mode (js/codec.js reads this list
/// through `transcriptSkeletonCodes()`).
pub const RESULT_BLOCK_ID_FIELDS: [&str; 5] = [
    "toolCallId",
    "tool_use_id",
    "tool_call_id",
    "callId",
    "call_id",
];

/// The message fields only OpenClaw 2026.9.6's rules read, in the order the codec sends them
/// (js/codec.js reads this list through `transcriptSkeletonCodes()` and sends them only in
/// 2026.9.6 mode, so the 2026.3.23 path reads no more fields than before). `a.b` is field `b` of
/// object field `a` (absent when `a` is not an object).
pub const EXTRA_FIELDS: &[&str] = &[
    "tool_call_id",
    "tool_use_id",
    "callId",
    "call_id",
    "isError",
    "provider",
    "model",
    "openclawDeliveryMirror.kind",
    "__openclaw.media",
    "name",
    "providerReplay.type",
    "providerReplay.replayIndex",
];

/// Positions in [`EXTRA_FIELDS`].
pub mod extra {
    pub const TOOL_CALL_ID_SNAKE: usize = 0;
    pub const TOOL_USE_ID_SNAKE: usize = 1;
    pub const CALL_ID_CAMEL: usize = 2;
    pub const CALL_ID_SNAKE: usize = 3;
    pub const IS_ERROR: usize = 4;
    pub const PROVIDER: usize = 5;
    pub const MODEL: usize = 6;
    pub const DELIVERY_MIRROR_KIND: usize = 7;
    pub const PERSISTED_MEDIA: usize = 8;
    pub const NAME: usize = 9;
    pub const REPLAY_TYPE: usize = 10;
    pub const REPLAY_INDEX: usize = 11;
}

/// A message's [`EXTRA_FIELDS`], boxed: only the 2026.9.6 pass reads them (the codec sends
/// none on the 2026.3.23 path), and in place they took 72 bytes of every message of a model
/// every rule walks. Nothing is allocated for a message with none; the skeleton parse reuses
/// the box of the message it parses over ([`Extras::take_box`], [`Extras::read_in`]).
#[derive(Clone, Debug, Default)]
pub struct Extras(Option<Box<ExtraFields>>);

impl Extras {
    /// The fields `present` (bit `k`: field `k`), their values in order.
    pub fn new(present: u16, vals: Vec<Val>) -> Extras {
        let mut vals = vals.into_iter();
        Extras::read(present, || {
            Ok::<Val, std::convert::Infallible>(vals.next().unwrap_or(Val::Absent))
        })
        .unwrap_or_default()
    }

    /// The fields `present`, their values read in order from `next`.
    pub fn read<E>(present: u16, next: impl FnMut() -> Result<Val, E>) -> Result<Extras, E> {
        Extras::read_in(present, None, next)
    }

    /// [`Extras::read`] into `spare`, a box an earlier message gave back, when there is one.
    pub fn read_in<E>(
        present: u16,
        spare: Option<Box<ExtraFields>>,
        next: impl FnMut() -> Result<Val, E>,
    ) -> Result<Extras, E> {
        if present == 0 {
            return Ok(Extras(None));
        }
        let fields = ExtraFields::read(present, next)?;
        Ok(Extras(Some(match spare {
            Some(mut b) => {
                *b = fields;
                b
            }
            None => Box::new(fields),
        })))
    }

    /// Field `k` (absent when not stored).
    #[inline]
    pub fn get(&self, k: usize) -> &Val {
        match &self.0 {
            Some(x) => x.get(k),
            None => &ABSENT,
        }
    }

    /// Sets field `k` (rare: a rule writing one of these fields).
    pub fn set(&mut self, k: usize, v: Val) {
        if self.0.is_none() && v.is_absent() {
            return;
        }
        self.0.get_or_insert_with(Default::default).set(k, v);
    }

    /// The box, for the next message to reuse (this one is left with none).
    pub fn take_box(&mut self) -> Option<Box<ExtraFields>> {
        self.0.take()
    }
}

impl PartialEq for Extras {
    /// Equal when every field reads the same (an absent field stored or not).
    fn eq(&self, other: &Extras) -> bool {
        (0..EXTRA_FIELDS.len()).all(|k| self.get(k) == other.get(k))
    }
}

/// The stored [`EXTRA_FIELDS`] of a message, only the present ones, in the list's order (a
/// message carries one or two: `provider` and `model`, `isError`). The first two are stored in
/// place, the rest (rare) in a list of their own.
#[derive(Clone, Debug, Default)]
pub struct ExtraFields {
    /// Bit `k`: field `k` is stored.
    present: u16,
    /// The first two stored fields.
    first: [Val; 2],
    /// The stored fields past the first two (`None` when there are none).
    rest: Option<Box<[Val]>>,
}

impl ExtraFields {
    fn new(present: u16, vals: Vec<Val>) -> ExtraFields {
        let mut vals = vals.into_iter();
        ExtraFields::read(present, || {
            Ok::<Val, std::convert::Infallible>(vals.next().unwrap_or(Val::Absent))
        })
        .unwrap_or_default()
    }

    fn read<E>(present: u16, mut next: impl FnMut() -> Result<Val, E>) -> Result<ExtraFields, E> {
        let count = present.count_ones() as usize;
        let mut x = ExtraFields {
            present,
            ..ExtraFields::default()
        };
        for slot in x.first.iter_mut().take(count) {
            *slot = next()?;
        }
        if count > 2 {
            let rest = (2..count)
                .map(|_| next())
                .collect::<Result<Vec<Val>, E>>()?;
            x.rest = Some(rest.into_boxed_slice());
        }
        Ok(x)
    }

    /// Where field `k` is (or would be) stored.
    fn slot(&self, k: usize) -> usize {
        (self.present & ((1u16 << k) - 1)).count_ones() as usize
    }

    /// The stored field at `slot`.
    fn at(&self, slot: usize) -> &Val {
        match slot {
            0 | 1 => &self.first[slot],
            _ => self
                .rest
                .as_deref()
                .and_then(|r| r.get(slot - 2))
                .unwrap_or(&ABSENT),
        }
    }

    fn get(&self, k: usize) -> &Val {
        if k < EXTRA_FIELDS.len() && self.present & (1 << k) != 0 {
            self.at(self.slot(k))
        } else {
            &ABSENT
        }
    }

    fn set(&mut self, k: usize, v: Val) {
        let at = self.slot(k);
        let count = self.present.count_ones() as usize;
        let mut vals: Vec<Val> = (0..count).map(|s| self.at(s).clone()).collect();
        if self.present & (1 << k) != 0 {
            vals[at] = v;
        } else {
            vals.insert(at, v);
            self.present |= 1 << k;
        }
        *self = ExtraFields::new(self.present, vals);
    }
}

/// Message content as the skeleton shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    /// Absent, null, a number, an object: anything but a string or an array.
    Other(Val),
    /// A string; `from` is the input message whose `content` it is, `prefix` text put in front
    /// (48 bytes, not 64: the index as `u32`, the prefix boxed, as [`BlockOrigin`]).
    Str {
        info: TextInfo,
        from: Option<u32>,
        prefix: Box<str>,
    },
    Blocks(Vec<Block>),
}

/// The message fields only some messages have (tool results, failed turns), by position in
/// [`RareFields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rare {
    ToolCallId,
    ToolUseId,
    ToolName,
    ErrorMessage,
}

/// A message's [`Rare`] fields, then ([`ROLE_SLOT`]) its role when no [`Role`] tag names it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RareFields([Val; 5]);

/// Where [`RareFields`] keeps a role no [`Role`] tag names.
const ROLE_SLOT: usize = 4;

/// The value each [`Role`] tag stands for, by the tag's number (none for `Absent` and `Other`:
/// their value is kept in the message).
static ROLE_VALS: [Val; 5] = [
    Val::Absent,
    Val::Str(Text::Borrowed("user")),
    Val::Str(Text::Borrowed("assistant")),
    Val::Str(Text::Borrowed("toolResult")),
    Val::Absent,
];

/// A message's [`RareFields`] box, `None` when it has none of them.
#[derive(Clone, Debug, Default)]
struct RareBox(Option<Box<RareFields>>);

impl PartialEq for RareBox {
    /// Equal when every field reads the same (a box of absent fields or none).
    fn eq(&self, other: &RareBox) -> bool {
        fn read(r: &RareBox, k: usize) -> &Val {
            r.0.as_ref().map_or(&ABSENT, |b| &b.0[k])
        }
        (0..5).all(|k| read(self, k) == read(other, k))
    }
}

/// Where a message came from.
#[derive(Clone, Debug, PartialEq)]
pub enum MsgOrigin {
    /// Input message `i`.
    Src(usize),
    /// Made by a rule; every field is in `edits.sets`, in key order.
    New,
}

/// `a == b`, in a `const` context (the tag tables are built at compile time).
pub const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// The roles rules test, as one byte ([`Msg::role_tag`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Role {
    /// Not a string (absent, null, a number …).
    #[default]
    Absent,
    User,
    Assistant,
    ToolResult,
    /// Any other string (`system`, `compactionSummary`, `tool` …): read [`Msg::role`].
    Other,
}

impl Role {
    /// The tag of a role value.
    pub const fn of_str(s: &str) -> Role {
        if same(s, "user") {
            Role::User
        } else if same(s, "assistant") {
            Role::Assistant
        } else if same(s, "toolResult") {
            Role::ToolResult
        } else {
            Role::Other
        }
    }

    pub fn of(v: &Val) -> Role {
        v.as_str().map_or(Role::Absent, Role::of_str)
    }
}

/// A message as the rules see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub origin: MsgOrigin,
    /// `false` for `null`, strings, numbers … in the messages array (passed through untouched).
    pub is_object: bool,
    /// The role as one byte: rules test the role several times a turn, and a byte compare is
    /// what a string compare of `"assistant"` was, less its length test and `memcmp` call. Its
    /// value is the tag's word; any other (`system`, `null` …) is kept with the rare fields.
    /// Set with [`Msg::set_role`].
    role_tag: Role,
    pub stop_reason: Val,
    pub timestamp: Val,
    /// `toolCallId`, `toolUseId`, `toolName`, `errorMessage`: boxed, only tool results and
    /// failed turns have them (read with [`Msg::tool_call_id`] …, set with [`Msg::set_field`]).
    rare: RareBox,
    pub has_details: bool,
    /// Boxed: rare, and a message must stay small (the model of a long transcript is walked by
    /// every rule).
    pub provenance: Option<Box<Provenance>>,
    pub usage: UsageView,
    pub content: Content,
    /// The content must be rebuilt from `content` (blocks were added, dropped, moved or edited).
    pub content_dirty: bool,
    pub edits: Edits,
    /// The [`EXTRA_FIELDS`] (sent in 2026.9.6 mode only; none on the 2026.3.23 path).
    pub extra: Extras,
}

impl Msg {
    /// An empty object message standing for input message `i`; the skeleton fills the fields.
    pub fn src(i: usize) -> Msg {
        Msg {
            origin: MsgOrigin::Src(i),
            is_object: true,
            role_tag: Role::Absent,
            stop_reason: Val::Absent,
            timestamp: Val::Absent,
            rare: RareBox(None),
            has_details: false,
            provenance: None,
            usage: UsageView::NotObject(Val::Absent),
            content: Content::Other(Val::Absent),
            content_dirty: false,
            edits: Edits::default(),
            extra: Extras::default(),
        }
    }

    /// `toolCallId` as the skeleton shows it.
    #[inline]
    pub fn tool_call_id(&self) -> &Val {
        self.rare_field(Rare::ToolCallId)
    }

    /// `toolUseId` as the skeleton shows it.
    #[inline]
    pub fn tool_use_id(&self) -> &Val {
        self.rare_field(Rare::ToolUseId)
    }

    /// `toolName` as the skeleton shows it.
    #[inline]
    pub fn tool_name(&self) -> &Val {
        self.rare_field(Rare::ToolName)
    }

    /// `errorMessage` as the skeleton shows it.
    #[inline]
    pub fn error_message(&self) -> &Val {
        self.rare_field(Rare::ErrorMessage)
    }

    #[inline]
    fn rare_field(&self, f: Rare) -> &Val {
        self.rare_slot(f as usize)
    }

    #[inline]
    fn rare_slot(&self, k: usize) -> &Val {
        match &self.rare.0 {
            Some(r) => &r.0[k],
            None => &ABSENT,
        }
    }

    #[inline]
    fn set_rare_slot(&mut self, k: usize, v: Val) {
        if self.rare.0.is_none() && v.is_absent() {
            return;
        }
        self.rare.0.get_or_insert_with(Default::default).0[k] = v;
    }

    /// Sets the view of one of the [`Rare`] fields (no edit: see [`Msg::set`] for that).
    pub fn set_field(&mut self, f: Rare, v: Val) {
        self.set_rare_slot(f as usize, v);
    }

    /// The rare fields' box, for the next message to reuse (this one is left with none).
    pub(crate) fn take_rare(&mut self) -> Option<Box<RareFields>> {
        self.rare.0.take()
    }

    /// Puts back a box [`Msg::take_rare`] gave, emptied (its fields read absent), when this
    /// message has none yet.
    pub(crate) fn reuse_rare(&mut self, mut b: Box<RareFields>) {
        if self.rare.0.is_none() {
            *b = RareFields::default();
            self.rare.0 = Some(b);
        }
    }

    /// Extra field `k` (an index of [`EXTRA_FIELDS`]).
    pub fn extra(&self, k: usize) -> &Val {
        self.extra.get(k)
    }

    /// A message made by a rule. Fields are given in key order; `content` may be among them
    /// (its value is ignored: the blocks given here are used).
    pub fn new(fields: Vec<(&str, Value)>, blocks: Option<Vec<Block>>) -> Msg {
        let mut m = Msg::src(0);
        m.origin = MsgOrigin::New;
        for (k, v) in fields {
            if k == "content" && blocks.is_some() {
                m.edits
                    .push_set("content", Override::Json(Box::new(Value::Null)));
                continue;
            }
            m.set(k, v);
        }
        if let Some(b) = blocks {
            if m.edits.get("content").is_none() {
                m.edits
                    .push_set("content", Override::Json(Box::new(Value::Null)));
            }
            m.content = Content::Blocks(b);
            m.content_dirty = true;
        }
        m
    }

    pub fn src_index(&self) -> Option<usize> {
        match self.origin {
            MsgOrigin::Src(i) => Some(i),
            MsgOrigin::New => None,
        }
    }

    pub fn role(&self) -> Option<&str> {
        if self.is_object {
            self.role_val().as_str()
        } else {
            None
        }
    }

    /// The `role` field as the skeleton shows it (whatever its value).
    pub fn role_val(&self) -> &Val {
        match self.role_tag {
            Role::Absent | Role::Other => self.rare_slot(ROLE_SLOT),
            t => &ROLE_VALS[t as usize],
        }
    }

    /// Sets the view of the `role` field (no edit: see [`Msg::set`] for that).
    pub fn set_role(&mut self, v: Val) {
        let tag = Role::of(&v);
        self.set_role_tagged(v, tag);
    }

    /// Sets the role's view from a value whose tag is known (the skeleton's vocabulary code).
    #[inline]
    pub(crate) fn set_role_tagged(&mut self, v: Val, tag: Role) {
        debug_assert_eq!(tag, Role::of(&v));
        self.role_tag = tag;
        if matches!(tag, Role::Absent | Role::Other) {
            self.set_rare_slot(ROLE_SLOT, v);
        } else if let Some(r) = &mut self.rare.0 {
            // A tag names it: no value kept (and no box made for none).
            r.0[ROLE_SLOT] = Val::Absent;
        }
    }

    /// The role as a tag ([`Role::Other`] for any other string, [`Role::Absent`] for none).
    pub fn role_tag(&self) -> Role {
        if self.is_object {
            self.role_tag
        } else {
            Role::Absent
        }
    }

    pub fn is_role(&self, r: &str) -> bool {
        self.role() == Some(r)
    }

    /// `role === "user"` (an object message).
    #[inline]
    pub fn is_user(&self) -> bool {
        self.role_tag == Role::User && self.is_object
    }

    /// `role === "assistant"` (an object message).
    #[inline]
    pub fn is_assistant(&self) -> bool {
        self.role_tag == Role::Assistant && self.is_object
    }

    /// `role === "toolResult"` (an object message).
    #[inline]
    pub fn is_tool_result(&self) -> bool {
        self.role_tag == Role::ToolResult && self.is_object
    }

    pub fn blocks(&self) -> Option<&Vec<Block>> {
        match &self.content {
            Content::Blocks(b) => Some(b),
            _ => None,
        }
    }

    /// The content blocks, marking the content as rebuilt.
    pub fn blocks_mut(&mut self) -> Option<&mut Vec<Block>> {
        match &mut self.content {
            Content::Blocks(b) => {
                self.content_dirty = true;
                Some(b)
            }
            _ => None,
        }
    }

    /// Replaces the content with these blocks.
    pub fn set_blocks(&mut self, blocks: Vec<Block>) {
        self.content = Content::Blocks(blocks);
        self.content_dirty = true;
        if self.origin == MsgOrigin::New && self.edits.get("content").is_none() {
            self.edits
                .push_set("content", Override::Json(Box::new(Value::Null)));
        }
    }

    /// The toolResult's id: `toolCallId` when a non-empty string, else `toolUseId`.
    pub fn result_id(&self) -> Option<&str> {
        self.tool_call_id()
            .as_str()
            .filter(|s| !s.is_empty())
            .or_else(|| self.tool_use_id().as_str().filter(|s| !s.is_empty()))
    }

    /// Sets a top-level field to a literal, keeping the skeleton view in step.
    pub fn set(&mut self, name: &str, v: Value) {
        self.view_set(name, &v);
        self.edits.set(name, Override::Json(Box::new(v)));
    }

    /// [`Msg::set`] to a value shared by every message that sets it ([`Override::Static`]).
    pub fn set_static(&mut self, name: &str, v: &'static Value) {
        self.view_set(name, v);
        self.edits.set(name, Override::Static(v));
    }

    /// A message made by a rule, with room for `fields` fields, to be set in key order
    /// ([`Msg::set`], [`Msg::set_text`], [`Msg::set_blocks`] …).
    pub fn new_empty(fields: usize) -> Msg {
        let mut m = Msg::src(0);
        m.origin = MsgOrigin::New;
        m.edits = Edits::with_capacity(fields);
        m
    }

    /// In object field `name` (of a message read from the input), sets `key` to `value`
    /// ([`Override::SetKey`]); the view of an [`EXTRA_FIELDS`] entry `name.key` follows.
    pub fn set_in_object(&mut self, name: &str, key: &str, value: Value) {
        let dotted = format!("{name}.{key}");
        if let Some(k) = EXTRA_FIELDS.iter().position(|f| *f == dotted) {
            self.extra.set(k, Val::of_json(&value));
        }
        let ov = Override::SetKey(Box::new((key.to_string(), value)));
        self.edits.set(name, ov);
    }

    /// [`Msg::set`] to a string held as [`Text`] (an [`Override::Str`]: no JSON value made).
    /// The plan writes it as the JSON string [`Override::literal`] gives:
    ///
    /// ```
    /// use serde_json::json;
    /// use transcript_hygiene::transcript::model::{Msg, Override};
    /// use transcript_hygiene::transcript::text::Text;
    ///
    /// // Input message 3's tool-call id, rewritten: kept in place, no `serde_json::Value` made.
    /// let mut m = Msg::src(3);
    /// m.set_text("toolCallId", Text::from("call_北京_1"));
    /// let edit = m.edits.get("toolCallId").unwrap();
    /// assert!(matches!(edit, Override::Str(_)));
    /// assert_eq!(*edit.literal().unwrap(), json!("call_北京_1"));
    /// // A merge's "same field as input message 2" is no literal.
    /// assert!(Override::FromMsg(2).literal().is_none());
    /// ```
    pub fn set_text(&mut self, name: &str, t: Text) {
        if !self.view_set_scalar(name, Val::Str(t.clone())) {
            return self.set(name, Value::String(t.to_string()));
        }
        self.edits.set(name, Override::Str(t));
    }

    /// Sets a field to another input message's value of the same field (or a copy of its edit).
    pub fn copy_field_from(&mut self, name: &str, other: &Msg) {
        let ov = match (other.edits.get(name), other.src_index()) {
            (Some(o), _) => o.clone(),
            (None, Some(k)) => Override::FromMsg(k),
            (None, None) => return,
        };
        match name {
            "timestamp" => self.timestamp = other.timestamp.clone(),
            "usage" => self.usage = other.usage.clone(),
            "stopReason" => self.stop_reason = other.stop_reason.clone(),
            "errorMessage" => self.set_field(Rare::ErrorMessage, other.error_message().clone()),
            _ => {}
        }
        self.edits.set(name, ov);
    }

    pub fn del(&mut self, name: &str) {
        // The extra fields read inside the removed one go with it.
        // (`a.b` is read inside `a`; compared bytewise: a `split_once` per field cost more than
        // the delete itself.)
        for (k, f) in EXTRA_FIELDS.iter().enumerate() {
            if f.as_bytes().get(name.len()) == Some(&b'.') && f.starts_with(name) {
                self.extra.set(k, Val::Absent);
            }
        }
        match name {
            "details" => self.has_details = false,
            "usage" => self.usage = UsageView::NotObject(Val::Absent),
            _ => self.view_set(name, &Value::Null),
        }
        if self.origin == MsgOrigin::New {
            self.edits.unset(name);
        } else {
            self.edits.del(name);
        }
    }

    fn view_set(&mut self, name: &str, v: &Value) {
        if !self.view_set_scalar(name, Val::of_json(v)) {
            self.view_set_content(name, v);
        }
    }

    /// The view of field `name` set to `val`; `false` (nothing done) for `usage` and `content`,
    /// whose views are read from the JSON.
    fn view_set_scalar(&mut self, name: &str, val: Val) -> bool {
        match name {
            "role" => self.set_role(val),
            "stopReason" => self.stop_reason = val,
            "timestamp" => self.timestamp = val,
            "toolCallId" => self.set_field(Rare::ToolCallId, val),
            "toolUseId" => self.set_field(Rare::ToolUseId, val),
            "toolName" => self.set_field(Rare::ToolName, val),
            "errorMessage" => self.set_field(Rare::ErrorMessage, val),
            "details" => self.has_details = true,
            other => match EXTRA_FIELDS.iter().position(|f| *f == other) {
                Some(k) => self.extra.set(k, val),
                None => return false,
            },
        }
        true
    }

    fn view_set_content(&mut self, name: &str, v: &Value) {
        match name {
            "usage" => {
                self.usage = match v {
                    Value::Object(map) => {
                        UsageView::Fields(crate::transcript::skeleton::flatten_usage(map))
                    }
                    other => UsageView::NotObject(Val::of_json(other)),
                }
            }
            "content" => {
                self.content = match v {
                    Value::String(s) => Content::Str {
                        info: TextInfo::of_str(s),
                        from: None,
                        prefix: Box::default(),
                    },
                    other => Content::Other(Val::of_json(other)),
                };
                self.content_dirty = false;
            }
            _ => {}
        }
    }

    /// Whether the plan must describe this message rather than point at the input message.
    pub fn is_changed(&self) -> bool {
        self.origin == MsgOrigin::New || !self.edits.is_empty() || self.content_dirty
    }
}

#[cfg(test)]
mod tests {
    use super::{extra, Block, Extras, Val};

    #[test]
    fn a_new_text_block_reads_as_its_json_does() {
        // `new_text` writes its view directly: it must be the one read back from its JSON.
        for t in ["", "北京今天晴", "[openclaw] missing tool result", " \n "] {
            let json = serde_json::json!({"type": "text", "text": t});
            assert_eq!(Block::new_text(t), Block::new_json(json), "{t:?}");
        }
    }

    fn text(s: &'static str) -> Val {
        Val::Str(s.into())
    }

    /// A role or block type is kept as a one-byte tag and the value only when no tag names it:
    /// whatever was set reads back, tag and value agree, and a tagged value set over another
    /// leaves nothing of it behind.
    #[test]
    fn roles_and_block_types_read_back_as_set() {
        use super::{BlockType, Msg, Role};
        let vals = [
            Val::Absent,
            Val::Null,
            Val::Num(3.0),
            Val::Object,
            text(""),
            text("user"),
            text("assistant"),
            text("toolResult"),
            text("system"),
            text("用户"),
            text("text"),
            text("thinking"),
            text("redacted_thinking"),
            text("toolCall"),
            text("toolUse"),
            text("functionCall"),
            text("image"),
            text("tool"),
            text("reasoning"),
            text("文本"),
        ];
        for v in &vals {
            for w in &vals {
                let mut b = Block::src(0, 0);
                b.set_ty(v.clone());
                assert_eq!((b.ty_val(), b.ty_tag()), (v, BlockType::of(v)), "{v:?}");
                assert_eq!(b.ty(), v.as_str());
                b.set_ty(w.clone());
                assert_eq!(
                    (b.ty_val(), b.ty_tag()),
                    (w, BlockType::of(w)),
                    "{v:?} then {w:?}"
                );
                let mut m = Msg::src(0);
                m.set_role(v.clone());
                assert_eq!((m.role_val(), m.role_tag()), (v, Role::of(v)), "{v:?}");
                m.set_role(w.clone());
                let mut fresh = Msg::src(0);
                fresh.set_role(w.clone());
                assert_eq!(m, fresh, "{v:?} then {w:?}");
                assert_eq!(m.role(), w.as_str());
                assert_eq!(m.is_assistant(), w.as_str() == Some("assistant"));
                assert_eq!(m.is_user(), w.as_str() == Some("user"));
                assert_eq!(m.is_tool_result(), w.as_str() == Some("toolResult"));
            }
        }
    }

    #[test]
    fn extras_store_only_present_fields_and_read_every_one() {
        let mut x = Extras::new(
            1 << extra::IS_ERROR | 1 << extra::MODEL,
            vec![Val::Bool(true), text("模型")],
        );
        assert_eq!(x.get(extra::IS_ERROR), &Val::Bool(true));
        assert_eq!(x.get(extra::MODEL), &text("模型"));
        assert_eq!(x.get(extra::PROVIDER), &Val::Absent);
        // A field set between two stored ones keeps the others where they read.
        x.set(extra::PROVIDER, text("openclaw"));
        x.set(extra::TOOL_CALL_ID_SNAKE, text("call_1"));
        x.set(extra::MODEL, text("delivery-mirror"));
        let read: Vec<Val> = (0..super::EXTRA_FIELDS.len())
            .map(|k| x.get(k).clone())
            .collect();
        let mut want = vec![Val::Absent; super::EXTRA_FIELDS.len()];
        want[extra::TOOL_CALL_ID_SNAKE] = text("call_1");
        want[extra::IS_ERROR] = Val::Bool(true);
        want[extra::PROVIDER] = text("openclaw");
        want[extra::MODEL] = text("delivery-mirror");
        assert_eq!(read, want);
        // Equality is by what the fields read, a stored absent one or not.
        let mut y = Extras::default();
        assert_eq!(y, Extras::new(1 << extra::CALL_ID_SNAKE, vec![Val::Absent]));
        y.set(extra::MODEL, text("x"));
        assert_ne!(y, Extras::default());
    }
}

#[cfg(test)]
mod size_report {
    #[test]
    fn model_sizes() {
        use super::*;
        use std::mem::size_of;
        eprintln!(
            "SIZES Msg {} Block {} Val {} Text {} TextInfo {} Content {} Edits {} Override {} UsageView {} Extras {} MsgOrigin {} BlockOrigin {} BlockExtra {}",
            size_of::<Msg>(), size_of::<Block>(), size_of::<Val>(), size_of::<Text>(), size_of::<TextInfo>(),
            size_of::<Content>(), size_of::<Edits>(), size_of::<Override>(), size_of::<UsageView>(),
            size_of::<Extras>(), size_of::<MsgOrigin>(), size_of::<BlockOrigin>(), size_of::<BlockExtra>()
        );
    }
}
