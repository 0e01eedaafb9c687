//! The IR: what `planc compile` writes and an executor runs. These types are
//! the contract with executors (`docs/ir.md`), so their field names
//! are fixed; `schema/plan-ir.schema.json` is generated from them and a test
//! fails when the two drift apart.
//!
//! Every map keeps its keys in order (`BTreeMap`, or [`Map`], a sorted
//! vector), so output is byte-identical from run to run.
//! Input is read with unknown fields denied.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::map::Map;
pub use crate::syntax::ast::Str;

/// The version of the IR's shape, independent of planc's own version. It
/// changes when a field is added, removed or changes meaning.
pub const IR_VERSION: &str = "1.3";

/// One compiled plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanIr {
    /// Always [`IR_VERSION`] for IR written by this planc.
    pub ir_version: String,
    /// `sha256:` and the hex SHA-256 of the IR's canonical JSON (RFC 8785)
    /// without `fingerprint`, `source` and the steps' `span`
    /// (`docs/ir.md`, "Fingerprint"): what approvals name and what an
    /// executor recomputes before it runs the IR (added in IR 1.2; an IR
    /// without it does not run).
    pub fingerprint: String,
    /// The plan's name (`plan NAME`, or `name` in JSON).
    pub name: Str,
    /// What the plan is for, as the planner wrote it.
    pub goal: Option<String>,
    pub budget: Budget,
    /// The file the plan was read from, as given on the command line.
    pub source: String,
    /// The steps in source order.
    // Each its own allocation: the lowering makes it as the step's model is
    // let go, in the memory the model gave back, where one vector of
    // 432-byte steps would be allocated whole beside every model
    // (`docs/performance.md`, "Where the memory goes").
    pub steps: Vec<Box<StepIr>>,
    /// Waves of step names: every step's dependencies are in earlier waves,
    /// so the steps of one wave may run in parallel.
    pub schedule: Vec<Vec<Str>>,
    /// Every step that needs a human's approval before the run starts.
    pub approvals: Vec<Str>,
    /// The sorted union of the scopes the run needs.
    pub scopes: Vec<Str>,
    /// Present only when the plan was checked as a replan against a
    /// progress record (`--progress`): what it takes from the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressIr>,
}

/// What a replan takes from the progress record it was checked against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgressIr {
    /// How many replans the run had used when the record was written.
    pub replans_used: u64,
    /// The recorded artifacts the plan refers to without binding them, with
    /// their recorded values. Each such reference is written in the
    /// arguments as that value, a literal.
    pub artifacts_in: BTreeMap<String, crate::value::JsonValue>,
}

impl PlanIr {
    /// The steps in source order, each as the step itself (they are boxed:
    /// [`PlanIr::steps`]).
    pub fn each_step(&self) -> impl ExactSizeIterator<Item = &StepIr> {
        self.steps.iter().map(|s| &**s)
    }

    /// Each step by its name, for a driver that looks steps up inside a
    /// loop over them (a scan each time is quadratic in the plan). A name
    /// given twice (an IR that does not verify) keeps its first.
    pub fn steps_by_name(&self) -> planc_lang::FastMap<&str, &StepIr> {
        planc_lang::first_by_key(self.each_step(), |s| s.name.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// How many times the executor may ask for a new plan.
    pub replans: Option<u64>,
    /// The most steps a plan (or a replacement plan) may have.
    pub max_steps: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepIr {
    /// The step's name: stable across replans.
    pub name: Str,
    /// Its position in the plan, from 0.
    pub index: usize,
    /// The catalogue name of the tool to call.
    pub tool: Str,
    /// Every argument the call passes, defaults filled in.
    pub args: Map<Value>,
    /// Preconditions, all of which must hold of the artifacts before the
    /// step is dispatched (before its guards). Left out when there are none
    /// (added in IR 1.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre: Vec<PreProbe>,
    /// Postconditions, all of which must hold of the tool's result.
    pub post: Vec<Probe>,
    /// Names this step binds, each to a path into its result.
    pub binds: Map<Str>,
    /// The declared type of each bound value (bind name → the type at its
    /// path in the tool's declared result): the executor checks the value
    /// against it before binding (`result_type`). A bind whose type is
    /// `any` is left out, and so is the map when empty (added in IR 1.3).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub result_types: Map<TypeIr>,
    /// Arguments fed by a value of no declared type (an `any` result)
    /// whose parameter has one (N0307): argument name → the parameter's
    /// type, which the executor checks the resolved value against before
    /// the call (`result_type`). Left out when empty (added in IR 1.3).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub arg_types: Map<TypeIr>,
    /// What to do when a postcondition does not hold.
    pub on_unmet: OnUnmet,
    /// How many times to retry on a tool error (idempotent tools only).
    pub retry: u64,
    pub effect: Effect,
    pub idempotent: bool,
    /// The steps that must finish before this one starts, and why.
    pub depends_on: Vec<Dependency>,
    pub authz: Authz,
    /// The arguments fed by data from an untrusted tool.
    pub untrusted_inputs: Vec<Str>,
    pub span: SourceSpan,
    /// Present only with a progress record: `true` when the step completed
    /// with the same tool and resolved arguments, so it is not run again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse: Option<bool>,
    /// A reused step's binds, with their recorded values: the artifacts an
    /// executor takes instead of running the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<BTreeMap<String, crate::value::JsonValue>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnUnmet {
    Replan,
    Halt,
    Escalate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Read,
    Write,
}

impl Effect {
    /// Whether calling a tool of this effect again would repeat what an
    /// earlier call did ([`crate::syntax::ast::Effect::repeats`]).
    pub fn repeats(self, idempotent: bool) -> bool {
        crate::syntax::ast::Effect::from(self).repeats(idempotent)
    }
}

impl From<Effect> for crate::syntax::ast::Effect {
    fn from(e: Effect) -> Self {
        match e {
            Effect::Read => crate::syntax::ast::Effect::Read,
            Effect::Write => crate::syntax::ast::Effect::Write,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dependency {
    pub step: Str,
    pub reason: DependencyReason,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DependencyReason {
    /// The step uses a name the other step binds.
    Data,
    /// The step names the other in `after`.
    After,
    /// Both write, and the other comes first in the source: writes keep the
    /// order the author wrote.
    Effect,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Authz {
    /// The scopes the policy requires for this tool.
    pub scopes: Vec<Str>,
    /// `human` when a person must approve the step before the run starts.
    pub approval: Option<Approval>,
    /// Ceilings, lists and patterns the executor checks after binding,
    /// before dispatch.
    pub guards: Vec<Guard>,
    /// Totals the executor keeps against its ledger of complete calls
    /// (added in IR 1.2; left out when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<Aggregate>,
    /// The most calls of this tool over the run, the complete ones of the
    /// record it resumed from included (added in IR 1.2; left out when the
    /// policy sets none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_max: Option<u64>,
}

/// `total arg <= max [per per]`: before dispatch, the sum of `arg` over the
/// complete calls of this tool (those whose `per` argument has this call's
/// value, when `per` is set) and this call must not exceed `max`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    pub arg: Str,
    /// An `int` or `decimal` literal.
    pub max: Literal,
    /// An argument name, or null for one total over every call.
    pub per: Option<Str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    Human,
}

/// `arg op limit` must hold of the argument's value once its references are
/// resolved; the executor refuses to dispatch the step otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Guard {
    pub arg: Str,
    pub op: GuardOp,
    /// A literal for a comparison and `matches` (the pattern, a string); a
    /// list of literals for `in` and `not_in`.
    pub limit: GuardLimit,
    /// (IR 1.3) The argument is a list and the test holds of each of its
    /// elements: a value that is not a list is refused. Written only when
    /// true; only `in`, `not_in` and `matches` may be element-wise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub each: bool,
}

/// A guard's test: a comparison, or (IR 1.2) membership of a list and a
/// whole-value match of a regular expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum GuardOp {
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    /// The value equals one of the list's literals.
    #[serde(rename = "in")]
    In,
    /// The value equals none of the list's literals.
    #[serde(rename = "not_in")]
    NotIn,
    /// The value is a string the pattern matches as a whole (Rust `regex`
    /// syntax, wrapped as `\A(?:PATTERN)\z`).
    #[serde(rename = "matches")]
    Matches,
}

/// A guard's limit: one literal, or a list of them (`in`, `not_in`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum GuardLimit {
    One(Literal),
    List(Vec<Literal>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CmpOp {
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
}

/// An argument's value. Every value is tagged with its `kind`, so no string
/// is ever ambiguous between text and a reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Value {
    /// A value written in the plan.
    Literal {
        #[serde(flatten)]
        literal: Literal,
    },
    /// The value of a binding, optionally a member of it.
    Ref {
        /// The binding's name.
        binding: Str,
        /// The step that binds it.
        step: Str,
        /// Member names to follow into the bound value, outermost first.
        path: Vec<Str>,
    },
    List {
        items: Vec<Value>,
    },
    Record {
        fields: Map<Value>,
    },
    /// A string made of text and the values of references, in order.
    Interpolate {
        parts: Vec<Value>,
    },
}

/// A literal with its type. Numbers that must stay exact (`decimal`) and
/// dates are strings in their canonical form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Literal {
    String(Str),
    Int(i64),
    /// Exact decimal text, e.g. `"500.00"`.
    Decimal(Str),
    Bool(bool),
    Null,
    /// `YYYY-MM-DD`.
    Date(Str),
    /// RFC 3339.
    Datetime(Str),
}

/// A declared type, as the executor checks a value against it
/// (`docs/ir.md`, "Types"; added in IR 1.3): a plain type is its name
/// (`"string"`), a compound one an object of one key (`{"list": T}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TypeIr {
    String,
    /// A number with no fractional part (any number of digits).
    Int,
    /// Any number, its digits kept as written.
    Decimal,
    Bool,
    /// A string `YYYY-MM-DD`.
    Date,
    /// A string in RFC 3339.
    Datetime,
    Null,
    /// Anything (inside a compound type only: a bind of type `any` is not
    /// listed).
    Any,
    /// An array whose every item is of the type.
    List(Box<TypeIr>),
    /// An object with these fields (more are allowed, and not checked).
    Record(Map<FieldIr>),
    /// An object whose every member's value is of the type, whatever its
    /// key (`{ [string]: T }`).
    Map(Box<TypeIr>),
    /// A string that is one of these.
    Enum(Vec<Str>),
    /// The one number or boolean of a literal type, compared exactly.
    Lit(Literal),
    /// A value of one of the members.
    Union(Vec<TypeIr>),
    /// `null`, or a value of the type.
    Optional(Box<TypeIr>),
}

/// A field of a [`TypeIr::Record`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldIr {
    #[serde(rename = "type")]
    pub ty: TypeIr,
    /// The field may be absent (`name?: T`). Left out when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A normalised postcondition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "probe", rename_all = "snake_case", deny_unknown_fields)]
pub enum Probe {
    /// The length of the list at `path` compared with `value`.
    Len { path: String, op: CmpOp, value: u64 },
    /// The value at `path` compared with `value`.
    Compare {
        path: String,
        op: CmpOp,
        value: Literal,
    },
    /// The value at `path` is one of `values`.
    In { path: String, values: Vec<Literal> },
    /// The value at `path` is none of `values`.
    NotIn { path: String, values: Vec<Literal> },
    /// The list at `path` holds `value` (added in IR 1.1).
    Contains { path: String, value: Literal },
    /// The object (a map) at `path` has the key `key` (added in IR 1.3).
    KeysContain { path: String, key: Str },
    /// `path` is present in the result and not null.
    Exists { path: String },
}

impl Probe {
    /// The result path the probe tests.
    pub fn path(&self) -> &str {
        match self {
            Probe::Len { path, .. }
            | Probe::Compare { path, .. }
            | Probe::In { path, .. }
            | Probe::NotIn { path, .. }
            | Probe::Contains { path, .. }
            | Probe::KeysContain { path, .. }
            | Probe::Exists { path } => path,
        }
    }
}

/// A normalised precondition: the same probes as [`Probe`], testing the
/// artifact `subject` refers to instead of a path into the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "probe", rename_all = "snake_case", deny_unknown_fields)]
pub enum PreProbe {
    /// The length of the list `subject` compared with `value`.
    Len {
        subject: Subject,
        op: CmpOp,
        value: u64,
    },
    /// `subject` compared with `value`.
    Compare {
        subject: Subject,
        op: CmpOp,
        value: Literal,
    },
    /// `subject` is one of `values`.
    In {
        subject: Subject,
        values: Vec<Literal>,
    },
    /// `subject` is none of `values`.
    NotIn {
        subject: Subject,
        values: Vec<Literal>,
    },
    /// The list `subject` holds `value`.
    Contains { subject: Subject, value: Literal },
    /// The map `subject` has the key `key` (added in IR 1.3).
    KeysContain { subject: Subject, key: Str },
    /// `subject` is present and not null.
    Exists { subject: Subject },
}

/// What a precondition tests: an artifact, in the form of an argument's
/// reference (`{"kind": "ref", "binding", "step", "path"}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Subject {
    Ref {
        /// The binding's name.
        binding: Str,
        /// The step that binds it.
        step: Str,
        /// Member names to follow into the bound value, outermost first.
        path: Vec<Str>,
        /// For a `pre` path with an index (`tags[0].name`): the rest of the
        /// path from its first index on, a result path (`$[0].name`)
        /// followed into the value `path` reaches. Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Str>,
    },
}

impl PreProbe {
    /// The artifact the precondition tests.
    pub fn subject(&self) -> &Subject {
        match self {
            PreProbe::Len { subject, .. }
            | PreProbe::Compare { subject, .. }
            | PreProbe::In { subject, .. }
            | PreProbe::NotIn { subject, .. }
            | PreProbe::Contains { subject, .. }
            | PreProbe::KeysContain { subject, .. }
            | PreProbe::Exists { subject } => subject,
        }
    }

    /// The test as a [`Probe`] of the subject itself (path `$`): a `pre`
    /// is evaluated exactly as a `post` is.
    pub fn test(&self) -> Probe {
        self.test_at("$".to_string())
    }

    /// The test as a [`Probe`] whose path is the subject written as a
    /// reference (`schema_tables`, `settings.region`): how a failure's
    /// `expected` names the precondition.
    pub fn as_probe(&self) -> Probe {
        self.test_at(self.subject().to_string())
    }

    fn test_at(&self, path: String) -> Probe {
        match self {
            PreProbe::Len { op, value, .. } => Probe::Len {
                path,
                op: *op,
                value: *value,
            },
            PreProbe::Compare { op, value, .. } => Probe::Compare {
                path,
                op: *op,
                value: value.clone(),
            },
            PreProbe::In { values, .. } => Probe::In {
                path,
                values: values.clone(),
            },
            PreProbe::NotIn { values, .. } => Probe::NotIn {
                path,
                values: values.clone(),
            },
            PreProbe::Contains { value, .. } => Probe::Contains {
                path,
                value: value.clone(),
            },
            PreProbe::KeysContain { key, .. } => Probe::KeysContain {
                path,
                key: key.clone(),
            },
            PreProbe::Exists { .. } => Probe::Exists { path },
        }
    }
}

/// Where a step is written, for reporting runtime failures against the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpan {
    pub file: String,
    /// Byte offsets, half-open.
    pub start: u32,
    pub end: u32,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
}

/// The JSON Schema of the IR, as committed in `schema/plan-ir.schema.json`.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(PlanIr)
}
