//! Checking one plan: the checker's state and its core passes (names,
//! tools, binds, each step). The other passes live in the submodules:
//! arguments, probes, authorization, ordering, lints.

use std::fmt;

use crate::FastMap;
use crate::catalog::{self, Catalog, Tool, Ty, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::policy::{self, Policy, Rule, Traits};
use crate::seen::{Few, Seen};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::ast::{self, CmpOp, Effect, PathSeg, Str};
use crate::syntax::{self, lexicon};

use super::graph;
use super::model::*;

mod args;
mod authz;
mod launder;
mod lints;
mod names;
mod order;
mod probes;
mod replan;
pub(crate) mod reuse;
mod trust;

use names::NameIndex;
use trust::Tally;

/// What a value is, for messages: "argument `facts`", "an element of
/// field `a` of argument `facts`". Spelt out only when a message needs it:
/// most values are fine, and formatting the name of each was a measurable
/// part of checking.
#[derive(Clone, Copy)]
enum What<'a> {
    Plain(&'a str),
    Arg(&'a str),
    Item(&'a What<'a>),
    Field(&'a str, &'a What<'a>),
    /// A probe's path, in backticks.
    Path(&'a ast::Path),
    /// A key of the map at a probe's path.
    Key(&'a ast::Path),
}

impl fmt::Display for What<'_> {
    /// Recursion as deep as the value's nesting, which the front ends cap.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            What::Plain(s) => f.write_str(s),
            What::Arg(name) => write!(f, "argument `{name}`"),
            What::Item(of) => write!(f, "an element of {of}"),
            What::Field(name, of) => write!(f, "field `{name}` of {of}"),
            What::Path(path) => write!(f, "`{path}`"),
            What::Key(path) => write!(f, "a key of `{path}`"),
        }
    }
}

/// The help of an E0202 for a field or key of a value that has none.
pub(super) fn not_a_record_help(ty: &Ty, prefix: &str) -> String {
    match ty {
        Ty::List(_) => format!("`{prefix}` is a list: take an element first, `{prefix}[0]`"),
        _ => format!("`{prefix}` is a single value: end the path there"),
    }
}

/// What every plan is checked against.
pub(crate) struct Env<'a> {
    /// Spans of syntax errors, sorted.
    pub damage: &'a [Span],
    pub catalog: &'a Catalog,
    pub policy: Option<&'a Policy>,
    pub actor: &'a [String],
    /// How many candidate names "did you mean" may still compare. Each
    /// suggestion costs the number of candidates it looks at; once spent,
    /// diagnostics go without suggestions, so that a plan with a hundred
    /// thousand misspellings stays linear.
    pub suggest_budget: usize,
    /// How many suggestions the budget refused so far: a step's
    /// diagnostics are reused only if none of its was (`plan/reuse.rs`).
    pub refused: usize,
    /// The progress record a replan is checked against (`plan/replan.rs`).
    pub progress: Option<super::Progress<'a>>,
    /// A step given as a skeleton did not read again as it was first read
    /// ([`StepTrees::Skeletal`]): the check is to be done again from a
    /// whole parse.
    pub reread_failed: bool,
}

impl Env<'_> {
    /// Whether a syntax error lies inside `span`.
    fn damaged(&self, span: Span) -> bool {
        let from = self
            .damage
            .partition_point(|d| (d.file, d.start) < (span.file, span.start));
        self.damage
            .get(from)
            .is_some_and(|d| d.file == span.file && d.start <= span.end)
    }

    fn nearest<'c>(
        &mut self,
        name: &str,
        candidates: impl ExactSizeIterator<Item = &'c str>,
    ) -> Vec<&'c str> {
        let n = candidates.len();
        if n > self.suggest_budget {
            self.refused += 1;
            return Vec::new();
        }
        self.suggest_budget -= n;
        suggest::nearest(name, candidates)
    }
}

/// The suggestion budget of one check: enough for every realistic plan.
pub(crate) const SUGGEST_BUDGET: usize = 500_000;

#[cfg(test)]
thread_local! {
    /// A smaller budget for this thread's checks, for the tests that run
    /// it out.
    pub(crate) static TEST_BUDGET: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The budget a check starts with.
pub(crate) fn suggest_budget() -> usize {
    #[cfg(test)]
    if let Some(b) = TEST_BUDGET.get() {
        return b;
    }
    SUGGEST_BUDGET
}

/// A plan's steps as [`check_plan`] is given them (`docs/performance.md`,
/// "Where the memory goes").
pub(crate) enum StepTrees<'s> {
    /// Borrowed from a tree the caller keeps (the language server, the
    /// review page).
    Borrowed(&'s [ast::Step]),
    /// Owned, each step's tree dropped once its model is built, so that the
    /// syntax tree and the checked model of a long plan are not whole at
    /// once.
    Owned(Vec<ast::Step>),
    /// Each step's skeleton (`ast::Step::skeleton`: what the first passes
    /// read), its whole tree read again from its file's text when it is
    /// checked, and dropped once its model is built: the tree of a long
    /// plan is never whole. A step that does not read again as its
    /// skeleton was read sets [`Env::reread_failed`], and the caller
    /// checks the plan from a whole parse instead.
    Skeletal(Vec<ast::Step>, Reread<'s>),
}

/// Where [`StepTrees::Skeletal`] reads its steps again: the text of their
/// file, and its form.
#[derive(Clone, Copy)]
pub(crate) struct Reread<'s> {
    pub text: &'s str,
    pub kind: crate::source::SourceKind,
}

impl Reread<'_> {
    /// The steps of `batch` (what is kept of their skeletons, with their
    /// indexes) read whole again; `None` unless each reads as its skeleton
    /// was read: the name and tool of its head, the binds the first passes
    /// made bindings of, its span and its `after`s.
    fn steps(
        self,
        batch: &[(usize, Skeleton)],
        heads: &[StepHead],
        bindings: &[Binding],
    ) -> Option<Vec<ast::Step>> {
        let trees = match self.kind {
            // Read together, as the first reading parsed them (the parser is
            // entered once a batch).
            crate::source::SourceKind::Text => {
                let spans: Vec<Span> = batch.iter().map(|(_, s)| s.span).collect();
                syntax::incremental::read_steps_at(self.text, &spans)?
            }
            crate::source::SourceKind::Json => batch
                .iter()
                .map(|(i, s)| {
                    let name = &heads.get(*i)?.name.node;
                    syntax::json_plan::read_step_again(self.text, s.span, name, &s.clauses)
                })
                .collect::<Option<Vec<_>>>()?,
        };
        let same = trees.len() == batch.len()
            && batch
                .iter()
                .zip(&trees)
                .all(|((i, s), t)| same_skeleton(*i, s, t, heads, bindings));
        same.then_some(trees)
    }
}

/// What a skeletal check keeps of a step's skeleton once its name and
/// tool are its head ([`StepHead`]): where the step is read again, and its
/// clauses: its binds, until the first passes have made bindings of them,
/// and its `after`s (in a JSON plan, the names its numbered `after`s were
/// given once every step was read). 40 bytes a step, where the skeleton
/// was 200 (`docs/performance.md`, "Skeletons kept small").
struct Skeleton {
    span: Span,
    clauses: Vec<ast::Clause>,
}

fn is_after(clause: &ast::Clause) -> bool {
    matches!(clause, ast::Clause::After { .. })
}

impl<'s> StepTrees<'s> {
    /// Each step's name and tool apart ([`StepHead`]), and the steps as the
    /// check reads them. A skeleton's name and tool are moved into its head
    /// and the rest of it into a [`Skeleton`], before the check allocates
    /// anything of its own: the skeletons' vector (200 bytes a step) then
    /// goes while little else is alive; a tree's are copied.
    fn split(self) -> (Vec<StepHead>, Steps<'s>) {
        match self {
            StepTrees::Borrowed(s) => (s.iter().map(StepHead::of).collect(), Steps::Borrowed(s)),
            StepTrees::Owned(s) => (s.iter().map(StepHead::of).collect(), Steps::Owned(s)),
            StepTrees::Skeletal(s, reread) => {
                let mut heads = Vec::with_capacity(s.len());
                let mut kept = Vec::with_capacity(s.len());
                for step in s {
                    heads.push(StepHead {
                        name: step.name,
                        tool: step.tool,
                    });
                    kept.push(Skeleton {
                        span: step.span,
                        clauses: step.clauses,
                    });
                }
                (heads, Steps::Skeletal(kept, reread))
            }
        }
    }
}

/// A plan's steps once their heads are apart ([`StepTrees::split`]).
enum Steps<'s> {
    Borrowed(&'s [ast::Step]),
    Owned(Vec<ast::Step>),
    Skeletal(Vec<Skeleton>, Reread<'s>),
}

impl Steps<'_> {
    /// Each step's clauses (a skeleton's: its binds and `after`s).
    fn clauses(&self) -> impl Iterator<Item = &[ast::Clause]> {
        let (trees, kept): (&[ast::Step], &[Skeleton]) = match self {
            Steps::Borrowed(s) => (s, &[]),
            Steps::Owned(s) => (s, &[]),
            Steps::Skeletal(k, _) => (&[], k),
        };
        let trees = trees.iter().map(|s| s.clauses.as_slice());
        trees.chain(kept.iter().map(|s| s.clauses.as_slice()))
    }

    /// Cuts each skeleton's clauses down to its `after`s once the binds
    /// are bindings (a bind clause is 176 bytes).
    fn binds_read(&mut self) {
        if let Steps::Skeletal(kept, _) = self {
            for s in kept {
                s.clauses.retain(is_after);
                s.clauses.shrink_to_fit();
            }
        }
    }
}

/// What the checker reads of a step besides its tree, which may be gone by
/// the time a later pass reports on the step: its name and its tool as
/// written.
#[derive(Clone)]
struct StepHead {
    name: ast::Name,
    tool: ast::Name,
}

impl StepHead {
    fn of(step: &ast::Step) -> StepHead {
        StepHead {
            name: step.name.clone(),
            tool: step.tool.clone(),
        }
    }
}

/// Step `i`'s name in `heads`; empty for no such step. A function of the
/// field, not of the checker, so that a report can borrow it beside the
/// diagnostics.
fn name_in(heads: &[StepHead], i: usize) -> &Str {
    static NONE: Str = Str::new_inline("");
    heads.get(i).map_or(&NONE, |h| &h.name.node)
}

/// What the checker reads of the plan's declaration besides its steps.
struct PlanHead {
    name: ast::Name,
    replans: Option<Spanned<u64>>,
    max_steps: Option<Spanned<u64>>,
}

struct Checker<'a, 'e> {
    env: &'e mut Env<'a>,
    plan: PlanHead,
    /// Per step, its name and tool ([`StepHead`]).
    heads: Vec<StepHead>,
    diags: Vec<Diagnostic>,
    /// The steps by name ([`Checker::step_named`]).
    step_index: NameIndex,
    tools: Vec<Option<&'a Tool>>,
    rules: Vec<Option<&'a Rule>>,
    /// Per rule (by its tool), the scopes it requires, shared by the
    /// steps under it ([`Authz::scopes`]).
    scope_lists: FastMap<&'a str, std::sync::Arc<[Str]>>,
    bindings: Vec<Binding>,
    /// The bindings by name ([`Checker::binding_named`]).
    binding_index: NameIndex,
    /// The distinct names bound, in the order of their first binding (the
    /// candidates of a suggestion).
    binding_names: Vec<Str>,
    /// A syntax error lies inside the plan.
    plan_damaged: bool,
    deps: Vec<Vec<Dependency>>,
    /// The recorded artifacts the plan refers to (`plan/replan.rs`).
    artifacts_in: std::collections::BTreeMap<String, crate::progress::JsonValue>,
    /// The taint of the last untrusted recorded artifact a value used, set
    /// while an argument is checked (`plan/replan.rs`).
    recorded_taint: Option<Untrusted>,
    /// Per step, the recorded values of its binds when it is reused,
    /// decided before authorization (`plan/replan.rs`).
    reuse: Vec<Option<std::collections::BTreeMap<String, crate::progress::JsonValue>>>,
    /// The record's string leaves, read the first time a replan's literal
    /// is checked for laundering (`plan/launder.rs`).
    laundry: Option<launder::Laundry>,
    /// The bindings the step being checked used, once per use, when the
    /// check keeps a memo (`plan/reuse.rs`).
    uses_log: Option<Vec<usize>>,
}

/// Checks one plan against the environment, returning its model and the
/// diagnostics found inside it (unsorted). With `prior`, the steps a
/// previous check of the same text, edited, decided about are reused where
/// they can be; with `keep`, what the next such check may reuse is kept
/// (`plan/reuse.rs`). Unless `models` keeps them, and when nothing after
/// the steps needs them (no progress record, no memo), the model has no
/// `steps` ([`CheckedPlan::steps_dropped`]): each step's model went once
/// the step was checked, authorized and linted, given to the sink first
/// if there is one ([`StepModels::Lower`]).
pub(crate) fn check_plan<'a>(
    plan: &ast::PlanDecl,
    trees: StepTrees<'_>,
    env: &mut Env<'a>,
    prior: Option<reuse::PlanPrior>,
    keep: bool,
    models: StepModels<'_>,
) -> (CheckedPlan, Vec<Diagnostic>, Option<reuse::PlanMemo>) {
    let (heads, mut trees) = trees.split();
    let n = heads.len();
    // What the model says of the plan besides its steps, known before
    // they are checked (a sink is told it first).
    let head = CheckedPlan {
        name: String::from(plan.name.node.as_str()),
        name_span: plan.name.span,
        span: plan.span,
        doc: plan.doc.text(),
        goal: plan.goal.as_ref().map(|g| g.node.clone()),
        budget: Budget {
            // The stricter of the plan's and the policy's bound.
            replans: match (plan.replans, env.policy.and_then(|p| p.replans)) {
                (Some(a), Some(b)) => Some(a.node.min(b.node)),
                (a, b) => a.or(b).map(|r| r.node),
            },
            max_steps: plan.max_steps.map(|m| m.node),
        },
        steps: Vec::new(),
        bindings: Vec::new(),
        schedule: None,
        approvals: Vec::new(),
        scopes: Vec::new(),
        policy: env.policy.map(|p| p.name.clone()),
        actor: env.actor.to_vec(),
        errors: 0,
        replan: None,
        steps_dropped: false,
    };
    // The plan's binds, counted: the bindings and their index are sized
    // to them, not to the steps (most steps bind nothing).
    let nb: usize = trees.clauses().map(|c| ast::Clause::binds(c).count()).sum();
    let mut c = Checker {
        env,
        plan: PlanHead {
            name: plan.name.clone(),
            replans: plan.replans,
            max_steps: plan.max_steps,
        },
        heads,
        diags: Vec::new(),
        step_index: NameIndex::default(),
        tools: Vec::with_capacity(n),
        rules: Vec::with_capacity(n),
        scope_lists: FastMap::default(),
        bindings: Vec::with_capacity(nb),
        binding_index: NameIndex::default(),
        binding_names: Vec::new(),
        plan_damaged: false,
        deps: vec![Vec::new(); n],
        artifacts_in: std::collections::BTreeMap::new(),
        recorded_taint: None,
        reuse: Vec::new(),
        laundry: None,
        uses_log: keep.then(Vec::new),
    };
    c.plan_damaged = c.env.damaged(plan.span);
    c.name_steps();
    c.resolve_tools();
    c.bind_pass(trees.clauses());
    trees.binds_read();
    let mut prior = prior.filter(|p| c.same_context(p));
    // Only the diagnostics are wanted, and no pass after the steps needs
    // their models: without a progress record reuse decides nothing, so
    // each step is authorized and linted as soon as it is checked, and its
    // model goes; the later passes read what a `Tally`, the tools, the
    // heads and the dependencies keep (`docs/performance.md`, "Where the
    // memory goes"). The diagnostics are the same, in the same order
    // (`tests/ui.rs` checks every fixture both ways); only which
    // suggestions a run-out suggestion budget leaves out may differ, as
    // authorization asks for its suggestions earlier.
    let let_go =
        !matches!(models, StepModels::Keep) && !keep && prior.is_none() && c.env.progress.is_none();
    let mut sink = match models {
        StepModels::Lower(sink, sources) => Some((sink, sources)),
        StepModels::Keep | StepModels::LetGo => None,
    };
    if let Some((sink, sources)) = sink.as_mut() {
        sink.plan(&head, n, sources);
    }
    let mut sink = sink.filter(|_| let_go);
    // The write order, read from the tools and the heads, before the steps
    // when a sink lowers each as it is checked: a step's dependencies are
    // then whole once it is. Otherwise after them, where a step reused
    // from a previous check (whose dependencies are those it had before
    // the write order was added) gets the write order of this text.
    let effects_first = sink.is_some();
    if effects_first {
        c.effect_edges();
    }
    let mut steps: Vec<Box<CheckedStep>> = Vec::with_capacity(if let_go { 0 } else { n });
    let mut memos: Vec<reuse::StepMemoOut> = Vec::with_capacity(if keep { n } else { 0 });
    // Per step, whether it was reused (only with a prior).
    let mut reused: Vec<bool> = Vec::new();
    let mut tallies: Vec<Tally> = Vec::new();
    let mut approvals: Vec<usize> = Vec::new();
    // A set of the distinct scopes, not a copy of every step's (100,000
    // names at 100,000 steps) sorted and deduplicated: the copy was the
    // largest allocation of the check's end (`docs/performance.md`, "Where
    // the memory goes").
    let mut distinct: std::collections::BTreeSet<Str> = std::collections::BTreeSet::new();
    let mut step = |c: &mut Checker<'a, '_>, i: usize, tree: &ast::Step| {
        let binds = binds_of(&c.bindings, i);
        if let Some(p) = prior.as_mut() {
            let again = c.reuse_step(p, i, tree, &binds);
            reused.push(again.is_some());
            if let Some((checked, memo)) = again {
                steps.push(checked);
                if keep {
                    memos.push(memo);
                }
                return;
            }
        }
        let mark = keep.then(|| c.mark());
        let mut checked = c.check_step(i, tree, binds);
        c.tree_lints(tree, &checked);
        if let Some(mark) = mark {
            memos.push(c.step_memo(mark, i, reuse::extent(tree)));
        }
        if !let_go {
            steps.push(Box::new(checked));
            return;
        }
        if let Some(t) = c.tool(i) {
            checked.authz = c.check_policy(i, t, &checked.args);
        }
        c.step_lints(&checked);
        tallies.extend(Tally::of(&checked, c.env.policy));
        gather_authz(&checked, &mut approvals, &mut distinct);
        if let Some((sink, sources)) = sink.as_mut() {
            if let Some(deps) = c.deps.get_mut(i) {
                settle(deps);
                checked.depends_on.clone_from(deps);
            }
            let heads = &c.heads;
            let name = |j| name_in(heads, j).clone();
            sink.step(&checked, &c.bindings, &name, sources);
        }
    };
    // Every later pass reads the models (or what is kept of them), the
    // heads and the bindings: an owned step's tree goes as soon as its
    // model is built.
    match trees {
        Steps::Borrowed(trees) => {
            for (i, tree) in trees.iter().enumerate() {
                step(&mut c, i, tree);
            }
        }
        Steps::Owned(trees) => {
            for (i, tree) in trees.into_iter().enumerate() {
                step(&mut c, i, &tree);
            }
        }
        Steps::Skeletal(kept, reread) => {
            let mut kept = kept.into_iter().enumerate().peekable();
            while kept.peek().is_some() {
                let batch: Vec<(usize, Skeleton)> =
                    kept.by_ref().take(syntax::stepwise::BATCH).collect();
                let Some(trees) = reread.steps(&batch, &c.heads, &c.bindings) else {
                    // Never expected: the caller checks again from a whole
                    // parse, whatever this check reports.
                    c.env.reread_failed = true;
                    return (head, Vec::new(), None);
                };
                for ((i, _), tree) in batch.into_iter().zip(trees) {
                    step(&mut c, i, &tree);
                }
            }
        }
    }
    // The indexes of names serve the reading of the steps' trees; every
    // later pass reads the models. They go before authorization adds its
    // guards and notes, the check's peak (docs/performance.md, "Where the
    // memory goes").
    c.step_index = NameIndex::default();
    c.binding_index = NameIndex::default();
    c.binding_names = Vec::new();
    if !let_go {
        // Reuse is known before authorization: a ceiling over a reused
        // step's artifact is decided from its recorded value.
        c.decide_reuse(&steps);
        if keep {
            c.authorize_keeping(&mut steps, &mut memos, &reused);
        } else {
            for checked in &mut steps {
                if let Some(t) = c.tool(checked.index) {
                    checked.authz = c.check_policy(checked.index, t, &checked.args);
                }
            }
        }
        tallies.extend(steps.iter().filter_map(|s| Tally::of(s, c.env.policy)));
        for s in &steps {
            gather_authz(s, &mut approvals, &mut distinct);
        }
    }
    c.check_totals(&tallies);
    drop(tallies);
    if !effects_first {
        c.effect_edges();
    }
    let mut deps = std::mem::take(&mut c.deps);
    for deps in &mut deps {
        settle(deps);
    }
    let schedule = c.order(&deps);
    for (step, deps) in steps.iter_mut().zip(deps) {
        step.depends_on = deps;
    }
    if let_go {
        c.unused_bindings();
    } else {
        c.lints(&steps);
    }
    c.budget();
    let replan = c.replan();

    let scopes: Vec<Str> = distinct.into_iter().collect();
    let errors = c.diags.iter().filter(|d| d.is_error()).count();
    let model = CheckedPlan {
        steps,
        bindings: c.bindings,
        schedule,
        approvals,
        scopes,
        errors,
        replan,
        steps_dropped: let_go,
        ..head
    };
    if let Some((sink, sources)) = sink.as_mut() {
        let heads = &c.heads;
        sink.end(&model, &|j| name_in(heads, j).clone(), sources);
    }
    let memo = keep.then(|| reuse::PlanMemo::of(memos));
    (model, c.diags, memo)
}

/// A step's dependencies in the model's order: by step, then reason, one
/// of each (the first written, whose span a report shows).
fn settle(deps: &mut Vec<Dependency>) {
    deps.sort_by_key(|d| (d.step, d.reason));
    deps.dedup_by_key(|d| (d.step, d.reason));
    deps.shrink_to_fit();
}

/// Whether `tree`, step `i` read again from its span, is the step
/// `skeleton` was kept of: the name and tool of its head, its span, the
/// binds the first passes made bindings of, and its `after`s.
fn same_skeleton(
    i: usize,
    skeleton: &Skeleton,
    tree: &ast::Step,
    heads: &[StepHead],
    bindings: &[Binding],
) -> bool {
    let bound = bindings.get(binds_of(bindings, i)).unwrap_or_default();
    heads
        .get(i)
        .is_some_and(|h| h.name == tree.name && h.tool == tree.tool)
        && skeleton.span == tree.span
        && bound.len() == tree.binds().count()
        && bound.iter().zip(tree.binds()).all(|(b, (name, path))| {
            b.name == name.node
                && b.name_span == name.span
                && b.path_span == path.span
                && path.root.is_none()
                && b.path.iter().eq(path.segments.iter().map(|s| &s.node))
        })
        && skeleton
            .clauses
            .iter()
            .eq(tree.clauses.iter().filter(|c| is_after(c)))
}

/// Adds a checked step's need of approval and its scopes to the plan's.
fn gather_authz(
    s: &CheckedStep,
    approvals: &mut Vec<usize>,
    scopes: &mut std::collections::BTreeSet<Str>,
) {
    if s.authz.approval.is_some() {
        approvals.push(s.index);
    }
    for scope in s.authz.scopes.iter() {
        if !scopes.contains(scope) {
            scopes.insert(scope.clone());
        }
    }
}

/// The name of binding `p` of `bindings`; empty for no such binding.
fn binding_name(bindings: &[Binding], p: usize) -> &str {
    bindings.get(p).map_or("", |b| b.name.as_str())
}

/// The indices of step `i`'s bindings in `bindings`, which are in their
/// steps' order ([`Checker::bind_pass`]).
fn binds_of(bindings: &[Binding], i: usize) -> std::ops::Range<usize> {
    bindings.partition_point(|b| b.step < i)..bindings.partition_point(|b| b.step <= i)
}

/// [`Checker::use_binding`], for a caller that holds another field.
#[inline]
fn count_use(bindings: &mut [Binding], log: &mut Option<Vec<usize>>, b: usize) {
    if let Some(binding) = bindings.get_mut(b) {
        binding.uses += 1;
        if let Some(log) = log {
            log.push(b);
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        one.to_string()
    } else {
        many.to_string()
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c`: names in backticks.
fn list_names<S: AsRef<str>>(names: &[S]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{}`", n.as_ref())).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} and {last}", init.join(", ")),
    }
}

impl<'a> Checker<'a, '_> {
    fn step_name(&self, i: usize) -> &str {
        name_in(&self.heads, i)
    }

    fn report(&mut self, i: usize, d: Diagnostic) {
        self.diags.push(d.in_step(name_in(&self.heads, i).clone()));
    }

    /// Step `i` depends on `dep` (most steps on one step or none).
    fn depend(&mut self, i: usize, dep: Dependency) {
        if let Some(deps) = self.deps.get_mut(i) {
            planc_lang::push_sparse(deps, dep);
        }
    }

    /// Counts a use of binding `b` (one never used is W0403).
    fn use_binding(&mut self, b: usize) {
        count_use(&mut self.bindings, &mut self.uses_log, b);
    }

    fn tool(&self, i: usize) -> Option<&'a Tool> {
        self.tools.get(i).copied().flatten()
    }

    // ------------------------------------------------------------ names

    fn name_steps(&mut self) {
        let heads = &self.heads;
        let name = |p: usize| name_in(heads, p).as_str();
        let (index, repeats) = NameIndex::new(heads.len(), name);
        self.step_index = index;
        for (i, first) in repeats {
            let (Some(step), Some(first)) = (heads.get(i), heads.get(first)) else {
                continue;
            };
            let d = Diagnostic::new(
                Code::E0104,
                step.name.span,
                format!("step name `{}` is used more than once", step.name.node),
            )
            .with_label("used again here")
            .with_secondary(first.name.span, "first used here")
            .with_help("step names identify steps across replans: give each step its own name");
            self.diags.push(d.in_step(step.name.node.clone()));
        }
    }

    /// The first step named `key` (while the steps' trees are read).
    fn step_named(&self, key: &str) -> Option<usize> {
        let heads = &self.heads;
        self.step_index.first(key, |p| name_in(heads, p).as_str())
    }

    /// The first binding named `key` (while the steps' trees are read).
    fn binding_named(&self, key: &str) -> Option<usize> {
        let bindings = &self.bindings;
        self.binding_index.first(key, |p| binding_name(bindings, p))
    }

    fn resolve_tools(&mut self) {
        for i in 0..self.heads.len() {
            let Some(written) = self.heads.get(i).map(|h| h.tool.clone()) else {
                continue;
            };
            let tool = self.env.catalog.get(&written.node);
            // An empty name is an error node: the front end could not read
            // the tool (a JSON step without `tool`) and has said so.
            if tool.is_none() && !written.node.is_empty() {
                let catalog = self.env.catalog;
                let near = self.env.nearest(
                    &written.node,
                    catalog.tools().iter().map(|t| t.name.as_str()),
                );
                let mut d = Diagnostic::new(
                    Code::E0101,
                    written.span,
                    format!("unknown tool `{}`", written.node),
                )
                .with_label("not in the catalogue");
                if catalog.is_empty() {
                    d = d.with_help("no tool catalogue is loaded: pass `--catalog FILE`, or name one in a `planc.toml` beside the plan (in the current folder for standard input)");
                } else {
                    d = policy::add_suggestion(d, &near, written.span);
                    if near.is_empty() {
                        d = d.with_help("the plan may call only the tools of the catalogue");
                    }
                }
                self.report(i, d);
            }
            if let Some((t, at)) = tool.and_then(|t| t.degraded.map(|at| (t, at))) {
                let d = Diagnostic::new(
                    Code::E0111,
                    written.span,
                    format!("`{}` cannot be called: its catalogue schema could not be read", t.name),
                )
                .with_label("schema not understood")
                .with_secondary(at, format!("planc could not map this part of `{}`", t.name))
                .with_help("fix the tool's schema in the catalogue (see the W0501 warning there), or call another tool");
                self.report(i, d);
            }
            self.tools.push(tool);
            let rule = match (tool, self.env.policy) {
                (Some(t), Some(p)) => p.rule(&t.name),
                _ => None,
            };
            self.rules.push(rule);
        }
    }

    /// Step `i`'s tool's effect, idempotence and trust, from the catalogue
    /// and the policy; `None` when the tool is not in the catalogue.
    fn traits(&self, i: usize) -> Option<Traits> {
        self.tool(i)
            .map(|t| Traits::of(t, self.rules.get(i).copied().flatten()))
    }

    /// Whether step `i`'s tool output is untrusted ([`Traits::untrusted`]).
    fn untrusted_tool(&self, i: usize) -> bool {
        self.traits(i).is_some_and(|t| t.untrusted)
    }

    // ------------------------------------------------------------ binds

    /// Types every `bind` against its tool's result and registers it, so
    /// that references can name bindings of later steps in their errors.
    /// The bindings are pushed in their steps' order: a step's are a range.
    fn bind_pass<'t>(&mut self, steps: impl Iterator<Item = &'t [ast::Clause]>) {
        for (i, clauses) in steps.enumerate() {
            for (name, path) in ast::Clause::binds(clauses) {
                let value_word = lexicon::VALUE_WORDS.contains(&name.node.as_str());
                if value_word {
                    let d = Diagnostic::new(
                        Code::E0112,
                        name.span,
                        format!("`{}` cannot name a binding", name.node),
                    )
                    .with_label(format!(
                        "a reference to it reads as the value `{}`",
                        name.node
                    ))
                    .with_help("`true`, `false` and `null` are values wherever a value is read: give the binding another name");
                    self.report(i, d);
                }
                let ty = match self.tool(i) {
                    Some(t) => self.type_path(i, &t.result, path, t),
                    None => Ty::Error,
                };
                self.bindings.push(Binding {
                    name: name.node.clone(),
                    name_span: name.span,
                    step: i,
                    path: path.segments.iter().map(|s| s.node.clone()).collect(),
                    path_span: path.span,
                    ty,
                    // Trust is the catalogue's and the policy's call: the
                    // output of a trusted tool is trusted whatever went in.
                    untrusted_from: self.untrusted_tool(i).then_some(i),
                    // Refused already: not reported unused as well.
                    uses: usize::from(value_word),
                });
            }
        }
        let bindings = &self.bindings;
        let (index, repeats) = NameIndex::new(bindings.len(), |p| binding_name(bindings, p));
        self.binding_index = index;
        // The names bound, each once: the bindings but the repeats (both
        // in ascending order).
        let mut later = repeats.iter().map(|&(p, _)| p).peekable();
        self.binding_names = bindings
            .iter()
            .enumerate()
            .filter(|&(p, _)| later.next_if_eq(&p).is_none())
            .map(|(_, b)| b.name.clone())
            .collect();
        for (again, first) in repeats {
            let (Some(b), Some(first)) = (self.bindings.get(again), self.bindings.get(first))
            else {
                continue;
            };
            let (i, first_step) = (b.step, first.step);
            let d = Diagnostic::new(
                Code::E0104,
                b.name_span,
                format!("`{}` is bound more than once", b.name),
            )
            .with_label("bound again here")
            .with_secondary(
                first.name_span,
                format!("first bound here, by step `{}`", self.step_name(first_step)),
            )
            .with_help("a binding names one value: give this one another name");
            self.report(i, d);
            // The duplicate is not referred to: do not report it unused.
            if let Some(b) = self.bindings.get_mut(again) {
                b.uses = 1;
            }
        }
    }

    /// The type at `path` in `root` (a tool's result), or the error type
    /// after reporting E0202.
    fn type_path(&mut self, i: usize, root: &Ty, path: &ast::Path, tool: &Tool) -> Ty {
        let says = || {
            (
                format!(" in the result of `{}`", tool.name),
                format!("`{}` returns `{}`", tool.name, tool.result),
            )
        };
        let origin = PathOrigin {
            root: "$",
            span: tool.name_span,
            says: &says,
        };
        self.type_segments(i, root, &path.segments, &origin)
    }

    /// The type of the value `segments` reach from a value of type `root`;
    /// E0202 (with `origin`'s label) where a segment does not apply.
    pub(super) fn type_segments(
        &mut self,
        i: usize,
        root: &Ty,
        segments: &[Spanned<PathSeg>],
        origin: &PathOrigin<'_>,
    ) -> Ty {
        let mut cur = root.clone();
        let mut optional = false;
        for (k, seg) in segments.iter().enumerate() {
            // The path up to this segment, for messages only.
            let prefix = || {
                let mut s = origin.root.to_string();
                for seg in segments.iter().take(k) {
                    let _ = crate::syntax::path::write_segment(&mut s, &seg.node);
                }
                s
            };
            match cur.path_step(&seg.node) {
                catalog::PathStep::Into(ty, o) => {
                    cur = ty;
                    optional |= o;
                }
                catalog::PathStep::Opaque(ty) => return ty,
                catalog::PathStep::NoField(fields) => {
                    let PathSeg::Field(f) = &seg.node else {
                        return Ty::Error;
                    };
                    let prefix = prefix();
                    let names: Vec<&str> = fields.iter().map(|x| x.name.as_str()).collect();
                    let near = self.env.nearest(f, names.iter().copied());
                    let (whose, label) = (origin.says)();
                    let mut d = Diagnostic::new(
                        Code::E0202,
                        seg.span,
                        format!("`{prefix}` has no field `{f}`{whose}"),
                    )
                    .with_label("no such field")
                    .with_secondary(origin.span, label);
                    d = match suggest::did_you_mean(&near) {
                        Some(help) => {
                            let fixed = near.first().map(|b| format!(".{b}")).unwrap_or_default();
                            d.with_help(help).with_fix(
                                format!("replace with `{fixed}`"),
                                seg.span,
                                fixed,
                            )
                        }
                        None => {
                            d.with_help(format!("`{prefix}` has the fields {}", list_names(&names)))
                        }
                    };
                    self.report(i, d);
                    return Ty::Error;
                }
                catalog::PathStep::NotRecord(other) => {
                    let PathSeg::Field(f) = &seg.node else {
                        return Ty::Error;
                    };
                    let prefix = prefix();
                    let d = Diagnostic::new(
                        Code::E0202,
                        seg.span,
                        format!("`{prefix}` is `{other}`, which has no field `{f}`"),
                    )
                    .with_label("not a record")
                    .with_help(not_a_record_help(other, &prefix))
                    .with_secondary(origin.span, (origin.says)().1);
                    self.report(i, d);
                    return Ty::Error;
                }
                catalog::PathStep::NotList(other) => {
                    let PathSeg::Index(n) = &seg.node else {
                        return Ty::Error;
                    };
                    let prefix = prefix();
                    let d = Diagnostic::new(
                        Code::E0202,
                        seg.span,
                        format!("`{prefix}` is `{other}`, not a list: it has no element `[{n}]`"),
                    )
                    .with_label("not a list")
                    .with_help(match other {
                        Ty::Map(_) => format!(
                            "`{prefix}` is a map: name a key, `{prefix}[\"KEY\"]`, or count its keys with `len`"
                        ),
                        _ => format!("remove `[{n}]`: `{prefix}` is a single value"),
                    })
                    .with_secondary(origin.span, (origin.says)().1);
                    self.report(i, d);
                    return Ty::Error;
                }
            }
        }
        if optional { Ty::optional(cur) } else { cur }
    }

    // ------------------------------------------------------------ steps

    fn check_step(
        &mut self,
        i: usize,
        step: &ast::Step,
        binds: std::ops::Range<usize>,
    ) -> CheckedStep {
        let tool = self.tool(i);
        // A degraded tool's parameters are not known: its one E0111 is
        // all a call gets, never knock-on argument errors.
        let args = self.check_args(i, step, tool.filter(|t| t.degraded.is_none()));
        // Sized once: a step's model lives as long as the compilation, and
        // a vector grown by pushes keeps room for four.
        let (n_pre, n_post) = step.clauses.iter().fold((0, 0), |(a, b), c| match c {
            ast::Clause::Pre(_) => (a + 1, b),
            ast::Clause::Post(_) => (a, b + 1),
            _ => (a, b),
        });
        let mut pres = Vec::with_capacity(n_pre);
        let mut posts = Vec::with_capacity(n_post);
        let mut on_unmet: Option<&Spanned<ast::OnUnmet>> = None;
        let mut retry: Option<&Spanned<u64>> = None;
        for clause in &step.clauses {
            match clause {
                ast::Clause::Pre(p) => {
                    if let Some(pre) = self.check_pre(i, p) {
                        pres.push(pre);
                    }
                }
                ast::Clause::Post(p) => {
                    if let Some(probe) = self.check_probe(i, p, tool) {
                        posts.push(probe);
                    }
                }
                ast::Clause::OnUnmet(o) => {
                    if let Some(first) = on_unmet {
                        self.duplicate_clause(i, "on_unmet", o.span, first.span);
                    } else {
                        on_unmet = Some(o);
                    }
                }
                ast::Clause::Retry(r) => {
                    if let Some(first) = retry {
                        self.duplicate_clause(i, "retry", r.span, first.span);
                        continue;
                    }
                    retry = Some(r);
                    if let Some(t) = tool.filter(|_| self.traits(i).is_some_and(|t| !t.idempotent))
                    {
                        let by_policy = self
                            .rules
                            .get(i)
                            .copied()
                            .flatten()
                            .and_then(|r| r.idempotent);
                        let declared = match (by_policy, &t.idempotent) {
                            (Some(stated), _) => (
                                stated.span,
                                format!("the policy states `{}` not idempotent here", t.name),
                            ),
                            (None, Some(stated)) => (
                                stated.span,
                                format!("`{}` is declared not idempotent here", t.name),
                            ),
                            (None, None) => (
                                t.name_span,
                                format!("`{}` is declared here without `idempotent`", t.name),
                            ),
                        };
                        let mut d = Diagnostic::new(
                            Code::E0304,
                            r.span,
                            format!("`retry` on `{}`, which is not idempotent", t.name),
                        )
                        .with_label("a repeat could act twice")
                        .with_secondary(declared.0, declared.1);
                        d = if t.idempotent.is_none() && by_policy.is_none() {
                            d.with_help(
                                "remove `retry`: a tool that is not idempotent may have acted before it failed; let `on_unmet` decide; if the tool is idempotent, state it in the catalogue or in the policy's rule",
                            )
                        } else {
                            d.with_help(
                                "remove `retry`: a tool that is not idempotent may have acted before it failed; let `on_unmet` decide",
                            )
                        };
                        self.report(i, d);
                    }
                }
                ast::Clause::After { steps, .. } => {
                    for target in steps {
                        self.after_edge(i, target);
                    }
                }
                ast::Clause::Bind { .. } | ast::Clause::Error(_) => {}
            }
        }
        let untrusted_inputs = args
            .iter()
            .filter(|a| a.untrusted_from.is_some())
            .map(|a| a.name.clone())
            .collect();
        CheckedStep {
            index: i,
            name: step.name.node.clone(),
            name_span: step.name.span,
            span: step.span,
            doc: step.doc.text(),
            tool_name: step.tool.node.clone(),
            tool_span: step.tool.span,
            tool: tool.zip(self.traits(i)).map(|(t, traits)| ResolvedTool {
                effect: traits.effect_or_write(),
                idempotent: traits.idempotent,
                untrusted: traits.untrusted,
                decl_span: t.span,
            }),
            args,
            binds,
            pres,
            posts,
            on_unmet: on_unmet.map_or(ast::OnUnmet::Replan, |o| o.node),
            retry: retry.map(|r| r.node),
            depends_on: Vec::new(),
            // Decided after reuse (`check_plan`).
            authz: Authz::default(),
            untrusted_inputs,
        }
    }

    fn duplicate_clause(&mut self, i: usize, what: &str, span: Span, first: Span) {
        let d = Diagnostic::new(
            Code::E0104,
            span,
            format!("the step has more than one `{what}`"),
        )
        .with_label("given again here")
        .with_secondary(first, "first given here")
        .with_help(format!("keep one `{what}`"));
        self.report(i, d);
    }
}

/// Where a typed path starts, for [`Checker::type_segments`]'s messages:
/// the text before its segments (`$`, `tags`), where its type is declared,
/// and what the messages say of it: what the value is (" in the result of
/// `t`", or nothing) and the label there. Those are written only when a
/// message needs them (a type's text is long to write, and most paths are
/// well typed).
pub(super) struct PathOrigin<'o> {
    pub root: &'o str,
    pub span: Span,
    pub says: &'o dyn Fn() -> (String, String),
}
