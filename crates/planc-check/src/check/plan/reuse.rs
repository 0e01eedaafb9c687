//! Reusing a previous check of the same text, edited: the language
//! server's path from a keystroke to diagnostics (`docs/performance.md`,
//! "The language server").
//!
//! A step's checks (its arguments, probes, clauses, tree lints and
//! authorization) read its own tree, the plan's step names and tools, and
//! the bindings of every step (names, steps, paths, types, trust), besides
//! the catalogue, the policy and the actor. When those are what they were
//! and the step's text did not change, its model and its diagnostics are
//! the previous ones with their spans moved by the edit. So a check given
//! a [`Prior`] takes, for each step:
//!
//! - the previous model, diagnostics and dependencies, moved, when the
//!   plan's step names, tools and bindings are those of the previous check
//!   (compared whole, spans aside), the step's text (doc comment included)
//!   lies outside the edit and moves to where the new tree has it, no span
//!   they hold touches the edit, and the previous check gave the step every
//!   "did you mean" it asked for and the budget left covers what it spent
//!   (so that the budget runs down as in a whole check);
//! - otherwise a fresh check.
//!
//! The uses of bindings a reused step counted are counted again, and the
//! plan-wide passes (reuse of a replan, totals, effect edges, the order,
//! the lints, the budget) run over every step as in a whole check. Nothing
//! is reused when the text has a syntax error or the check is a replan
//! (`progress`), and such a check keeps no memo: what it decided depends
//! on the damage or the record. The unit tests edit random steps of the
//! checker's fixtures and compare every model and diagnostic with a whole
//! check (`check/tests/reuse.rs`).

use std::sync::Arc;

use super::*;
use crate::check::Models;
use crate::source::Edit;

/// What a check kept of its plans' steps for the next check of the same
/// document edited ([`Prior`]).
#[derive(Clone, Debug, Default)]
pub struct Memo {
    pub(crate) plans: Vec<PlanMemo>,
}

/// One plan's [`StepMemo`]s, in step order.
#[derive(Clone, Debug, Default)]
pub(crate) struct PlanMemo {
    steps: Vec<StepMemo>,
}

/// What checking one step did besides its model.
#[derive(Clone, Debug, Default)]
struct StepMemo {
    /// The step's text, its doc comment included.
    extent: Span,
    /// Reported by its checks and tree lints.
    diags: Vec<Diagnostic>,
    /// Its dependencies before the plan-wide passes add effect edges.
    deps: Vec<Dependency>,
    /// The bindings it used, once per use.
    uses: Vec<usize>,
    /// The "did you mean" budget its checks spent.
    spent: usize,
    /// No suggestion was left out for lack of budget.
    whole: bool,
    /// The same for its authorization, checked after every step's model.
    policy_diags: Vec<Diagnostic>,
    policy_spent: usize,
    policy_whole: bool,
}

/// A previous check of a document, given to the check of its edited
/// text: its plans' models and memo, the models it was checked against,
/// and the edit between the two texts.
pub struct Prior {
    plans: Vec<CheckedPlan>,
    memo: Memo,
    models: Arc<Models>,
    edit: Edit,
}

impl Prior {
    /// `plans` and `memo` from the check of a text (`check_plans_again`,
    /// the outcome's `checked.memo`) against `models`, and `edit` the edit
    /// from that text to the one to check now (`Edit::between`). The
    /// models are compared by identity; the edit is trusted: another one
    /// moves the reused spans to the wrong places.
    pub fn new(plans: Vec<CheckedPlan>, memo: Memo, models: Arc<Models>, edit: Edit) -> Prior {
        Prior {
            plans,
            memo,
            models,
            edit,
        }
    }

    /// Per plan, what [`check_plan`] may reuse of it; `None` when nothing
    /// can be: other models, a syntax error, a replan.
    pub(crate) fn plans(self, env: &Env<'_>, models: &Models) -> Option<Vec<Option<PlanPrior>>> {
        let usable = std::ptr::eq(Arc::as_ptr(&self.models), models)
            && env.damage.is_empty()
            && env.progress.is_none()
            && self.plans.len() == self.memo.plans.len();
        if !usable {
            return None;
        }
        let edit = self.edit;
        Some(
            self.plans
                .into_iter()
                .zip(self.memo.plans)
                .map(|(plan, memo)| {
                    Some(PlanPrior {
                        name: plan.name,
                        steps: plan.steps.into_iter().map(Some).collect(),
                        bindings: plan.bindings,
                        memo: memo.steps,
                        edit,
                    })
                })
                .collect(),
        )
    }
}

/// One plan of a [`Prior`].
pub(crate) struct PlanPrior {
    pub name: String,
    steps: Vec<Option<Box<CheckedStep>>>,
    bindings: Vec<Binding>,
    memo: Vec<StepMemo>,
    edit: Edit,
}

/// Where the checker stood before a step's checks, to write down what
/// they did.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    diags: usize,
    budget: usize,
    refused: usize,
}

/// The text a step's tree was read from, its doc comment included.
pub(super) fn extent(step: &ast::Step) -> Span {
    match step.doc.span {
        Some(doc) if doc.start < step.span.start => Span {
            start: doc.start,
            ..step.span
        },
        _ => step.span,
    }
}

impl<'a> Checker<'a, '_> {
    pub(super) fn mark(&mut self) -> Mark {
        if let Some(log) = &mut self.uses_log {
            log.clear();
        }
        Mark {
            diags: self.diags.len(),
            budget: self.env.suggest_budget,
            refused: self.env.refused,
        }
    }

    /// What step `i`'s checks did since `mark`.
    pub(super) fn step_memo(&mut self, mark: Mark, i: usize, extent: Span) -> StepMemoOut {
        StepMemoOut(StepMemo {
            extent,
            diags: self.diags.get(mark.diags..).unwrap_or_default().to_vec(),
            deps: self.deps.get(i).cloned().unwrap_or_default(),
            uses: self
                .uses_log
                .as_mut()
                .map(std::mem::take)
                .unwrap_or_default(),
            spent: mark.budget.saturating_sub(self.env.suggest_budget),
            whole: self.env.refused == mark.refused,
            ..StepMemo::default()
        })
    }

    /// Writes what a step's authorization did since `mark` into its memo.
    pub(super) fn policy_memo(&self, mark: Mark, memo: &mut StepMemoOut) {
        let m = &mut memo.0;
        m.policy_diags = self.diags.get(mark.diags..).unwrap_or_default().to_vec();
        m.policy_spent = mark.budget.saturating_sub(self.env.suggest_budget);
        m.policy_whole = self.env.refused == mark.refused;
    }

    /// Whether the plan's step names, tools and bindings are those `prior`
    /// was checked with, spans aside.
    pub(super) fn same_context(&self, prior: &PlanPrior) -> bool {
        prior.name == self.plan.name.node.as_str()
            && prior.steps.len() == self.heads.len()
            && prior.memo.len() == self.heads.len()
            && prior.steps.iter().zip(&self.heads).all(|(s, h)| {
                s.as_ref()
                    .is_some_and(|s| s.name == h.name.node && s.tool_name == h.tool.node)
            })
            && prior.bindings.len() == self.bindings.len()
            && prior.bindings.iter().zip(&self.bindings).all(|(a, b)| {
                a.name == b.name
                    && a.step == b.step
                    && a.path == b.path
                    && a.ty == b.ty
                    && a.untrusted_from == b.untrusted_from
            })
    }

    /// Step `i`'s previous model, with its diagnostics, dependencies and
    /// uses replayed, when it can be reused ([module docs](self)); `None`
    /// to check it afresh.
    pub(super) fn reuse_step(
        &mut self,
        prior: &mut PlanPrior,
        i: usize,
        tree: &ast::Step,
        binds: &std::ops::Range<usize>,
    ) -> Option<(Box<CheckedStep>, StepMemoOut)> {
        let memo = prior.memo.get_mut(i)?;
        if !memo.whole || self.env.suggest_budget < memo.spent {
            return None;
        }
        let edit = prior.edit;
        if edit.map(memo.extent) != Some(extent(tree)) {
            return None;
        }
        let mut old = prior.steps.get_mut(i)?.take()?;
        let mut memo = std::mem::take(memo);
        let mut moved = true;
        let mut f = |span: &mut Span| match edit.map(*span) {
            Some(to) => *span = to,
            None => moved = false,
        };
        f(&mut memo.extent);
        step_spans(&mut old, &mut f);
        for d in memo.diags.iter_mut().chain(&mut memo.policy_diags) {
            diagnostic_spans(d, &mut f);
        }
        for d in &mut memo.deps {
            f(&mut d.span);
        }
        if !moved || old.index != i {
            return None;
        }
        self.env.suggest_budget = self.env.suggest_budget.saturating_sub(memo.spent);
        for &b in &memo.uses {
            self.use_binding(b);
        }
        self.diags.extend(memo.diags.iter().cloned());
        if let Some(deps) = self.deps.get_mut(i) {
            deps.clone_from(&memo.deps);
        }
        old.binds = binds.clone();
        old.depends_on = Vec::new();
        #[cfg(test)]
        REUSED.set(REUSED.get() + 1);
        Some((old, StepMemoOut(memo)))
    }

    /// Authorizes every step, as a check that keeps a memo does: a reused
    /// step's authorization replayed from its memo when it can be, every
    /// other step's checked and written into its memo.
    pub(super) fn authorize_keeping(
        &mut self,
        steps: &mut [Box<CheckedStep>],
        memos: &mut [StepMemoOut],
        reused: &[bool],
    ) {
        for (k, (checked, memo)) in steps.iter_mut().zip(memos).enumerate() {
            if reused.get(k).copied().unwrap_or(false) && self.reuse_policy(memo) {
                continue;
            }
            if let Some(t) = self.tool(checked.index) {
                let mark = self.mark();
                checked.authz = self.check_policy(checked.index, t, &checked.args);
                self.policy_memo(mark, memo);
            }
        }
    }

    /// Replays a reused step's authorization from its memo; `false` when
    /// the budget left does not cover it (check it afresh).
    fn reuse_policy(&mut self, memo: &StepMemoOut) -> bool {
        let m = &memo.0;
        if !m.policy_whole || self.env.suggest_budget < m.policy_spent {
            return false;
        }
        self.env.suggest_budget = self.env.suggest_budget.saturating_sub(m.policy_spent);
        self.diags.extend(m.policy_diags.iter().cloned());
        true
    }
}

#[cfg(test)]
thread_local! {
    /// How many steps this thread's checks reused (the tests' measure).
    pub(crate) static REUSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A [`StepMemo`] on its way into the check's [`PlanMemo`].
pub(super) struct StepMemoOut(StepMemo);

impl PlanMemo {
    pub(super) fn of(steps: Vec<StepMemoOut>) -> PlanMemo {
        PlanMemo {
            steps: steps.into_iter().map(|s| s.0).collect(),
        }
    }
}

/// Calls `f` on every span of a step's model. Every field is named (no
/// `..`), so that a span added to the model fails to compile here until it
/// is moved too.
fn step_spans(step: &mut CheckedStep, f: &mut impl FnMut(&mut Span)) {
    let CheckedStep {
        index: _,
        name: _,
        name_span,
        span,
        doc: _,
        tool_name: _,
        tool_span,
        tool,
        args,
        binds: _,
        pres,
        posts,
        on_unmet: _,
        retry: _,
        depends_on,
        authz,
        untrusted_inputs: _,
    } = step;
    f(name_span);
    f(span);
    f(tool_span);
    if let Some(ResolvedTool {
        effect: _,
        idempotent: _,
        untrusted: _,
        decl_span,
    }) = tool
    {
        f(decl_span);
    }
    for arg in args {
        let CheckedArg {
            name: _,
            name_span,
            param_ty: _,
            value,
            from_default: _,
            untrusted_from: _,
        } = arg;
        f(name_span);
        value_spans(value, f);
    }
    for pre in pres {
        let CheckedPre {
            subject,
            at: _,
            kind: _,
            span,
        } = pre;
        ref_spans(subject, f);
        f(span);
    }
    for post in posts {
        let CheckedProbe { kind: _, span } = post;
        f(span);
    }
    for dep in depends_on {
        f(&mut dep.span);
    }
    let Authz {
        permitted: _,
        scopes: _,
        approval: _,
        guards,
        aggregates: _,
        calls_max: _,
    } = authz;
    for g in guards {
        let Guard {
            arg: _,
            test: _,
            each: _,
            ceiling_span,
        } = g;
        f(ceiling_span);
    }
}

/// [`step_spans`] of a value, nested values included (walked with a
/// stack: no recursion as deep as the value).
fn value_spans(value: &mut TypedValue, f: &mut impl FnMut(&mut Span)) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        let TypedValue { kind, ty: _, span } = v;
        f(span);
        match kind {
            ValueKind::Literal(_) | ValueKind::Error => {}
            ValueKind::Ref(r) => ref_spans(r, f),
            ValueKind::List(items) => stack.extend(items.iter_mut()),
            ValueKind::Record(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            ValueKind::Interp(pieces) => {
                for piece in pieces {
                    match piece {
                        InterpPiece::Text(_) => {}
                        InterpPiece::Ref { reference, ty: _ } => ref_spans(reference, f),
                    }
                }
            }
        }
    }
}

fn ref_spans(r: &mut RefValue, f: &mut impl FnMut(&mut Span)) {
    let RefValue {
        binding: _,
        binding_index: _,
        step: _,
        members: _,
        span,
    } = r;
    f(span);
}

fn diagnostic_spans(d: &mut Diagnostic, f: &mut impl FnMut(&mut Span)) {
    let Diagnostic {
        code: _,
        severity: _,
        message: _,
        span,
        label: _,
        labels,
        help: _,
        notes: _,
        step: _,
        fixes,
    } = d;
    f(span);
    for l in labels {
        f(&mut l.span);
    }
    for fix in fixes {
        f(&mut fix.span);
    }
}
