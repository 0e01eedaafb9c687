//! The executor conformance suite (`conformance/`, `docs/executors.md`): every
//! case run with `planc run` (or, with `PLANC_EXECUTOR` set, with another
//! executor given the compiled IR) and its outcome compared with the case's
//! `expect.json`: exit status, final step statuses, failure kinds,
//! artifacts, and the sequence of trace events. `docs/executors.md` says
//! how to run it against another executor.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.json").is_file())
        .collect();
    v.sort();
    v
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The plan file of a case: `plan.plan`, `plan.json`, or an IR `ir.json`.
fn plan_file(case: &Path) -> PathBuf {
    ["plan.plan", "plan.json", "ir.json"]
        .iter()
        .map(|n| case.join(n))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{}: no plan.plan, plan.json or ir.json", case.display()))
}

struct Run {
    /// The IR another executor ran (`None` for `planc run`).
    ir: Option<Value>,
    status: i32,
    record: Value,
    trace: Vec<Value>,
    stderr: String,
}

fn run_case(case: &Path, tmp: &Path) -> Run {
    std::fs::create_dir_all(tmp).unwrap();
    let progress = tmp.join("progress.json");
    let trace = tmp.join("trace.jsonl");
    let _ = std::fs::remove_file(&progress);
    let _ = std::fs::remove_file(&trace);
    if case.join("progress.json").is_file() {
        std::fs::copy(case.join("progress.json"), &progress).unwrap();
    }
    let mut plan = plan_file(case);
    let executor = std::env::var_os("PLANC_EXECUTOR");
    let mut ir = None;
    let mut cmd = match &executor {
        Some(exe) => {
            // Another executor gets the IR, compiled here by planc.
            if plan.extension().is_some_and(|e| e == "plan") || plan.ends_with("plan.json") {
                let ir = tmp.join("ir.json");
                let out = Command::new(env!("CARGO_BIN_EXE_planc"))
                    .args(["compile", "-o"])
                    .arg(&ir)
                    .arg(&plan)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}: compile failed", case.display());
                plan = ir;
            }
            ir = Some(read_json(&plan));
            let mut words = exe.to_str().unwrap().split_whitespace();
            let mut c = Command::new(words.next().unwrap());
            c.args(words);
            c
        }
        None => Command::new(env!("CARGO_BIN_EXE_planc")),
    };
    cmd.arg("run");
    // planc runs an IR file only as `--ir FILE`, never by its content.
    let is_ir = executor.is_none() && plan.file_name().is_some_and(|n| n == "ir.json");
    if is_ir {
        cmd.arg("--ir");
    }
    if executor.is_some() {
        // Another executor verifies the IR against the case's catalogue
        // and policy before it runs it, as `planc run --ir` does.
        cmd.arg(format!("--catalog={}", case.join("tools.plan").display()))
            .arg(format!("--policy={}", case.join("policy.plan").display()));
    }
    cmd.arg(&plan)
        .arg(format!(
            "--tools=fixture:{}",
            case.join("tools.json").display()
        ))
        .arg(format!("--progress={}", progress.display()))
        .arg(format!("--trace={}", trace.display()));
    let approvals = case.join("approvals.json");
    let approved = approvals.is_file().then(|| read_json(&approvals));
    if let Some(Value::Object(_)) = &approved {
        // The approvals of a reviewed IR, with its fingerprint.
        cmd.arg(format!("--approvals={}", approvals.display()));
    } else if let Some(approved) = approved {
        let names: Vec<String> = serde_json::from_value(approved).unwrap();
        if !names.is_empty() {
            cmd.arg(format!("--approve={}", names.join(",")));
            if is_ir || executor.is_some() {
                // Approvals of an IR name the fingerprint reviewed.
                let fp = read_json(&plan)["fingerprint"]
                    .as_str()
                    .unwrap()
                    .to_string();
                cmd.arg(format!("--fingerprint={fp}"));
            }
        }
    }
    let out = cmd.env("NO_COLOR", "1").output().unwrap();
    let record = if progress.is_file() {
        read_json(&progress)
    } else {
        Value::Null
    };
    let trace = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a trace line is one JSON object"))
        .collect();
    Run {
        ir,
        status: out.status.code().unwrap_or(-1),
        record,
        trace,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `EVENT STEP` per trace event; the stop event is `stop REASON`.
fn trace_lines(trace: &[Value]) -> Vec<String> {
    trace
        .iter()
        .map(|e| {
            let event = e["event"].as_str().unwrap_or("?");
            if event == "stop" {
                format!("stop {}", e["reason"].as_str().unwrap_or("?"))
            } else {
                format!("{event} {}", e["step"].as_str().unwrap_or("?"))
            }
        })
        .collect()
}

fn compare(case: &Path, run: &Run) -> Vec<String> {
    let expect = read_json(&case.join("expect.json"));
    let mut problems = Vec::new();
    let mut check = |what: &str, expected: &Value, actual: &Value| {
        if expected != actual {
            problems.push(format!(
                "{what}:\n    expected {expected}\n    actual   {actual}"
            ));
        }
    };
    check("exit status", &expect["exit"], &Value::from(run.status));
    let steps = run.record["steps"].as_array().cloned().unwrap_or_default();
    let statuses: BTreeMap<String, Value> = steps
        .iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s["status"].clone()))
        .collect();
    check(
        "step statuses",
        &expect["steps"],
        &serde_json::to_value(&statuses).unwrap(),
    );
    let failures: BTreeMap<String, Value> = steps
        .iter()
        .filter(|s| s.get("failure").is_some())
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["failure"]["kind"].clone(),
            )
        })
        .collect();
    check(
        "failure kinds",
        expect
            .get("failures")
            .unwrap_or(&Value::Object(Default::default())),
        &serde_json::to_value(&failures).unwrap(),
    );
    let artifacts: BTreeMap<String, Value> = steps
        .iter()
        .filter(|s| s["status"] == "complete")
        .filter_map(|s| s["binds"].as_object())
        .flat_map(|b| b.iter().map(|(k, v)| (k.clone(), v.clone())))
        .collect();
    check(
        "artifacts",
        &expect["artifacts"],
        &serde_json::to_value(&artifacts).unwrap(),
    );
    let lines = trace_lines(&run.trace);
    match &run.ir {
        None => check(
            "trace",
            &expect["trace"],
            &serde_json::to_value(&lines).unwrap(),
        ),
        Some(ir) => {
            let expected: Vec<String> = serde_json::from_value(expect["trace"].clone()).unwrap();
            if let Some(why) = same_up_to_interleaving(&expected, &lines, ir) {
                problems.push(format!(
                    "trace ({why}):\n    expected {expected:?}\n    actual   {lines:?}"
                ));
            }
        }
    }
    problems
}

/// For another executor, which may run independent steps one at a time:
/// the same events, each step's own in the same order, the same last event,
/// and no step dispatched before each of its dependencies completed.
fn same_up_to_interleaving(expected: &[String], actual: &[String], ir: &Value) -> Option<String> {
    let mut a = expected.to_vec();
    let mut b = actual.to_vec();
    a.sort();
    b.sort();
    if a != b {
        return Some("other events".into());
    }
    if expected.last() != actual.last() {
        return Some("another last event".into());
    }
    let of = |lines: &[String], step: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.split(' ').nth(1) == Some(step))
            .cloned()
            .collect()
    };
    for step in ir["steps"].as_array().unwrap() {
        let name = step["name"].as_str().unwrap();
        if of(expected, name) != of(actual, name) {
            return Some(format!("the events of `{name}` differ"));
        }
        let first = actual.iter().position(|l| *l == format!("dispatch {name}"));
        for dep in step["depends_on"].as_array().unwrap() {
            let dep = dep["step"].as_str().unwrap();
            let done = actual.iter().position(|l| *l == format!("complete {dep}"));
            if let (Some(f), Some(d)) = (first, done)
                && f < d
            {
                return Some(format!("`{name}` dispatched before `{dep}` completed"));
            }
        }
    }
    None
}

#[test]
fn every_case_passes() {
    let cases = cases();
    assert!(cases.len() >= 15, "the suite has {} cases", cases.len());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let tmp = std::env::temp_dir().join(format!("planc-conformance-{}", std::process::id()));
    let mut failed = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            readme.contains(&format!("`{name}`")),
            "conformance/README.md has no line for `{name}`"
        );
        let run = run_case(case, &tmp.join(&name));
        let problems = compare(case, &run);
        if !problems.is_empty() {
            failed.push(format!(
                "{name}:\n  {}\n  stderr:\n{}\n  trace: {:?}",
                problems.join("\n  "),
                run.stderr,
                trace_lines(&run.trace)
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Guards the runner: a case whose expectation is wrong must fail.
#[test]
fn a_wrong_expectation_is_caught() {
    let case = root().join("northwind_completes");
    let tmp = std::env::temp_dir().join(format!("planc-conformance-neg-{}", std::process::id()));
    let run = run_case(&case, &tmp);
    assert!(compare(&case, &run).is_empty(), "{}", run.stderr);
    let mut wrong = run;
    wrong.status = 3;
    wrong.trace.swap(0, 1);
    let problems = compare(&case, &wrong);
    assert_eq!(problems.len(), 2, "{problems:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

fn planc_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planc"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of a case in a temporary folder, to change.
fn scratch(case: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planc-run-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(root().join(case)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn the_command_fails_with_status_2_and_says_why() {
    let dir = scratch("retry_idempotent_read", "errors");
    // A malformed fixture: every problem, with its position and pointer.
    std::fs::write(
        dir.join("bad.json"),
        "[\n  {\"tool\": \"kv.get\"},\n  {\"tool\": \"kv.get\", \"error\": {\"code\": 7, \"retryable\": true}}\n]\n",
    )
    .unwrap();
    let (status, err) = planc_in(&dir, &["run", "plan.plan", "--tools", "fixture:bad.json"]);
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("bad.json:2:3: `/0`: missing `result` (or `error` for a failed call)"),
        "{err}"
    );
    assert!(
        err.contains("bad.json:3:40: `/1/error/code`: expected a string, found a number"),
        "{err}"
    );
    // No backend at all.
    let (status, err) = planc_in(&dir, &["run", "plan.plan"]);
    assert_eq!(status, 2);
    assert!(err.contains("no tool backend"), "{err}");
    // An approval for a step the plan does not have.
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "nope",
        ],
    );
    assert_eq!(status, 2);
    assert!(err.contains("the plan has no step `nope`"), "{err}");
    // A plan that does not compile: reported, nothing runs.
    std::fs::write(
        dir.join("broken.plan"),
        "plan p \"x\" { step a = no.such() { } }\n",
    )
    .unwrap();
    let (status, err) = planc_in(
        &dir,
        &["run", "broken.plan", "--tools", "fixture:tools.json"],
    );
    assert_eq!(status, 2);
    assert!(err.contains("E0101"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn planc_toml_names_the_backend_and_the_ir_runs_as_the_plan_does() {
    let dir = scratch("retry_idempotent_read", "toml");
    let toml = std::fs::read_to_string(dir.join("planc.toml")).unwrap();
    std::fs::write(
        dir.join("planc.toml"),
        format!("{toml}\n[run]\ntools = \"fixture:tools.json\"\n"),
    )
    .unwrap();
    let (status, err) = planc_in(&dir, &["run", "plan.plan"]);
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("read  complete (3 calls)"), "{err}");
    // The compiled IR runs the same way.
    let (status, err) = planc_in(&dir, &["compile", "plan.plan", "-o", "ir.json"]);
    assert_eq!(status, 0, "{err}");
    let (status, err) = planc_in(&dir, &["run", "--ir", "ir.json", "--progress", "p.json"]);
    assert_eq!(status, 0, "{err}");
    // Started again with its record, nothing is called: the fixture's
    // responses are all used up, so any call would fail.
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "--ir",
            "ir.json",
            "--progress",
            "p.json",
            "--tools",
            "fixture:/dev/null",
        ],
    );
    assert_eq!(status, 2, "{err}");
    std::fs::write(dir.join("empty.json"), "[]").unwrap();
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "--ir",
            "ir.json",
            "--progress",
            "p.json",
            "--tools",
            "fixture:empty.json",
        ],
    );
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("from the record, not run again"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
