//! An IR file checked before it runs (`docs/executors.md`, "An IR is
//! checked before it runs"): its fingerprint recomputed, and its
//! invariants (`docs/ir.md`) checked against the catalogue, the policy and
//! the actor the run is configured with. An IR that was edited after
//! `planc compile` (a guard removed, a literal raised, a step dropped from
//! `approvals`, a tool swapped, a write relabelled a read) does not run.
//!
//! The decisions are the compiler's and the executor's own: a tool's
//! effect and idempotence from [`Traits::of`], scopes from
//! [`policy::holds`], a ceiling's limit lowered as the lowering writes it,
//! and a value known before the run (a literal, a reused step's recorded
//! artifact) compared with the limit by the very guard check dispatch
//! makes ([`eval::check_guard`]). Nothing here re-states a rule.

pub use crate::exec::needing_approval;
use std::collections::BTreeMap;

use super::eval::{self, Artifacts};
use crate::catalog::{self, Ty};
use crate::check::Models;
use crate::check::ir_form::guard_op;
use crate::ir::{
    self, DependencyReason, Effect, Guard, GuardLimit, GuardOp, PlanIr, StepIr, Value,
};
use crate::policy::{self, Condition, Traits};
use crate::syntax::ast::PathSeg;

/// What is wrong with an IR, one sentence each; empty when it may run.
pub fn verify(ir: &PlanIr, models: &Models) -> Vec<String> {
    let mut out = Vec::new();
    match ir::fingerprint(ir) {
        Ok(f) if f == ir.fingerprint => {}
        Ok(f) => out.push(format!(
            "the fingerprint is {:?}, but the IR's content hashes to `{f}`: it was changed after it was compiled",
            ir.fingerprint
        )),
        Err(e) => out.push(e),
    }
    structure(ir, &mut out);
    let Some(policy) = &models.policy else {
        out.push("no policy is configured: every tool is denied".into());
        return out;
    };
    if let Some(max) = &policy.max_steps
        && u64::try_from(ir.steps.len()).is_ok_and(|n| n > max.node)
    {
        out.push(format!(
            "the plan has {} steps; the policy allows {}",
            ir.steps.len(),
            max.node
        ));
    }
    let known = known_artifacts(ir);
    for step in &ir.steps {
        authorised(ir, step, models, policy, &known, &mut out);
        typed(ir, step, models, &mut out);
    }
    out
}

/// The types the executor checks values against (`result_types`,
/// `arg_types`, IR 1.3) are the catalogue's, lowered as the lowering
/// writes them: an IR that drops or loosens one, so that a result outside
/// its declared type would be bound or a value of no declared type passed
/// unchecked, does not run.
fn typed(ir: &PlanIr, step: &StepIr, models: &Models, out: &mut Vec<String>) {
    let name = &step.name;
    let Some(tool) = models.catalog.get(&step.tool) else {
        return; // reported by `authorised`
    };
    let mut expected: ir::Map<ir::TypeIr> = ir::Map::new();
    for (binding, path) in step.binds.iter() {
        match bound_type(&tool.result, path) {
            Some(ty) => {
                if let Some(t) = ir::result_type(&ty) {
                    expected.insert(binding.clone(), t);
                }
            }
            None => out.push(format!(
                "step `{name}` binds `{binding}` to `{path}`, which the result type of `{}` does not have",
                step.tool
            )),
        }
    }
    if expected != step.result_types {
        out.push(format!(
            "step `{name}`: the IR's `result_types` are not the types the catalogue declares for its binds"
        ));
    }
    let mut expected: ir::Map<ir::TypeIr> = ir::Map::new();
    for (arg, value) in step.args.iter() {
        let Some(param) = tool.param(arg) else {
            out.push(format!(
                "step `{name}` passes `{arg}`, which `{}` does not take",
                step.tool
            ));
            continue;
        };
        if matches!(param.ty.strip_optional(), Ty::Any | Ty::Error) {
            continue;
        }
        if untyped_ref(ir, models, value) {
            expected.insert(arg.clone(), ir::type_ir(&param.ty));
        }
    }
    if expected != step.arg_types {
        out.push(format!(
            "step `{name}`: the IR's `arg_types` are not the parameter types the catalogue declares for the values of no declared type it passes"
        ));
    }
}

/// The declared type at a bind's result path; `None` when the path is not
/// one or not in the type.
fn bound_type(result: &Ty, path: &str) -> Option<Ty> {
    result.at_path(&ir::path::parse(path)?)
}

/// Whether a reference in `value` (outside interpolation, which makes a
/// string of anything) reaches a value of no declared type, or one the
/// catalogue cannot place: then its argument is checked at dispatch
/// (N0307, `CheckedArg::checked_at_dispatch`).
fn untyped_ref(ir: &PlanIr, models: &Models, value: &Value) -> bool {
    match value {
        Value::Literal { .. } | Value::Interpolate { .. } => false,
        Value::List { items } => items.iter().any(|v| untyped_ref(ir, models, v)),
        Value::Record { fields } => fields.values().any(|v| untyped_ref(ir, models, v)),
        Value::Ref {
            binding,
            step,
            path,
        } => {
            let ty = ir
                .steps
                .iter()
                .find(|s| s.name == *step)
                .and_then(|s| {
                    let tool = models.catalog.get(&s.tool)?;
                    bound_type(&tool.result, s.binds.get(binding.as_str())?)
                })
                .and_then(|ty| {
                    let members: Vec<PathSeg> =
                        path.iter().map(|m| PathSeg::Field(m.clone())).collect();
                    ty.at_path(&members)
                });
            ty.is_none_or(|t| t.holds_any())
        }
    }
}

/// Names, order and references: every step once at its index, every
/// reference to a binding of an earlier step with a data edge to it,
/// every dependency on an earlier step (or an `after`), the writes in
/// their written order, and a schedule holding each step once after all
/// it depends on.
fn structure(ir: &PlanIr, out: &mut Vec<String>) {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, step) in ir.steps.iter().enumerate() {
        if step.index != i {
            out.push(format!(
                "step `{}` has index {} at position {i}",
                step.name, step.index
            ));
        }
        if index.insert(step.name.as_str(), i).is_some() {
            out.push(format!("step `{}` is named twice", step.name));
        }
    }
    let mut last_write: Option<&StepIr> = None;
    for (i, step) in ir.steps.iter().enumerate() {
        let mut refs: Vec<(&str, &str)> = Vec::new();
        for v in step.args.values() {
            refs_of(v, &mut refs);
        }
        for pre in &step.pre {
            let ir::Subject::Ref { binding, step, .. } = pre.subject();
            refs.push((binding.as_str(), step.as_str()));
        }
        for (binding, from) in refs {
            let earlier = index
                .get(from)
                .filter(|&&j| j < i)
                .and_then(|&j| ir.steps.get(j));
            match earlier {
                Some(b) if b.binds.contains_key(binding) => {}
                _ => out.push(format!(
                    "step `{}` refers to `{binding}` of `{from}`, which no earlier step binds",
                    step.name
                )),
            }
            if !step
                .depends_on
                .iter()
                .any(|d| d.step == from && d.reason == DependencyReason::Data)
            {
                out.push(format!(
                    "step `{}` uses `{binding}` without depending on `{from}`",
                    step.name
                ));
            }
        }
        for d in &step.depends_on {
            match index.get(d.step.as_str()) {
                Some(&j) if j < i || d.reason == DependencyReason::After => {}
                _ => out.push(format!(
                    "step `{}` depends on `{}`, which is not an earlier step",
                    step.name, d.step
                )),
            }
        }
        if step.effect == Effect::Write {
            if let Some(prev) = last_write
                && !step.depends_on.iter().any(|d| d.step == prev.name)
            {
                out.push(format!(
                    "the write `{}` does not wait for the write `{}` before it",
                    step.name, prev.name
                ));
            }
            last_write = Some(step);
        }
    }
    let mut wave_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (w, wave) in ir.schedule.iter().enumerate() {
        for name in wave {
            if wave_of.insert(name.as_str(), w).is_some() || !index.contains_key(name.as_str()) {
                out.push(format!(
                    "the schedule names `{name}` twice, or a step the plan lacks"
                ));
            }
        }
    }
    for step in &ir.steps {
        let Some(&w) = wave_of.get(step.name.as_str()) else {
            out.push(format!("the schedule leaves out step `{}`", step.name));
            continue;
        };
        for d in &step.depends_on {
            if wave_of.get(d.step.as_str()).is_none_or(|&dw| dw >= w) {
                out.push(format!(
                    "the schedule runs `{}` no later than `{}`, which it depends on",
                    step.name, d.step
                ));
            }
        }
    }
}

fn refs_of<'a>(v: &'a Value, out: &mut Vec<(&'a str, &'a str)>) {
    match v {
        Value::Literal { .. } => {}
        Value::Ref { binding, step, .. } => out.push((binding.as_str(), step.as_str())),
        Value::List { items } | Value::Interpolate { parts: items } => {
            for i in items {
                refs_of(i, out);
            }
        }
        Value::Record { fields } => {
            for i in fields.values() {
                refs_of(i, out);
            }
        }
    }
}

/// The artifacts known before the run: those of reused steps, with the
/// values the IR records for them (what the run takes instead of calling).
fn known_artifacts(ir: &PlanIr) -> Artifacts {
    let mut known = Artifacts::new();
    for step in &ir.steps {
        if step.reuse == Some(true)
            && let Some(artifacts) = &step.artifacts
        {
            for (name, value) in artifacts {
                known.insert(name.clone(), value.clone());
            }
        }
    }
    known
}

/// The step's tool, its traits, its scopes, its approval and its ceilings
/// against the catalogue, the policy and the actor.
fn authorised(
    ir: &PlanIr,
    step: &StepIr,
    models: &Models,
    policy: &policy::Policy,
    known: &Artifacts,
    out: &mut Vec<String>,
) {
    let name = &step.name;
    let Some(tool) = models.catalog.get(&step.tool) else {
        out.push(format!(
            "step `{name}` calls `{}`, which is not in the catalogue",
            step.tool
        ));
        return;
    };
    let Some(rule) = policy.rule(&step.tool) else {
        out.push(format!(
            "step `{name}` calls `{}`, which the policy does not permit",
            step.tool
        ));
        return;
    };
    let traits = Traits::of(tool, Some(rule));
    let effect = match traits.effect_or_write() {
        crate::syntax::ast::Effect::Read => Effect::Read,
        crate::syntax::ast::Effect::Write => Effect::Write,
    };
    if step.effect != effect {
        out.push(format!(
            "step `{name}` says `{}` is a {:?}, but the catalogue and policy make it a {effect:?}",
            step.tool, step.effect
        ));
    }
    if step.idempotent && !traits.idempotent {
        out.push(format!(
            "step `{name}` says `{}` is idempotent, but the catalogue and policy do not",
            step.tool
        ));
    }
    if step.retry > 0 && !traits.idempotent {
        out.push(format!(
            "step `{name}` retries `{}`, which is not idempotent",
            step.tool
        ));
    }
    for scope in &rule.requires {
        if !policy::holds(&models.actor, &scope.node) {
            out.push(format!(
                "step `{name}`: the actor lacks the scope `{}` that `{}` requires",
                scope.node, step.tool
            ));
        }
        if !step.authz.scopes.contains(&scope.node) {
            out.push(format!(
                "step `{name}` does not list the scope `{}`",
                scope.node
            ));
        }
    }
    if rule.approval.is_some() {
        if step.authz.approval.is_none() {
            out.push(format!(
                "step `{name}` needs a person's approval by the policy, but its `authz.approval` is null"
            ));
        }
        if !ir.approvals.iter().any(|a| a == name) {
            out.push(format!(
                "step `{name}` needs a person's approval by the policy, but `approvals` leaves it out"
            ));
        }
    }
    for ceiling in &rule.ceilings {
        let Some(limit) = &ceiling.limit else {
            out.push(format!(
                "the policy's ceiling `{}` on `{}` has no valid limit",
                ceiling.text(),
                step.tool
            ));
            continue;
        };
        let guard = Guard {
            arg: ceiling.arg.clone(),
            op: guard_op(ceiling.op),
            limit: GuardLimit::One(ir::literal(limit)),
            each: false,
        };
        guarded(step, known, &guard, &ceiling.text(), false, out);
    }
    for condition in &rule.conditions {
        let text = condition.text();
        // An allowlist, a denylist or a pattern holds of an argument that
        // is given: one the call may leave out is left alone
        // (`docs/language.md`, "Rules over an optional argument").
        let optional = tool
            .param(&condition.arg)
            .is_some_and(catalog::Param::left_out_of_calls);
        match &condition.kind {
            Condition::In { negated, values } => {
                let guard = Guard {
                    arg: condition.arg.clone(),
                    op: if *negated {
                        GuardOp::NotIn
                    } else {
                        GuardOp::In
                    },
                    limit: GuardLimit::List(values.iter().map(ir::literal).collect()),
                    each: condition.each,
                };
                guarded(step, known, &guard, &text, optional, out);
            }
            Condition::Matches { pattern, .. } => {
                let guard = Guard {
                    arg: condition.arg.clone(),
                    op: GuardOp::Matches,
                    limit: GuardLimit::One(ir::Literal::String(pattern.clone())),
                    each: condition.each,
                };
                guarded(step, known, &guard, &text, optional, out);
            }
            Condition::Total { max, per } => {
                let aggregate = ir::Aggregate {
                    arg: condition.arg.clone(),
                    max: ir::literal(max),
                    per: per.clone(),
                };
                if !step.authz.aggregates.contains(&aggregate) {
                    out.push(format!(
                        "step `{name}`: the policy's `{text}` has no aggregate guard in the IR"
                    ));
                }
            }
            // Where a value comes from is the checker's to decide from the
            // plan; the IR keeps no provenance to check it against, so the
            // fingerprint that approvals name is what holds it
            // (`docs/executors.md`).
            Condition::Trusted => {}
        }
    }
    if let Some(calls) = &rule.calls
        && step.authz.calls_max.is_none_or(|m| m > calls.node)
    {
        out.push(format!(
            "step `{name}`: the policy allows at most {} calls of `{}`, but the IR's `calls_max` does not say so",
            calls.node, step.tool
        ));
    }
}

/// A rule over one argument, checked as dispatch would: a value known
/// before the run must pass the guard now; a value known only at dispatch
/// must have the guard in the IR.
fn guarded(
    step: &StepIr,
    known: &Artifacts,
    guard: &Guard,
    text: &str,
    optional: bool,
    out: &mut Vec<String>,
) {
    let name = &step.name;
    let Some(value) = step.args.get(guard.arg.as_str()) else {
        if optional {
            return;
        }
        out.push(format!(
            "step `{name}` leaves out `{}`, which the rule `{text}` governs",
            guard.arg
        ));
        return;
    };
    match eval::resolve(value, known) {
        // Known before the run: it holds now, or the step cannot run.
        Ok(observed) => {
            if let Err(refusal) = eval::check_guard(guard, observed) {
                out.push(format!("step `{name}`: {}", refusal.reason));
            }
        }
        // Known only at dispatch: the executor's guard must check it.
        Err(_) => {
            if !step.authz.guards.contains(guard) {
                out.push(format!(
                    "step `{name}`: `{}` is referenced and under the rule `{text}`, but has no guard for it",
                    guard.arg
                ));
            }
        }
    }
}
