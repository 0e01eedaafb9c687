//! Execution: the reference executor of the IR (`docs/executors.md`).
//!
//! The executor (`run.rs`) is a state machine, [`Machine`], that does no IO
//! of its own: it says which calls are due, is told what each returned, and
//! gives back the progress records and trace events to write. [`run`] drives
//! it for the command line over a [`Backend`] (`fixture.rs` for recorded
//! responses, `mcp.rs` for an MCP server over stdio) and a [`Sink`] that
//! writes files; the Python package drives the same machine from an event
//! loop or a workflow engine. What it decides is all in `eval.rs`, which is
//! pure.

pub mod data;
mod error;
pub mod eval;
pub mod fixture;
mod machine;
pub mod mcp;
mod run;
pub mod types;

pub use data::Data;
pub use error::{MachineError, RunError};
pub use machine::{Machine, may_retry, needing_approval};

/// The version of the machine's decisions (this crate's version): a driver
/// that replays them, as a Temporal workflow does, records it when a run
/// starts and refuses to continue the run under another
/// (`docs/executors.md`, "Upgrading planc under running workflows").
pub const MACHINE_VERSION: &str = env!("CARGO_PKG_VERSION");
pub use run::{Dispatch, Outcome, Output, Stop, run};

use crate::ir::StepIr;

/// One tool call: the step that makes it, the tool and the resolved
/// arguments.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    pub step: &'a StepIr,
    pub args: &'a eval::Artifacts,
    /// A write's idempotency key, to pass to the tool (MCP `_meta`).
    pub idempotency_key: Option<&'a str>,
}

impl Call<'_> {
    pub fn tool(&self) -> &str {
        &self.step.tool
    }

    /// The arguments as one JSON object.
    pub fn args_data(&self) -> Data {
        Data::Object(self.args.clone())
    }
}

/// A tool call that did not return a result.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolError {
    /// A short machine-readable code (`timeout`, `server_exited`, or the
    /// tool's own).
    pub code: String,
    /// What happened, for people.
    pub message: String,
    /// Whether the same call may succeed if made again. Only idempotent
    /// steps are retried, and only on a retryable error.
    pub retryable: bool,
}

impl ToolError {
    /// The codes of an error that says nothing of whether the call took
    /// effect: no answer in time (`timeout`), the server or the connection
    /// lost (`server_exited`, `connection_lost`), an answer that cannot be
    /// read (`bad_response`), a JSON-RPC internal error, the backend or the
    /// tool's own code crashing (`backend_crashed`, `exception`). For a
    /// write these are `outcome_unknown`, never retried
    /// (`docs/executors.md`).
    pub const OUTCOME_UNKNOWN: &'static [&'static str] = &[
        "timeout",
        "server_exited",
        "connection_lost",
        "bad_response",
        "backend_crashed",
        "exception",
        "jsonrpc_-32603",
    ];

    /// The code of a result outside the type its tool declares, found by
    /// a backend (an MCP result outside its `outputSchema`): the machine
    /// records it as `failure.kind` `result_type`, not `tool_error`.
    pub const RESULT_TYPE: &'static str = "result_type";

    /// Whether the error leaves the call's outcome unknown (see
    /// [`ToolError::OUTCOME_UNKNOWN`]).
    pub fn outcome_unknown(&self) -> bool {
        Self::OUTCOME_UNKNOWN.contains(&self.code.as_str())
    }
}

/// Where tool calls go.
pub trait Backend: Sync {
    /// Makes one call and waits for its result. Never panics; every
    /// failure, the backend's own included, is a [`ToolError`].
    fn call(&self, call: &Call<'_>) -> Result<Data, ToolError>;

    /// Whether several calls may be in flight at once. When false the
    /// executor dispatches one step at a time, in source order.
    fn parallel(&self) -> bool {
        false
    }

    /// What the backend agreed with the tools' side when it started (for
    /// MCP, the negotiated protocol version and the server's name): traced
    /// once, as the `session` event, before the first call.
    fn session(&self) -> Option<Data> {
        None
    }
}

/// Where the executor's records go.
pub trait Sink {
    /// The whole progress record, after every change of a step's status.
    /// A file sink must replace its file atomically. An error stops the run.
    fn progress(&mut self, record: &crate::progress::ProgressRecord) -> Result<(), String>;

    /// One trace event (a JSON object with `event` and `step`).
    fn trace(&mut self, event: &Data) -> Result<(), String>;
}
