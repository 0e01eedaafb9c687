//! Lowering: the checker's semantic model to the IR. Nothing is decided
//! here: every fact comes from [`crate::check::CheckedPlan`]; this only
//! changes its shape (indices to names, values to tagged IR values, spans to
//! file/line/column).

use crate::check::ir_form::{guard_op, probe, value};
use crate::check::{self, CheckedPlan, CheckedStep, DepReason, GuardTest};
use crate::source::{SourceMap, Span};
use crate::syntax::ast;
use planc_exec::ir::{self, literal, result_type, type_ir};

/// Lowers one checked plan. The plan must have no errors (the checker's
/// `errors` count is 0 and no front end reported one): the caller decides
/// that, since it alone knows every diagnostic. A plan whose model still
/// holds a value an error made unknown is refused with the name of the step.
pub fn lower(plan: &CheckedPlan, sources: &SourceMap) -> Result<ir::PlanIr, String> {
    sealed(lower_steps(plan, sources)?)
}

/// [`lower`] without the fingerprint (the field is empty): for a caller
/// that needs the plan fingerprint first, and the fingerprint only if that
/// does not decide (`driver::resume_fingerprints`).
pub fn lower_unsealed(plan: &CheckedPlan, sources: &SourceMap) -> Result<ir::PlanIr, String> {
    lower_steps(plan, sources)
}

/// [`lower`], taking the model: each step's model is dropped once its IR is
/// built, so that a long plan's model and IR are not whole at once
/// (`docs/performance.md`, "Where the memory goes").
pub fn lower_owned(mut plan: CheckedPlan, sources: &SourceMap) -> Result<ir::PlanIr, String> {
    let steps = std::mem::take(&mut plan.steps);
    // The names outlive the models: an `after` may name a step whose model
    // is not lowered yet, a reference one whose model is gone.
    let names: Vec<ir::Str> = steps.iter().map(|s| s.name.clone()).collect();
    let step_name = |i: usize| -> ir::Str { names.get(i).cloned().unwrap_or_default() };
    let ir = lower_models(&plan, steps.into_iter(), &step_name, sources)?;
    // The rest of the model (its bindings) goes before the fingerprint.
    drop(plan);
    sealed(ir)
}

/// The IR with its fingerprint (`docs/ir.md`, "Fingerprint").
fn sealed(mut ir: ir::PlanIr) -> Result<ir::PlanIr, String> {
    ir.fingerprint = super::fingerprint(&ir)?;
    Ok(ir)
}

/// Lowers `plan`, its steps' models borrowed, leaving the fingerprint
/// empty.
fn lower_steps(plan: &CheckedPlan, sources: &SourceMap) -> Result<ir::PlanIr, String> {
    lower_models(plan, plan.each_step(), &|i| plan.step_name(i), sources)
}

/// Lowers `plan` with `models`, its steps' models (`plan.steps` is not
/// read), leaving the fingerprint empty. The model refers to a step by its
/// index, the IR by its name: `step_name` names the step at an index.
fn lower_models<S: std::borrow::Borrow<CheckedStep>>(
    plan: &CheckedPlan,
    models: impl ExactSizeIterator<Item = S>,
    step_name: &dyn Fn(usize) -> ir::Str,
    sources: &SourceMap,
) -> Result<ir::PlanIr, String> {
    if plan.steps_dropped {
        return Err(format!(
            "plan `{}` was checked for its diagnostics only: its steps' models are gone, and there is no IR to write",
            plan.name
        ));
    }
    let mut steps = Vec::with_capacity(models.len());
    for step in models {
        steps.push(Box::new(lower_step(
            &plan.bindings,
            plan.replan.as_ref(),
            step.borrow(),
            step_name,
            &mut |s| span(sources, s),
        )?));
    }
    around(plan, steps, step_name, sources)
}

/// The IR of `plan` around its lowered `steps`, the fingerprint empty.
#[allow(clippy::vec_box)] // `PlanIr::steps`, whose steps are boxed
pub(super) fn around(
    plan: &CheckedPlan,
    steps: Vec<Box<ir::StepIr>>,
    step_name: &dyn Fn(usize) -> ir::Str,
    sources: &SourceMap,
) -> Result<ir::PlanIr, String> {
    let source = sources.name(plan.span.file).to_string();
    let schedule = plan
        .schedule
        .as_ref()
        .ok_or_else(|| format!("plan `{}` has an ordering cycle", plan.name))?;
    let schedule = schedule
        .iter()
        .map(|wave| wave.iter().map(|&i| step_name(i)).collect())
        .collect();
    let approvals = plan.approvals.iter().map(|&i| step_name(i)).collect();
    Ok(ir::PlanIr {
        ir_version: ir::IR_VERSION.to_string(),
        fingerprint: String::new(),
        name: plan.name.clone().into(),
        goal: plan.goal.clone(),
        budget: ir::Budget {
            replans: plan.budget.replans,
            max_steps: plan.budget.max_steps,
        },
        source,
        steps,
        schedule,
        approvals,
        scopes: plan.scopes.clone(),
        progress: plan.replan.as_ref().map(|r| ir::ProgressIr {
            replans_used: r.replans_used,
            artifacts_in: r.artifacts_in.clone(),
        }),
    })
}

/// Lowers one step's model: `bindings` are its plan's (the step's own
/// among them), `replan` what the plan takes from a progress record,
/// `span_of` the step's span in the IR's form.
pub(super) fn lower_step(
    bindings: &[check::Binding],
    replan: Option<&check::Replan>,
    step: &CheckedStep,
    step_name: &dyn Fn(usize) -> ir::Str,
    span_of: &mut dyn FnMut(Span) -> ir::SourceSpan,
) -> Result<ir::StepIr, String> {
    let tool = step
        .tool
        .as_ref()
        .ok_or_else(|| format!("step `{}` calls an unknown tool", step.name))?;
    let mut args = ir::Map::with_capacity(step.args.len());
    for arg in &step.args {
        // A parameter the step leaves out whose default is `null` is left
        // out of the call too: to many tools `null` is not absence
        // (`docs/ir.md`). Any other default is passed as declared.
        if arg.is_left_out() {
            continue;
        }
        let value = value(&arg.value, step_name)
            .ok_or_else(|| format!("step `{}`: argument `{}` has an error", step.name, arg.name))?;
        args.insert(arg.name.clone(), value);
    }
    let mut binds = ir::Map::with_capacity(step.binds.len());
    let mut result_types = ir::Map::new();
    for b in step.binds.clone() {
        if let Some(binding) = bindings.get(b) {
            binds.insert(binding.name.clone(), binding.path_text().into());
            if let Some(ty) = result_type(&binding.ty) {
                result_types.insert(binding.name.clone(), ty);
            }
        }
    }
    let mut arg_types = ir::Map::new();
    for arg in step.args.iter().filter(|a| a.checked_at_dispatch()) {
        arg_types.insert(arg.name.clone(), type_ir(&arg.param_ty));
    }
    let pre = step.pres.iter().map(|p| pre(p, step_name)).collect();
    let post = step.posts.iter().map(|p| probe(&p.kind)).collect();
    let guards = step
        .authz
        .guards
        .iter()
        .map(|g| {
            let (op, limit) = match &g.test {
                GuardTest::Cmp(op, limit) => (guard_op(*op), ir::GuardLimit::One(literal(limit))),
                GuardTest::In { negated, values } => (
                    if *negated {
                        ir::GuardOp::NotIn
                    } else {
                        ir::GuardOp::In
                    },
                    ir::GuardLimit::List(values.iter().map(literal).collect()),
                ),
                GuardTest::Matches(p) => (
                    ir::GuardOp::Matches,
                    ir::GuardLimit::One(ir::Literal::String(p.clone())),
                ),
            };
            ir::Guard {
                arg: g.arg.clone(),
                op,
                limit,
                each: g.each,
            }
        })
        .collect();
    let aggregates = step
        .authz
        .aggregates
        .iter()
        .map(|a| ir::Aggregate {
            arg: a.arg.clone(),
            max: literal(&a.max),
            per: a.per.clone(),
        })
        .collect();
    Ok(ir::StepIr {
        name: step.name.clone(),
        index: step.index,
        tool: step.tool_name.clone(),
        args,
        pre,
        post,
        binds,
        result_types,
        arg_types,
        on_unmet: match step.on_unmet {
            ast::OnUnmet::Replan => ir::OnUnmet::Replan,
            ast::OnUnmet::Halt => ir::OnUnmet::Halt,
            ast::OnUnmet::Escalate => ir::OnUnmet::Escalate,
        },
        retry: step.retry.unwrap_or(0),
        effect: match tool.effect {
            ast::Effect::Read => ir::Effect::Read,
            ast::Effect::Write => ir::Effect::Write,
        },
        idempotent: tool.idempotent,
        depends_on: step
            .depends_on
            .iter()
            .map(|d| ir::Dependency {
                step: step_name(d.step),
                reason: match d.reason {
                    DepReason::Data => ir::DependencyReason::Data,
                    DepReason::After => ir::DependencyReason::After,
                    DepReason::Effect => ir::DependencyReason::Effect,
                },
            })
            .collect(),
        authz: ir::Authz {
            scopes: step.authz.scopes.to_vec(),
            approval: step
                .authz
                .approval
                .map(|ast::Approval::Human| ir::Approval::Human),
            guards,
            aggregates,
            calls_max: step.authz.calls_max,
        },
        untrusted_inputs: step.untrusted_inputs.clone(),
        span: span_of(step.span),
        reuse: replan.map(|r| matches!(r.reuse.get(step.index), Some(Some(_)))),
        artifacts: replan.and_then(|r| r.reuse.get(step.index).cloned().flatten()),
    })
}

/// A precondition: the probe's test, of the artifact its subject names.
fn pre(p: &check::CheckedPre, step_name: &dyn Fn(usize) -> ir::Str) -> ir::PreProbe {
    let subject = ir::Subject::Ref {
        binding: p.subject.binding.clone(),
        step: step_name(p.subject.step),
        path: p.subject.members.clone(),
        at: (!p.at.is_empty()).then(|| super::path::write(&p.at).into()),
    };
    match probe(&p.kind) {
        ir::Probe::Len { op, value, .. } => ir::PreProbe::Len { subject, op, value },
        ir::Probe::Compare { op, value, .. } => ir::PreProbe::Compare { subject, op, value },
        ir::Probe::In { values, .. } => ir::PreProbe::In { subject, values },
        ir::Probe::NotIn { values, .. } => ir::PreProbe::NotIn { subject, values },
        ir::Probe::Contains { value, .. } => ir::PreProbe::Contains { subject, value },
        ir::Probe::KeysContain { key, .. } => ir::PreProbe::KeysContain { subject, key },
        ir::Probe::Exists { .. } => ir::PreProbe::Exists { subject },
    }
}

fn span(sources: &SourceMap, s: Span) -> ir::SourceSpan {
    let lc = sources
        .get(s.file)
        .map(|f| f.line_col(s.start))
        .unwrap_or_default();
    in_ir(sources, s, lc)
}

/// [`span`] of spans that come in order, their lines counted forward from
/// the last (`SourceFile::line_col_forward`).
pub(super) fn span_forward(
    sources: &SourceMap,
    cursor: &mut crate::source::LineCursor,
    s: Span,
) -> ir::SourceSpan {
    let lc = sources
        .get(s.file)
        .map(|f| f.line_col_forward(cursor, s.start))
        .unwrap_or_default();
    in_ir(sources, s, lc)
}

/// A span in the IR's form, at `lc`.
fn in_ir(sources: &SourceMap, s: Span, lc: crate::source::LineCol) -> ir::SourceSpan {
    ir::SourceSpan {
        file: sources.name(s.file).to_string(),
        start: s.start,
        end: s.end,
        line: lc.line,
        column: lc.column,
    }
}
