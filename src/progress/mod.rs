//! Progress records, replan checks, invalidation and plan deltas
//! (DESIGN section 9).
//!
//! - [`types`]: the progress record an executor writes as it runs
//!   (`schema/progress.schema.json` is generated from it).

pub mod types;

pub use types::{
    Effect, Failure, FailureKind, JsonNumber, JsonValue, PROGRESS_VERSION, ProgressRecord, Status,
    StepRecord, schema,
};
