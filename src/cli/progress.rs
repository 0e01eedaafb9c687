//! The commands over two plans or a plan and its progress record:
//! `planc diff` and `planc invalidate`.

use std::path::Path;
use std::process::ExitCode;

use planc::driver::{self, Job};

use super::Failure;
use super::args::{Format, Options};
use super::check::one_plan;
use super::load::{Replans, load, load_record, record_key, settings_of};
use super::report::{print_result, report_blocking};

/// `planc diff OLD NEW [--progress P]`: both plans compiled, matched by
/// step name; the delta as text or as JSON on standard output.
pub fn diff(
    old: &Path,
    new: &Path,
    progress: Option<&Path>,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut irs = Vec::new();
    for file in [old, new] {
        let mut job = load(&[file.to_path_buf()], &options.inputs, Replans::No)?;
        job.trees = driver::Trees::Release;
        let outcome = driver::run(&mut job);
        if !report_blocking(&job, &outcome.diagnostics, options)? {
            return Ok(ExitCode::from(1));
        }
        let irs_of_file = driver::lower(&job, &outcome).map_err(Failure)?;
        irs.push(one_plan(file, &irs_of_file)?.1.clone());
    }
    let record = match progress {
        Some(p) => {
            let mut job = Job::default();
            let key = record_key(&settings_of(new, &options.inputs)?)?;
            let (record, diags) = load_record(&mut job, p, key.as_deref())?;
            if !report_blocking(&job, &diags, options)? {
                return Ok(ExitCode::from(1));
            }
            record
        }
        None => None,
    };
    let [old_ir, new_ir] = irs.as_slice() else {
        return Err(Failure("two plans expected".into()));
    };
    let d = planc::progress::diff(old_ir, new_ir, record.as_ref());
    let text = if matches!(options.format, Format::Json | Format::Sarif) {
        planc::ir::to_json(&d).map_err(Failure)?
    } else if options.color.on_stdout() {
        coloured(&planc::progress::diff::render_human(&d))
    } else {
        planc::progress::diff::render_human(&d)
    };
    print_result(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The delta's lines coloured by their mark: `+` green, `~` yellow, `-`
/// red; the marks stay, so the colour only repeats what they say.
fn coloured(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let colour = match line.as_bytes().first() {
            Some(b'+') => Some("32"),
            Some(b'~') => Some("33"),
            Some(b'-') => Some("31"),
            _ => None,
        };
        match colour {
            Some(c) => {
                let body = line.trim_end_matches('\n');
                out.push_str(&format!("\x1b[{c}m{body}\x1b[0m"));
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

/// `planc invalidate PLAN --progress P --event EVENT`: the plan compiled,
/// the record read, the event applied; the result as a table or as JSON on
/// standard output. Errors in the plan or the record are reported (1).
pub fn invalidate(
    file: &Path,
    progress: &Path,
    event: &str,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let event = planc::progress::Event::parse(event).map_err(Failure)?;
    let key = record_key(&settings_of(file, &options.inputs)?)?;
    let mut job = load(&[file.to_path_buf()], &options.inputs, Replans::No)?;
    let outcome = driver::run(&mut job);
    let (record, record_diags) = load_record(&mut job, progress, key.as_deref())?;
    let diagnostics: Vec<planc::Diagnostic> = outcome
        .diagnostics
        .iter()
        .chain(&record_diags)
        .cloned()
        .collect();
    // The plan's notes (approvals, guards) are not about the event: only
    // what stops the invalidation is reported.
    let ok = report_blocking(&job, &diagnostics, options)?;
    let Some(record) = record.filter(|_| ok) else {
        return Ok(ExitCode::from(1));
    };
    let machine = matches!(options.format, Format::Json | Format::Sarif);
    let irs = driver::lower(&job, &outcome).map_err(Failure)?;
    let (_, ir) = one_plan(file, &irs)?;
    let inv =
        planc::progress::invalidate(ir, &record, &event).map_err(|e| Failure(e.to_string()))?;
    let text = if machine {
        planc::ir::to_json(&inv).map_err(Failure)?
    } else {
        planc::progress::invalidate::render_human(&inv)
    };
    print_result(&text)?;
    Ok(ExitCode::SUCCESS)
}
