//! "Did you mean" suggestions: the nearest names to a misspelt one.

/// The edit distance (insertions, deletions, substitutions and swaps of two
/// adjacent characters) between `a` and `b`, or `None` when it exceeds
/// `limit`. Runs in O(len(a) * len(b)) time and O(len(b)) space.
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // Three rows: two back (for swaps), previous, current.
    let mut back2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        if let Some(c) = cur.first_mut() {
            *c = i;
        }
        let mut row_min = i;
        for j in 1..=b.len() {
            let ca = a.get(i - 1).copied();
            let cb = b.get(j - 1).copied();
            let cost = usize::from(ca != cb);
            let del = prev.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            let ins = cur
                .get(j - 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let sub = prev
                .get(j - 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(cost);
            let mut best = del.min(ins).min(sub);
            if i > 1 && j > 1 && ca == b.get(j - 2).copied() && a.get(i - 2).copied() == cb {
                best = best.min(
                    back2
                        .get(j - 2)
                        .copied()
                        .unwrap_or(usize::MAX)
                        .saturating_add(1),
                );
            }
            if let Some(c) = cur.get_mut(j) {
                *c = best;
            }
            row_min = row_min.min(best);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut back2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(b.len()).copied().filter(|&d| d <= limit)
}

/// The candidates nearest to `name`, best first: those within a third of the
/// name's length (at least one edit), or that differ only in case or in `.`
/// versus `_`. At most three.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let folded = fold(name);
    let mut found: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter(|c| *c != name)
        .filter_map(|c| {
            if fold(c) == folded {
                return Some((0, c));
            }
            distance(name, c, limit).map(|d| (d, c))
        })
        .collect();
    found.sort();
    found.dedup();
    found.into_iter().take(3).map(|(_, c)| c).collect()
}

fn fold(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '.' || c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// "did you mean `a`?" or "did you mean `a` or `b`?", or `None`.
pub fn did_you_mean(names: &[&str]) -> Option<String> {
    match names {
        [] => None,
        [one] => Some(format!("did you mean `{one}`?")),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|n| format!("`{n}`")).collect();
            Some(format!("did you mean {} or `{last}`?", init.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting", 5), Some(3));
        assert_eq!(distance("abc", "acb", 2), Some(1));
        assert_eq!(distance("", "ab", 2), Some(2));
        assert_eq!(distance("abcdef", "uvwxyz", 2), None);
    }

    #[test]
    fn nearest_names() {
        let tools = [
            "billing.issue_credit",
            "billing.change_plan",
            "customer.resolve",
        ];
        assert_eq!(
            nearest("billing.isue_credit", tools),
            vec!["billing.issue_credit"]
        );
        assert_eq!(
            nearest("Billing_Issue_Credit", tools),
            vec!["billing.issue_credit"]
        );
        assert!(nearest("email.send", tools).is_empty());
        assert_eq!(
            did_you_mean(&["a", "b", "c"]).as_deref(),
            Some("did you mean `a`, `b` or `c`?")
        );
    }
}
