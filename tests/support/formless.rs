//! The IR without what depends on the form it was read from (the source
//! name and the steps' spans, and the order of a step's guards, which
//! follows the policy's form: a text rule lists its conditions as written,
//! a JSON rule groups them by kind): what text and JSON readings of one
//! plan, catalogue and policy must agree on. The fingerprint is computed
//! again over what is left.

use planc::ir::{PlanIr, SourceSpan};

pub fn formless(mut ir: PlanIr) -> PlanIr {
    ir.source = String::new();
    for s in &mut ir.steps {
        s.span = SourceSpan {
            file: String::new(),
            start: 0,
            end: 0,
            line: 0,
            column: 0,
        };
        s.authz
            .guards
            .sort_by_cached_key(|g| serde_json::to_string(g).unwrap_or_default());
    }
    ir.fingerprint = planc::ir::fingerprint(&ir).unwrap_or_default();
    ir
}
