//! Progress records, replan checks, invalidation and plan deltas
//! (`docs/replanning.md`).
//!
//! - [`types`]: the progress record an executor writes as it runs
//!   (`schema/progress.schema.json` is generated from it).
//! - [`read`]: the record reader, with diagnostics that point into the record
//!   (E0601–E0605).
//! - [`diff`]: the delta between two plans, matched by step name (`planc
//!   diff`).
//! - [`invalidate`]: what an event during a run invalidates (`planc
//!   invalidate`, and the executor).

pub mod types;

pub use types::{
    Effect, Failure, FailureKind, JsonNumber, JsonValue, PROGRESS_VERSION, ProgressRecord, Status,
    StepRecord, schema,
};
pub mod diff;
pub mod invalidate;
pub mod read;

pub use diff::{PlanDiff, diff};
pub use invalidate::{Event, Invalidation, Scope, StepChange, invalidate};
