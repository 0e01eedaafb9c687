//! The views of one compiled plan: `planc graph` and `planc review`. Both
//! compile the plan exactly as `planc compile` does, against the same
//! progress record (`--progress`, or `progress` in `planc.toml`), so the
//! view shows the IR that `planc run` executes.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use planc::driver::{self, Job, Outcome};

use super::Failure;
use super::args::{Color, GraphFormat, Inputs};
use super::check::one_plan;
use super::load::{Replans, display_path, load};
use super::report::{emit, report_human};

/// One plan compiled for a view of it (`graph`, `review`).
pub struct Compiled {
    pub job: Job,
    pub outcome: Outcome,
    /// The IR, `None` when the compile has errors.
    pub ir: Option<planc::ir::PlanIr>,
    /// The plan's position among the file's plans (and their models).
    pub index: usize,
    /// The record the plan was checked against, with the name it was
    /// read under.
    pub record: Option<(planc::progress::ProgressRecord, String)>,
}

/// Compiles one plan for a view of it as `planc compile` does: against
/// `progress` (or the record of `planc.toml`), with its IR, its model, the
/// record and the compile's diagnostics. The diagnostics are printed on
/// stderr when there are errors.
pub fn compile_for_view(
    file: &Path,
    progress: Option<&Path>,
    inputs: &Inputs,
    color: Color,
) -> Result<Compiled, Failure> {
    let mut job = load(&[file.to_path_buf()], inputs, Replans::Against(progress))?;
    let outcome = driver::run(&mut job);
    if outcome.has_errors() {
        report_human(&job.sources, &outcome.diagnostics, color);
    }
    // The record the check read, read again from the job's own copy for
    // its statuses (the check keeps no record past itself).
    let record = match job.progress {
        Some(id) => {
            let read = driver::read_progress(&mut job.sources, id);
            let name = job.sources.name(id).to_string();
            read.record.map(|r| (r, name))
        }
        None => None,
    };
    let (index, ir) = if outcome.has_errors() {
        let index = outcome
            .checked
            .plans
            .iter()
            .position(|p| Some(p.name_span.file) == job.plans.first().copied())
            .unwrap_or(0);
        (index, None)
    } else {
        let irs = driver::lower(&job, &outcome).map_err(Failure)?;
        let (index, ir) = one_plan(file, &irs)?;
        (index, Some(ir.clone()))
    };
    Ok(Compiled {
        job,
        outcome,
        ir,
        index,
        record,
    })
}

/// Refuses a record or an earlier plan of another plan: a different name
/// and not one step name in common.
fn same_plan(
    ir: &planc::ir::PlanIr,
    other: &str,
    steps: &[&str],
    what: &str,
) -> Result<(), Failure> {
    if planc::view::related(ir, other, steps) {
        return Ok(());
    }
    Err(Failure(format!(
        "{what} is of plan `{other}`, which shares no step with plan `{}`: give the {what} of this plan or of the plan it replaces",
        ir.name
    )))
}

pub fn graph(
    file: &Path,
    format: GraphFormat,
    output: Option<&Path>,
    progress: Option<&Path>,
    inputs: &Inputs,
    color: Color,
) -> Result<ExitCode, Failure> {
    let compiled = compile_for_view(file, progress, inputs, color)?;
    let Some(ir) = compiled.ir else {
        return Ok(ExitCode::from(1));
    };
    let mut g = planc::view::graph::Graph::of(&ir);
    if let Some((record, _)) = &compiled.record {
        let names: Vec<&str> = record.steps.iter().map(|s| s.name.as_str()).collect();
        same_plan(&ir, &record.plan, &names, "the progress record")?;
        g.mark_progress(&ir, record);
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
    if output.is_none() && std::io::stdout().is_terminal() {
        return Err(Failure(
            "the review page is HTML: write it to a file with `-o review.html` and open that in a browser"
                .into(),
        ));
    }
    let Compiled {
        job,
        outcome,
        ir,
        index,
        record,
    } = compile_for_view(file, view.progress, view.inputs, view.color)?;
    let generator = format!("planc {}", env!("CARGO_PKG_VERSION"));
    let plan = outcome.checked.plans.get(index);
    let Some(ir) = ir else {
        // A plan with errors: a page that says so, with nothing to approve.
        let name = plan.map(|p| p.name.to_string()).unwrap_or_default();
        let source = display_path(file);
        let findings =
            planc::view::Finding::collect_in(None, None, &outcome.diagnostics, &job.sources);
        let page = planc::view::review::refused(&planc::view::review::Refused {
            name: &name,
            source: &source,
            findings: &findings,
            generator: &generator,
        });
        emit(output, &page, "the page")?;
        return Ok(ExitCode::from(1));
    };
    if let Some((record, _)) = &record {
        let names: Vec<&str> = record.steps.iter().map(|s| s.name.as_str()).collect();
        same_plan(&ir, &record.plan, &names, "the progress record")?;
    }
    let old = match view.against {
        Some(path) => {
            let old = compile_for_view(path, None, view.inputs, view.color)?;
            match old.ir {
                Some(old) => Some(old),
                None => return Ok(ExitCode::from(1)),
            }
        }
        None => None,
    };
    if let Some(old) = &old {
        let names: Vec<&str> = old.steps.iter().map(|s| s.name.as_str()).collect();
        same_plan(&ir, &old.name, &names, "the earlier plan")?;
    }
    let delta = old
        .as_ref()
        .map(|old| planc::progress::diff(old, &ir, record.as_ref().map(|(r, _)| r)));
    let findings = planc::view::Finding::collect(&ir, &outcome.diagnostics, &job.sources);
    let arg_order = written_order(&job, &outcome, &ir);
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
        arg_order: &arg_order,
        command: run_command(
            file,
            view,
            &ir.fingerprint,
            &ir.approvals
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>(),
        ),
    });
    emit(output, &page, "the page")?;
    Ok(ExitCode::SUCCESS)
}

/// Each step's argument names in the order its plan writes them (the IR
/// keeps them sorted), by the step's index: read from the plan's syntax
/// tree.
fn written_order(job: &Job, outcome: &Outcome, ir: &planc::ir::PlanIr) -> Vec<Vec<String>> {
    let plan = outcome
        .parsed
        .iter()
        .filter(|p| job.plans.contains(&p.file))
        .flat_map(|p| p.module.plans())
        .find(|p| *p.name.node == *ir.name);
    // The plan's steps by name, first wins: a scan per step is quadratic.
    let steps: &[planc::ast::Step] = plan.map_or(&[], |p| &p.steps);
    let written = planc::first_by_key(steps, |st| st.name.node.as_str());
    ir.steps
        .iter()
        .map(|s| {
            written
                .get(s.name.as_str())
                .map(|st| st.args.iter().map(|a| a.name.node.to_string()).collect())
                .unwrap_or_default()
        })
        .collect()
}

/// The `planc run` command that runs what the page shows: the same plan
/// file, the same record, the same catalogue, policy and actor flags, and
/// the fingerprint of what was reviewed.
fn run_command(file: &Path, view: &View<'_>, fingerprint: &str, approvals: &[String]) -> String {
    let mut words = vec![
        "planc".to_string(),
        "run".to_string(),
        shell_word(&display_path(file)),
    ];
    let inputs = view.inputs;
    for c in &inputs.catalog {
        words.push("--catalog".into());
        words.push(shell_word(&display_path(c)));
    }
    if let Some(p) = &inputs.policy {
        words.push("--policy".into());
        words.push(shell_word(&display_path(p)));
    }
    if let Some(a) = &inputs.actor {
        words.push("--actor".into());
        words.push(shell_word(&a.join(",")));
    }
    if inputs.no_config {
        words.push("--no-config".into());
    }
    if let Some(p) = view.progress {
        words.push("--progress".into());
        words.push(shell_word(&display_path(p)));
    }
    if !approvals.is_empty() {
        words.push("--approve".into());
        words.push(shell_word(&approvals.join(",")));
    }
    // The run refuses a plan that no longer compiles to what was reviewed.
    words.push("--fingerprint".into());
    words.push(shell_word(fingerprint));
    words.join(" ")
}

/// A word for a POSIX shell: as it is when it is plain, else in single
/// quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@,+".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
