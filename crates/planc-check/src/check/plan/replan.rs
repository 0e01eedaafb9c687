//! A replan checked against the progress record of the run it repairs
//! (`docs/replanning.md`). The hook into the checker is narrow: references that name
//! a recorded artifact instead of a binding of the plan
//! ([`Checker::recorded_ref`], [`Checker::recorded_text`]), one pass after
//! the steps' arguments are checked and before authorization
//! ([`Checker::decide_reuse`], so that a ceiling over a reused step's
//! artifact is decided from its recorded value: [`Checker::reused_literal`]),
//! and the model's part at the end ([`Checker::replan`]).
//!
//! - A `complete` step's artifacts are in scope. A reference to one is its
//!   recorded value, checked where it stands as a literal written there
//!   would be: typed against the parameter, and under a ceiling decided now
//!   (E0303 when over it; within it, neither a guard nor N0302). The record
//!   does not say which part of its tool's result the artifact was bound
//!   from, so the value's own type is what is checked. It keeps its taint:
//!   an untrusted tool's recorded output marks the argument it feeds.
//! - A reused step's bindings keep the type the tool declares at their
//!   `bind` path, and hold their recorded values: each use is checked to
//!   fit (E0309), and a ceiling over one is decided now, as above.
//! - A reference to an artifact of an `invalid` step (kept by invalidation,
//!   no longer reusable) or one a `failed` step never committed is E0308.
//! - A step named like a `complete` step, with the same tool, the same
//!   resolved arguments and binds the record holds, is reused (N0303). The
//!   arguments are resolved as the executor resolves them
//!   ([`planc_exec::exec::eval::resolve`]), from the recorded values of the
//!   steps reused before it, so the checker and the executor agree on what
//!   "the same call" is.
//! - Not reused, a `complete` step that is not repeatable (a `write` that is
//!   not idempotent) would repeat its committed effect: E0306. A write step
//!   that is not idempotent making the call of a `complete` step of another
//!   name is E0307, or W0405 when an argument is known only at dispatch.
//! - The replan budget: `replans_used` at or over the plan's `replans` is
//!   E0305.

use std::collections::BTreeMap;

use super::*;
use crate::check::ir_form;
use crate::progress::{FailureKind, JsonValue, ProgressRecord, Status, StepRecord};
use planc_exec::exec::eval;

/// Where a recorded artifact comes from.
enum Recorded<'r> {
    /// Committed by a `complete` step (at this index of the record): in
    /// scope, with its value.
    Complete(&'r StepRecord, &'r JsonValue, usize),
    /// Of a step that is `invalid` or `failed`: not to be used.
    Lost(&'r StepRecord, usize),
}

/// How a step's call compares with a recorded call.
enum Call {
    Same,
    /// Differs in the tool or in an argument known now (the reason).
    Differs(String),
    /// May be the same: the argument named is known only at dispatch.
    Unknown(String),
    /// Differs only in free-text arguments (`string` parameters): perhaps
    /// the same effect in other words (the reason).
    FreeText(String),
}

impl<'a> Checker<'a, '_> {
    fn record(&self) -> Option<&'a ProgressRecord> {
        self.env.progress.map(|p| p.record)
    }

    /// Where step `index` of the record is written, else the record.
    pub(super) fn record_step_span(&self, index: usize) -> Option<Span> {
        let spans = self.env.progress?.spans;
        spans.steps.get(index).copied().or(spans.record)
    }

    /// The recorded artifact `name`, if the record knows it.
    fn recorded(&self, name: &str) -> Option<Recorded<'a>> {
        let record = self.record()?;
        record.steps.iter().enumerate().find_map(|(at, s)| {
            if let Some(v) = s.binds.get(name) {
                return Some(match s.status {
                    Status::Complete => Recorded::Complete(s, v, at),
                    _ => Recorded::Lost(s, at),
                });
            }
            // A `failed` step's `bind_missing` names the artifact it did
            // not commit.
            let missing = s.status == Status::Failed
                && s.failure.as_ref().is_some_and(|f| {
                    f.kind == FailureKind::BindMissing
                        && f.expected
                            .as_ref()
                            .and_then(|e| e.get("binding"))
                            .and_then(JsonValue::as_str)
                            == Some(name)
                });
            missing.then_some(Recorded::Lost(s, at))
        })
    }

    /// Whether a reference names a recorded artifact rather than a binding
    /// of the plan (a binding of the plan wins: the step binds it again).
    pub(super) fn is_recorded(&self, r: &ast::Reference) -> bool {
        let name = r.name.node.as_str();
        self.binding_named(name).is_none() && self.recorded(name).is_some()
    }

    /// A reference to a recorded artifact, as its value checked against
    /// `expected`; `None` when the reference is not to one.
    pub(super) fn recorded_ref(
        &mut self,
        i: usize,
        r: &ast::Reference,
        span: Span,
        expected: &Ty,
        what: What<'_>,
    ) -> Option<TypedValue> {
        if !self.is_recorded(r) {
            return None;
        }
        let error = TypedValue {
            kind: ValueKind::Error,
            ty: Ty::Error,
            span,
        };
        let Some((value, step)) = self.recorded_value(i, r) else {
            return Some(error);
        };
        let expr = json_expr(value, span);
        let before = self.diags.len();
        let checked = self.check_expr(i, &expr, expected, what);
        // A value that does not fit says where it was recorded.
        let at = self.artifact_span(&r.name.node);
        let shown = format!("`{}` was recorded here, by step `{step}`", r.name.node);
        for d in self.diags.iter_mut().skip(before) {
            if let Some(at) = at {
                d.labels.push(crate::diagnostics::Label {
                    span: at,
                    message: shown.clone().into(),
                });
            }
        }
        Some(checked)
    }

    /// A recorded artifact written into a string: its text, or `None` after
    /// an error (reported).
    pub(super) fn recorded_text(
        &mut self,
        i: usize,
        r: &ast::Reference,
        span: Span,
    ) -> Option<String> {
        let (value, _) = self.recorded_value(i, r)?;
        match value {
            JsonValue::String(s) => Some(s.clone()),
            JsonValue::Number(n) => Some(n.as_str().to_string()),
            JsonValue::Bool(_) | JsonValue::Null => Some(value.to_json_string()),
            JsonValue::Array(_) | JsonValue::Object(_) => {
                let d = Diagnostic::new(
                    Code::E0201,
                    span,
                    format!(
                        "`{}` is a recorded {}, which cannot be written into a string",
                        super::args::reference_text(r),
                        if matches!(value, JsonValue::Array(_)) {
                            "list"
                        } else {
                            "record"
                        }
                    ),
                )
                .with_label("not a single value")
                .with_help("interpolate a field that holds a string, number, date or boolean");
                self.report(i, d);
                None
            }
        }
    }

    pub(super) fn artifact_span(&self, name: &str) -> Option<Span> {
        self.env.progress?.spans.artifacts.get(name).copied()
    }

    /// The recorded value a reference names (its members followed), with
    /// the step that recorded it; `None` after E0308 or E0202 (reported).
    fn recorded_value(&mut self, i: usize, r: &ast::Reference) -> Option<(&'a JsonValue, &'a str)> {
        let name = r.name.node.as_str();
        match self.recorded(name)? {
            Recorded::Lost(step, at) => {
                let (label, help) = match step.status {
                    Status::Failed => (
                        format!("step `{}` failed before committing it", step.name),
                        format!(
                            "add a step that binds `{name}` (step `{}` again, or a repair of it) before this one",
                            step.name
                        ),
                    ),
                    _ => (
                        format!(
                            "step `{}` was invalidated: its value no longer holds",
                            step.name
                        ),
                        format!(
                            "bind `{name}` again: keep step `{}` (or a replacement of it) in this plan, before this step",
                            step.name
                        ),
                    ),
                };
                let mut d = Diagnostic::new(
                    Code::E0308,
                    r.name.span,
                    format!(
                        "`{name}` comes from step `{}`, which is `{}` in the progress record, and no step of this plan binds it again",
                        step.name, step.status
                    ),
                )
                .with_label("not a usable artifact")
                .with_help(help);
                if let Some(span) = self.record_step_span(at) {
                    d = d.with_secondary(span, label);
                }
                self.report(i, d);
                None
            }
            Recorded::Complete(step, value, at) => {
                self.artifacts_in.insert(name.to_string(), value.clone());
                // A recorded value is written as a literal, but its data
                // is what the tool returned: an untrusted tool's stays so,
                // and so does one the catalogue does not know (whoever wrote
                // the record chose the name: fail closed).
                let rule = self.env.policy.and_then(|p| p.rule(&step.tool));
                let tool = self.env.catalog.get(&step.tool);
                if tool.is_none() || crate::policy::untrusted_output(tool, rule) {
                    self.recorded_taint = Some(Untrusted::Recorded(Box::new(RecordedTaint {
                        step: step.name.clone().into(),
                        tool: step.tool.clone().into(),
                        at,
                    })));
                }
                let mut at = value;
                let mut shown = name.to_string();
                for m in &r.members {
                    match at.get(&m.node) {
                        Some(v) => at = v,
                        None => {
                            let mut d = Diagnostic::new(
                                Code::E0202,
                                m.span,
                                format!(
                                    "`{shown}` has no field `{}` in its recorded value",
                                    m.node
                                ),
                            )
                            .with_label("no such field");
                            if let JsonValue::Object(fields) = at {
                                let names: Vec<&str> = fields.keys().map(String::as_str).collect();
                                let near = self.env.nearest(&m.node, names.iter().copied());
                                d = policy::add_suggestion(d, &near, m.span);
                                if near.is_empty() {
                                    d = d.with_help(format!(
                                        "`{shown}` has the fields {}",
                                        list_names(&names)
                                    ));
                                }
                            } else {
                                d = d.with_help(format!(
                                    "`{shown}` is recorded as `{}`, not a record",
                                    at.to_json_string()
                                ));
                            }
                            if let Some(span) = self.artifact_span(name) {
                                d = d.with_secondary(
                                    span,
                                    format!("`{name}` was recorded here, by step `{}`", step.name),
                                );
                            }
                            self.report(i, d);
                            return None;
                        }
                    }
                    shown.push('.');
                    shown.push_str(&m.node);
                }
                Some((at, step.name.as_str()))
            }
        }
    }

    /// A `pre` over a recorded artifact, decided now: the record holds the
    /// value the executor would test, so the probe is evaluated on it as
    /// the executor evaluates a `pre` ([`eval::probe_holds`]). Holding, it
    /// is kept out of the IR; unmet, it is E0116. An artifact that is no
    /// longer usable is E0308, as it is in an argument.
    pub(super) fn recorded_pre(
        &mut self,
        i: usize,
        probe: &ast::Probe,
        path: &ast::Path,
        r: &ast::Reference,
        rest: &[Spanned<PathSeg>],
    ) {
        let Some((value, step)) = self.recorded_value(i, r) else {
            return;
        };
        let segs: Vec<PathSeg> = rest.iter().map(|s| s.node.clone()).collect();
        let found = eval::at_path(value, &crate::syntax::path::write(&segs));
        // The record carries values, not types: the probe's literal is
        // read as the executor reads it, whatever the value's kind.
        let Some(kind) = self.probe_test(i, &probe.kind, path, &Ty::Any, Vec::new()) else {
            return;
        };
        if eval::probe_holds(&ir_form::probe(&kind), found) {
            return;
        }
        let name = r.name.node.as_str();
        let shown = found.map_or("absent".to_string(), |v| {
            format!("`{}`", v.to_json_string())
        });
        let mut d = Diagnostic::new(
            Code::E0116,
            probe.span,
            format!(
                "this precondition does not hold: `{path}` is recorded as {shown}, by step `{step}`"
            ),
        )
        .with_label("unmet, decided from the progress record")
        .with_help(format!(
            "a recorded artifact keeps its value: drop or correct this `pre`, or bind `{name}` again in this plan (keep step `{step}`, or a replacement of it) so that it is tested at dispatch"
        ));
        if let Some(at) = self.artifact_span(name) {
            d = d.with_secondary(at, format!("`{name}` was recorded here, by step `{step}`"));
        }
        self.report(i, d);
    }

    /// The pass after every step's arguments are checked, before
    /// authorization: which steps are reused, and repeated effects.
    pub(super) fn decide_reuse(&mut self, steps: &[Box<CheckedStep>]) {
        let Some(progress) = self.env.progress else {
            return;
        };
        let record = progress.record;
        // The record's steps by name (the first complete one) and its
        // committed steps by tool, built once: a scan per step is quadratic.
        let mut complete: FastMap<&str, usize> = FastMap::default();
        let mut committed: FastMap<&str, Vec<usize>> = FastMap::default();
        for (at, s) in record.steps.iter().enumerate() {
            if s.status == Status::Complete {
                complete.entry(s.name.as_str()).or_insert(at);
            }
            if s.status == Status::Complete || s.outcome_unknown() {
                committed.entry(s.tool.as_str()).or_default().push(at);
            }
        }
        let mut known: eval::Artifacts = BTreeMap::new();
        let mut reuse = Vec::with_capacity(steps.len());
        for step in steps {
            let done = complete
                .get(step.name.as_str())
                .and_then(|&at| Some((at, record.steps.get(at)?)));
            let reused = self.reuse(step, done, record, &known);
            if let Some(binds) = &reused {
                known.extend(binds.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            if reused.is_none() {
                let same_tool = step
                    .tool
                    .as_ref()
                    .and(committed.get(step.tool_name.as_str()))
                    .map_or(&[][..], Vec::as_slice);
                self.repeated_effect(step, record, same_tool, &known);
            }
            reuse.push(reused);
        }
        self.reuse = reuse;
        for step in steps {
            for arg in &step.args {
                self.check_reused_uses(step.index, &arg.value);
            }
        }
    }

    /// The replan's part of the model, and the replan budget. `None`
    /// without a progress record.
    pub(super) fn replan(&mut self) -> Option<Replan> {
        let record = self.record()?;
        let resume_unless = self.replan_budget(record).map(Box::new);
        Some(Replan {
            resume_unless,
            replans_used: record.replans_used,
            artifacts_in: std::mem::take(&mut self.artifacts_in),
            reuse: std::mem::take(&mut self.reuse),
        })
    }

    /// The recorded value a reference to a reused step's binding holds
    /// (its members followed; `None` for an absent member); `None` when the
    /// binding's step is not reused.
    fn reused_value(&self, r: &RefValue) -> Option<Option<JsonValue>> {
        let binds = self.reuse.get(r.step)?.as_ref()?;
        let mut at = binds.get(r.binding.as_str());
        for m in &r.members {
            at = at.and_then(|v| v.get(m));
        }
        Some(at.cloned())
    }

    /// A recorded value as the literal it stands for, typed as `ty`; the
    /// diagnostics it would get, written there, otherwise (not reported).
    fn recorded_literal(
        &mut self,
        i: usize,
        value: &JsonValue,
        ty: &Ty,
        span: Span,
    ) -> Result<TypedValue, Vec<Diagnostic>> {
        let before = self.diags.len();
        let checked = self.check_expr(i, &json_expr(value, span), ty, What::Plain("the value"));
        let found: Vec<Diagnostic> = self.diags.drain(before..).collect();
        if found.iter().any(Diagnostic::is_error) {
            Err(found)
        } else {
            Ok(checked)
        }
    }

    /// E0309 for each reference in `value` to a reused step's binding whose
    /// recorded value does not fit the binding's declared type: the type
    /// comes from the tool's declaration, the value from the record, and
    /// the two must agree for the value to be used as known.
    fn check_reused_uses(&mut self, i: usize, value: &TypedValue) {
        let mut uses: Vec<(&RefValue, &Ty)> = Vec::new();
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match &v.kind {
                ValueKind::Literal(_) | ValueKind::Error => {}
                ValueKind::Ref(r) => uses.push((r, &v.ty)),
                ValueKind::Interp(parts) => uses.extend(parts.iter().filter_map(|p| match p {
                    InterpPiece::Ref { reference, ty } => Some((reference, ty)),
                    InterpPiece::Text(_) => None,
                })),
                ValueKind::List(items) => stack.extend(items.iter()),
                ValueKind::Record(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            }
        }
        for (r, ty) in uses {
            if ty.is_error() {
                continue;
            }
            let Some(recorded) = self.reused_value(r) else {
                continue;
            };
            let step = name_in(&self.heads, r.step).clone();
            let shown_value = recorded.as_ref().map_or("absent".to_string(), |v| {
                format!("`{}`", v.to_json_string())
            });
            // An absent field is `null` to its type: fine when optional.
            let value = recorded.unwrap_or(JsonValue::Null);
            if self.recorded_literal(i, &value, ty, r.span).is_ok() {
                continue;
            }
            let mut shown = r.binding.to_string();
            for m in &r.members {
                shown.push('.');
                shown.push_str(m);
            }
            let mut d = Diagnostic::new(
                Code::E0309,
                r.span,
                format!(
                    "`{shown}` is recorded as {shown_value}, which does not fit its declared type `{ty}`"
                ),
            )
            .with_label(format!("does not fit `{ty}`"))
            .with_help(format!(
                "the record disagrees with what `{}` declares: run step `{step}` again (change it, or mark its artifact changed with `planc invalidate --event changed:{}`), or correct the tool's declared result",
                self.env
                    .progress
                    .and_then(|p| p.record.step(&step))
                    .map_or("the tool", |s| s.tool.as_str()),
                r.binding
            ));
            if let Some(at) = self.artifact_span(&r.binding) {
                d = d.with_secondary(
                    at,
                    format!("`{}` was recorded here, by step `{step}`", r.binding),
                );
            }
            if let Some(b) = self.bindings.get(r.binding_index) {
                d = d.with_secondary(
                    b.path_span,
                    format!("`{}` is bound here, and typed by the tool's result", b.name),
                );
            }
            self.report(i, d);
        }
    }

    /// The recorded value of an argument that refers to a reused step's
    /// binding, as a literal of the argument's type, with the step that
    /// recorded it and where: known now, as a literal written there would
    /// be (`None` otherwise, and when it does not fit: E0309 says so).
    pub(super) fn reused_literal(
        &mut self,
        i: usize,
        value: &TypedValue,
    ) -> Option<(Value, String, Option<Span>)> {
        let ValueKind::Ref(r) = &value.kind else {
            return None;
        };
        let recorded = self.reused_value(r)??;
        match self.recorded_literal(i, &recorded, &value.ty, value.span) {
            Ok(TypedValue {
                kind: ValueKind::Literal(v),
                ..
            }) => Some((
                v,
                self.step_name(r.step).to_string(),
                self.artifact_span(&r.binding),
            )),
            _ => None,
        }
    }

    /// E0305 when the run has used its replans. The record of this very
    /// plan is a resume, not a replan (as the executor counts): a plan
    /// with the record's name, steps and tools that reuses every step the
    /// record completed is one only if the record names its plan
    /// fingerprint, known once it is lowered. The E0305 it gets otherwise
    /// is returned, for [`crate::check::resume_fingerprints`] to decide.
    fn replan_budget(&mut self, record: &ProgressRecord) -> Option<Diagnostic> {
        // The stricter of the plan's `replans` and the policy's `replans <=`:
        // the operator's bound holds whatever the planner writes.
        let ours = self.plan.replans.map(|b| (b, "plan"));
        let theirs = self
            .env
            .policy
            .and_then(|p| p.replans)
            .map(|b| (b, "policy"));
        let (budget, whose) = match (ours, theirs) {
            (Some(a), Some(b)) => Some(if b.0.node < a.0.node { b } else { a }),
            (a, b) => a.or(b),
        }?;
        let steps = self
            .heads
            .iter()
            .map(|s| (s.name.node.as_str(), s.tool.node.as_str()));
        if record.replans_used < budget.node {
            return None;
        }
        // The record's plan again (its name, steps and tools) is a resume
        // only if every step it completed is reused here: a complete step
        // this plan would call again with another call is not the plan
        // that wrote the record. (The executor decides by the plan
        // fingerprint, which also sees a changed step that had not run;
        // `docs/replanning.md`.)
        let changed = record
            .steps
            .iter()
            .filter(|s| s.status == Status::Complete)
            .find(|s| {
                self.heads
                    .iter()
                    .position(|p| p.name.node == s.name)
                    .is_some_and(|i| self.reuse.get(i).is_none_or(Option::is_none))
            })
            .map(|s| s.name.clone());
        let same_plan = record.is_of(&self.plan.name.node, steps);
        let mut d = Diagnostic::new(
            Code::E0305,
            budget.span,
            format!(
                "the run has used {} of its {} replans: this replan is over the budget",
                record.replans_used, budget.node
            ),
        )
        .with_label(if whose == "policy" {
            format!("the policy's `replans <= {}` is spent", budget.node)
        } else {
            format!("`replans {}` is spent", budget.node)
        })
        .with_help("stop replanning and escalate to a person: a loop that keeps replanning thrashes instead of converging");
        if let (true, Some(step)) = (same_plan, &changed) {
            d = d.with_note(format!(
                "the record's steps have this plan's names and tools, but step `{step}` completed with another call: this plan is a replan, not a resume"
            ));
        }
        if let Some(span) = self.env.progress.and_then(|p| p.spans.replans_used) {
            d = d.with_secondary(
                span,
                format!("the record says {} replans were used", record.replans_used),
            );
        }
        if same_plan && changed.is_none() {
            return Some(d);
        }
        self.diags.push(d);
        None
    }

    /// The recorded binds of `step` when it is reused, reporting N0303 or,
    /// for a step that would repeat a committed effect, E0306.
    fn reuse(
        &mut self,
        step: &CheckedStep,
        done: Option<(usize, &'a StepRecord)>,
        record: &'a ProgressRecord,
        known: &eval::Artifacts,
    ) -> Option<BTreeMap<String, JsonValue>> {
        // `done`: the record's complete step of this name, with its index.
        let Some((at, done)) = done else {
            self.unknown_outcome(step, record, known);
            return None;
        };
        let call = compare_call(step, done, known, &self.heads)?;
        let mut binds = BTreeMap::new();
        let mut lacking = None;
        for b in step.binds.clone() {
            let Some(binding) = self.bindings.get(b) else {
                continue;
            };
            match done.binds.get(binding.name.as_str()) {
                Some(v) => {
                    binds.insert(binding.name.to_string(), v.clone());
                }
                None => lacking = lacking.or(Some(binding.name.clone())),
            }
        }
        let why = match (call, lacking) {
            (Call::Same, None) => {
                let mut d = Diagnostic::new(
                    Code::N0303,
                    step.name_span,
                    format!(
                        "step `{}` is reused: it completed with the same tool and arguments",
                        step.name
                    ),
                )
                .with_label("not run again: its recorded artifacts are used");
                if let Some(span) = self.record_step_span(at) {
                    d = d.with_secondary(span, "recorded `complete` here");
                }
                self.report(step.index, d);
                return Some(binds);
            }
            (Call::Same, Some(name)) => format!("it binds `{name}`, which the record lacks"),
            (Call::Differs(why) | Call::Unknown(why) | Call::FreeText(why), _) => why,
        };
        if repeats_effect(step, done) {
            let mut d = Diagnostic::new(
                Code::E0306,
                step.name_span,
                format!(
                    "step `{}` already completed a `write` that is not idempotent, and this replan would run it again",
                    step.name
                ),
            )
            .with_label(why)
            .with_help(format!(
                "a replan does not undo a committed effect: keep step `{}` as it ran (`{}` with the recorded arguments) so that it is reused, or remove it",
                step.name, done.tool
            ));
            if let Some(span) = self.record_step_span(at) {
                d = d.with_secondary(span, format!("`{}` completed here", done.tool));
            }
            self.report(step.index, d);
        }
        None
    }

    /// E0306 for a step named like a write that is not idempotent whose
    /// outcome the record leaves unknown (`in_flight`, `outcome_unknown`):
    /// it may have committed, so calling it with another tool or other
    /// arguments under its name would act a second time. The same call
    /// under its name is left to the executor, which stops for a person's
    /// decision before dispatching it (`docs/replanning.md`).
    fn unknown_outcome(
        &mut self,
        step: &CheckedStep,
        record: &'a ProgressRecord,
        known: &eval::Artifacts,
    ) {
        let Some((at, done)) = record
            .steps
            .iter()
            .enumerate()
            .find(|(_, s)| s.name == step.name && s.outcome_unknown())
        else {
            return;
        };
        if !repeats_effect(step, done) {
            return;
        }
        let why = match compare_call(step, done, known, &self.heads) {
            Some(Call::Differs(why)) => why,
            Some(Call::FreeText(why)) => why,
            Some(Call::Same | Call::Unknown(_)) | None => return,
        };
        let mut d = Diagnostic::new(
            Code::E0306,
            step.name_span,
            format!(
                "step `{}` dispatched a `write` that is not idempotent whose outcome is unknown, and this replan would run it again",
                step.name
            ),
        )
        .with_label(why)
        .with_help(format!(
            "the write may have committed: keep step `{}` as it ran (`{}` with the recorded arguments), \
             so that the executor stops for a decision, or remove it once its outcome is known",
            step.name, done.tool
        ));
        if let Some(span) = self.record_step_span(at) {
            d = d.with_secondary(span, format!("`{}` dispatched here", done.tool));
        }
        self.report(step.index, d);
    }

    /// E0307 (or W0405) when a write that is not idempotent makes the call
    /// of a `complete` step of another name, or of one whose outcome is
    /// unknown (it may have committed).
    fn repeated_effect(
        &mut self,
        step: &CheckedStep,
        record: &ProgressRecord,
        same_tool: &[usize],
        known: &eval::Artifacts,
    ) {
        let Some(tool) = step.tool.as_ref() else {
            return;
        };
        if !tool.effect.repeats(tool.idempotent) {
            return;
        }
        // `same_tool`: the record's committed steps (complete, or of
        // unknown outcome) that called this tool, in record order.
        for &at in same_tool {
            let Some(done) = record.steps.get(at) else {
                continue;
            };
            if done.name == step.name || done.tool != step.tool_name {
                continue;
            }
            let (code, label, help) = match compare_call(step, done, known, &self.heads) {
                Some(Call::Same) => (
                    Code::E0307,
                    "the same call, which is not idempotent: it would act twice".to_string(),
                    format!(
                        "step `{}` already made this call: use its recorded artifacts instead, or name this step `{}` so that it is reused",
                        done.name, done.name
                    ),
                ),
                Some(Call::Unknown(why)) => (
                    Code::W0405,
                    why,
                    format!(
                        "if it is the same call, name this step `{}` so that it is reused; if not, make the difference an argument known now",
                        done.name
                    ),
                ),
                Some(Call::FreeText(why)) => (
                    Code::W0405,
                    why,
                    format!(
                        "if it asks for the same effect, name this step `{}` so that it is reused; a policy rule `calls <=` on `{}` bounds how often it may act",
                        done.name, step.tool_name
                    ),
                ),
                Some(Call::Differs(_)) | None => continue,
            };
            let message = if code == Code::E0307 {
                format!(
                    "step `{}` repeats the call step `{}` already made: `{}` with the same arguments",
                    step.name, done.name, step.tool_name
                )
            } else {
                format!(
                    "step `{}` may repeat the call step `{}` already made: `{}` with the same arguments",
                    step.name, done.name, step.tool_name
                )
            };
            let mut d = Diagnostic::new(code, step.name_span, message)
                .with_label(label)
                .with_help(help);
            if let Some(span) = self.record_step_span(at) {
                let label = if done.outcome_unknown() {
                    format!(
                        "step `{}` dispatched this call here; its outcome is unknown, so it may have committed",
                        done.name
                    )
                } else {
                    format!("step `{}` completed this call here", done.name)
                };
                d = d.with_secondary(span, label);
            }
            self.report(step.index, d);
        }
    }
}

/// Whether running `step` again would repeat `done`'s effect: what the
/// record says of the tool, or, when it leaves that unsaid, the catalogue.
fn repeats_effect(step: &CheckedStep, done: &StepRecord) -> bool {
    match step.tool.as_ref().filter(|_| step.tool_name == done.tool) {
        Some(t) if done.effect.is_none() || done.idempotent.is_none() => {
            t.effect.repeats(t.idempotent)
        }
        _ => done.repeats_effect(),
    }
}

/// How `step`'s call compares with the recorded call `done`, its arguments
/// resolved from the values known now; `None` when an error made an
/// argument unknown (already reported).
///
/// Calls are compared normalised: an argument left out, one given as
/// `null` and one given its parameter's default are the same call (the
/// step's arguments already hold the defaults), and numbers compare as
/// exact decimals (`500.0` is `500.00`). Arguments that differ only where
/// the parameter is free text (`string`) are [`Call::FreeText`]: perhaps
/// the same effect in other words.
fn compare_call(
    step: &CheckedStep,
    done: &StepRecord,
    known: &eval::Artifacts,
    heads: &[StepHead],
) -> Option<Call> {
    if step.tool_name != done.tool {
        return Some(Call::Differs(format!(
            "it calls `{}`, where `{}` was recorded",
            step.tool_name, done.tool
        )));
    }
    let mut unknown = None;
    let mut free_text = None;
    for arg in &step.args {
        let value = ir_form::value(&arg.value, &|i| name_in(heads, i).clone())?;
        match eval::resolve(&value, known) {
            Ok(v) => {
                let recorded = done.args.get(arg.name.as_str()).unwrap_or(&JsonValue::Null);
                if v.same(recorded) {
                    continue;
                }
                if is_free_text(&arg.param_ty) {
                    free_text = free_text.or(Some(arg.name.clone()));
                    continue;
                }
                let why = if done.args.contains_key(arg.name.as_str()) {
                    format!("argument `{}` differs from the recorded call", arg.name)
                } else {
                    format!("argument `{}` was not in the recorded call", arg.name)
                };
                return Some(Call::Differs(why));
            }
            Err(_) => unknown = unknown.or(Some(arg.name.clone())),
        }
    }
    // A recorded argument this step leaves out: the same only when it was
    // `null` (absent is `null`).
    if let Some((name, _)) = done
        .args
        .iter()
        .find(|(k, v)| step.arg(k).is_none() && **v != JsonValue::Null)
    {
        return Some(Call::Differs(format!(
            "the recorded call had argument `{name}`, which this step does not pass"
        )));
    }
    Some(match (unknown, free_text) {
        (Some(name), _) => Call::Unknown(format!("argument `{name}` is known only at dispatch")),
        (None, Some(name)) => Call::FreeText(format!(
            "it differs from the recorded call only in the free text of `{name}`"
        )),
        (None, None) => Call::Same,
    })
}

/// A parameter whose value is free text: a plain (or optional) `string`,
/// where other words may ask for the same effect.
fn is_free_text(ty: &Ty) -> bool {
    match ty {
        Ty::String => true,
        Ty::Optional(inner) => matches!(**inner, Ty::String),
        _ => false,
    }
}

/// A recorded value as the expression a planner would write for it, every
/// part at `span` (the reference's).
fn json_expr(v: &JsonValue, span: Span) -> ast::Expr {
    let kind = match v {
        JsonValue::Null => ast::ExprKind::Literal(ast::Literal::Null),
        JsonValue::Bool(b) => ast::ExprKind::Literal(ast::Literal::Bool(*b)),
        JsonValue::String(s) => ast::ExprKind::Literal(ast::Literal::String(s.clone().into())),
        JsonValue::Number(n) => match crate::syntax::json_plan::number_literal(n.as_str()) {
            Some(lit) => ast::ExprKind::Literal(lit),
            // Too long to write out: refused as an inexact decimal.
            None => ast::ExprKind::Literal(ast::Literal::Decimal(Str::new(n.as_str()))),
        },
        JsonValue::Array(items) => {
            ast::ExprKind::List(items.iter().map(|x| json_expr(x, span)).collect())
        }
        JsonValue::Object(fields) => ast::ExprKind::Record(
            fields
                .iter()
                .map(|(k, x)| ast::RecordEntry {
                    name: Spanned::new(k.clone().into(), span),
                    value: json_expr(x, span),
                })
                .collect(),
        ),
    };
    Spanned::new(kind, span)
}
