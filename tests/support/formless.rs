//! The IR without what depends on the form it was read from (the source
//! name and the steps' spans): what text and JSON readings of one plan must
//! agree on.

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
    }
    ir
}
