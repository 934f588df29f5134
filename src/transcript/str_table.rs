//! A hash table keyed by strings that are stored end to end in one buffer.
//!
//! The id allocator looks up and remembers one or two strings per tool call. As a
//! `HashMap<String, _>` every key was its own allocation plus a copy, and the map's growth was
//! ~8% of a 10,000-message pass under the id-rewriting policies. Here keys are appended to a
//! single `String` and the table holds only their ranges, so a pass makes a handful of
//! allocations in all, sized up front.

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// A string stored in a [`StrTable`]: its range in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    start: usize,
    end: usize,
}

/// A map from strings to `V`; keys are never removed.
pub struct StrTable<V> {
    buf: String,
    table: HashTable<(Key, V)>,
    hasher: foldhash::fast::RandomState,
}

impl<V> StrTable<V> {
    /// Room for `entries` keys of about `key_len` bytes each.
    pub fn with_capacity(entries: usize, key_len: usize) -> Self {
        StrTable {
            buf: String::with_capacity(entries.saturating_mul(key_len)),
            table: HashTable::with_capacity(entries),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The text of a key.
    pub fn text(&self, key: Key) -> &str {
        &self.buf[key.start..key.end]
    }

    #[cfg(test)]
    pub fn contains(&self, s: &str) -> bool {
        self.get(s).is_some()
    }

    #[cfg(test)]
    pub fn get(&self, s: &str) -> Option<&V> {
        let hash = self.hasher.hash_one(s);
        let buf = &self.buf;
        self.table
            .find(hash, |(k, _)| &buf[k.start..k.end] == s)
            .map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, s: &str) -> Option<&mut V> {
        let hash = self.hasher.hash_one(s);
        let buf = &self.buf;
        self.table
            .find_mut(hash, |(k, _)| &buf[k.start..k.end] == s)
            .map(|(_, v)| v)
    }

    /// The entry of `s`, inserted with `make` first when absent, and whether it was.
    fn entry_with(&mut self, s: &str, make: impl FnOnce() -> V) -> (&mut (Key, V), bool) {
        let hash = self.hasher.hash_one(s);
        let StrTable { buf, table, hasher } = self;
        let entry = table.entry(
            hash,
            |(k, _)| &buf[k.start..k.end] == s,
            |(k, _)| hasher.hash_one(&buf[k.start..k.end]),
        );
        match entry {
            Entry::Occupied(e) => (e.into_mut(), false),
            Entry::Vacant(e) => {
                let start = buf.len();
                buf.push_str(s);
                let key = Key {
                    start,
                    end: buf.len(),
                };
                (e.insert((key, make())).into_mut(), true)
            }
        }
    }

    /// The value of `s`, inserted with `make` first when absent.
    pub fn get_or_insert_with(&mut self, s: &str, make: impl FnOnce() -> V) -> &mut V {
        &mut self.entry_with(s, make).0 .1
    }

    /// The key and value of `s`, inserted with `make` first when absent.
    pub fn entry_or_insert_with(&mut self, s: &str, make: impl FnOnce() -> V) -> (Key, &mut V) {
        let (key, v) = self.entry_with(s, make).0;
        (*key, v)
    }

    /// The key of `s`, inserted with `make` first when absent.
    pub fn key_or_insert_with(&mut self, s: &str, make: impl FnOnce() -> V) -> Key {
        self.entry_with(s, make).0 .0
    }

    /// Adds `s` and returns its key, or `None` when it is already present.
    pub fn insert_if_absent(&mut self, s: &str, v: V) -> Option<Key> {
        let ((key, _), added) = self.entry_with(s, || v);
        added.then_some(*key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let mut t = StrTable::with_capacity(1, 1);
        let keys: Vec<Key> = (0..1000)
            .map(|i| t.insert_if_absent(&format!("id{i}"), i).unwrap())
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.text(*k), format!("id{i}"));
            assert_eq!(t.get(&format!("id{i}")), Some(&i));
        }
        assert!(!t.contains("id1000"));
        assert!(!t.contains("id"));
        assert!(!t.contains(""));
        *t.get_mut("id7").unwrap() = 70;
        assert_eq!(t.get("id7"), Some(&70));
    }

    #[test]
    fn insert_if_absent_claims_a_string_once() {
        let mut t = StrTable::with_capacity(0, 0);
        let k = t.insert_if_absent("call1", ()).unwrap();
        assert_eq!(t.text(k), "call1");
        assert_eq!(t.insert_if_absent("call1", ()), None);
        let k2 = t.insert_if_absent("call2", ()).unwrap();
        assert_eq!((t.text(k), t.text(k2)), ("call1", "call2"));
        *t.get_or_insert_with("call1", || unreachable!()) = ();
        let n = t.get_or_insert_with("x", || ());
        *n = ();
        assert!(t.contains("x"));
    }

    #[test]
    fn the_empty_string_and_prefixes_are_distinct_keys() {
        let mut t = StrTable::with_capacity(0, 0);
        for (k, v) in [("ab", 1), ("", 2), ("a", 3)] {
            assert!(t.insert_if_absent(k, v).is_some());
        }
        assert_eq!(
            (t.get("ab"), t.get(""), t.get("a")),
            (Some(&1), Some(&2), Some(&3))
        );
    }
}
