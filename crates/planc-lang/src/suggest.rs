//! "Did you mean" suggestions: the nearest names to a misspelt one, at a
//! cost bounded by work, not by the number or length of the names: a
//! name longer than [`MAX_NAME`] characters is compared only by its
//! folded spelling, a comparison costs a few word operations a character
//! of the candidate (the edit distance's table is kept as bit vectors, one
//! bit a character of the name), and one search stops after [`WORK`]
//! characters of candidates.

/// Names longer than this, in characters, get no edit-distance search: a
/// name a person misspells is short, and the table of a longer one would
/// not fit one machine word a column.
pub const MAX_NAME: usize = 64;

/// The most candidate characters one search compares, over all its
/// candidates: past it, the candidates not yet compared are left out.
pub const WORK: usize = 100_000;

/// The most edits a suggestion may be away.
const MAX_EDITS: usize = 8;

/// The edit distance (insertions, deletions, substitutions and swaps of two
/// adjacent characters, the "optimal string alignment" distance) between
/// `a` and `b`, or `None` when it exceeds `limit` or `a` is longer than
/// [`MAX_NAME`] characters.
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let d = Columns::of(&a)?.distance(&b);
    (d <= limit).then_some(d)
}

/// A name of at most [`MAX_NAME`] characters as bit vectors: for each
/// character, the positions of the name that hold it. The distance to
/// another name then runs Hyyrö's bit-parallel form of the edit-distance
/// table (Myers's algorithm, with Hyyrö's extension for adjacent swaps):
/// one column of the table a character of the other name, each column's
/// vertical differences kept as two words.
struct Columns {
    /// Positions of each ASCII character.
    ascii: [u64; 128],
    /// Positions of each other character, in order of first occurrence.
    other: Vec<(char, u64)>,
    len: usize,
}

impl Columns {
    /// `None` for a name longer than [`MAX_NAME`] characters.
    fn of(name: &[char]) -> Option<Columns> {
        if name.len() > MAX_NAME {
            return None;
        }
        let mut columns = Columns {
            ascii: [0; 128],
            other: Vec::new(),
            len: name.len(),
        };
        for (i, &c) in name.iter().enumerate() {
            let bit = 1u64 << i;
            match columns.ascii.get_mut(c as usize) {
                Some(mask) => *mask |= bit,
                None => match columns.other.iter_mut().find(|(o, _)| *o == c) {
                    Some((_, mask)) => *mask |= bit,
                    None => columns.other.push((c, bit)),
                },
            }
        }
        Some(columns)
    }

    fn positions(&self, c: char) -> u64 {
        match self.ascii.get(c as usize) {
            Some(&mask) => mask,
            None => self
                .other
                .iter()
                .find(|(o, _)| *o == c)
                .map_or(0, |&(_, mask)| mask),
        }
    }

    /// The distance from the name to `b`.
    fn distance(&self, b: &[char]) -> usize {
        let m = self.len;
        if m == 0 {
            return b.len();
        }
        let last = 1u64 << (m - 1);
        // Vertical differences of the current column: +1 (vp) and -1 (vn)
        // at each position; the first column is 0, 1, ..., m.
        let mut vp: u64 = u64::MAX >> (64 - m);
        let mut vn: u64 = 0;
        // The previous column's diagonal zeros and character positions,
        // for swaps.
        let (mut d0, mut before) = (0u64, 0u64);
        let mut dist = m;
        for &c in b {
            let here = self.positions(c);
            let swap = (((!d0) & here) << 1) & before;
            d0 = (((here & vp).wrapping_add(vp)) ^ vp) | here | vn | swap;
            let hp = vn | !(d0 | vp);
            let hn = d0 & vp;
            if hp & last != 0 {
                dist += 1;
            } else if hn & last != 0 {
                dist = dist.saturating_sub(1);
            }
            let hp = (hp << 1) | 1;
            let hn = hn << 1;
            vp = hn | !(d0 | hp);
            vn = hp & d0;
            before = here;
        }
        dist
    }
}

/// The candidates nearest to `name`, best first: those within a third of the
/// name's length (at least one edit, at most eight), or that differ only in
/// case or in `.` versus `_`. At most three.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let chars: Vec<char> = name.chars().collect();
    let limit = (chars.len() / 3).clamp(1, MAX_EDITS);
    let columns = Columns::of(&chars);
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
        let Some(columns) = &columns else {
            continue;
        };
        if work >= WORK {
            continue;
        }
        other.clear();
        other.extend(c.chars().take(MAX_NAME + 1));
        if other.len() > MAX_NAME || other.len().abs_diff(chars.len()) > limit {
            continue;
        }
        work += other.len().max(1);
        let d = columns.distance(&other);
        if d <= limit {
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

    /// The whole table, as the textbook fills it.
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

    #[test]
    fn the_bit_vectors_find_what_the_full_table_finds() {
        // Every pair of short words over a small alphabet (one character
        // past ASCII), and long words to the 64th character: the same
        // distance as the whole table.
        let alphabet = ['a', 'b', 'c', 'é'];
        let mut words: Vec<Vec<char>> = (0..600u32)
            .map(|n| {
                let len = (n % 7) as usize;
                (0..len as u32)
                    .map(|k| alphabet[((n / 7 + k * 5 + k * k) % 4) as usize])
                    .collect()
            })
            .collect();
        for len in [31u32, 63, 64] {
            for shift in 0..3u32 {
                words.push(
                    (0..len)
                        .map(|k| alphabet[((k * 7 + shift * k / 3) % 4) as usize])
                        .collect(),
                );
            }
        }
        for a in &words {
            let columns = Columns::of(a).unwrap();
            for b in words.iter().step_by(3) {
                assert_eq!(columns.distance(b), full(a, b), "{a:?} {b:?}");
            }
        }
        assert!(Columns::of(&['x'; 65]).is_none());
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
        // Short names: a search stops after WORK characters. A near name
        // after that many characters of far ones is not compared; before
        // them, it is found.
        let far: Vec<String> = (0..WORK / 11 + 1).map(|k| format!("zz_{k:08}")).collect();
        let near = "tool_x00002";
        let after: Vec<&str> = far.iter().map(String::as_str).chain([near]).collect();
        assert!(nearest("tool_x00001", after.iter().copied()).is_empty());
        let before: Vec<&str> = [near]
            .into_iter()
            .chain(far.iter().map(String::as_str))
            .collect();
        assert_eq!(nearest("tool_x00001", before.iter().copied()), vec![near]);
    }
}
