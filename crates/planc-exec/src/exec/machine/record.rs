//! What the machine takes from an earlier record, checked against the IR
//! first: the values the IR was compiled with are the ones that run
//! (`docs/executors.md`, "Resuming").

use crate::exec::MachineError;
use crate::ir::PlanIr;
use crate::progress::{ProgressRecord, Status};

/// The IR's own recorded values (`planc compile --progress`: the artifacts
/// it uses, `progress.artifacts_in`, and the artifacts of the steps it
/// reuses) against the record a run is given. A complete step of the record
/// that commits one of them with another value means the record is not the
/// one the IR was checked against (or was edited since): the guards and
/// ceilings were decided on the IR's values, so the run refuses.
pub fn check_reused(ir: &PlanIr, record: &ProgressRecord) -> Result<(), MachineError> {
    let compiled = ir
        .progress
        .iter()
        .flat_map(|p| p.artifacts_in.iter())
        .chain(
            ir.steps
                .iter()
                .filter(|s| s.reuse == Some(true))
                .flat_map(|s| s.artifacts.iter().flatten()),
        );
    for (name, value) in compiled {
        for step in record.steps.iter().filter(|s| s.status == Status::Complete) {
            if let Some(recorded) = step.binds.get(name)
                && !recorded.same(value)
            {
                return Err(MachineError::RecordDisagrees {
                    step: step.name.to_string(),
                    name: name.to_string(),
                    recorded: recorded.to_json_string(),
                    compiled: value.to_json_string(),
                });
            }
        }
    }
    Ok(())
}
