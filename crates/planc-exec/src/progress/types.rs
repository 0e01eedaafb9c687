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
//! JSON ([`JsonValue`]) whose numbers keep the text they were written with
//! ([`JsonNumber`]): `500.00` stays `500.00`, a 30-digit identifier stays
//! whole, nothing passes through binary floating point. We keep the raw text
//! rather than turn on serde_json's `arbitrary_precision`, because that
//! feature is global to every crate in the build and changes how every
//! `serde_json::Value` compares and converts. Writing uses serde_json's
//! `RawValue`, so a record serialised with serde_json carries each number
//! exactly as read; reading with serde ([`serde::Deserialize`]) works with
//! serde_json's deserializer (the value is taken as raw text and parsed by
//! planc's own JSON parser).

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::ir::Effect;

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

// ------------------------------------------------------------------ plain JSON

/// A plain JSON value whose numbers keep their exact text.
///
/// Objects are ordered by key (a `BTreeMap`), so a record is written the same
/// way every time. Read one from text with [`JsonValue::parse`] or serde_json.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    Number(JsonNumber),
    String(String),
    Array(Vec<JsonValue>),
    Object(BTreeMap<String, JsonValue>),
}

/// A JSON number as written: `-0.50`, `1e3`, a 30-digit integer. Always valid
/// JSON number syntax (RFC 8259); construct one with [`JsonNumber::new`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonNumber(String);

impl JsonNumber {
    /// `text` as a number, when it is JSON number syntax.
    pub fn new(text: &str) -> Option<JsonNumber> {
        is_json_number(text).then(|| JsonNumber(text.to_owned()))
    }

    /// The number's text, exactly as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<u64> for JsonNumber {
    fn from(n: u64) -> JsonNumber {
        JsonNumber(n.to_string())
    }
}

impl From<i64> for JsonNumber {
    fn from(n: i64) -> JsonNumber {
        JsonNumber(n.to_string())
    }
}

impl fmt::Display for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// RFC 8259 `number`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub(crate) fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(c) if c.is_ascii_digit() => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl JsonValue {
    /// Parses one JSON document into a plain value (numbers exact). `None`
    /// when the text is not JSON or nests deeper than planc's limit; use the
    /// progress module's record reader for diagnostics.
    pub fn parse(text: &str) -> Option<JsonValue> {
        let root = crate::syntax::json::parse(crate::FileId(0), text).ok()?;
        Some(JsonValue::from_json(&root))
    }

    /// The plain value of a span-preserving JSON tree. Recursion is bounded
    /// by the parser's nesting cap. Of duplicate keys the last is kept (the
    /// record reader reports them before this runs).
    pub fn from_json(v: &crate::syntax::json::Json<'_>) -> JsonValue {
        use crate::syntax::json::Value as J;
        match &v.value {
            J::Null => JsonValue::Null,
            J::Bool(b) => JsonValue::Bool(*b),
            J::Number(n) => JsonValue::Number(JsonNumber((*n).to_owned())),
            J::String(s) => JsonValue::String(s.to_string()),
            J::Array(items) => JsonValue::Array(items.iter().map(JsonValue::from_json).collect()),
            J::Object(members) => JsonValue::Object(
                members
                    .iter()
                    .map(|m| (m.key.to_string(), JsonValue::from_json(&m.value)))
                    .collect(),
            ),
        }
    }

    /// The value as compact JSON text, numbers as written.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        match self {
            JsonValue::Null => out.push_str("null"),
            JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonValue::Number(n) => out.push_str(n.as_str()),
            JsonValue::String(s) => write_json_string(s, out),
            JsonValue::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            JsonValue::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_json_string(k, out);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// The string, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The member `key`, for an object.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(m) => m.get(key),
            _ => None,
        }
    }
}

/// A JSON string literal of `s` (serde_json's escaping).
fn write_json_string(s: &str, out: &mut String) {
    match serde_json::to_string(s) {
        Ok(t) => out.push_str(&t),
        Err(_) => out.push_str("\"\""),
    }
}

impl fmt::Display for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

impl Serialize for JsonValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            JsonValue::Null => s.serialize_unit(),
            JsonValue::Bool(b) => s.serialize_bool(*b),
            JsonValue::Number(n) => n.serialize(s),
            JsonValue::String(t) => s.serialize_str(t),
            JsonValue::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            JsonValue::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl Serialize for JsonNumber {
    /// With serde_json, the number's exact text; with other serializers, a
    /// 64-bit integer when it is one, else the text as a string.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(n) = self.0.parse::<i64>() {
            return s.serialize_i64(n);
        }
        if let Ok(n) = self.0.parse::<u64>() {
            return s.serialize_u64(n);
        }
        match serde_json::value::RawValue::from_string(self.0.clone()) {
            Ok(raw) => raw.serialize(s),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

impl<'de> Deserialize<'de> for JsonValue {
    /// Reads the value's raw text (serde_json's `RawValue`) and parses it with
    /// planc's JSON parser, so numbers keep their text.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<JsonValue, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        JsonValue::parse(raw.get()).ok_or_else(|| {
            serde::de::Error::custom("a JSON value nested deeper than planc's limit")
        })
    }
}

impl JsonSchema for JsonValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "JsonValue".into()
    }

    /// Any JSON value.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Any JSON value; numbers are kept exactly as written."
        })
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
    fn number_syntax() {
        for ok in [
            "0",
            "-0",
            "500.00",
            "1e400",
            "-1.5E+3",
            "123456789012345678901234567890",
        ] {
            assert!(JsonNumber::new(ok).is_some(), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", "1 ", "NaN", "0x10"] {
            assert!(JsonNumber::new(bad).is_none(), "{bad}");
        }
    }

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
