//! The `planc` command line: a thin shell over the library. It reads files,
//! finds `planc.toml`, runs the pipeline and prints diagnostics or IR; all
//! the compiling happens in the library.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use planc::diagnostics::{counts, render};
use planc::driver::{self, Job, Outcome};
use planc::project::{self, Config};
use planc::{Code, SourceKind};

/// `planc run`: the shell around the library's executor.
#[path = "cli/run.rs"]
mod run;

/// A compilation allocates many small values (names, nodes, diagnostics)
/// and frees them all at once; mimalloc does both about twice as fast as
/// the system allocator here, which halves the language server's time from
/// an edit to its diagnostics on a long plan (`tests/lsp_e2e.rs`).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// planc: checks plans written by agent planners against a tool catalogue
/// and an authorization policy, and compiles them to an IR executors run.
#[derive(Parser)]
#[command(name = "planc", version, about, long_about = None, after_long_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The end of `planc --help` and of the man page.
const AFTER_HELP: &str = "\
Exit status: 0 when there is no error (warnings allowed unless --deny-warnings), \
1 when the input has errors, 2 when the command itself failed (bad flags, \
unreadable file, bad planc.toml).

The catalogue, policy and actor come from the flags or, failing those, from \
the planc.toml found in the plan's folder or above it (the current folder for \
standard input).

Colour: reports on a terminal are coloured unless NO_COLOR is set to a \
non-empty value or TERM is `dumb`; --color always|never decides instead.";

#[derive(Subcommand)]
enum Command {
    /// Check plans and report diagnostics.
    Check {
        /// Plan files (`.plan` text or `.json`); `-` reads standard input,
        /// whose format is told from its content.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Check the plans as replans against this progress record: its
        /// complete steps' artifacts are in scope, steps that already ran
        /// are reused, committed effects are not repeated. Replaces the
        /// `progress` of `planc.toml`.
        #[arg(long, value_name = "RECORD")]
        progress: Option<PathBuf>,
        #[command(flatten)]
        options: Options,
    },
    /// Check a plan and write its IR (JSON) to standard output or a file.
    Compile {
        /// The plan file (`.plan` text or `.json`); `-` reads standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Write the IR here instead of standard output.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Compile the plan as a replan against this progress record: the
        /// IR then says which steps are reused and which recorded artifacts
        /// the plan takes (`progress`, `reuse`). Replaces the `progress` of
        /// `planc.toml`.
        #[arg(long, value_name = "RECORD")]
        progress: Option<PathBuf>,
        /// Indent the IR for people. By default it is indented only on a
        /// terminal, and written on one line to a pipe or a file.
        #[arg(long)]
        pretty: bool,
        #[command(flatten)]
        options: Options,
    },
    /// Print a plan's dependency graph: its waves, each step's classes
    /// (read or write, approval, guard, untrusted input) and each edge's
    /// reasons (data, after, effect). Diagnostics are printed only when
    /// errors leave no graph to draw.
    Graph {
        /// The plan file (`.plan` text or `.json`); `-` reads standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// DOT for Graphviz, or a Mermaid flowchart for Markdown pages.
        #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
        format: GraphFormat,
        /// Write the graph here instead of standard output.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// A progress record of the run: each step's status, and the
        /// invalidated subgraph (what an invalid or failed step's data
        /// reaches).
        #[arg(long, value_name = "FILE")]
        progress: Option<PathBuf>,
        #[command(flatten)]
        inputs: Inputs,
        /// When to colour the report of a plan with errors.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Write the review page of a plan: one self-contained HTML file for the
    /// person who approves it (what it does, what approving means, the
    /// graph, a card per step with the compile's warnings and notes).
    /// Diagnostics are printed only when errors leave nothing to review.
    Review {
        /// The plan file (`.plan` text or `.json`); `-` reads standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Write the page here instead of standard output.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// A progress record of the run: each step's status, and the
        /// invalidated subgraph.
        #[arg(long, value_name = "FILE")]
        progress: Option<PathBuf>,
        /// The plan this one replaces: the page shows the delta (steps
        /// added, removed and changed, field by field).
        #[arg(long, value_name = "OLD")]
        against: Option<PathBuf>,
        #[command(flatten)]
        inputs: Inputs,
        /// When to colour the report of a plan with errors.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Explain a diagnostic code, with a failing and a fixed example; with
    /// no code, list every code with its title.
    Explain {
        /// A code such as E0106.
        code: Option<String>,
    },
    /// Lay out `.plan` files in place: indentation, spacing and line
    /// breaks; nothing but whitespace changes, comments included. With
    /// `--to`, convert one file between the text and JSON forms instead.
    Fmt {
        /// `.plan` files; `-` reads standard input and writes the result
        /// to standard output.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Write nothing: list the files that are not laid out, and exit
        /// with 1 when there are any.
        #[arg(long, conflicts_with = "to")]
        check: bool,
        /// Write nothing: print the changes the layout would make as a
        /// unified diff on standard output, and exit with 1 when there are
        /// any.
        #[arg(long, conflicts_with_all = ["to", "check"])]
        diff: bool,
        /// Convert the file (a plan, a catalogue or a policy, in either
        /// form) to this form, on standard output.
        #[arg(long, value_enum, value_name = "FORM")]
        to: Option<Form>,
        /// When to colour the report of a file that does not parse.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Run the language server on standard input and output. The flags
    /// replace, for every plan, what `planc.toml` names.
    Lsp {
        /// A catalogue file; repeatable.
        #[arg(long = "catalog", value_name = "FILE")]
        catalog: Vec<PathBuf>,
        /// The policy file.
        #[arg(long, value_name = "FILE")]
        policy: Option<PathBuf>,
        /// The actor's scopes, comma-separated.
        #[arg(long, value_name = "SCOPE,...", value_delimiter = ',')]
        actor: Option<Vec<String>>,
        /// Speak LSP over standard input and output: the only transport,
        /// accepted for clients that pass it.
        #[arg(long)]
        stdio: bool,
    },
    /// Run a plan: call its tools in dependency order through a backend,
    /// checking guards, postconditions and binds, and record its progress.
    /// Exit status: 0 complete; 1 halted, refused or failed; 2 the command
    /// failed (nothing ran); 3 stopped for a replan or an escalation.
    Run {
        /// The plan (`.plan` or `.json`, compiled against the catalogue and
        /// policy as `planc compile` would) or its IR (a JSON file with
        /// `ir_version`).
        #[arg(value_name = "PLAN")]
        plan: PathBuf,
        /// The progress record: read when it exists (complete steps are not
        /// run again), replaced atomically after every step.
        #[arg(long, value_name = "FILE")]
        progress: Option<PathBuf>,
        /// The tool backend: `fixture:FILE` (recorded responses) or
        /// `mcp:COMMAND ARGS...` (an MCP server over stdio). Replaces the
        /// `[run] tools` of `planc.toml`.
        #[arg(long, value_name = "BACKEND")]
        tools: Option<String>,
        /// Approve these steps (those the IR lists under `approvals`).
        #[arg(
            long,
            value_name = "STEP,...",
            value_delimiter = ',',
            conflicts_with = "approve_all"
        )]
        approve: Vec<String>,
        /// Approve every step that needs approval: the plan as a whole.
        #[arg(long)]
        approve_all: bool,
        /// Append the trace here, one JSON object per line.
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// How long one tool call may take, in seconds, before it fails
        /// with `timeout` (MCP backends).
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        #[command(flatten)]
        options: Options,
    },
    /// Say what an event during a run invalidates: each step's status
    /// before and after, whether it is reusable, and the repair scope.
    Invalidate {
        /// The plan that ran (`.plan` text or `.json`).
        #[arg(value_name = "PLAN")]
        file: PathBuf,
        /// The run's progress record.
        #[arg(long, value_name = "FILE")]
        progress: PathBuf,
        /// `precondition:STEP`, `failed:STEP`, `changed:ARTIFACT` or `goal`.
        #[arg(long, value_name = "EVENT")]
        event: String,
        #[command(flatten)]
        options: Options,
    },
    /// Compare two plans step by step (matched by name): added, removed,
    /// changed (field by field), unchanged; with a progress record, which
    /// changed or removed steps had completed and which are reused.
    Diff {
        /// The plan before the replan.
        #[arg(value_name = "OLD")]
        old: PathBuf,
        /// The plan after it.
        #[arg(value_name = "NEW")]
        new: PathBuf,
        /// The run's progress record.
        #[arg(long, value_name = "FILE")]
        progress: Option<PathBuf>,
        #[command(flatten)]
        options: Options,
    },
    /// Print a JSON Schema of the JSON plan form, specialised to the
    /// catalogue, the policy and the actor: the tools the actor may call,
    /// each with its arguments, for a planner's structured output.
    /// `planc.toml` is looked for from the current folder.
    Schema {
        #[command(flatten)]
        inputs: Inputs,
        /// The flavour of JSON Schema.
        #[arg(long, value_enum, default_value_t = SchemaDialect::JsonSchema)]
        dialect: SchemaDialect,
        /// Wrap the schema as a `submit_plan` tool definition in the
        /// dialect's vendor format.
        #[arg(long, value_enum, value_name = "AS")]
        wrap: Option<Wrap>,
        /// When to colour reports of problems in the catalogue or policy.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Print a completion script for a shell, to be sourced by it or saved
    /// where it looks for completions.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page planc(1) in roff; with `--dir`, write it and
    /// one page per command (planc-check.1, ...) into that folder.
    Man {
        /// The folder to write the pages into.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SchemaDialect {
    /// JSON Schema 2020-12.
    JsonSchema,
    /// OpenAI strict structured outputs.
    Openai,
    /// An Anthropic tool's `input_schema`.
    Anthropic,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Wrap {
    /// A `submit_plan` tool definition.
    Tool,
}

/// Where the catalogue, the policy and the actor come from.
#[derive(clap::Args)]
struct Inputs {
    /// A catalogue file: `tool` declarations, an MCP `tools/list` result or
    /// OpenAI function tools; repeatable. Replaces the `catalog` of
    /// `planc.toml`.
    #[arg(long = "catalog", value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// The policy file (`.plan` or `.json`). Replaces the `policy` of
    /// `planc.toml`.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// The actor's scopes, comma-separated. Replace those of `planc.toml`
    /// and of the policy's `actor` line.
    #[arg(long, value_name = "SCOPE,...", value_delimiter = ',')]
    actor: Option<Vec<String>>,
    /// Ignore every `planc.toml`: the catalogue, policy and actor come
    /// from the flags alone (with none, each plan file holds its own).
    #[arg(long)]
    no_config: bool,
}

#[derive(clap::Args)]
struct Options {
    #[command(flatten)]
    inputs: Inputs,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Treat warnings as errors for the exit status.
    #[arg(long)]
    deny_warnings: bool,
    /// With `--format sarif`: keep the notes (N-codes), which are left out
    /// of SARIF logs by default.
    #[arg(long)]
    include_notes: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Reports with the source shown and labelled (on stderr).
    Human,
    /// One line per diagnostic: `file:line:col: severity[CODE]: message` (on stderr).
    Short,
    /// One JSON document: `{"diagnostics": [...], "errors": N, "warnings": N}`
    /// (on stdout for `check`, on stderr for `compile`).
    Json,
    /// SARIF 2.1.0, for code-scanning dashboards (like `json`).
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GraphFormat {
    /// Graphviz's DOT language (`dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Form {
    /// The text form (`.plan`), laid out.
    Plan,
    /// The JSON form: the JSON plan shape, an MCP `tools/list` result, or
    /// the JSON policy shape.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

impl Color {
    /// Whether reports on stderr are coloured: `auto` colours a terminal
    /// unless the environment asks for none.
    fn on_stderr(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stderr().is_terminal()
                    && colour_allowed(
                        std::env::var_os("NO_COLOR").as_deref(),
                        std::env::var_os("TERM").as_deref(),
                    )
            }
        }
    }
}

/// Whether the environment lets a terminal be coloured: not when `NO_COLOR`
/// is set to a non-empty value (an empty one is as if unset, as the
/// convention says), nor when `TERM` is `dumb`.
fn colour_allowed(no_color: Option<&std::ffi::OsStr>, term: Option<&std::ffi::OsStr>) -> bool {
    let no_color = no_color.is_some_and(|v| !v.is_empty());
    let dumb = term.is_some_and(|t| t == "dumb");
    !no_color && !dumb
}

/// Exit status 2: the command itself failed (bad flags, unreadable file,
/// bad `planc.toml`, catalogue or policy file missing), as opposed to the
/// input having errors (1).
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
        Command::Check {
            files,
            progress,
            options,
        } => check(&files, progress.as_deref(), &options),
        Command::Compile {
            file,
            output,
            progress,
            pretty,
            options,
        } => compile(
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
        } => graph(
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
        } => review(
            &file,
            output.as_deref(),
            &View {
                progress: progress.as_deref(),
                against: against.as_deref(),
                inputs: &inputs,
                color,
            },
        ),
        Command::Explain { code: Some(code) } => explain(&code),
        Command::Explain { code: None } => explain_all(),
        Command::Fmt {
            files,
            to: Some(form),
            color,
            ..
        } => convert(&files, form, color),
        Command::Fmt {
            files,
            check,
            diff,
            to: None,
            color,
        } => {
            let mode = match (check, diff) {
                (_, true) => FmtMode::Diff,
                (true, false) => FmtMode::Check,
                (false, false) => FmtMode::Write,
            };
            fmt(&files, mode, color)
        }
        Command::Run {
            plan,
            progress,
            tools,
            approve,
            approve_all,
            trace,
            timeout,
            options,
        } => run::run(
            &plan,
            &run::RunOptions {
                progress,
                tools,
                approve,
                approve_all,
                trace,
                timeout,
            },
            &options,
        ),
        Command::Diff {
            old,
            new,
            progress,
            options,
        } => diff(&old, &new, progress.as_deref(), &options),
        Command::Invalidate {
            file,
            progress,
            event,
            options,
        } => invalidate(&file, &progress, &event, &options),
        Command::Schema {
            inputs,
            dialect,
            wrap,
            color,
        } => schema(
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
        } => lsp(catalog, policy, actor),
        Command::Completions { shell } => completions(shell),
        Command::Man { dir } => man(dir.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(Failure(msg)) => {
            eprintln!("planc: error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Builds the job: the plan files, then the catalogue, policy and actor of
/// the flags or, failing those, of the `planc.toml` found from the first
/// plan's folder (the current folder for stdin).
fn load(files: &[PathBuf], options: &Inputs) -> Result<Job, Failure> {
    let mut job = Job::default();
    let start = match files.first() {
        Some(p) if p != Path::new("-") => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => PathBuf::new(),
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    // `planc.toml` is not consulted at all under `--no-config`, nor when the
    // flags name both the catalogue and the policy: a file in a parent
    // folder must not widen the actor of a check whose inputs were given.
    let both_given = !options.catalog.is_empty() && options.policy.is_some();
    let consult = !options.no_config && !both_given;
    let found = if consult {
        project::discover(&start).map_err(Failure)?
    } else {
        None
    };
    job.config = found.as_ref().map(|c| display_path(&c.path));
    let Config {
        catalog,
        policy,
        actor,
        ..
    } = found.unwrap_or_default();

    let mut stdin_used = false;
    for path in files {
        let id = if path == Path::new("-") {
            if stdin_used {
                return Err(Failure("standard input (`-`) given twice".into()));
            }
            stdin_used = true;
            let bytes = stdin_bytes()?;
            add_text(&mut job, "<stdin>".into(), bytes, None)
        } else {
            add_file(&mut job, path)?
        };
        job.plans.push(id);
    }
    let catalog = if options.catalog.is_empty() {
        catalog
    } else {
        options.catalog.clone()
    };
    for path in &catalog {
        let id = add_file(&mut job, path)?;
        job.catalog.push(id);
    }
    if let Some(path) = options.policy.clone().or(policy) {
        let id = add_file(&mut job, &path)?;
        job.policy.push(id);
    }
    job.actor = options.actor.clone().or(actor);
    Ok(job)
}

/// Adds the progress record a replan is checked against: `--progress`,
/// else the `progress` of the `planc.toml` the job was configured from.
fn with_progress(job: &mut Job, first: Option<&Path>, flag: Option<&Path>) -> Result<(), Failure> {
    let path = match flag {
        Some(p) => Some(p.to_path_buf()),
        None if job.config.is_some() => config_for(&start_folder(first))?.progress,
        None => None,
    };
    if let Some(path) = path {
        let name = display_path(&path);
        let bytes = project::read_bytes(&path).map_err(Failure)?;
        job.progress = Some(add_text(job, name, bytes, Some(SourceKind::Json)));
    }
    Ok(())
}

/// The folder `planc.toml` is looked for from: the file's, or the current
/// folder for standard input.
fn start_folder(file: Option<&Path>) -> PathBuf {
    let start = match file {
        Some(p) if p != Path::new("-") => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => PathBuf::new(),
    };
    if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    }
}

/// The `planc.toml` that applies to files in `start` (a folder), or the
/// defaults.
fn config_for(start: &Path) -> Result<Config, Failure> {
    Ok(project::discover(start)
        .map_err(Failure)?
        .unwrap_or_default())
}

/// Adds a file once: a file named twice (as a plan and in `planc.toml`'s
/// catalogue, say) is read once and keeps its first role.
fn add_file(job: &mut Job, path: &Path) -> Result<planc::FileId, Failure> {
    let name = display_path(path);
    if let Some(existing) = job.sources.files().find(|f| f.name == name) {
        return Ok(existing.id);
    }
    let bytes = project::read_bytes(path).map_err(Failure)?;
    let kind = SourceKind::from_name(&name);
    Ok(add_text(job, name, bytes, Some(kind)))
}

/// Adds an input's bytes to the job in the given form (told from the
/// content when `None`). Bytes that are not UTF-8 are added up to the
/// first invalid byte, and that byte is an E0002 the run reports.
fn add_text(
    job: &mut Job,
    name: String,
    bytes: Vec<u8>,
    kind: Option<SourceKind>,
) -> planc::FileId {
    match project::decode_text(bytes) {
        Ok(text) => {
            let kind = kind.unwrap_or_else(|| SourceKind::sniff(&text));
            job.sources.add_with_kind(name, text, kind)
        }
        Err(bad) => {
            let kind = kind.unwrap_or_else(|| SourceKind::sniff(&bad.valid));
            let id = job
                .sources
                .add_with_kind(name.clone(), bad.valid.clone(), kind);
            job.unreadable.push(bad.diagnostic(id, &name));
            id
        }
    }
}

/// Paths are shown as the user gave them, with `/` separators.
fn display_path(path: &Path) -> String {
    project::normalize(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Prints the diagnostics in the chosen format. Human and short reports go
/// to stderr, as a compiler's do; the JSON and SARIF documents go to stdout
/// unless stdout carries something else (`compile`'s IR).
fn report(
    job: &Job,
    diagnostics: &[planc::Diagnostic],
    options: &Options,
    stdout_free: bool,
) -> Result<(), Failure> {
    let (text, machine) = match options.format {
        Format::Human => {
            let mut s = render::human(&job.sources, diagnostics, options.color.on_stderr());
            if !diagnostics.is_empty() {
                s.push_str(&render::summary(diagnostics));
                s.push('\n');
            }
            if let Some(config) = &job.config {
                s.push_str(&format!("checked with the configuration of `{config}`\n"));
            }
            (s, false)
        }
        Format::Short => (render::short(&job.sources, diagnostics), false),
        Format::Json => (
            render::json_with_config(&job.sources, diagnostics, job.config.as_deref()),
            true,
        ),
        Format::Sarif => (
            render::sarif(&job.sources, diagnostics, &sarif_options(job, options)?),
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

/// `planc lsp`: the flags' paths made absolute (the server resolves every
/// path itself), then the server over stdio.
fn lsp(
    catalog: Vec<PathBuf>,
    policy: Option<PathBuf>,
    actor: Option<Vec<String>>,
) -> Result<ExitCode, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure(format!("cannot read the current folder: {e}")))?;
    let absolute = |p: PathBuf| project::normalize(&cwd.join(p));
    for path in catalog.iter().chain(policy.iter()) {
        if !absolute(path.clone()).is_file() {
            return Err(Failure(format!(
                "cannot read `{}`: no such file",
                path.display()
            )));
        }
    }
    let overrides = planc::lsp::Overrides {
        catalog: catalog.into_iter().map(absolute).collect(),
        policy: policy.map(absolute),
        actor,
    };
    planc::lsp::run_stdio(overrides)
        .map(|()| ExitCode::SUCCESS)
        .map_err(Failure)
}

/// Where the SARIF log's files are: `%SRCROOT%` is the root of the git
/// repository around the current folder (else the current folder), and
/// each file's URI is relative to it whatever path it was given by.
fn sarif_options(job: &Job, options: &Options) -> Result<render::SarifOptions, Failure> {
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
    let uris = job
        .sources
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
fn status(diagnostics: &[planc::Diagnostic], options: &Options) -> ExitCode {
    let (errors, warnings) = counts(diagnostics);
    if errors > 0 || (options.deny_warnings && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(
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

fn compile(
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
fn one_plan<'i>(
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

/// Writes a command's output to `OUT` (atomically) or standard output.
fn emit(output: Option<&Path>, text: &str, what: &str) -> Result<(), Failure> {
    match output {
        Some(path) => project::write_atomic(path, text.as_bytes()).map_err(Failure),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| Failure(format!("cannot write {what}: {e}"))),
    }
}

/// One plan compiled for a view of it (`graph`, `review`).
struct Compiled {
    job: Job,
    outcome: Outcome,
    ir: planc::ir::PlanIr,
    /// The plan's position among the file's plans (and their models).
    index: usize,
}

/// Compiles one plan for a view of it: its IR, its model and the compile's
/// diagnostics. A plan with errors is reported on stderr and yields
/// `Err(status 1)`.
fn compile_for_view(
    file: &Path,
    inputs: &Inputs,
    color: Color,
) -> Result<Result<Compiled, ExitCode>, Failure> {
    let mut job = load(&[file.to_path_buf()], inputs)?;
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
fn record_for_view(
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

fn graph(
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
struct View<'a> {
    progress: Option<&'a Path>,
    against: Option<&'a Path>,
    inputs: &'a Inputs,
    color: Color,
}

fn review(file: &Path, output: Option<&Path>, view: &View<'_>) -> Result<ExitCode, Failure> {
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

/// What `planc fmt` does with a file whose layout differs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FmtMode {
    /// Rewrite it (standard input: print the result).
    Write,
    /// Name it on standard output.
    Check,
    /// Print the change as a unified diff on standard output.
    Diff,
}

/// Reads a progress record into the job's sources (so its diagnostics
/// render like any file's): the record when it has no errors, and its
/// diagnostics.
fn load_record(
    job: &mut Job,
    path: &Path,
) -> Result<
    (
        Option<planc::progress::ProgressRecord>,
        Vec<planc::Diagnostic>,
    ),
    Failure,
> {
    let name = display_path(path);
    let bytes = project::read_bytes(path).map_err(Failure)?;
    let before = job.unreadable.len();
    let id = add_text(job, name, bytes, Some(SourceKind::Json));
    if job.unreadable.len() > before {
        return Ok((None, job.unreadable.split_off(before)));
    }
    let read = driver::read_progress(&mut job.sources, id);
    Ok((read.record, read.diagnostics))
}

/// Prints what stops a command that reads plans and records (errors and
/// warnings, not the plans' notes), and says whether it may go on.
fn report_blocking(
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
fn print_result(text: &str) -> Result<(), Failure> {
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| Failure(format!("cannot write the result: {e}")))
}

/// `planc diff OLD NEW [--progress P]`: both plans compiled, matched by
/// step name; the delta as text or as JSON on standard output.
fn diff(
    old: &Path,
    new: &Path,
    progress: Option<&Path>,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let mut irs = Vec::new();
    for file in [old, new] {
        let mut job = load(&[file.to_path_buf()], &options.inputs)?;
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
            let (record, diags) = load_record(&mut job, p)?;
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
    } else {
        planc::progress::diff::render_human(&d)
    };
    print_result(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `planc invalidate PLAN --progress P --event EVENT`: the plan compiled,
/// the record read, the event applied; the result as a table or as JSON on
/// standard output. Errors in the plan or the record are reported (1).
fn invalidate(
    file: &Path,
    progress: &Path,
    event: &str,
    options: &Options,
) -> Result<ExitCode, Failure> {
    let event = planc::progress::Event::parse(event).map_err(Failure)?;
    let mut job = load(&[file.to_path_buf()], &options.inputs)?;
    let outcome = driver::run(&mut job);
    let (record, record_diags) = load_record(&mut job, progress)?;
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

/// Lays out each file. A file that does not parse is reported and left
/// alone (status 1); a JSON file, an unreadable one or a layout that would
/// change more than whitespace stops the command (status 2). `--check` and
/// `--diff` write nothing and exit with 1 when a file is not laid out.
fn fmt(files: &[PathBuf], mode: FmtMode, color: Color) -> Result<ExitCode, Failure> {
    let mut code = ExitCode::SUCCESS;
    for path in files {
        let stdin = path == Path::new("-");
        let (name, text, kind) = read_input(path)?;
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
                report_human(&sources, &diagnostics, color);
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

/// Standard input's bytes.
fn stdin_bytes() -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| Failure(format!("cannot read standard input: {e}")))?;
    Ok(bytes)
}

/// Standard input, decoded, and its form told from its content.
fn read_stdin() -> Result<(String, SourceKind), Failure> {
    let text = project::decode("<stdin>", stdin_bytes()?).map_err(Failure)?;
    let kind = SourceKind::sniff(&text);
    Ok((text, kind))
}

/// A file for `planc fmt`, or standard input for `-`: its name, text and
/// form (from the name, or from the content for standard input).
fn read_input(path: &Path) -> Result<(String, String, SourceKind), Failure> {
    if path == Path::new("-") {
        let (text, kind) = read_stdin()?;
        Ok(("<stdin>".to_string(), text, kind))
    } else {
        let name = display_path(path);
        let text = project::read_source(path).map_err(Failure)?;
        let kind = SourceKind::from_name(&name);
        Ok((name, text, kind))
    }
}

/// Prints diagnostics as human reports on stderr, with the summary line.
fn report_human(sources: &planc::SourceMap, diagnostics: &[planc::Diagnostic], color: Color) {
    let mut s = render::human(sources, diagnostics, color.on_stderr());
    s.push_str(&render::summary(diagnostics));
    s.push('\n');
    eprint!("{s}");
}

/// `planc fmt --to FORM FILE`: the file read in its form (a JSON document
/// as a plan, a catalogue or a policy, told apart by its keys) and written
/// in the other, on standard output. A file with syntax errors, or holding
/// what the other form cannot express, is reported (status 1).
fn convert(files: &[PathBuf], form: Form, color: Color) -> Result<ExitCode, Failure> {
    let [path] = files else {
        return Err(Failure(format!(
            "`--to` converts one file at a time ({} given)",
            files.len()
        )));
    };
    let (name, text, kind) = read_input(path)?;
    let mut sources = planc::SourceMap::new();
    let id = sources.add_with_kind(name, text, kind);
    let (mut module, diagnostics) = driver::parse(&mut sources, id, driver::Role::Plan);
    if diagnostics
        .iter()
        .any(|d| d.severity == planc::Severity::Error)
    {
        report_human(&sources, &diagnostics, color);
        return Ok(ExitCode::from(1));
    }
    if form == Form::Plan
        && let Some(catalog) = catalogue_near(path)
    {
        planc::fmt::convert::make_explicit(&mut module, &catalog);
    }
    let converted = match form {
        Form::Json => planc::fmt::convert::to_json(&module),
        // Laid out as `planc fmt` would, when the layout takes it.
        Form::Plan => planc::fmt::convert::to_text(&module)
            .map(|t| planc::fmt::layout::layout(&t).unwrap_or(t)),
    };
    match converted {
        Ok(out) => {
            std::io::stdout()
                .write_all(out.as_bytes())
                .map_err(|e| Failure(format!("cannot write the result: {e}")))?;
            if form == Form::Json
                && let Some(f) = sources.get(id).filter(|f| f.kind == SourceKind::Text)
            {
                let left_out = planc::fmt::convert::left_out_of_json(&f.text, &module);
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
        Err(e) => {
            let (file, at) = match sources.get(e.span.file) {
                Some(f) => (f.name.as_str(), f.line_col(e.span.start)),
                None => ("", Default::default()),
            };
            eprintln!("{file}:{}:{}: error: {}", at.line, at.column, e.message);
            Ok(ExitCode::from(1))
        }
    }
}

/// The catalogue of the `planc.toml` found from `path`'s folder (the
/// current folder for standard input), built from its files; `None` when
/// there is none, or it cannot be read whole (conversion then goes on
/// without it).
fn catalogue_near(path: &Path) -> Option<planc::catalog::Catalog> {
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

/// `planc schema`: loads the catalogue and policy as `check` does (from
/// the flags, else the `planc.toml` found from the current folder), and
/// prints the specialised schema. Problems in the catalogue or policy are
/// reported and no schema is printed (status 1).
fn schema(
    options: &Options,
    dialect: SchemaDialect,
    wrap: Option<Wrap>,
) -> Result<ExitCode, Failure> {
    use planc::plan_schema::{self, Dialect};
    let mut job = load(&[], &options.inputs)?;
    if job.catalog.is_empty() {
        return Err(Failure(
            "no catalogue: pass `--catalog FILE` or name one in `planc.toml`".into(),
        ));
    }
    let outcome = driver::run(&mut job);
    if outcome.has_errors() {
        report(&job, &outcome.diagnostics, options, false)?;
        return Ok(ExitCode::from(1));
    }
    let dialect = match dialect {
        SchemaDialect::JsonSchema => Dialect::JsonSchema,
        SchemaDialect::Openai => Dialect::OpenAi,
        SchemaDialect::Anthropic => Dialect::Anthropic,
    };
    let checked = &outcome.checked;
    let schema = plan_schema::plan_schema(
        &checked.catalog,
        checked.policy.as_ref(),
        &checked.actor,
        dialect,
    )
    .map_err(Failure)?;
    let out = match wrap {
        Some(Wrap::Tool) => plan_schema::submit_plan_tool(schema, dialect),
        None => schema,
    };
    let mut text = serde_json::to_string_pretty(&out)
        .map_err(|e| Failure(format!("cannot write the schema: {e}")))?;
    text.push('\n');
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| Failure(format!("cannot write the schema: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `planc explain` with no code: every code, its severity and its title,
/// one a line.
fn explain_all() -> Result<ExitCode, Failure> {
    let mut out = String::new();
    for &code in Code::ALL {
        let severity = code.severity().as_str();
        out.push_str(&format!(
            "{}  {severity:<7}  {}\n",
            code.as_str(),
            code.title()
        ));
    }
    out.push_str(
        "\n`planc explain CODE` prints a code's page, with a failing and a fixed example.\n",
    );
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| Failure(format!("cannot write the list: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `planc completions SHELL`: the completion script, from the clap
/// definitions above.
fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "planc", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Failure(format!("cannot write the completions: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `planc man`: planc(1) on standard output, or with a folder, planc(1)
/// and a page per command (`planc-check.1`, ...) written into it.
fn man(dir: Option<&Path>) -> Result<ExitCode, Failure> {
    let render = |cmd: clap::Command| {
        let page = clap_mangen::Man::new(cmd);
        let mut out = Vec::new();
        page.render(&mut out)
            .map(|()| (page.get_filename(), out))
            .map_err(|e| Failure(format!("cannot render the manual page: {e}")))
    };
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = dir else {
        let (_, page) = render(cmd)?;
        std::io::stdout()
            .write_all(&page)
            .map_err(|e| Failure(format!("cannot write the manual page: {e}")))?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("cannot create `{}`: {e}", dir.display())))?;
    let mut commands: Vec<clap::Command> = cmd.get_subcommands().cloned().collect();
    commands.push(cmd);
    for command in commands {
        let (name, page) = render(command)?;
        project::write_atomic(&dir.join(name), &page).map_err(Failure)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn explain(code: &str) -> Result<ExitCode, Failure> {
    let Some(code) = Code::parse(code) else {
        return Err(Failure(format!(
            "`{code}` is not a planc diagnostic code (they look like E0106, W0401 or N0302)"
        )));
    };
    print!("{}", planc::diagnostics::explain::page(code));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn colour_follows_no_color_and_term() {
        assert!(colour_allowed(None, None));
        assert!(colour_allowed(None, Some(OsStr::new("xterm-256color"))));
        // An empty NO_COLOR is as if it were unset.
        assert!(colour_allowed(
            Some(OsStr::new("")),
            Some(OsStr::new("xterm"))
        ));
        assert!(!colour_allowed(
            Some(OsStr::new("1")),
            Some(OsStr::new("xterm"))
        ));
        assert!(!colour_allowed(None, Some(OsStr::new("dumb"))));
    }

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
