//! "Did you mean" suggestions: the nearest names to a misspelt one, at a
//! cost bounded by work, not by the number or length of the names: a
//! name longer than [`MAX_NAME`] characters is compared only by its
//! folded spelling, the edit distance runs in a band as wide as the edits
//! it may find, and one search stops after [`WORK`] cells of it.

/// Names longer than this, in characters, get no edit-distance search: a
/// name a person misspells is short, and a long one costs the square of
/// its length.
pub const MAX_NAME: usize = 64;

/// The most cells of the edit-distance table one search fills, over all
/// its candidates: past it, the candidates not yet compared are left out.
pub const WORK: usize = 100_000;

/// The most edits a suggestion may be away.
const MAX_EDITS: usize = 8;

/// The edit distance (insertions, deletions, substitutions and swaps of two
/// adjacent characters) between `a` and `b`, or `None` when it exceeds
/// `limit`. Only the cells within `limit` of the diagonal are filled:
/// O((len(a) + len(b)) * limit) time, O(len(b)) space.
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    Rows::default().banded(&a, &b, limit).0
}

/// The three rows of the edit-distance band, kept from one candidate to the
/// next: a search over a thousand names allocates them once.
#[derive(Default)]
struct Rows {
    /// Two rows back (for swaps), the previous row, the current one.
    back2: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Rows {
    /// [`distance`] over characters, with the number of cells it filled.
    fn banded(&mut self, a: &[char], b: &[char], limit: usize) -> (Option<usize>, usize) {
        if a.len().abs_diff(b.len()) > limit {
            return (None, 0);
        }
        let far = usize::MAX / 2;
        let Rows { back2, prev, cur } = self;
        back2.clear();
        back2.resize(b.len() + 1, far);
        prev.clear();
        prev.extend((0..=b.len()).map(|j| if j <= limit { j } else { far }));
        cur.clear();
        cur.resize(b.len() + 1, far);
        let mut cells = 0;
        for i in 1..=a.len() {
            let lo = i.saturating_sub(limit).max(1);
            let hi = (i + limit).min(b.len());
            cur.fill(far);
            if let Some(c) = cur.first_mut() {
                *c = if i <= limit { i } else { far };
            }
            let mut row_min = cur.first().copied().unwrap_or(far);
            for j in lo..=hi {
                cells += 1;
                let ca = a.get(i - 1).copied();
                let cb = b.get(j - 1).copied();
                let cost = usize::from(ca != cb);
                let del = prev.get(j).copied().unwrap_or(far).saturating_add(1);
                let ins = cur.get(j - 1).copied().unwrap_or(far).saturating_add(1);
                let sub = prev.get(j - 1).copied().unwrap_or(far).saturating_add(cost);
                let mut best = del.min(ins).min(sub);
                if i > 1 && j > 1 && ca == b.get(j - 2).copied() && a.get(i - 2).copied() == cb {
                    best = best.min(back2.get(j - 2).copied().unwrap_or(far).saturating_add(1));
                }
                if let Some(c) = cur.get_mut(j) {
                    *c = best;
                }
                row_min = row_min.min(best);
            }
            if row_min > limit {
                return (None, cells);
            }
            std::mem::swap(back2, prev);
            std::mem::swap(prev, cur);
        }
        (prev.get(b.len()).copied().filter(|&d| d <= limit), cells)
    }
}

/// How many times each ASCII character occurs in a name, for a lower bound
/// of its distance to another that costs one pass over the other: an edit
/// changes by at most one how many characters either name has that the
/// other lacks (a swap by none), so the distance is at least the larger of
/// those two counts.
struct Counts([u16; 128]);

impl Counts {
    /// `None` for a name with a character past ASCII (no bound is taken).
    fn of(name: &[char]) -> Option<Counts> {
        let mut counts = [0u16; 128];
        for &c in name {
            let slot = counts.get_mut(c as usize)?;
            *slot = slot.saturating_add(1);
        }
        Some(Counts(counts))
    }

    /// Whether `other` lies more than `limit` edits from the counted name
    /// (`len` characters) by the characters' counts alone.
    fn beyond(&self, len: usize, other: &[char], limit: usize) -> bool {
        let mut left = self.0;
        let mut shared = 0;
        for &c in other {
            if let Some(n) = left.get_mut(c as usize).filter(|n| **n > 0) {
                *n -= 1;
                shared += 1;
            }
        }
        len.max(other.len()) - shared > limit
    }
}

/// The candidates nearest to `name`, best first: those within a third of the
/// name's length (at least one edit, at most eight), or that differ only in
/// case or in `.` versus `_`. At most three.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let chars: Vec<char> = name.chars().collect();
    let limit = (chars.len() / 3).clamp(1, MAX_EDITS);
    let searched = chars.len() <= MAX_NAME;
    let counts = Counts::of(&chars);
    let mut rows = Rows::default();
    let mut other: Vec<char> = Vec::new();
    let mut work = 0;
    let mut found: Vec<(usize, &'a str)> = Vec::new();
    for c in candidates {
        if c == name {
            continue;
        }
        if same_folded(name, c) {
            found.push((0, c));
            continue;
        }
        if !searched || work >= WORK {
            continue;
        }
        other.clear();
        other.extend(c.chars().take(MAX_NAME + 1));
        if other.len() > MAX_NAME || other.len().abs_diff(chars.len()) > limit {
            continue;
        }
        // The bound costs a pass over the candidate, charged as its cells.
        if counts
            .as_ref()
            .is_some_and(|k| k.beyond(chars.len(), &other, limit))
        {
            work += other.len();
            continue;
        }
        let (d, cells) = rows.banded(&chars, &other, limit);
        work += cells;
        if let Some(d) = d {
            found.push((d, c));
        }
    }
    found.sort();
    found.dedup();
    found.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Whether two names are spelt alike but for case and `.`, `-` against
/// `_`.
fn same_folded(a: &str, b: &str) -> bool {
    let fold = |c: char| {
        if c == '.' || c == '-' {
            '_'
        } else {
            c.to_ascii_lowercase()
        }
    };
    a.len() == b.len() && a.chars().map(fold).eq(b.chars().map(fold))
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
        assert_eq!(distance("abcdef", "abcdef", 0), Some(0));
        assert_eq!(distance("abcdef", "abcdxf", 1), Some(1));
    }

    #[test]
    fn the_band_finds_what_the_full_table_finds() {
        // Every pair of short words over a small alphabet: the banded
        // distance within a limit agrees with the full table.
        fn full(a: &[char], b: &[char]) -> usize {
            let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for (i, row) in d.iter_mut().enumerate() {
                row[0] = i;
            }
            for (j, cell) in d[0].iter_mut().enumerate() {
                *cell = j;
            }
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    let mut best = (d[i - 1][j] + 1)
                        .min(d[i][j - 1] + 1)
                        .min(d[i - 1][j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        best = best.min(d[i - 2][j - 2] + 1);
                    }
                    d[i][j] = best;
                }
            }
            d[a.len()][b.len()]
        }
        let words: Vec<String> = (0..400u32)
            .map(|n| {
                let len = (n % 6) as usize;
                (0..len)
                    .map(|k| ['a', 'b', 'c'][((n / 6 + k as u32 * 7) % 3) as usize])
                    .collect()
            })
            .collect();
        for a in &words {
            for b in words.iter().step_by(7) {
                let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let want = full(&ac, &bc);
                for limit in 0..4 {
                    let got = distance(a, b, limit);
                    assert_eq!(got, (want <= limit).then_some(want), "{a} {b} {limit}");
                }
            }
        }
    }

    #[test]
    fn the_count_bound_never_turns_away_a_near_name() {
        // Every pair of short words over a small alphabet: when the
        // characters' counts put a word beyond the limit, so does the band.
        let words: Vec<Vec<char>> = (0..300u32)
            .map(|n| {
                let len = (n % 7) as usize;
                (0..len)
                    .map(|k| ['a', 'b', 'c', 'd'][((n / 7 + k as u32 * 5) % 4) as usize])
                    .collect()
            })
            .collect();
        let (mut rows, mut turned) = (Rows::default(), 0);
        for a in &words {
            let counts = Counts::of(a).unwrap();
            for b in &words {
                for limit in 0..4 {
                    if counts.beyond(a.len(), b, limit) {
                        turned += 1;
                        assert_eq!(rows.banded(a, b, limit).0, None, "{a:?} {b:?} {limit}");
                    }
                }
            }
        }
        assert!(turned > 10_000, "the bound turns words away: {turned}");
        // Past ASCII, no bound is taken.
        assert!(Counts::of(&['a', 'é']).is_none());
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

    #[test]
    fn long_names_and_many_candidates_cost_bounded_work() {
        // A name of 10,000 characters against a thousand near misses: no
        // table is filled for it, and the folded spelling still matches.
        let long = "a".repeat(10_000);
        let near: Vec<String> = (0..1000)
            .map(|k| format!("{}{k}", "a".repeat(9_990)))
            .collect();
        let mut all: Vec<&str> = near.iter().map(String::as_str).collect();
        let upper = long.to_uppercase();
        all.push(&upper);
        assert_eq!(nearest(&long, all.iter().copied()), vec![upper.as_str()]);
        // Short names: a search stops after WORK cells.
        let many: Vec<String> = (0..100_000).map(|k| format!("tool_{k:06}")).collect();
        let (mut cells, mut compared) = (0, 0);
        let name: Vec<char> = "tool_x00001".chars().collect();
        let mut rows = Rows::default();
        for c in &many {
            if cells >= WORK {
                break;
            }
            let c: Vec<char> = c.chars().collect();
            cells += rows.banded(&name, &c, 3).1;
            compared += 1;
        }
        assert!(compared < many.len(), "the budget stops the search");
        assert!(!nearest("tool_x00001", many.iter().map(String::as_str)).is_empty());
    }
}
