//! [`Map`]: the IR's maps (a step's arguments and binds, a record's
//! fields), a vector of entries sorted by key.
//!
//! A `BTreeMap` allocates a node of room for eleven entries for even one
//! (about a kilobyte for an argument map), and most of these maps hold one
//! to four: the vector holds what it holds. It serialises, deserialises and
//! describes itself (JSON Schema) exactly as a `BTreeMap<Str, V>` does, so
//! the IR's text and schema are the same.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Str;

/// Entries in key order, each key once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map<V>(Vec<(Str, V)>);

impl<V> Default for Map<V> {
    fn default() -> Self {
        Map(Vec::new())
    }
}

impl<V> Map<V> {
    pub fn new() -> Self {
        Map::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        Map(Vec::with_capacity(n))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        let i = self.find(key).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: Str, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => self.0.get_mut(i).map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    /// Takes `key` out, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let i = self.find(key).ok()?;
        (i < self.0.len()).then(|| self.0.remove(i).1)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Str, &V)> + DoubleEndedIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Str> + DoubleEndedIterator {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl ExactSizeIterator<Item = &V> + DoubleEndedIterator {
        self.0.iter().map(|(_, v)| v)
    }
}

/// Collects entries in any order; of two with one key, the later stays
/// (as `BTreeMap::from_iter` keeps it).
impl<V> FromIterator<(Str, V)> for Map<V> {
    fn from_iter<I: IntoIterator<Item = (Str, V)>>(iter: I) -> Self {
        let mut entries: Vec<(Str, V)> = iter.into_iter().collect();
        if entries.is_sorted_by(|a, b| a.0 < b.0) {
            return Map(entries);
        }
        // Stable: of equal keys the later stays last, and is kept below.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Str, V)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        Map(out)
    }
}

impl<V> From<BTreeMap<Str, V>> for Map<V> {
    fn from(map: BTreeMap<Str, V>) -> Self {
        Map(map.into_iter().collect())
    }
}

impl<V> IntoIterator for Map<V> {
    type Item = (Str, V);
    type IntoIter = std::vec::IntoIter<(Str, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a Map<V> {
    type Item = (&'a Str, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Str, V)>, fn(&(Str, V)) -> (&Str, &V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl<V: Serialize> Serialize for Map<V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// Read as a `BTreeMap` is (of a key given twice, the later value).
impl<'de, V: Deserialize<'de>> Deserialize<'de> for Map<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::<Str, V>::deserialize(d).map(Map::from)
    }
}

/// The schema of a `BTreeMap<Str, V>`: the same object of `V`s.
impl<V: JsonSchema> JsonSchema for Map<V> {
    fn inline_schema() -> bool {
        <BTreeMap<Str, V>>::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <BTreeMap<Str, V>>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <BTreeMap<Str, V>>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <BTreeMap<Str, V>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_is_a_btreemap_to_its_readers() {
        let pairs = [("b", 2), ("a", 1), ("c", 3), ("a", 4)];
        let map: Map<i32> = pairs.iter().map(|&(k, v)| (Str::new(k), v)).collect();
        let tree: BTreeMap<Str, i32> = pairs.iter().map(|&(k, v)| (Str::new(k), v)).collect();
        assert_eq!(
            serde_json::to_string(&map).ok(),
            serde_json::to_string(&tree).ok()
        );
        assert_eq!(map.get("a"), Some(&4));
        assert_eq!(map.get("z"), None);
        let back: Option<Map<i32>> = serde_json::from_str(r#"{"z": 1, "y": 2, "z": 3}"#).ok();
        assert_eq!(
            back.map(|m| m.into_iter().collect::<Vec<_>>()),
            Some(vec![(Str::new("y"), 2), (Str::new("z"), 3)])
        );
        let mut m = Map::new();
        assert_eq!(m.insert(Str::new("q"), 1), None);
        assert_eq!(m.insert(Str::new("p"), 2), None);
        assert_eq!(m.insert(Str::new("q"), 3), Some(1));
        assert_eq!(m.keys().map(Str::as_str).collect::<Vec<_>>(), ["p", "q"]);
        assert_eq!(m.remove("p"), Some(2));
        assert_eq!(m.remove("p"), None);
        assert_eq!(m.len(), 1);
        assert_eq!(
            serde_json::to_value(schemars::schema_for!(Map<i32>)).ok(),
            serde_json::to_value(schemars::schema_for!(BTreeMap<Str, i32>)).ok()
        );
    }
}
