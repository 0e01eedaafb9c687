//! `planc run`: reads the plan (compiling it) or its IR, opens the tool
//! backend, and hands both to the library's executor with a sink that
//! writes the progress record (atomically) and the trace (JSON lines). The
//! summary for people goes to stderr.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value as Json;

use planc::SourceKind;
use planc::driver::{self, Job};
use planc::exec::{self, Backend, Data, Sink, Stop};
use planc::ir::PlanIr;
use planc::progress::{FailureKind, ProgressRecord, Status};
use planc::project;

use super::Failure;
use super::args::Options;
use super::check::one_plan;
use super::load::{Replans, config_for, display_path, load, start_folder};
use super::report::{report, status};

pub struct RunOptions {
    pub progress: Option<PathBuf>,
    pub tools: Option<String>,
    pub approve: Vec<String>,
    pub approve_all: bool,
    pub trace: Option<PathBuf>,
    pub timeout: f64,
    pub redispatch: Vec<String>,
    pub record_key: Option<PathBuf>,
}

pub fn run(plan: &Path, o: &RunOptions, options: &Options) -> Result<ExitCode, Failure> {
    let config = config_for(&start_folder(Some(plan)))?;
    let Some(ir) = load_ir(plan, options)? else {
        // The plan does not compile, or is not UTF-8: reported, nothing ran.
        return Ok(ExitCode::from(2));
    };
    let approved = approvals(&ir, o)?;
    let spec = o.tools.clone().or(config.tools).ok_or_else(|| {
        Failure(
            "no tool backend: give `--tools fixture:FILE` or `--tools mcp:COMMAND`, \
             or `[run] tools` in `planc.toml`"
                .into(),
        )
    })?;
    let key = match o.record_key.as_ref().or(config.record_key.as_ref()) {
        Some(path) => {
            let key = project::read_bytes(path).map_err(Failure)?;
            if key.len() < 16 {
                return Err(Failure(format!(
                    "the record key `{}` holds {} bytes: a key has at least 16",
                    display_path(path),
                    key.len()
                )));
            }
            Some(key)
        }
        None => None,
    };
    let prior = match &o.progress {
        Some(path) if path.exists() => {
            let Some(text) = read_text(path, options)? else {
                // Not UTF-8: reported, nothing ran.
                return Ok(ExitCode::from(2));
            };
            let read = planc::progress::read::read(planc::FileId::default(), &text);
            let Some(record) = read.record else {
                let first = read
                    .diagnostics
                    .first()
                    .map_or_else(String::new, |d| format!(": {}", d.message));
                return Err(Failure(format!(
                    "`{}` is not a progress record{first} (`planc check {}` says where)",
                    display_path(path),
                    display_path(path)
                )));
            };
            planc::progress::read::verify(&record, key.as_deref())
                .map_err(|e| Failure(format!("`{}`: {e}", display_path(path))))?;
            Some(record)
        }
        _ => None,
    };
    let backend = open_backend(&spec, o.timeout)?;
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
    };
    let outcome = exec::run(
        &ir,
        &approved,
        prior.as_ref(),
        &o.redispatch,
        backend.as_ref(),
        &mut sink,
    )
    .map_err(Failure)?;
    drop(backend);
    eprint!(
        "{}",
        summary(&ir, &outcome, &sink.events, o.progress.as_deref())
    );
    Ok(ExitCode::from(outcome.stop.exit_status()))
}

/// The IR: read from an IR file, or compiled from the plan. `None` when the
/// file is not UTF-8 or the plan has errors (they are reported).
fn load_ir(plan: &Path, options: &Options) -> Result<Option<PlanIr>, Failure> {
    let Some(text) = read_text(plan, options)? else {
        return Ok(None);
    };
    let looks_like_ir = serde_json::from_str::<Json>(&text)
        .ok()
        .is_some_and(|v| v.get("ir_version").is_some());
    if looks_like_ir {
        let ir = planc::ir::from_json(&text)
            .map_err(|e| Failure(format!("`{}`: {e}", display_path(plan))))?;
        return Ok(Some(ir));
    }
    let mut job = load(&[plan.to_path_buf()], &options.inputs, Replans::No)?;
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

/// The approved steps: all of `approvals` with `--approve-all`, else those
/// named, each of which must be a step of the plan.
fn approvals(ir: &PlanIr, o: &RunOptions) -> Result<BTreeSet<String>, Failure> {
    if o.approve_all {
        return Ok(ir.approvals.iter().map(|s| s.to_string()).collect());
    }
    for name in &o.approve {
        if !ir.steps.iter().any(|s| s.name == name) {
            return Err(Failure(format!(
                "`--approve {name}`: the plan has no step `{name}`"
            )));
        }
    }
    Ok(o.approve.iter().cloned().collect())
}

fn open_backend(spec: &str, timeout: f64) -> Result<Box<dyn Backend>, Failure> {
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
        let mcp = exec::mcp::Mcp::start(&program, &args, Duration::from_secs_f64(timeout))
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
        self.events.push(event.clone());
        Ok(())
    }
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
