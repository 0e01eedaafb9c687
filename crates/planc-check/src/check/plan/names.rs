//! The checker's indexes of names: the steps' and the bindings'.

/// The positions of a list of names, sorted by name and then position,
/// looked up by binary search: a word a name, where a hash map from a copy
/// of each name took about 85 bytes (8.5 MB at 100,000 steps;
/// `docs/performance.md`, "Where the memory goes"). The names stay where
/// they are: each call is given `name`, the name at a position.
#[derive(Default)]
pub(super) struct NameIndex(Vec<usize>);

impl NameIndex {
    /// The index of positions `0..n`.
    pub(super) fn new<'n>(n: usize, name: impl Fn(usize) -> &'n str) -> NameIndex {
        let mut order: Vec<usize> = (0..n).collect();
        // The position breaks ties: no two keys are equal.
        order.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        NameIndex(order)
    }

    /// The first position named `key`.
    pub(super) fn first<'n>(&self, key: &str, name: impl Fn(usize) -> &'n str) -> Option<usize> {
        let at = self.0.partition_point(|&p| name(p) < key);
        self.0.get(at).copied().filter(|&p| name(p) == key)
    }

    /// Each position whose name an earlier position has, with the first
    /// position of that name, in ascending order of the repeat.
    pub(super) fn repeats<'n>(&self, name: impl Fn(usize) -> &'n str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut run: Option<(usize, &str)> = None;
        for &p in &self.0 {
            let here = name(p);
            match run {
                Some((first, n)) if n == here => out.push((p, first)),
                _ => run = Some((p, here)),
            }
        }
        out.sort_unstable();
        out
    }

    /// The first position of each name, in ascending order.
    pub(super) fn firsts<'n>(&self, name: impl Fn(usize) -> &'n str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut last: Option<&str> = None;
        for &p in &self.0 {
            let here = name(p);
            if last != Some(here) {
                out.push(p);
                last = Some(here);
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::NameIndex;

    #[test]
    fn finds_the_first_of_each_name_and_every_repeat() {
        let names = ["b", "a", "b", "c", "a", "b"];
        let name = |p: usize| names.get(p).copied().unwrap_or("");
        let index = NameIndex::new(names.len(), name);
        assert_eq!(index.first("a", name), Some(1));
        assert_eq!(index.first("b", name), Some(0));
        assert_eq!(index.first("c", name), Some(3));
        assert_eq!(index.first("d", name), None);
        assert_eq!(index.first("", name), None);
        assert_eq!(index.repeats(name), vec![(2, 0), (4, 1), (5, 0)]);
        assert_eq!(index.firsts(name), vec![0, 1, 3]);
        let empty = NameIndex::default();
        assert_eq!(empty.first("a", name), None);
        assert!(empty.repeats(name).is_empty());
    }
}
