//! `planc check` and `planc compile`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use planc::driver;

use super::Failure;
use super::args::Options;
use super::load::{display_path, load, with_progress};
use super::report::{emit, report, status};

pub fn check(
    files: &[PathBuf],
    progress: Option<&Path>,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut job = load(files, &options.inputs)?;
    with_progress(&mut job, files.first().map(PathBuf::as_path), progress)?;
    let outcome = driver::run(&mut job);
    report(&job, &outcome.diagnostics, options, true)?;
    Ok(status(&outcome.diagnostics, options))
}

pub fn compile(
    file: &Path,
    output: Option<&Path>,
    progress: Option<&Path>,
    pretty: bool,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut job = load(&[file.to_path_buf()], &options.inputs)?;
    with_progress(&mut job, Some(file), progress)?;
    let outcome = driver::run(&mut job);
    report(&job, &outcome.diagnostics, options, false)?;
    let code = status(&outcome.diagnostics, options);
    if code != ExitCode::SUCCESS {
        return Ok(code);
    }
    let irs = driver::lower(&job, &outcome).map_err(Failure)?;
    let (_, ir) = one_plan(file, &irs)?;
    let pretty = pretty || (output.is_none() && std::io::stdout().is_terminal());
    let text = if pretty {
        planc::ir::to_json(ir)
    } else {
        planc::ir::to_json_compact(ir)
    }
    .map_err(Failure)?;
    emit(output, &text, "the IR")?;
    Ok(code)
}

/// The one plan a file must hold for `compile`, `graph` and `review`, with
/// its position among the file's plans.
pub fn one_plan<'i>(
    file: &Path,
    irs: &'i [planc::ir::PlanIr],
) -> Result<(usize, &'i planc::ir::PlanIr), Failure> {
    match irs {
        [one] => Ok((0, one)),
        [] => Err(Failure(format!("`{}` holds no plan", display_path(file)))),
        many => {
            let names: Vec<String> = many.iter().map(|p| format!("`{}`", p.name)).collect();
            Err(Failure(format!(
                "`{}` holds {} plans ({}); give one plan per file",
                display_path(file),
                many.len(),
                names.join(", ")
            )))
        }
    }
}
