//! The progress record's types (`docs/replanning.md`, "The progress record"): what an executor writes as it
//! runs and what a replan is checked against. Completed steps are recorded by
//! name with their verified outputs, never by index: a name is stable across
//! replans, an index is not.
//!
//! These types are a contract with executors, so their field names are
//! fixed; `schema/progress.schema.json` is generated from them and a test
//! fails when the two drift apart.
//!
//! **Numbers stay exact.** Arguments, artifacts and observed values are plain
//! JSON ([`JsonValue`], of the `value` module) whose numbers keep the text
//! they were written with ([`JsonNumber`]).

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::ir::Effect;
pub use crate::value::{JsonNumber, JsonValue};

/// The version of the record's shape. It changes when a field is added,
/// removed or changes meaning.
pub const PROGRESS_VERSION: &str = "1.0";

/// What has run of a plan: the steps by name, with their status, the
/// arguments they were called with and the artifacts they committed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProgressRecord {
    /// Always [`PROGRESS_VERSION`] for a record this planc writes or reads.
    pub progress_version: String,
    /// The name of the plan the record is of (`plan NAME`).
    pub plan: String,
    /// What the plan is for: the goal state, which survives a replan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// How many replacement plans the run has asked for so far.
    #[serde(default)]
    pub replans_used: u64,
    /// Every step the record knows of, each name once.
    pub steps: Vec<StepRecord>,
    /// The fingerprint of the IR that wrote the record (`docs/ir.md`): a
    /// run of an IR with another fingerprint is a replan, never a resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// `hmac-sha256:` and the hex HMAC-SHA256 of the record's canonical JSON
    /// without this member, under the operator's record key
    /// (`docs/replanning.md`, "Sealed records"). Absent when no key is
    /// configured: the record is then trusted input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hmac: Option<String>,
}

/// One step of the run, by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// The step's name: stable across replans.
    pub name: String,
    /// The catalogue name of the tool the step calls.
    pub tool: String,
    pub status: Status,
    /// The tool's effect class, when known: whether running the step again
    /// would repeat an external effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// Whether the tool may safely be called again with the same arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// How many times the tool was called (retries included).
    #[serde(default)]
    pub attempts: u64,
    /// The resolved arguments the tool was called with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, JsonValue>,
    /// The artifacts the step committed, by binding name (`complete` steps).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binds: BTreeMap<String, JsonValue>,
    /// Why the step did not complete (`failed` and `invalid` steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The idempotency key the write was dispatched with (`docs/executors.md`):
    /// what to look for on the tool's side when its outcome is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// Where a step stands.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not run yet.
    Pending,
    /// A write dispatched whose result has not been recorded: written
    /// before the call is made, so a run killed during the call leaves it
    /// here. Its outcome is unknown: it may have committed
    /// (`docs/replanning.md`).
    InFlight,
    /// Ran: every postcondition verified, every binding committed.
    Complete,
    /// Ran and did not complete (a tool error, a postcondition or a binding
    /// that did not hold, a refused guard).
    Failed,
    /// Marked by invalidation: its inputs or its precondition no longer
    /// hold. Marking, not deletion: the record keeps it.
    Invalid,
}

impl Status {
    /// The status as the record spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::InFlight => "in_flight",
            Status::Complete => "complete",
            Status::Failed => "failed",
            Status::Invalid => "invalid",
        }
    }

    /// Every status, in the order above.
    pub const ALL: [Status; 5] = [
        Status::Pending,
        Status::InFlight,
        Status::Complete,
        Status::Failed,
        Status::Invalid,
    ];
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a step did not complete: the run-state record of a failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    pub kind: FailureKind,
    /// The tool's error code (`tool_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Whether the tool said the call may succeed if made again
    /// (`tool_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// What should have held: the probe (`pre`, `post`), the guard, the
    /// binding's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<JsonValue>,
    /// The value seen instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<JsonValue>,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The tool returned an error.
    ToolError,
    /// A postcondition did not hold of the result.
    PostUnmet,
    /// A `pre` clause did not hold before dispatch; the tool was not called.
    PreconditionUnmet,
    /// A ceiling's guard refused the resolved arguments; the tool was not
    /// called.
    GuardRefused,
    /// A `bind` path was absent from the result.
    BindMissing,
    /// A step needing approval was not approved; nothing was dispatched.
    ApprovalMissing,
    /// A write was dispatched and its outcome is unknown: the call timed
    /// out, the connection or the server was lost, or the run was killed
    /// while it was in flight. It may have committed; it is never retried
    /// nor dispatched again without a person's decision.
    OutcomeUnknown,
    /// The tool's result is outside the type the catalogue declares for it
    /// (`expected` the type, `observed` the value): nothing is bound.
    ResultType,
}

impl FailureKind {
    /// The kind as the record spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::ToolError => "tool_error",
            FailureKind::PostUnmet => "post_unmet",
            FailureKind::PreconditionUnmet => "precondition_unmet",
            FailureKind::GuardRefused => "guard_refused",
            FailureKind::BindMissing => "bind_missing",
            FailureKind::ApprovalMissing => "approval_missing",
            FailureKind::OutcomeUnknown => "outcome_unknown",
            FailureKind::ResultType => "result_type",
        }
    }

    /// Every kind, in the order above.
    pub const ALL: [FailureKind; 8] = [
        FailureKind::ToolError,
        FailureKind::PostUnmet,
        FailureKind::PreconditionUnmet,
        FailureKind::GuardRefused,
        FailureKind::BindMissing,
        FailureKind::ApprovalMissing,
        FailureKind::OutcomeUnknown,
        FailureKind::ResultType,
    ];
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ProgressRecord {
    /// A record of a plan that has not run: every step `pending`.
    pub fn new(plan: impl Into<String>) -> ProgressRecord {
        ProgressRecord {
            progress_version: PROGRESS_VERSION.to_owned(),
            plan: plan.into(),
            goal: None,
            replans_used: 0,
            steps: Vec::new(),
            fingerprint: None,
            hmac: None,
        }
    }

    /// Each step by its name, for a lookup inside a loop over steps. A name
    /// recorded twice (a record the reader refuses, E0603) keeps its first,
    /// as [`Self::step`] finds it.
    pub fn steps_by_name(&self) -> planc_lang::FastMap<&str, &StepRecord> {
        planc_lang::first_by_key(&self.steps, |s| s.name.as_str())
    }

    /// The step named `name`.
    pub fn step(&self, name: &str) -> Option<&StepRecord> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// The step named `name`, to change.
    pub fn step_mut(&mut self, name: &str) -> Option<&mut StepRecord> {
        self.steps.iter_mut().find(|s| s.name == name)
    }

    /// Whether the record is of this very plan (same name, same steps by
    /// name and tool, in order) rather than of one it replaces: running it
    /// again is a resume, not a replan, and uses no replan of the budget.
    pub fn is_of<'s>(
        &self,
        plan: &str,
        steps: impl ExactSizeIterator<Item = (&'s str, &'s str)>,
    ) -> bool {
        self.plan == plan
            && self.steps.len() == steps.len()
            && self
                .steps
                .iter()
                .zip(steps)
                .all(|(r, (name, tool))| r.name == name && r.tool == tool)
    }

    /// The step that committed the artifact `binding`, with its value.
    pub fn artifact(&self, binding: &str) -> Option<(&StepRecord, &JsonValue)> {
        self.steps
            .iter()
            .find_map(|s| s.binds.get(binding).map(|v| (s, v)))
    }
}

impl StepRecord {
    /// A `pending` step that calls `tool`.
    pub fn pending(name: impl Into<String>, tool: impl Into<String>) -> StepRecord {
        StepRecord {
            name: name.into(),
            tool: tool.into(),
            status: Status::Pending,
            effect: None,
            idempotent: None,
            attempts: 0,
            args: BTreeMap::new(),
            binds: BTreeMap::new(),
            failure: None,
            idempotency_key: None,
        }
    }

    /// Whether the step's write may have committed without the record
    /// knowing: dispatched and never answered (`in_flight`), or answered
    /// with a lost outcome (`outcome_unknown`).
    pub fn outcome_unknown(&self) -> bool {
        self.status == Status::InFlight
            || (self.status == Status::Failed
                && self
                    .failure
                    .as_ref()
                    .is_some_and(|f| f.kind == FailureKind::OutcomeUnknown))
    }

    /// Whether running the step again would repeat a committed external
    /// effect: a `write` tool that is not idempotent. An unknown effect is
    /// taken as a write and an unknown idempotence as not idempotent (fail
    /// closed).
    pub fn repeats_effect(&self) -> bool {
        use crate::syntax::ast;
        ast::Effect::stated_or_write(self.effect.map(ast::Effect::from))
            .repeats(self.idempotent == Some(true))
    }
}

/// The JSON Schema of the progress record, as committed in
/// `schema/progress.schema.json`.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(ProgressRecord)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_survive_serde_json_both_ways() {
        let text = r#"{"progress_version":"1.0","plan":"p","replans_used":0,"steps":[{"name":"a","tool":"t","status":"complete","attempts":1,"args":{"amount":500.00,"big":123456789012345678901234567890,"n":-3},"binds":{"x":[1e3,{"y":0.1}]}}]}"#;
        let record: ProgressRecord = serde_json::from_str(text).unwrap_or_else(|e| {
            panic!("{e}");
        });
        let back = serde_json::to_string(&record).unwrap_or_default();
        assert_eq!(back, text);
        let args = &record
            .steps
            .first()
            .map(|s| s.args.clone())
            .unwrap_or_default();
        assert_eq!(
            args.get("amount").map(|v| v.to_json_string()).as_deref(),
            Some("500.00")
        );
    }

    #[test]
    fn unknown_keys_are_refused_by_serde() {
        let text = r#"{"progress_version":"1.0","plan":"p","steps":[],"extra":1}"#;
        assert!(serde_json::from_str::<ProgressRecord>(text).is_err());
    }

    #[test]
    fn repeats_effect_fails_closed() {
        let mut s = StepRecord::pending("a", "t");
        assert!(s.repeats_effect());
        s.effect = Some(Effect::Read);
        assert!(!s.repeats_effect());
        s.effect = Some(Effect::Write);
        s.idempotent = Some(true);
        assert!(!s.repeats_effect());
    }
}
