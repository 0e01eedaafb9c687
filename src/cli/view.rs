//! The views of one compiled plan: `planc graph` and `planc review`.

use std::path::Path;
use std::process::ExitCode;

use planc::driver::{self, Job, Outcome};

use super::Failure;
use super::args::{Color, GraphFormat, Inputs};
use super::check::one_plan;
use super::load::{Replans, display_path, load, load_record};
use super::report::{emit, report_human};

/// One plan compiled for a view of it (`graph`, `review`).
pub struct Compiled {
    pub job: Job,
    pub outcome: Outcome,
    pub ir: planc::ir::PlanIr,
    /// The plan's position among the file's plans (and their models).
    pub index: usize,
}

/// Compiles one plan for a view of it: its IR, its model and the compile's
/// diagnostics. A plan with errors is reported on stderr and yields
/// `Err(status 1)`.
pub fn compile_for_view(
    file: &Path,
    inputs: &Inputs,
    color: Color,
) -> Result<Result<Compiled, ExitCode>, Failure> {
    let mut job = load(&[file.to_path_buf()], inputs, Replans::No)?;
    let outcome = driver::run(&mut job);
    if outcome.has_errors() {
        report_human(&job.sources, &outcome.diagnostics, color);
        return Ok(Err(ExitCode::from(1)));
    }
    let irs = driver::lower(&job, &outcome).map_err(Failure)?;
    let (index, ir) = one_plan(file, &irs)?;
    let ir = ir.clone();
    Ok(Ok(Compiled {
        job,
        outcome,
        ir,
        index,
    }))
}

/// Reads a progress record for a view of a plan: the record, or its
/// errors reported on stderr and `Err(status 1)`.
pub fn record_for_view(
    path: &Path,
    color: Color,
) -> Result<Result<planc::progress::ProgressRecord, ExitCode>, Failure> {
    let mut job = Job::default();
    let (record, diagnostics) = load_record(&mut job, path)?;
    match record {
        Some(record) if !diagnostics.iter().any(planc::Diagnostic::is_error) => Ok(Ok(record)),
        _ => {
            report_human(&job.sources, &diagnostics, color);
            Ok(Err(ExitCode::from(1)))
        }
    }
}

pub fn graph(
    file: &Path,
    format: GraphFormat,
    output: Option<&Path>,
    progress: Option<&Path>,
    inputs: &Inputs,
    color: Color,
) -> Result<ExitCode, Failure> {
    let Compiled { ir, .. } = match compile_for_view(file, inputs, color)? {
        Ok(compiled) => compiled,
        Err(code) => return Ok(code),
    };
    let mut g = planc::view::graph::Graph::of(&ir);
    if let Some(path) = progress {
        match record_for_view(path, color)? {
            Ok(record) => g.mark_progress(&ir, &record),
            Err(code) => return Ok(code),
        }
    }
    let text = match format {
        GraphFormat::Dot => planc::view::graph::dot(&g),
        GraphFormat::Mermaid => planc::view::graph::mermaid(&g),
    };
    emit(output, &text, "the graph")?;
    Ok(ExitCode::SUCCESS)
}

/// What `planc review` shows beside the plan, and how it reads its inputs.
pub struct View<'a> {
    pub progress: Option<&'a Path>,
    pub against: Option<&'a Path>,
    pub inputs: &'a Inputs,
    pub color: Color,
}

pub fn review(file: &Path, output: Option<&Path>, view: &View<'_>) -> Result<ExitCode, Failure> {
    let Compiled {
        job,
        outcome,
        ir,
        index,
    } = match compile_for_view(file, view.inputs, view.color)? {
        Ok(compiled) => compiled,
        Err(code) => return Ok(code),
    };
    let record = match view.progress {
        Some(path) => match record_for_view(path, view.color)? {
            Ok(record) => Some((record, display_path(path))),
            Err(code) => return Ok(code),
        },
        None => None,
    };
    let old = match view.against {
        Some(path) => match compile_for_view(path, view.inputs, view.color)? {
            Ok(compiled) => Some(compiled.ir),
            Err(code) => return Ok(code),
        },
        None => None,
    };
    let delta = old
        .as_ref()
        .map(|old| planc::progress::diff(old, &ir, record.as_ref().map(|(r, _)| r)));
    let plan = outcome.checked.plans.get(index);
    let findings = planc::view::Finding::collect(&ir, &outcome.diagnostics, &job.sources);
    let generator = format!("planc {}", env!("CARGO_PKG_VERSION"));
    let page = planc::view::review::page(&planc::view::review::Review {
        ir: &ir,
        policy: plan.and_then(|p| p.policy.as_deref()),
        actor: plan.map(|p| p.actor.as_slice()).unwrap_or_default(),
        doc: plan.map(|p| p.doc.as_str()).unwrap_or_default(),
        findings: &findings,
        generator: &generator,
        progress: record
            .as_ref()
            .map(|(record, source)| planc::view::review::Recorded { record, source }),
        against: old
            .as_ref()
            .zip(delta.as_ref())
            .map(|(old, diff)| planc::view::review::Against { old, diff }),
    });
    emit(output, &page, "the page")?;
    Ok(ExitCode::SUCCESS)
}
