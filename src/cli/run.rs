//! `planc run`: compiles the plan, or reads an IR file (`--ir`) and
//! verifies it (`exec::verify`); opens the tool
//! backend, and hands both to the library's executor with a sink that
//! writes the progress record (atomically) and the trace (JSON lines). The
//! summary for people goes to stderr.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use planc::SourceKind;
use planc::driver::{self, Job};
use planc::exec::{self, Backend, Data, Sink, Stop};
use planc::ir::PlanIr;
use planc::progress::{FailureKind, ProgressRecord, Status};
use planc::project::{self, Settings};

use super::Failure;
use super::args::{Options, RunArgs};
use super::check::one_plan;
use super::load::{Replans, check_seal, display_path, load, record_key, settings_of};
use super::report::{report, status};

/// The longest MCP message by default: 16 MiB.
const MAX_MESSAGE: usize = 16 * 1024 * 1024;

pub fn run(o: &RunArgs) -> Result<ExitCode, Failure> {
    let options = &o.options;
    let (target, is_ir) = match (&o.plan, &o.ir) {
        (_, Some(ir)) => (ir.as_path(), true),
        (Some(plan), None) => (plan.as_path(), false),
        (None, None) => return Err(Failure("give a plan, or an IR with `--ir`".into())),
    };
    // The flags and the `planc.toml` found from the file's folder, exactly
    // as `check` reads them: `--no-config`, or both `--catalog` and
    // `--policy`, mean no `planc.toml`, and so no `[run]` from one.
    let settings = settings_of(target, &options.inputs)?;
    let key = record_key(&settings)?;
    // The record is read once, and its seal verified, before anything uses
    // it: the check of a plan against it takes this same text, so a file
    // swapped after the verification is never what the plan is checked
    // against, nor what the run resumes from.
    let prior = match &o.progress {
        Some(path) if path.exists() => {
            let Some(text) = read_text(path, options)? else {
                // Not UTF-8: reported, nothing ran.
                return Ok(ExitCode::from(2));
            };
            let name = display_path(path);
            check_seal(&text, &name, key.as_deref())?;
            let read = planc::progress::read::read(planc::FileId::default(), &text);
            let Some(record) = read.record else {
                let first = read
                    .diagnostics
                    .first()
                    .map_or_else(String::new, |d| format!(": {}", d.message));
                return Err(Failure(format!(
                    "`{name}` is not a progress record{first} (`planc check {name}` says where)"
                )));
            };
            Some((record, name, text))
        }
        _ => None,
    };
    let loaded = if is_ir {
        load_ir(target, &settings, options)?
    } else {
        let against = prior
            .as_ref()
            .map(|(_, name, text)| (name.as_str(), text.as_str()));
        compile(target, against, options)?
    };
    let prior = prior.map(|(record, _, _)| record);
    let Some(ir) = loaded else {
        // Not UTF-8, errors in the plan, or an IR that fails verification:
        // reported, nothing ran.
        return Ok(ExitCode::from(2));
    };
    let approved = approvals(&ir, o)?;
    if o.dry_run {
        print!("{}", dry_run(&ir, &approved));
        return Ok(ExitCode::SUCCESS);
    }
    let spec = o.tools.clone().or(settings.tools).ok_or_else(|| {
        Failure(
            "no tool backend: give `--tools fixture:FILE` or `--tools mcp:COMMAND`, \
             or `[run] tools` in `planc.toml`"
                .into(),
        )
    })?;
    let max_message = o
        .max_message
        .or(settings.max_message)
        .unwrap_or(MAX_MESSAGE);
    let backend = open_backend(&spec, o.timeout, max_message)?;
    let mut sink = FileSink {
        progress: o.progress.clone(),
        key: key.clone(),
        trace: match &o.trace {
            Some(path) => Some(
                File::options()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| Failure(format!("cannot open `{}`: {e}", display_path(path))))?,
            ),
            None => None,
        },
        events: Vec::new(),
        live: std::io::stderr()
            .is_terminal()
            .then(|| Live::new(options.color.on_stderr())),
    };
    let outcome = exec::run(
        &ir,
        &approved,
        prior.as_ref(),
        &o.redispatch,
        backend.as_ref(),
        &mut sink,
    )
    .map_err(|e| Failure(e.to_string()))?;
    drop(backend);
    eprint!(
        "{}",
        summary(&ir, &outcome, &sink.events, o.progress.as_deref())
    );
    Ok(ExitCode::from(outcome.stop.exit_status()))
}

/// Compiles and checks the plan, as a replan against the progress record's
/// text when `--progress` names one that exists (as `planc check
/// --progress` does: a replan that renames a completed write stops here,
/// E0306/E0307). The text is the one `run` read and verified, never the
/// file read again.
/// `None` when the file is not UTF-8 or the plan has errors (reported).
fn compile(
    plan: &Path,
    record: Option<(&str, &str)>,
    options: &Options,
) -> Result<Option<PlanIr>, Failure> {
    let mut job = load(&[plan.to_path_buf()], &options.inputs, Replans::No)?;
    if let Some((name, text)) = record {
        job.progress = Some(project::add_decoded(
            &mut job,
            name.to_string(),
            Ok(text.to_string()),
            Some(SourceKind::Json),
        ));
    }
    job.trees = driver::Trees::Release;
    let outcome = driver::run(&mut job);
    let code = status(&outcome.diagnostics, options);
    if code != ExitCode::SUCCESS {
        report(&job, &outcome.diagnostics, options, false)?;
        return Ok(None);
    }
    let irs = driver::lower(&job, &outcome).map_err(Failure)?;
    let (_, ir) = one_plan(plan, &irs)?;
    Ok(Some(ir.clone()))
}

/// Reads an IR file and verifies it against the configured catalogue and
/// policy (`exec::verify`): `None`, with what is wrong reported, when it
/// is not UTF-8, when the catalogue or policy has errors, or when the IR
/// was changed after compilation.
fn load_ir(path: &Path, settings: &Settings, options: &Options) -> Result<Option<PlanIr>, Failure> {
    let Some(text) = read_text(path, options)? else {
        return Ok(None);
    };
    let ir = planc::ir::from_json(&text)
        .map_err(|e| Failure(format!("`{}`: {e}", display_path(path))))?;
    let mut job = Job::default();
    let mut settings = settings.clone();
    settings.progress = None;
    settings.add_to(&mut job, display_path).map_err(Failure)?;
    if !job.unreadable.is_empty() {
        report(&job, &job.unreadable, options, false)?;
        return Ok(None);
    }
    if job.catalog.is_empty() || job.policy.is_empty() {
        return Err(Failure(format!(
            "`--ir {}`: an IR is verified against the catalogue and the policy before it runs: \
             give `--catalog` and `--policy`, or run it from a folder whose `planc.toml` names them",
            display_path(path)
        )));
    }
    let compiler = planc::Compiler::from_job(&mut job);
    if compiler.diagnostics().iter().any(|d| d.is_error()) {
        job.sources = compiler.sources().clone();
        report(&job, compiler.diagnostics(), options, false)?;
        return Ok(None);
    }
    let problems = exec::verify(&ir, compiler.models());
    if !problems.is_empty() {
        let mut s = format!(
            "planc run: `{}` does not run: it is not the IR planc compiled from a plan under this catalogue and policy\n",
            display_path(path)
        );
        for p in &problems {
            s.push_str(&format!("  - {p}\n"));
        }
        s.push_str(
            "  compile the plan again (`planc compile`) and have it reviewed; nothing was run\n",
        );
        eprint!("{s}");
        return Ok(None);
    }
    Ok(Some(ir))
}

/// A file's text; `None` when it is not UTF-8, which is reported as
/// `check` reports it (E0002 at the first bad byte).
fn read_text(path: &Path, options: &Options) -> Result<Option<String>, Failure> {
    let mut job = Job::default();
    let bytes = project::read_bytes(path).map_err(Failure)?;
    let name = display_path(path);
    let kind = SourceKind::from_name(&name);
    let id = project::add_bytes(&mut job, name, bytes, Some(kind));
    if !job.unreadable.is_empty() {
        report(&job, &job.unreadable, options, false)?;
        return Ok(None);
    }
    Ok(job.sources.get(id).map(|f| f.text.clone()))
}

/// The approved steps. For a plan compiled by this command,
/// `--approve-all` (every step that needs one) or the steps `--approve`
/// names. For an IR file, approvals come with the fingerprint they were
/// given for: `--approvals FILE`, or `--approve`/`--approve-all` with
/// `--fingerprint`. A fingerprint other than the IR's is exit 2 (nothing
/// runs), and so is a step the plan lacks.
fn approvals(ir: &PlanIr, o: &RunArgs) -> Result<BTreeSet<String>, Failure> {
    let mismatch = |given: &str, whence: &str| {
        Failure(format!(
            "{whence} approves the plan with fingerprint `{given}`, but this plan's is `{}`: \
             what was approved is not what would run; nothing was run",
            ir.fingerprint
        ))
    };
    if let Some(given) = &o.fingerprint
        && *given != ir.fingerprint
    {
        return Err(mismatch(given, "`--fingerprint`"));
    }
    let named: Vec<String> = if let Some(path) = &o.approvals {
        let file = ApprovalFile::read(path)?;
        if file.fingerprint != ir.fingerprint {
            return Err(mismatch(
                &file.fingerprint,
                &format!("`{}`", display_path(path)),
            ));
        }
        file.steps
    } else {
        let given = !o.approve.is_empty() || o.approve_all;
        if o.ir.is_some() && given && o.fingerprint.is_none() {
            return Err(Failure(format!(
                "approvals for an IR file name its fingerprint: add `--fingerprint {}` \
                 after checking it is the one reviewed, or give `--approvals FILE`",
                ir.fingerprint
            )));
        }
        if o.approve_all {
            return Ok(exec::verify::needing_approval(ir)
                .into_iter()
                .map(str::to_string)
                .collect());
        }
        o.approve.clone()
    };
    let steps = ir.steps_by_name();
    for name in &named {
        if !steps.contains_key(name.as_str()) {
            let near = planc::suggest::nearest(name, ir.steps.iter().map(|s| s.name.as_str()));
            let hint = planc::suggest::did_you_mean(&near)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            return Err(Failure(format!(
                "`--approve {name}`: the plan has no step `{name}`{hint}"
            )));
        }
    }
    Ok(named.into_iter().collect())
}

/// An approvals file: `{"fingerprint": "sha256:…", "steps": [...], "by":
/// "…", "at": "…"}` (`docs/executors.md`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalFile {
    fingerprint: String,
    steps: Vec<String>,
    #[allow(dead_code)]
    by: Option<String>,
    #[allow(dead_code)]
    at: Option<String>,
}

impl ApprovalFile {
    fn read(path: &Path) -> Result<ApprovalFile, Failure> {
        let text = project::read_source(path).map_err(Failure)?;
        serde_json::from_str(&text).map_err(|e| {
            Failure(format!(
                "`{}` is not an approvals file (`{{\"fingerprint\": \"sha256:…\", \"steps\": [...], \"by\": \"…\", \"at\": \"…\"}}`): {e}",
                display_path(path)
            ))
        })
    }
}

fn open_backend(spec: &str, timeout: f64, max_message: usize) -> Result<Box<dyn Backend>, Failure> {
    if let Some(file) = spec.strip_prefix("fixture:") {
        let path = Path::new(file);
        let text = project::read_source(path).map_err(Failure)?;
        return match exec::fixture::Fixture::parse(&text) {
            Ok(f) => Ok(Box::new(f)),
            Err(errors) => {
                let shown: Vec<String> = errors
                    .iter()
                    .map(|e| format!("{}:{e}", display_path(path)))
                    .collect();
                Err(Failure(format!(
                    "the fixture is malformed:\n{}",
                    shown.join("\n")
                )))
            }
        };
    }
    if let Some(command) = spec.strip_prefix("mcp:") {
        let mut words = command.split_whitespace().map(str::to_string);
        let Some(program) = words.next() else {
            return Err(Failure("`mcp:` needs a command to start the server".into()));
        };
        let args: Vec<String> = words.collect();
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(Failure(format!(
                "`--timeout {timeout}`: must be a positive number of seconds"
            )));
        }
        let mcp = exec::mcp::Mcp::start(
            &program,
            &args,
            Duration::from_secs_f64(timeout),
            max_message,
        )
        .map_err(Failure)?;
        return Ok(Box::new(mcp));
    }
    Err(Failure(format!(
        "unknown tool backend `{spec}`: use `fixture:FILE` or `mcp:COMMAND ARGS...`"
    )))
}

/// Writes the progress record atomically after every step and appends the
/// trace, keeping the events for the summary.
struct FileSink {
    progress: Option<PathBuf>,
    /// The record key: each record is written sealed with it.
    key: Option<Vec<u8>>,
    trace: Option<File>,
    events: Vec<Data>,
    /// On a terminal: a line per step as it starts and as it ends.
    live: Option<Live>,
}

/// The lines `planc run` writes on a terminal while it runs: a step's
/// start (its tool and attempt) and its end (complete, with the time since
/// its first dispatch and the calls made, or how it failed), coloured as
/// `check`'s reports are.
struct Live {
    colour: bool,
    started: std::collections::HashMap<String, std::time::Instant>,
    calls: std::collections::HashMap<String, u64>,
}

impl Live {
    fn new(colour: bool) -> Live {
        Live {
            colour,
            started: Default::default(),
            calls: Default::default(),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// The line an event gives, if any.
    fn line(&mut self, event: &Data) -> Option<String> {
        let kind = event.get("event").and_then(Data::as_str)?;
        let step = event.get("step").and_then(Data::as_str)?.to_string();
        match kind {
            "dispatch" => {
                self.started
                    .entry(step.clone())
                    .or_insert_with(std::time::Instant::now);
                let n = self.calls.entry(step.clone()).or_insert(0);
                *n += 1;
                let tool = event.get("tool").and_then(Data::as_str).unwrap_or("?");
                let attempt = event.get("attempt").and_then(Data::as_u64).unwrap_or(1);
                let again = if attempt > 1 {
                    format!(" (attempt {attempt})")
                } else {
                    String::new()
                };
                Some(format!(
                    "{} {step}  {tool}{again}",
                    self.paint("36", "start")
                ))
            }
            "complete" => {
                let took = self
                    .started
                    .get(&step)
                    .map(|t| format!(" in {} ms", t.elapsed().as_millis()))
                    .unwrap_or_default();
                let calls = self.calls.get(&step).copied().unwrap_or(0);
                let what = if calls == 0 {
                    " (not called: reused)".to_string()
                } else {
                    format!(", {calls} call{}", if calls == 1 { "" } else { "s" })
                };
                Some(format!(
                    "{} {step}  complete{took}{what}",
                    self.paint("32", "done ")
                ))
            }
            "guard_refused" | "post_unmet" | "bind_missing" | "precondition_unmet" => {
                Some(format!("{} {step}  {kind}", self.paint("31", "fail ")))
            }
            "result" if event.get("error").is_some() => {
                let code = event
                    .get("error")
                    .and_then(|e| e.get("code"))
                    .and_then(Data::as_str)
                    .unwrap_or("?");
                Some(format!(
                    "{} {step}  tool_error `{code}`",
                    self.paint("31", "error")
                ))
            }
            _ => None,
        }
    }
}

impl Sink for FileSink {
    fn progress(&mut self, record: &ProgressRecord) -> Result<(), String> {
        let Some(path) = &self.progress else {
            return Ok(());
        };
        let sealed;
        let record = match &self.key {
            Some(key) => {
                sealed = ProgressRecord {
                    hmac: Some(planc::progress::read::seal(record, key)?),
                    ..record.clone()
                };
                &sealed
            }
            None => record,
        };
        let mut text = serde_json::to_string_pretty(record)
            .map_err(|e| format!("cannot serialise the progress record: {e}"))?;
        text.push('\n');
        project::write_atomic(path, text.as_bytes())
    }

    fn trace(&mut self, event: &Data) -> Result<(), String> {
        if let Some(file) = &mut self.trace {
            let line = event.to_json_string();
            writeln!(file, "{line}")
                .and_then(|()| file.flush())
                .map_err(|e| format!("cannot write the trace: {e}"))?;
        }
        if let Some(live) = &mut self.live
            && let Some(line) = live.line(event)
        {
            eprintln!("{line}");
        }
        self.events.push(event.clone());
        Ok(())
    }
}

/// `--dry-run`: the waves of the schedule, each step's call with its
/// arguments as the IR writes them, its guards and its approval; what a
/// reused step takes instead of a call.
fn dry_run(ir: &PlanIr, approved: &BTreeSet<String>) -> String {
    let needing = exec::verify::needing_approval(ir);
    let mut s = format!(
        "plan `{}` ({}): dry run, nothing is called\n",
        ir.name, ir.fingerprint
    );
    let unapproved: Vec<String> = needing
        .iter()
        .filter(|n| !approved.contains(**n))
        .map(|n| n.to_string())
        .collect();
    if !unapproved.is_empty() {
        s.push_str(&format!(
            "not approved: {}: a run would stop before the first call\n",
            list(&unapproved)
        ));
    }
    let steps = ir.steps_by_name();
    for (w, wave) in ir.schedule.iter().enumerate() {
        s.push_str(&format!("wave {}\n", w + 1));
        for name in wave {
            let Some(&step) = steps.get(name.as_str()) else {
                continue;
            };
            let args: Vec<String> = step.args.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            s.push_str(&format!(
                "  {}  {}({})  {}{}\n",
                step.name,
                step.tool,
                args.join(", "),
                match step.effect {
                    planc::ir::Effect::Read => "read",
                    planc::ir::Effect::Write => "write",
                },
                if step.reuse == Some(true) {
                    ", reused from the record: not called"
                } else {
                    ""
                }
            ));
            for g in &step.authz.guards {
                s.push_str(&format!("      guard {g}\n"));
            }
            if needing.contains(step.name.as_str()) {
                let state = if approved.contains(step.name.as_str()) {
                    "approved"
                } else {
                    "NOT approved"
                };
                s.push_str(&format!("      approval human: {state}\n"));
            }
        }
    }
    s
}

/// What ran, what was refused and why, and what a replan must know.
fn summary(
    ir: &PlanIr,
    outcome: &exec::Outcome,
    events: &[Data],
    progress: Option<&Path>,
) -> String {
    let mut s = String::new();
    let headline = match &outcome.stop {
        Stop::Complete => "complete".to_string(),
        Stop::ApprovalMissing(steps) => format!(
            "not started: {} not approved (`--approve STEP,...` or `--approve-all`)",
            list(steps)
        ),
        Stop::Halt { step } => format!("halted at step `{step}`"),
        Stop::Replan { step } => format!("stopped for a replan after step `{step}` failed"),
        Stop::Escalate { step } => {
            format!("stopped for an escalation to a person after step `{step}` failed")
        }
        Stop::OutcomeUnknown { step } => format!(
            "stopped: the outcome of the write `{step}` is unknown (it may have committed); \
             check the tool's side by its idempotency key, then replan without it or \
             `--redispatch {step}` if it did not commit"
        ),
    };
    s.push_str(&format!("planc run: plan `{}`: {headline}\n", ir.name));
    let steps = &outcome.record.steps;
    let width = steps.iter().map(|st| st.name.len()).max().unwrap_or(0);
    for st in steps {
        let name = st.name.as_str();
        let ran = events.iter().any(|e| {
            e.get("event").and_then(Data::as_str) == Some("dispatch")
                && e.get("step").and_then(Data::as_str) == Some(name)
        });
        let what = match (st.status, &st.failure) {
            (Status::Complete, _) if outcome.reused.iter().any(|r| r == name) => {
                "complete (from the record, not run again)".to_string()
            }
            (Status::Complete, _) if !ran => "complete (earlier run)".to_string(),
            (Status::Complete, _) => format!(
                "complete ({} call{})",
                st.attempts,
                if st.attempts == 1 { "" } else { "s" }
            ),
            (status, Some(f)) => format!("{status}: {}", describe_failure(name, f, events)),
            (Status::Pending, None) => "not run".to_string(),
            (status, None) => status.to_string(),
        };
        s.push_str(&format!("  {name:<width$}  {what}\n"));
    }
    if outcome.stop != Stop::Complete {
        let done: Vec<String> = steps
            .iter()
            .filter(|st| st.status == Status::Complete)
            .map(|st| st.name.clone())
            .collect();
        let artifacts: Vec<String> = steps
            .iter()
            .flat_map(|st| st.binds.keys().cloned())
            .collect();
        s.push_str("for a replan:\n");
        if done.is_empty() {
            s.push_str("  no step completed\n");
        } else {
            s.push_str(&format!(
                "  complete, not to be run again: {}; artifacts available: {}\n",
                list(&done),
                if artifacts.is_empty() {
                    "none".to_string()
                } else {
                    list(&artifacts)
                }
            ));
        }
        match progress {
            Some(p) => s.push_str(&format!(
                "  the record is `{0}`: check a new plan against it with `planc check NEW.plan --progress {0}`, \
                 and run it with the same `--progress`\n",
                display_path(p)
            )),
            None => s.push_str(
                "  no progress record was kept (`--progress FILE`): a new run starts from nothing\n",
            ),
        }
    }
    s
}

/// A failure for people: the trace's message for the step when there is
/// one (guards, tool errors), else what was expected and observed.
fn describe_failure(step: &str, f: &planc::progress::Failure, events: &[Data]) -> String {
    let message = events
        .iter()
        .rev()
        .filter(|e| e.get("step").and_then(Data::as_str) == Some(step))
        .find_map(|e| {
            e.get("message")
                .or_else(|| e.get("error").and_then(|x| x.get("message")))
                .and_then(Data::as_str)
        });
    let show = |v: Option<&Data>| v.map_or_else(|| "null".into(), Data::to_json_string);
    match f.kind {
        FailureKind::ToolError => format!(
            "tool_error `{}`: {}",
            f.code.as_deref().unwrap_or("?"),
            message.unwrap_or("")
        ),
        FailureKind::GuardRefused => format!(
            "guard_refused: {}; the call was not made",
            message.unwrap_or("a ceiling refused the arguments")
        ),
        FailureKind::ApprovalMissing => "approval_missing: not approved".to_string(),
        FailureKind::OutcomeUnknown => format!(
            "outcome_unknown ({}): the write may have committed; its idempotency key: {}",
            f.code.as_deref().unwrap_or("in_flight"),
            f.observed
                .as_ref()
                .and_then(|o| o.get("idempotency_key"))
                .and_then(Data::as_str)
                .unwrap_or("none recorded")
        ),
        kind => format!(
            "{kind}: expected {}, observed {}",
            show(f.expected.as_ref()),
            show(f.observed.as_ref())
        ),
    }
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
