//! Printing what a command found: diagnostics in the chosen format, the
//! exit status, and a command's output to a file or standard output.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use planc::SourceMap;
use planc::diagnostics::{counts, render};
use planc::driver::Job;
use planc::project;

use super::Failure;
use super::args::{Color, Format, Options};

/// Prints the diagnostics of a job in the chosen format (see
/// [`report_checks`]).
pub fn report(
    job: &Job,
    diagnostics: &[planc::Diagnostic],
    options: &Options,
    stdout_free: bool,
) -> Result<(), Failure> {
    let configs: Vec<&str> = job.config.iter().map(String::as_str).collect();
    report_checks(&job.sources, &configs, diagnostics, options, stdout_free)
}

/// Prints the diagnostics in the chosen format, naming the `planc.toml`
/// files the check used. Human and short reports go to stderr, as a
/// compiler's do; the JSON and SARIF documents go to stdout unless stdout
/// carries something else (`compile`'s IR).
pub fn report_checks(
    sources: &SourceMap,
    configs: &[&str],
    diagnostics: &[planc::Diagnostic],
    options: &Options,
    stdout_free: bool,
) -> Result<(), Failure> {
    let (text, machine) = match options.format {
        Format::Human => {
            // The reports are written as they are made; the summary after.
            let stderr = std::io::stderr();
            let mut w = std::io::BufWriter::new(stderr.lock());
            render::human_to(&mut w, sources, diagnostics, options.color.on_stderr())
                .and_then(|()| w.flush())
                .map_err(|e| Failure(format!("cannot write the report: {e}")))?;
            let mut s = String::new();
            if !diagnostics.is_empty() {
                s.push_str(&render::summary(diagnostics));
                s.push('\n');
            }
            match configs {
                [] => {}
                [config] => {
                    s.push_str(&format!("checked with the configuration of `{config}`\n"));
                }
                many => {
                    let names: Vec<String> = many.iter().map(|c| format!("`{c}`")).collect();
                    s.push_str(&format!(
                        "checked with the configurations of {}\n",
                        names.join(", ")
                    ));
                }
            }
            (s, false)
        }
        Format::Short => (render::short(sources, diagnostics), false),
        Format::Json => (
            render::json_with_configs(sources, diagnostics, configs),
            true,
        ),
        Format::Sarif => (
            render::sarif(sources, diagnostics, &sarif_options(sources, options)?),
            true,
        ),
    };
    let written = if machine && stdout_free {
        std::io::stdout().write_all(text.as_bytes())
    } else {
        std::io::stderr().write_all(text.as_bytes())
    };
    written.map_err(|e| Failure(format!("cannot write the report: {e}")))
}

/// Where the SARIF log's files are: `%SRCROOT%` is the root of the git
/// repository around the current folder (else the current folder), and
/// each file's URI is relative to it whatever path it was given by.
pub fn sarif_options(
    sources: &SourceMap,
    options: &Options,
) -> Result<render::SarifOptions, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure(format!("cannot read the current folder: {e}")))?;
    let root = project::source_root(&cwd);
    let root_real = std::fs::canonicalize(&root).unwrap_or(root.clone());
    let root_uri = planc::project::encode_uri_path(&root_real.to_string_lossy().replace('\\', "/"));
    let root_uri = if root_uri.starts_with('/') {
        format!("file://{root_uri}/")
    } else {
        format!("file:///{root_uri}/")
    };
    let uris = sources
        .files()
        .filter(|f| f.name != "<stdin>")
        .map(|f| (f.id, project::artifact_uri(&root, &cwd, &f.name)))
        .collect();
    Ok(render::SarifOptions {
        root_uri: Some(root_uri),
        uris,
        include_notes: options.include_notes,
    })
}

/// 1 when there are errors (or warnings under `--deny-warnings`), else 0.
pub fn status(diagnostics: &[planc::Diagnostic], options: &Options) -> ExitCode {
    let (errors, warnings) = counts(diagnostics);
    if errors > 0 || (options.deny_warnings && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes a command's output to `OUT` (atomically) or standard output.
pub fn emit(output: Option<&Path>, text: &str, what: &str) -> Result<(), Failure> {
    emit_with(output, what, &mut |out| out.write_all(text.as_bytes()))
}

/// [`emit`] of what `write` writes, through a buffer, without the whole
/// text in memory.
pub fn emit_with(
    output: Option<&Path>,
    what: &str,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    match output {
        Some(path) => project::write_atomic_with(path, write).map_err(Failure),
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            write(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| Failure(format!("cannot write {what}: {e}")))
        }
    }
}

/// Prints what stops a command that reads plans and records (errors and
/// warnings, not the plans' notes), and says whether it may go on.
pub fn report_blocking(
    job: &Job,
    diagnostics: &[planc::Diagnostic],
    options: &Options,
) -> Result<bool, Failure> {
    let mut blocking: Vec<planc::Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.severity != planc::Severity::Note)
        .cloned()
        .collect();
    planc::diagnostics::sort(&mut blocking);
    if !blocking.is_empty() {
        report(job, &blocking, options, false)?;
    }
    Ok(status(&blocking, options) == ExitCode::SUCCESS)
}

/// Writes a command's result to standard output.
pub fn print_result(text: &str) -> Result<(), Failure> {
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| Failure(format!("cannot write the result: {e}")))
}

/// Prints the diagnostics of files read outside a job (`planc fmt`) in the
/// chosen format, on stderr: standard output carries the command's result.
pub fn report_files(
    sources: &planc::SourceMap,
    diagnostics: &[planc::Diagnostic],
    format: Format,
    color: Color,
) {
    match format {
        Format::Human => report_human(sources, diagnostics, color),
        Format::Short => eprint!("{}", render::short(sources, diagnostics)),
        Format::Json => eprint!("{}", render::json(sources, diagnostics)),
        Format::Sarif => eprint!(
            "{}",
            render::sarif(sources, diagnostics, &render::SarifOptions::default())
        ),
    }
}

/// Prints diagnostics as human reports on stderr, with the summary line.
pub fn report_human(sources: &planc::SourceMap, diagnostics: &[planc::Diagnostic], color: Color) {
    let stderr = std::io::stderr();
    let mut w = std::io::BufWriter::new(stderr.lock());
    // Nothing more can be said when stderr cannot be written.
    let _ = render::human_to(&mut w, sources, diagnostics, color.on_stderr())
        .and_then(|()| writeln!(w, "{}", render::summary(diagnostics)))
        .and_then(|()| w.flush());
}
