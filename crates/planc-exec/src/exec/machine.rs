//! The executor (`docs/executors.md`, rules 1–5 of "What an executor must do") as a step-wise state
//! machine: [`Machine`] is told what each call returned and says what to
//! call next.
//!
//! Per step: resolve arguments from artifacts → `pre` → guards → dispatch →
//! retry (idempotent steps, retryable errors, up to `retry` times) → `post`
//! → binds → commit. Steps run in dependency order; the ready steps of one
//! round run together when the driver allows it. Nothing a tool returns
//! changes which steps exist or their order: the set of steps is the IR's,
//! fixed before the first call.
//!
//! The machine does no IO and reads no clock: the same input gives the same
//! decisions, the same record and the same trace whoever drives it — the
//! command line's loop (`run.rs`), a Python event loop, or a workflow
//! engine replaying its history.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::eval::{self, Artifacts};
use super::run::{Dispatch, Output, Stop};
use super::{Data, MachineError, ToolError};
use crate::ir::{Effect, OnUnmet, PlanIr, StepIr, Str};
use crate::progress::{
    Failure, FailureKind, PROGRESS_VERSION, ProgressRecord, Status, Status as RecordStatus,
    StepRecord,
};

#[derive(Clone, Debug)]
struct State {
    status: Status,
    attempts: u64,
    args: Option<Artifacts>,
    binds: Artifacts,
    failure: Option<Failure>,
    /// The attempts of the call in flight (0 when none is).
    calling: u64,
    /// The arguments of the call in flight.
    call_args: Artifacts,
    /// A write the earlier record left in flight or with an unknown
    /// outcome: it may have committed, so it is not dispatched again
    /// unless a person decided so ([`Machine::redispatch`]).
    unknown: bool,
    /// The idempotency key of the step's write, once dispatched.
    key: Option<String>,
}

/// The result of preparing a step for dispatch.
enum Prepared {
    Ready(Artifacts),
    Failed(Failure),
}

/// The executor as a state machine. Built from the IR, the approvals and
/// an earlier record; [`next`](Machine::next) gives the calls due now,
/// [`complete`](Machine::complete) takes what one returned, and
/// [`drain`](Machine::drain) gives the progress records and trace events
/// to write, in order. No IO, no clock, no randomness: the same calls and
/// results always give the same outputs.
#[derive(Clone, Debug)]
pub struct Machine {
    ir: Arc<PlanIr>,
    /// Each step's index by its name: the machine looks steps up by name
    /// for every dependency of every ready check and every completion.
    index_of: planc_lang::FastMap<Str, usize>,
    /// The plan's fingerprint whatever record the IR was compiled against
    /// (`ir::plan_fingerprint`): what the record carries, and what tells a
    /// resume from a replan.
    plan_fingerprint: String,
    states: Vec<State>,
    artifacts: Artifacts,
    out: Vec<Output>,
    replans_used: u64,
    /// Complete steps of the earlier record that this plan does not have:
    /// kept in the record, so their artifacts stay available.
    carried: Vec<StepRecord>,
    reused: Vec<String>,
    /// The first halting stop: nothing more is dispatched.
    halted: Option<Stop>,
    /// Set by the first failure whose `on_unmet` is replan or escalate:
    /// independent steps still run, then the run stops.
    stopping: Option<Stop>,
    finished: Option<Stop>,
    /// Whether [`next`](Machine::next) has been called: the writes of
    /// unknown outcome are settled then, after any decision.
    started: bool,
}

impl Machine {
    /// A machine for `ir`. `approved` names the steps a person approved;
    /// `prior` is the record of an earlier run (its complete steps are not
    /// dispatched again). Rule 1 is decided here: with a step unapproved
    /// the machine is finished at once and nothing is ever dispatched. The
    /// `Err` is a record that does not fit the plan.
    pub fn new(
        ir: Arc<PlanIr>,
        approved: &BTreeSet<String>,
        prior: Option<&ProgressRecord>,
    ) -> Result<Machine, MachineError> {
        let mut m = Machine {
            states: ir
                .steps
                .iter()
                .map(|_| State {
                    status: Status::Pending,
                    attempts: 0,
                    args: None,
                    binds: Artifacts::new(),
                    failure: None,
                    calling: 0,
                    call_args: Artifacts::new(),
                    unknown: false,
                    key: None,
                })
                .collect(),
            // An IR that cannot be fingerprinted was refused before it got
            // here (`verify`); its own field then makes every record of
            // another IR a replan, the stricter reading.
            plan_fingerprint: crate::ir::plan_fingerprint(&ir)
                .unwrap_or_else(|_| ir.fingerprint.to_string()),
            index_of: {
                let mut index = planc_lang::FastMap::default();
                for (i, s) in ir.steps.iter().enumerate() {
                    index.entry(s.name.clone()).or_insert(i);
                }
                index
            },
            ir,
            artifacts: Artifacts::new(),
            out: Vec::new(),
            replans_used: 0,
            carried: Vec::new(),
            reused: Vec::new(),
            halted: None,
            stopping: None,
            finished: None,
            started: false,
        };
        if let Some(record) = prior {
            record::check_reused(&m.ir, record)?;
            m.reused = m.resume(record)?;
        }
        m.reuse_compiled();
        m.write_record();

        // Rule 1: approvals before anything.
        // A step whose own `authz.approval` asks for one needs it, listed
        // in `approvals` or not (docs/executors.md).
        let needing = needing_approval(&m.ir);
        let missing: Vec<String> = needing
            .into_iter()
            .filter(|s| !approved.iter().any(|a| a == *s))
            .filter(|s| m.index(s).is_none_or(|i| m.status(i) != Status::Complete))
            .map(|s| s.to_string())
            .collect();
        if !missing.is_empty() {
            for name in &missing {
                if let Some(i) = m.index(name) {
                    m.fail(
                        i,
                        failure(
                            FailureKind::ApprovalMissing,
                            Data::object([("approval", "human".into())]),
                            Data::Null,
                        ),
                    );
                }
            }
            m.write_record();
            let unapproved = Data::Array(missing.iter().map(|s| s.as_str().into()).collect());
            let stop = Stop::ApprovalMissing(missing);
            m.trace(
                event("stop", None)
                    .with("reason", stop.reason().into())
                    .with("unapproved", unapproved),
            );
            m.finished = Some(stop);
        }
        Ok(m)
    }

    /// The plan being run.
    pub fn ir(&self) -> &PlanIr {
        &self.ir
    }

    /// Steps completed by an earlier run and not dispatched again.
    pub fn reused(&self) -> &[String] {
        &self.reused
    }

    /// How the run ended, once it has (the `stop` event is then traced).
    pub fn finished(&self) -> Option<&Stop> {
        self.finished.as_ref()
    }

    /// The progress records and trace events since the last call, in the
    /// order they happened.
    pub fn drain(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.out)
    }

    /// Steps dispatched whose result the machine has not been given yet.
    pub fn in_flight(&self) -> Vec<&str> {
        self.ir
            .steps
            .iter()
            .zip(&self.states)
            .filter(|(_, st)| st.calling > 0)
            .map(|(step, _)| step.name.as_str())
            .collect()
    }

    /// A person's decision that a write the earlier record left with an
    /// unknown outcome did not commit: it is dispatched again (with the
    /// same idempotency key). Only before the first [`next`](Machine::next),
    /// and only for such a step.
    pub fn redispatch(&mut self, step: &str) -> Result<(), MachineError> {
        if self.started {
            return Err(MachineError::RedispatchAfterStart);
        }
        let i = self
            .index(step)
            .ok_or_else(|| MachineError::NoSuchStep(step.to_string()))?;
        match self.state(i) {
            Some(st) if st.unknown => {
                st.unknown = false;
                st.status = Status::Pending;
            }
            _ => {
                return Err(MachineError::NothingToRedispatch(step.to_string()));
            }
        }
        self.trace(event("redispatch", Some(step)));
        Ok(())
    }

    /// The writes the earlier record left with an unknown outcome, not
    /// decided by a person: each fails with `outcome_unknown` and the run
    /// stops before anything is dispatched.
    fn settle_unknown(&mut self) {
        let unknown: Vec<usize> = (0..self.states.len())
            .filter(|&i| self.states.get(i).is_some_and(|s| s.unknown))
            .collect();
        if unknown.is_empty() || self.finished.is_some() {
            return;
        }
        for &i in &unknown {
            let key = self.states.get(i).and_then(|s| s.key.clone());
            let name = self
                .ir
                .steps
                .get(i)
                .map(|s| s.name.to_string())
                .unwrap_or_default();
            self.trace(
                event("outcome_unknown", Some(&name))
                    .with("idempotency_key", key.as_deref().into())
                    .with("message", "the earlier run dispatched this write and never recorded its outcome: it may have committed".into()),
            );
            self.fail(i, unknown_failure(None, key.as_deref()));
            if self.halted.is_none() {
                self.halted = Some(Stop::OutcomeUnknown { step: name });
            }
        }
        self.write_record();
    }

    /// Rules 2 and 3: the calls due now, in source order — every pending
    /// step whose dependencies are complete, past its `pre` and guards (a
    /// step that fails them is settled here, and a halting failure stops
    /// the round at once). With `together` false, one call at a time.
    /// Empty when nothing can be dispatched now: then, with nothing in
    /// flight, the run is [`finished`](Machine::finished) and its `stop`
    /// event traced.
    pub fn next(&mut self, together: bool) -> Result<Vec<Dispatch>, MachineError> {
        if !self.started {
            self.started = true;
            self.settle_unknown();
        }
        let mut batch: Vec<Dispatch> = Vec::new();
        while self.finished.is_none() && self.halted.is_none() && batch.is_empty() {
            let ready: Vec<usize> = (0..self.ir.steps.len())
                .filter(|&i| self.is_ready(i))
                .collect();
            if ready.is_empty() || (!together && !self.in_flight().is_empty()) {
                break;
            }
            let round = if together {
                ready
            } else {
                ready.into_iter().take(1).collect()
            };
            // Prepare in source order; a halting failure stops dispatching
            // at once, so nothing after it in the round is dispatched.
            for i in round {
                match self.prepare(i)? {
                    Prepared::Ready(args) => {
                        let Some(step) = self.ir.steps.get(i) else {
                            return Err(MachineError::Internal("no such step"));
                        };
                        // A write the earlier record left with an unknown
                        // outcome, dispatched again by a person's decision,
                        // keeps the key it was first sent with: the plan
                        // compiled against the record has another
                        // fingerprint, and the tool must see the same call.
                        let recorded = self
                            .states
                            .get(i)
                            .filter(|st| st.args.as_ref() == Some(&args))
                            .and_then(|st| st.key.clone());
                        let idempotency_key = (step.effect == Effect::Write)
                            .then(|| {
                                recorded.or_else(|| {
                                    key::idempotency_key(&self.ir.fingerprint, &step.name, &args)
                                })
                            })
                            .flatten();
                        batch.push(Dispatch {
                            step: step.name.clone().to_string(),
                            index: i,
                            tool: step.tool.clone().to_string(),
                            args,
                            attempt: 1,
                            idempotency_key,
                        });
                    }
                    Prepared::Failed(f) => {
                        self.settle(i, f)?;
                        if self.halted.is_some() {
                            break;
                        }
                    }
                }
            }
        }
        let ir = Arc::clone(&self.ir);
        // A write is recorded `in_flight` before it is dispatched: a run
        // killed during the call leaves a record that says so.
        let mut writes = false;
        for call in &batch {
            let write = ir
                .steps
                .get(call.index)
                .is_some_and(|s| s.effect == Effect::Write);
            writes |= write;
            if let Some(st) = self.state(call.index) {
                st.calling = 1;
                st.call_args = call.args.clone();
                st.key = call.idempotency_key.clone();
                if write {
                    st.status = Status::InFlight;
                    st.args = Some(call.args.clone());
                }
            }
        }
        if writes {
            self.write_record();
        }
        for call in &batch {
            if let Some(step) = ir.steps.get(call.index) {
                self.trace(dispatch_event(
                    step,
                    1,
                    &call.args,
                    call.idempotency_key.as_deref(),
                ));
            }
        }
        if batch.is_empty() && self.in_flight().is_empty() && self.finished.is_none() {
            let stop = self.stop();
            self.trace(event("stop", stop.step()).with("reason", stop.reason().into()));
            self.finished = Some(stop);
        }
        Ok(batch)
    }

    /// How the run stops once nothing more can be dispatched.
    fn stop(&self) -> Stop {
        if let Some(stop) = self.halted.clone().or_else(|| self.stopping.clone()) {
            return stop;
        }
        // Every step that could run has run; one still pending waits on a
        // failed one, which has already decided the stop.
        match self
            .states
            .iter()
            .position(|s| s.status != Status::Complete)
        {
            None => Stop::Complete,
            Some(i) => Stop::Halt {
                step: (self
                    .ir
                    .steps
                    .get(i)
                    .map(|s| s.name.clone())
                    .unwrap_or_default())
                .to_string(),
            },
        }
    }

    /// What one call of `step` returned. On a tool error the machine may
    /// retry (rule 2: idempotent steps, retryable errors, up to `retry`
    /// more attempts): the retry is returned, to be called next. Otherwise
    /// `post` → binds → commit, or the failure and what it does to the run
    /// (rule 3).
    pub fn complete(
        &mut self,
        step: &str,
        result: Result<Data, ToolError>,
    ) -> Result<Option<Dispatch>, MachineError> {
        let ir = Arc::clone(&self.ir);
        let Some((i, s)) = self.index(step).and_then(|i| Some((i, ir.steps.get(i)?))) else {
            return Err(MachineError::NoSuchStep(step.to_string()));
        };
        let Some(st) = self.states.get(i) else {
            return Err(MachineError::Internal("no such step"));
        };
        let made = st.calling;
        if made == 0 {
            return Err(MachineError::NotInFlight(step.to_string()));
        }
        let args = st.call_args.clone();
        if let Err(e) = &result
            && may_retry(s, e, usize::try_from(made).unwrap_or(usize::MAX))
        {
            self.trace(
                event("result", Some(&s.name))
                    .with("attempt", made.into())
                    .with("ok", false.into())
                    .with("error", error_data(e)),
            );
            self.trace(
                event("retry", Some(&s.name))
                    .with("attempt", (made + 1).into())
                    .with("of", (s.retry + 1).into()),
            );
            let idempotency_key = self.state(i).and_then(|st| {
                st.calling = made + 1;
                st.key.clone()
            });
            self.trace(dispatch_event(
                s,
                made + 1,
                &args,
                idempotency_key.as_deref(),
            ));
            return Ok(Some(Dispatch {
                step: s.name.clone().to_string(),
                index: i,
                tool: s.tool.clone().to_string(),
                args,
                attempt: made + 1,
                idempotency_key,
            }));
        }
        if let Some(st) = self.state(i) {
            st.calling = 0;
            st.attempts += made;
            st.call_args = Artifacts::new();
            st.args = Some(args);
        }
        self.finish(i, s, made, result)?;
        Ok(None)
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.index_of.get(name).copied()
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
    fn resume(&mut self, record: &ProgressRecord) -> Result<Vec<String>, MachineError> {
        for s in &record.steps {
            if s.status == RecordStatus::Complete {
                self.artifacts
                    .extend(s.binds.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            // A write that may have committed is history too: a replan
            // that drops it keeps it in the record.
            if (s.status == RecordStatus::Complete || s.outcome_unknown())
                && self.index(&s.name).is_none()
            {
                self.carried.push(s.clone());
            }
        }
        // A record of another plan (by its plan fingerprint, its name or its
        // steps) is a replan's starting point: one more replan used. The
        // same plan compiled against its own record is a resume (the plan
        // fingerprint leaves out what the IR took from the record); a
        // record without a fingerprint is never one. A record written
        // before records carried the plan fingerprint names the IR's own.
        let same_plan = record.fingerprint.as_deref().is_some_and(|f| {
            f == self.plan_fingerprint || (!f.is_empty() && f == self.ir.fingerprint.as_str())
        }) && record.is_of(
            &self.ir.name,
            self.ir
                .steps
                .iter()
                .map(|s| (s.name.as_str(), s.tool.as_str())),
        );
        // The replan budget, held here for every driver, whatever was
        // checked before (the checker compares the same fingerprints).
        if !same_plan
            && let Some(budget) = self.ir.budget.replans
            && record.replans_used >= budget
        {
            return Err(MachineError::ReplanBudget {
                used: record.replans_used,
                budget,
                record_fingerprint: record.fingerprint.clone(),
                plan_fingerprint: self.plan_fingerprint.clone(),
            });
        }
        self.replans_used = record.replans_used + u64::from(!same_plan);
        let mut reused = Vec::new();
        let ir = Arc::clone(&self.ir);
        let recorded = record.steps_by_name();
        for (i, step) in ir.steps.iter().enumerate() {
            let Some(&done) = recorded.get(step.name.as_str()) else {
                continue;
            };
            if done.outcome_unknown() {
                // In flight when the run stopped, or lost during the call:
                // a write that is not idempotent may have committed.
                if (step.effect.repeats(step.idempotent) || done.repeats_effect())
                    && let Some(st) = self.state(i)
                {
                    st.unknown = true;
                    st.args = Some(done.args.clone());
                    st.attempts = done.attempts;
                    st.key = done.idempotency_key.clone();
                }
                continue;
            }
            if done.status != RecordStatus::Complete {
                continue;
            }
            let args = eval::resolve_args(step, &self.artifacts).ok();
            let same_args = args
                .as_ref()
                .is_some_and(|a| Data::same_args(a, &done.args));
            if done.tool == step.tool && same_args {
                if let Some(st) = self.state(i) {
                    st.status = Status::Complete;
                    st.args = args;
                    st.binds = done.binds.clone();
                    st.attempts = done.attempts;
                }
                reused.push(step.name.to_string());
            } else if step.effect.repeats(step.idempotent) {
                return Err(MachineError::WouldRepeatWrite {
                    step: step.name.to_string(),
                });
            }
        }
        Ok(reused)
    }

    /// Takes what a replan's IR says was already done (`planc compile
    /// --progress`): the recorded artifacts it uses are in scope, and a step
    /// marked `"reuse": true` is complete with the binds the IR carries,
    /// never dispatched.
    fn reuse_compiled(&mut self) {
        if let Some(p) = &self.ir.progress {
            self.artifacts
                .extend(p.artifacts_in.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let ir = Arc::clone(&self.ir);
        for (i, step) in ir.steps.iter().enumerate() {
            if step.reuse != Some(true) {
                continue;
            }
            let binds = step.artifacts.clone().unwrap_or_default();
            if self.status(i) == Status::Complete {
                // Made complete from the record, whose values agree
                // (`record::check_reused`): the IR's are the ones used.
                self.artifacts
                    .extend(binds.iter().map(|(k, v)| (k.clone(), v.clone())));
                if let Some(st) = self.state(i) {
                    st.binds = binds;
                }
                continue;
            }
            self.artifacts
                .extend(binds.iter().map(|(k, v)| (k.clone(), v.clone())));
            let args = eval::resolve_args(step, &self.artifacts).ok();
            if let Some(st) = self.state(i) {
                st.status = Status::Complete;
                st.args = args;
                st.binds = binds;
            }
            self.reused.push(step.name.clone().to_string());
        }
    }

    /// Pending, not in flight, with every dependency complete.
    fn is_ready(&self, i: usize) -> bool {
        let Some(step) = self.ir.steps.get(i) else {
            return false;
        };
        self.status(i) == Status::Pending
            && self
                .states
                .get(i)
                .is_some_and(|s| s.failure.is_none() && s.calling == 0)
            && step.depends_on.iter().all(|d| {
                self.index(&d.step)
                    .is_some_and(|j| self.status(j) == Status::Complete)
            })
    }

    /// Resolve → `pre` → guards: everything decided before the call.
    fn prepare(&mut self, i: usize) -> Result<Prepared, MachineError> {
        let ir = Arc::clone(&self.ir);
        let Some(step) = ir.steps.get(i) else {
            return Err(MachineError::Internal("no such step"));
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
                );
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
            );
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
            );
            if let Some(st) = self.state(i) {
                st.args = Some(args);
            }
            return Ok(Prepared::Failed(failure(
                FailureKind::GuardRefused,
                guard,
                refusal.observed,
            )));
        }
        // An argument fed by a result of no declared type (N0307) is
        // checked against its parameter's type before the call (a guard
        // over it has refused a value of the wrong kind already).
        if let Err(out) = eval::check_arg_types(step, &args) {
            let failed =
                self.outside_type(step, &out, ("arg", "argument", "the call was not made"));
            if let Some(st) = self.state(i) {
                st.args = Some(args);
            }
            return Ok(Prepared::Failed(failed));
        }
        // The ledger: totals and the call bound over the complete calls
        // of this tool, the resumed record's included (`machine/ledger.rs`).
        if !step.authz.aggregates.is_empty() || step.authz.calls_max.is_some() {
            let complete: Vec<&Artifacts> = ir
                .steps
                .iter()
                .zip(&self.states)
                .filter(|(s, st)| s.tool == step.tool && st.status == Status::Complete)
                .filter_map(|(_, st)| st.args.as_ref())
                .chain(
                    self.carried
                        .iter()
                        .filter(|r| r.tool == step.tool.as_str() && r.status == Status::Complete)
                        .map(|r| &r.args),
                )
                .collect();
            if let Err(over) = ledger::check(step, &args, &complete) {
                self.trace(
                    event("guard_refused", Some(&step.name))
                        .with("expected", over.expected.clone())
                        .with("observed", over.observed.clone())
                        .with("message", over.reason.into()),
                );
                if let Some(st) = self.state(i) {
                    st.args = Some(args);
                }
                return Ok(Prepared::Failed(failure(
                    FailureKind::GuardRefused,
                    over.expected,
                    over.observed,
                )));
            }
        }
        Ok(Prepared::Ready(args))
    }

    /// The step's `pre` probes, against the artifacts bound so far
    /// (`eval::check_pre`; the IR has them from version 1.1).
    fn check_pre(&self, step: &StepIr) -> Result<(), eval::Unmet> {
        eval::check_pre(step, &self.artifacts)
    }

    /// After the last attempt: `post` → binds → commit, or the failure.
    fn finish(
        &mut self,
        i: usize,
        step: &StepIr,
        count: u64,
        result: Result<Data, ToolError>,
    ) -> Result<(), MachineError> {
        let result = match result {
            Ok(result) => result,
            Err(e) => {
                self.trace(
                    event("result", Some(&step.name))
                        .with("attempt", count.into())
                        .with("ok", false.into())
                        .with("error", error_data(&e)),
                );
                if step.effect == Effect::Write && e.outcome_unknown() {
                    let key = self.states.get(i).and_then(|s| s.key.clone());
                    return self.settle(i, unknown_failure(Some(&e), key.as_deref()));
                }
                // A backend that found the result outside the tool's
                // declared type (an MCP `outputSchema`): nothing is bound.
                if e.code == ToolError::RESULT_TYPE {
                    let expected = Data::object([("message", e.message.as_str().into())]);
                    self.trace(
                        event("result_type", Some(&step.name))
                            .with("message", e.message.as_str().into()),
                    );
                    return self.settle(i, failure(FailureKind::ResultType, expected, Data::Null));
                }
                return self.settle(i, tool_failure(&e));
            }
        };
        self.trace(
            event("result", Some(&step.name))
                .with("attempt", count.into())
                .with("ok", true.into())
                .with("result", result.clone()),
        );
        if let Err(unmet) = eval::check_post(step, &result) {
            self.trace(
                event("post_unmet", Some(&step.name))
                    .with("expected", unmet.expected.clone())
                    .with("observed", unmet.observed.clone()),
            );
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
                );
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
        // Before binding: each bound value against its declared type.
        if let Err(out) = eval::check_result_types(step, &binds) {
            let failed = self.outside_type(step, &out, ("binding", "binding", "nothing was bound"));
            return self.settle(i, failed);
        }
        self.artifacts
            .extend(binds.iter().map(|(k, v)| (k.clone(), v.clone())));
        let shown = Data::Object(binds.clone());
        if let Some(st) = self.state(i) {
            st.status = Status::Complete;
            st.binds = binds;
        }
        self.write_record();
        self.trace(event("complete", Some(&step.name)).with("binds", shown));
        Ok(())
    }

    /// A value outside its declared type (`result_type`): traced, and the
    /// failure to record. `(key, noun, outcome)` say what it was — the
    /// key of `expected` (`binding` or `arg`), the word for it in the
    /// message, and what did not happen.
    fn outside_type(
        &mut self,
        step: &StepIr,
        out: &eval::Outside,
        (key, noun, outcome): (&str, &str, &str),
    ) -> Failure {
        let expected = out.expected(key);
        let message = format!(
            "{noun} `{}`: {}; {outcome}",
            out.name,
            out.mismatch.describe()
        );
        self.trace(
            event("result_type", Some(&step.name))
                .with("expected", expected.clone())
                .with("observed", out.mismatch.observed.clone())
                .with("message", message.into()),
        );
        failure(
            FailureKind::ResultType,
            expected,
            out.mismatch.observed.clone(),
        )
    }

    /// Records a failure and decides what it does to the run (rule 3).
    fn settle(&mut self, i: usize, failure: Failure) -> Result<(), MachineError> {
        let ir = Arc::clone(&self.ir);
        let Some(step) = ir.steps.get(i) else {
            return Err(MachineError::Internal("no such step"));
        };
        let name = step.name.clone();
        let kind = failure.kind;
        self.fail(i, failure);
        // A precondition that does not hold makes the step invalid, with
        // what depends on its data (`docs/replanning.md`, "Invalidation").
        if kind == FailureKind::PreconditionUnmet {
            self.invalidate(i)?;
        }
        self.write_record();
        if kind == FailureKind::OutcomeUnknown {
            // Whatever `on_unmet` says: a person decides first.
            if self.halted.is_none() {
                self.halted = Some(Stop::OutcomeUnknown {
                    step: name.to_string(),
                });
            }
            return Ok(());
        }
        let on_unmet = if matches!(
            kind,
            FailureKind::GuardRefused | FailureKind::ApprovalMissing
        ) {
            OnUnmet::Halt
        } else {
            step.on_unmet
        };
        match on_unmet {
            OnUnmet::Halt => {
                if self.halted.is_none() {
                    self.halted = Some(Stop::Halt {
                        step: name.to_string(),
                    });
                }
            }
            OnUnmet::Replan => {
                self.stopping = merge(
                    self.stopping.take(),
                    Stop::Replan {
                        step: name.to_string(),
                    },
                )
            }
            OnUnmet::Escalate => {
                self.stopping = merge(
                    self.stopping.take(),
                    Stop::Escalate {
                        step: name.to_string(),
                    },
                )
            }
        }
        Ok(())
    }

    /// The one place invalidation (`docs/replanning.md`, "Invalidation") is applied, after a
    /// precondition fails at step `i`: the library's function decides; the
    /// step and its data dependents become `invalid` (they will not run),
    /// a step depending on them only by order stays `pending`.
    fn invalidate(&mut self, i: usize) -> Result<(), MachineError> {
        let ir = Arc::clone(&self.ir);
        let Some(step) = ir.steps.get(i) else {
            return Err(MachineError::Internal("no such step"));
        };
        let cause = crate::progress::Event::Precondition(step.name.clone().to_string());
        let inv = crate::progress::invalidate(&ir, &self.record(), &cause)?;
        for change in &inv.steps {
            if change.after != Status::Invalid || change.before == Status::Invalid {
                continue;
            }
            if let Some(j) = self.index(&change.name)
                && let Some(st) = self.state(j)
            {
                // Marking, not deletion: a complete step's artifacts stay
                // in the record, marked, so that a replan still using
                // one is told so (E0308).
                st.status = Status::Invalid;
            }
            self.trace(
                event("invalidated", Some(&change.name))
                    .with("cause", change.cause.as_deref().into())
                    .with("scope", inv.scope.as_str().into()),
            );
        }
        Ok(())
    }

    fn fail(&mut self, i: usize, failure: Failure) {
        if let Some(st) = self.state(i) {
            st.status = Status::Failed;
            st.failure = Some(failure);
        }
    }

    fn trace(&mut self, event: Event) {
        self.out.push(Output::Trace(event.0));
    }

    fn write_record(&mut self) {
        let record = self.record();
        self.out.push(Output::Progress(record));
    }

    /// The progress record (`docs/replanning.md`, "The progress record").
    pub fn record(&self) -> ProgressRecord {
        let mut steps: Vec<StepRecord> = self
            .ir
            .steps
            .iter()
            .zip(&self.states)
            .map(|(step, st)| StepRecord {
                name: step.name.clone().to_string(),
                tool: step.tool.clone().to_string(),
                status: st.status,
                effect: Some(step.effect),
                idempotent: Some(step.idempotent),
                attempts: st.attempts + st.calling,
                args: st.args.clone().unwrap_or_default(),
                binds: if matches!(st.status, Status::Complete | Status::Invalid) {
                    st.binds.clone()
                } else {
                    Artifacts::new()
                },
                failure: st.failure.clone(),
                idempotency_key: st.key.clone(),
            })
            .collect();
        steps.extend(self.carried.iter().cloned());
        ProgressRecord {
            progress_version: PROGRESS_VERSION.to_string(),
            plan: self.ir.name.clone().to_string(),
            goal: self.ir.goal.clone(),
            replans_used: self.replans_used,
            steps,
            fingerprint: (!self.plan_fingerprint.is_empty()).then(|| self.plan_fingerprint.clone()),
            hmac: None,
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

fn dispatch_event(step: &StepIr, attempt: u64, args: &Artifacts, key: Option<&str>) -> Event {
    let e = event("dispatch", Some(&step.name))
        .with("tool", step.tool.as_str().into())
        .with("attempt", attempt.into())
        .with("args", Data::Object(args.clone()));
    match key {
        Some(key) => e.with("idempotency_key", key.into()),
        None => e,
    }
}

/// Rule 2's retry: only an idempotent step, only a retryable error, at most
/// `retry` more attempts.
/// A write whose outcome is unknown is never retried (`outcome_unknown`).
pub fn may_retry(step: &StepIr, e: &ToolError, made: usize) -> bool {
    step.idempotent
        && e.retryable
        && !(step.effect == Effect::Write && e.outcome_unknown())
        && u64::try_from(made).unwrap_or(u64::MAX) <= step.retry
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

/// A write whose outcome is unknown: the error that left it so (none when
/// the earlier run stopped during the call), never retryable; `observed`
/// the idempotency key it was dispatched with, to look for on the tool's
/// side.
fn unknown_failure(e: Option<&ToolError>, key: Option<&str>) -> Failure {
    Failure {
        kind: FailureKind::OutcomeUnknown,
        code: Some(e.map_or_else(|| "in_flight".to_string(), |e| e.code.clone())),
        retryable: Some(false),
        expected: None,
        observed: Some(Data::object([("idempotency_key", key.into())])),
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

/// The steps whose approval the policy or the IR asks for: every step
/// listed in `approvals` or whose `authz.approval` is set.
pub fn needing_approval(ir: &PlanIr) -> std::collections::BTreeSet<&str> {
    ir.approvals
        .iter()
        .map(|s| s.as_str())
        .chain(
            ir.steps
                .iter()
                .filter(|s| s.authz.approval.is_some())
                .map(|s| s.name.as_str()),
        )
        .collect()
}

mod key;
mod ledger;
mod record;
