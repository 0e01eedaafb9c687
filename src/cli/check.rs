//! `planc check` and `planc compile`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use planc::{driver, project};

use super::Failure;
use super::args::Options;
use super::load::{Replans, display_path, load, load_plans};
use super::report::{emit_with, report, report_checks, status};

/// Checks plan files, each with the settings of its own project: files
/// sharing a project are checked together, as one job; the report lists
/// every file's diagnostics in the order of the arguments, and the status
/// is the worst.
pub fn check(
    files: &[PathBuf],
    progress: Option<&Path>,
    lenient: bool,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut loaded = load_plans(files, &options.inputs, Replans::Against(progress))?;
    let mut diagnostics: Vec<planc::Diagnostic> = Vec::new();
    if lenient {
        let plans: Vec<planc::FileId> = loaded
            .groups
            .iter()
            .flat_map(|(_, plans)| plans.iter().copied())
            .collect();
        for id in plans {
            diagnostics.extend(planc::syntax::lenient::apply(&mut loaded.job.sources, id));
        }
    }
    let mut configs: Vec<String> = Vec::new();
    for (settings, plans) in std::mem::take(&mut loaded.groups) {
        let mut job = loaded.job(&settings, plans)?;
        // The diagnostics are all `check` reports: each step's tree and
        // model go once the step is checked.
        job.trees = driver::Trees::Diagnostics;
        let outcome = driver::run(&mut job);
        loaded.keep(&mut job);
        diagnostics.extend(outcome.diagnostics);
        if let Some(config) = job.config.filter(|c| !configs.contains(c)) {
            configs.push(config);
        }
    }
    // A file two projects read (one's plan, the other's catalogue) may
    // say the same thing in both: once is enough. A set, not a scan: a
    // plan of 100,000 steps has tens of thousands of notes.
    let first: Vec<bool> = {
        let mut seen = std::collections::HashSet::with_capacity(diagnostics.len());
        diagnostics.iter().map(|d| seen.insert(d)).collect()
    };
    let mut first = first.into_iter();
    diagnostics.retain(|_| first.next().unwrap_or(true));
    planc::diagnostics::sort(&mut diagnostics);
    let configs: Vec<&str> = configs.iter().map(String::as_str).collect();
    report_checks(&loaded.job.sources, &configs, &diagnostics, options, true)?;
    if matches!(options.format, super::args::Format::Human) {
        record_verdicts(&loaded.job.sources, files.len(), &diagnostics);
    }
    Ok(status(&diagnostics, options))
}

/// A verdict line on stderr for each progress record checked on its own
/// without a diagnostic: what was read, since a clean record otherwise
/// prints nothing at all.
fn record_verdicts(sources: &planc::SourceMap, given: usize, diagnostics: &[planc::Diagnostic]) {
    // The files given are the first read, in their order.
    for k in 0..given {
        let id = planc::FileId(u32::try_from(k).unwrap_or(u32::MAX));
        let Some(file) = sources.get(id) else {
            continue;
        };
        if file.kind != planc::SourceKind::Json || diagnostics.iter().any(|d| d.span.file == id) {
            continue;
        }
        let read = planc::progress::read::read(id, &file.text);
        let Some(record) = read.record.filter(|_| read.diagnostics.is_empty()) else {
            continue;
        };
        let mut counts: Vec<String> = Vec::new();
        for status in [
            planc::progress::Status::Complete,
            planc::progress::Status::Failed,
            planc::progress::Status::Invalid,
            planc::progress::Status::Pending,
        ] {
            let n = record.steps.iter().filter(|s| s.status == status).count();
            if n > 0 {
                counts.push(format!("{n} {status}"));
            }
        }
        eprintln!(
            "`{}`: a valid progress record of plan `{}`: {} {} ({}), {} replans used",
            file.name,
            record.plan,
            record.steps.len(),
            if record.steps.len() == 1 {
                "step"
            } else {
                "steps"
            },
            if counts.is_empty() {
                "none recorded".to_string()
            } else {
                counts.join(", ")
            },
            record.replans_used
        );
    }
}

pub fn compile(
    file: &Path,
    output: Option<&Path>,
    progress: Option<&Path>,
    pretty: bool,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut job = load(
        &[file.to_path_buf()],
        &options.inputs,
        Replans::Against(progress),
    )?;
    if let Some(path) = output
        && !pretty
        && project::writes_a_new_file(path)
        && let Some(code) = compile_streamed(&mut job, file, path, options)?
    {
        return Ok(code);
    }
    // The lowering reads the checked model only: each step's tree goes
    // once its model is built.
    job.trees = driver::Trees::Release;
    let outcome = driver::run(&mut job);
    report(&job, &outcome.diagnostics, options, false)?;
    let code = status(&outcome.diagnostics, options);
    if code != ExitCode::SUCCESS {
        return Ok(code);
    }
    // The IR stands alone: each step's model goes once its IR is built,
    // and the sources before its text is written, so that the largest
    // things of a compile are not alive at once.
    let irs = driver::lower_owned(&job, outcome).map_err(Failure)?;
    drop(job);
    let (_, ir) = one_plan(file, &irs)?;
    let pretty = pretty || (output.is_none() && std::io::stdout().is_terminal());
    // Streamed: the IR's text (about 750 bytes a step) is never whole in
    // memory beside the IR.
    emit_with(output, "the IR", &mut |out| {
        planc::ir::write_json(ir, pretty, out)
    })?;
    Ok(code)
}

/// What [`compile_streamed`] found, when it keeps nothing.
enum NotKept {
    /// The job cannot be checked as it is written (nothing checked).
    NotStreamed,
    /// The check's status, which is not success: the diagnostics say why.
    Status(ExitCode),
    Failed(Failure),
}

/// `compile` into the file `path`, its IR written as the plan is checked
/// (`planc::ir::IrStream`): no step's model or IR outlives the step
/// (`docs/performance.md`, "Where the memory goes"). The bytes are those
/// the IR lowered whole would give, into a new file renamed over `path`
/// only once the check found nothing that stops it and the fingerprint is
/// written; the steps' canonical texts (the fingerprint's input, about as
/// long as the IR) are kept meanwhile in a scratch file beside it. `None`
/// when the job cannot be checked so (one file in several roles, a
/// progress record): nothing was checked or written.
fn compile_streamed(
    job: &mut driver::Job,
    file: &Path,
    path: &Path,
    options: &Options,
) -> Result<Option<ExitCode>, Failure> {
    let mut not_kept = None;
    let mut stream_into = |out: &mut std::fs::File, canon: &mut std::fs::File| {
        let mut stream = planc::ir::IrStream::new(out, canon);
        let Some(outcome) = driver::run_lowering(job, &mut stream) else {
            return Err(NotKept::NotStreamed);
        };
        report(job, &outcome.diagnostics, options, false).map_err(NotKept::Failed)?;
        let code = status(&outcome.diagnostics, options);
        if code != ExitCode::SUCCESS {
            return Err(NotKept::Status(code));
        }
        let plans = &outcome.checked.plans;
        let [plan] = plans.as_slice() else {
            let names = plans.iter().map(|p| p.name.as_str());
            return Err(NotKept::Failed(not_one(file, names)));
        };
        stream
            .finish(plan)
            .map(drop)
            .map_err(|e| NotKept::Failed(Failure(e)))
    };
    let written = project::write_atomic_file(path, &mut |out| {
        let streamed = project::with_scratch(path, &mut |canon| stream_into(out, canon));
        match streamed {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => {
                not_kept = Some(why);
                Err(std::io::Error::other("nothing to keep"))
            }
            Err(e) => {
                not_kept = Some(NotKept::Failed(Failure(e)));
                Err(std::io::Error::other("nothing to keep"))
            }
        }
    });
    match (written, not_kept) {
        (Ok(()), _) => Ok(Some(ExitCode::SUCCESS)),
        (Err(_), Some(NotKept::NotStreamed)) => Ok(None),
        (Err(_), Some(NotKept::Status(code))) => Ok(Some(code)),
        (Err(_), Some(NotKept::Failed(f))) => Err(f),
        (Err(e), None) => Err(Failure(e)),
    }
}

/// The one plan a file must hold for `compile`, `graph` and `review`, with
/// its position among the file's plans.
pub fn one_plan<'i>(
    file: &Path,
    irs: &'i [planc::ir::PlanIr],
) -> Result<(usize, &'i planc::ir::PlanIr), Failure> {
    match irs {
        [one] => Ok((0, one)),
        many => Err(not_one(file, many.iter().map(|p| p.name.as_str()))),
    }
}

/// Why `file`, whose plans have these names, is not one plan.
fn not_one<'n>(file: &Path, names: impl ExactSizeIterator<Item = &'n str>) -> Failure {
    if names.len() == 0 {
        return Failure(format!("`{}` holds no plan", display_path(file)));
    }
    let count = names.len();
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    Failure(format!(
        "`{}` holds {count} plans ({}); give one plan per file",
        display_path(file),
        names.join(", ")
    ))
}
