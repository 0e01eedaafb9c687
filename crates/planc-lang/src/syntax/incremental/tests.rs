//! The incremental re-reading against a whole parse: every edit it takes
//! must give the tree (spans included) a whole parse of the new text
//! gives, and that parse must have no diagnostic.

use super::*;
use crate::syntax::parse_text;
use crate::syntax::test_texts::{Rng, SNIPPETS, plan_files};

const FILE: FileId = FileId(3);

fn tree(m: &ast::Module) -> String {
    format!("{m:?}")
}

/// Applies `new` after `old` both ways; `true` when the re-reading took
/// the edit (and then agreed with the whole parse).
fn agree(old: &str, new: &str) -> bool {
    let (mut module, diags) = parse_text(FILE, old);
    assert!(diags.is_empty(), "the old text must parse clean: {diags:?}");
    let before = tree(&module);
    let took = reparse(FILE, &mut module, old, new);
    if !took {
        assert_eq!(tree(&module), before, "a refused edit changed the tree");
        return false;
    }
    let (whole, whole_diags) = parse_text(FILE, new);
    assert!(
        whole_diags.is_empty(),
        "taken, but the whole parse has diagnostics: {whole_diags:?}\n{new}"
    );
    assert_eq!(tree(&module), tree(&whole), "old:\n{old}\nnew:\n{new}");
    true
}

const PLAN: &str = r#"plan p "goal" {
    replans 2
    /// Finds the customer.
    step find = customer.resolve(email: "a@b.c") {
        post len($.results) == 1
        bind acct = $.results[0].id
    }
    step sub = billing.get_subscription(account_id: acct, as_of: 2026-03-04) {
        post $.plan in ["pro", "team"]
        retry 2
    }
    step note = crm.note(text: "renews ${acct} on ${sub}", tags: ["a", "b"], meta: {k: 1, j: [1, 2]}) {
        pre acct.id != "x"
        after find, sub
        on_unmet halt
    }
    max_steps 9
}
"#;

#[test]
fn an_edit_inside_a_step_is_read_alone() {
    // Same length, longer, shorter; in the step after, the spans move.
    assert!(agree(PLAN, &PLAN.replacen("a@b.c", "a@b.d", 1)));
    assert!(agree(
        PLAN,
        &PLAN.replacen("a@b.c", "someone@example.com", 1)
    ));
    assert!(agree(PLAN, &PLAN.replacen("a@b.c", "a", 1)));
    assert!(agree(
        PLAN,
        &PLAN.replacen("retry 2", "retry 3\n        on_unmet replan", 1)
    ));
    assert!(agree(PLAN, &PLAN.replacen("Finds the", "Looks up the", 1)));
    assert!(agree(
        PLAN,
        &PLAN.replacen("{k: 1, j: [1, 2]}", "{k: [[{x: 1}]]}", 1)
    ));
    // A comment that ends before the step's closing brace does.
    assert!(agree(PLAN, &PLAN.replacen("retry 2", "retry 2 // }", 1)));
    // The last step, before `max_steps`, which moves.
    assert!(agree(
        PLAN,
        &PLAN.replacen("on_unmet halt", "on_unmet escalate", 1)
    ));
}

#[test]
fn an_edit_it_cannot_read_alone_is_left_to_a_whole_parse() {
    for (from, to) in [
        // Between steps, in the header, at a step's first or last byte.
        ("    }\n    step sub", "    }\n\n    step sub"),
        ("\"goal\"", "\"a goal\""),
        ("step find", "stepp find"),
        ("id\n    }\n    step sub", "id\n    }}\n    step sub"),
        // A string or a comment left open, a bracket too many.
        ("\"a@b.c\"", "\"a@b.c"),
        ("id\n    }\n    step sub", "id\n    //}\n    step sub"),
        ("as_of: 2026", "as_of: (2026"),
        // A syntax error inside the step.
        ("post len($.results) == 1", "post len($.results) = 1"),
        // Not a step any more, or two.
        (
            "    }\n    step sub",
            "    }\n    step x = a.b()\n    step sub",
        ),
    ] {
        let new = PLAN.replacen(from, to, 1);
        assert_ne!(new, PLAN, "{from}");
        assert!(!agree(PLAN, &new), "{from} -> {to}");
    }
}

#[test]
fn nesting_at_the_limit_is_left_to_the_lexer() {
    // The plan's brace, the call's parenthesis and these: one below the
    // limit.
    let open = "[".repeat(limits::MAX_DEPTH - 3);
    let close = "]".repeat(limits::MAX_DEPTH - 3);
    let old = format!("plan p {{\n    step a = t.x(v: {open}1{close})\n}}\n");
    // One bracket deeper is still within the limit inside the plan's braces…
    let new = old.replacen("v: [", "v: [[", 1).replacen("1]", "1]]", 1);
    assert!(agree(&old, &new));
    // …and one more is the lexer's E0003.
    let deeper = new.replacen("v: [", "v: [[", 1).replacen("1]", "1]]", 1);
    assert!(!agree(&new, &deeper));
    assert!(!parse_text(FILE, &deeper).1.is_empty());
}

/// The plans of the repository's examples and fixtures that parse clean
/// and end with a plan, and [`PLAN`].
fn seeds() -> Vec<String> {
    let mut texts = vec![PLAN.to_string()];
    texts.extend(plan_files().into_iter().filter(|text| {
        let (m, diags) = parse_text(FILE, text);
        diags.is_empty() && matches!(m.items.last(), Some(Item::Plan(p)) if !p.steps.is_empty())
    }));
    texts
}

/// Random edits, most inside a step, chained: each text is edited again.
/// Every edit taken agrees with a whole parse; both paths are exercised.
#[test]
fn random_edits_agree_with_a_whole_parse() {
    let seeds = seeds();
    assert!(seeds.len() > 10, "{} seed plans", seeds.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut taken, mut refused) = (0usize, 0usize);
    for seed in &seeds {
        let mut text = seed.clone();
        for _ in 0..25 {
            let (module, diags) = parse_text(FILE, &text);
            if !diags.is_empty() {
                // Edits after a syntax error are always whole parses.
                text = seed.clone();
                continue;
            }
            // Mostly inside a step, sometimes anywhere.
            let steps: Vec<Span> = module
                .plans()
                .flat_map(|p| p.steps.iter().map(|s| s.span))
                .collect();
            let at = match steps.get(rng.below(steps.len())) {
                Some(s) if rng.below(5) > 0 => {
                    s.start as usize + rng.below((s.end - s.start) as usize)
                }
                _ => rng.below(text.len() + 1),
            };
            let cut = at + rng.below(6);
            let (Some(head), Some(tail)) = (text.get(..at), text.get(cut.min(text.len())..)) else {
                continue;
            };
            let new = format!("{head}{}{tail}", SNIPPETS[rng.below(SNIPPETS.len())]);
            if agree(&text, &new) {
                taken += 1;
            } else {
                refused += 1;
            }
            if parse_text(FILE, &new).1.is_empty() {
                text = new;
            }
        }
    }
    assert!(
        taken > 300 && refused > 300,
        "taken {taken}, refused {refused}"
    );
}

/// An edit that cannot be the one between the two texts (past either
/// text's end, or leaving suffixes of different lengths) is refused, the
/// tree untouched, rather than read out of range.
#[test]
fn an_edit_that_does_not_fit_the_texts_is_refused() {
    let new = PLAN.replacen("a@b.c", "x@y.z", 1);
    let (mut module, _) = parse_text(FILE, PLAN);
    let before = tree(&module);
    let fits = Edit::between(FILE, PLAN, &new);
    let wrong = [
        Edit {
            old_end: PLAN.len() + 1,
            ..fits
        },
        Edit {
            new_end: new.len() + 1,
            ..fits
        },
        Edit {
            new_end: fits.new_end + 1,
            ..fits
        },
    ];
    for edit in wrong {
        assert!(!reparse_edited(&mut module, PLAN, &new, &edit), "{edit:?}");
        assert_eq!(tree(&module), before);
    }
    assert!(reparse_edited(&mut module, PLAN, &new, &fits));
    assert_eq!(tree(&module), tree(&parse_text(FILE, &new).0));
}
