//! The `planc` command line: each command's handler in its own module,
//! over the library; `main.rs` parses the arguments and calls [`dispatch`].

use std::process::ExitCode;

pub mod args;
mod check;
mod docs;
mod fmt;
mod load;
mod lsp;
mod progress;
mod report;
/// `planc run`: the shell around the library's executor.
mod run;
mod schema;
mod view;

pub use args::Cli;
use args::{Command, Format, Options};
use fmt::FmtMode;
use view::View;

/// Exit status 2: the command itself failed (bad flags, unreadable file,
/// bad `planc.toml`, catalogue or policy file missing), as opposed to the
/// input having errors (1).
pub struct Failure(pub String);

/// Runs the command the arguments name.
pub fn dispatch(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::Check {
            files,
            progress,
            lenient,
            options,
        } => check::check(&files, progress.as_deref(), lenient, &options),
        Command::Compile {
            file,
            output,
            progress,
            pretty,
            options,
        } => check::compile(
            &file,
            output.as_deref(),
            progress.as_deref(),
            pretty,
            &options,
        ),
        Command::Graph {
            file,
            format,
            output,
            progress,
            inputs,
            color,
        } => view::graph(
            &file,
            format,
            output.as_deref(),
            progress.as_deref(),
            &inputs,
            color,
        ),
        Command::Review {
            file,
            output,
            progress,
            against,
            inputs,
            color,
        } => view::review(
            &file,
            output.as_deref(),
            &View {
                progress: progress.as_deref(),
                against: against.as_deref(),
                inputs: &inputs,
                color,
            },
        ),
        Command::Explain { code: Some(code) } => docs::explain(&code),
        Command::Explain { code: None } => docs::explain_all(),
        Command::Fmt {
            files,
            to: Some(form),
            format,
            color,
            ..
        } => fmt::convert(&files, form, format, color),
        Command::Fmt {
            files,
            check,
            diff,
            to: None,
            format,
            color,
        } => {
            let mode = match (check, diff) {
                (_, true) => FmtMode::Diff,
                (true, false) => FmtMode::Check,
                (false, false) => FmtMode::Write,
            };
            fmt::fmt(&files, mode, format, color)
        }
        Command::Run(args) => run::run(&args),
        Command::Diff {
            old,
            new,
            progress,
            options,
        } => progress::diff(&old, &new, progress.as_deref(), &options),
        Command::Invalidate {
            file,
            progress,
            event,
            options,
        } => progress::invalidate(&file, &progress, &event, &options),
        Command::Schema { inputs, .. } if inputs.record_key.is_some() => Err(Failure(
            "`planc schema` reads no progress record: `--record-key` has nothing to verify".into(),
        )),
        Command::Schema {
            inputs,
            dialect,
            wrap,
            color,
        } => schema::schema(
            &Options {
                inputs,
                format: Format::Human,
                color,
                deny_warnings: false,
                include_notes: false,
            },
            dialect,
            wrap,
        ),
        Command::Lsp {
            catalog,
            policy,
            actor,
            stdio: _,
        } => lsp::lsp(catalog, policy, actor),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { dir } => docs::man(dir.as_deref()),
    }
}
