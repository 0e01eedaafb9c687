//! planc's checker and compilation (`ARCHITECTURE.md`).
//!
//! The checker (`check`: resolution, types, references, ordering, policy,
//! replans against a progress record), the lowering of a checked plan to
//! the IR (`ir::lower`), an IR file verified before it runs
//! (`exec::verify`), JSON Schemas for planners (`plan_schema`), the
//! compilation of a set of files (`driver`, `compiler::Compiler`) and
//! `planc.toml` (`project`, the one part of the library that reads files).

pub mod check;
pub mod compiler;
pub mod driver;
pub mod plan_schema;
pub mod project;

/// The IR (`planc_exec::ir`) and its lowering from a checked plan.
pub mod ir {
    pub use planc_exec::ir::*;

    mod lower;
    mod stream;

    pub use lower::{lower, lower_owned, lower_unsealed};
    pub use stream::{IrStream, Scratch};
}

/// The executor (`planc_exec::exec`) and the verification of an IR file
/// against the configured catalogue and policy.
pub mod exec {
    pub use planc_exec::exec::*;

    pub mod verify;

    pub use verify::verify;

    /// The machine's tests, which compile their plans with [`crate::Compiler`]
    /// (a layer above the machine's crate), in the machine's own scope.
    #[cfg(test)]
    mod machine {
        #[allow(unused_imports)]
        use std::{collections::BTreeSet, sync::Arc};

        #[allow(unused_imports)]
        use super::eval::{self, Artifacts};
        #[allow(unused_imports)]
        use super::{Data, Dispatch, Machine, MachineError, Output, Stop, ToolError, may_retry};
        #[allow(unused_imports)]
        use crate::ir::{Effect, OnUnmet, PlanIr, StepIr};
        #[allow(unused_imports)]
        use crate::progress::{
            Failure, FailureKind, PROGRESS_VERSION, ProgressRecord, Status, Status as RecordStatus,
            StepRecord,
        };
        #[allow(unused_imports)]
        use crate::source::SourceKind;

        mod tests;
    }
}

pub use compiler::{Checked, Compiler};

use planc_exec::progress;
use planc_lang::{FastMap, FastSet};
use planc_lang::{catalog, diagnostics, limits, policy, seen, source, suggest, syntax};
