//! The executor's driver: [`run`], the command line's loop that drives the
//! step-wise state machine ([`Machine`], in `machine.rs`) over a
//! [`Backend`] and a [`Sink`], and what a run says ([`Stop`], [`Outcome`],
//! [`Dispatch`], [`Output`]).
//!
//! Per step: resolve arguments from artifacts → `pre` → guards → dispatch →
//! retry (idempotent steps, retryable errors, up to `retry` times) → `post`
//! → binds → commit. Steps run in dependency order; the ready steps of one
//! round run together when the driver allows it. Nothing a tool returns
//! changes which steps exist or their order: the set of steps is the IR's,
//! fixed before the first call.
//!
//! The machine does no IO and reads no clock: it is told what each call
//! returned and says what to call next, so the same input gives the same
//! decisions, the same record and the same trace whoever drives it — this
//! loop, a Python event loop, or a workflow engine replaying its history.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::eval::Artifacts;
use super::machine::{Machine, may_retry};
use super::{Backend, Call, Data, MachineError, RunError, Sink, ToolError};
use crate::ir::PlanIr;
use crate::progress::ProgressRecord;

/// How a run ended, and its exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every step is complete (exit 0).
    Complete,
    /// Steps needing approval were not approved; nothing ran (exit 1).
    ApprovalMissing(Vec<String>),
    /// A step failed with `on_unmet halt`, or a guard refused (exit 1).
    Halt { step: String },
    /// A step failed with `on_unmet replan` (exit 3).
    Replan { step: String },
    /// A step failed with `on_unmet escalate` (exit 3).
    Escalate { step: String },
    /// A write's outcome is unknown (`outcome_unknown`): it may have
    /// committed, so nothing more is dispatched until a person decides
    /// (exit 3; `docs/executors.md`).
    OutcomeUnknown { step: String },
}

impl Stop {
    pub fn exit_status(&self) -> u8 {
        match self {
            Stop::Complete => 0,
            Stop::ApprovalMissing(_) | Stop::Halt { .. } => 1,
            Stop::Replan { .. } | Stop::Escalate { .. } | Stop::OutcomeUnknown { .. } => 3,
        }
    }

    /// The `reason` of the trace's `stop` event.
    pub fn reason(&self) -> &'static str {
        match self {
            Stop::Complete => "complete",
            Stop::ApprovalMissing(_) => "approval_missing",
            Stop::Halt { .. } => "halt",
            Stop::Replan { .. } => "replan",
            Stop::Escalate { .. } => "escalate",
            Stop::OutcomeUnknown { .. } => "outcome_unknown",
        }
    }

    /// The step that decided the stop, when one did.
    pub fn step(&self) -> Option<&str> {
        match self {
            Stop::Halt { step }
            | Stop::Replan { step }
            | Stop::Escalate { step }
            | Stop::OutcomeUnknown { step } => Some(step),
            Stop::Complete | Stop::ApprovalMissing(_) => None,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub stop: Stop,
    /// The final progress record.
    pub record: ProgressRecord,
    /// Steps completed by an earlier run and not dispatched again.
    pub reused: Vec<String>,
}

/// One call the machine wants made now: every check before the call
/// (arguments resolved, `pre`, guards) has passed.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// The step's name (what [`Machine::complete`] is told).
    pub step: String,
    /// The step's position in the IR.
    pub index: usize,
    pub tool: String,
    /// The resolved arguments.
    pub args: Artifacts,
    /// 1 for the first call, 2 for the first retry, and so on.
    pub attempt: u64,
    /// A write's idempotency key (`docs/executors.md`): the same for every
    /// attempt and every dispatch of the same call of the same plan.
    /// `None` for a read.
    pub idempotency_key: Option<String>,
}

/// What the machine asks its driver to record, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The whole progress record, after a change of a step's status: to be
    /// written (atomically) before anything else is called.
    Progress(ProgressRecord),
    /// One trace event (a JSON object with `event` and `step`).
    Trace(Data),
}

/// Runs `ir` over `backend`, handing the record and the trace to `sink`.
/// `approved` names the steps a person approved; `prior` is the progress
/// record of an earlier run of this plan (or of the plan this one
/// replaces): its complete steps are not dispatched again; `redispatch`
/// names the writes it left with an unknown outcome that a person decided
/// did not commit ([`Machine::redispatch`]). The `Err` is a
/// failure of the command itself (a record that cannot be written, a record
/// that does not fit the plan), not of the plan.
///
/// A thin driver of [`Machine`]: the ready steps of a round are called
/// together (on threads) when the backend allows it, else one at a time;
/// the results of a round are given to the machine in source order, so the
/// trace is the same whichever call returns first.
pub fn run(
    ir: &PlanIr,
    approved: &BTreeSet<String>,
    prior: Option<&ProgressRecord>,
    redispatch: &[String],
    backend: &dyn Backend,
    sink: &mut dyn Sink,
) -> Result<Outcome, RunError> {
    let mut m = Machine::new(Arc::new(ir.clone()), approved, prior)?;
    for step in redispatch {
        m.redispatch(step)?;
    }
    flush(&mut m, sink)?;
    // What the backend agreed with the tools' side (an MCP server's
    // protocol version), once, before any call.
    if let Some(Data::Object(fields)) = backend.session() {
        let mut event = Data::object([("event", "session".into()), ("step", Data::Null)]);
        for (k, v) in fields {
            event.set(&k, v);
        }
        sink.trace(&event).map_err(RunError::Sink)?;
    }
    let parallel = backend.parallel();
    loop {
        let round = m.next(parallel)?;
        flush(&mut m, sink)?;
        if round.is_empty() {
            break;
        }
        if let [one] = round.as_slice() {
            // One call: its retries are made (and traced) as they come.
            let mut call = one.clone();
            loop {
                let result = call_backend(&m, backend, &call);
                let again = m.complete(&call.step, result)?;
                flush(&mut m, sink)?;
                match again {
                    Some(retry) => call = retry,
                    None => break,
                }
            }
            continue;
        }
        let results = call_together(&m, backend, &round);
        for (call, attempts) in round.iter().zip(results) {
            for result in attempts {
                m.complete(&call.step, result)?;
            }
            flush(&mut m, sink)?;
        }
    }
    let Some(stop) = m.finished().cloned() else {
        return Err(MachineError::Internal("the run ended with calls in flight").into());
    };
    Ok(Outcome {
        stop,
        record: m.record(),
        reused: m.reused().to_vec(),
    })
}

/// Hands the machine's outputs to the sink, in order.
fn flush(m: &mut Machine, sink: &mut dyn Sink) -> Result<(), RunError> {
    for out in m.drain() {
        match out {
            Output::Progress(record) => sink.progress(&record).map_err(RunError::Sink)?,
            Output::Trace(event) => sink.trace(&event).map_err(RunError::Sink)?,
        }
    }
    Ok(())
}

fn call_backend(m: &Machine, backend: &dyn Backend, call: &Dispatch) -> Result<Data, ToolError> {
    match m.ir().steps.get(call.index) {
        Some(step) => backend.call(&Call {
            step,
            args: &call.args,
            idempotency_key: call.idempotency_key.as_deref(),
        }),
        None => Err(ToolError {
            code: "internal".into(),
            message: "internal error: no such step".into(),
            retryable: false,
        }),
    }
}

/// A round's calls on threads, each with its retries; every attempt's
/// result, per call, in the round's order.
fn call_together(
    m: &Machine,
    backend: &dyn Backend,
    round: &[Dispatch],
) -> Vec<Vec<Result<Data, ToolError>>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = round
            .iter()
            .map(|call| {
                scope.spawn(move || {
                    let step = m.ir().steps.get(call.index);
                    let mut out = Vec::new();
                    loop {
                        let r = call_backend(m, backend, call);
                        let again = matches!((&r, step), (Err(e), Some(step)) if may_retry(step, e, out.len() + 1));
                        out.push(r);
                        if !again {
                            return out;
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Err(ToolError {
                        code: "backend_crashed".into(),
                        message: "the tool backend crashed during the call".into(),
                        retryable: false,
                    })]
                })
            })
            .collect()
    })
}
