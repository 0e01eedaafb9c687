//! Names, arguments and references: unknown tools, arguments and bindings
//! with their suggestions, missing arguments, wrong types through a
//! reference, references to later steps, one message per mistake.

use super::*;

#[test]
fn five_mistakes_five_errors() {
    let (_, out) = run(vec![
        // 1. unknown tool
        step("a", "billing.isue_credit", vec![("x", s("y"))], vec![]),
        // 2. unknown argument
        step(
            "b",
            "customer.resolve",
            vec![("email", s("x")), ("emial", s("y"))],
            vec![
                post_len("$.results", CmpOp::Eq, "1"),
                bind("acct", "$.results[0].id"),
            ],
        ),
        // 3. wrong type through a reference
        step(
            "c",
            "billing.get_subscription",
            vec![("account_id", r("acct")), ("as_of", r("acct"))],
            vec![bind("sid", "$.id")],
        ),
        // 4. enum literal outside its values
        step(
            "d",
            "billing.change_plan",
            vec![
                ("subscription_id", r("sid")),
                ("plan", s("gold")),
                ("effective", date("2026-03-04")),
            ],
            vec![post_exists("$.status")],
        ),
        // 5. missing argument
        step(
            "e",
            "email.send",
            vec![("to", s("x"))],
            vec![post_exists("$.message_id")],
        ),
    ]);
    assert_eq!(
        errors(&out),
        vec![
            Code::E0101,
            Code::E0102,
            Code::E0201,
            Code::E0204,
            Code::E0103
        ],
        "{:#?}",
        out.diagnostics
    );
    let e0101 = &out.diagnostics[0];
    assert_eq!(
        e0101.help.as_deref(),
        Some("did you mean `billing.issue_credit`?")
    );
    assert_eq!(e0101.fixes[0].replacement, "billing.issue_credit");
}

#[test]
fn references_in_order() {
    let (_, out) = run(vec![
        step(
            "change",
            "billing.change_plan",
            vec![
                ("subscription_id", r("sub_id")),
                ("plan", s("starter")),
                ("effective", date("2026-03-04")),
            ],
            vec![post_exists("$.status")],
        ),
        step(
            "subscription",
            "billing.get_subscription",
            vec![("account_id", r("sub_id")), ("as_of", date("2026-03-04"))],
            vec![bind("sub_id", "$.id")],
        ),
    ]);
    let got: Vec<Code> = errors(&out);
    assert_eq!(got, vec![Code::E0106, Code::E0107]);
    let fwd = &out.diagnostics[0];
    assert_eq!(
        fwd.labels[0].message,
        "`sub_id` is bound here, by step `subscription`, which comes after this one"
    );
}

#[test]
fn unknown_binding_and_after() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Eq, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        step(
            "subscription",
            "billing.get_subscription",
            vec![
                ("account_id", r("acount_id")),
                ("as_of", date("2026-03-04")),
            ],
            vec![after(&["reslove"])],
        ),
    ]);
    // One mistake, one message: the misspelt reference's E0105 suggests
    // `account_id`, which is therefore not also "never used" (W0403).
    assert_eq!(codes(&out), vec![Code::E0105, Code::E0108]);
    assert_eq!(
        out.diagnostics[0].help.as_deref(),
        Some("did you mean `account_id`?")
    );
    assert_eq!(
        out.diagnostics[1].help.as_deref(),
        Some("did you mean `resolve`?")
    );
}

#[test]
fn unknown_tool_silences_its_bindings() {
    let (_, out) = run(vec![
        step("a", "nothing.here", vec![], vec![bind("x", "$.a[0].b")]),
        step(
            "b",
            "billing.get_subscription",
            vec![("account_id", r("x.deep.er")), ("as_of", r("x"))],
            vec![post_exists("$.id")],
        ),
    ]);
    assert_eq!(codes(&out), vec![Code::E0101]);
}

#[test]
fn a_reference_to_a_step_names_what_that_step_binds() {
    let sub = |name: &str, account: Expr, clauses: Vec<Clause>| {
        step(
            name,
            "billing.get_subscription",
            vec![("account_id", account), ("as_of", date("2026-03-04"))],
            clauses,
        )
    };
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Eq, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        // Binds two names, between steps that bind one and none.
        sub(
            "first",
            r("account_id"),
            vec![bind("sid", "$.id"), bind("end", "$.current_period_end")],
        ),
        sub("second", r("account_id"), vec![]),
        sub("by_step", r("first"), vec![]),
        sub("by_empty_step", r("second"), vec![]),
    ]);
    let helps: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::E0105)
        .map(|d| d.help.as_deref())
        .collect();
    assert_eq!(
        helps,
        vec![
            Some("refer to a name step `first` binds: `sid` and `end`"),
            Some(
                "step `second` binds nothing: add `bind second_value = $...` to it and refer to that"
            ),
        ],
        "{:#?}",
        out.diagnostics
    );
}
