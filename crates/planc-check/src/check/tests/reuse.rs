//! A check that reuses the previous check of an edited text
//! (`check_plans_again`, `plan/reuse.rs`) gives the models and diagnostics
//! of a whole check: random edits of the repository's checker fixtures,
//! each checked both ways and compared whole (spans, binding uses and
//! dependencies included), chained so that reused models are reused again.

use std::sync::Arc;

use super::super::plan::{TEST_BUDGET, reuse::REUSED};
use super::super::{Models, Prior, check_plans, check_plans_again};
use crate::diagnostics::Diagnostic;
use crate::source::Edit;
use crate::source::{FileId, Span};
use crate::syntax::{self, ast};

/// The folder of the checker's fixtures, two folders above this crate's.
fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ui/check")
}

/// The fixtures' catalogue and policy, the policy with `extra` rules.
fn models_with(extra: &str) -> Models {
    let read = |name: &str| std::fs::read_to_string(fixtures().join(name)).unwrap_or_default();
    let tools = syntax::parse_text(FileId(1), &read("tools.plan")).0;
    let policy = read("policy.plan").replacen("\n}", &format!("\n{extra}}}"), 1);
    let policy = syntax::parse_text(FileId(2), &policy).0;
    Models::build(&[&tools], &[&policy], None).0
}

pub(super) fn models() -> Models {
    models_with("")
}

/// The fixtures' plan texts, and one long plan whose steps read each
/// other's bindings.
pub(super) fn texts() -> Vec<String> {
    let mut texts = Vec::new();
    for dir in ["ok", "err"] {
        let Ok(entries) = std::fs::read_dir(fixtures().join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|x| x == "plan")
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                texts.push(text);
            }
        }
    }
    let mut chain = String::from("plan chain \"c\" {\n");
    chain += "    step s0 = customer.resolve(email: \"a@b.c\") {\n        post len($.results) == 1\n        bind acct0 = $.results[0].id\n    }\n";
    for i in 1..40 {
        chain += &format!(
            "    step s{i} = customer.resolve(email: \"${{acct{}}}@x.y\") {{\n        post len($.results) == 1\n        bind acct{i} = $.results[0].id\n    }}\n",
            i - 1
        );
    }
    chain += "}\n";
    texts.push(chain);
    texts
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    " ",
    "\n",
    "x",
    "1",
    "_",
    "\"",
    "post len($.results) == 1\n",
    "after s1\n",
    "retry 2\n",
    "bind extra = $.results[0].id\n",
    "/// a doc\n",
    "${acct1}",
    "$.results[0].id",
];

/// One random edit of `text`: a name or number replaced by another of the
/// text's, a snippet inserted, or a few bytes deleted.
fn edit(text: &str, rng: &mut Rng) -> String {
    let bytes = text.as_bytes();
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let at = rng.below(bytes.len() + 1);
    match rng.below(3) {
        0 => {
            // Words of the text, as written.
            let words: Vec<&str> = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let Some(&other) = words.get(rng.below(words.len())) else {
                return text.to_string();
            };
            let mut start = at.min(bytes.len());
            while start > 0 && bytes.get(start - 1).is_some_and(word) {
                start -= 1;
            }
            let mut end = at.min(bytes.len());
            while bytes.get(end).is_some_and(word) {
                end += 1;
            }
            format!("{}{other}{}", &text[..start], &text[end..])
        }
        1 => {
            let s = SNIPPETS[rng.below(SNIPPETS.len())];
            let at = (0..=at)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}{s}{}", &text[..at], &text[at..])
        }
        _ => {
            let end = (at + 1 + rng.below(6)).min(bytes.len());
            if (at..=end).any(|i| !text.is_char_boundary(i)) {
                return text.to_string();
            }
            format!("{}{}", &text[..at], &text[end..])
        }
    }
}

const FILE: FileId = FileId(0);

fn parse(text: &str) -> (ast::Module, Vec<Span>) {
    let (module, diags) = syntax::parse_text(FILE, text);
    let errors = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.span)
        .collect();
    (module, errors)
}

fn errors_in(text: &str) -> bool {
    !parse(text).1.is_empty()
}

type Checked = (Vec<Diagnostic>, Vec<super::super::CheckedPlan>);

fn shown(c: &Checked) -> String {
    format!("{:#?}", c)
}

/// How many edits were checked, and of those from a clean text to a clean
/// text, how many steps were reused of how many.
#[derive(Default)]
struct Tally {
    edits: usize,
    reused: usize,
    steps: usize,
}

/// Edits `base` `rounds` times at random, each edit checked whole and
/// reusing the previous check, and compares the two.
fn compare_edits(
    models: &Arc<Models>,
    base: String,
    rounds: usize,
    rng: &mut Rng,
    tally: &mut Tally,
    edit: impl Fn(&str, &mut Rng) -> String,
) {
    let (module, errors) = parse(&base);
    let (_, mut plans, mut memo) = check_plans_again(models, &[&module], &errors, None);
    let mut text = base;
    let mut last_clean = text.clone();
    for _ in 0..rounds {
        // After an edit that broke the text, its undo: a check after
        // one with a syntax error.
        let new = if errors_in(&text) && rng.below(2) == 0 {
            last_clean.clone()
        } else {
            edit(&text, rng)
        };
        let (module, errors) = parse(&new);
        let whole: Checked = check_plans(models, &[&module], &errors, None);
        let prior = Prior::new(
            plans,
            memo,
            Arc::clone(models),
            Edit::between(FILE, &text, &new),
        );
        REUSED.set(0);
        let (d, p, m) = check_plans_again(models, &[&module], &errors, Some(prior));
        let again: Checked = (d, p);
        assert_eq!(
            shown(&again),
            shown(&whole),
            "the check reusing the previous one differs from a whole check\n--- before\n{text}\n--- after\n{new}"
        );
        tally.edits += 1;
        if errors.is_empty() && !errors_in(&text) {
            tally.steps += again.1.iter().map(|p| p.steps.len()).sum::<usize>();
            tally.reused += REUSED.get();
        }
        if errors.is_empty() {
            last_clean.clone_from(&new);
        }
        (plans, memo, text) = (again.1, m, new);
    }
}

#[test]
fn reusing_a_previous_check_gives_a_whole_check() {
    let models = Arc::new(models());
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    let mut tally = Tally::default();
    for base in texts() {
        // The long plan is edited longer: its steps are the ones reused.
        let rounds = if base.len() > 4000 { 200 } else { 16 };
        compare_edits(&models, base, rounds, &mut rng, &mut tally, edit);
    }
    // The test means something only if steps were reused: of the edits
    // from a clean text to a clean text, over a third of the steps (most
    // plans have one to three steps, and the edited one is checked afresh).
    let Tally {
        edits,
        reused,
        steps,
    } = tally;
    assert!(edits > 1000, "{edits} edits");
    assert!(reused * 3 > steps, "{reused} of {steps} steps reused");
}

/// A plan of `reads.len()` steps, step `i` reading binding `reads[i]`
/// (step 0 reads none). Every seventh step, from the fourth, calls a tool
/// the policy has no rule for (E0301, whose "did you mean" searches the
/// policy's rules after every step's model), and binds nothing.
fn chain_reading(reads: &[String]) -> String {
    let mut text = String::from("plan misspelt \"m\" {\n");
    for (i, read) in reads.iter().enumerate() {
        if i % 7 == 3 {
            text += &format!(
                "    step s{i} = customer.delete(account_id: \"${{{read}}}\") {{\n        post $.deleted == true\n    }}\n"
            );
            continue;
        }
        let email = if i == 0 {
            "a@b.c".to_string()
        } else {
            format!("${{{read}}}@x.y")
        };
        text += &format!(
            "    step s{i} = customer.resolve(email: \"{email}\") {{\n        post len($.results) == 1\n        bind acct{i} = $.results[0].id\n    }}\n"
        );
    }
    text + "}\n"
}

/// A plan whose misspelt references ask for more "did you mean" searches
/// than the budget allows: a reused step spends what it spent, and one the
/// budget no longer covers, or that went without a suggestion the budget
/// now allows, is checked afresh, as in a whole check.
#[test]
fn a_spent_suggestion_budget_runs_down_as_in_a_whole_check() {
    const STEPS: usize = 30;
    // A rule for a tool the catalogue does not have, one letter from
    // `customer.delete`, which has none: its E0301 suggests the rule.
    let models = Arc::new(models_with("    customer.delet requires [crm:write]\n"));
    // Each edit makes one step's reference right or (one time in ten)
    // misspelt; each misspelling searches the 30 bindings, each E0301 the
    // policy's 10 rules, and the budget covers two and two of them: as
    // misspellings come and go, it runs out before or after the policy's.
    let read = |i: usize, rng: &mut Rng| match rng.below(10) {
        0 => format!("acct{i}x"),
        // The binding of the step before, or of the one before that when
        // the step before binds nothing.
        _ => format!(
            "acct{}",
            if i % 7 == 4 {
                i - 2
            } else {
                i.saturating_sub(1)
            }
        ),
    };
    let mut rng = Rng(0xb0d9_e7b0_d9e7_0001);
    let reads: Vec<String> = (0..STEPS).map(|i| read(i, &mut rng)).collect();
    let base = chain_reading(&reads);
    let reads = std::cell::RefCell::new(reads);
    let mut tally = Tally::default();
    TEST_BUDGET.set(Some(2 * STEPS + 2 * 10));
    compare_edits(&models, base, 300, &mut rng, &mut tally, |_, rng| {
        let mut reads = reads.borrow_mut();
        let i = 1 + rng.below(STEPS - 1);
        if let Some(r) = reads.get_mut(i) {
            *r = read(i, rng);
        }
        chain_reading(&reads)
    });
    TEST_BUDGET.set(None);
    assert!(
        tally.reused > tally.steps / 2,
        "{} of {} steps reused",
        tally.reused,
        tally.steps
    );
}
