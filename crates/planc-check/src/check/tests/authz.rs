//! The policy: ceilings decided on a literal (E0303) or left as a guard on a
//! reference (N0302), no policy (E0301), the actor's scopes (E0302).

use super::*;

#[test]
fn literal_credit_above_ceiling() {
    let (_, out) = run(vec![credit_step(dec("4180.00"))]);
    assert_eq!(codes(&out), vec![Code::E0303]);
    let d = &out.diagnostics[0];
    assert!(
        d.message.contains("`amount_eur` = `4180.00`"),
        "{}",
        d.message
    );
    assert_eq!(d.labels.len(), 1);
    // Exactly representable, just above the ceiling: still refused.
    let (_, out) = run(vec![credit_step(dec("500.0000000000000001"))]);
    assert_eq!(codes(&out), vec![Code::E0303]);
    let (_, out) = run(vec![credit_step(int("500"))]);
    assert!(out.diagnostics.is_empty(), "{:#?}", out.diagnostics);
    // Too many digits to hold exactly: E0204, never rounded to 500.
    let (_, out) = run(vec![credit_step(dec("500.00000000000000000000000000001"))]);
    assert_eq!(codes(&out), vec![Code::E0204]);
}

#[test]
fn referenced_credit_gets_a_guard() {
    let (_, out) = run(vec![
        step(
            "proration",
            "billing.compute_proration",
            vec![("subscription_id", s("sub_1"))],
            vec![post_exists("$.credit_eur"), bind("credit", "$.credit_eur")],
        ),
        credit_step(r("credit")),
    ]);
    assert_eq!(codes(&out), vec![Code::N0302]);
    let guards = &out.plans[0].steps[1].authz.guards;
    assert_eq!(guards.len(), 1);
    assert_eq!(guards[0].arg, "amount_eur");
    assert_eq!(guards[0].text(), "amount_eur <= 500");
}

#[test]
fn no_policy_denies() {
    let mut items: Vec<Item> = northwind()
        .into_iter()
        .filter(|i| !matches!(i, Item::Policy(_)))
        .collect();
    items.push(plan(vec![credit_step(int("5"))]));
    let m = Module { items };
    let plans = [&m];
    let out = check(&CheckInput {
        plans: &plans,
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), vec![Code::E0301]);
}

#[test]
fn actor_scopes() {
    let (m, _) = run(vec![credit_step(int("5"))]);
    let plans = [&m];
    let actor = vec!["crm:read".to_string()];
    let out = check(&CheckInput {
        plans: &plans,
        actor: Some(&actor),
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), vec![Code::E0302]);
    let actor = vec!["billing:*".to_string()];
    let out = check(&CheckInput {
        plans: &plans,
        actor: Some(&actor),
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), Vec::<Code>::new());
}
