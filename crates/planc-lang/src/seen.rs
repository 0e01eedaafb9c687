//! [`Seen`]: the names of a list met so far, to find one given twice (a
//! step's arguments, a record's fields, a type's fields or enum values).

use crate::FastMap;
use crate::source::Span;

/// How many names are compared one by one before a map pays.
const FEW: usize = 16;

/// The names met so far, each with where it was first met. Such lists are
/// short: their names are compared with the earlier ones, and only a list
/// of more than [`FEW`] goes through a map.
pub struct Seen<'a> {
    few: Vec<(&'a str, Span)>,
    many: Option<FastMap<&'a str, Span>>,
}

impl<'a> Seen<'a> {
    /// For a list of `len` names.
    pub fn new(len: usize) -> Seen<'a> {
        if len > FEW {
            Seen {
                few: Vec::new(),
                many: Some(FastMap::with_capacity_and_hasher(len, Default::default())),
            }
        } else {
            Seen {
                few: Vec::with_capacity(len),
                many: None,
            }
        }
    }

    /// Where `name` was met before; `None` the first time, when it is
    /// noted as met at `span`.
    pub fn first(&mut self, name: &'a str, span: Span) -> Option<Span> {
        if let Some(map) = &mut self.many {
            if let Some(&first) = map.get(name) {
                return Some(first);
            }
            map.insert(name, span);
            return None;
        }
        if let Some(&(_, first)) = self.few.iter().find(|(n, _)| *n == name) {
            return Some(first);
        }
        self.few.push((name, span));
        None
    }

    pub fn contains(&self, name: &str) -> bool {
        match &self.many {
            Some(map) => map.contains_key(name),
            None => self.few.iter().any(|(n, _)| *n == name),
        }
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
}
