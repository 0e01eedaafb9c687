//! The JSON front end on any input: `syntax::read_json_document` (a plan,
//! a catalogue or a policy, told apart by its keys) never panics, and its
//! diagnostics are well-formed and render in every format, pointers
//! included. A plan that reads as skeletons (`planc check`'s first
//! reading, `syntax::read_json_plan_skeletal`) reads each step again from
//! its span as a whole reading reads it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::source::{SourceKind, SourceMap};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add_with_kind("fuzz.json", text, SourceKind::Json);
    let (_module, diagnostics) = planc::syntax::read_json_document(file, text);
    planc_fuzz::check_diagnostics(&sources, &diagnostics);
    if let Some(skeletal) = planc::syntax::read_json_plan_skeletal(file, text) {
        let (whole, diags) = planc::syntax::read_json_plan(file, text);
        assert!(
            diags.is_empty(),
            "a skeletal reading of a plan with diagnostics"
        );
        let steps: Vec<_> = whole.plans().flat_map(|p| &p.steps).collect();
        let skeletons: Vec<_> = skeletal.plans().flat_map(|p| &p.steps).collect();
        assert_eq!(skeletons.len(), steps.len());
        for (s, step) in skeletons.into_iter().zip(steps) {
            let again =
                planc::syntax::json_plan::read_step_again(text, s.span, &s.name.node, &s.clauses);
            assert_eq!(again.as_ref(), Some(step));
        }
    }
});
