//! The invariant oracle: any input as a plan (text or JSON, told from its
//! content), compiled against a fixed catalogue and policy that put
//! ceilings over an `any`, an optional and an enum-fed parameter. When the
//! compile is accepted, the IR must keep every invariant of the design's
//! section 5, as the independent checker of `tests/support/invariants.rs`
//! reads them: accepted ⇒ invariants hold. A plan that gets a literal past
//! a ceiling, leaves an argument under one out, or loses a guard crashes
//! the target, and libFuzzer keeps it.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;
use planc::driver::{self, Job};
use planc::ir::{CmpOp, Effect, Literal};
use planc::source::SourceKind;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

use invariants::{ToolRule, World};

/// The policy of `fuzz/fixtures/policy.plan`, written out by hand: the
/// oracle shares nothing with the compiler's reading of it.
fn world() -> World {
    let mut tools = BTreeMap::new();
    tools.insert("billing.refund".to_string(), Effect::Write);
    tools.insert("shop.quote".to_string(), Effect::Read);
    tools.insert("billing.change_plan".to_string(), Effect::Write);
    tools.insert("kb.read".to_string(), Effect::Read);
    let rule = |scope: &str, ceilings: Vec<(&str, CmpOp, Literal)>, approval: bool| ToolRule {
        scopes: vec![scope.to_string()],
        ceilings: ceilings
            .into_iter()
            .map(|(a, op, l)| (a.to_string(), op, l))
            .collect(),
        approval,
    };
    let mut rules = BTreeMap::new();
    rules.insert(
        "billing.refund".to_string(),
        rule(
            "billing:write",
            vec![
                ("amount", CmpOp::Le, Literal::Int(500)),
                ("fee", CmpOp::Le, Literal::Int(20)),
            ],
            false,
        ),
    );
    rules.insert("shop.quote".to_string(), rule("shop:read", vec![], false));
    rules.insert(
        "billing.change_plan".to_string(),
        rule(
            "billing:write",
            vec![
                ("plan", CmpOp::Ne, Literal::String("enterprise".to_string())),
                ("effective", CmpOp::Ge, Literal::Date("2026-01-01".to_string())),
            ],
            true,
        ),
    );
    rules.insert("kb.read".to_string(), rule("kb:read", vec![], false));
    let actor: BTreeSet<String> = ["billing:write", "shop:read", "kb:read"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    World {
        tools,
        rules,
        actor,
    }
}

const TOOLS: &str = include_str!("../fixtures/tools.plan");
const POLICY: &str = include_str!("../fixtures/policy.plan");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut job = Job::default();
    let kind = SourceKind::sniff(text);
    let name = match kind {
        SourceKind::Json => "plan.json",
        SourceKind::Text => "plan.plan",
    };
    let plan = job.sources.add_with_kind(name, text, kind);
    let tools = job.sources.add("tools.plan", TOOLS);
    let policy = job.sources.add("policy.plan", POLICY);
    job.plans.push(plan);
    job.catalog.push(tools);
    job.policy.push(policy);
    let outcome = driver::run(&mut job);
    planc_fuzz::check_diagnostics(&job.sources, &outcome.diagnostics);
    if outcome.has_errors() {
        return;
    }
    let irs = match driver::lower(&job, &outcome) {
        Ok(irs) => irs,
        Err(e) => panic!("a run without errors does not lower: {e}"),
    };
    let world = world();
    for ir in &irs {
        let broken = invariants::violations(ir, &world);
        assert!(broken.is_empty(), "an accepted plan breaks the invariants: {broken:?}");
    }
});
