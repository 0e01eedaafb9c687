//! The executor's side of the security suite (`tests/security/README.md`,
//! "The executor"): writes never dispatched twice, records that cannot
//! change what was checked. Each test is an attack or a failure that once
//! got past the executor, run through `planc run` or the library's machine.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use planc::SourceKind;
use planc::exec::Machine;
use serde_json::Value;

fn case() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/security/exec")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("planc-security-exec-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 is not installed (the test's MCP server is a Python script)");
    }
    ok
}

fn ledger(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn run(dir: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_planc"));
    c.current_dir(case())
        .arg("run")
        .arg("plan.plan")
        .arg(format!(
            "--tools=mcp:python3 {}",
            case().join("ledger_server.py").display()
        ))
        .arg(format!(
            "--progress={}",
            dir.join("progress.json").display()
        ))
        .args(extra)
        .env("LEDGER", dir.join("ledger.jsonl"))
        .env("HANG", dir.join("hang"))
        .env("NO_COLOR", "1");
    c
}

fn record(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("progress.json")).unwrap()).unwrap()
}

fn step<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()
}

/// Finding: a write whose outcome is unknown (planc killed during the
/// call, the server having committed it) was left `pending` and dispatched
/// again on resume: the ledger booked it twice. Now the record says
/// `in_flight` before the call is made, the call carries its idempotency
/// key in `_meta`, and the resumed run stops for a decision instead of
/// calling again. Invariant: no committed write twice.
#[test]
fn a_write_killed_in_flight_is_not_dispatched_again() {
    if !python() {
        return;
    }
    let dir = tmp("killed");
    std::fs::write(dir.join("hang"), "").unwrap();
    let mut child = run(&dir, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the server has booked the write, then kill planc.
    let start = Instant::now();
    while ledger(&dir.join("ledger.jsonl")).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the write was never made"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let booked = ledger(&dir.join("ledger.jsonl"));
    assert_eq!(booked.len(), 1);
    let key = booked[0]["meta"]["idempotency_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(key.len(), 64, "a hex SHA-256: {key}");
    // The record written before the call says so, with the key.
    let r = record(&dir);
    assert_eq!(step(&r, "pay")["status"], "in_flight");
    assert_eq!(step(&r, "pay")["idempotency_key"], key.as_str());
    assert_eq!(step(&r, "who")["status"], "complete");

    // Resumed (the server no longer hangs): the write is not dispatched.
    std::fs::remove_file(dir.join("hang")).unwrap();
    let out = run(&dir, &[]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        ledger(&dir.join("ledger.jsonl")).len(),
        1,
        "dispatched again"
    );
    let r = record(&dir);
    assert_eq!(step(&r, "pay")["status"], "failed");
    assert_eq!(step(&r, "pay")["failure"]["kind"], "outcome_unknown");
    assert_eq!(step(&r, "pay")["failure"]["retryable"], false);
    // Resumed again: still not, whatever the record's status became.
    let out = run(&dir, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        ledger(&dir.join("ledger.jsonl")).len(),
        1,
        "dispatched again"
    );

    // A person's decision dispatches it again, with the same key.
    let out = run(&dir, &["--redispatch", "pay"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let booked = ledger(&dir.join("ledger.jsonl"));
    assert_eq!(booked.len(), 2);
    assert_eq!(booked[1]["meta"]["idempotency_key"], key.as_str());
    // A decision about a step that needs none is refused.
    let out = run(&dir, &["--redispatch", "who"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Finding: a write that timed out was recorded `tool_error` with
/// `retryable: true`. Now it is `outcome_unknown`, never retryable, and
/// nothing after it is dispatched. Invariant: no committed write twice.
#[test]
fn a_write_that_times_out_is_outcome_unknown() {
    if !python() {
        return;
    }
    let dir = tmp("timeout");
    std::fs::write(dir.join("hang"), "").unwrap();
    let out = run(&dir, &["--timeout", "1"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = record(&dir);
    let failure = &step(&r, "pay")["failure"];
    assert_eq!(failure["kind"], "outcome_unknown");
    assert_eq!(failure["code"], "timeout");
    assert_eq!(failure["retryable"], false);
    assert_eq!(ledger(&dir.join("ledger.jsonl")).len(), 1);
}

const TOOLS: &str = r#"
tool quota.get(team: string) -> { size_gb: int } read idempotent
tool disk.provision(size_gb: int) -> { disk_id: string } write
"#;
const POLICY: &str = r#"
policy ops {
    actor [quota:read, disk:write]
    quota.get requires [quota:read]
    disk.provision requires [disk:write] where size_gb <= 200
}
"#;
const RECORD: &str = r#"{
  "progress_version": "1.0",
  "plan": "disks",
  "replans_used": 0,
  "steps": [
    {"name": "quota", "tool": "quota.get", "status": "complete",
     "effect": "read", "idempotent": true, "attempts": 1,
     "args": {"team": "data"}, "binds": {"quota": {"size_gb": 120}}}
  ]
}"#;
const PLAN: &str = r#"
plan disks "a disk of the team's quota" {
    step quota = quota.get(team: "data") { bind quota = $ }
    step disk = disk.provision(size_gb: quota.size_gb) { bind disk = $.disk_id }
}
"#;

/// The disks' catalogue and policy, compiled.
fn compiler() -> planc::Compiler {
    planc::Compiler::new(
        &[("tools.plan", TOOLS)],
        Some(("policy.plan", POLICY)),
        None,
    )
}

/// Finding 4: the IR of a replan is compiled against a record (its reused
/// artifact's ceiling decided on the recorded 120, its guard then dropped), but the
/// run took the artifacts of whatever record it was given: edited between
/// check and run, it provisioned 5,000 GB under `<= 200`. Now the run uses
/// the IR's values and refuses a record that disagrees with them.
/// Invariant: what is checked is what runs.
#[test]
fn a_record_edited_after_the_check_does_not_change_what_runs() {
    let compiler = compiler();
    let checked = compiler.check_replan(
        "plan.plan",
        PLAN,
        SourceKind::Text,
        Some(("progress.json", RECORD)),
    );
    let ir = checked
        .ir
        .as_ref()
        .and_then(|v| v.first())
        .cloned()
        .expect("it compiles");
    let disk = ir.steps.iter().find(|s| s.name == "disk").unwrap();
    // Decided on the recorded value, and the guard kept all the same: the
    // IR is the plan's own (its plan fingerprint), and a value that reached
    // the call some other way would still be refused.
    assert_eq!(disk.authz.guards.len(), 1, "the ceiling's guard stays");
    let record: planc::progress::ProgressRecord = serde_json::from_str(RECORD).unwrap();
    let edited: planc::progress::ProgressRecord =
        serde_json::from_str(&RECORD.replace("120", "5000")).unwrap();
    let ir = Arc::new(ir);
    let approved = BTreeSet::new();
    let err = Machine::new(Arc::clone(&ir), &approved, Some(&edited)).unwrap_err();
    assert!(
        matches!(err, planc::exec::MachineError::RecordDisagrees { ref name, .. } if name == "quota"),
        "{err}"
    );
    assert!(err.to_string().contains("disagrees"), "{err}");
    // The record it was compiled against runs, with the IR's value.
    let mut m = Machine::new(ir, &approved, Some(&record)).unwrap();
    let calls = m.next(true).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].step, "disk");
    assert_eq!(calls[0].args["size_gb"].to_json_string(), "120");
    assert!(calls[0].idempotency_key.is_some());
}

/// A record written before records carried the plan fingerprint names the
/// IR's own. The same IR resumed from it is a resume, no replan counted;
/// a record naming the plan fingerprint is too; one naming another
/// fingerprint, or none, is a replan, refused here because the plan allows
/// none (`replans 0`). Invariant: the replan budget holds whatever
/// fingerprint a record names, and only the run's own two pass for it.
#[test]
fn only_the_runs_own_fingerprints_make_a_record_a_resume() {
    let compiler = compiler();
    let plan = PLAN.replace("quota\" {\n", "quota\" {\n    replans 0\n");
    assert!(plan.contains("replans 0"));
    let compile = |progress: Option<&str>| {
        let checked = compiler.check_replan(
            "plan.plan",
            &plan,
            SourceKind::Text,
            progress.map(|p| ("progress.json", p)),
        );
        let diags = format!("{:?}", checked.diagnostics);
        checked
            .ir
            .and_then(|v| v.into_iter().next())
            .unwrap_or_else(|| panic!("it compiles: {diags}"))
    };
    // The first run's IR, then the record it wrote (its quota step done),
    // and the IR compiled against that record: a resume, whose own
    // fingerprint covers what it took from the record.
    let first = compile(None);
    let plan_fp = planc::ir::plan_fingerprint(&first).unwrap();
    let mut written: Value = serde_json::from_str(RECORD).unwrap();
    written["fingerprint"] = Value::from(plan_fp.as_str());
    written["steps"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "disk", "tool": "disk.provision", "status": "pending"}));
    let ir = compile(Some(&written.to_string()));
    assert_eq!(ir.budget.replans, Some(0));
    assert_eq!(planc::ir::plan_fingerprint(&ir).unwrap(), plan_fp);
    let ir_fp = ir.fingerprint.to_string();
    assert_ne!(
        plan_fp, ir_fp,
        "the IR's own fingerprint covers its progress"
    );
    let ir = Arc::new(ir);
    let approved = BTreeSet::new();
    let naming = |fingerprint: Option<&str>| {
        let mut record = written.clone();
        match fingerprint {
            Some(f) => record["fingerprint"] = Value::from(f),
            None => {
                record.as_object_mut().unwrap().remove("fingerprint");
            }
        }
        let record: planc::progress::ProgressRecord = serde_json::from_value(record).unwrap();
        Machine::new(Arc::clone(&ir), &approved, Some(&record))
    };
    for own in [&ir_fp, &plan_fp] {
        assert!(
            naming(Some(own)).is_ok(),
            "a record naming {own} is a resume"
        );
    }
    // The check decides as the run does: the plan checked against a
    // record naming the IR's own fingerprint is a resume (the IR it
    // compiles is that one), and against another fingerprint a replan.
    let mut legacy = written.clone();
    legacy["fingerprint"] = Value::from(ir_fp.as_str());
    assert_eq!(
        compile(Some(&legacy.to_string())).fingerprint.as_str(),
        ir_fp
    );
    legacy["fingerprint"] = Value::from(format!("sha256:{}", "1".repeat(64)));
    let refused = compiler.check_replan(
        "plan.plan",
        &plan,
        SourceKind::Text,
        Some(("progress.json", &legacy.to_string())),
    );
    assert!(refused.ir.is_none());
    assert!(
        refused
            .diagnostics
            .iter()
            .any(|d| d.code == planc::Code::E0305)
    );
    let other = format!("sha256:{}", "0".repeat(64));
    for f in [Some(other.as_str()), Some(""), None] {
        let err = naming(f).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("E0305"), "a record naming {f:?}: {err}");
    }
}

/// Finding 6: the record was trusted as written: a step that never ran
/// marked `complete` skipped its call. With a record key configured, every
/// record is written sealed (HMAC-SHA256 over its canonical JSON) and read
/// only when the seal verifies: an edited record, or one whose seal was
/// removed, is refused (exit 2) before anything runs. Invariant: the record
/// cannot lie.
#[test]
fn a_sealed_record_edited_or_unsealed_is_refused() {
    if !python() {
        return;
    }
    let dir = tmp("sealed");
    std::fs::write(dir.join("key"), "0123456789abcdef0123456789abcdef").unwrap();
    let key = format!("--record-key={}", dir.join("key").display());
    let out = run(&dir, &[&key]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = record(&dir);
    assert!(r["hmac"].as_str().unwrap().starts_with("hmac-sha256:"));
    assert!(r["fingerprint"].as_str().unwrap().starts_with("sha256:"));
    // Unchanged, it is read: a resume dispatches nothing.
    let out = run(&dir, &[&key]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(ledger(&dir.join("ledger.jsonl")).len(), 1);

    let text = std::fs::read_to_string(dir.join("progress.json")).unwrap();
    let mut edited: Value = serde_json::from_str(&text).unwrap();
    edited["steps"][0]["binds"]["account"] = Value::from("acct_attacker");
    std::fs::write(dir.join("progress.json"), edited.to_string()).unwrap();
    let out = run(&dir, &[&key]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not match"));

    let mut unsealed: Value = serde_json::from_str(&text).unwrap();
    unsealed.as_object_mut().unwrap().remove("hmac");
    std::fs::write(dir.join("progress.json"), unsealed.to_string()).unwrap();
    let out = run(&dir, &[&key]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `hmac`"));
    assert_eq!(ledger(&dir.join("ledger.jsonl")).len(), 1);
}
