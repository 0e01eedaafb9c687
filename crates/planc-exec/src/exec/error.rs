//! What the executor refuses, typed: the errors of [`Machine`]'s
//! (`super::Machine`) calls and of [`run`](super::run). Each is a mistake of
//! the driver or of its input (a record that does not fit the plan, a
//! completion for a step not in flight), never of the plan, whose failures
//! are statuses in the record (`docs/executors.md`). The messages are the
//! ones the command line, Python and JavaScript show.

/// An error of the step machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MachineError {
    /// A complete step of the earlier record commits one of the IR's
    /// recorded values with another value: the record is not the one the
    /// plan was checked against.
    #[error(
        "the progress record disagrees with the plan: step `{step}` recorded `{name}` as \
         {recorded}, and the plan was compiled with {compiled}; the record is not the one the \
         plan was checked against: compile the plan against this record (`--progress`)"
    )]
    RecordDisagrees {
        step: String,
        name: String,
        recorded: String,
        compiled: String,
    },
    /// A write (not idempotent) the earlier record completed with another
    /// tool or other arguments: running it again would repeat it.
    #[error(
        "the progress record says step `{step}` completed with another tool or other \
         arguments; running it again would repeat a committed write: compile a replan against \
         the record"
    )]
    WouldRepeatWrite { step: String },
    /// A replan (a record of another plan) when the record has used the
    /// plan's replan budget (`budget.replans`, the stricter of the plan's
    /// and the policy's): nothing runs; a person decides.
    #[error(
        "the run has used {used} of its {budget} replans: this plan is another replan over the \
         budget (E0305); the record is of plan {}, this is plan {plan_fingerprint}; stop \
         replanning and escalate to a person",
        record_fingerprint.as_deref().unwrap_or("(none: a record without a fingerprint)")
    )]
    ReplanBudget {
        used: u64,
        budget: u64,
        /// The plan fingerprint the record names, if any.
        record_fingerprint: Option<String>,
        /// This plan's fingerprint (`docs/ir.md`, "Fingerprint").
        plan_fingerprint: String,
    },
    /// A redispatch asked for after the first `next`.
    #[error("a redispatch is decided before the run starts")]
    RedispatchAfterStart,
    /// A step name the plan does not have.
    #[error("the plan has no step `{0}`")]
    NoSuchStep(String),
    /// A redispatch of a step that is not a write of unknown outcome.
    #[error("step `{0}` is not a write whose outcome is unknown: nothing to decide")]
    NothingToRedispatch(String),
    /// A result for a step that was not dispatched.
    #[error("step `{0}` has no call in flight")]
    NotInFlight(String),
    /// A resume that cannot be applied: the event names what the plan and
    /// the record do not have.
    #[error(transparent)]
    Invalidate(#[from] crate::progress::invalidate::InvalidateError),
    /// A broken invariant of the machine itself.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

impl MachineError {
    /// The diagnostic code of a refusal the check reports too, so that a
    /// driver can tell it apart without reading the message: E0305 for a
    /// replan over the budget (`docs/executors.md`). `None` for the rest,
    /// which are mistakes of the driver or of its input.
    pub fn code(&self) -> Option<crate::diagnostics::Code> {
        match self {
            MachineError::ReplanBudget { .. } => Some(crate::diagnostics::Code::E0305),
            _ => None,
        }
    }
}

/// An error of [`run`](super::run): the machine's, or the sink's (the
/// record or the trace could not be written).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error(transparent)]
    Machine(#[from] MachineError),
    #[error("{0}")]
    Sink(String),
}

/// The message, for drivers that report errors as text.
impl From<MachineError> for String {
    fn from(e: MachineError) -> String {
        e.to_string()
    }
}

/// The message, for drivers that report errors as text.
impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}
