//! Ordering: an `after` cycle among writes (E0108), a read moved after a
//! later step, and a long chain of steps checked in linear time.

use super::*;

#[test]
fn after_cycle_with_write_order() {
    let credit = |n: &str, clauses: Vec<Clause>| {
        step(
            n,
            "billing.issue_credit",
            vec![
                ("account_id", s("a")),
                ("amount_eur", int("1")),
                ("reason", s("r")),
            ],
            clauses,
        )
    };
    let (_, out) = run(vec![
        credit("one", vec![post_exists("$.credit_id"), after(&["two"])]),
        credit("two", vec![post_exists("$.credit_id")]),
    ]);
    assert_eq!(codes(&out), vec![Code::E0108]);
    assert!(out.diagnostics[0].message.starts_with("ordering cycle"));
    assert!(out.plans[0].schedule.is_none());
    // A read may be moved after a later step.
    let (_, out) = run(vec![
        resolve_step(vec![post_len("$.results", CmpOp::Eq, "1"), after(&["two"])]),
        credit("two", vec![post_exists("$.credit_id")]),
    ]);
    assert_eq!(codes(&out), Vec::<Code>::new(), "{:#?}", out.diagnostics);
    assert_eq!(out.plans[0].schedule, Some(vec![vec![1], vec![0]]));
}

#[test]
fn many_steps_stay_linear() {
    // A chain of 100,000 reads, each using the previous binding.
    let n = 100_000;
    let mut steps = Vec::with_capacity(n);
    for i in 0..n {
        let arg = if i == 0 {
            s("x")
        } else {
            r(&format!("id{}", i - 1))
        };
        steps.push(step(
            &format!("s{i}"),
            "billing.compute_proration",
            vec![("subscription_id", arg)],
            vec![
                post_exists("$.credit_eur"),
                bind(&format!("id{i}"), "$.credit_eur"),
            ],
        ));
    }
    let (_, out) = run(steps);
    // decimal is not a string: every step but the first has E0201; the
    // last binding is unused.
    assert_eq!(out.diagnostics.len(), n);
    assert_eq!(out.plans[0].schedule.as_ref().map(Vec::len), Some(n));
}
