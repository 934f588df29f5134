//! Tool-call id sanitising for providers with strict id formats.
//!
//! Tool-call ids in stored transcripts come from many providers: OpenAI
//! Responses writes `call_…|fc_…` (sometimes hundreds of characters), Anthropic
//! `toolu_…`, Kimi `functions.read:0`. Google Cloud Code Assist and most
//! OpenAI-compatible gateways reject anything but `[a-zA-Z0-9]`, and Mistral
//! requires exactly nine such characters. Rewriting ids can make two ids
//! collide, and a transcript can already repeat an id, so rewriting has to keep
//! every call paired with its result while making all ids distinct.
//!
//! This module matches `src/agents/tool-call-id.ts` of openclaw 2026.3.23-2:
//!
//! - [`sanitize_tool_call_id`]: the scalar rule (`strict` keeps `[a-zA-Z0-9]`;
//!   `strict9` keeps the first nine, or a nine-hex-digit SHA-256 prefix when
//!   fewer remain).
//! - [`IdAllocator`]: the occurrence-aware resolver behind
//!   `sanitizeToolCallIdsForCloudCodeAssist`, without knowledge of messages.
//!   The caller walks the transcript in order and calls
//!   [`IdAllocator::call_id`] for each tool-call block id and
//!   [`IdAllocator::result_id`] for each tool-result id.
//!
//! One deliberate difference: when every collision suffix is taken (`x2` …
//! `x999` in strict mode, hashes of `seed:0` … `seed:999` in strict9 mode),
//! OpenClaw falls back to `Date.now()`, which is neither deterministic nor
//! guaranteed unique. Here the counter simply continues (`x1000`, `x1001`, … /
//! `seed:1000`, `seed:1001`, …) until an unused id is found.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::transcript::policy::ToolCallIdMode;
use crate::transcript::str_table::{Key, StrTable};

const STRICT9_LEN: usize = 9;
const STRICT_MAX_LEN: usize = 40;
const STRICT_HASH_LEN: usize = 8;

/// First `len` lowercase hex digits of SHA-256 over the UTF-8 bytes of `text`, as Node's
/// `createHash().update(text)` computes it: a lone surrogate (which crosses from JS as a
/// character of U+10F800-U+10FFFF, see js/codec.js) is hashed as U+FFFD, as Node encodes it.
pub(crate) fn short_hash(text: &str, len: usize) -> String {
    let mut out = IdBuf::new();
    push_short_hash(&mut out, text, len);
    out.as_str().to_string()
}

/// Appends [`short_hash`]`(text, len)` to `out` (at most 64 digits, as many as fit).
fn push_short_hash(out: &mut IdBuf, text: &str, len: usize) {
    use crate::transcript::skeleton::is_lone_surrogate_stand_in as stand_in;
    let digest = if text.chars().any(stand_in) {
        let node: String = text
            .chars()
            .map(|c| if stand_in(c) { '\u{FFFD}' } else { c })
            .collect();
        Sha256::digest(node.as_bytes())
    } else {
        Sha256::digest(text.as_bytes())
    };
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for k in 0..len.min(2 * digest.len()) {
        let b = digest[k / 2];
        out.push(HEX[usize::from(if k % 2 == 0 { b >> 4 } else { b & 15 })]);
    }
}

/// An id being built on the stack: at most [`IdBuf::CAP`] ASCII bytes (every id the allocator
/// makes is ASCII and at most [`STRICT_MAX_LEN`] long), bytes past that dropped. Only ASCII is
/// ever stored (a non-ASCII byte is dropped: none is pushed), so reading it back as `str` needs
/// no UTF-8 check (which cost a sixth of allocating an id).
struct IdBuf {
    bytes: [u8; IdBuf::CAP],
    len: usize,
}

impl IdBuf {
    const CAP: usize = 64;

    fn new() -> IdBuf {
        IdBuf {
            bytes: [0; IdBuf::CAP],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        debug_assert!(b.is_ascii(), "only ASCII is pushed");
        if !b.is_ascii() {
            return;
        }
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn push_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    fn push_str(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    fn as_str(&self) -> &str {
        let bytes = &self.bytes[..self.len];
        debug_assert!(bytes.is_ascii());
        // SAFETY: `push` stores ASCII bytes only (the fields are private to this type, and
        // `truncate` only shortens), and ASCII is UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

impl std::fmt::Write for IdBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// Where [`sanitize_into`] writes: the scalar export's `String` (unbounded) or the allocator's
/// [`IdBuf`] (on the stack). Byte by byte: the strict rule keeps scattered bytes of a short id,
/// and handing each run to a closure cost a `memcpy` call per run.
trait IdSink {
    /// Appends one ASCII byte.
    fn byte(&mut self, b: u8);
    /// Appends ASCII text.
    fn text(&mut self, s: &str);
}

impl IdSink for IdBuf {
    fn byte(&mut self, b: u8) {
        self.push(b);
    }
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl IdSink for String {
    fn byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
}

/// Writes the sanitised form of `id` (see [`sanitize_tool_call_id`]) to `out` (ASCII only): the
/// one definition of the scalar rule, for the scalar export (which collects a `String`) and the
/// allocator (which keeps what fits an [`IdBuf`] on the stack: no allocation).
fn sanitize_into(id: Option<&str>, mode: ToolCallIdMode, out: &mut impl IdSink) {
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return out.text(match mode {
            ToolCallIdMode::Strict => "defaulttoolid",
            ToolCallIdMode::Strict9 => "defaultid",
        });
    };
    // Bytes, not chars: every byte of a multi-byte character is >= 0x80, never ASCII.
    let kept = |b: &u8| b.is_ascii_alphanumeric();
    match mode {
        ToolCallIdMode::Strict => {
            let mut any = false;
            for &b in id.as_bytes().iter().filter(|b| kept(b)) {
                any = true;
                out.byte(b);
            }
            if !any {
                out.text("sanitizedtoolid");
            }
        }
        ToolCallIdMode::Strict9 => {
            let mut first = IdBuf::new();
            id.bytes()
                .filter(kept)
                .take(STRICT9_LEN)
                .for_each(|b| first.push(b));
            if first.len == STRICT9_LEN {
                return out.text(first.as_str());
            }
            let seed = if first.len == 0 {
                "sanitized"
            } else {
                first.as_str()
            };
            let mut hash = IdBuf::new();
            push_short_hash(&mut hash, seed, STRICT9_LEN);
            out.text(hash.as_str());
        }
    }
}

/// Sanitise one id. `None` or an empty id gives `"defaulttoolid"` (strict) or
/// `"defaultid"` (strict9).
///
/// - strict: drop every character outside `[a-zA-Z0-9]`; `"sanitizedtoolid"`
///   if nothing is left.
/// - strict9: the first nine `[a-zA-Z0-9]` characters; with one to eight, the
///   first nine hex digits of their SHA-256; with none, those of
///   `"sanitized"` (`"44d8b78be"`).
pub fn sanitize_tool_call_id(id: Option<&str>, mode: ToolCallIdMode) -> String {
    let mut s = String::new();
    sanitize_into(id, mode, &mut s);
    s
}

/// OpenClaw's `isValidCloudCodeAssistToolId`: strict accepts a non-empty
/// `^[a-zA-Z0-9]+$`, strict9 exactly `^[a-zA-Z0-9]{9}$`.
pub fn is_valid_cloud_code_assist_tool_id(id: &str, mode: ToolCallIdMode) -> bool {
    let alnum = !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric());
    match mode {
        ToolCallIdMode::Strict => alnum,
        ToolCallIdMode::Strict9 => alnum && id.len() == STRICT9_LEN,
    }
}

/// Kimi's native call id, `functions.NAME:IDX` (`^functions\.[A-Za-z0-9_-]+:\d+$`), which
/// OpenClaw 2026.9.6 keeps as it is in strict mode (Kimi matches results by it).
pub fn is_native_kimi_id(id: &str) -> bool {
    let Some((name, idx)) = id
        .strip_prefix("functions.")
        .and_then(|rest| rest.rsplit_once(':'))
    else {
        return false;
    };
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !idx.is_empty()
        && idx.bytes().all(|b| b.is_ascii_digit())
}

/// Anthropic's native tool-use id (`^toolu_[A-Za-z0-9_]+$`).
pub fn is_native_anthropic_id(id: &str) -> bool {
    id.strip_prefix("toolu_").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// `makeUniqueToolId`: the first candidate id for `seed` that `take` accepts. `take` claims a
/// candidate that is still free and returns what it recorded (`None` when taken). Candidates are
/// built on the stack: only the one taken is stored (by `take`).
/// `kimi`: a native Kimi id is its own sanitised form in strict mode (OpenClaw 2026.9.6).
fn make_unique<K>(
    seed: &str,
    mut take: impl FnMut(&str) -> Option<K>,
    mode: ToolCallIdMode,
    kimi: bool,
) -> K {
    let mut base = IdBuf::new();
    match mode {
        ToolCallIdMode::Strict9 => {
            sanitize_into(Some(seed), mode, &mut base);
            if let Some(k) = take(base.as_str()) {
                return k;
            }
            // OpenClaw tries i = 0..=999, then hashes the clock; the counter
            // continues instead (see the module docs).
            let mut i = 0u64;
            loop {
                let mut hashed = IdBuf::new();
                push_short_hash(&mut hashed, &format!("{seed}:{i}"), STRICT9_LEN);
                if let Some(k) = take(hashed.as_str()) {
                    return k;
                }
                i += 1;
            }
        }
        ToolCallIdMode::Strict => {
            if kimi && is_native_kimi_id(seed) {
                base.push_str(seed);
            } else {
                sanitize_into(Some(seed), mode, &mut base);
            }
            base.truncate(STRICT_MAX_LEN);
            if let Some(k) = take(base.as_str()) {
                return k;
            }
            base.truncate(STRICT_MAX_LEN - STRICT_HASH_LEN);
            push_short_hash(&mut base, seed, STRICT_HASH_LEN);
            if let Some(k) = take(base.as_str()) {
                return k;
            }
            let candidate = base;
            // OpenClaw tries x2..=x999, then `t<Date.now()>`; the counter
            // continues instead (see the module docs).
            let mut i = 2u64;
            loop {
                let mut suffix = IdBuf::new();
                let _ = write!(suffix, "x{i}");
                let keep = STRICT_MAX_LEN.saturating_sub(suffix.len).min(candidate.len);
                let mut next = IdBuf::new();
                next.push_bytes(&candidate.bytes[..keep]);
                next.push_bytes(&suffix.bytes[..suffix.len]);
                if let Some(k) = take(next.as_str()) {
                    return k;
                }
                i += 1;
            }
        }
    }
}

/// The occurrence-aware id resolver of `sanitizeToolCallIdsForCloudCodeAssist`.
///
/// Occurrence `k` of a raw call id `R` is seeded with `R` (k = 1) or `R:k`,
/// made unique against every id allocated so far, and queued on `R`'s pending
/// list. A result id `R` takes the front of that queue; with nothing pending
/// it is an orphan and gets a fresh id seeded `R:tool_result:n` (n counted per
/// `R`), even when `R` is already valid. A result that precedes its call is
/// therefore an orphan.
///
/// OpenClaw only resolves non-empty string ids; callers should do the same.
pub struct IdAllocator {
    mode: ToolCallIdMode,
    /// Keep native Kimi ids (OpenClaw 2026.9.6; see [`is_native_kimi_id`]).
    kimi: bool,
    /// Keep Anthropic's native `toolu_…` ids on their first use (OpenClaw 2026.9.6's
    /// `preserveNativeAnthropicToolUseIds`; see [`is_native_anthropic_id`]).
    toolu: bool,
    /// Every id handed out so far.
    used: StrTable<()>,
    /// Per raw call id: its place in `owners`.
    calls: StrTable<usize>,
    /// Per raw call id: how many calls used it, and its queue of new ids no result has taken yet.
    owners: Vec<CallIds>,
    /// The pending queues' cells, in the order the calls were seen.
    cells: Vec<Cell>,
    /// The cell after the last one a result took: results nearly always answer calls in the
    /// order they were made, so the next result's raw id is checked against this cell's first,
    /// and found without hashing it again (one hash of each raw id, at its call).
    hint: usize,
    orphan_occurrences: StrTable<u64>,
}

/// A cell of a pending queue: a new id (in `used`), the raw id it was made for (its place in
/// `owners`), and the next cell of that raw id's queue.
struct Cell {
    id: Key,
    owner: usize,
    next: usize,
}

/// Marks the end of a pending queue.
const NONE: usize = usize::MAX;

/// Appends the id `key` to the pending queue of raw id `owner`.
fn queue(owners: &mut [CallIds], cells: &mut Vec<Cell>, owner: usize, key: Key) {
    let cell = cells.len();
    cells.push(Cell {
        id: key,
        owner,
        next: NONE,
    });
    let calls = &mut owners[owner];
    if calls.head == NONE {
        calls.head = cell;
    } else {
        cells[calls.tail].next = cell;
    }
    calls.tail = cell;
}

/// The calls seen for one raw id.
struct CallIds {
    /// The raw id (in `calls`).
    raw: Key,
    count: u64,
    /// First and last cell of the pending queue (`NONE` when empty).
    head: usize,
    tail: usize,
}

impl IdAllocator {
    /// A resolver for one transcript pass.
    pub fn new(mode: ToolCallIdMode) -> Self {
        Self::with_capacity(mode, 0)
    }

    /// A resolver sized for about `calls` tool calls.
    pub fn with_capacity(mode: ToolCallIdMode, calls: usize) -> Self {
        // Ids are rarely longer than 40 bytes (`strict` caps them there).
        Self {
            mode,
            kimi: false,
            toolu: false,
            used: StrTable::with_capacity(calls, 24),
            calls: StrTable::with_capacity(calls, 40),
            owners: Vec::with_capacity(calls),
            cells: Vec::with_capacity(calls),
            hint: 0,
            orphan_occurrences: StrTable::with_capacity(0, 0),
        }
    }

    /// The mode ids are allocated in.
    pub fn mode(&self) -> ToolCallIdMode {
        self.mode
    }

    /// The same resolver keeping native Kimi ids, as OpenClaw 2026.9.6 does.
    pub fn keeping_kimi_ids(mut self) -> Self {
        self.kimi = true;
        self
    }

    /// The same resolver keeping Anthropic's native `toolu_…` ids on their first use.
    pub fn keeping_anthropic_ids(mut self) -> Self {
        self.toolu = true;
        self
    }

    /// The key of `raw` itself when it is a native Anthropic id to keep (first use, still free).
    fn native(used: &mut StrTable<()>, toolu: bool, raw: &str, first: bool) -> Option<Key> {
        if !(toolu && first && is_native_anthropic_id(raw)) {
            return None;
        }
        used.insert_if_absent(raw, ())
    }

    /// A new unique id for `seed`, remembered as used.
    fn allocate(used: &mut StrTable<()>, seed: &str, mode: ToolCallIdMode, kimi: bool) -> Key {
        make_unique(seed, |s| used.insert_if_absent(s, ()), mode, kimi)
    }

    /// The place in `owners` of raw id `raw`, added when new.
    fn owner(&mut self, raw: &str) -> usize {
        let fresh = self.owners.len();
        let (key, &mut owner) = self.calls.entry_or_insert_with(raw, || fresh);
        if owner == fresh {
            self.owners.push(CallIds {
                raw: key,
                count: 0,
                head: NONE,
                tail: NONE,
            });
        }
        owner
    }

    /// New id for the next tool-call block whose raw id is `raw` (borrowed from the allocator's
    /// table: no copy is made).
    pub fn call_id(&mut self, raw: &str) -> &str {
        let owner = self.owner(raw);
        let calls = &mut self.owners[owner];
        calls.count += 1;
        let count = calls.count;
        let first = count == 1;
        let key = match Self::native(&mut self.used, self.toolu, raw, first) {
            Some(key) => key,
            None if first => Self::allocate(&mut self.used, raw, self.mode, self.kimi),
            None => {
                let seed = format!("{raw}:{count}");
                Self::allocate(&mut self.used, &seed, self.mode, self.kimi)
            }
        };
        queue(&mut self.owners, &mut self.cells, owner, key);
        self.used.text(key)
    }

    /// Marks `id` used, so no id allocated later is `id` (OpenClaw 2026.9.6 reserves the ids of
    /// the turns it replays verbatim before it rewrites any).
    pub fn reserve(&mut self, id: &str) {
        self.used.insert_if_absent(id, ());
    }

    /// Keeps the next call id `id` as it is (a turn replayed verbatim): used, and queued for the
    /// result that answers it, without counting as an occurrence of `id`.
    pub fn keep_call_id(&mut self, id: &str) {
        let key = self.used.key_or_insert_with(id, || ());
        let owner = self.owner(id);
        queue(&mut self.owners, &mut self.cells, owner, key);
    }

    /// The raw id whose queue's front is `cell`, when that raw id is `raw` (see `hint`).
    fn hinted(&self, cell: usize, raw: &str) -> Option<usize> {
        let owner = self.cells.get(cell)?.owner;
        let calls = &self.owners[owner];
        (calls.head == cell && self.calls.text(calls.raw) == raw).then_some(owner)
    }

    /// New id for the next tool result whose raw id is `raw` (borrowed, as [`Self::call_id`]'s).
    pub fn result_id(&mut self, raw: &str) -> &str {
        let pending = self.hinted(self.hint, raw).or_else(|| {
            let owner = *self.calls.get_mut(raw)?;
            (self.owners[owner].head != NONE).then_some(owner)
        });
        if let Some(owner) = pending {
            let calls = &mut self.owners[owner];
            let cell = calls.head;
            let Cell { id, next, .. } = self.cells[cell];
            calls.head = next;
            self.hint = cell + 1;
            return self.used.text(id);
        }
        let occurrence = self.orphan_occurrences.get_or_insert_with(raw, || 0);
        *occurrence += 1;
        let occurrence = *occurrence;
        let key = match Self::native(&mut self.used, self.toolu, raw, occurrence == 1) {
            Some(key) => key,
            None => {
                let seed = format!("{raw}:tool_result:{occurrence}");
                Self::allocate(&mut self.used, &seed, self.mode, self.kimi)
            }
        };
        self.used.text(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// `make_unique`'s `take` over a fixed set: accepts what the set lacks (giving it back), without
    /// claiming it.
    fn free(used: &HashSet<String>) -> impl FnMut(&str) -> Option<String> + '_ {
        |s| (!used.contains(s)).then(|| s.to_string())
    }
    use ToolCallIdMode::{Strict, Strict9};

    #[test]
    fn scalar_defaults_for_missing_ids() {
        assert_eq!(sanitize_tool_call_id(None, Strict), "defaulttoolid");
        assert_eq!(sanitize_tool_call_id(Some(""), Strict), "defaulttoolid");
        assert_eq!(sanitize_tool_call_id(None, Strict9), "defaultid");
        assert_eq!(sanitize_tool_call_id(Some(""), Strict9), "defaultid");
    }

    #[test]
    fn scalar_strict() {
        assert_eq!(
            sanitize_tool_call_id(Some("call|item:123"), Strict),
            "callitem123"
        );
        assert_eq!(
            sanitize_tool_call_id(Some("functions.read:0"), Strict),
            "functionsread0"
        );
        assert_eq!(
            sanitize_tool_call_id(Some("toolu_01Ab"), Strict),
            "toolu01Ab"
        );
        assert_eq!(
            sanitize_tool_call_id(Some("é-_|"), Strict),
            "sanitizedtoolid"
        );
        assert_eq!(sanitize_tool_call_id(Some("ａbc"), Strict), "bc");
    }

    #[test]
    fn scalar_strict9() {
        assert_eq!(
            sanitize_tool_call_id(Some("call_abc|item:123"), Strict9),
            "callabcit"
        );
        assert_eq!(sanitize_tool_call_id(Some("ab"), Strict9), "fb8e20fc2");
        assert_eq!(sanitize_tool_call_id(Some("a-b"), Strict9), "fb8e20fc2");
        assert_eq!(sanitize_tool_call_id(Some("::"), Strict9), "44d8b78be");
        assert_eq!(
            sanitize_tool_call_id(Some("abcdefghi"), Strict9),
            "abcdefghi"
        );
    }

    #[test]
    fn validity() {
        assert!(is_valid_cloud_code_assist_tool_id("callitem123", Strict));
        assert!(!is_valid_cloud_code_assist_tool_id("", Strict));
        assert!(!is_valid_cloud_code_assist_tool_id("call_1", Strict));
        assert!(!is_valid_cloud_code_assist_tool_id(
            "functions.read:0",
            Strict
        ));
        assert!(is_valid_cloud_code_assist_tool_id("abcDEF123", Strict9));
        assert!(!is_valid_cloud_code_assist_tool_id("abcDEF12", Strict9));
        assert!(!is_valid_cloud_code_assist_tool_id("abcDEF1234", Strict9));
        assert!(!is_valid_cloud_code_assist_tool_id("abcDEF12_", Strict9));
    }

    #[test]
    fn valid_unique_ids_are_kept() {
        let mut ids = IdAllocator::new(Strict);
        assert_eq!(ids.call_id("call1"), "call1");
        assert_eq!(ids.call_id("call2"), "call2");
        assert_eq!(ids.result_id("call1"), "call1");
        assert_eq!(ids.result_id("call2"), "call2");
    }

    /// Node hashes a lone surrogate as U+FFFD; its stand-in must hash the same.
    #[test]
    fn a_lone_surrogate_stand_in_hashes_as_node_hashes_the_surrogate() {
        assert_eq!(short_hash("a\u{10F800}", 8), short_hash("a\u{FFFD}", 8));
        assert_ne!(short_hash("a\u{10F7FF}", 8), short_hash("a\u{FFFD}", 8));
    }

    #[test]
    fn collisions_after_sanitising_get_a_hash_suffix() {
        let mut ids = IdAllocator::new(Strict);
        assert_eq!(ids.call_id("call_a|b"), "callab");
        assert_eq!(ids.call_id("call_a:b"), "callab164e5cbf");
        assert_eq!(ids.result_id("call_a:b"), "callab164e5cbf");
        assert_eq!(ids.result_id("call_a|b"), "callab");
    }

    #[test]
    fn repeated_raw_ids_pair_in_order() {
        let mut ids = IdAllocator::new(Strict);
        assert_eq!(ids.call_id("edit:22"), "edit22");
        assert_eq!(ids.call_id("edit:22"), "edit222");
        assert_eq!(ids.result_id("edit:22"), "edit22");
        assert_eq!(ids.result_id("edit:22"), "edit222");
        // Nothing pending any more: the third result is an orphan.
        assert_eq!(ids.result_id("edit:22"), "edit22toolresult1");
    }

    /// Results answering calls out of order, and a raw id repeated in a batch, take the same ids
    /// whether or not the next result is the one after the last taken (the allocator's shortcut).
    #[test]
    fn results_in_any_order_take_their_own_calls_ids() {
        let mut ids = IdAllocator::new(Strict);
        let calls: Vec<String> = ["a|1", "b|2", "a|1", "c|3"]
            .iter()
            .map(|raw| ids.call_id(raw).to_string())
            .collect();
        assert_eq!(calls, ["a1", "b2", "a12", "c3"]);
        assert_eq!(ids.result_id("b|2"), "b2");
        // The cell after `b2` is the second `a|1`, not the front of `a|1`'s queue.
        assert_eq!(ids.result_id("a|1"), "a1");
        assert_eq!(ids.result_id("c|3"), "c3");
        assert_eq!(ids.result_id("a|1"), "a12");
        assert_eq!(ids.result_id("a|1"), "a1toolresult1");
        assert_eq!(ids.result_id("b|2"), "b2toolresult1");
        // In order: each result is the hinted one.
        assert_eq!(ids.call_id("d"), "d");
        assert_eq!(ids.call_id("e"), "e");
        assert_eq!(ids.result_id("d"), "d");
        assert_eq!(ids.result_id("e"), "e");
        assert_eq!(ids.result_id("e"), "etoolresult1");
    }

    #[test]
    fn strict9_collisions_hash_the_seed() {
        let mut ids = IdAllocator::new(Strict9);
        assert_eq!(ids.call_id("call_abc|item:123"), "callabcit");
        assert_eq!(ids.call_id("call_abc|item:456"), "15b81aaaa");
        assert_eq!(ids.result_id("call_abc|item:456"), "15b81aaaa");
        assert_eq!(ids.call_id("ab"), "fb8e20fc2");
    }

    #[test]
    fn long_ids_are_capped_at_40() {
        let long: String = "a1".repeat(32) + "z";
        assert_eq!(long.len(), 65);
        let mut ids = IdAllocator::new(Strict);
        let first = ids.call_id(&long).to_string();
        assert_eq!(first, &long[..40]);
        let other = format!("{}|q", &long[..40]);
        let second = ids.call_id(&other).to_string();
        assert_eq!(second.len(), 40);
        assert_eq!(&second[..32], &long[..32]);
        assert_eq!(&second[32..], short_hash(&other, 8));
        assert!(is_valid_cloud_code_assist_tool_id(&second, Strict));
    }

    #[test]
    fn orphans_are_renamed_even_when_valid() {
        let mut ids = IdAllocator::new(Strict);
        assert_eq!(ids.result_id("call1"), "call1toolresult1");
        assert_eq!(ids.result_id("call1"), "call1toolresult2");
        // The call that comes after its result keeps its own id.
        assert_eq!(ids.call_id("call1"), "call1");
        assert_eq!(ids.result_id("call1"), "call1");
    }

    #[test]
    fn strict_suffixes_x2_onwards_then_a_deterministic_counter() {
        let seed = "dup";
        let candidate = format!("dup{}", short_hash(seed, 8));
        let mut used: HashSet<String> =
            ["dup".to_string(), candidate.clone()].into_iter().collect();
        assert_eq!(
            make_unique(seed, free(&used), Strict, false),
            format!("{candidate}x2")
        );
        used.insert(format!("{candidate}x2"));
        assert_eq!(
            make_unique(seed, free(&used), Strict, false),
            format!("{candidate}x3")
        );
        for i in 3..1000 {
            used.insert(format!("{candidate}x{i}"));
        }
        assert_eq!(
            make_unique(seed, free(&used), Strict, false),
            format!("{candidate}x1000")
        );
        // Suffixes replace the tail of a full-length candidate.
        let long = "b".repeat(50);
        let long_candidate = format!("{}{}", "b".repeat(32), short_hash(&long, 8));
        let used: HashSet<String> = ["b".repeat(40), long_candidate.clone()]
            .into_iter()
            .collect();
        let next = make_unique(&long, free(&used), Strict, false);
        assert_eq!(next, format!("{}x2", &long_candidate[..38]));
    }

    #[test]
    fn strict9_falls_back_to_counter_hashes() {
        let seed = "abcdefghijk";
        let mut used: HashSet<String> = ["abcdefghi".to_string()].into_iter().collect();
        let first = make_unique(seed, free(&used), Strict9, false);
        assert_eq!(first, short_hash("abcdefghijk:0", 9));
        for i in 0..1000 {
            used.insert(short_hash(&format!("{seed}:{i}"), 9));
        }
        assert_eq!(
            make_unique(seed, free(&used), Strict9, false),
            short_hash("abcdefghijk:1000", 9)
        );
    }

    #[test]
    fn allocated_ids_are_always_valid_and_distinct() {
        for mode in [Strict, Strict9] {
            let mut ids = IdAllocator::new(mode);
            let mut seen = HashSet::new();
            for raw in ["a", "a", "a:2", "a|2", "", "::", "x", "x"] {
                let id = ids.call_id(raw);
                assert!(is_valid_cloud_code_assist_tool_id(id, mode), "{id}");
                assert!(seen.insert(id.to_string()), "duplicate {id}");
            }
            for raw in ["zz", "zz"] {
                let id = ids.result_id(raw);
                assert!(is_valid_cloud_code_assist_tool_id(id, mode), "{id}");
                assert!(seen.insert(id.to_string()), "duplicate {id}");
            }
        }
    }

    #[test]
    fn native_kimi_ids_are_kept_in_strict_mode_when_asked() {
        for (id, native) in [
            ("functions.read:0", true),
            ("functions.web-search_2:12", true),
            ("functions.read:", false),
            ("functions.:0", false),
            ("functions.re.ad:0", false),
            ("functions.read:0x", false),
            ("function.read:0", false),
        ] {
            assert_eq!(is_native_kimi_id(id), native, "{id}");
        }
        let mut kept = IdAllocator::new(Strict).keeping_kimi_ids();
        assert_eq!(kept.call_id("functions.read:0"), "functions.read:0");
        assert_eq!(kept.result_id("functions.read:0"), "functions.read:0");
        assert_ne!(
            kept.call_id("functions.read:0"),
            "functions.read:0",
            "a repeat is renamed"
        );
        assert_eq!(
            IdAllocator::new(Strict).call_id("functions.read:0"),
            "functionsread0"
        );
        let mut strict9 = IdAllocator::new(Strict9).keeping_kimi_ids();
        assert_eq!(strict9.call_id("functions.read:0").len(), 9);
    }

    #[test]
    fn native_anthropic_ids_are_kept_on_first_use_when_asked() {
        assert!(is_native_anthropic_id("toolu_01AbC_d"));
        assert!(!is_native_anthropic_id("toolu_"));
        assert!(!is_native_anthropic_id("toolu_01-x"));
        let mut ids = IdAllocator::new(Strict).keeping_anthropic_ids();
        assert_eq!(ids.call_id("toolu_01A"), "toolu_01A");
        assert_eq!(ids.result_id("toolu_01A"), "toolu_01A");
        let again = ids.call_id("toolu_01A");
        assert!(is_valid_cloud_code_assist_tool_id(again, Strict), "{again}");
        assert_eq!(ids.result_id("toolu_orphan"), "toolu_orphan");
        assert_eq!(IdAllocator::new(Strict).call_id("toolu_01A"), "toolu01A");
    }

    #[test]
    fn kept_ids_are_reserved_answered_and_not_counted() {
        let mut a = IdAllocator::new(ToolCallIdMode::Strict);
        a.reserve("call1");
        // `call_1` would become `call1`, which a kept turn holds.
        let renamed = a.call_id("call_1").to_string();
        assert_ne!(renamed, "call1");
        a.keep_call_id("call1");
        assert_eq!(a.result_id("call1"), "call1");
        assert_eq!(a.result_id("call_1"), renamed);
        // A later call written `call1` is its first occurrence, but the id is taken.
        assert_ne!(a.call_id("call1"), "call1");
    }
}
