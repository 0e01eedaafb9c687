//! `planc fmt`: layout of the text form (`--check`, `--diff`) and
//! conversion between the text and JSON forms (`--to`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use planc::SourceKind;
use planc::driver::{self, Job};
use planc::project;

use super::Failure;
use super::args::{Color, Form, Format};
use super::load::{add_file, display_path, stdin_bytes};
use super::report::report_files;

/// What `planc fmt` does with a file whose layout differs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FmtMode {
    /// Rewrite it (standard input: print the result).
    Write,
    /// Name it on standard output.
    Check,
    /// Print the change as a unified diff on standard output.
    Diff,
}

/// Lays out each file. A file that does not parse is reported and left
/// alone (status 1), and so is one that is not UTF-8 (E0002); a JSON file,
/// one that cannot be read or a layout that would
/// change more than whitespace stops the command (status 2). `--check` and
/// `--diff` write nothing and exit with 1 when a file is not laid out.
pub fn fmt(
    files: &[PathBuf],
    mode: FmtMode,
    format: Format,
    color: Color,
) -> Result<ExitCode, Failure> {
    let mut code = ExitCode::SUCCESS;
    for path in files {
        let stdin = path == Path::new("-");
        let Some((name, text, kind)) = read_input(path, format, color)? else {
            code = ExitCode::from(1);
            continue;
        };
        if kind == SourceKind::Json {
            return Err(Failure(format!(
                "`{name}` is JSON: `planc fmt` lays out the text form"
            )));
        }
        let laid_out = match planc::fmt::layout::layout(&text) {
            Ok(t) => t,
            Err(planc::fmt::layout::LayoutError::Syntax(diagnostics)) => {
                let mut sources = planc::SourceMap::new();
                sources.add_with_kind(name, text, SourceKind::Text);
                report_files(&sources, &diagnostics, format, color);
                code = ExitCode::from(1);
                continue;
            }
            Err(planc::fmt::layout::LayoutError::Internal(why)) => {
                return Err(Failure(format!(
                    "cannot lay out `{name}`: {why}; the file is left as it was (this is a bug in planc)"
                )));
            }
        };
        match mode {
            FmtMode::Check | FmtMode::Diff if laid_out == text => {}
            FmtMode::Check => {
                println!("{name}");
                code = ExitCode::from(1);
            }
            FmtMode::Diff => {
                let diff = similar::TextDiff::from_lines(&text, &laid_out)
                    .unified_diff()
                    .header(&name, &name)
                    .to_string();
                std::io::stdout()
                    .write_all(diff.as_bytes())
                    .map_err(|e| Failure(format!("cannot write the diff: {e}")))?;
                code = ExitCode::from(1);
            }
            FmtMode::Write if stdin => std::io::stdout()
                .write_all(laid_out.as_bytes())
                .map_err(|e| Failure(format!("cannot write the result: {e}")))?,
            FmtMode::Write if laid_out != text => {
                project::write_atomic(path, laid_out.as_bytes()).map_err(Failure)?;
            }
            FmtMode::Write => {}
        }
    }
    Ok(code)
}

/// A file for `planc fmt`, or standard input for `-`: its name, text and
/// form (from the name, or from the content for standard input). Bytes
/// that are not UTF-8 are reported in `format` (E0002 at the first bad
/// byte, as `check` reports them) and give `None`.
pub fn read_input(
    path: &Path,
    format: Format,
    color: Color,
) -> Result<Option<(String, String, SourceKind)>, Failure> {
    let (name, bytes, kind) = if path == Path::new("-") {
        ("<stdin>".to_string(), stdin_bytes()?, None)
    } else {
        let name = display_path(path);
        let bytes = project::read_bytes(path).map_err(Failure)?;
        let kind = SourceKind::from_name(&name);
        (name, bytes, Some(kind))
    };
    let mut job = Job::default();
    let id = project::add_bytes(&mut job, name.clone(), bytes, kind);
    if !job.unreadable.is_empty() {
        report_files(&job.sources, &job.unreadable, format, color);
        return Ok(None);
    }
    Ok(job.sources.get(id).map(|f| (name, f.text.clone(), f.kind)))
}

/// `planc fmt --to FORM FILE`: the file read in its form (a JSON document
/// as a plan, a catalogue or a policy, told apart by its keys) and written
/// in the other, on standard output. A file with syntax errors, or holding
/// what the other form cannot express, is reported (status 1).
pub fn convert(
    files: &[PathBuf],
    form: Form,
    format: Format,
    color: Color,
) -> Result<ExitCode, Failure> {
    let [path] = files else {
        return Err(Failure(format!(
            "`--to` converts one file at a time ({} given)",
            files.len()
        )));
    };
    let Some((name, text, kind)) = read_input(path, format, color)? else {
        return Ok(ExitCode::from(1));
    };
    let mut sources = planc::SourceMap::new();
    let id = sources.add_with_kind(name, text, kind);
    let (to, catalog) = match form {
        Form::Json => (planc::fmt::convert::Form::Json, None),
        Form::Plan => (planc::fmt::convert::Form::Plan, catalogue_near(path)),
    };
    let converted = match planc::fmt::convert::convert(&mut sources, id, to, catalog.as_ref()) {
        Ok(c) => c,
        Err(diagnostics) => {
            report_files(&sources, &diagnostics, format, color);
            return Ok(ExitCode::from(1));
        }
    };
    std::io::stdout()
        .write_all(converted.text.as_bytes())
        .map_err(|e| Failure(format!("cannot write the result: {e}")))?;
    if form == Form::Json
        && let Some(f) = sources.get(id).filter(|f| f.kind == SourceKind::Text)
    {
        let left_out = planc::fmt::convert::left_out_of_json(&f.text, &converted.module);
        if let Some(&first) = left_out.first() {
            let at = f.line_col(first);
            eprintln!(
                "{}:{}:{}: note: the JSON form holds no comments: {} left out (doc comments of tools, parameters and fields are kept as descriptions)",
                f.name,
                at.line,
                at.column,
                if left_out.len() == 1 {
                    "1 comment".to_string()
                } else {
                    format!("{} comments", left_out.len())
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The catalogue of the `planc.toml` found from `path`'s folder (the
/// current folder for standard input), built from its files; `None` when
/// there is none, or it cannot be read whole (conversion then goes on
/// without it).
pub fn catalogue_near(path: &Path) -> Option<planc::catalog::Catalog> {
    let start = match path.parent() {
        Some(p) if path != Path::new("-") && !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let config = project::discover(start).ok()??;
    let mut job = Job::default();
    for file in &config.catalog {
        let id = add_file(&mut job, file).ok()?;
        job.catalog.push(id);
    }
    let mut modules = Vec::new();
    for id in job.catalog.clone() {
        let (module, diagnostics) = driver::parse(&mut job.sources, id, driver::Role::Catalog);
        if diagnostics.iter().any(planc::Diagnostic::is_error) {
            return None;
        }
        modules.push(module);
    }
    let mut ignored = Vec::new();
    let catalog =
        planc::catalog::Catalog::build(modules.iter().flat_map(|m| m.tools()), &mut ignored);
    (!catalog.is_empty()).then_some(catalog)
}
