//! Short lists looked up by key: [`Few`], compared one by one while they
//! are few and through a map past [`FEW`] entries, so that no input makes
//! a lookup loop quadratic; and [`Seen`], the names of a list met so far,
//! to find one given twice (a step's arguments, a record's fields, a
//! type's fields or enum values).

use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::hash::Hash;

use crate::FastMap;
use crate::source::Span;

/// How many keys are compared one by one before a map pays.
pub const FEW: usize = 16;

/// Entries in the order they were added, found by key: one by one while
/// there are at most [`FEW`], through a map of keys to positions past it.
/// Most lists the checker reads are a handful of entries, for which the
/// map's hashing and allocation cost more than the comparisons.
pub struct Few<K, V> {
    entries: Vec<(K, V)>,
    index: Option<FastMap<K, usize>>,
}

impl<K: Copy + Eq + Hash, V> Few<K, V> {
    /// For about `len` entries: the map from the start when they are many.
    #[inline]
    pub fn with_capacity(len: usize) -> Few<K, V> {
        let index = if len > FEW {
            Some(FastMap::with_capacity_and_hasher(len, Default::default()))
        } else {
            None
        };
        Few {
            entries: Vec::with_capacity(len),
            index,
        }
    }

    /// The position of `key`.
    #[inline]
    pub fn position<Q>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k.borrow() == key),
        }
    }

    /// Whether the entries are found through the map, and [`Few::position`]
    /// hashes the key: a caller whose key must be built first (collected
    /// from an iterator) can compare the entries itself while it is not.
    #[inline]
    pub fn indexed(&self) -> bool {
        self.index.is_some()
    }

    /// Adds an entry (its key not yet present) and returns its position.
    #[inline]
    pub fn push(&mut self, key: K, value: V) -> usize {
        let at = self.entries.len();
        self.entries.push((key, value));
        match &mut self.index {
            Some(index) => {
                index.insert(key, at);
            }
            None if self.entries.len() > FEW => {
                self.index = Some(
                    self.entries
                        .iter()
                        .enumerate()
                        .map(|(i, (k, _))| (*k, i))
                        .collect(),
                );
            }
            None => {}
        }
        at
    }

    /// The value of `key` when it is present; else adds the entry and
    /// returns `None`. One lookup: the map's entry, or one pass over the
    /// list.
    #[inline]
    pub fn find_or_push(&mut self, key: K, value: V) -> Option<&V> {
        let found = match &mut self.index {
            Some(index) => match index.entry(key) {
                Entry::Occupied(e) => Some(*e.get()),
                Entry::Vacant(e) => {
                    e.insert(self.entries.len());
                    self.entries.push((key, value));
                    None
                }
            },
            None => match self.entries.iter().position(|(k, _)| *k == key) {
                Some(at) => Some(at),
                None => {
                    self.push(key, value);
                    None
                }
            },
        };
        found.and_then(|at| self.entries.get(at)).map(|(_, v)| v)
    }

    #[inline]
    pub fn entries(&self) -> &[(K, V)] {
        &self.entries
    }

    #[inline]
    pub fn value_mut(&mut self, at: usize) -> Option<&mut V> {
        self.entries.get_mut(at).map(|(_, v)| v)
    }
}

/// The names met so far, each with where it was first met.
pub struct Seen<'a>(Few<&'a str, Span>);

impl<'a> Seen<'a> {
    /// For a list of `len` names.
    #[inline]
    pub fn new(len: usize) -> Seen<'a> {
        Seen(Few::with_capacity(len))
    }

    /// Where `name` was met before; `None` the first time, when it is
    /// noted as met at `span`.
    #[inline]
    pub fn first(&mut self, name: &'a str, span: Span) -> Option<Span> {
        self.0.find_or_push(name, span).copied()
    }

    #[inline]
    pub fn contains(&self, name: &str) -> bool {
        self.0.position(name).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn a_name_met_again_gives_where_it_was_first_met() {
        for len in [3, FEW + 5] {
            let names: Vec<String> = (0..len).map(|i| format!("n{}", i % (len - 1))).collect();
            let mut seen = Seen::new(len);
            let at = |i: usize| Span::new(FileId(0), i, i + 1);
            for (i, n) in names.iter().enumerate() {
                let want = (i == len - 1).then(|| at(0));
                assert_eq!(seen.first(n, at(i)), want, "{len}: {n}");
            }
            assert!(seen.contains("n0") && !seen.contains("zz"));
        }
    }

    #[test]
    fn few_entries_are_found_in_order_and_many_through_the_map() {
        // Grown one by one past FEW, and sized for many at once: every
        // key found at its position either way, the map taken past FEW.
        for start in [0, FEW + 1] {
            let mut few: Few<u32, u32> = Few::with_capacity(start);
            for k in 0..40u32 {
                assert_eq!(few.position(&k), None);
                assert_eq!(few.push(k, k * 2), k as usize);
                assert_eq!(few.indexed(), start > FEW || few.entries().len() > FEW);
                for j in 0..=k {
                    assert_eq!(few.position(&j), Some(j as usize), "{k}: {j}");
                }
            }
            if let Some(v) = few.value_mut(3) {
                *v = 7;
            }
            assert_eq!(few.entries().get(3), Some(&(3, 7)));
        }
    }
}
