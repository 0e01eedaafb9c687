//! Invalidation (`docs/replanning.md`, "Invalidation"): what an event during a run invalidates, along
//! the plan's data edges only. One function, [`invalidate`], serves
//! `planc invalidate`, the executor and the library.
//!
//! - `precondition:S` / `failed:S`: S becomes `invalid`, and so does every
//!   step that depends on S through `data` edges, transitively. A step that
//!   depends on an invalid step only through `after` or `effect` edges stays
//!   as it was: it waits, its inputs are sound.
//! - `changed:A`: the producer of the artifact A and its transitive data
//!   dependents become `invalid`, complete ones included.
//! - `goal`: every pending step becomes `invalid`; complete artifacts stay
//!   reusable (world state survives, plan state does not).
//!
//! Marking, not deletion: [`Invalidation::apply`] changes statuses in a
//! record and keeps every step.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::types::{ProgressRecord, Status, StepRecord};
use crate::ir::{DependencyReason, PlanIr, StepIr, Value};

/// What happened during the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A step's `pre` clause did not hold before dispatch.
    Precondition(String),
    /// A step failed (tool error, postcondition, missing binding).
    Failed(String),
    /// The world changed under a recorded artifact.
    Changed(String),
    /// The goal (the user's intent) changed.
    Goal,
}

impl Event {
    /// Reads `precondition:STEP`, `failed:STEP`, `changed:ARTIFACT` or `goal`.
    pub fn parse(s: &str) -> Result<Event, String> {
        let named = |name: &str, what: &str| -> Result<String, String> {
            if crate::syntax::lexicon::is_ident(name) {
                Ok(name.to_owned())
            } else {
                Err(format!("`{name}` is not a {what} name"))
            }
        };
        match s.split_once(':') {
            Some(("precondition", n)) => Ok(Event::Precondition(named(n, "step")?)),
            Some(("failed", n)) => Ok(Event::Failed(named(n, "step")?)),
            Some(("changed", n)) => Ok(Event::Changed(named(n, "binding")?)),
            None if s == "goal" => Ok(Event::Goal),
            _ => Err(format!(
                "`{s}` is not an event: write `precondition:STEP`, `failed:STEP`, \
                 `changed:ARTIFACT` or `goal`"
            )),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Precondition(s) => write!(f, "precondition:{s}"),
            Event::Failed(s) => write!(f, "failed:{s}"),
            Event::Changed(a) => write!(f, "changed:{a}"),
            Event::Goal => f.write_str("goal"),
        }
    }
}

/// How much of the plan a repair must rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One step is invalid: patch it.
    Local,
    /// Several steps are invalid: rewrite that subgraph, reuse the rest.
    Subgraph,
    /// The goal changed: plan again from the goal and what is complete.
    Full,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Subgraph => "subgraph",
            Scope::Full => "full",
        }
    }
}

/// What an event does to each step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Invalidation {
    /// The event, as given: `precondition:provision_db`.
    pub event: String,
    pub scope: Scope,
    /// Every step of the plan in source order, then the record's steps the
    /// plan no longer has, in record order.
    pub steps: Vec<StepChange>,
}

/// One step's status before and after the event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepChange {
    pub name: String,
    pub before: Status,
    pub after: Status,
    /// Whether the step survives the repair as it stands: a `complete`
    /// step's artifacts can be reused, a `pending` step runs as written. An
    /// `invalid` or `failed` step is not reusable.
    pub reusable: bool,
    /// For a step the event invalidated, the step it came through: the
    /// invalid step whose data it uses, or, for the event's own step, the
    /// step whose artifact its failed precondition reads (else itself).
    pub cause: Option<String>,
}

impl Invalidation {
    /// The steps the event made `invalid`, in order.
    pub fn invalidated(&self) -> impl Iterator<Item = &str> {
        self.steps
            .iter()
            .filter(|s| s.after == Status::Invalid && s.before != Status::Invalid)
            .map(|s| s.name.as_str())
    }

    /// Marks the record: each step gets its status after the event (a step
    /// of the plan the record lacks is added). A complete step made invalid
    /// keeps its artifacts, marked: they are no longer reusable (only a
    /// `complete` step's are), and a replan that still refers to one
    /// without binding it again is told so (E0308).
    pub fn apply(&self, ir: &PlanIr, record: &mut ProgressRecord) {
        // By name through indexes: a change per step of the plan.
        let mut at: planc_lang::FastMap<String, usize> = planc_lang::FastMap::default();
        for (i, s) in record.steps.iter().enumerate() {
            at.entry(s.name.clone()).or_insert(i);
        }
        let in_plan = ir.steps_by_name();
        for change in &self.steps {
            match at
                .get(change.name.as_str())
                .and_then(|&i| record.steps.get_mut(i))
            {
                Some(step) => {
                    step.status = change.after;
                }
                None => {
                    let Some(&s) = in_plan.get(change.name.as_str()) else {
                        continue;
                    };
                    at.insert(change.name.clone(), record.steps.len());
                    let mut step = StepRecord::pending(s.name.as_str(), s.tool.as_str());
                    step.status = change.after;
                    step.effect = Some(s.effect);
                    step.idempotent = Some(s.idempotent);
                    record.steps.push(step);
                }
            }
        }
    }
}

/// Why an event cannot be applied to a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidateError {
    /// The event names a step neither the plan nor the record has.
    UnknownStep(String),
    /// The event names an artifact no step of the plan or the record binds.
    UnknownArtifact(String),
}

impl std::error::Error for InvalidateError {}

impl fmt::Display for InvalidateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidateError::UnknownStep(s) => {
                write!(f, "no step named `{s}` in the plan or the progress record")
            }
            InvalidateError::UnknownArtifact(a) => {
                write!(f, "no step of the plan or the progress record binds `{a}`")
            }
        }
    }
}

/// The bindings a value refers to, with the step that binds each (the IR's
/// `ref` values, through lists, records and interpolations). The depth of
/// a value is bounded by the input's nesting limit.
pub fn refs(value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Literal { .. } => {}
        Value::Ref { binding, step, .. } => {
            out.push((binding.clone().to_string(), step.clone().to_string()))
        }
        Value::List { items } | Value::Interpolate { parts: items } => {
            items.iter().for_each(|v| refs(v, out));
        }
        Value::Record { fields } => fields.values().for_each(|v| refs(v, out)),
    }
}

/// Every binding a step reads, with its producer: its arguments' references.
fn step_refs(step: &StepIr) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for v in step.args.values() {
        refs(v, &mut out);
    }
    out
}

/// The steps each step reads data from (by name), from the IR's `data`
/// edges and its references (which also name producers only the record
/// has).
pub fn data_inputs(ir: &PlanIr) -> BTreeMap<&str, Vec<String>> {
    let mut inputs: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for step in &ir.steps {
        let mut from: Vec<String> = step
            .depends_on
            .iter()
            .filter(|d| d.reason == DependencyReason::Data)
            .map(|d| d.step.to_string())
            .collect();
        from.extend(step_refs(step).into_iter().map(|(_, s)| s));
        from.sort();
        from.dedup();
        inputs.insert(&step.name, from);
    }
    inputs
}

/// What `event` invalidates in the plan `ir`, given what `record` says ran.
pub fn invalidate(
    ir: &PlanIr,
    record: &ProgressRecord,
    event: &Event,
) -> Result<Invalidation, InvalidateError> {
    // Every step: the plan's, then the record's that the plan lacks.
    let mut names: Vec<&str> = ir.steps.iter().map(|s| s.name.as_str()).collect();
    let in_plan = ir.steps_by_name();
    let mut only_recorded = planc_lang::FastSet::default();
    for s in &record.steps {
        if !in_plan.contains_key(s.name.as_str()) && only_recorded.insert(s.name.as_str()) {
            names.push(&s.name);
        }
    }
    let recorded = record.steps_by_name();
    let before = |name: &str| recorded.get(name).map_or(Status::Pending, |s| s.status);
    let inputs = data_inputs(ir);
    let mut dependents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (step, from) in &inputs {
        for f in from {
            dependents.entry(f.as_str()).or_default().push(step);
        }
    }

    let mut cause: BTreeMap<&str, Option<String>> = BTreeMap::new();
    let scope = match event {
        Event::Goal => {
            for &n in &names {
                if before(n) == Status::Pending {
                    cause.insert(n, None);
                }
            }
            Scope::Full
        }
        Event::Precondition(s) | Event::Failed(s) | Event::Changed(s) => {
            let root: &str = match event {
                Event::Changed(a) => producer(ir, record, a)
                    .ok_or_else(|| InvalidateError::UnknownArtifact(a.clone()))?,
                _ => names
                    .iter()
                    .copied()
                    .find(|n| n == s)
                    .ok_or_else(|| InvalidateError::UnknownStep(s.clone()))?,
            };
            let root_cause = match event {
                Event::Precondition(_) => precondition_cause(ir, record, root),
                _ => root.to_owned(),
            };
            cause.insert(root, Some(root_cause));
            let mut queue = VecDeque::from([root]);
            while let Some(n) = queue.pop_front() {
                for &d in dependents.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                    if !cause.contains_key(d) {
                        cause.insert(d, Some(n.to_owned()));
                        queue.push_back(d);
                    }
                }
            }
            if cause.len() > 1 {
                Scope::Subgraph
            } else {
                Scope::Local
            }
        }
    };

    let steps = names
        .iter()
        .map(|&n| {
            let b = before(n);
            let (after, why) = match cause.get(n) {
                Some(c) => (Status::Invalid, c.clone()),
                None => (b, None),
            };
            StepChange {
                name: n.to_owned(),
                before: b,
                after,
                reusable: matches!(after, Status::Complete | Status::Pending),
                cause: why,
            }
        })
        .collect();
    Ok(Invalidation {
        event: event.to_string(),
        scope,
        steps,
    })
}

/// The step that binds `artifact`: in the plan, else in the record.
fn producer<'a>(ir: &'a PlanIr, record: &'a ProgressRecord, artifact: &str) -> Option<&'a str> {
    ir.steps
        .iter()
        .find(|s| s.binds.contains_key(artifact))
        .map(|s| s.name.as_str())
        .or_else(|| record.artifact(artifact).map(|(s, _)| s.name.as_str()))
}

/// The cause of a precondition failure at `step`: the producer of the
/// artifact the failed probe reads (the record's `failure.expected.path`,
/// rooted at a binding name), else the step itself.
fn precondition_cause(ir: &PlanIr, record: &ProgressRecord, step: &str) -> String {
    let path = record
        .step(step)
        .and_then(|s| s.failure.as_ref())
        .and_then(|f| f.expected.as_ref())
        .and_then(|e| e.get("path"))
        .and_then(|p| p.as_str());
    let binding = path.map(|p| p.split(['.', '[']).next().unwrap_or(p));
    binding
        .and_then(|b| producer(ir, record, b))
        .unwrap_or(step)
        .to_owned()
}

/// The human report: the event, the scope, one line per step.
pub fn render_human(inv: &Invalidation) -> String {
    let width = inv
        .steps
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0)
        .max("step".len());
    let mut out = format!(
        "event `{}`: repair scope {} ({} step{} invalid)\n",
        inv.event,
        inv.scope.as_str(),
        inv.invalidated().count(),
        if inv.invalidated().count() == 1 {
            ""
        } else {
            "s"
        }
    );
    out.push_str(&format!(
        "  {:width$}  {:9} {:9} {:9} cause\n",
        "step", "before", "after", "reusable"
    ));
    for s in &inv.steps {
        out.push_str(&format!(
            "  {:width$}  {:9} {:9} {:9} {}\n",
            s.name,
            s.before.as_str(),
            s.after.as_str(),
            if s.reusable { "yes" } else { "no" },
            s.cause.as_deref().unwrap_or("")
        ));
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
