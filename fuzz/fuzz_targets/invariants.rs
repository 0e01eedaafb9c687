//! The invariant oracle: any input as a plan (text or JSON, told from its
//! content), compiled against a fixed catalogue and policy that put
//! ceilings over an `any`, an optional and an enum-fed parameter. When the
//! compile is accepted, the IR must keep every invariant of the IR's
//! contract (docs/ir.md), as the independent checker of `tests/support/invariants.rs`
//! reads them: accepted ⇒ invariants hold. A plan that gets a literal past
//! a ceiling, leaves an argument under one out, or loses a guard crashes
//! the target, and libFuzzer keeps it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::driver;

#[path = "../../tests/support/invariants.rs"]
mod invariants;

const TOOLS: &str = include_str!("../fixtures/tools.plan");
const POLICY: &str = include_str!("../fixtures/policy.plan");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut job = planc_fuzz::plan_job(text, TOOLS, POLICY);
    let outcome = driver::run(&mut job);
    planc_fuzz::check_diagnostics(&job.sources, &outcome.diagnostics);
    if outcome.has_errors() {
        return;
    }
    let irs = match driver::lower(&job, &outcome) {
        Ok(irs) => irs,
        Err(e) => panic!("a run without errors does not lower: {e}"),
    };
    let world = invariants::fixture_world();
    for ir in &irs {
        let broken = invariants::violations(ir, &world);
        assert!(
            broken.is_empty(),
            "an accepted plan breaks the invariants: {broken:?}"
        );
    }
});
