//! The checker from `.plan` text: which code, and where (the source text
//! under the primary span), for the three incidents of the examples and each family of
//! checks. The fixture harness (`tests/ui.rs`) snapshots the full reports.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use planc::check::{self, CheckInput, DepReason, ValueKind};
use planc::syntax::parse_text;
use planc::{Code, FileId, Severity};

const TOOLS: &str = include_str!("ui/check/tools.plan");
const POLICY: &str = include_str!("ui/check/policy.plan");

/// Checks `plan` against the fixtures' catalogue and policy; returns each
/// diagnostic as (code, text under its primary span), and the output.
fn run(plan: &str) -> (Vec<(Code, String)>, check::CheckOutput) {
    let (tools, d1) = parse_text(FileId(0), TOOLS);
    let (policy, d2) = parse_text(FileId(1), POLICY);
    let (module, d3) = parse_text(FileId(2), plan);
    assert!(
        d1.is_empty() && d2.is_empty() && d3.is_empty(),
        "{d1:?} {d2:?} {d3:?}"
    );
    let out = check::check(&CheckInput {
        plans: &[&module],
        catalog: &[&tools],
        policy: &[&policy],
        actor: None,
        syntax_errors: &[],
        roles_fixed: true,
        progress: None,
    });
    let texts = [TOOLS, POLICY, plan];
    let got = out
        .diagnostics
        .iter()
        .map(|d| {
            let text = texts[d.span.file.0 as usize];
            (d.code, text[d.span.range()].to_string())
        })
        .collect();
    (got, out)
}

fn pair(code: Code, text: &str) -> (Code, String) {
    (code, text.to_string())
}

const RESOLVE_UNPINNED: &str = r#"
plan northwind "downgrade Northwind" {
    step resolve = customer.search(query: "Northwind Traders") {
        bind account_id = $.results[0].id
    }
    step subscription = billing.get_subscription(account_id: account_id, as_of: 2026-03-04) {
        post exists($.id)
    }
}
"#;

#[test]
fn northwind_pick_by_position_warns() {
    let (got, _) = run(RESOLVE_UNPINNED);
    assert_eq!(got, vec![pair(Code::W0401, "[0]")]);
}

#[test]
fn northwind_pick_pinned_is_clean() {
    let plan = RESOLVE_UNPINNED.replace(
        "        bind account_id",
        "        post len($.results) == 1\n        bind account_id",
    );
    let (got, _) = run(&plan);
    assert_eq!(got, vec![]);
}

#[test]
fn credit_of_4180_as_a_literal_is_refused() {
    let (got, out) = run(r#"
plan credit "credit" {
    step credit = billing.issue_credit(account_id: "acct_5512b", amount_eur: 4180.00, reason: "proration") {
        post exists($.credit_id)
    }
}
"#);
    assert_eq!(got, vec![pair(Code::E0303, "4180.00")]);
    let label = &out.diagnostics[0].labels[0];
    assert_eq!(label.span.file, FileId(1));
    assert_eq!(&POLICY[label.span.range()], "amount_eur <= 500");
}

#[test]
fn credit_of_4180_through_a_binding_gets_a_guard() {
    let (got, out) = run(r#"
plan credit "credit" {
    step proration = billing.compute_proration(subscription_id: "sub_1209", new_plan: "starter", effective: 2026-04-01) {
        post $.credit_eur >= 0
        bind credit = $.credit_eur
    }
    step credit_note = billing.issue_credit(account_id: "acct_5512b", amount_eur: credit, reason: "proration") {
        post exists($.credit_id)
    }
}
"#);
    assert_eq!(got, vec![pair(Code::N0302, "credit")]);
    assert!(!out.has_errors());
    let step = &out.plans[0].steps[1];
    assert_eq!(step.authz.guards.len(), 1);
    assert_eq!(step.authz.guards[0].arg, "amount_eur");
    assert_eq!(step.authz.guards[0].text(), "amount_eur <= 500");
    assert_eq!(step.depends_on[0].step, 0);
    assert_eq!(step.depends_on[0].reason, DepReason::Data);
    let arg = step.arg("amount_eur").unwrap();
    assert!(
        matches!(&arg.value.kind, ValueKind::Ref(r) if r.binding == "credit" && out.plans[0].step_name(r.step) == "proration")
    );
}

#[test]
fn five_independent_mistakes_give_five_errors() {
    let (got, _) = run(r#"
plan five "five mistakes" {
    step a = customer.reslove(email: "a@example.com") {
        post len($.results) == 1
    }
    step b = customer.resolve(email: "b@example.com", include_childs: true) {
        post len($.results) == 1
        bind account_id = $.results[0].id
    }
    step c = billing.get_subscription(account_id: account_id, as_of: account_id) {
        post exists($.id)
    }
    step d = billing.change_plan(subscription_id: "sub_1", plan: "premium", effective: 2026-04-01) {
        post $.status == "scheduled"
    }
    step e = billing.issue_credit(account_id: account_id, amount_eur: 5) {
        post exists($.credit_id)
    }
}
"#);
    let errors: Vec<(Code, String)> = got
        .into_iter()
        .filter(|(c, _)| c.severity() == Severity::Error)
        .collect();
    assert_eq!(
        errors,
        vec![
            pair(Code::E0101, "customer.reslove"),
            pair(Code::E0102, "include_childs"),
            pair(Code::E0201, "account_id"),
            pair(Code::E0204, "\"premium\""),
            pair(Code::E0103, "billing.issue_credit"),
        ]
    );
}

#[test]
fn references_point_at_the_name() {
    let (got, out) = run(r#"
plan refs "references" {
    step change = billing.change_plan(subscription_id: sub_id, plan: "starter", effective: 2026-04-01) {
        post $.status == "scheduled"
    }
    step subscription = billing.get_subscription(account_id: sub_idd, as_of: 2026-03-04) {
        post exists($.id)
        bind sub_id = $.id
    }
    step again = billing.get_subscription(account_id: own, as_of: 2026-03-04) {
        post exists($.id)
        bind own = $.id
    }
}
"#);
    assert_eq!(
        got,
        // The note comes after the errors, though its step comes first.
        vec![
            pair(Code::E0106, "sub_id"),
            pair(Code::E0105, "sub_idd"),
            pair(Code::E0107, "own"),
            pair(Code::N0301, "billing.change_plan"),
        ]
    );
    assert_eq!(
        out.diagnostics[1].help.as_deref(),
        Some("did you mean `sub_id`?")
    );
    assert_eq!(out.diagnostics[1].fixes[0].replacement, "sub_id");
    assert_eq!(out.diagnostics[0].step.as_deref(), Some("change"));
}

#[test]
fn ordering_cycle_and_unknown_after() {
    let (got, out) = run(r#"
plan order "order" {
    step mail = email.send(to: "a@example.com", template: "t", facts: { plan: "starter", effective: 2026-04-01 }) {
        post exists($.message_id)
        after credit, credt
    }
    step credit = billing.issue_credit(account_id: "a", amount_eur: 5, reason: "r") {
        post exists($.credit_id)
    }
}
"#);
    assert_eq!(
        got,
        vec![pair(Code::E0108, "credit"), pair(Code::E0108, "credt")]
    );
    assert!(out.plans[0].schedule.is_none());
}

#[test]
fn policy_checks() {
    let (got, out) = run(r#"
plan policy "policy" {
    step delete = customer.delete(account_id: "a") {
        post $.deleted == true
    }
    step merge = customer.merge(keep: "a", drop: "b") {
        post exists($.id)
    }
    step change = billing.change_plan(subscription_id: "s", plan: "starter", effective: 2026-04-01) {
        post $.status == "scheduled"
        retry 2
    }
}
"#);
    assert_eq!(
        got,
        vec![
            pair(Code::E0301, "customer.delete"),
            pair(Code::E0302, "customer.merge"),
            pair(Code::E0304, "retry 2"),
            pair(Code::N0301, "billing.change_plan"),
        ]
    );
    assert_eq!(out.plans[0].approvals, vec![2]);
}

#[test]
fn paths_and_probes() {
    let (got, _) = run(r#"
plan paths "paths" {
    step s = billing.get_subscription(account_id: "a", as_of: 2026-03-04) {
        post len($.id) == 1
        post $.commitment in ["none", "montly"]
        post $.monthly_price_eur < 99.99
        bind end = $.current_period_ends
    }
}
"#);
    assert_eq!(
        got,
        vec![
            pair(Code::E0203, "$.id"),
            pair(Code::E0203, "\"montly\""),
            pair(Code::E0202, ".current_period_ends"),
        ]
    );
}

#[test]
fn lints() {
    let (got, out) = run(r#"
plan lints "lints" {
    step search = policies.search(query: "terms") {
        post len($.chunks) == 1
        bind terms = $.chunks[0]
        bind all = $.chunks
    }
    step mail = email.send(to: "a@example.com", template: "t ${terms}", facts: { plan: "starter", effective: 2026-04-01 })
}
"#);
    assert_eq!(
        got,
        vec![
            pair(Code::W0403, "all"),
            pair(Code::W0402, "mail"),
            pair(Code::W0404, "\"t ${terms}\""),
        ]
    );
    assert_eq!(out.plans[0].steps[1].untrusted_inputs, vec!["template"]);
}

#[test]
fn budget() {
    let (got, _) = run(r#"
plan budget "budget" {
    max_steps 1
    step a = customer.resolve(email: "a@example.com") {
        post len($.results) == 0
    }
    step b = customer.resolve(email: "b@example.com") {
        post len($.results) == 0
    }
}
"#);
    assert_eq!(got, vec![pair(Code::E0305, "b")]);
}

#[test]
fn a_self_contained_file_checks() {
    let text = format!(
        "{TOOLS}\n{POLICY}\n{}",
        RESOLVE_UNPINNED.replace(
            "        bind",
            "        post len($.results) == 1\n        bind"
        )
    );
    let (module, diags) = parse_text(FileId(0), &text);
    assert!(diags.is_empty());
    let out = check::check(&CheckInput {
        plans: &[&module],
        ..CheckInput::default()
    });
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(out.plans[0].steps.len(), 2);
    assert_eq!(out.actor.len(), 6);
}
