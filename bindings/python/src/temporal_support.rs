//! What `planc.temporal` needs from the core beyond the machine: the retry
//! policy of each step, so the workflow engine's own retries are the ones
//! the executor contract allows (`docs/executors.md`, rule 2) and no other.

use std::collections::BTreeMap;

use planc::exec::{ToolError, may_retry};
use planc::ir::StepIr;
use pyo3::prelude::*;

/// The most calls one dispatch of `step` may take: `retry + 1` when a
/// retryable error may be retried at all (an idempotent step), else one.
fn max_attempts(step: &StepIr) -> u64 {
    let retryable = ToolError {
        code: String::new(),
        message: String::new(),
        retryable: true,
    };
    if may_retry(step, &retryable, 1) {
        step.retry.saturating_add(1)
    } else {
        1
    }
}

/// Each step's most attempts, by step name.
#[pyfunction]
fn max_attempts_by_step(ir: &str) -> PyResult<BTreeMap<String, u64>> {
    let ir = super::read_ir(ir)?;
    Ok(ir
        .steps
        .iter()
        .map(|s| (s.name.to_string(), max_attempts(s)))
        .collect())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(max_attempts_by_step, m)?)
}
