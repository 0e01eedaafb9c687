//! The semantic model: what the checker decided about a plan, in a form the
//! IR lowering (and the language server) read without re-deriving anything.
//!
//! Plain data: indices point into the plan's own vectors (`steps`,
//! `bindings`), spans point into the source. The model is built even when
//! the plan has errors (the editor needs it); the parts an error made
//! unknown are marked (`tool: None`, [`ValueKind::Error`], [`Ty::Error`]),
//! and the lowering runs only when there are no errors.

use crate::catalog::{Ty, Value};
use crate::source::Span;
use crate::syntax::ast::{Approval, CmpOp, Effect, OnUnmet, PathSeg, Str};

/// One checked plan.
#[derive(Clone, Debug)]
pub struct CheckedPlan {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    pub doc: String,
    pub goal: Option<String>,
    pub budget: Budget,
    /// In source order; `steps[i].index == i`. Each step's model is its
    /// own allocation: it is made as the step's tree is let go, in the
    /// memory the tree gave back, where one vector of 376-byte models
    /// would be allocated whole beside every tree (`docs/performance.md`,
    /// "Where the memory goes").
    pub steps: Vec<Box<CheckedStep>>,
    /// Every `bind` of the plan, in source order. A name bound twice (an
    /// error) is listed twice; references resolve to the first.
    pub bindings: Vec<Binding>,
    /// Waves of step indices whose dependencies are all in earlier waves;
    /// `None` when the ordering graph has a cycle (an error).
    pub schedule: Option<Vec<Vec<usize>>>,
    /// The steps that need a human's approval before the run starts.
    pub approvals: Vec<usize>,
    /// The sorted union of the scopes the run needs.
    pub scopes: Vec<Str>,
    /// The name of the policy the plan was checked under.
    pub policy: Option<String>,
    /// The actor's scopes the plan was checked with.
    pub actor: Vec<String>,
    /// How many errors the checker reported inside this plan. The IR is
    /// lowered only from plans with none (and no errors elsewhere).
    pub errors: usize,
    /// What a replan takes from the progress record it was checked against
    /// (`None` without a record): the IR's `progress` and per-step `reuse`.
    pub replan: Option<Replan>,
    /// Whether each step's model went once the step was checked (a check
    /// for its diagnostics only, [`crate::check::check_plans_owned`]):
    /// `steps` is then empty, and the plan has no IR (the lowering
    /// refuses it).
    pub steps_dropped: bool,
}

impl CheckedPlan {
    /// The steps in source order, each as the model itself (they are
    /// boxed: [`CheckedPlan::steps`]).
    pub fn each_step(&self) -> impl ExactSizeIterator<Item = &CheckedStep> {
        self.steps.iter().map(|s| &**s)
    }

    /// The name of step `i` (a reference or a dependency names its step
    /// by index), shared, not copied; empty for no such step.
    pub fn step_name(&self, i: usize) -> Str {
        self.steps
            .get(i)
            .map(|s| s.name.clone())
            .unwrap_or_default()
    }
}

/// A replan's use of its progress record (`docs/replanning.md`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replan {
    /// How many replans the run had used when the record was written.
    pub replans_used: u64,
    /// The run's replans are spent and the plan has the record's name,
    /// steps and tools and reuses every step the record completed: it is
    /// a resume only if the record names its plan fingerprint, and this
    /// E0305 is reported otherwise ([`crate::check::resume_fingerprints`],
    /// once the plan is lowered; `docs/replanning.md`).
    pub resume_unless: Option<Box<crate::diagnostics::Diagnostic>>,
    /// The recorded artifacts the plan refers to without binding them, with
    /// their values (each reference was checked as that value, a literal).
    pub artifacts_in: std::collections::BTreeMap<String, crate::progress::JsonValue>,
    /// Per step, in plan order: the recorded values of its binds when the
    /// step is reused (it completed with the same tool and arguments, so it
    /// is not run again), else `None`.
    pub reuse: Vec<Option<std::collections::BTreeMap<String, crate::progress::JsonValue>>>,
}

/// The plan's budget lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    pub replans: Option<u64>,
    pub max_steps: Option<u64>,
}

/// One checked step.
#[derive(Clone, Debug)]
pub struct CheckedStep {
    pub index: usize,
    pub name: Str,
    pub name_span: Span,
    pub span: Span,
    pub doc: String,
    /// The tool as written.
    pub tool_name: Str,
    pub tool_span: Span,
    /// The catalogue's tool; `None` when the name is not in the catalogue.
    pub tool: Option<ResolvedTool>,
    /// The arguments as written, in source order, then the parameters left
    /// out that have a default, in declaration order.
    pub args: Vec<CheckedArg>,
    /// The indices into [`CheckedPlan::bindings`] of this step's binds
    /// (the bindings are in their steps' order).
    pub binds: std::ops::Range<usize>,
    /// The preconditions, normalised (ill-typed ones are left out).
    pub pres: Vec<CheckedPre>,
    /// The postconditions, normalised (ill-typed ones are left out).
    pub posts: Vec<CheckedProbe>,
    /// `replan` unless the step says otherwise.
    pub on_unmet: OnUnmet,
    pub retry: Option<u64>,
    /// Sorted by step index, then reason; one entry per (step, reason).
    pub depends_on: Vec<Dependency>,
    pub authz: Authz,
    /// The names of the arguments fed by untrusted data, in argument order.
    pub untrusted_inputs: Vec<Str>,
}

impl CheckedStep {
    pub fn arg(&self, name: &str) -> Option<&CheckedArg> {
        self.args.iter().find(|a| a.name == name)
    }
}

/// What the step's tool is, as the executor needs it.
#[derive(Clone, Debug)]
pub struct ResolvedTool {
    /// The effect the catalogue or the policy states
    /// ([`crate::policy::Traits`]); a tool neither states one for counts
    /// as `write`.
    pub effect: Effect,
    /// Idempotent by the catalogue or the policy.
    pub idempotent: bool,
    /// Untrusted in the catalogue or in the policy.
    pub untrusted: bool,
    /// The tool's declaration (in the catalogue's file).
    pub decl_span: Span,
}

/// One argument with its checked value.
#[derive(Clone, Debug)]
pub struct CheckedArg {
    pub name: Str,
    /// The name as written; for a default, the parameter's declaration.
    pub name_span: Span,
    /// The parameter's type (`any` when the argument is unknown).
    pub param_ty: Ty,
    pub value: TypedValue,
    /// The value is the parameter's default, not written in the step.
    pub from_default: bool,
    /// When the value carries untrusted data: the index of the step whose
    /// untrusted tool produced it (it travels through bindings, member
    /// access, records, lists and interpolation; the output of a trusted
    /// tool is trusted whatever went into it).
    pub untrusted_from: Option<Untrusted>,
}

impl CheckedArg {
    /// Whether the executor checks the argument's resolved value against
    /// its parameter's type before the call (N0307, `docs/ir.md`): a
    /// reference in it has no declared type (an `any` result, or a part of
    /// one) and the parameter has one. Any other value was checked here:
    /// a literal against the parameter, a reference through its declared
    /// type, which the executor checks the result against when it binds.
    pub fn checked_at_dispatch(&self) -> bool {
        if matches!(self.param_ty.strip_optional(), Ty::Any | Ty::Error) {
            return false;
        }
        let holds = |v: &TypedValue| matches!(v.kind, ValueKind::Ref(_)) && v.ty.holds_any();
        // Most arguments are one literal or reference: no stack for them.
        let mut stack = match &self.value.kind {
            ValueKind::List(_) | ValueKind::Record(_) => vec![&self.value],
            _ => return holds(&self.value),
        };
        while let Some(v) = stack.pop() {
            match &v.kind {
                _ if holds(v) => return true,
                ValueKind::List(items) => stack.extend(items.iter()),
                ValueKind::Record(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
                _ => {}
            }
        }
        false
    }

    /// A parameter the step leaves out whose default is `null`: the call
    /// leaves it out too (`docs/ir.md`), and the rules over it hold of
    /// nothing.
    pub fn is_left_out(&self) -> bool {
        self.from_default && matches!(self.value.kind, ValueKind::Literal(Value::Null))
    }
}

/// Where an argument's untrusted data comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Untrusted {
    /// The output of this step of the plan (its index).
    Step(usize),
    /// An artifact of a progress record (a replan): a recorded value is
    /// checked as a literal, and keeps its taint. Boxed: it is rare, and
    /// every argument's model has room for one.
    Recorded(Box<RecordedTaint>),
}

/// Where a recorded untrusted value comes from: step `step` (at index `at`
/// of the progress record) called the untrusted `tool`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedTaint {
    pub step: Str,
    pub tool: Str,
    pub at: usize,
}

/// A value with its type and where it was written.
#[derive(Clone, Debug)]
pub struct TypedValue {
    pub kind: ValueKind,
    /// The value's own type (a literal `5` passed as a decimal is a
    /// `decimal`; a reference has its binding's type after member access).
    pub ty: Ty,
    pub span: Span,
}

impl TypedValue {
    /// Whether the value is fixed at compile time (no reference inside).
    pub fn is_constant(&self) -> bool {
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match &v.kind {
                ValueKind::Literal(_) => {}
                ValueKind::Ref(_) | ValueKind::Error => return false,
                ValueKind::Interp(parts) => {
                    if parts.iter().any(|p| matches!(p, InterpPiece::Ref { .. })) {
                        return false;
                    }
                }
                ValueKind::List(items) => stack.extend(items.iter()),
                ValueKind::Record(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            }
        }
        true
    }

    /// Every reference inside the value, in source order.
    pub fn references(&self) -> Vec<&RefValue> {
        // Most arguments are a literal or one reference: no walk.
        match &self.kind {
            ValueKind::Literal(_) | ValueKind::Error => return Vec::new(),
            ValueKind::Ref(r) => return vec![r],
            _ => {}
        }
        let mut out: Vec<&RefValue> = Vec::new();
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match &v.kind {
                ValueKind::Literal(_) | ValueKind::Error => {}
                ValueKind::Ref(r) => out.push(&**r),
                ValueKind::Interp(parts) => out.extend(parts.iter().filter_map(|p| match p {
                    InterpPiece::Ref { reference, .. } => Some(reference),
                    InterpPiece::Text(_) => None,
                })),
                ValueKind::List(items) => stack.extend(items.iter().rev()),
                ValueKind::Record(entries) => stack.extend(entries.iter().rev().map(|(_, v)| v)),
            }
        }
        out.sort_by_key(|r| r.span.start);
        out
    }
}

/// How an argument's value is built.
#[derive(Clone, Debug)]
pub enum ValueKind {
    /// A literal, typed against the parameter (a string passed as a date is
    /// a [`Value::Date`]).
    Literal(Value),
    /// A binding of an earlier step, with member access. Boxed: a
    /// reference is 80 bytes, a literal 24, and every value would
    /// otherwise be as large as a reference.
    Ref(Box<RefValue>),
    List(Vec<TypedValue>),
    /// Entries in source order.
    Record(Vec<(Str, TypedValue)>),
    /// A string built from text and references.
    Interp(Vec<InterpPiece>),
    /// A value an error made unknown.
    Error,
}

/// A reference to a binding: `period_end`, `facts.plan`.
#[derive(Clone, Debug)]
pub struct RefValue {
    pub binding: Str,
    /// Index into [`CheckedPlan::bindings`].
    pub binding_index: usize,
    /// The step that binds it (its name is that step's: the model does not
    /// copy it into every reference).
    pub step: usize,
    /// Member names after the binding (`plan` in `facts.plan`).
    pub members: Vec<Str>,
    pub span: Span,
}

/// A piece of an interpolated string.
#[derive(Clone, Debug)]
pub enum InterpPiece {
    Text(Str),
    /// A reference, with the type of its value (rendered as text).
    Ref {
        reference: RefValue,
        ty: Ty,
    },
}

/// `bind NAME = PATH`
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: Str,
    pub name_span: Span,
    /// The step that binds it.
    pub step: usize,
    pub path: Vec<PathSeg>,
    pub path_span: Span,
    /// The type at the path in the tool's result (`any` after an error).
    pub ty: Ty,
    /// When the value is untrusted data: the step whose untrusted tool it
    /// comes from.
    pub untrusted_from: Option<usize>,
    /// How many references to it the plan makes.
    pub uses: usize,
}

impl Binding {
    /// The path's text, `$.results[0].id`: written when read (a hover, a
    /// report, the IR), not at every check.
    pub fn path_text(&self) -> String {
        crate::syntax::path::write(&self.path)
    }
}

/// A postcondition, normalised.
#[derive(Clone, Debug)]
pub struct CheckedProbe {
    pub kind: ProbeKind,
    pub span: Span,
}

/// A precondition, normalised: a probe of an artifact. Its paths are
/// empty: the probe tests the value `subject` refers to.
#[derive(Clone, Debug)]
pub struct CheckedPre {
    pub subject: RefValue,
    /// The segments of an indexed `pre` path from its first index on
    /// (`[0].name` of `tags[0].name`); empty otherwise.
    pub at: Vec<PathSeg>,
    pub kind: ProbeKind,
    pub span: Span,
}

/// The closed set of probes, with paths resolved (a JSON `result_count`
/// without a path counts the list the checker chose) and values typed.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeKind {
    /// `len(PATH) OP N`
    Len {
        path: Vec<PathSeg>,
        op: CmpOp,
        value: u64,
    },
    /// `PATH OP VALUE`
    Compare {
        path: Vec<PathSeg>,
        op: CmpOp,
        value: Value,
    },
    /// `PATH in [...]`, or `not in` when `negated`.
    In {
        path: Vec<PathSeg>,
        negated: bool,
        values: Vec<Value>,
    },
    /// `PATH contains VALUE`: the list holds the value.
    Contains { path: Vec<PathSeg>, value: Value },
    /// `keys(PATH) contains KEY`: the map has the key.
    KeysContain { path: Vec<PathSeg>, key: Str },
    /// `exists(PATH)`
    Exists { path: Vec<PathSeg> },
}

/// Why a step waits for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepReason {
    /// It refers to a binding of that step.
    Data,
    /// It says `after` that step.
    After,
    /// Both are writes, and that one comes first in source order.
    Effect,
}

impl DepReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DepReason::Data => "data",
            DepReason::After => "after",
            DepReason::Effect => "effect",
        }
    }
}

/// An edge of the ordering graph: this step runs after `step`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// The step waited for (its name is that step's, not copied here).
    pub step: usize,
    pub reason: DepReason,
    /// What made the edge: the first reference (data), the name in `after`,
    /// or this step's name (effect).
    pub span: Span,
}

/// What the policy asks of a step.
#[derive(Clone, Debug, Default)]
pub struct Authz {
    /// The policy names the tool and the actor holds every required scope.
    pub permitted: bool,
    /// The scopes the step requires, as the policy lists them: one list
    /// for every step under the same rule, shared, not copied a step.
    pub scopes: std::sync::Arc<[Str]>,
    pub approval: Option<Approval>,
    /// Ceilings, lists and patterns over arguments whose value is known
    /// only at dispatch.
    pub guards: Vec<Guard>,
    /// The totals of the tool's rule (`total ARG <= N per ARG2`), which the
    /// executor keeps against its ledger of complete calls.
    pub aggregates: Vec<Aggregate>,
    /// The rule's `calls <= N`.
    pub calls_max: Option<u64>,
}

/// A check the executor makes after binding: the argument's value must
/// pass the test.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub arg: Str,
    pub test: GuardTest,
    /// The argument is a list and the test holds of each element.
    pub each: bool,
    /// The ceiling or rule in the policy.
    pub ceiling_span: Span,
}

/// What a guard tests.
#[derive(Clone, Debug, PartialEq)]
pub enum GuardTest {
    /// `arg OP limit`: a ceiling.
    Cmp(CmpOp, Value),
    /// `arg in [...]`, or `not in` when `negated`.
    In { negated: bool, values: Vec<Value> },
    /// `arg matches "RE"`: the whole value.
    Matches(Str),
}

impl Guard {
    /// The guard as the policy writes it: `amount_eur <= 500`.
    pub fn text(&self) -> String {
        match &self.test {
            GuardTest::Cmp(op, limit) => {
                format!("{} {} {}", self.arg, op.as_str(), limit.display())
            }
            GuardTest::In { negated, values } => {
                let list: Vec<String> = values.iter().map(Value::display).collect();
                let word = if *negated { "not in" } else { "in" };
                format!("{} {word} [{}]", self.arg, list.join(", "))
            }
            GuardTest::Matches(p) => format!("{} matches {p:?}", self.arg),
        }
    }
}

/// `total arg <= max [per per]`: the sum of `arg` over every complete call
/// of the tool and this one (of those with the same `per` argument).
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub arg: Str,
    pub max: Value,
    pub per: Option<Str>,
}

/// What a check does with each step's model ([`crate::check::check_plans_owned`]).
pub enum StepModels<'s> {
    /// Kept in [`CheckedPlan::steps`].
    Keep,
    /// Let go once the step is checked, authorized and linted (a caller
    /// that reads the diagnostics only): [`CheckedPlan::steps_dropped`].
    LetGo,
    /// As [`StepModels::LetGo`], each model handed to the sink first
    /// (`planc compile` lowering each step to the IR as it is checked),
    /// with the map of the sources its spans are in.
    Lower(&'s mut dyn StepSink, &'s crate::source::SourceMap),
}

impl StepModels<'_> {
    /// The same, for one plan of many.
    pub fn reborrow(&mut self) -> StepModels<'_> {
        match self {
            StepModels::Keep => StepModels::Keep,
            StepModels::LetGo => StepModels::LetGo,
            StepModels::Lower(sink, sources) => StepModels::Lower(&mut **sink, sources),
        }
    }
}

/// Where a check that lets each step's model go ([`StepModels::Lower`])
/// hands it first: once checked, authorized and linted, its
/// `depends_on` complete (sorted as the kept model's). Only a check
/// without a progress record lets models go: with one, the sink is told
/// of the plan and given no step, and the caller lowers the kept models.
pub trait StepSink {
    /// A plan of `steps` steps begins: its name, goal, budget and span
    /// (the [`CheckedPlan`]'s, before its steps are checked); `sources`
    /// the map its spans are in.
    fn plan(&mut self, head: &CheckedPlan, steps: usize, sources: &crate::source::SourceMap);
    /// Step `step` of the plan last begun, in source order. `bindings` are
    /// the plan's so far (the step's own among them); `step_name` names
    /// the step at an index (a reference or a dependency names its step by
    /// index); `sources` the map its spans are in.
    fn step(
        &mut self,
        step: &CheckedStep,
        bindings: &[Binding],
        step_name: &dyn Fn(usize) -> Str,
        sources: &crate::source::SourceMap,
    );
    /// The plan last begun is checked: `plan` is its model (without its
    /// steps), `step_name` names its step at an index.
    fn end(
        &mut self,
        plan: &CheckedPlan,
        step_name: &dyn Fn(usize) -> Str,
        sources: &crate::source::SourceMap,
    );
    /// The check begins again (a reading of the plans as skeletons gave
    /// up, and they are read whole): what was given so far is not the
    /// check's.
    fn restart(&mut self);
}
