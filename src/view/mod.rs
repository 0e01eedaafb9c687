//! Views of a compiled plan for people: the dependency graph in DOT and
//! Mermaid (`graph.rs`), and the review page, one self-contained HTML file
//! for the person who approves the plan (`review/`, with the graph drawn
//! by `svg.rs`). Everything here is built from the IR, the contract the
//! executor runs, so what a reviewer sees is what will run. No IO.

pub mod graph;
pub mod review;
mod svg;

use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::PlanIr;
use crate::source::SourceMap;

/// A warning or note of the compile, as the review page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub help: Option<String>,
    pub notes: Vec<String>,
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
        diagnostics
            .iter()
            .filter_map(|d| {
                let file = sources.get(d.span.file)?;
                if file.name != plan.source {
                    return None;
                }
                let lc = file.line_col(d.span.start);
                let step = d.step.clone().or_else(|| {
                    plan.steps
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
