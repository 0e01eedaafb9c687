//! The executor's state machine (DESIGN section 10, rules 1–5).
//!
//! Per step: resolve arguments from artifacts → `pre` → guards → dispatch →
//! retry (idempotent steps, retryable errors, up to `retry` times) → `post`
//! → binds → commit. Steps run in dependency order; the ready steps of one
//! round run together when the backend allows it. Nothing a tool returns
//! changes which steps exist or their order: the set of steps is the IR's,
//! fixed before the first call.

use std::collections::BTreeSet;

use super::eval::{self, Artifacts};
use super::{Backend, Call, Data, Sink, ToolError};
use crate::ir::{Effect, OnUnmet, PlanIr, StepIr};
use crate::progress::{
    Failure, FailureKind, PROGRESS_VERSION, ProgressRecord, Status, Status as RecordStatus,
    StepRecord,
};

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
}

impl Stop {
    pub fn exit_status(&self) -> u8 {
        match self {
            Stop::Complete => 0,
            Stop::ApprovalMissing(_) | Stop::Halt { .. } => 1,
            Stop::Replan { .. } | Stop::Escalate { .. } => 3,
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
        }
    }

    fn step(&self) -> Option<&str> {
        match self {
            Stop::Halt { step } | Stop::Replan { step } | Stop::Escalate { step } => Some(step),
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

#[derive(Clone, Debug)]
struct State {
    status: Status,
    attempts: u64,
    args: Option<Artifacts>,
    binds: Artifacts,
    failure: Option<Failure>,
}

/// Every attempt of one call, and whether its retries are already traced.
struct Attempts {
    results: Vec<Result<Data, ToolError>>,
    traced: bool,
}

/// The result of preparing a step for dispatch.
enum Prepared {
    Ready(Artifacts),
    Failed(Failure),
}

struct Runner<'a> {
    ir: &'a PlanIr,
    states: Vec<State>,
    artifacts: Artifacts,
    sink: &'a mut dyn Sink,
    replans_used: u64,
    /// Complete steps of the earlier record that this plan does not have:
    /// kept in the record, so their artifacts stay available.
    carried: Vec<StepRecord>,
}

/// Runs `ir`. `approved` names the steps a person approved; `prior` is the
/// progress record of an earlier run of this plan (or of the plan this one
/// replaces): its complete steps are not dispatched again. The `Err` is a
/// failure of the command itself (a record that cannot be written, a record
/// that does not fit the plan), not of the plan.
pub fn run(
    ir: &PlanIr,
    approved: &BTreeSet<String>,
    prior: Option<&ProgressRecord>,
    backend: &dyn Backend,
    sink: &mut dyn Sink,
) -> Result<Outcome, String> {
    let mut r = Runner {
        ir,
        states: ir
            .steps
            .iter()
            .map(|_| State {
                status: Status::Pending,
                attempts: 0,
                args: None,
                binds: Artifacts::new(),
                failure: None,
            })
            .collect(),
        artifacts: Artifacts::new(),
        sink,
        replans_used: 0,
        carried: Vec::new(),
    };
    let reused = match prior {
        Some(record) => r.resume(record)?,
        None => Vec::new(),
    };
    r.write_record()?;

    // Rule 1: approvals before anything.
    let missing: Vec<String> = ir
        .approvals
        .iter()
        .filter(|s| !approved.contains(*s))
        .filter(|s| r.index(s).is_none_or(|i| r.status(i) != Status::Complete))
        .cloned()
        .collect();
    if !missing.is_empty() {
        for name in &missing {
            if let Some(i) = r.index(name) {
                r.fail(
                    i,
                    failure(
                        FailureKind::ApprovalMissing,
                        Data::object([("approval", "human".into())]),
                        Data::Null,
                    ),
                    Status::Failed,
                );
            }
        }
        r.write_record()?;
        let stop = Stop::ApprovalMissing(missing);
        let unapproved = Data::Array(missing_names(&stop));
        r.trace(
            event("stop", None)
                .with("reason", stop.reason().into())
                .with("unapproved", unapproved),
        )?;
        return Ok(Outcome {
            stop,
            record: r.record(),
            reused,
        });
    }

    let stop = r.drive(backend)?;
    r.trace(event("stop", stop.step()).with("reason", stop.reason().into()))?;
    Ok(Outcome {
        stop,
        record: r.record(),
        reused,
    })
}

impl Runner<'_> {
    fn index(&self, name: &str) -> Option<usize> {
        self.ir.steps.iter().position(|s| s.name == name)
    }

    fn status(&self, i: usize) -> Status {
        self.states.get(i).map_or(Status::Pending, |s| s.status)
    }

    fn state(&mut self, i: usize) -> Option<&mut State> {
        self.states.get_mut(i)
    }

    /// Takes the complete steps of an earlier record: their artifacts are
    /// in scope, and a step of this plan with the same name, tool and
    /// resolved arguments is complete without being dispatched. Complete
    /// steps this plan does not have are carried into the new record.
    fn resume(&mut self, record: &ProgressRecord) -> Result<Vec<String>, String> {
        for s in &record.steps {
            if s.status == RecordStatus::Complete {
                self.artifacts
                    .extend(s.binds.iter().map(|(k, v)| (k.clone(), v.clone())));
                if self.index(&s.name).is_none() {
                    self.carried.push(s.clone());
                }
            }
        }
        // A record of another plan (by name, or by its steps) is a replan's
        // starting point: one more replan used.
        let same_plan = record.plan == self.ir.name
            && record.steps.len() == self.ir.steps.len()
            && record
                .steps
                .iter()
                .zip(&self.ir.steps)
                .all(|(r, s)| r.name == s.name && r.tool == s.tool);
        self.replans_used = record.replans_used + u64::from(!same_plan);
        let mut reused = Vec::new();
        for (i, step) in self.ir.steps.iter().enumerate() {
            let Some(done) = record
                .step(&step.name)
                .filter(|d| d.status == RecordStatus::Complete)
            else {
                continue;
            };
            let args = eval::resolve_args(step, &self.artifacts).ok();
            let same_args = args
                .as_ref()
                .is_some_and(|a| Data::Object(a.clone()).same(&Data::Object(done.args.clone())));
            if done.tool == step.tool && same_args {
                if let Some(st) = self.state(i) {
                    st.status = Status::Complete;
                    st.args = args;
                    st.binds = done.binds.clone();
                    st.attempts = done.attempts;
                }
                reused.push(step.name.clone());
            } else if step.effect == Effect::Write && !step.idempotent {
                return Err(format!(
                    "the progress record says step `{}` completed with another tool or other arguments; \
                     running it again would repeat a committed write: compile a replan against the record",
                    step.name
                ));
            }
        }
        Ok(reused)
    }

    /// Rules 2 and 3: dependency order, rounds of ready steps, `on_unmet`.
    fn drive(&mut self, backend: &dyn Backend) -> Result<Stop, String> {
        // Set by the first failure whose `on_unmet` is replan or escalate:
        // independent steps still run, then the run stops.
        let mut stopping: Option<Stop> = None;
        loop {
            let ready: Vec<usize> = (0..self.ir.steps.len())
                .filter(|&i| self.is_ready(i))
                .collect();
            let round: Vec<usize> = if backend.parallel() {
                ready
            } else {
                ready.into_iter().take(1).collect()
            };
            if round.is_empty() {
                break;
            }
            // Prepare in source order; a halting failure stops dispatching
            // at once, so nothing after it in the round is dispatched.
            let mut batch: Vec<(usize, Artifacts)> = Vec::new();
            let mut halted: Option<Stop> = None;
            for &i in &round {
                match self.prepare(i)? {
                    Prepared::Ready(args) => batch.push((i, args)),
                    Prepared::Failed(f) => {
                        if let Some(stop) = self.settle(i, f)? {
                            if matches!(stop, Stop::Halt { .. }) {
                                halted = Some(stop);
                                break;
                            }
                            stopping = merge(stopping, stop);
                        }
                    }
                }
            }
            let results = self.dispatch_all(backend, &batch)?;
            for ((i, args), attempts) in batch.into_iter().zip(results) {
                if let Some(stop) = self.finish(i, args, attempts)? {
                    if matches!(stop, Stop::Halt { .. }) {
                        halted = halted.or(Some(stop));
                    } else {
                        stopping = merge(stopping, stop);
                    }
                }
            }
            if let Some(stop) = halted {
                return Ok(stop);
            }
        }
        if let Some(stop) = stopping {
            return Ok(stop);
        }
        // Every step that could run has run; one still pending waits on a
        // failed one, which has already decided the stop.
        match self
            .states
            .iter()
            .position(|s| s.status != Status::Complete)
        {
            None => Ok(Stop::Complete),
            Some(i) => Ok(Stop::Halt {
                step: self
                    .ir
                    .steps
                    .get(i)
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
            }),
        }
    }

    /// Pending, with every dependency complete.
    fn is_ready(&self, i: usize) -> bool {
        let Some(step) = self.ir.steps.get(i) else {
            return false;
        };
        self.status(i) == Status::Pending
            && self.states.get(i).is_some_and(|s| s.failure.is_none())
            && step.depends_on.iter().all(|d| {
                self.index(&d.step)
                    .is_some_and(|j| self.status(j) == Status::Complete)
            })
    }

    /// Resolve → `pre` → guards: everything decided before the call.
    fn prepare(&mut self, i: usize) -> Result<Prepared, String> {
        let Some(step) = self.ir.steps.get(i) else {
            return Err("internal error: no such step".into());
        };
        let args = match eval::resolve_args(step, &self.artifacts) {
            Ok(a) => a,
            Err(u) => {
                let path = std::iter::once(u.binding.clone())
                    .chain(u.path.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(".");
                self.trace(
                    event("bind_missing", Some(&step.name))
                        .with("binding", u.binding.into())
                        .with("path", path.clone().into()),
                )?;
                return Ok(Prepared::Failed(failure(
                    FailureKind::BindMissing,
                    Data::object([("path", path.into())]),
                    Data::Null,
                )));
            }
        };
        if let Err(unmet) = self.check_pre(step) {
            self.trace(
                event("precondition_unmet", Some(&step.name))
                    .with("expected", unmet.expected.clone())
                    .with("observed", unmet.observed.clone()),
            )?;
            return Ok(Prepared::Failed(failure(
                FailureKind::PreconditionUnmet,
                unmet.expected,
                unmet.observed,
            )));
        }
        if let Err(refusal) = eval::check_guards(step, &args) {
            let guard = Data::of(&refusal.guard);
            self.trace(
                event("guard_refused", Some(&step.name))
                    .with("expected", guard.clone())
                    .with("observed", refusal.observed.clone())
                    .with("message", refusal.reason.clone().into()),
            )?;
            if let Some(st) = self.state(i) {
                st.args = Some(args);
            }
            return Ok(Prepared::Failed(failure(
                FailureKind::GuardRefused,
                guard,
                refusal.observed,
            )));
        }
        Ok(Prepared::Ready(args))
    }

    /// The step's `pre` probes, against the artifacts bound so far
    /// (`eval::check_pre`; the IR has them from version 1.1).
    fn check_pre(&self, step: &StepIr) -> Result<(), eval::Unmet> {
        eval::check_pre(step, &self.artifacts)
    }

    /// Dispatches a round: every call's `dispatch` event in source order,
    /// the calls themselves (together when there are several), then their
    /// outcomes in source order.
    fn dispatch_all(
        &mut self,
        backend: &dyn Backend,
        batch: &[(usize, Artifacts)],
    ) -> Result<Vec<Attempts>, String> {
        let mut calls = Vec::new();
        for (i, args) in batch {
            let Some(step) = self.ir.steps.get(*i) else {
                return Err("internal error: no such step".into());
            };
            self.trace(dispatch_event(step, 1, args))?;
            calls.push((step, args));
        }
        if let [(step, args)] = calls.as_slice() {
            // One call: its retries are traced as they happen.
            let results = self.attempt_live(backend, step, args)?;
            return Ok(vec![Attempts {
                results,
                traced: true,
            }]);
        }
        let results: Vec<Attempts> = std::thread::scope(|scope| {
            let handles: Vec<_> = calls
                .iter()
                .map(|(step, args)| {
                    scope.spawn(move || {
                        attempts(backend, step, args, |_| Ok(())).unwrap_or_default()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| Attempts {
                    results: h.join().unwrap_or_else(|_| {
                        vec![Err(ToolError {
                            code: "backend_crashed".into(),
                            message: "the tool backend crashed during the call".into(),
                            retryable: false,
                        })]
                    }),
                    traced: false,
                })
                .collect()
        });
        Ok(results)
    }

    fn attempt_live(
        &mut self,
        backend: &dyn Backend,
        step: &StepIr,
        args: &Artifacts,
    ) -> Result<Vec<Result<Data, ToolError>>, String> {
        attempts(backend, step, args, |made| {
            self.trace_retry(step, made, args)
        })
    }

    fn trace_retry(
        &mut self,
        step: &StepIr,
        attempts: &[Result<Data, ToolError>],
        args: &Artifacts,
    ) -> Result<(), String> {
        if let Some(Err(e)) = attempts.last() {
            let made = u64::try_from(attempts.len()).unwrap_or(u64::MAX);
            self.trace(
                event("result", Some(&step.name))
                    .with("attempt", made.into())
                    .with("ok", false.into())
                    .with("error", error_data(e)),
            )?;
            self.trace(
                event("retry", Some(&step.name))
                    .with("attempt", (made + 1).into())
                    .with("of", (step.retry + 1).into()),
            )?;
            self.trace(dispatch_event(step, made + 1, args))?;
        }
        Ok(())
    }

    /// After the call: retries (traced when the round ran together), then
    /// `post` → binds → commit.
    fn finish(
        &mut self,
        i: usize,
        args: Artifacts,
        attempts: Attempts,
    ) -> Result<Option<Stop>, String> {
        let Some(step) = self.ir.steps.get(i) else {
            return Err("internal error: no such step".into());
        };
        // A round that ran together traces its retries now, in source
        // order; a single call traced them as they happened.
        let Attempts {
            results: attempts,
            traced,
        } = attempts;
        if !traced {
            for k in 1..attempts.len() {
                self.trace_retry(step, attempts.get(..k).unwrap_or(&[]), &args)?;
            }
        }
        let count = u64::try_from(attempts.len()).unwrap_or(u64::MAX);
        if let Some(st) = self.state(i) {
            st.attempts += count;
            st.args = Some(args);
        }
        let result = match attempts.into_iter().last() {
            Some(Ok(result)) => result,
            Some(Err(e)) => {
                self.trace(
                    event("result", Some(&step.name))
                        .with("attempt", count.into())
                        .with("ok", false.into())
                        .with("error", error_data(&e)),
                )?;
                return self.settle(i, tool_failure(&e));
            }
            None => return Err("internal error: a step was dispatched without a call".into()),
        };
        self.trace(
            event("result", Some(&step.name))
                .with("attempt", count.into())
                .with("ok", true.into())
                .with("result", result.clone()),
        )?;
        if let Err(unmet) = eval::check_post(step, &result) {
            self.trace(
                event("post_unmet", Some(&step.name))
                    .with("expected", unmet.expected.clone())
                    .with("observed", unmet.observed.clone()),
            )?;
            return self.settle(
                i,
                failure(FailureKind::PostUnmet, unmet.expected, unmet.observed),
            );
        }
        let binds = match eval::eval_binds(step, &result) {
            Ok(b) => b,
            Err(m) => {
                self.trace(
                    event("bind_missing", Some(&step.name))
                        .with("binding", m.binding.clone().into())
                        .with("path", m.path.clone().into()),
                )?;
                return self.settle(
                    i,
                    failure(
                        FailureKind::BindMissing,
                        Data::object([("binding", m.binding.into()), ("path", m.path.into())]),
                        result,
                    ),
                );
            }
        };
        self.artifacts
            .extend(binds.iter().map(|(k, v)| (k.clone(), v.clone())));
        let shown = Data::Object(binds.clone());
        if let Some(st) = self.state(i) {
            st.status = Status::Complete;
            st.binds = binds;
        }
        self.write_record()?;
        self.trace(event("complete", Some(&step.name)).with("binds", shown))?;
        Ok(None)
    }

    /// Records a failure and decides what it does to the run (rule 3).
    fn settle(&mut self, i: usize, failure: Failure) -> Result<Option<Stop>, String> {
        let Some(step) = self.ir.steps.get(i) else {
            return Err("internal error: no such step".into());
        };
        let name = step.name.clone();
        let kind = failure.kind;
        self.fail(i, failure, Status::Failed);
        // A precondition that does not hold makes the step invalid, with
        // what depends on its data (DESIGN 9.4).
        if kind == FailureKind::PreconditionUnmet {
            self.invalidate(i)?;
        }
        self.write_record()?;
        let on_unmet = if matches!(
            kind,
            FailureKind::GuardRefused | FailureKind::ApprovalMissing
        ) {
            OnUnmet::Halt
        } else {
            step.on_unmet
        };
        Ok(Some(match on_unmet {
            OnUnmet::Halt => Stop::Halt { step: name },
            OnUnmet::Replan => Stop::Replan { step: name },
            OnUnmet::Escalate => Stop::Escalate { step: name },
        }))
    }

    /// The one place invalidation (DESIGN 9.4) is applied, after a
    /// precondition fails at step `i`: the library's function decides; the
    /// step and its data dependents become `invalid` (they will not run),
    /// a step depending on them only by order stays `pending`.
    fn invalidate(&mut self, i: usize) -> Result<(), String> {
        let Some(step) = self.ir.steps.get(i) else {
            return Err("internal error: no such step".into());
        };
        let cause = crate::progress::Event::Precondition(step.name.clone());
        let inv = crate::progress::invalidate(self.ir, &self.record(), &cause)
            .map_err(|e| e.to_string())?;
        for change in &inv.steps {
            if change.after != Status::Invalid || change.before == Status::Invalid {
                continue;
            }
            if let Some(j) = self.index(&change.name)
                && let Some(st) = self.state(j)
            {
                st.status = Status::Invalid;
                st.binds.clear();
            }
            self.trace(
                event("invalidated", Some(&change.name))
                    .with("cause", change.cause.as_deref().into())
                    .with("scope", inv.scope.as_str().into()),
            )?;
        }
        Ok(())
    }

    fn fail(&mut self, i: usize, failure: Failure, status: Status) {
        if let Some(st) = self.state(i) {
            st.status = status;
            st.failure = Some(failure);
        }
    }

    fn trace(&mut self, event: Event) -> Result<(), String> {
        self.sink.trace(&event.0)
    }

    fn write_record(&mut self) -> Result<(), String> {
        let record = self.record();
        self.sink.progress(&record)
    }

    /// The progress record (DESIGN 9.2).
    fn record(&self) -> ProgressRecord {
        let mut steps: Vec<StepRecord> = self
            .ir
            .steps
            .iter()
            .zip(&self.states)
            .map(|(step, st)| StepRecord {
                name: step.name.clone(),
                tool: step.tool.clone(),
                status: st.status,
                effect: Some(step.effect),
                idempotent: Some(step.idempotent),
                attempts: st.attempts,
                args: st.args.clone().unwrap_or_default(),
                binds: if st.status == Status::Complete {
                    st.binds.clone()
                } else {
                    Artifacts::new()
                },
                failure: st.failure.clone(),
            })
            .collect();
        steps.extend(self.carried.iter().cloned());
        ProgressRecord {
            progress_version: PROGRESS_VERSION.to_string(),
            plan: self.ir.name.clone(),
            goal: self.ir.goal.clone(),
            replans_used: self.replans_used,
            steps,
        }
    }
}

/// A trace event under construction.
struct Event(Data);

impl Event {
    fn with(mut self, key: &str, value: Data) -> Event {
        self.0.set(key, value);
        self
    }
}

fn event(name: &str, step: Option<&str>) -> Event {
    Event(Data::object([
        ("event", name.into()),
        ("step", step.into()),
    ]))
}

fn dispatch_event(step: &StepIr, attempt: u64, args: &Artifacts) -> Event {
    event("dispatch", Some(&step.name))
        .with("tool", step.tool.as_str().into())
        .with("attempt", attempt.into())
        .with("args", Data::Object(args.clone()))
}

fn missing_names(stop: &Stop) -> Vec<Data> {
    match stop {
        Stop::ApprovalMissing(m) => m.iter().map(|s| s.as_str().into()).collect(),
        _ => Vec::new(),
    }
}

/// Every attempt of one call, retries included; `between` runs before
/// each retry with the attempts made so far (a single call traces them
/// there; a round running together traces them after the join).
fn attempts(
    backend: &dyn Backend,
    step: &StepIr,
    args: &Artifacts,
    mut between: impl FnMut(&[Result<Data, ToolError>]) -> Result<(), String>,
) -> Result<Vec<Result<Data, ToolError>>, String> {
    let mut out = Vec::new();
    loop {
        let r = backend.call(&Call { step, args });
        let again = matches!(&r, Err(e) if may_retry(step, e, out.len() + 1));
        out.push(r);
        if !again {
            return Ok(out);
        }
        between(&out)?;
    }
}

/// Rule 2's retry: only an idempotent step, only a retryable error, at most
/// `retry` more attempts.
fn may_retry(step: &StepIr, e: &ToolError, made: usize) -> bool {
    step.idempotent && e.retryable && u64::try_from(made).unwrap_or(u64::MAX) <= step.retry
}

fn failure(kind: FailureKind, expected: Data, observed: Data) -> Failure {
    Failure {
        kind,
        code: None,
        retryable: None,
        expected: Some(expected),
        observed: Some(observed),
    }
}

fn tool_failure(e: &ToolError) -> Failure {
    Failure {
        kind: FailureKind::ToolError,
        code: Some(e.code.clone()),
        retryable: Some(e.retryable),
        expected: None,
        observed: None,
    }
}

fn error_data(e: &ToolError) -> Data {
    Data::object([
        ("code", e.code.as_str().into()),
        ("message", e.message.as_str().into()),
        ("retryable", e.retryable.into()),
    ])
}

/// The stronger of two stops: an escalation outranks a replan.
fn merge(current: Option<Stop>, new: Stop) -> Option<Stop> {
    match (&current, &new) {
        (None, _) | (Some(Stop::Replan { .. }), Stop::Escalate { .. }) => Some(new),
        _ => current,
    }
}
