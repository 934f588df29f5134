//! Building the working model ([`Msg`]) from a transcript description.
//!
//! Two sources feed the same rules: the compact skeleton written by `js/codec.js` (the JS
//! boundary, which never hands Rust the whole transcript), and `serde_json` values (tests, the CLI,
//! byte-level entry points). The skeleton travels in three channels: `codes` (structure, kinds,
//! counts, lengths, masks: every small non-negative integer), `reals` (the numbers a value holds
//! and a usage's numbers, exactly as JS had them) and `strs` (strings). The layout is defined by
//! the codec; this parser mirrors it field for field, so a change to one is a change to both.

use super::model::*;
use super::usage::{UsageCost, UsageSnapshot};
use crate::image::cache;
use serde_json::{Map, Value};

const SEP: char = '\u{1f}';

/// Strings the codec sends as codes (`16 + index`). The one definition: js/codec.js reads it
/// (with the structure codes below) through `transcriptSkeletonCodes()`.
pub const VOCAB: &[&str] = &[
    "user",
    "assistant",
    "toolResult",
    "text",
    "thinking",
    "toolCall",
    "toolUse",
    "functionCall",
    "image",
    "redacted_thinking",
    "stop",
    "length",
    "error",
    "aborted",
    "inter_session",
    "external_user",
    "internal_system",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "totalTokens",
    "cost.input",
    "cost.output",
    "cost.cacheRead",
    "cost.cacheWrite",
    "cost.total",
    "compactionSummary",
    "custom",
    "branchSummary",
    "reasoning",
    "exec",
    "read",
    "write",
    "edit",
    "bash",
    "cost",
    "total",
];

/// Lone surrogates cannot be Rust text: the codec sends unit `0xD800 + k` as the character
/// `LONE_SURROGATE_BASE + k` (plane 16's last 2048 code points, private use) and maps them back
/// in what Rust returns. Rules see a character that, like a surrogate, is neither letter nor digit.
pub const LONE_SURROGATE_BASE: u32 = 0x10_F800;

/// Whether `c` stands for a lone surrogate (see [`LONE_SURROGATE_BASE`]).
pub fn is_lone_surrogate_stand_in(c: char) -> bool {
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&(c as u32))
}

/// What stands for a non-blank string `thinkingSignature` whose text the codec did not send (it
/// does not open with `{`, so no rule reads more of it than that it is a non-blank string).
pub const UNSENT_SIGNATURE: &str = "\u{2026}";

// Structure codes. Those that can stand where a value could (content, text, data) are kept
// apart from the value codes (0-10, 15, 16+): 11 and up.
pub const MESSAGE: u32 = 1;
pub const BLOCK: u32 = 2;
/// A message or block that is not an object; its value follows.
pub const NOT_OBJECT: u32 = 3;
pub const TEXT: u32 = 11;
pub const TEXT_HEAD: u32 = 12;
pub const ARRAY: u32 = 13;
pub const DATA: u32 = 14;
/// A usage object in pi-ai's normalised shape ([`USAGE_KEYS`] in order, then maybe `cost` with
/// [`COST_KEYS`] in order, every value a finite number, `input` not negative), sent as its
/// numbers only: this code and 0 (no cost) or 1 in `codes`, the 5 or 10 numbers in key order in
/// `reals` (where the object took 17 or 35 slots). It stands where a value could (the usage slot),
/// so it lies past every value code, vocabulary included.
pub const USAGE: u32 = 240;
/// A call's `arguments` key count (sent after a string `partialJson` in 2026.9.6 mode) when they
/// are not an object: what JS's `Uint32Array` stores for `-1`.
pub const NO_ARGUMENT_KEYS: u32 = u32::MAX;

/// A skeleton the parser cannot read (the codec and the parser disagree). What went wrong is
/// kept in the cursor ([`Cursor::why`]): each of the ~30 reads a message takes returns a `Result`
/// of a word or two, not one carrying a `String` to move and test.
#[derive(Debug)]
struct Stop;

type Read<T> = Result<T, Stop>;

/// Reads the three skeleton channels in order.
struct Cursor<'a> {
    /// Structure codes, counts, lengths and masks (a `Uint32Array` in JS).
    codes: &'a [u32],
    at: usize,
    /// The numbers of values (value code 7) and of usages ([`USAGE`]), as JS had them: a
    /// timestamp, a count past 2^32, `-0`, `1.5`, NaN (a `Float64Array` in JS). Each code used to
    /// cross as an f64 too, read with a bounds check, a saturating cast and its round trip.
    reals: &'a [f64],
    real_at: usize,
    strs: &'a str,
    /// Where the next string of `strs` begins (just past its separator); `None` once the last
    /// one was read.
    next: Option<usize>,
    /// Why the read that returned [`Stop`] stopped.
    why: String,
    /// Memory the model an earlier call left gives back to this parse (see [`Spare`]).
    spare: Spare,
}

/// What the messages of the model an earlier call left give back as they are parsed over: a
/// block list's memory and the boxes of blocks' extras and usage snapshots, reused by the next
/// messages instead of freed and allocated again. Nearly every allocation of a parse was one of
/// these (a block list a message, a thinking block's extras, an assistant's usage), and so was
/// nearly every free: at 1,000 messages, ~1,700 of each per call.
#[derive(Default)]
struct Spare {
    blocks: Vec<Block>,
    /// Boxes, not values: each is put back on a block as it is (the allocation is what is reused).
    #[allow(clippy::vec_box)]
    extras: Vec<Box<BlockExtra>>,
    usage: Option<Box<UsageSnapshot>>,
    /// A message's [`EXTRA_FIELDS`] box (2026.9.6 mode).
    extra_fields: Option<Box<ExtraFields>>,
    /// A message's [`RareFields`] box (tool results).
    rare: Option<Box<RareFields>>,
}

/// The most extras boxes kept for reuse at once (a message gives back its own, which the next
/// message mostly takes again).
const SPARE_EXTRAS: usize = 16;

impl Spare {
    /// Takes what `old` (a message about to be parsed over) can give back. Taken in place: a
    /// message moved out whole is a copy of a few hundred bytes.
    fn take_from(&mut self, old: &mut Msg) {
        if let Content::Blocks(blocks) = &mut old.content {
            let mut blocks = std::mem::take(blocks);
            for b in &mut blocks {
                if let Some(x) = b.x.take() {
                    if self.extras.len() < SPARE_EXTRAS {
                        self.extras.push(x);
                    }
                }
            }
            blocks.clear();
            if blocks.capacity() > self.blocks.capacity() {
                self.blocks = blocks;
            }
        }
        if let Some(x) = old.extra.take_box() {
            self.extra_fields = Some(x);
        }
        if let Some(r) = old.take_rare() {
            self.rare = Some(r);
        }
        if matches!(old.usage, UsageView::Snapshot(_)) {
            if let UsageView::Snapshot(u) =
                std::mem::replace(&mut old.usage, UsageView::NotObject(Val::Absent))
            {
                self.usage = Some(u);
            }
        }
    }

    /// A usage snapshot's box, reused when one was given back.
    fn usage(&mut self, snapshot: UsageSnapshot) -> Box<UsageSnapshot> {
        match self.usage.take() {
            Some(mut b) => {
                *b = snapshot;
                b
            }
            None => Box::new(snapshot),
        }
    }
}

/// `b`'s extras ([`Block::x_mut`]), in a box given back by the model being parsed over when
/// there is one.
fn extra<'b>(c: &mut Cursor, b: &'b mut Block) -> &'b mut BlockExtra {
    b.x.get_or_insert_with(|| match c.spare.extras.pop() {
        Some(mut x) => {
            *x = BlockExtra::default();
            x
        }
        None => Box::default(),
    })
}

/// Sets `b`'s extras to `x`, in a box given back by the model being parsed over when there is
/// one (the block must have none yet).
fn put_extra(c: &mut Cursor, b: &mut Block, x: BlockExtra) {
    debug_assert!(b.x.is_none());
    b.x = Some(match c.spare.extras.pop() {
        Some(mut bx) => {
            *bx = x;
            bx
        }
        None => Box::new(x),
    });
}

impl<'a> Cursor<'a> {
    /// Stops the parse, saying why.
    #[cold]
    fn stop<T>(&mut self, why: String) -> Read<T> {
        self.why = why;
        Err(Stop)
    }

    // The reads below are most of a skeleton (~22 codes a message): called, each cost about
    // twice what it does inlined.
    #[inline(always)]
    fn code(&mut self) -> Read<u32> {
        match self.codes.get(self.at) {
            Some(&c) => {
                self.at += 1;
                Ok(c)
            }
            None => self.stop("skeleton ended early (codec and parser disagree)".into()),
        }
    }

    /// The next number of the `reals` channel.
    #[inline(always)]
    fn real(&mut self) -> Read<f64> {
        match self.reals.get(self.real_at) {
            Some(&v) => {
                self.real_at += 1;
                Ok(v)
            }
            None => {
                self.stop("skeleton: the numbers ended early (codec and parser disagree)".into())
            }
        }
    }

    #[inline(always)]
    fn count(&mut self) -> Read<usize> {
        Ok(self.code()? as usize)
    }

    /// The count of a list whose items take a code at least each: a count past what is left is
    /// a bad skeleton, not a reason to allocate.
    #[inline(always)]
    fn list_count(&mut self) -> Read<usize> {
        let n = self.count()?;
        if n > self.codes.len() - self.at {
            return self.stop("skeleton ended early (codec and parser disagree)".into());
        }
        Ok(n)
    }

    /// The next string: up to the next separator.
    fn string(&mut self) -> Read<&'a str> {
        let start = self.string_start()?;
        let end = memchr::memchr(SEP as u8, &self.strs.as_bytes()[start..]).map(|k| start + k);
        Ok(self.take_string(start, end))
    }

    /// The next string, which the codec says is `len` UTF-16 units long: when that many bytes
    /// end at a separator (an ASCII string, as ids are), it is sliced without a search. The
    /// codec sends no separator inside such a string, so a separator there ends it; a string
    /// whose UTF-8 is longer than its UTF-16 is searched for as [`Cursor::string`] does.
    fn string_of_len(&mut self, len: usize) -> Read<&'a str> {
        let start = self.string_start()?;
        let bytes = self.strs.as_bytes();
        match start.checked_add(len).map(|end| (end, bytes.get(end))) {
            Some((end, Some(&b))) if b == SEP as u8 => Ok(self.take_string(start, Some(end))),
            Some((end, None)) if end == bytes.len() => Ok(self.take_string(start, None)),
            _ => self.string(),
        }
    }

    fn string_start(&mut self) -> Read<usize> {
        match self.next {
            Some(at) => Ok(at),
            None => self.stop("skeleton: string channel ended early".into()),
        }
    }

    /// The string from `start` to the separator at `end` (to the channel's end when `None`).
    fn take_string(&mut self, start: usize, end: Option<usize>) -> &'a str {
        self.next = end.map(|e| e + 1);
        // `start` follows a separator and `end` is one (ASCII): both are character boundaries.
        match end {
            Some(e) => self.strs.get(start..e).unwrap_or_default(),
            None => self.strs.get(start..).unwrap_or_default(),
        }
    }

    /// A value (see `val()` in js/codec.js). Most are a vocabulary word or absent: those are
    /// read here, inlined, and only the rest by [`Cursor::val_of`] (a call for each of the ~6 values
    /// a message holds cost about as much as the rest of reading them).
    #[inline(always)]
    fn val(&mut self) -> Read<Val> {
        let c = self.code()?;
        if let Some(w) = VOCAB.get((c as usize).wrapping_sub(16)) {
            return Ok(Val::Str(Text::Borrowed(w)));
        }
        if c == 0 {
            return Ok(Val::Absent);
        }
        // A number (a timestamp on every message) is as common as a word.
        if c == 7 {
            return Ok(Val::Num(self.real()?));
        }
        self.val_of(c)
    }

    fn val_of(&mut self, c: u32) -> Read<Val> {
        Ok(match c {
            0 => Val::Absent,
            1 => Val::Null,
            2 => Val::Bool(true),
            3 => Val::Bool(false),
            4 => Val::Object,
            5 => Val::Array,
            6 => Val::Other,
            7 => Val::Num(self.real()?),
            8 => {
                let len = self.count()?;
                Val::Str(Text::new(self.string_of_len(len)?))
            }
            9 => {
                let raw = self.string()?;
                Val::Str(match serde_json::from_str::<String>(raw) {
                    Ok(s) => s.into(),
                    Err(_) => Text::new(raw),
                })
            }
            10 => Val::Str(Text::Borrowed("")),
            15 => Val::Num(f64::NAN),
            c => match VOCAB.get((c as usize).wrapping_sub(16)) {
                Some(w) => Val::Str(Text::Borrowed(w)),
                None => return self.stop(format!("skeleton: unknown code {c}")),
            },
        })
    }

    /// A text-like field: its [`TextInfo`] when it is a string, else its value. A string sent
    /// without its head (nearly every text and thinking block) is read inline; the rest by
    /// [`Cursor::text_of`] (called, the common case cost about twice what it does inlined).
    #[inline(always)]
    fn text(&mut self) -> Read<(Option<TextInfo>, Val)> {
        let c = self.code()?;
        if c != TEXT {
            return self.text_of(c);
        }
        let blank = self.code()? != 0;
        let len = self.code()?;
        Ok((
            Some(TextInfo {
                len,
                blank,
                head: None,
                head_is_whole: false,
            }),
            Val::Str(Text::Borrowed("")),
        ))
    }

    /// [`Cursor::text`] past its code `c`, for any code but a headless string's.
    fn text_of(&mut self, c: u32) -> Read<(Option<TextInfo>, Val)> {
        if c != TEXT && c != TEXT_HEAD {
            return Ok((None, self.val_of(c)?));
        }
        let blank = self.code()? != 0;
        let len = self.code()?;
        let head: Option<Box<str>> = if c == TEXT_HEAD {
            self.val()?.as_str().map(Box::from)
        } else {
            None
        };
        let whole = len as usize;
        let head_is_whole = head
            .as_deref()
            .is_some_and(|h| h.len() == whole || h.encode_utf16().count() == whole);
        Ok((
            Some(TextInfo {
                len,
                blank,
                head,
                head_is_whole,
            }),
            Val::Str(Text::Borrowed("")),
        ))
    }

    /// A thinking block's `thinkingSignature`: a string that does not open with `{` (after JS
    /// whitespace) arrives as its blankness and length only, and stands here as `""` or
    /// [`UNSENT_SIGNATURE`] (rules read such a signature for presence and blankness only).
    fn signature(&mut self) -> Read<Val> {
        let c = self.code()?;
        if c != TEXT {
            return self.val_of(c);
        }
        let blank = self.code()? != 0;
        self.count()?;
        Ok(Val::Str(Text::Borrowed(if blank {
            ""
        } else {
            UNSENT_SIGNATURE
        })))
    }

    /// A field sent for its presence (see `presence()` in js/codec.js).
    fn presence(&mut self) -> Read<Presence> {
        let (text, val) = self.text()?;
        Ok(Presence::new(text.as_ref(), &val))
    }

    /// A small object one level deep (usage), flattened to `("cost", Object)`, `("cost.total", Num)`
    /// pairs.
    fn object(&mut self, prefix: &str, out: &mut Vec<(Text, Val)>) -> Read<()> {
        let n = self.count()?;
        out.reserve(n.min(64));
        for _ in 0..n {
            let key = match self.val()? {
                Val::Str(s) => s,
                _ => Text::Borrowed(""),
            };
            let key = if prefix.is_empty() {
                key
            } else {
                joined_key(prefix, &key)
            };
            let c = self.code()?;
            if c == 4 && prefix.is_empty() {
                out.push((key.clone(), Val::Object));
                self.object(&key, out)?;
            } else {
                out.push((key, self.val_of(c)?));
            }
        }
        Ok(())
    }
}

/// The usage keys of the normalised shape, in order, and those of its `cost` (js/codec.js reads
/// them through `transcriptSkeletonCodes()`).
pub const USAGE_KEYS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
pub const COST_KEYS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "total"];

/// The code the codec sends for a vocabulary word (its first position).
fn vocab_code(word: &str) -> u32 {
    VOCAB
        .iter()
        .position(|w| *w == word)
        .map_or(u32::MAX, |i| 16 + i as u32)
}

static USAGE_CODES: std::sync::LazyLock<([u32; 5], [u32; 5], u32)> =
    std::sync::LazyLock::new(|| {
        (
            USAGE_KEYS.map(vocab_code),
            COST_KEYS.map(vocab_code),
            vocab_code("cost"),
        )
    });

/// The snapshot of the normalised shape's numbers, in [`USAGE_KEYS`] and [`COST_KEYS`] order.
fn snapshot_of(counts: [f64; 5], cost: Option<[f64; 5]>) -> UsageSnapshot {
    UsageSnapshot {
        input: counts[0],
        output: counts[1],
        cache_read: counts[2],
        cache_write: counts[3],
        total_tokens: counts[4],
        cost: cost.map(|c| UsageCost {
            input: c[0],
            output: c[1],
            cache_read: c[2],
            cache_write: c[3],
            total: c[4],
        }),
    }
}

impl Cursor<'_> {
    /// A usage the codec sent as [`USAGE`] (the code already read).
    fn usage_numbers(&mut self) -> Read<UsageSnapshot> {
        let with_cost = self.code()? != 0;
        let mut five = || -> Read<[f64; 5]> {
            let mut out = [0.0; 5];
            for slot in &mut out {
                *slot = self.real()?;
                if !slot.is_finite() {
                    let why = format!("skeleton: a usage number that is not finite ({slot})");
                    return self.stop(why);
                }
            }
            Ok(out)
        };
        let counts = five()?;
        if counts[0] < 0.0 {
            return self.stop("skeleton: a normalised usage with a negative input".into());
        }
        let cost = if with_cost { Some(five()?) } else { None };
        Ok(snapshot_of(counts, cost))
    }

    /// A usage object (its `4` already read) that is exactly in the normalised shape, read into
    /// its snapshot; `None`, with nothing consumed, for any other object.
    fn normalised_usage(&mut self) -> Option<UsageSnapshot> {
        let saved = (self.at, self.real_at, self.next);
        let snapshot = self.try_normalised_usage();
        if snapshot.is_none() {
            (self.at, self.real_at, self.next) = saved;
        }
        snapshot
    }

    fn try_normalised_usage(&mut self) -> Option<UsageSnapshot> {
        let (usage_codes, cost_codes, cost_code) = &*USAGE_CODES;
        let n = self.count().ok()?;
        if n != 5 && n != 6 {
            return None;
        }
        let counts = self.finite_fields(usage_codes)?;
        if counts[0] < 0.0 {
            return None;
        }
        let cost = if n == 6 {
            if self.code().ok()? != *cost_code || self.code().ok()? != 4 || self.count().ok()? != 5
            {
                return None;
            }
            Some(self.finite_fields(cost_codes)?)
        } else {
            None
        };
        Some(snapshot_of(counts, cost))
    }

    /// Five `key: finite number` pairs with exactly these key codes.
    fn finite_fields(&mut self, keys: &[u32; 5]) -> Option<[f64; 5]> {
        let mut out = [0.0; 5];
        for (slot, key) in out.iter_mut().zip(keys) {
            if self.code().ok()? != *key || self.code().ok()? != 7 {
                return None;
            }
            *slot = self.real().ok().filter(|v| v.is_finite())?;
        }
        Some(out)
    }
}

/// `parent.child`, borrowed from the vocabulary when it is there (`cost.total`).
fn joined_key(parent: &str, child: &str) -> Text {
    let known = match (parent, child) {
        ("cost", "input") => Some("cost.input"),
        ("cost", "output") => Some("cost.output"),
        ("cost", "cacheRead") => Some("cost.cacheRead"),
        ("cost", "cacheWrite") => Some("cost.cacheWrite"),
        ("cost", "total") => Some("cost.total"),
        _ => None,
    };
    match known {
        Some(w) => Text::Borrowed(w),
        None => format!("{parent}.{child}").into(),
    }
}

/// Parses the codec's skeleton (`codes`, `reals`, `strs`) into messages numbered by their input
/// index.
pub fn parse(codes: &[u32], reals: &[f64], strs: &str) -> Result<Vec<Msg>, String> {
    let mut msgs = Vec::new();
    parse_into(codes, reals, strs, &mut msgs)?;
    Ok(msgs)
}

/// [`parse`] into `msgs`, a model an earlier call left (the boundary keeps the last one of its
/// thread): each of its messages is freed just before its slot is read again, so the new
/// model's allocations reuse the old one's memory as it is freed. A model freed whole at the end
/// of a call gave glibc ~1 KB a message to hand back to the system at once, and the next call
/// faulted it all in again (at 10,000 messages, ~2,300 page faults a call in some processes).
/// After an error `msgs` holds no meaningful model.
pub fn parse_into(
    codes: &[u32],
    reals: &[f64],
    strs: &str,
    msgs: &mut Vec<Msg>,
) -> Result<(), String> {
    // The string channel starts with a separator.
    let next = memchr::memchr(SEP as u8, strs.as_bytes()).map(|k| k + 1);
    let mut c = Cursor {
        codes,
        at: 0,
        reals,
        real_at: 0,
        strs,
        next,
        why: String::new(),
        spare: Spare::default(),
    };
    parse_messages(&mut c, msgs).map_err(|Stop| c.why)
}

fn parse_messages(c: &mut Cursor, msgs: &mut Vec<Msg>) -> Read<()> {
    let n = c.list_count()?;
    let kept = msgs.len().min(n);
    msgs.truncate(n);
    // Built in place, then filled: a message is a few hundred bytes, and building each one
    // aside and moving it into the vector was a measurable share of the parse.
    msgs.reserve_exact(n - kept);
    let mut i = kept;
    msgs.resize_with(n, || {
        i += 1;
        Msg::src(i - 1)
    });
    for (i, m) in msgs.iter_mut().enumerate() {
        if i < kept {
            c.spare.take_from(m);
            *m = Msg::src(i);
        }
        parse_message(c, m, i)?;
    }
    Ok(())
}

fn parse_message(c: &mut Cursor, m: &mut Msg, i: usize) -> Read<()> {
    if c.code()? != MESSAGE {
        m.is_object = false;
        m.content = Content::Other(c.val()?);
        return Ok(());
    }
    // The role by its code, its tag looked up by number (a role sent as a string by its text).
    let code = c.code()?;
    match VOCAB.get((code as usize).wrapping_sub(16)) {
        Some(w) => m.set_role_tagged(Val::Str(Text::Borrowed(w)), ROLES[code as usize - 16]),
        None => m.set_role(c.val_of(code)?),
    }
    let mask = c.code()?;
    if mask & 1 != 0 {
        m.stop_reason = c.val()?;
    }
    if mask & 2 != 0 {
        m.timestamp = c.val()?;
    }
    if mask & 60 != 0 {
        if let Some(b) = c.spare.rare.take() {
            m.reuse_rare(b);
        }
        if mask & 4 != 0 {
            m.set_field(Rare::ToolCallId, c.val()?);
        }
        if mask & 8 != 0 {
            m.set_field(Rare::ToolUseId, c.val()?);
        }
        if mask & 16 != 0 {
            m.set_field(Rare::ToolName, c.val()?);
        }
        if mask & 32 != 0 {
            m.set_field(Rare::ErrorMessage, c.val()?);
        }
    }
    m.has_details = mask & 64 != 0;
    if mask & 128 != 0 && c.code()? == 4 {
        m.provenance = Some(Box::new(Provenance {
            kind: c.val()?,
            source_session_key: c.val()?,
            source_channel: c.val()?,
            source_tool: c.val()?,
        }));
    }
    if mask & 256 != 0 {
        let code = c.code()?;
        m.usage = if code == USAGE {
            let snapshot = c.usage_numbers()?;
            UsageView::Snapshot(c.spare.usage(snapshot))
        } else if code == 4 {
            match c.normalised_usage() {
                Some(snapshot) => UsageView::Snapshot(c.spare.usage(snapshot)),
                None => {
                    // Room for pi-ai's usage (5 counters + cost with 5) without regrowing.
                    let mut fields = Vec::with_capacity(12);
                    c.object("", &mut fields)?;
                    UsageView::Fields(fields)
                }
            }
        } else {
            UsageView::NotObject(c.val_of(code)?)
        };
    }
    if mask & 512 != 0 {
        let present = c.code()?;
        let Some(present) = u16::try_from(present)
            .ok()
            .filter(|p| p >> EXTRA_FIELDS.len() == 0)
        else {
            return c.stop(format!("skeleton: bad extra-field mask {present}"));
        };
        // Nothing allocated when none is present (most user turns).
        if present != 0 {
            let spare = c.spare.extra_fields.take();
            m.extra = Extras::read_in(present, spare, || c.val())?;
        }
    }
    let code = c.code()?;
    if code == ARRAY {
        let n = c.list_count()?;
        let mut j = 0;
        // The list of a message parsed over, emptied, when there is one.
        let mut blocks = std::mem::take(&mut c.spare.blocks);
        blocks.reserve_exact(n);
        blocks.resize_with(n, || {
            j += 1;
            Block::src(i, j - 1)
        });
        for b in &mut blocks {
            parse_block(c, b, mask & 512 != 0)?;
        }
        m.content = Content::Blocks(blocks);
    } else {
        c.at -= 1;
        let (info, v) = c.text()?;
        m.content = match info {
            Some(info) => Content::Str {
                info,
                from: Some(ix(i)),
                prefix: Box::default(),
            },
            None => Content::Other(v),
        };
    }
    Ok(())
}

/// A block's Gemini thought signatures (see `signatures()` in js/codec.js): a mask, then the
/// present ones. Nearly every block has none: that mask is read inline, the rest by
/// [`signatures_of`] (a call per block cost more than reading its mask).
#[inline(always)]
fn signatures(c: &mut Cursor, b: &mut Block) -> Read<()> {
    match c.code()? {
        0 => Ok(()),
        mask => signatures_of(c, b, mask),
    }
}

fn signatures_of(c: &mut Cursor, b: &mut Block, mask: u32) -> Read<()> {
    if mask & 1 != 0 {
        let v = c.val()?;
        extra(c, b).thought_signature = v;
    }
    if mask & 2 != 0 {
        let v = c.val()?;
        extra(c, b).thought_signature_camel = v;
    }
    Ok(())
}

/// [`BlockType::of_str`] of each vocabulary word, by its position (a block type's code is 16 + it).
const BLOCK_KINDS: [BlockType; VOCAB.len()] = {
    let mut out = [BlockType::Other; VOCAB.len()];
    let mut k = 0;
    while k < VOCAB.len() {
        out[k] = BlockType::of_str(VOCAB[k]);
        k += 1;
    }
    out
};

/// [`Role::of_str`] of each vocabulary word, by its position (a role's code is 16 + it).
const ROLES: [Role; VOCAB.len()] = {
    let mut out = [Role::Other; VOCAB.len()];
    let mut k = 0;
    while k < VOCAB.len() {
        out[k] = Role::of_str(VOCAB[k]);
        k += 1;
    }
    out
};

fn parse_block(c: &mut Cursor, b: &mut Block, extras: bool) -> Read<()> {
    if c.code()? != BLOCK {
        b.is_object = false;
        b.raw_truthy = c.val()?.is_truthy();
        return Ok(());
    }
    // The type by its code: a vocabulary word's kind is looked up by number, a type the codec
    // sent as a string (never one of these words: the codec codes every vocabulary word) by
    // its text.
    let code = c.code()?;
    match VOCAB.get((code as usize).wrapping_sub(16)) {
        Some(w) => b.set_ty_tagged(Val::Str(Text::Borrowed(w)), BLOCK_KINDS[code as usize - 16]),
        None => b.set_ty(c.val_of(code)?),
    }
    let kind = b.ty_tag();
    match kind {
        BlockType::Text => {
            b.text = c.text()?.0;
            if extras {
                let sig = c.signature()?;
                if sig != Val::Absent {
                    extra(c, b).text_signature = sig;
                }
            }
            signatures(c, b)?;
        }
        BlockType::Thinking => {
            let thinking = c.text()?.0;
            let sig = c.signature()?;
            let obj = if sig == Val::Object {
                Some(Box::new((c.val()?, c.val()?)))
            } else {
                None
            };
            let signature = if extras { Some(c.presence()?) } else { None };
            // No extras when nothing was sent (the codec leaves both out for a policy that
            // reads neither: `transcript::read_set`), as `block_from_value` makes none.
            if thinking.is_some() || sig != Val::Absent || signature.is_some() {
                // Written whole: a thinking block has no other extras yet (its type is tagged).
                put_extra(
                    c,
                    b,
                    BlockExtra {
                        thinking,
                        thinking_signature: sig,
                        signature_object: obj,
                        signature: signature.unwrap_or_default(),
                        ..BlockExtra::default()
                    },
                );
            }
            signatures(c, b)?;
        }
        BlockType::RedactedThinking if extras => {
            let x = extra(c, b);
            x.signature = c.presence()?;
            x.redacted_signature = c.presence()?;
            x.redacted_data = c.presence()?;
            signatures(c, b)?;
        }
        BlockType::ToolCall | BlockType::ToolUse | BlockType::FunctionCall => {
            b.id = c.val()?;
            b.name = c.val()?;
            b.input = Kind::of(&c.val()?);
            b.arguments = Kind::of(&c.val()?);
            if extras {
                let partial = c.val()?;
                if matches!(partial, Val::Str(_)) {
                    // The arguments' key count, or NO_ARGUMENT_KEYS when they are not an object.
                    let keys = c.code()?;
                    extra(c, b).argument_keys = (keys != NO_ARGUMENT_KEYS).then_some(keys as usize);
                }
                if partial != Val::Absent {
                    extra(c, b).partial_json = partial;
                }
            }
            signatures(c, b)?;
        }
        BlockType::Image => {
            let code = c.code()?;
            if code == DATA {
                let len = c.count()?;
                let head = c.val()?.as_str().unwrap_or("").to_string();
                let digest = c.val()?.as_str().and_then(cache::parse_digest_hex);
                extra(c, b).data = Some(Box::new(ImageInfo { len, head, digest }));
            }
            let v = c.val()?;
            extra(c, b).mime_type = v;
            signatures(c, b)?;
        }
        BlockType::ToolResult => {
            let v = c.val()?;
            extra(c, b).tool_use_id = v;
            if extras {
                result_ids(c, b)?;
            }
            signatures(c, b)?;
        }
        BlockType::Tool if extras => {
            let v = c.val()?;
            extra(c, b).tool_use_id = v;
            result_ids(c, b)?;
            signatures(c, b)?;
        }
        _ => signatures(c, b)?,
    }
    Ok(())
}

/// A result block's other id fields: a mask of the present ones, then their values.
fn result_ids(c: &mut Cursor, b: &mut Block) -> Read<()> {
    let present = c.code()?;
    if present == 0 {
        return Ok(());
    }
    let mut ids: Box<[Val; RESULT_BLOCK_ID_FIELDS.len()]> = Default::default();
    for (k, slot) in ids.iter_mut().enumerate() {
        if present & (1 << k) != 0 {
            *slot = c.val()?;
        }
    }
    extra(c, b).result_ids = Some(ids);
    Ok(())
}

// ---- the same model from serde_json values ----

fn field(map: &Map<String, Value>, k: &str) -> Val {
    map.get(k).map_or(Val::Absent, Val::of_json)
}

fn text_of(v: Option<&Value>) -> Option<TextInfo> {
    v.and_then(Value::as_str).map(TextInfo::of_str)
}

/// Flattens a usage object one level deep, as the codec does: a nested object is listed itself
/// (as `Val::Object`), then its fields as `parent.child`.
pub fn flatten_usage(map: &Map<String, Value>) -> Vec<(Text, Val)> {
    let mut out = Vec::new();
    for (k, v) in map {
        match v {
            Value::Object(inner) => {
                out.push((Text::new(k), Val::Object));
                for (k2, v2) in inner {
                    out.push((joined_key(k, k2), Val::of_json(v2)));
                }
            }
            other => out.push((Text::new(k), Val::of_json(other))),
        }
    }
    out
}

/// The skeleton view of one block value (block `j` of input message `i`).
pub fn block_from_value(v: &Value, i: usize, j: usize, _new: bool) -> Block {
    let mut b = Block::src(i, j);
    let Value::Object(map) = v else {
        b.is_object = false;
        b.raw_truthy = Val::of_json(v).is_truthy();
        return b;
    };
    b.id = field(map, "id");
    b.name = field(map, "name");
    b.input = kind_only(map.get("input"));
    b.arguments = kind_only(map.get("arguments"));
    b.text = text_of(map.get("text"));
    let x = BlockExtra {
        thinking: text_of(map.get("thinking")),
        thinking_signature: field(map, "thinkingSignature"),
        signature_object: match map.get("thinkingSignature") {
            Some(Value::Object(sig)) => Some(Box::new((field(sig, "id"), field(sig, "type")))),
            _ => None,
        },
        thought_signature: field(map, "thought_signature"),
        thought_signature_camel: field(map, "thoughtSignature"),
        tool_use_id: field(map, "toolUseId"),
        result_ids: match map.get("type") {
            Some(Value::String(t))
                if (t == "toolResult" || t == "tool")
                    && RESULT_BLOCK_ID_FIELDS.iter().any(|k| map.contains_key(*k)) =>
            {
                Some(Box::new(RESULT_BLOCK_ID_FIELDS.map(|k| field(map, k))))
            }
            _ => None,
        },
        data: match map.get("data") {
            Some(Value::String(d)) => Some(Box::new(ImageInfo {
                len: d.len(),
                head: d.chars().take(1024).collect(),
                digest: None,
            })),
            _ => None,
        },
        mime_type: field(map, "mimeType"),
        partial_json: field(map, "partialJson"),
        signature: Presence::of_json(map.get("signature")),
        redacted_signature: match map.get("type") {
            Some(Value::String(t)) if t == "redacted_thinking" => {
                Presence::of_json(map.get("thinkingSignature"))
            }
            _ => Presence::default(),
        },
        redacted_data: match map.get("type") {
            Some(Value::String(t)) if t == "redacted_thinking" => {
                Presence::of_json(map.get("data"))
            }
            _ => Presence::default(),
        },
        argument_keys: match (map.get("partialJson"), map.get("arguments")) {
            (Some(Value::String(_)), Some(Value::Object(a))) => Some(a.len()),
            _ => None,
        },
        text_prefix: None,
        text_signature: field(map, "textSignature"),
        extension: false,
        ty_other: Val::Absent,
    };
    if x != BlockExtra::default() {
        b.x = Some(Box::new(x));
    }
    // After the extras: a type no tag names is kept in them.
    b.set_ty(field(map, "type"));
    b
}

fn kind_only(v: Option<&Value>) -> Kind {
    match v {
        None => Kind::Absent,
        Some(Value::Null) => Kind::Null,
        Some(Value::Object(_)) => Kind::Object,
        Some(_) => Kind::Other,
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
    m.set_role(field(map, "role"));
    m.stop_reason = field(map, "stopReason");
    m.timestamp = field(map, "timestamp");
    m.set_field(Rare::ToolCallId, field(map, "toolCallId"));
    m.set_field(Rare::ToolUseId, field(map, "toolUseId"));
    m.set_field(Rare::ToolName, field(map, "toolName"));
    m.set_field(Rare::ErrorMessage, field(map, "errorMessage"));
    m.has_details = map.contains_key("details");
    if EXTRA_FIELDS
        .iter()
        .any(|k| map.contains_key(k.split('.').next().unwrap_or(k)))
    {
        let (mut present, mut vals) = (0u16, Vec::new());
        for (k, name) in EXTRA_FIELDS.iter().enumerate() {
            let v = match name.split_once('.') {
                // An array index is read by its string form, as JS's `Number` reads it (the
                // codec sends `String(index)` for an array too).
                Some((a, b)) => match map.get(a) {
                    Some(Value::Object(inner)) => match inner.get(b) {
                        Some(v @ Value::Array(_)) if k == extra::REPLAY_INDEX => {
                            Val::Str(Text::new(&crate::js_text::js_string_of(v)))
                        }
                        _ => field(inner, b),
                    },
                    _ => Val::Absent,
                },
                None => field(map, name),
            };
            if !v.is_absent() {
                present |= 1 << k;
                vals.push(v);
            }
        }
        m.extra = Extras::new(present, vals);
    }
    if let Some(Value::Object(p)) = map.get("provenance") {
        m.provenance = Some(Box::new(Provenance {
            kind: field(p, "kind"),
            source_session_key: field(p, "sourceSessionKey"),
            source_channel: field(p, "sourceChannel"),
            source_tool: field(p, "sourceTool"),
        }));
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
            from: Some(ix(i)),
            prefix: Box::default(),
        },
        other => Content::Other(other.map_or(Val::Absent, Val::of_json)),
    };
    m
}

#[cfg(test)]
mod code_tests {
    use super::*;

    /// js/codec.js takes its vocabulary and structure codes from here; what must hold is that
    /// each word has one code and no structure code stands for a value.
    #[test]
    fn vocabulary_has_no_duplicates_and_structure_codes_are_not_value_codes() {
        let mut seen = std::collections::HashSet::new();
        for w in VOCAB {
            assert!(seen.insert(*w), "{w:?} is in VOCAB twice");
        }
        for c in [TEXT, TEXT_HEAD, ARRAY, DATA] {
            assert!((11..15).contains(&c), "{c} collides with a value code");
        }
        assert_eq!([MESSAGE, BLOCK, NOT_OBJECT], [1, 2, 3]);
        assert!(
            16 + VOCAB.len() < USAGE as usize,
            "the vocabulary reaches USAGE"
        );
    }

    /// A skeleton written by hand: its codes and its numbers (the `reals` channel).
    #[derive(Clone, Default)]
    struct Sk {
        codes: Vec<u32>,
        reals: Vec<f64>,
    }

    impl Sk {
        fn c(mut self, codes: &[u32]) -> Self {
            self.codes.extend_from_slice(codes);
            self
        }
        fn r(mut self, reals: &[f64]) -> Self {
            self.reals.extend_from_slice(reals);
            self
        }
        fn then(mut self, other: &Sk) -> Self {
            self.codes.extend_from_slice(&other.codes);
            self.reals.extend_from_slice(&other.reals);
            self
        }
        fn parse(&self, strs: &str) -> Result<Vec<Msg>, String> {
            parse(&self.codes, &self.reals, strs)
        }
    }

    fn code(w: &str) -> u32 {
        vocab_code(w)
    }

    /// A skeleton parsed over the model of another (the boundary keeps its thread's last model,
    /// and the next parse reuses its block lists and boxes) reads as the same model as parsed
    /// afresh: nothing of the earlier messages stays behind.
    #[test]
    fn parse_over_an_earlier_model_is_a_fresh_parse() {
        let text = Sk::default().c(&[BLOCK, code("text"), TEXT, 0, 4, 0]);
        let thinking = Sk::default().c(&[BLOCK, code("thinking"), TEXT, 0, 5, TEXT, 0, 3, 0]);
        let user = |blocks: &[&Sk]| {
            let mut m = Sk::default().c(&[MESSAGE, code("user"), 0, ARRAY, blocks.len() as u32]);
            blocks.iter().for_each(|b| m = m.clone().then(b));
            m
        };
        let assistant = |blocks: &[&Sk], total: f64| {
            let mut m = Sk::default()
                .c(&[MESSAGE, code("assistant"), 256, USAGE, 0])
                .r(&[3.0, 4.0, 0.0, 0.0, total])
                .c(&[ARRAY, blocks.len() as u32]);
            blocks.iter().for_each(|b| m = m.clone().then(b));
            m
        };
        let skeleton = |msgs: Vec<Sk>| {
            let mut all = Sk::default().c(&[msgs.len() as u32]);
            msgs.iter().for_each(|m| all = all.clone().then(m));
            all
        };
        let a = skeleton(vec![
            assistant(&[&thinking, &text, &thinking], 7.0),
            user(&[&text]),
            assistant(&[&thinking], 9.0),
        ]);
        let b = skeleton(vec![
            user(&[&text, &text]),
            assistant(&[&text, &thinking], 8.0),
        ]);
        let c = skeleton(vec![
            user(&[]),
            user(&[&text]),
            assistant(&[], 1.0),
            user(&[&text]),
        ]);
        for (first, second) in [(&a, &b), (&b, &a), (&a, &c), (&c, &a), (&b, &c)] {
            let mut model = first.parse("").unwrap_or_default();
            assert!(parse_into(&second.codes, &second.reals, "", &mut model).is_ok());
            assert_eq!(model, second.parse("").unwrap_or_default());
        }
        assert_eq!(a.parse("").map(|m| m.len()), Ok(3));
    }

    /// A block type read by its code is the kind its word names, and a type the codec sent as
    /// a string reads as the same block as that word sent as its code.
    #[test]
    fn block_types_read_by_code_as_by_text() {
        for (k, w) in VOCAB.iter().enumerate() {
            assert_eq!(
                BLOCK_KINDS[k],
                BlockType::of(&Val::Str(Text::Borrowed(w))),
                "{w}"
            );
            assert_eq!(ROLES[k], Role::of(&Val::Str(Text::Borrowed(w))), "{w}");
        }
        assert_eq!(BlockType::of_str("toolUse"), BlockType::ToolUse);
        assert_eq!(BlockType::of_str("tool"), BlockType::Tool);
        assert_eq!(BlockType::of_str("texts"), BlockType::Other);
        assert_eq!(BlockType::of(&Val::Null), BlockType::Absent);
        let text_block = |ty: &[u32]| {
            Sk::default()
                .c(&[1, MESSAGE, code("user"), 0, ARRAY, 1, BLOCK])
                .c(ty)
                .c(&[TEXT, 0, 2, 0])
        };
        let coded = text_block(&[code("text")]).parse("");
        let as_string = text_block(&[8, 4]).parse("\u{1f}text");
        assert!(coded.is_ok());
        assert_eq!(coded, as_string);
        let Ok(model) = coded else { return };
        let Content::Blocks(blocks) = &model[0].content else {
            panic!("{:?}", model[0].content)
        };
        assert_eq!(blocks[0].text.as_ref().map(|t| t.len), Some(2));
    }

    /// A normalised usage sent as its numbers reads as the same snapshot as the object sent
    /// whole; a number that is not finite is an error, not a snapshot.
    #[test]
    fn usage_sent_as_numbers_is_the_snapshot_of_the_object() {
        let head = |usage: &Sk| {
            Sk::default()
                .c(&[1, MESSAGE, code("assistant"), 256])
                .then(usage)
                .c(&[ARRAY, 0])
        };
        let mut object = Sk::default().c(&[4, 6]);
        for (k, v) in USAGE_KEYS.iter().zip([3.0, 4.0, 0.0, 0.0, 7.0]) {
            object = object.c(&[code(k), 7]).r(&[v]);
        }
        object = object.c(&[code("cost"), 4, 5]);
        for (k, v) in COST_KEYS.iter().zip([0.5, 0.25, 0.0, 0.0, 0.75]) {
            object = object.c(&[code(k), 7]).r(&[v]);
        }
        let reals = [3.0, 4.0, 0.0, 0.0, 7.0, 0.5, 0.25, 0.0, 0.0, 0.75];
        let numbers = Sk::default().c(&[USAGE, 1]).r(&reals);
        let a = head(&object).parse("").unwrap_or_default();
        let b = head(&numbers).parse("").unwrap_or_default();
        assert!(
            matches!(a[0].usage, UsageView::Snapshot(_)),
            "{:?}",
            a[0].usage
        );
        assert_eq!(a[0].usage, b[0].usage);
        let mut bad = reals;
        bad[2] = f64::INFINITY;
        assert!(head(&Sk::default().c(&[USAGE, 1]).r(&bad))
            .parse("")
            .is_err());
    }

    /// Numbers that are not a `u32` (`-0`, 2^32, 1.5, NaN, a timestamp) cross in `reals` and
    /// arrive bit for bit, in a value (a timestamp, a call id) and in a usage's numbers; what
    /// comes back for them is what main's f64 channel gave.
    #[test]
    fn numbers_that_are_not_codes_arrive_bit_for_bit() {
        let odd = [
            -0.0,
            4_294_967_296.0,
            1.5,
            f64::NAN,
            1_767_225_600_123.0,
            -1.0,
            f64::INFINITY,
        ];
        for x in odd {
            // An assistant stamped `x`, whose one call has id `x`.
            let sk = Sk::default()
                .c(&[1, MESSAGE, code("assistant"), 2, 7])
                .r(&[x])
                .c(&[ARRAY, 1, BLOCK, code("toolCall"), 7])
                .r(&[x])
                .c(&[0, 4, 0, 0]);
            let model = sk.parse("");
            let Ok(model) = model else {
                panic!("{x}: {model:?}")
            };
            let bits = |v: &Val| match v {
                Val::Num(n) => n.to_bits(),
                other => panic!("{x}: {other:?}"),
            };
            assert_eq!(bits(&model[0].timestamp), x.to_bits(), "{x}");
            let Content::Blocks(blocks) = &model[0].content else {
                panic!("{:?}", model[0].content)
            };
            assert_eq!(bits(&blocks[0].id), x.to_bits(), "{x}");
        }
        // A usage's numbers: its counts and its cost.
        let counts = [-0.0, 4_294_967_296.0, 1.5, 0.0, 2.5];
        let cost = [1.5, -0.0, 4_294_967_297.0, 0.0, 0.125];
        let sk = Sk::default()
            .c(&[1, MESSAGE, code("assistant"), 256, USAGE, 1])
            .r(&counts)
            .r(&cost)
            .c(&[ARRAY, 0]);
        let model = sk.parse("").unwrap_or_default();
        let UsageView::Snapshot(u) = &model[0].usage else {
            panic!("{:?}", model[0].usage)
        };
        let got = [
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens,
        ];
        assert_eq!(got.map(f64::to_bits), counts.map(f64::to_bits));
        let Some(c) = &u.cost else { panic!("no cost") };
        let got = [c.input, c.output, c.cache_read, c.cache_write, c.total];
        assert_eq!(got.map(f64::to_bits), cost.map(f64::to_bits));
        // A skeleton whose numbers end early is an error, not a panic or a zero.
        let short = Sk::default().c(&[1, MESSAGE, code("user"), 2, 7, ARRAY, 0]);
        assert!(short.parse("").is_err());
    }

    /// A call's `arguments` key count (2026.9.6 mode, after a string `partialJson`) is a code;
    /// arguments that are not an object cross as [`NO_ARGUMENT_KEYS`] and read as none.
    #[test]
    fn argument_key_counts_are_codes() {
        for (keys, want) in [(3, Some(3)), (0, Some(0)), (NO_ARGUMENT_KEYS, None)] {
            let sk = Sk::default()
                .c(&[1, MESSAGE, code("assistant"), 512, 0])
                .c(&[
                    ARRAY,
                    1,
                    BLOCK,
                    code("toolCall"),
                    8,
                    4,
                    0,
                    4,
                    0,
                    8,
                    2,
                    keys,
                    0,
                ]);
            let model = sk.parse("\u{1f}c_01\u{1f}{}");
            let Ok(model) = model else {
                panic!("{keys}: {model:?}")
            };
            let Content::Blocks(blocks) = &model[0].content else {
                panic!("{:?}", model[0].content)
            };
            assert_eq!(blocks[0].x.as_ref().and_then(|x| x.argument_keys), want);
        }
    }
}
