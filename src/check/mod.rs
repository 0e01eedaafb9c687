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
pub mod model;
mod plan;

use std::collections::HashSet;

use crate::catalog::Catalog;
use crate::diagnostics::{self, Diagnostic};
use crate::policy::Policy;
use crate::source::Span;
use crate::syntax::ast;

pub use model::*;

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
    /// The progress record of the run the plans replan, if any (DESIGN
    /// 9.3): recorded artifacts are in scope with their values, completed
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

/// What the checker found.
#[derive(Clone, Debug)]
pub struct CheckOutput {
    /// Every diagnostic, sorted by position ([`diagnostics::sort`]).
    pub diagnostics: Vec<Diagnostic>,
    /// One model per plan declaration, in input order.
    pub plans: Vec<CheckedPlan>,
    /// The catalogue the plans were checked against (hover, completion).
    pub catalog: Catalog,
    /// The policy in force, if any.
    pub policy: Option<Policy>,
    /// The actor's scopes the plans were checked with.
    pub actor: Vec<String>,
}

impl CheckOutput {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks the plans of `input` against its catalogue and policy.
pub fn check(input: &CheckInput<'_>) -> CheckOutput {
    let mut diags: Vec<Diagnostic> = Vec::new();

    let mut seen: HashSet<*const ast::Module> = HashSet::new();
    let mut tool_modules: Vec<&ast::Module> = Vec::new();
    let own: &[&ast::Module] = if input.roles_fixed { &[] } else { input.plans };
    for m in input.catalog.iter().chain(own.iter()) {
        if seen.insert(std::ptr::from_ref(*m)) {
            tool_modules.push(m);
        }
    }
    let catalog = Catalog::build(tool_modules.iter().flat_map(|m| m.tools()), &mut diags);

    seen.clear();
    let mut policy_modules: Vec<&ast::Module> = Vec::new();
    for m in input.policy.iter().chain(own.iter()) {
        if seen.insert(std::ptr::from_ref(*m)) {
            policy_modules.push(m);
        }
    }
    let policy = Policy::build(
        policy_modules.iter().flat_map(|m| m.policies()),
        &catalog,
        &mut diags,
    );

    let actor: Vec<String> = match (input.actor, &policy) {
        (Some(a), _) => a.to_vec(),
        (None, Some(p)) => p.actor.clone().unwrap_or_default(),
        (None, None) => Vec::new(),
    };

    let mut damage: Vec<Span> = input.syntax_errors.to_vec();
    damage.sort();
    let mut env = plan::Env {
        damage: &damage,
        catalog: &catalog,
        policy: policy.as_ref(),
        actor: &actor,
        suggest_budget: plan::SUGGEST_BUDGET,
        progress: input.progress,
    };
    let mut plans = Vec::new();
    seen.clear();
    for m in input.plans {
        if !seen.insert(std::ptr::from_ref(*m)) {
            continue;
        }
        for p in m.plans() {
            let (model, mut d) = plan::check_plan(p, &mut env);
            diags.append(&mut d);
            plans.push(model);
        }
    }
    diagnostics::sort(&mut diags);
    CheckOutput {
        diagnostics: diags,
        plans,
        catalog,
        policy,
        actor,
    }
}

#[cfg(test)]
mod tests;
