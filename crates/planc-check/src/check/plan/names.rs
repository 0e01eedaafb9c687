//! The checker's indexes of names: the steps' and the bindings'.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use planc_lang::FastState;

/// The positions of a list of names by name: a hash table of positions,
/// each name hashed and compared where it is (each call is given `name`,
/// the name at a position). About 8 bytes a name, where a hash map from a
/// copy of each name took about 85 (8.5 MB at 100,000 steps;
/// `docs/performance.md`, "Where the memory goes"). Seeded per process,
/// as [`planc_lang::FastMap`] is: a plan cannot aim collisions at it.
#[derive(Default)]
pub(super) struct NameIndex {
    table: HashTable<usize>,
    state: FastState,
}

impl NameIndex {
    /// The index of positions `0..n`, each name at its first position; and
    /// each later position of a name with its first, in ascending order.
    pub(super) fn new<'n>(
        n: usize,
        name: impl Fn(usize) -> &'n str,
    ) -> (NameIndex, Vec<(usize, usize)>) {
        let state = FastState::default();
        let mut table = HashTable::with_capacity(n);
        let mut repeats = Vec::new();
        let rehash = |&p: &usize| state.hash_one(name(p));
        for p in 0..n {
            let here = name(p);
            match table.entry(state.hash_one(here), |&q| name(q) == here, rehash) {
                Entry::Occupied(first) => repeats.push((p, *first.get())),
                Entry::Vacant(slot) => {
                    slot.insert(p);
                }
            }
        }
        (NameIndex { table, state }, repeats)
    }

    /// The first position named `key`.
    pub(super) fn first<'n>(&self, key: &str, name: impl Fn(usize) -> &'n str) -> Option<usize> {
        self.table
            .find(self.state.hash_one(key), |&p| name(p) == key)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::NameIndex;

    #[test]
    fn finds_the_first_of_each_name_and_every_repeat() {
        let names = ["b", "a", "b", "c", "a", "b"];
        let name = |p: usize| names.get(p).copied().unwrap_or("");
        let (index, repeats) = NameIndex::new(names.len(), name);
        assert_eq!(index.first("a", name), Some(1));
        assert_eq!(index.first("b", name), Some(0));
        assert_eq!(index.first("c", name), Some(3));
        assert_eq!(index.first("d", name), None);
        assert_eq!(index.first("", name), None);
        assert_eq!(repeats, vec![(2, 0), (4, 1), (5, 0)]);
        let empty = NameIndex::default();
        assert_eq!(empty.first("a", name), None);
    }
}
