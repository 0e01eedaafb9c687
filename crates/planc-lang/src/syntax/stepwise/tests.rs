//! The step-by-step reading against a whole parse: whether it is taken or
//! not, `parse_text` must give the tree (spans included) and the
//! diagnostics the whole parse gives.

use super::*;
use crate::syntax::parser::Strategy;
use crate::syntax::test_texts::{Rng, SNIPPETS, plan_files};
use crate::syntax::{parse_text, parse_text_with};

const FILE: FileId = FileId(5);

/// Reads `text` both ways and compares; `true` when the step-by-step
/// reading was taken.
fn agree(text: &str) -> bool {
    let stepwise = parse_text(FILE, text);
    let whole = parse_text_with(FILE, text, Strategy::Whole);
    assert_eq!(format!("{stepwise:?}"), format!("{whole:?}"), "{text}");
    let taken = parse(FILE, text).is_some();
    if taken {
        assert!(whole.1.is_empty(), "taken over a diagnostic:\n{text}");
    }
    // Read as skeletons where it reads step by step, and each step again
    // from its span, a batch at a time: the whole parse's steps.
    let skeletal = crate::syntax::parse_text_skeletal(FILE, text);
    assert_eq!(skeletal.is_some(), taken, "{text}");
    if let Some(skeletal) = skeletal {
        let spans: Vec<Span> = skeletal
            .plans()
            .flat_map(|p| p.steps.iter().map(|s| s.span))
            .collect();
        let again: Vec<Option<Vec<ast::Step>>> = spans
            .chunks(BATCH)
            .map(|c| crate::syntax::incremental::read_steps_at(text, c))
            .collect();
        let steps: Vec<ast::Step> = whole.0.plans().flat_map(|p| p.steps.clone()).collect();
        let again: Vec<ast::Step> = again.into_iter().flatten().flatten().collect();
        assert_eq!(again, steps, "read again:\n{text}");
    }
    taken
}

#[test]
fn every_plan_of_the_repository_reads_the_same_both_ways() {
    let texts = plan_files();
    let taken = texts.iter().filter(|t| agree(t)).count();
    // Most fixtures are clean plans; those with a problem are whole parses.
    assert!(
        texts.len() > 200 && taken > 150 && taken < texts.len(),
        "{taken} of {} read step by step",
        texts.len()
    );
}

const TOOLS: &str = r#"tool billing.refund(id: string) -> { ok: bool } write
"#;

#[test]
fn texts_built_to_mislead_the_scan_read_as_a_whole_parse_does() {
    let taken = [
        // Steps among the budget, docs, blocks on the next line, a step
        // without a block before a doc comment.
        "plan p {\n  replans 1\n  /// a\n  /// b\n  step a = x.y()\n  {\n    retry 1\n  }\n  max_steps 3\n  step b = x.y(n: 1)\n  /// c\n  step c = x.y()\n}\n",
        // Braces and `step` inside strings, comments and paths.
        "plan p {\n  step a = x.y(s: \"} step b = x.y() {\", t: \"${a}\") { // }\n    post $.k[\"}\"] == \"{\"\n  }\n}\n",
        // Words that are `step` but not a step's start.
        "plan step {\n  step step = x.y(step: 1, r: {step: 2}) {\n    bind step2 = $.step\n  }\n}\n",
        // `in[` lexed as two tokens.
        "plan p {\n  step a = x.y() {\n    post $.n in[1, 2]\n  }\n}\n",
        // Two plans with a tool and a policy between them.
        &format!(
            "plan p {{\n  step a = x.y()\n}}\n{TOOLS}policy agent {{\n  actor [billing:write]\n  billing.refund requires [billing:write]\n}}\nplan q {{\n  step b = x.y()\n  step c = x.y()\n}}\n"
        ),
        // A byte-order mark, carriage returns.
        "\u{feff}plan p {\r\n  step a = x.y()\r\n}\r\n",
    ];
    for text in taken {
        assert!(agree(text), "not read step by step:\n{text}");
    }
    let whole = [
        // No step, or steps outside a plan.
        "plan p {\n  replans 1\n}\n",
        "policy agent {\n  step a = x.y()\n}\n",
        "tool t(a: { step: string }) -> string read\npolicy agent {\n  /// d\n  t requires [a:b]\n}\n",
        // A doc comment before something that is not a step.
        "plan p {\n  /// d\n  replans 1\n  step a = x.y()\n}\n",
        // Steps that are not of the shape, or do not close.
        "plan p {\n  step a = x.y\n  step b = x.y()\n}\n",
        "plan p {\n  step a x.y()\n}\n",
        "plan p {\n  step a = x.y() {\n    retry 1\n",
        "plan p {\n  step a = x.y(\n}\n",
        // A problem outside the steps, inside one, between two.
        "plan p \"g {\n  step a = x.y()\n}\n",
        "plan p {\n  step a = x.y(n: 1e5)\n}\n",
        "plan p {\n  step a = x.y() junk\n  step b = x.y()\n}\n",
        "plan p {\n  step a = x.y() {\n    retry 1\n  } }\n  step b = x.y()\n}\n",
        "plan p {\n  replans 1\n  replans 2\n  step a = x.y()\n}\n",
        // A character the lexer rejects.
        "plan p {\n  step a = x.y()\n  ¤\n}\n",
    ];
    for text in whole {
        assert!(!agree(text), "read step by step:\n{text}");
    }
}

#[test]
fn nesting_at_the_limit_reads_the_same_both_ways() {
    // The plan's brace, the call's parenthesis and these: the limit, then
    // one past it (the lexer's E0003).
    for extra in [
        limits::MAX_DEPTH - 3,
        limits::MAX_DEPTH - 2,
        limits::MAX_DEPTH - 1,
    ] {
        let text = format!(
            "plan p {{\n  step a = x.y(v: {}1{})\n}}\n",
            "[".repeat(extra),
            "]".repeat(extra)
        );
        assert_eq!(agree(&text), extra <= limits::MAX_DEPTH - 2, "{extra}");
    }
}

/// Random edits of the repository's plans, chained while they stay clean:
/// both readings agree on each, and both paths are exercised.
#[test]
fn random_edits_read_the_same_both_ways() {
    let texts = plan_files();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut taken, mut whole) = (0usize, 0usize);
    for seed in &texts {
        let mut text = seed.clone();
        for _ in 0..8 {
            let at = rng.below(text.len() + 1);
            let cut = at + rng.below(6);
            let (Some(head), Some(tail)) = (text.get(..at), text.get(cut.min(text.len())..)) else {
                continue;
            };
            let new = format!("{head}{}{tail}", SNIPPETS[rng.below(SNIPPETS.len())]);
            if agree(&new) {
                taken += 1;
                text = new;
            } else {
                whole += 1;
            }
        }
    }
    assert!(taken > 300 && whole > 300, "taken {taken}, whole {whole}");
}

/// Plans of more steps than a batch, of every shape a step may have, and
/// the budget among them: read the same both ways, at every count around
/// the batch's size.
#[test]
fn steps_past_a_batch_read_the_same_both_ways() {
    let step = |i: usize| match i % 4 {
        0 => format!("  step s{i} = x.y(n: {i})\n"),
        1 => format!("  /// step {i}\n  step s{i} = x.y(n: [{i}]) {{\n    retry 1\n  }}\n"),
        2 => format!("  step s{i} = x.y()\n  {{ after s{} }}\n", i - 1),
        _ => format!("  /// {i}\n  /// more\n  step s{i} = x.y(r: {{k: \"}}\"}})\n"),
    };
    for n in [BATCH - 1, BATCH, BATCH + 1, 2 * BATCH, 3 * BATCH + 7] {
        let mut text = String::from("plan p \"many\" {\n");
        for i in 0..n {
            if i == n / 2 {
                text.push_str("  replans 2\n");
            }
            text.push_str(&step(i));
        }
        text.push_str("}\nplan q {\n  step last = x.y()\n}\n");
        assert!(agree(&text), "{n} steps not read step by step");
        let (module, _) = parse_text(FILE, &text);
        assert_eq!(module.plans().map(|p| p.steps.len()).sum::<usize>(), n + 1);
    }
}
