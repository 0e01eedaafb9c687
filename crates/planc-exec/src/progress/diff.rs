//! Plan deltas (`docs/replanning.md`, "Plan deltas"): two plans' steps matched by name, what was
//! added, removed or changed (field by field), and, with a progress record,
//! which of the changed or removed steps had already completed (a removed
//! completed write is history: it is not undone) and which unchanged steps
//! a replan reuses.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::types::{ProgressRecord, Status};
use crate::ir::{DependencyReason, PlanIr, StepIr};

/// The delta from one plan to the next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanDiff {
    /// Steps only the new plan has, in its order.
    pub added: Vec<String>,
    /// Steps only the old plan has, in its order.
    pub removed: Vec<String>,
    /// Steps both have, with different fields, in the new plan's order.
    pub changed: Vec<ChangedStep>,
    /// Steps both have, alike in every field, in the new plan's order.
    pub unchanged: Vec<String>,
    /// Of the unchanged steps, those the record says are `complete`: a
    /// replan reuses them instead of running them again.
    pub reused: Vec<String>,
    /// Of the changed and removed steps, those the record says are
    /// `complete`: what they did has happened and is not undone.
    pub completed: Vec<String>,
}

/// One step's changed fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangedStep {
    pub step: String,
    pub fields: Vec<FieldChange>,
}

/// One field of a step, before and after (`null` where absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldChange {
    /// `tool`, `args.NAME`, `pre`, `post`, `binds`, `on_unmet`, `retry` or
    /// `after`.
    pub field: String,
    pub old: serde_json::Value,
    pub new: serde_json::Value,
}

impl PlanDiff {
    /// Whether the plans have the same steps, alike in every field.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

fn json(v: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

fn after(step: &StepIr) -> Vec<&str> {
    let mut a: Vec<&str> = step
        .depends_on
        .iter()
        .filter(|d| d.reason == DependencyReason::After)
        .map(|d| d.step.as_str())
        .collect();
    a.sort_unstable();
    a
}

/// The fields of two steps of the same name that differ.
fn fields(old: &StepIr, new: &StepIr) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let mut field = |name: String, a: serde_json::Value, b: serde_json::Value| {
        if a != b {
            out.push(FieldChange {
                field: name,
                old: a,
                new: b,
            });
        }
    };
    field("tool".into(), json(&old.tool), json(&new.tool));
    let mut names: Vec<&crate::ir::Str> = old.args.keys().chain(new.args.keys()).collect();
    names.sort();
    names.dedup();
    for n in names {
        field(
            format!("args.{n}"),
            old.args.get(n).map_or(serde_json::Value::Null, json),
            new.args.get(n).map_or(serde_json::Value::Null, json),
        );
    }
    field("pre".into(), json(&old.pre), json(&new.pre));
    field("post".into(), json(&old.post), json(&new.post));
    field("binds".into(), json(&old.binds), json(&new.binds));
    field("on_unmet".into(), json(&old.on_unmet), json(&new.on_unmet));
    field("retry".into(), json(&old.retry), json(&new.retry));
    field("after".into(), json(&after(old)), json(&after(new)));
    out
}

/// The delta from `old` to `new`; with `record`, what had completed.
pub fn diff(old: &PlanIr, new: &PlanIr, record: Option<&ProgressRecord>) -> PlanDiff {
    // Steps are matched by name through indexes: a scan per step is
    // quadratic in the plan.
    let recorded = record
        .map(ProgressRecord::steps_by_name)
        .unwrap_or_default();
    let complete = |name: &str| {
        recorded
            .get(name)
            .is_some_and(|s| s.status == Status::Complete)
    };
    let (in_old, in_new) = (old.steps_by_name(), new.steps_by_name());
    let mut d = PlanDiff::default();
    for n in &new.steps {
        match in_old.get(n.name.as_str()).copied() {
            None => d.added.push(n.name.clone().to_string()),
            Some(o) => {
                let f = fields(o, n);
                if f.is_empty() {
                    d.unchanged.push(n.name.clone().to_string());
                    if complete(&n.name) {
                        d.reused.push(n.name.clone().to_string());
                    }
                } else {
                    if complete(&n.name) {
                        d.completed.push(n.name.clone().to_string());
                    }
                    d.changed.push(ChangedStep {
                        step: n.name.clone().to_string(),
                        fields: f,
                    });
                }
            }
        }
    }
    for o in &old.steps {
        if !in_new.contains_key(o.name.as_str()) {
            d.removed.push(o.name.clone().to_string());
            if complete(&o.name) {
                d.completed.push(o.name.clone().to_string());
            }
        }
    }
    d
}

/// The human report: one line per added, removed or changed step (with its
/// fields), then the counts.
pub fn render_human(d: &PlanDiff) -> String {
    let mut out = String::new();
    let completed: planc_lang::FastSet<&str> = d.completed.iter().map(String::as_str).collect();
    let done = |n: &str| {
        if completed.contains(n) {
            " (had completed: not undone)"
        } else {
            ""
        }
    };
    for n in &d.added {
        out.push_str(&format!("+ {n}\n"));
    }
    for n in &d.removed {
        out.push_str(&format!("- {n}{}\n", done(n)));
    }
    for c in &d.changed {
        out.push_str(&format!("~ {}{}\n", c.step, done(&c.step)));
        for f in &c.fields {
            out.push_str(&format!(
                "    {}: {} -> {}\n",
                f.field,
                as_text(&f.old),
                as_text(&f.new)
            ));
        }
    }
    out.push_str(&format!(
        "{} added, {} removed, {} changed, {} unchanged",
        d.added.len(),
        d.removed.len(),
        d.changed.len(),
        d.unchanged.len()
    ));
    if !d.reused.is_empty() {
        out.push_str(&format!(
            ", {} reused ({})",
            d.reused.len(),
            d.reused.join(", ")
        ));
    }
    out.push('\n');
    out
}

/// An IR value (as JSON) the way the plan writes it: a reference as its
/// name and members, a literal as its value; other fields as JSON.
/// Recursion is bounded by the input's nesting limit.
pub fn as_text(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    let list = |items: Option<&Vec<J>>| -> Vec<String> {
        items.into_iter().flatten().map(as_text).collect()
    };
    match v.get("kind").and_then(J::as_str) {
        Some("ref") => {
            let mut s = v
                .get("binding")
                .and_then(J::as_str)
                .unwrap_or_default()
                .to_owned();
            for m in v.get("path").and_then(J::as_array).into_iter().flatten() {
                s.push('.');
                s.push_str(m.as_str().unwrap_or_default());
            }
            s
        }
        Some("literal") => v.get("value").map_or("null".into(), J::to_string),
        Some("list") => format!(
            "[{}]",
            list(v.get("items").and_then(J::as_array)).join(", ")
        ),
        Some("record") => {
            let fields: Vec<String> = v
                .get("fields")
                .and_then(J::as_object)
                .into_iter()
                .flatten()
                .map(|(k, f)| format!("{k}: {}", as_text(f)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Some("interpolate") => {
            let parts: Vec<String> = v
                .get("parts")
                .and_then(J::as_array)
                .into_iter()
                .flatten()
                .map(|p| match p.get("kind").and_then(J::as_str) {
                    Some("literal") => p
                        .get("value")
                        .and_then(J::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    _ => format!("${{{}}}", as_text(p)),
                })
                .collect();
            format!("{:?}", parts.concat())
        }
        _ => probes_text(v).unwrap_or_else(|| v.to_string()),
    }
}

/// A step's `pre` or `post` (as JSON) in the text form's notation:
/// `[schema_tables contains "users"]`; `None` when it is not one.
fn probes_text(v: &serde_json::Value) -> Option<String> {
    fn join<T: std::fmt::Display>(items: &[T]) -> String {
        let shown: Vec<String> = items.iter().map(T::to_string).collect();
        format!("[{}]", shown.join(", "))
    }
    if let Ok(pre) = serde_json::from_value::<Vec<crate::ir::PreProbe>>(v.clone()) {
        return Some(join(&pre));
    }
    serde_json::from_value::<Vec<crate::ir::Probe>>(v.clone())
        .ok()
        .map(|post| join(&post))
}
