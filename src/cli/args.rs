//! The command line's definitions (clap): the commands, their flags and
//! the value enums, and the colour rule.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// planc: checks plans written by agent planners against a tool catalogue
/// and an authorization policy, and compiles them to an IR executors run.
#[derive(Parser)]
#[command(name = "planc", version, about, long_about = None, after_long_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
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
pub enum Command {
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
        /// Read a JSON plan from inside a model's raw reply: a Markdown
        /// code fence, or text before and after the object, is ignored,
        /// and a warning (W0509) says what was.
        #[arg(long)]
        lenient: bool,
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
        /// How to print the diagnostics of a file that does not parse or
        /// convert (on stderr).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
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
    Run(RunArgs),
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
pub enum SchemaDialect {
    /// JSON Schema 2020-12.
    JsonSchema,
    /// OpenAI strict structured outputs.
    Openai,
    /// An Anthropic tool's `input_schema`.
    Anthropic,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Wrap {
    /// A `submit_plan` tool definition.
    Tool,
}

/// `planc run`'s flags: the one list clap parses and the command reads.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The plan (`.plan` or `.json`): always compiled and checked
    /// against the catalogue and policy as `planc compile` would, with
    /// `--progress` applied to the check as `planc check --progress`
    /// applies it. An IR file runs only with `--ir`.
    #[arg(
        value_name = "PLAN",
        required_unless_present = "ir",
        conflicts_with = "ir"
    )]
    pub plan: Option<PathBuf>,
    /// Run a compiled IR file instead of a plan. It is verified first:
    /// its fingerprint recomputed and its invariants checked against
    /// the configured catalogue and policy (exit 2, nothing runs, when
    /// it was changed after compilation).
    #[arg(long, value_name = "FILE")]
    pub ir: Option<PathBuf>,
    /// The progress record: read when it exists (complete steps are not
    /// run again), replaced atomically after every step.
    #[arg(long, value_name = "FILE")]
    pub progress: Option<PathBuf>,
    /// The tool backend: `fixture:FILE` (recorded responses) or
    /// `mcp:COMMAND ARGS...` (an MCP server over stdio). Replaces the
    /// `[run] tools` of `planc.toml`.
    #[arg(long, value_name = "BACKEND")]
    pub tools: Option<String>,
    /// Approve these steps (those the IR lists under `approvals`). With
    /// `--ir`, only together with `--fingerprint`.
    #[arg(
        long,
        value_name = "STEP,...",
        value_delimiter = ',',
        conflicts_with_all = ["approve_all", "approvals"]
    )]
    pub approve: Vec<String>,
    /// Approve every step that needs approval: the plan as a whole.
    /// With `--ir`, only together with `--fingerprint`.
    #[arg(long, conflicts_with = "approvals")]
    pub approve_all: bool,
    /// The approvals of a reviewed IR: a JSON file `{"fingerprint":
    /// "sha256:…", "steps": [...], "by": "…", "at": "…"}`. A
    /// fingerprint other than the IR's is exit 2; nothing runs.
    #[arg(long, value_name = "FILE")]
    pub approvals: Option<PathBuf>,
    /// The fingerprint the approvals were given for (`sha256:…`, as
    /// `planc review` shows it): exit 2, nothing runs, when the plan's
    /// differs.
    #[arg(long, value_name = "FINGERPRINT")]
    pub fingerprint: Option<String>,
    /// Append the trace here, one JSON object per line.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// How long one tool call may take, in seconds, before it fails
    /// with `timeout` (MCP backends).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// The longest message an MCP server may send, in bytes (default
    /// 16 MiB, or `[run] max_message` of `planc.toml`); a longer one
    /// fails the call and ends the connection.
    #[arg(long, value_name = "BYTES")]
    pub max_message: Option<usize>,
    /// Say what would be dispatched, wave by wave, with each step's
    /// arguments, guards and approval, after the same checks and
    /// verification; start no backend and call nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// A person's decision that these writes, which the progress record
    /// leaves with an unknown outcome (`in_flight` or
    /// `outcome_unknown`), did not commit: dispatch them again, with
    /// the same idempotency key.
    #[arg(long, value_name = "STEP,...", value_delimiter = ',')]
    pub redispatch: Vec<String>,
    #[command(flatten)]
    pub options: Options,
}

/// Where the catalogue, the policy and the actor come from.
#[derive(clap::Args)]
pub struct Inputs {
    /// A catalogue file: `tool` declarations, an MCP `tools/list` result or
    /// OpenAI function tools; repeatable. Replaces the `catalog` of
    /// `planc.toml`.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// The policy file (`.plan` or `.json`). Replaces the `policy` of
    /// `planc.toml`.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The actor's scopes, comma-separated. Replace those of `planc.toml`
    /// and of the policy's `actor` line.
    #[arg(long, value_name = "SCOPE,...", value_delimiter = ',')]
    pub actor: Option<Vec<String>>,
    /// Ignore every `planc.toml`: the catalogue, policy and actor come
    /// from the flags alone (with none, each plan file holds its own).
    #[arg(long)]
    pub no_config: bool,
    /// The file holding the operator's record key: a progress record is
    /// read only when its HMAC-SHA256 seal verifies under it, and `planc
    /// run` writes every record sealed. Replaces the `[run] record_key` of
    /// `planc.toml`.
    #[arg(long, value_name = "FILE")]
    pub record_key: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct Options {
    #[command(flatten)]
    pub inputs: Inputs,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Treat warnings as errors for the exit status.
    #[arg(long)]
    pub deny_warnings: bool,
    /// With `--format sarif`: keep the notes (N-codes), which are left out
    /// of SARIF logs by default.
    #[arg(long)]
    pub include_notes: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
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
pub enum GraphFormat {
    /// Graphviz's DOT language (`dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Form {
    /// The text form (`.plan`), laid out.
    Plan,
    /// The JSON form: the JSON plan shape, an MCP `tools/list` result, or
    /// the JSON policy shape.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

impl Color {
    /// Whether reports on stderr are coloured: `auto` colours a terminal
    /// unless the environment asks for none.
    pub fn on_stderr(self) -> bool {
        self.on(std::io::stderr().is_terminal())
    }

    /// Whether a result on stdout is coloured (`planc diff`), by the same
    /// rule.
    pub fn on_stdout(self) -> bool {
        self.on(std::io::stdout().is_terminal())
    }

    fn on(self, terminal: bool) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                terminal
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
pub fn colour_allowed(no_color: Option<&std::ffi::OsStr>, term: Option<&std::ffi::OsStr>) -> bool {
    let no_color = no_color.is_some_and(|v| !v.is_empty());
    let dumb = term.is_some_and(|t| t == "dumb");
    !no_color && !dumb
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
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
