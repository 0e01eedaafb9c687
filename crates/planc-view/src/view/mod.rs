//! Views of a compiled plan for people: the dependency graph in DOT and
//! Mermaid (`graph.rs`), and the review page, one self-contained HTML file
//! for the person who approves the plan (`review/`, with the graph drawn
//! by `svg.rs`). Everything here is built from the IR, the contract the
//! executor runs, so what a reviewer sees is what will run. No IO.

pub mod graph;
pub mod review;
mod svg;

use crate::diagnostics::{Code, Diagnostic, Severity, Text};
use crate::ir::PlanIr;
use crate::source::SourceMap;

/// Whether a progress record or an earlier plan named `other`, with
/// these step names, can be of the plan `ir` or of the plan it replaces:
/// the same name, or at least one step name in common. A record of
/// another plan entirely would show statuses and reuse that mean nothing
/// for this one.
pub fn related(ir: &PlanIr, other: &str, steps: &[&str]) -> bool {
    if other == &*ir.name {
        return true;
    }
    let steps: std::collections::HashSet<&str> = steps.iter().copied().collect();
    ir.steps.iter().any(|s| steps.contains(&*s.name))
}

/// A warning or note of the compile, as the review page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub help: Option<Text>,
    pub notes: Vec<Text>,
    /// The step it belongs to: the diagnostic's own, else the step whose
    /// source holds its position; `None` for the plan as a whole.
    pub step: Option<String>,
    /// `file:line:column`.
    pub at: String,
}

impl Finding {
    /// The findings of a compile that concern `plan`: every diagnostic in
    /// the plan's file (errors included, though a plan with errors has no
    /// IR to review).
    pub fn collect(plan: &PlanIr, diagnostics: &[Diagnostic], sources: &SourceMap) -> Vec<Finding> {
        Finding::collect_in(Some(&plan.source), Some(plan), diagnostics, sources)
    }

    /// The findings of a compile in the file named `source` (or in every
    /// file), each placed in the step of `plan` that holds it (with no IR,
    /// only a diagnostic's own step).
    pub fn collect_in(
        source: Option<&str>,
        plan: Option<&PlanIr>,
        diagnostics: &[Diagnostic],
        sources: &SourceMap,
    ) -> Vec<Finding> {
        diagnostics
            .iter()
            .filter_map(|d| {
                let file = sources.get(d.span.file)?;
                if source.is_some_and(|s| file.name != s) {
                    return None;
                }
                let lc = file.line_col(d.span.start);
                let step = d.step.as_ref().map(|s| s.to_string()).or_else(|| {
                    plan?
                        .steps
                        .iter()
                        .find(|s| s.span.start <= d.span.start && d.span.end <= s.span.end)
                        .map(|s| s.name.to_string())
                });
                Some(Finding {
                    severity: d.severity,
                    code: d.code,
                    message: d.message.clone(),
                    help: d.help.clone(),
                    notes: d.notes.clone(),
                    step,
                    at: format!("{}:{}:{}", file.name, lc.line, lc.column),
                })
            })
            .collect()
    }
}
