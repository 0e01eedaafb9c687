//! The `planc` command line: a thin shell over the library. It reads files,
//! finds `planc.toml`, runs the pipeline and prints diagnostics; all the
//! compiling happens in the library.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use planc::diagnostics::render;
use planc::driver::{self, Job};
use planc::project::{self, Config};
use planc::{Code, SourceKind};

/// planc: checks plans written by agent planners against a tool catalogue
/// and an authorization policy.
#[derive(Parser)]
#[command(name = "planc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check plans and report diagnostics.
    ///
    /// In this build `check` reports syntax only: the lexer and the
    /// recovering parser run over every file, the checker (types, references,
    /// ordering, policy) does not exist yet.
    Check(CheckArgs),
    /// Explain a diagnostic code, with a failing and a fixed example.
    Explain {
        /// A code such as E0106.
        code: String,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Plan files (`.plan` text); `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A catalogue file of `tool` declarations; repeatable. Overrides the
    /// `catalog` of `planc.toml`.
    #[arg(long = "catalog", value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// The policy file. Overrides the `policy` of `planc.toml`.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// The actor's scopes, comma-separated. Overrides `planc.toml` and the
    /// policy's `actor` line.
    #[arg(long, value_name = "SCOPE,...", value_delimiter = ',')]
    actor: Option<Vec<String>>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Treat warnings as errors for the exit status.
    #[arg(long)]
    deny_warnings: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Reports with the source shown and labelled.
    Human,
    /// One line per diagnostic: `file:line:col: severity[CODE]: message`.
    Short,
    /// One JSON document for programs: `{"diagnostics": [...], "errors": N, "warnings": N}`.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// Exit status 2: the command itself failed (bad flags, unreadable file,
/// bad `planc.toml`), as opposed to the input having errors (1).
struct Failure(String);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Check(args) => check(args),
        Command::Explain { code } => explain(&code),
    };
    match result {
        Ok(code) => code,
        Err(Failure(msg)) => {
            eprintln!("planc: error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> Result<ExitCode, Failure> {
    let mut job = Job::default();
    // The project file is looked for from the first plan's folder (or the
    // current folder for stdin); flags override what it says.
    let first = args.files.first().map(PathBuf::as_path);
    let start = match first {
        Some(p) if p != Path::new("-") => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => PathBuf::from("."),
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    let config = project::discover(&start)
        .map_err(Failure)?
        .unwrap_or_default();
    let Config {
        catalog,
        policy,
        actor,
        ..
    } = config;

    let mut stdin_used = false;
    for path in &args.files {
        let id = if path == Path::new("-") {
            if stdin_used {
                return Err(Failure("standard input (`-`) given twice".into()));
            }
            stdin_used = true;
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure(format!("cannot read standard input: {e}")))?;
            let text = project::decode("<stdin>", bytes).map_err(Failure)?;
            let kind = SourceKind::sniff(&text);
            job.sources.add_with_kind("<stdin>", text, kind)
        } else {
            add_file(&mut job, path)?
        };
        job.plans.push(id);
    }
    let catalog = if args.catalog.is_empty() {
        catalog
    } else {
        args.catalog.clone()
    };
    for path in &catalog {
        let id = add_file(&mut job, path)?;
        job.catalog.push(id);
    }
    if let Some(path) = args.policy.clone().or(policy) {
        let id = add_file(&mut job, &path)?;
        job.policy.push(id);
    }
    job.actor = args.actor.clone().or(actor);

    let outcome = driver::run(&mut job);
    let diagnostics = &outcome.diagnostics;
    let out = match args.format {
        Format::Human => {
            let color = match args.color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            let mut s = render::human(&job.sources, diagnostics, color);
            if !diagnostics.is_empty() {
                s.push_str(&render::summary(diagnostics));
                s.push('\n');
            }
            s
        }
        Format::Short => render::short(&job.sources, diagnostics),
        Format::Json => render::json(&job.sources, diagnostics),
    };
    // Human and short reports go to stderr like a compiler's; the JSON
    // document is the command's output, on stdout.
    let written = match args.format {
        Format::Json => std::io::stdout().write_all(out.as_bytes()),
        _ => std::io::stderr().write_all(out.as_bytes()),
    };
    written.map_err(|e| Failure(format!("cannot write the report: {e}")))?;

    let (errors, warnings) = planc::diagnostics::counts(diagnostics);
    Ok(if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn add_file(job: &mut Job, path: &Path) -> Result<planc::FileId, Failure> {
    let text = project::read_source(path).map_err(Failure)?;
    Ok(job.sources.add(display_path(path), text))
}

/// Paths are shown as the user gave them, with `/` separators.
fn display_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn explain(code: &str) -> Result<ExitCode, Failure> {
    let Some(code) = Code::parse(code) else {
        return Err(Failure(format!(
            "`{code}` is not a planc diagnostic code (they look like E0106, W0401 or N0302)"
        )));
    };
    match planc::diagnostics::explain::page(code) {
        Some(page) => {
            print!("{page}");
            Ok(ExitCode::SUCCESS)
        }
        None => Err(Failure(format!(
            "{code}: {}\n(no explain page is written for {code} yet)",
            code.title()
        ))),
    }
}
