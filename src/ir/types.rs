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
pub const IR_VERSION: &str = "1.1";

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
    pub steps: Vec<StepIr>,
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
    pub artifacts_in: BTreeMap<String, crate::progress::JsonValue>,
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
    pub artifacts: Option<BTreeMap<String, crate::progress::JsonValue>>,
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
    /// Ceilings the executor checks after binding, before dispatch.
    pub guards: Vec<Guard>,
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
    pub op: CmpOp,
    pub limit: Literal,
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
