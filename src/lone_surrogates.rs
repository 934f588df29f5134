//! JS strings may hold lone UTF-16 surrogates (a string cut between the two halves of an emoji,
//! `'\uD83D'`); Rust's `str` cannot, and Node-API's UTF-8 conversion turns each into U+FFFD, so
//! the text would be changed by merely passing through the addon. Instead, when (and only when)
//! a string has lone surrogates, [`decode`] maps each one to a private-use code point in a
//! 2048-code-point block that does not occur in the string (0xD800 + k ↦ base + k), the Rust code
//! runs on that text (it never creates private-use characters), and [`LoneMap::to_utf16`] /
//! [`LoneMap::escape_json`] map them back on the way out.
//!
//! Candidate blocks: the 31 whole 2048-blocks of plane 16, then those of plane 15. If a string
//! uses a code point of every one of the 62 blocks, its lone surrogates become U+FFFD (what
//! Node-API does) — a string needs over 62 distinct supplementary private-use characters for that.

use std::fmt::Write;

/// Where the lone surrogates of one string were mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoneMap {
    base: u32,
}

const BLOCK: u32 = 0x800;
const BLOCKS_PER_PLANE: u32 = 31;
const PLANES: [u32; 2] = [0x10_0000, 0xF_0000];

/// Whether `units` has a surrogate that is not half of a valid pair.
pub fn has_lone_surrogate(units: &[u16]) -> bool {
    char::decode_utf16(units.iter().copied()).any(|r| r.is_err())
}

/// Whether `units` holds any of the ASCII `bytes` (a prefilter run on the UTF-16 text before it is
/// transcoded: chunks without an early exit, so the compiler vectorises the comparisons).
pub fn contains_any(units: &[u16], bytes: &[u8]) -> bool {
    units.chunks(64).any(|chunk| {
        bytes.iter().any(|&b| {
            chunk
                .iter()
                .fold(false, |hit, &u| hit | (u == u16::from(b)))
        })
    })
}

/// `units` as UTF-8, fast: a run of ASCII is found sixteen units at a time and narrowed in one
/// pass (both loops vectorise). `None` when `units` has a lone surrogate (then use [`decode`]).
pub fn transcode(units: &[u16]) -> Option<String> {
    transcode_into(units, Vec::new())
}

/// [`transcode`] written into `out` (cleared first), so a caller can reuse one buffer.
///
/// Block by block: sixteen ASCII units narrowed, or eight CJK units (three bytes each) written
/// with plain stores; in a mixed stretch, the run of ASCII or of three-byte units at hand (up
/// to a block's length) at once, or else one character, each kind of unit written directly (no
/// `char` round trip), and the wide blocks tried again after it. Runs rather than four-unit
/// blocks: DeepSeek's markers (ASCII words between single full-width characters) took 22% fewer
/// instructions to transcode (callgrind, 50 KB call-dense reply), a half-Chinese reply 20% fewer. Written into the buffer's spare room: zero-filling three bytes a unit
/// first made it ~1.5× slower on a half-Chinese reply (~25 → ~17 µs for 33,000 units). Going
/// one character at a time to the end of an eight-unit block, without the four-unit steps, cost
/// 1.5–3× more on replies with a short CJK phrase per paragraph or DeepSeek's full-width markers
/// between ASCII words (measured 47 → 15 µs and 95 → 55 µs for 45,000 units in a microbenchmark).
///
/// Where the CPU has SSSE3 (chosen at run time: the build targets plain x86-64), any eight
/// units without a surrogate are written as one block ([`mixed_block`]), ASCII, two- and
/// three-byte characters mixed, before the steps above are tried.
pub(crate) fn transcode_into(units: &[u16], out: Vec<u8>) -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (checked just above).
        return unsafe { transcode_ssse3(units, out) };
    }
    transcode_blocks::<false>(units, out)
}

/// [`transcode_blocks`] with [`mixed_block`], compiled for SSSE3.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn transcode_ssse3(units: &[u16], out: Vec<u8>) -> Option<String> {
    transcode_blocks::<true>(units, out)
}

/// [`transcode_into`]; `MIXED`: eight units without a surrogate go as one block
/// ([`mixed_block`]; only where the CPU has SSSE3).
#[inline(always)]
fn transcode_blocks<const MIXED: bool>(units: &[u16], mut out: Vec<u8>) -> Option<String> {
    let n = units.len();
    out.clear();
    out.reserve(n.checked_mul(3)?);
    let room = out.spare_capacity_mut();
    let (mut i, mut o) = (0, 0);
    while i < n {
        #[cfg(target_arch = "x86_64")]
        if MIXED {
            // SAFETY: as for `mixed_block` below.
            if let Some(k) = unsafe { ascii_block(units, i, room, o) } {
                (i, o) = (i + 16, o + k);
                continue;
            }
        }
        if !MIXED {
            if let Some(k) = narrow_block::<16>(units, i, room, o) {
                (i, o) = (i + 16, o + k);
                continue;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if MIXED {
            // SAFETY: `MIXED` is set only by `transcode_ssse3`, which runs where the CPU has
            // SSSE3.
            if let Some(k) = unsafe { mixed_block(units, i, room, o) } {
                (i, o) = (i + 8, o + k);
                continue;
            }
        }
        if let Some(k) = cjk_block::<8>(units, i, room, o) {
            (i, o) = (i + 8, o + k);
            continue;
        }
        // A mixed stretch: the run of ASCII units here, or else the run of three-byte ones,
        // written whole (up to a block's length), so that DeepSeek's markers (`<｜tool▁calls▁begin｜>`:
        // ASCII words between single wide characters) cost one step a run, not one a character.
        let k = narrow_run(units, i, room, o);
        if k > 0 {
            (i, o) = (i + k, o + k);
            continue;
        }
        let k = cjk_run(units, i, room, o);
        if k > 0 {
            (i, o) = (i + k, o + 3 * k);
            continue;
        }
        // One character (a surrogate pair is two units).
        let u = units[i];
        // The bytes, how many of them, and how many units they came from.
        let (bytes, len, used) = if u < 0x80 {
            ([u as u8, 0, 0, 0], 1, 1)
        } else if u < 0x800 {
            ([0xC0 | (u >> 6) as u8, 0x80 | (u & 0x3F) as u8, 0, 0], 2, 1)
        } else if three_bytes(u) {
            let b = [
                0xE0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3F) as u8,
                0x80 | (u & 0x3F) as u8,
                0,
            ];
            (b, 3, 1)
        } else {
            // A surrogate: the high half of a pair, or a lone one.
            let lo = match (u, units.get(i + 1)) {
                (0xD800..=0xDBFF, Some(&lo @ 0xDC00..=0xDFFF)) => lo,
                _ => return None,
            };
            let cp = 0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
            let b = [
                0xF0 | (cp >> 18) as u8,
                0x80 | ((cp >> 12) & 0x3F) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ];
            (b, 4, 2)
        };
        // All four bytes are stored (the ones past `len` are overwritten next or lie past
        // the end): a copy of `len` bytes was a call to `memcpy` per character, which a
        // profile of a reply with Chinese in every paragraph showed to be half of transcoding it.
        match room.get_mut(o..o + 4) {
            Some(d) => {
                for (d, &b) in d.iter_mut().zip(&bytes) {
                    d.write(b);
                }
            }
            None => {
                for (d, &b) in room.get_mut(o..o + len)?.iter_mut().zip(&bytes) {
                    d.write(b);
                }
            }
        }
        i += used;
        o += len;
    }
    // SAFETY: the first `o` bytes of the spare room were written above (each path writes its
    // bytes at `o..` before moving `o` past them), and they are valid UTF-8 by construction, so
    // they are not checked again (the check was half the cost of transcoding a half-Chinese
    // reply): the ASCII blocks and runs copy units below 0x80 as single bytes; the CJK blocks and runs write only
    // units that `three_bytes` accepts (0x800..=0xFFFF, not a surrogate), each as its canonical
    // three-byte form; the unit-by-unit path writes the canonical one-, two- or three-byte form
    // of a unit below 0x800 or accepted by `three_bytes`, or the four-byte form of a valid pair
    // (a lone half returns `None`). `transcode_writes_valid_utf8_for_every_unit` checks every
    // unit (each kind in every position of a block) against `std`.
    unsafe {
        out.set_len(o);
        Some(String::from_utf8_unchecked(out))
    }
}

/// The `N` units at `i` narrowed into `room` at `o` when all are ASCII: the bytes written.
#[inline(always)]
fn narrow_block<const N: usize>(
    units: &[u16],
    i: usize,
    room: &mut [std::mem::MaybeUninit<u8>],
    o: usize,
) -> Option<usize> {
    let (c, d) = (units.get(i..i + N)?, room.get_mut(o..o + N)?);
    if c.iter().fold(0, |acc, &u| acc | u) >= 0x80 {
        return None;
    }
    for (d, &u) in d.iter_mut().zip(c) {
        d.write(u as u8);
    }
    Some(N)
}

/// The ASCII units at `i` (at most sixteen) narrowed into `room` at `o`: how many (0 when the
/// unit at `i` is not ASCII).
#[inline(always)]
fn narrow_run(units: &[u16], i: usize, room: &mut [std::mem::MaybeUninit<u8>], o: usize) -> usize {
    let c = &units[i..units.len().min(i + 16)];
    let k = c.iter().position(|&u| u >= 0x80).unwrap_or(c.len());
    let Some(d) = room.get_mut(o..o + k) else {
        return 0;
    };
    for (d, &u) in d.iter_mut().zip(c) {
        d.write(u as u8);
    }
    k
}

/// The whole three-byte units at `i` (at most eight) written into `room` at `o`: how many (0
/// when the unit at `i` is not one).
#[inline(always)]
fn cjk_run(units: &[u16], i: usize, room: &mut [std::mem::MaybeUninit<u8>], o: usize) -> usize {
    let c = &units[i..units.len().min(i + 8)];
    let k = c.iter().position(|&u| !three_bytes(u)).unwrap_or(c.len());
    let Some(d) = room.get_mut(o..o + 3 * k) else {
        return 0;
    };
    for (d, &u) in d.chunks_exact_mut(3).zip(c) {
        d[0].write(0xE0 | (u >> 12) as u8);
        d[1].write(0x80 | ((u >> 6) & 0x3F) as u8);
        d[2].write(0x80 | (u & 0x3F) as u8);
    }
    k
}

/// The `N` units at `i` written into `room` at `o` as three bytes each when all are whole
/// three-byte characters (CJK and the like): the bytes written.
#[inline(always)]
fn cjk_block<const N: usize>(
    units: &[u16],
    i: usize,
    room: &mut [std::mem::MaybeUninit<u8>],
    o: usize,
) -> Option<usize> {
    let (c, d) = (units.get(i..i + N)?, room.get_mut(o..o + 3 * N)?);
    if !c.iter().fold(true, |all, &u| all & three_bytes(u)) {
        return None;
    }
    for (d, &u) in d.chunks_exact_mut(3).zip(c) {
        d[0].write(0xE0 | (u >> 12) as u8);
        d[1].write(0x80 | ((u >> 6) & 0x3F) as u8);
        d[2].write(0x80 | (u & 0x3F) as u8);
    }
    Some(3 * N)
}

/// [`narrow_block`] of sixteen units in SSE2 steps: one test of both halves ORed together and
/// one saturating pack that is the narrowing (ASCII units pack to themselves). The portable
/// block ORs its units one after another into a scalar and then narrows them: twice the
/// instructions of this on the ASCII prose between a call-dense reply's calls.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn ascii_block(
    units: &[u16],
    i: usize,
    room: &mut [std::mem::MaybeUninit<u8>],
    o: usize,
) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_packus_epi16, _mm_set1_epi16, _mm_setzero_si128, _mm_storeu_si128,
    };
    let c = units.get(i..i + 16)?;
    let d = room.get_mut(o..o + 16)?;
    // SAFETY: the loads read the sixteen units of `c`.
    let (a, b) = unsafe {
        let at = c.as_ptr().cast::<__m128i>();
        (_mm_loadu_si128(at), _mm_loadu_si128(at.add(1)))
    };
    let high = _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16(0xFF80_u16 as i16));
    if _mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF {
        return None;
    }
    // SAFETY: the store writes the sixteen bytes of `d`.
    unsafe { _mm_storeu_si128(d.as_mut_ptr().cast::<__m128i>(), _mm_packus_epi16(a, b)) };
    Some(16)
}

/// The eight units at `i` written into `room` at `o` when none is a surrogate, whatever their mix
/// of one-, two- and three-byte characters: the bytes written. Each unit's bytes are worked out
/// in a 32-bit lane of its own, then each half's four lanes are packed together by one shuffle,
/// looked up by the half's lengths ([`PACK`]): no step waits for the length of the unit before
/// it (a unit-by-unit path did, and lost to the runs it was to replace). DeepSeek's markers
/// (`<｜tool▁calls▁begin｜>`: ASCII words between single wide characters) and a short Chinese
/// phrase in English prose go a block at a time instead of a run at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn mixed_block(
    units: &[u16],
    i: usize,
    room: &mut [std::mem::MaybeUninit<u8>],
    o: usize,
) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi16, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_packs_epi16, _mm_set1_epi16, _mm_setzero_si128,
        _mm_shuffle_epi8, _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128, _mm_unpackhi_epi16,
        _mm_unpacklo_epi16,
    };
    let c = units.get(i..i + 8)?;
    // Two 16-byte stores, the second up to twelve bytes in.
    let d = room.get_mut(o..o + 28)?;
    let k = |u: u16| _mm_set1_epi16(u as i16);
    // SAFETY: the load reads the eight units of `c`.
    let v = unsafe { _mm_loadu_si128(c.as_ptr().cast::<__m128i>()) };
    let high = |mask: u16| _mm_and_si128(v, k(mask));
    if _mm_movemask_epi8(_mm_cmpeq_epi16(high(0xF800), k(0xD800))) != 0 {
        return None;
    }
    let zero = _mm_setzero_si128();
    let (one, below_three) = (
        _mm_cmpeq_epi16(high(0xFF80), zero),
        _mm_cmpeq_epi16(high(0xF800), zero),
    );
    let pick = |m: __m128i, a: __m128i, b: __m128i| {
        _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b))
    };
    // The bytes of each unit, each in the low byte of its 16-bit lane.
    let last = _mm_or_si128(_mm_and_si128(v, k(0x3F)), k(0x80));
    let v6 = _mm_srli_epi16(v, 6);
    let mid = _mm_or_si128(_mm_and_si128(v6, k(0x3F)), k(0x80));
    let lead = pick(
        one,
        v,
        pick(
            below_three,
            _mm_or_si128(v6, k(0xC0)),
            _mm_or_si128(_mm_srli_epi16(v, 12), k(0xE0)),
        ),
    );
    let second = pick(below_three, last, mid);
    // Unit j's lane: its lead byte, the second, and the last of a three-byte character.
    let pairs = _mm_or_si128(lead, _mm_slli_epi16(second, 8));
    let (lo, hi) = (
        _mm_unpacklo_epi16(pairs, last),
        _mm_unpackhi_epi16(pairs, last),
    );
    // Bit j: unit j takes two bytes or more; bit 8 + j: three.
    let wide = !(_mm_movemask_epi8(_mm_packs_epi16(one, below_three)) as u32);
    let (a, b) = (
        &PACK[((wide & 0xF) | ((wide >> 4) & 0xF0)) as usize],
        &PACK[(((wide >> 4) & 0xF) | ((wide >> 8) & 0xF0)) as usize],
    );
    // SAFETY: each store writes 16 bytes inside `d` (28 bytes; `a.1` is at most 12), and the
    // shuffles read the 16-byte tables of `PACK`.
    unsafe {
        let at = d.as_mut_ptr();
        let shuffle = |t: &[u8; 16]| _mm_loadu_si128(t.as_ptr().cast::<__m128i>());
        _mm_storeu_si128(at.cast::<__m128i>(), _mm_shuffle_epi8(lo, shuffle(&a.0)));
        _mm_storeu_si128(
            at.add(a.1).cast::<__m128i>(),
            _mm_shuffle_epi8(hi, shuffle(&b.0)),
        );
    }
    Some(a.1 + b.1)
}

/// For four units whose lengths are given by an index (bit j: unit j takes two bytes or more;
/// bit 4 + j: three), the shuffle that packs their bytes (unit j's at 4j, 4j + 1, 4j + 2) to
/// the front, and how many bytes that makes.
#[cfg(target_arch = "x86_64")]
static PACK: [([u8; 16], usize); 256] = {
    let mut t = [([0x80u8; 16], 0usize); 256];
    let mut index = 0;
    while index < 256 {
        let mut at = 0;
        let mut j = 0;
        while j < 4 {
            let two = (index >> j) & 1;
            let len = 1 + two + (two & (index >> (4 + j)));
            let mut b = 0;
            while b < len {
                t[index].0[at] = (4 * j + b) as u8;
                at += 1;
                b += 1;
            }
            j += 1;
        }
        t[index].1 = at;
        index += 1;
    }
    t
};

/// Whether `u` is a whole character of three UTF-8 bytes (0x800..=0xFFFF, not a surrogate).
#[inline(always)]
fn three_bytes(u: u16) -> bool {
    (u >= 0x800) & !(0xD800..=0xDFFF).contains(&u)
}

/// `text` as UTF-16, fast: ASCII runs are found sixteen bytes at a time and widened in one pass.
/// (V8 builds a two-byte string from UTF-16 with a copy; from UTF-8 it decodes character by
/// character, which profiling showed to be the largest cost of returning a non-ASCII reply.)
pub fn encode_utf16(text: &str) -> Vec<u16> {
    let b = text.as_bytes();
    // At most one unit a byte; written with plain stores (see `transcode`).
    let mut out = vec![0u16; b.len()];
    let (mut i, mut o) = (0, 0);
    while i < b.len() {
        while let (Some(c), Some(d)) = (b.get(i..i + 8), out.get_mut(o..o + 8)) {
            if c.iter().fold(0, |acc, &x| acc | x) >= 0x80 {
                break;
            }
            for (d, &x) in d.iter_mut().zip(c) {
                *d = u16::from(x);
            }
            i += 8;
            o += 8;
        }
        // A run of three-byte characters (CJK), eight at a time: the text is valid UTF-8, so a
        // lead byte 0xE0..=0xEF starts exactly three bytes.
        while let (Some(c), Some(d)) = (b.get(i..i + 24), out.get_mut(o..o + 8)) {
            if !c
                .chunks_exact(3)
                .fold(true, |all, x| all & (x[0] & 0xF0 == 0xE0))
            {
                break;
            }
            for (d, x) in d.iter_mut().zip(c.chunks_exact(3)) {
                *d = (u16::from(x[0] & 0x0F) << 12)
                    | (u16::from(x[1] & 0x3F) << 6)
                    | u16::from(x[2] & 0x3F);
            }
            i += 24;
            o += 8;
        }
        if let Some(&x @ 0..=0x7F) = b.get(i) {
            out[o] = u16::from(x);
            i += 1;
            o += 1;
            continue;
        }
        // `i` is always a character boundary: the loops stop before a non-ASCII byte.
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        o += c.encode_utf16(&mut out[o..]).len();
        i += c.len_utf8();
    }
    out.truncate(o);
    out
}

/// `units` as a `String`, lone surrogates mapped; `None` when there were none (or no free block).
pub fn decode(units: &[u16]) -> (String, Option<LoneMap>) {
    if !has_lone_surrogate(units) {
        return (String::from_utf16_lossy(units), None);
    }
    let mut used = [0u32; 2];
    mark_used(units, &mut used);
    let Some(map) = free_block(used) else {
        return (String::from_utf16_lossy(units), None);
    };
    (map.decode(units), Some(map))
}

/// Marks in `used` the candidate blocks that `units` has a character of.
fn mark_used(units: &[u16], used: &mut [u32; 2]) {
    for c in char::decode_utf16(units.iter().copied()).flatten() {
        let cp = u32::from(c);
        for (p, &plane) in PLANES.iter().enumerate() {
            if (plane..plane + BLOCK * BLOCKS_PER_PLANE).contains(&cp) {
                used[p] |= 1 << ((cp - plane) / BLOCK);
            }
        }
    }
}

/// The first candidate block not marked in `used`.
fn free_block(used: [u32; 2]) -> Option<LoneMap> {
    PLANES.iter().zip(used).find_map(|(&plane, bits)| {
        (0..BLOCKS_PER_PLANE)
            .find(|k| bits & (1 << k) == 0)
            .map(|k| LoneMap {
                base: plane + k * BLOCK,
            })
    })
}

/// The lone-surrogate mapping of a text that arrives in pieces (a streamed reply), one block for
/// the whole text so that text held across pieces keeps one meaning. The block is chosen at the
/// first lone surrogate, among those no earlier piece used; the pieces must not split a surrogate
/// pair (the caller rejoins them). Limit: a code point of the chosen block arriving after that
/// (a reply mixing lone surrogates with plane-15/16 private-use characters written later) would
/// come back as a lone surrogate; `decode` of the whole text avoids that by seeing all of it.
#[derive(Debug, Clone, Copy, Default)]
pub struct PieceMap {
    used: [u32; 2],
    map: Option<LoneMap>,
}

impl PieceMap {
    /// The mapping in use, once a lone surrogate has been seen.
    pub fn map(&self) -> Option<LoneMap> {
        self.map
    }

    /// One piece as text, its lone surrogates mapped (to U+FFFD only if every block was used).
    pub fn decode(&mut self, units: &[u16]) -> String {
        // Plane-15/16 characters are the only ones in a candidate block; their high halves are
        // 0xDB80..=0xDBFF.
        if self.map.is_none() && units.iter().any(|&u| (0xDB80..=0xDBFF).contains(&u)) {
            mark_used(units, &mut self.used);
        }
        if let Some(s) = transcode(units) {
            return s;
        }
        if self.map.is_none() {
            self.map = free_block(self.used);
        }
        match self.map {
            Some(map) => map.decode(units),
            None => String::from_utf16_lossy(units),
        }
    }
}

impl LoneMap {
    /// `units` as text, each lone surrogate mapped to this block.
    fn decode(self, units: &[u16]) -> String {
        let mut out = String::with_capacity(units.len() + units.len() / 2);
        for r in char::decode_utf16(units.iter().copied()) {
            match r {
                Ok(c) => out.push(c),
                Err(e) => out.push(self.char_of(e.unpaired_surrogate())),
            }
        }
        out
    }

    fn char_of(self, unit: u16) -> char {
        char::from_u32(self.base + u32::from(unit) - 0xD800).unwrap_or('\u{FFFD}')
    }

    /// The surrogate a character stands for, if it is one of this map's.
    pub fn unit_of(self, c: char) -> Option<u16> {
        let cp = u32::from(c);
        if (self.base..self.base + BLOCK).contains(&cp) {
            u16::try_from(cp - self.base + 0xD800).ok()
        } else {
            None
        }
    }

    /// `text` as UTF-16 with the mapped characters turned back into lone surrogates.
    pub fn to_utf16(self, text: &str) -> Vec<u16> {
        let mut out = Vec::with_capacity(text.len());
        let mut buf = [0u16; 2];
        for c in text.chars() {
            match self.unit_of(c) {
                Some(u) => out.push(u),
                None => out.extend_from_slice(c.encode_utf16(&mut buf)),
            }
        }
        out
    }

    /// JSON text with each mapped character written as a `\uXXXX` escape of its surrogate, which
    /// `JSON.parse` turns back into the lone surrogate. Mapped characters only ever occur inside
    /// JSON strings, where the escape is valid.
    pub fn escape_json(self, json: &str) -> String {
        let mut out = String::with_capacity(json.len());
        for c in json.chars() {
            match self.unit_of(c) {
                Some(u) => {
                    let _ = write!(out, "\\u{u:04x}");
                }
                None => out.push(c),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// [`transcode`] by each path this machine has, which must agree: the portable steps, and
    /// the SSSE3 blocks where the CPU has them (what `transcode` then takes).
    fn transcode_each(units: &[u16]) -> Option<String> {
        let portable = transcode_blocks::<false>(units, Vec::new());
        assert_eq!(transcode(units), portable, "{units:x?}");
        portable
    }

    #[test]
    fn transcode_matches_std_and_refuses_lone_surrogates() {
        for s in [
            "",
            "ascii only, longer than eight units",
            "mixed 数字 and ü, 😀 too",
            "é",
            "构建在第二步失败了，我检查了日志、锁文件和缓存；解决办法是固定工具链。ok 中文😀中文中文中文中文中文\u{FFFF}\u{E000}\u{800}\u{7FF}",
            // Short runs of each kind (the four-unit steps), DeepSeek's full-width markers.
            "Paragraph 1: so far. 中文说明也在这里。\n\nab中文cd中文中ef😀gh",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"中\"}",
            // Two-byte characters alone and mixed with the other lengths in one block.
            "Привет, мир: ещё ünïcödé, 中文 и ASCII — всё в одном блоке.",
        ] {
            assert_eq!(transcode_each(&utf16(s)).as_deref(), Some(s));
        }
        assert_eq!(transcode_each(&[0x61, 0xD800]), None);
        assert_eq!(transcode_each(&[0xDC00, 0x61]), None);
        // A lone surrogate inside a run of CJK is not taken for a three-byte character.
        let mut cjk = utf16("中文中文中文中文中文中文中文中文");
        cjk[5] = 0xDA00;
        assert_eq!(transcode_each(&cjk), None);
        // A pair at every place of a mixed block, its end among them (the pair then ends one
        // unit past the block), before CJK and ASCII blocks.
        for at in 0..18 {
            let s = format!("{}😀中文中文中文中文{}", "é".repeat(at), "a".repeat(17));
            assert_eq!(
                transcode_each(&utf16(&s)).as_deref(),
                Some(s.as_str()),
                "{at}"
            );
        }
    }

    #[test]
    fn transcode_writes_valid_utf8_for_every_unit() {
        // Every BMP unit, after an ASCII block and a CJK block, at one of the eight positions of
        // a block of CJK (`u % 8`: every kind of unit lands in every position), and at one of
        // the sixteen of a block of ASCII, so each path writes it: what `transcode` returns is
        // what `std` decodes, and is valid UTF-8 (it is not validated again at run time). Then
        // every high surrogate with the low halves at either end of their range.
        let mut units: Vec<u16> = Vec::new();
        for u in 0..=0xFFFFu16 {
            let at = usize::from(u % 8);
            units.clear();
            units.extend_from_slice(&[u16::from(b'a'); 8]);
            units.extend_from_slice(&[0x4E2D; 8]);
            units.extend(std::iter::repeat_n(0x4E2D, at));
            units.push(u);
            units.extend(std::iter::repeat_n(0x4E2D, 7 - at));
            units.push(u16::from(b'a'));
            let out = transcode_each(&units);
            assert_eq!(out, String::from_utf16(&units).ok(), "{u:#x}");
            if let Some(s) = out {
                assert!(std::str::from_utf8(s.as_bytes()).is_ok(), "{u:#x}");
            }
            // At one of the sixteen positions of a block of ASCII.
            let at = usize::from(u % 16);
            units.clear();
            units.extend(std::iter::repeat_n(u16::from(b'a'), at));
            units.push(u);
            units.extend(std::iter::repeat_n(u16::from(b'a'), 15 - at));
            units.extend_from_slice(&[0x4E2D; 8]);
            assert_eq!(
                transcode_each(&units),
                String::from_utf16(&units).ok(),
                "{u:#x}"
            );
        }
        for hi in 0xD800..=0xDBFFu16 {
            for lo in [0xDC00, 0xDFFF] {
                let pair = [0x4E2D, hi, lo, u16::from(b'a')];
                let out = transcode_each(&pair);
                assert_eq!(out, String::from_utf16(&pair).ok(), "{hi:#x} {lo:#x}");
                assert!(out.is_some_and(|s| std::str::from_utf8(s.as_bytes()).is_ok()));
            }
        }
    }

    #[test]
    fn encode_utf16_matches_std() {
        for s in [
            "",
            "ascii only, longer than sixteen bytes",
            "mixed 数字 and ü, 😀 too",
            "é",
            "构建在第二步失败了，我检查了日志、锁文件和缓存；解决办法是固定工具链。ok 中文😀中文中文中文中文中文\u{FFFF}\u{E000}\u{800}\u{7FF}",
            // Short runs of each kind (the four-unit steps), DeepSeek's full-width markers.
            "Paragraph 1: so far. 中文说明也在这里。\n\nab中文cd中文中ef😀gh",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"中\"}",
        ] {
            assert_eq!(encode_utf16(s), utf16(s));
        }
    }

    #[test]
    fn contains_any_finds_ascii_bytes_anywhere() {
        let long = "x".repeat(200) + "<";
        assert!(contains_any(&utf16(&long), b"<["));
        assert!(!contains_any(&utf16(&"x".repeat(200)), b"<["));
        // U+FF1C FULLWIDTH LESS-THAN is not `<`.
        assert!(!contains_any(&utf16("\u{FF1C}"), b"<"));
    }

    #[test]
    fn no_lone_surrogate_no_map() {
        let (s, m) = decode(&utf16("a😀b"));
        assert_eq!(s, "a😀b");
        assert!(m.is_none());
    }

    #[test]
    fn round_trip_of_lone_surrogates() {
        let mut u = utf16("a");
        u.push(0xD83D);
        u.extend(utf16("b😀"));
        u.push(0xDE00);
        let (s, m) = decode(&u);
        let m = m.unwrap();
        assert_eq!(s.chars().count(), 5);
        assert_eq!(m.to_utf16(&s), u);
        assert_eq!(
            m.escape_json(&serde_json::to_string(&s).unwrap()),
            "\"a\\ud83db😀\\ude00\""
        );
    }

    #[test]
    fn block_avoids_code_points_of_the_input() {
        // The first candidate block is in use: the second is taken.
        let mut u = utf16("\u{100000}\u{1007FF}");
        u.push(0xDC00);
        let (s, m) = decode(&u);
        let m = m.unwrap();
        assert_eq!(m.to_utf16(&s), u);
        assert_eq!(m.unit_of('\u{100000}'), None);
        assert_eq!(m.unit_of('\u{100800}'), Some(0xD800));
    }

    #[test]
    fn every_block_in_use_falls_back_to_replacement() {
        let mut s = String::new();
        for plane in PLANES {
            for k in 0..BLOCKS_PER_PLANE {
                s.push(char::from_u32(plane + k * BLOCK).unwrap());
            }
        }
        let mut u = utf16(&s);
        u.push(0xD800);
        let (out, m) = decode(&u);
        assert!(m.is_none());
        assert!(out.ends_with('\u{FFFD}'));
    }

    #[test]
    fn pieces_share_one_block_that_avoids_earlier_pieces() {
        let mut pm = PieceMap::default();
        assert_eq!(pm.decode(&utf16("plain \u{100001}")), "plain \u{100001}");
        assert!(pm.map().is_none());
        let mut lone = utf16("x");
        lone.push(0xDC00);
        let a = pm.decode(&lone);
        let m = pm.map().unwrap();
        // The first block was used by an earlier piece.
        assert_eq!(m.unit_of('\u{100800}'), Some(0xD800));
        assert_eq!(m.to_utf16(&a), lone);
        let mut more = vec![0xD83D];
        more.extend(utf16("😀y"));
        let b = pm.decode(&more);
        assert_eq!(pm.map(), Some(m));
        assert_eq!(m.to_utf16(&b), more);
    }
}
