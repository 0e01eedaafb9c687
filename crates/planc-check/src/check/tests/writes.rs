//! What reaches a write and how often: untrusted data in its arguments
//! (W0404), a retry only on an idempotent tool (E0304).

use super::*;

#[test]
fn untrusted_data_into_a_write() {
    let (_, out) = run(vec![
        step(
            "search",
            "policies.search",
            vec![("query", s("refund policy"))],
            vec![
                post_len("$.chunks", CmpOp::Eq, "1"),
                bind("chunk", "$.chunks[0]"),
            ],
        ),
        step(
            "mail",
            "email.send",
            vec![
                ("to", s("a@b.c")),
                (
                    "facts",
                    record(vec![
                        ("plan", r("chunk")),
                        ("effective", date("2026-03-04")),
                    ]),
                ),
            ],
            vec![post_exists("$.message_id")],
        ),
    ]);
    assert_eq!(codes(&out), vec![Code::W0404]);
    assert_eq!(out.plans[0].steps[1].untrusted_inputs, vec!["facts"]);
}

#[test]
fn retry_needs_idempotence() {
    let mut s1 = credit_step(int("5"));
    s1.clauses.push(Clause::Retry(Spanned::new(3, sp())));
    let (_, out) = run(vec![s1]);
    assert_eq!(codes(&out), vec![Code::E0304]);
}
