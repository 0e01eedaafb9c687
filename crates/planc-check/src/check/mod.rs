//! The checker: resolution, types, references and ordering, policy, lints.
//!
//! # Entry point
//!
//! [`check`] takes the syntax trees of the plans, the catalogue and the
//! policy ([`CheckInput`]) and returns every diagnostic, sorted by position,
//! and one [`CheckedPlan`] per plan declaration ([`CheckOutput`]). It reads
//! only [`ast`] trees, so plans, catalogues and policies may come from the
//! text or the JSON front end in any mix.
//!
//! ```text
//! let out = check(&CheckInput {
//!     plans: &[&plan_module],
//!     catalog: &[&tools_module, &mcp_module],
//!     policy: &[&policy_module],
//!     actor: None, // the policy's `actor` line
//! });
//! ```
//!
//! - **Catalogue**: the `tool` declarations of the `catalog` modules, then
//!   those of the `plans` modules (a self-contained `.plan` file holds its
//!   own tools) unless `roles_fixed`. A tool declared twice is E0104; the
//!   first one counts.
//! - **Policy**: the `policy` declarations of the `policy` modules, then
//!   those of the `plans` modules unless `roles_fixed`. One policy applies: a second one is
//!   E0104. With no policy at all every tool is denied (E0301): deny by
//!   default. A module passed in more than one role is read once.
//! - **Actor**: `actor` when given (the command line or the editor's
//!   settings), else the policy's `actor` line, else no scopes. A held scope
//!   ending in `*` holds every scope it prefixes (`billing:*`).
//!
//! The diagnostics about the catalogue and the policy themselves (duplicate
//! declarations, ill-typed defaults and ceilings) are reported once, not per
//! plan.
//!
//! # What is checked
//!
//! Every code from E0101 to W0404 of the registry (`diagnostics/codes.rs`); docs/explain/ has a
//! page for each. The checker never stops at the first error: every step is
//! checked, and a value an error made unknown has the error type, which
//! every later check accepts silently (no cascades).
//!
//! # The semantic model
//!
//! [`model`] holds what the checker decided, as plain data the IR lowering
//! reads without re-deriving anything: per step the resolved tool, each
//! argument's value classified and typed, the dependencies with their
//! reasons, the policy's scopes, approval and guards, the untrusted inputs,
//! the binds and the normalised posts; per plan the goal, the budget, the
//! schedule in waves, the approvals and the union of scopes.
//!
//! # Cost
//!
//! Linear in the size of the input: names are looked up in hash maps, each
//! reference resolves in constant time, the ordering graph is walked once
//! (iteratively: no recursion whose depth the input decides, except over
//! type and expression nesting, which the front ends cap), and "did you
//! mean" suggestions share a budget so that a plan full of misspellings
//! stays linear too.

pub mod graph;
pub mod hidden;
pub(crate) mod ir_form;
pub mod model;
mod plan;

use std::borrow::Cow;
use std::sync::Arc;

use crate::catalog::Catalog;
use crate::diagnostics::{self, Diagnostic};
use crate::policy::Policy;
use crate::source::Span;
use crate::syntax::ast;

pub use model::*;
pub use plan::reuse::{Memo, Prior};

/// What to check.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckInput<'a> {
    /// The modules whose `plan` declarations are checked. Their `tool` and
    /// `policy` declarations join the catalogue and the policy.
    pub plans: &'a [&'a ast::Module],
    /// Modules holding tool declarations (`.plan` files or JSON tool lists).
    pub catalog: &'a [&'a ast::Module],
    /// Modules holding the policy.
    pub policy: &'a [&'a ast::Module],
    /// The actor's scopes; `None` to take them from the policy's `actor`
    /// line.
    pub actor: Option<&'a [String]>,
    /// Where the front ends reported errors. A step with one inside may have
    /// lost arguments or clauses in recovery, and a plan with one may have
    /// lost steps or binds: the checker then does not report what may be
    /// such a loss (missing arguments, a write without a post, unknown
    /// bindings and `after` targets, unused bindings). Errors are still
    /// reported, so nothing passes unnoticed.
    pub syntax_errors: &'a [Span],
    /// Whether the roles are fixed by configuration: the `tool` and
    /// `policy` declarations of the `plans` modules then do not join the
    /// catalogue and the policy (the driver reports them, E0005).
    pub roles_fixed: bool,
    /// The progress record of the run the plans replan, if any
    /// (`docs/replanning.md`): recorded artifacts are in scope with their values, completed
    /// steps are reused, and repeated effects are refused.
    pub progress: Option<Progress<'a>>,
}

/// A progress record a replan is checked against, with where its parts are
/// written (for diagnostics that point into it).
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    pub record: &'a crate::progress::ProgressRecord,
    pub spans: &'a crate::progress::read::RecordSpans,
}

/// The catalogue, the policy in force and the actor's scopes, built once
/// from their syntax trees ([`Models::build`]) and then shared, read-only,
/// by every check against them ([`check_plans`]): what a long-running
/// agent loop, the Python package and the language server keep between
/// plans. `Send + Sync`.
#[derive(Clone, Debug, Default)]
pub struct Models {
    /// The catalogue the plans are checked against (hover, completion).
    pub catalog: Catalog,
    /// The policy in force, if any.
    pub policy: Option<Policy>,
    /// The actor's scopes the plans are checked with.
    pub actor: Vec<String>,
}

impl Models {
    /// Builds the catalogue from the `tool` declarations of `catalog`, the
    /// policy from the `policy` declarations of `policy`, and the actor
    /// (`actor` when given, else the policy's `actor` line). A module given
    /// twice is read once. Returns the diagnostics about the catalogue and
    /// the policy themselves, sorted.
    pub fn build(
        catalog: &[&ast::Module],
        policy: &[&ast::Module],
        actor: Option<&[String]>,
    ) -> (Models, Vec<Diagnostic>) {
        let mut diags: Vec<Diagnostic> = Vec::new();
        let tool_modules = distinct(catalog.iter().copied());
        let catalog = Catalog::build(tool_modules.iter().flat_map(|m| m.tools()), &mut diags);
        let policy_modules = distinct(policy.iter().copied());
        let policy = Policy::build(
            policy_modules.iter().flat_map(|m| m.policies()),
            &catalog,
            &mut diags,
        );
        let actor: Vec<String> = match (actor, &policy) {
            (Some(a), _) => a.to_vec(),
            (None, Some(p)) => p.actor.clone().unwrap_or_default(),
            (None, None) => Vec::new(),
        };
        diagnostics::sort(&mut diags);
        (
            Models {
                catalog,
                policy,
                actor,
            },
            diags,
        )
    }
}

/// The modules of `modules` in order, each once (by address).
fn distinct<'a>(modules: impl Iterator<Item = &'a ast::Module>) -> Vec<&'a ast::Module> {
    let mut seen: crate::FastSet<*const ast::Module> = crate::FastSet::default();
    modules
        .filter(|m| seen.insert(std::ptr::from_ref(*m)))
        .collect()
}

/// What the checker found.
#[derive(Clone, Debug)]
pub struct CheckOutput {
    /// Every diagnostic, sorted by position ([`diagnostics::sort`]).
    pub diagnostics: Vec<Diagnostic>,
    /// One model per plan declaration, in input order.
    pub plans: Vec<CheckedPlan>,
    /// The catalogue, policy and actor the plans were checked against,
    /// shared with whoever built them. `CheckOutput` dereferences to them:
    /// `out.catalog`, `out.policy`, `out.actor`.
    pub models: Arc<Models>,
    /// What the next check of the same document, edited, may reuse: kept
    /// by [`check_plans_again`] only (the language server).
    pub memo: Option<Memo>,
}

impl std::ops::Deref for CheckOutput {
    type Target = Models;
    fn deref(&self) -> &Models {
        &self.models
    }
}

impl CheckOutput {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks the plans of `input` against its catalogue and policy: builds
/// the [`Models`] from the trees, then [`check_plans`].
pub fn check(input: &CheckInput<'_>) -> CheckOutput {
    let own: &[&ast::Module] = if input.roles_fixed { &[] } else { input.plans };
    let catalog: Vec<&ast::Module> = input.catalog.iter().chain(own).copied().collect();
    let policy: Vec<&ast::Module> = input.policy.iter().chain(own).copied().collect();
    let (models, mut diags) = Models::build(&catalog, &policy, input.actor);
    let models = Arc::new(models);
    let (mut plan_diags, plans) =
        check_plans(&models, input.plans, input.syntax_errors, input.progress);
    diags.append(&mut plan_diags);
    diagnostics::sort(&mut diags);
    CheckOutput {
        diagnostics: diags,
        plans,
        models,
        memo: None,
    }
}

/// Checks the `plan` declarations of `plans` against built models; the
/// models are not rebuilt nor copied. `syntax_errors` as in
/// [`CheckInput::syntax_errors`]. Returns the plans' diagnostics, sorted,
/// and one model per plan declaration, in input order.
pub fn check_plans(
    models: &Models,
    plans: &[&ast::Module],
    syntax_errors: &[Span],
    progress: Option<Progress<'_>>,
) -> (Vec<Diagnostic>, Vec<CheckedPlan>) {
    let decls = distinct(plans.iter().copied())
        .into_iter()
        .flat_map(|m| m.plans())
        .map(|p| {
            (
                Cow::Borrowed(p),
                plan::StepTrees::Borrowed(p.steps.as_slice()),
            )
        });
    let (diags, plans, _, _) = check_decls(
        models,
        decls,
        syntax_errors,
        progress,
        None,
        false,
        StepModels::Keep,
    );
    (diags, plans)
}

/// [`check_plans`] for a document checked again and again as it is
/// edited (the language server): reuses what `prior`, the check of its
/// previous text, decided about the steps the edit did not touch, and
/// returns with the diagnostics and models what the next check may reuse
/// (`docs/performance.md`, "The language server"). The diagnostics and
/// models are those of [`check_plans`].
pub fn check_plans_again(
    models: &Models,
    plans: &[&ast::Module],
    syntax_errors: &[Span],
    prior: Option<Prior>,
) -> (Vec<Diagnostic>, Vec<CheckedPlan>, Memo) {
    let decls = distinct(plans.iter().copied())
        .into_iter()
        .flat_map(|m| m.plans())
        .map(|p| {
            (
                Cow::Borrowed(p),
                plan::StepTrees::Borrowed(p.steps.as_slice()),
            )
        });
    let (diags, plans, memo, _) = check_decls(
        models,
        decls,
        syntax_errors,
        None,
        prior,
        true,
        StepModels::Keep,
    );
    (diags, plans, memo)
}

/// [`check_plans`], given the trees to let go: each step's syntax tree is
/// dropped as soon as its model is built, so that a long plan's tree and
/// model are not whole at once (`docs/performance.md`, "Where the memory
/// goes"). For a caller that reads no tree after the check (`planc check`
/// and `compile`, the Python package); the modules' other declarations
/// are dropped too.
///
/// Unless `step_models` keeps them (a caller that reads the diagnostics
/// only, as `planc check`, or lowers each step as it is checked, as
/// `planc compile`), each step's model goes too, once the step is
/// checked, authorized and linted: the plans' models then have no
/// `steps`, unless there is a `progress` record, whose replans are lowered
/// for their fingerprints (`docs/replanning.md`) and keep them. The
/// diagnostics are those of [`check_plans`].
pub fn check_plans_owned(
    models: &Models,
    plans: Vec<ast::Module>,
    syntax_errors: &[Span],
    progress: Option<Progress<'_>>,
    step_models: StepModels<'_>,
) -> (Vec<Diagnostic>, Vec<CheckedPlan>) {
    let decls = plans
        .into_iter()
        .flat_map(|m| m.items)
        .filter_map(|item| match item {
            ast::Item::Plan(mut p) => {
                let steps = std::mem::take(&mut p.steps);
                Some((Cow::Owned(p), plan::StepTrees::Owned(steps)))
            }
            _ => None,
        });
    let (diags, plans, _, _) = check_decls(
        models,
        decls,
        syntax_errors,
        progress,
        None,
        false,
        step_models,
    );
    (diags, plans)
}

/// [`check_plans_owned`] for a caller that wants the diagnostics only,
/// given plans read as skeletons (`syntax::parse_text_skeletal`,
/// `syntax::read_json_plan_skeletal`), each with its file's text and form:
/// each step is read whole again as it is checked,
/// and its tree and model go once it is, so that no plan's whole tree is
/// ever in memory (`docs/performance.md`, "Where the memory goes"). The
/// plans' models have no steps; `step_models` lets them go or hands them
/// to a sink ([`StepModels::Lower`]) first. `None` when a step did not
/// read again as its skeleton was read (never expected): check the plans
/// from a whole parse instead (a sink was given steps of this attempt).
pub fn check_plans_skeletal(
    models: &Models,
    plans: Vec<(ast::Module, &str, crate::source::SourceKind)>,
    step_models: StepModels<'_>,
) -> Option<(Vec<Diagnostic>, Vec<CheckedPlan>)> {
    let decls = plans.into_iter().flat_map(|(m, text, kind)| {
        let reread = plan::Reread { text, kind };
        m.items.into_iter().filter_map(move |item| match item {
            ast::Item::Plan(mut p) => {
                let steps = std::mem::take(&mut p.steps);
                Some((Cow::Owned(p), plan::StepTrees::Skeletal(steps, reread)))
            }
            _ => None,
        })
    });
    let (diags, plans, _, failed) = check_decls(models, decls, &[], None, None, false, step_models);
    (!failed).then_some((diags, plans))
}

/// A plan's declaration and its steps, apart ([`plan::StepTrees`]).
type Decl<'p> = (Cow<'p, ast::PlanDecl>, plan::StepTrees<'p>);

fn check_decls<'p>(
    models: &Models,
    decls: impl Iterator<Item = Decl<'p>>,
    syntax_errors: &[Span],
    progress: Option<Progress<'_>>,
    prior: Option<Prior>,
    keep: bool,
    mut step_models: StepModels<'_>,
) -> (Vec<Diagnostic>, Vec<CheckedPlan>, Memo, bool) {
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut damage: Vec<Span> = syntax_errors.to_vec();
    damage.sort();
    let mut env = plan::Env {
        damage: &damage,
        catalog: &models.catalog,
        policy: models.policy.as_ref(),
        actor: &models.actor,
        suggest_budget: plan::suggest_budget(),
        refused: 0,
        progress,
        reread_failed: false,
    };
    // A check of a text with a syntax error, or of a replan, keeps no
    // memo to reuse: what it decided depends on the damage or the record.
    let keep = keep && damage.is_empty() && progress.is_none();
    let mut priors = prior.and_then(|p| p.plans(&env, models));
    let mut checked = Vec::new();
    let mut memo = Memo::default();
    for (k, (decl, steps)) in decls.enumerate() {
        let prior = priors
            .as_mut()
            .and_then(|p| p.get_mut(k))
            .and_then(Option::take);
        let (model, mut d, kept) =
            plan::check_plan(&decl, steps, &mut env, prior, keep, step_models.reborrow());
        diags.append(&mut d);
        checked.push(model);
        memo.plans.extend(kept);
    }
    diagnostics::sort(&mut diags);
    (diags, checked, memo, env.reread_failed)
}

#[cfg(test)]
mod tests;
