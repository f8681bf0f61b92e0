//! A map read from a scenario file and kept as a slice sorted by key, for the
//! maps nearly every scenario gives with one or two entries (`given.files`, a
//! call's `args`). A `BTreeMap` allocates room for eleven entries at its first,
//! over 500 bytes for one file or one argument; a suite of 10,000 scenarios is
//! loaded whole before a run, so those were a fifth of a run's memory.
//!
//! Read through a `BTreeMap`, so the keys come out in the same order and the
//! last of two equal keys wins, as before; iterating gives `(&String, &V)` in key
//! order, as a `BTreeMap` does.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Entries sorted by key, each key once.
#[derive(Debug, Clone)]
pub(crate) struct SortedMap<V>(Box<[(String, V)]>);

impl<V> Default for SortedMap<V> {
    fn default() -> Self {
        SortedMap(Box::default())
    }
}

impl<V> SortedMap<V> {
    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|at| &self.0[at].1)
    }

    /// The entries in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &V)> + Clone {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The values in their keys' order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl SortedMap<Value> {
    /// The entries as a JSON object, for what sends or inspects a call's arguments.
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        self.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl<V> From<BTreeMap<String, V>> for SortedMap<V> {
    fn from(map: BTreeMap<String, V>) -> Self {
        SortedMap(map.into_iter().collect())
    }
}

type Entry<'a, V> = (&'a String, &'a V);

impl<'a, V> IntoIterator for &'a SortedMap<V> {
    type Item = Entry<'a, V>;
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (String, V)>, fn(&'a (String, V)) -> Entry<'a, V>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SortedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, V>::deserialize(deserializer).map(SortedMap::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_a_btree_map_would_and_finds_each_key() {
        let text = r#"{"b": 2, "a": 1, "c": 3, "a": 4}"#;
        let map: SortedMap<u32> = serde_json::from_str(text).expect("read");
        let tree: BTreeMap<String, u32> = serde_json::from_str(text).expect("read");
        assert_eq!(
            map.iter().collect::<Vec<_>>(),
            tree.iter().collect::<Vec<_>>()
        );
        assert_eq!(map.get("a"), Some(&4));
        assert_eq!(map.get("c"), Some(&3));
        assert_eq!(map.get("d"), None);
        assert_eq!(map.iter().count(), 3);
        assert_eq!(SortedMap::<u32>::default().iter().count(), 0);
    }
}
