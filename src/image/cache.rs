//! The process-wide cache of image decisions: the same oversize screenshot on
//! the next turn costs a hash and a lookup, not a decode, resize and encode.
//!
//! A session's images stay in its history and the hygiene pass runs before
//! every model call, so without a cache every oversize image is re-encoded on
//! every turn. Entries are keyed by the BLAKE3 digest of the payload string
//! exactly as the caller holds it (whitespace and any `data:` prefix
//! included: the decision is a function of that string) plus both limits, and
//! hold the decision: the new JPEG's base64, the omission reason, or "keep".
//!
//! Why BLAKE3: the key must be collision-resistant, because one process may
//! serve many sessions (a gateway) and a collision would hand one session
//! another's image; BLAKE3 is a cryptographic hash and, with its SIMD
//! back-ends chosen at run time, hashed 3.8 MB of base64 in ~0.6 ms here,
//! where SHA-256 (already a dependency, with SHA-NI) took ~2.8 ms.
//!
//! Bounded by bytes (payload and reason lengths plus a fixed overhead per
//! entry; default 64 MiB, [`configure`] changes it, 0 disables the cache),
//! least recently used first out. One `Mutex` guards it: the addon may run in
//! several `worker_threads` at once; the lock is held for lookups and
//! inserts only, never while hashing or encoding.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use super::{ImageDecision, ImageLimits};

/// Default size budget: 64 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Bytes counted per entry beyond its strings (key, maps, bookkeeping).
const ENTRY_OVERHEAD: usize = 160;

/// BLAKE3 digest of an image payload string.
pub type Digest = [u8; 32];

/// Digest of a payload string, as the cache keys it. (Splitting a 4 MB payload
/// over two threads was tried: no faster here, the hash runs at memory speed.)
pub fn digest(data: &[u8]) -> Digest {
    *blake3::hash(data).as_bytes()
}

/// The digest as 64 lowercase hex characters (how it travels to JS and back).
pub fn digest_hex(d: &Digest) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(64);
    for &b in d {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}

/// Parses [`digest_hex`]'s output; `None` for anything else.
pub fn parse_digest_hex(s: &str) -> Option<Digest> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = nibble(b[2 * i])? << 4 | nibble(b[2 * i + 1])?;
    }
    Some(out)
}

/// What the cache holds and has done since the process started (or since
/// the last [`clear`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Decisions held.
    pub entries: usize,
    /// Bytes they are counted as (strings plus a fixed overhead each).
    pub bytes: usize,
    /// The budget; 0 means the cache is off.
    pub max_bytes: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to compute the decision.
    pub misses: u64,
    /// Entries dropped to stay within the budget.
    pub evictions: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    digest: Digest,
    max_dimension_px: u32,
    max_bytes: usize,
    max_decode_bytes: u64,
    release: crate::openclaw::OpenClawVersion,
}

struct Entry {
    decision: Arc<ImageDecision>,
    cost: usize,
    tick: u64,
}

/// An LRU map of decisions bounded by bytes. The process-wide instance is
/// behind the free functions of this module; tests make their own.
pub struct ImageCache {
    inner: Mutex<Inner>,
}

struct Inner {
    map: HashMap<Key, Entry>,
    /// Recency order: tick → key; the smallest tick is the least recently used.
    order: BTreeMap<u64, Key>,
    tick: u64,
    stats: CacheStats,
}

fn key(digest: &Digest, limits: ImageLimits) -> Key {
    Key {
        digest: *digest,
        max_dimension_px: limits.max_dimension_px,
        max_bytes: limits.max_bytes,
        max_decode_bytes: limits.max_decode_bytes,
        release: limits.release,
    }
}

fn cost(decision: &ImageDecision) -> usize {
    ENTRY_OVERHEAD
        + match decision {
            ImageDecision::Keep { .. } => 0,
            ImageDecision::Replaced { data, .. } => data.len(),
            ImageDecision::Omitted { reason } => reason.len(),
        }
}

impl Inner {
    fn evict_to(&mut self, budget: usize) {
        while self.stats.bytes > budget {
            let Some((_, key)) = self.order.pop_first() else {
                break;
            };
            if let Some(e) = self.map.remove(&key) {
                self.stats.bytes -= e.cost;
                self.stats.entries -= 1;
                self.stats.evictions += 1;
            }
        }
    }
}

impl ImageCache {
    /// An empty cache with this budget in bytes.
    pub fn new(max_bytes: usize) -> Self {
        ImageCache {
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                order: BTreeMap::new(),
                tick: 0,
                stats: CacheStats {
                    max_bytes,
                    ..CacheStats::default()
                },
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while holding the lock; if something did, the map is
        // still consistent enough for a cache (at worst a size is miscounted).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the cache is on (a budget above zero).
    pub fn enabled(&self) -> bool {
        self.lock().stats.max_bytes > 0
    }

    /// The decision cached for this payload digest and these limits, counting
    /// a hit or a miss.
    pub fn get(&self, digest: &Digest, limits: ImageLimits) -> Option<Arc<ImageDecision>> {
        let key = key(digest, limits);
        let mut c = self.lock();
        c.tick += 1;
        let tick = c.tick;
        let c = &mut *c;
        match c.map.get_mut(&key) {
            Some(e) => {
                c.order.remove(&e.tick);
                e.tick = tick;
                c.order.insert(tick, key);
                c.stats.hits += 1;
                Some(Arc::clone(&e.decision))
            }
            None => {
                c.stats.misses += 1;
                None
            }
        }
    }

    /// Like [`ImageCache::get`] but a miss is not counted: for a remembered
    /// digest, which is followed by a counted lookup when it fails.
    pub fn peek(&self, digest: &Digest, limits: ImageLimits) -> Option<Arc<ImageDecision>> {
        if self.lock().map.contains_key(&key(digest, limits)) {
            self.get(digest, limits)
        } else {
            None
        }
    }

    /// Stores a decision; one larger than the whole budget is not stored.
    pub fn put(&self, digest: &Digest, limits: ImageLimits, decision: Arc<ImageDecision>) {
        let key = key(digest, limits);
        let cost = cost(&decision);
        let mut c = self.lock();
        if cost > c.stats.max_bytes {
            return;
        }
        c.tick += 1;
        let tick = c.tick;
        let entry = Entry {
            decision,
            cost,
            tick,
        };
        if let Some(old) = c.map.insert(key, entry) {
            c.order.remove(&old.tick);
            c.stats.bytes -= old.cost;
            c.stats.entries -= 1;
        }
        c.order.insert(tick, key);
        c.stats.bytes += cost;
        c.stats.entries += 1;
        let budget = c.stats.max_bytes;
        c.evict_to(budget);
    }

    /// The current figures.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    /// Drops every entry and resets the counters; the budget stays.
    pub fn clear(&self) {
        let mut c = self.lock();
        c.map.clear();
        c.order.clear();
        c.stats = CacheStats {
            max_bytes: c.stats.max_bytes,
            ..CacheStats::default()
        };
    }

    /// Sets the budget in bytes (0 turns the cache off and empties it),
    /// evicting the least recently used entries down to it.
    pub fn configure(&self, max_bytes: usize) {
        let mut c = self.lock();
        c.stats.max_bytes = max_bytes;
        c.evict_to(max_bytes);
    }
}

static GLOBAL: LazyLock<ImageCache> = LazyLock::new(|| ImageCache::new(DEFAULT_CACHE_BYTES));

/// The process-wide cache the image pass uses.
pub fn global() -> &'static ImageCache {
    &GLOBAL
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaced(len: usize) -> Arc<ImageDecision> {
        Arc::new(ImageDecision::Replaced {
            data: "A".repeat(len),
            mime: "image/jpeg",
            width: 1,
            height: 1,
            quality: 85,
        })
    }

    #[test]
    fn hex_round_trips() {
        let d = digest(b"hello");
        let hex = digest_hex(&d);
        assert_eq!(hex.len(), 64);
        assert_eq!(parse_digest_hex(&hex), Some(d));
        assert_eq!(parse_digest_hex(&hex.to_uppercase()), None);
        assert_eq!(parse_digest_hex("abc"), None);
        assert_eq!(parse_digest_hex(&"g".repeat(64)), None);
    }

    #[test]
    fn hits_misses_and_limits_in_the_key() {
        let cache = ImageCache::new(DEFAULT_CACHE_BYTES);
        let limits = ImageLimits::default();
        let d = digest(b"payload");
        assert!(cache.get(&d, limits).is_none());
        cache.put(&d, limits, replaced(10));
        assert_eq!(cache.get(&d, limits).as_deref(), Some(&*replaced(10)));
        let other = ImageLimits {
            max_dimension_px: 800,
            ..limits
        };
        assert!(cache.get(&d, other).is_none());
        assert!(cache.peek(&digest(b"other"), limits).is_none());
        let s = cache.stats();
        assert_eq!((s.entries, s.hits, s.misses), (1, 1, 2));
        assert_eq!(s.bytes, 10 + ENTRY_OVERHEAD);
        cache.clear();
        let s = cache.stats();
        assert_eq!((s.entries, s.bytes, s.hits, s.misses), (0, 0, 0, 0));
        assert_eq!(s.max_bytes, DEFAULT_CACHE_BYTES);
    }

    #[test]
    fn least_recently_used_is_evicted_first() {
        let limits = ImageLimits::default();
        let cache = ImageCache::new(3 * (1000 + ENTRY_OVERHEAD));
        let (a, b, c, d) = (digest(b"a"), digest(b"b"), digest(b"c"), digest(b"d"));
        cache.put(&a, limits, replaced(1000));
        cache.put(&b, limits, replaced(1000));
        cache.put(&c, limits, replaced(1000));
        assert!(cache.get(&a, limits).is_some()); // a is now the most recent
        cache.put(&d, limits, replaced(1000));
        assert!(
            cache.peek(&b, limits).is_none(),
            "b was the least recently used"
        );
        assert!(cache.peek(&a, limits).is_some());
        assert!(cache.peek(&c, limits).is_some());
        assert_eq!(cache.stats().evictions, 1);
        assert!(cache.stats().bytes <= cache.stats().max_bytes);
        // Too large for the whole budget: not stored.
        cache.put(&digest(b"huge"), limits, replaced(10_000));
        assert!(cache.peek(&digest(b"huge"), limits).is_none());
        // Shrinking the budget evicts; zero turns the cache off.
        cache.configure(1000 + ENTRY_OVERHEAD);
        assert_eq!(cache.stats().entries, 1);
        cache.configure(0);
        assert_eq!(cache.stats().entries, 0);
        assert!(!cache.enabled());
        cache.put(&a, limits, replaced(1));
        assert_eq!(cache.stats().entries, 0);
    }

    #[test]
    fn replacing_an_entry_keeps_the_count_right() {
        let cache = ImageCache::new(DEFAULT_CACHE_BYTES);
        let limits = ImageLimits::default();
        let d = digest(b"same");
        cache.put(&d, limits, replaced(5));
        cache.put(&d, limits, replaced(7));
        assert_eq!(cache.stats().entries, 1);
        assert_eq!(cache.stats().bytes, 7 + ENTRY_OVERHEAD);
    }

    #[test]
    fn many_threads_at_once() {
        let cache = ImageCache::new(64 * (100 + ENTRY_OVERHEAD));
        let limits = ImageLimits::default();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let cache = &cache;
                s.spawn(move || {
                    for i in 0..200u32 {
                        let d = digest(&[t, (i % 100) as u8]);
                        if cache.get(&d, limits).is_none() {
                            cache.put(&d, limits, replaced(100));
                        }
                    }
                });
            }
        });
        let s = cache.stats();
        assert!(s.bytes <= s.max_bytes);
        assert_eq!(s.entries, s.bytes / (100 + ENTRY_OVERHEAD));
        assert_eq!(s.hits + s.misses, 800);
    }
}
