//! Attacks on the executor's side (`README.md`, "The run"): an IR edited
//! after compilation, a planner's JSON posing as an IR, approvals carried
//! to another plan, a replan that renames a completed write, a planted
//! `planc.toml`, a hostile MCP server, planted files where planc writes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use planc::ir::{self, PlanIr};

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

/// A copy of a conformance case in a folder of its own.
fn scratch(case: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planc-sec-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance")
        .join(case);
    for e in std::fs::read_dir(case).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn compile_ir(dir: &Path) -> PlanIr {
    let (status, err) = planc_in(dir, &["compile", "plan.plan", "-o", "ir.json"]);
    assert_eq!(status, 0, "{err}");
    ir::from_json(&std::fs::read_to_string(dir.join("ir.json")).unwrap()).unwrap()
}

fn write_ir(dir: &Path, name: &str, ir: &PlanIr) {
    std::fs::write(dir.join(name), ir::to_json(ir).unwrap()).unwrap();
}

/// Whether any tool was called: the trace has a `dispatch`.
fn dispatched(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap_or_default()
        .contains("\"dispatch\"")
}

/// An edited IR given to `planc run --ir`, approved for its own
/// fingerprint, with that fingerprint stale (refused for it) and then
/// recomputed (refused for what the verification says, `says`): exit 2,
/// nothing dispatched.
fn refused_stale_or_recomputed(dir: &Path, ir: &mut PlanIr, what: &str, says: &str) {
    for recompute in [false, true] {
        if recompute {
            ir.fingerprint = ir::fingerprint(ir).unwrap();
        }
        write_ir(dir, "edited.json", ir);
        let _ = std::fs::remove_file(dir.join("trace.jsonl"));
        let (status, err) = planc_in(
            dir,
            &[
                "run",
                "--ir",
                "edited.json",
                "--tools",
                "fixture:tools.json",
                "--trace",
                "trace.jsonl",
                "--approve-all",
                "--fingerprint",
                &ir.fingerprint,
            ],
        );
        assert_eq!(status, 2, "{what} (recomputed: {recompute}): {err}");
        let expected = if recompute { says } else { "fingerprint" };
        assert!(err.contains(expected), "{what}: {err}");
        assert!(!dispatched(dir), "{what}: something ran");
    }
}

/// Finding 2: an IR edited after `planc compile` does not run, whether the
/// fingerprint is left stale or recomputed by the attacker (it is no
/// secret): the invariants are checked against the configured catalogue
/// and policy. Nothing is dispatched.
#[test]
fn an_edited_ir_does_not_run_with_or_without_its_fingerprint_recomputed() {
    let dir = scratch("pallet_credit_refused_by_its_guard", "edited");
    let base = compile_ir(&dir);
    let credit = base.steps.iter().position(|s| s.name == "credit").unwrap();
    type Edit = Box<dyn Fn(&mut PlanIr)>;
    let edits: Vec<(&str, &str, Edit)> = vec![
        (
            "guard removed",
            "no guard",
            Box::new(move |ir| ir.steps[credit].authz.guards.clear()),
        ),
        (
            "guard raised",
            "no guard",
            Box::new(move |ir| {
                ir.steps[credit].authz.guards[0].limit =
                    ir::GuardLimit::One(ir::Literal::Int(5000));
            }),
        ),
        (
            "approval dropped",
            "approval",
            Box::new(move |ir| {
                ir.approvals.clear();
                ir.steps[credit].authz.approval = None;
            }),
        ),
        (
            "tool swapped",
            "not in the catalogue",
            Box::new(move |ir| ir.steps[credit].tool = "credits.issue_unlimited".into()),
        ),
        (
            "write relabelled a read",
            "catalogue and policy make it",
            Box::new(move |ir| {
                ir.steps[credit].effect = ir::Effect::Read;
                ir.steps[credit].idempotent = true;
                ir.steps[credit].retry = 5;
            }),
        ),
        (
            "literal raised over the ceiling",
            "breaks the ceiling",
            Box::new(move |ir| {
                ir.steps[credit].args.insert(
                    "amount_eur".into(),
                    ir::Value::Literal {
                        literal: ir::Literal::Decimal("4180.00".into()),
                    },
                );
                ir.steps[credit].authz.guards.clear();
                ir.steps[credit].depends_on.retain(|d| d.step != "amount");
            }),
        ),
        (
            "reference to a step that binds nothing",
            "no earlier step binds",
            Box::new(move |ir| {
                ir.steps[credit].args.insert(
                    "amount_eur".into(),
                    ir::Value::Ref {
                        binding: "credit_amount".into(),
                        step: "reply".into(),
                        path: vec![],
                    },
                );
            }),
        ),
    ];
    for (what, says, edit) in &edits {
        let mut ir = base.clone();
        edit(&mut ir);
        refused_stale_or_recomputed(&dir, &mut ir, what, says);
    }
    // The IR as compiled runs (and its guard refuses the credit at
    // dispatch, as the conformance case expects).
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "--ir",
            "ir.json",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "credit",
            "--fingerprint",
            &base.fingerprint,
        ],
    );
    assert_eq!(status, 1, "{err}");
    assert!(err.contains("guard_refused"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 1: a planner's JSON with a top-level `ir_version` is a plan to
/// `planc run PLAN`, compiled and checked like any other: it does not run.
#[test]
fn a_plan_posing_as_an_ir_is_compiled_not_run() {
    let dir = scratch("pallet_credit_refused_by_its_guard", "posing");
    let mut ir = compile_ir(&dir);
    let credit = ir.steps.iter().position(|s| s.name == "credit").unwrap();
    ir.steps[credit].authz.guards.clear();
    ir.approvals.clear();
    ir.fingerprint = ir::fingerprint(&ir).unwrap();
    write_ir(&dir, "plan.json", &ir);
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.json",
            "--tools",
            "fixture:tools.json",
            "--trace",
            "trace.jsonl",
            "--approve-all",
        ],
    );
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("error"), "{err}");
    assert!(!dispatched(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 2: approvals are bound to the fingerprint reviewed. For an IR
/// file, bare step names are refused; an approvals file or `--fingerprint`
/// of another plan is exit 2; the right one runs.
#[test]
fn approvals_of_an_ir_name_its_fingerprint() {
    let dir = scratch("approved_plan_runs", "approvals");
    let ir = compile_ir(&dir);
    let run = |extra: &[&str]| {
        let _ = std::fs::remove_file(dir.join("trace.jsonl"));
        let mut args = vec![
            "run",
            "--ir",
            "ir.json",
            "--tools",
            "fixture:tools.json",
            "--trace",
            "trace.jsonl",
        ];
        args.extend_from_slice(extra);
        planc_in(&dir, &args)
    };
    let (status, err) = run(&["--approve", "put"]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("--fingerprint"), "{err}");
    assert!(!dispatched(&dir));
    let other = format!("sha256:{}", "0".repeat(64));
    let (status, err) = run(&["--approve", "put", "--fingerprint", &other]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("not what would run"), "{err}");
    assert!(!dispatched(&dir));
    let file = |fp: &str| {
        std::fs::write(
            dir.join("approvals.json"),
            format!(
                r#"{{"fingerprint": "{fp}", "steps": ["put"], "by": "ops@example.com", "at": "2026-01-02T10:00:00Z"}}"#
            ),
        )
        .unwrap();
    };
    file(&other);
    let (status, err) = run(&["--approvals", "approvals.json"]);
    assert_eq!(status, 2, "{err}");
    assert!(!dispatched(&dir));
    file(&ir.fingerprint);
    let (status, err) = run(&["--approvals", "approvals.json"]);
    assert_eq!(status, 0, "{err}");
    let (status, err) = run(&["--approve", "put", "--fingerprint", &ir.fingerprint]);
    assert_eq!(status, 0, "{err}");
    // A plan compiled by the command takes bare names, and a fingerprint
    // when one is given must be its own.
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "put",
        ],
    );
    assert_eq!(status, 0, "{err}");
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "put",
            "--fingerprint",
            &other,
        ],
    );
    assert_eq!(status, 2, "{err}");
    // A misspelt step: did you mean.
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "putt",
        ],
    );
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("`put`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 2: the machine does not trust `approvals` alone: a step whose
/// own `authz.approval` asks for one is not dispatched unapproved, even
/// when the list leaves it out (an executor handed the IR without the
/// command line's verification, as `planc.run` and the workflow are).
#[test]
fn the_machine_asks_approval_of_every_step_whose_rule_asks() {
    let dir = scratch("approved_plan_runs", "machine");
    let mut ir = compile_ir(&dir);
    ir.approvals.clear();
    let text = std::fs::read_to_string(dir.join("tools.json")).unwrap();
    let backend = planc::exec::fixture::Fixture::parse(&text).unwrap();
    struct Null;
    impl planc::exec::Sink for Null {
        fn progress(&mut self, _: &planc::progress::ProgressRecord) -> Result<(), String> {
            Ok(())
        }
        fn trace(&mut self, _: &planc::exec::Data) -> Result<(), String> {
            Ok(())
        }
    }
    let outcome =
        planc::exec::run(&ir, &Default::default(), None, &[], &backend, &mut Null).unwrap();
    assert_eq!(
        outcome.stop,
        planc::exec::Stop::ApprovalMissing(vec!["put".into()])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 3: `planc run NEW --progress RECORD` checks NEW against the
/// record, so a replan that renames a completed non-idempotent write is
/// E0307 and nothing runs.
#[test]
fn a_replan_renaming_a_completed_write_does_not_run_it_again() {
    let dir = scratch("approved_plan_runs", "rename");
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "put",
            "--progress",
            "p.json",
        ],
    );
    assert_eq!(status, 0, "{err}");
    let plan = std::fs::read_to_string(dir.join("plan.plan")).unwrap();
    std::fs::write(
        dir.join("new.plan"),
        plan.replace("step put =", "step put_again ="),
    )
    .unwrap();
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "new.plan",
            "--tools",
            "fixture:tools.json",
            "--approve",
            "put_again",
            "--progress",
            "p.json",
            "--trace",
            "trace.jsonl",
        ],
    );
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("E0307"), "{err}");
    assert!(!dispatched(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 10: with `--no-config`, or both `--catalog` and `--policy`, a
/// planted `planc.toml` names nothing `planc run` starts.
#[test]
fn a_planted_planc_toml_cannot_name_the_command_run_starts() {
    let dir = scratch("approved_plan_runs", "planted");
    let marker = dir.join("PLANTED");
    std::fs::write(
        dir.join("planc.toml"),
        format!(
            "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n[run]\ntools = \"mcp:touch {}\"\n",
            marker.display()
        ),
    )
    .unwrap();
    for flags in [
        &[
            "--no-config",
            "--catalog",
            "tools.plan",
            "--policy",
            "policy.plan",
        ][..],
        &["--catalog", "tools.plan", "--policy", "policy.plan"][..],
    ] {
        let mut args = vec!["run", "plan.plan", "--approve", "put"];
        args.extend_from_slice(flags);
        let (status, err) = planc_in(&dir, &args);
        assert_eq!(status, 2, "{err}");
        assert!(err.contains("no tool backend"), "{err}");
        assert!(!marker.exists(), "the planted command ran");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fake MCP server: answers `initialize`, then meets the call with
/// `rest` (a shell command writing to stdout).
fn fake_server(dir: &Path, rest: &str) -> String {
    let script = dir.join("server.sh");
    std::fs::write(
        &script,
        format!(
            "read -r line\nprintf '%s\\n' '{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"fake\",\"version\":\"1\"}}}}}}'\nread -r line\nread -r line\n{rest}\n"
        ),
    )
    .unwrap();
    format!("mcp:sh {}", script.display())
}

/// Finding 11: a server that sends a 300 MB line is cut off at the
/// message limit (16 MiB by default), and one that never ends its line at
/// the call's timeout; neither holds the run.
#[test]
fn a_hostile_mcp_server_cannot_hold_memory_or_the_run() {
    let dir = scratch("approved_plan_runs", "mcp");
    let tools = fake_server(&dir, "head -c 300000000 /dev/zero | tr '\\0' a");
    let started = Instant::now();
    let (status, err) = planc_in(
        &dir,
        &["run", "plan.plan", "--tools", &tools, "--approve", "put"],
    );
    assert_ne!(status, 0, "{err}");
    assert!(err.contains("over 16777216 bytes"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(60));
    // A smaller limit, from the flag.
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            &tools,
            "--approve",
            "put",
            "--max-message",
            "1000",
        ],
    );
    assert_ne!(status, 0, "{err}");
    assert!(err.contains("over 1000 bytes"), "{err}");
    // A line that never ends: the call times out and the connection ends.
    let tools = fake_server(&dir, "printf 'aaaa'\nexec sleep 120");
    let started = Instant::now();
    let (status, err) = planc_in(
        &dir,
        &[
            "run",
            "plan.plan",
            "--tools",
            &tools,
            "--approve",
            "put",
            "--timeout",
            "1",
        ],
    );
    assert_ne!(status, 0, "{err}");
    assert!(
        err.contains("timeout") || err.contains("did not end"),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 12: planc's one writer refuses a symbolic link at the
/// destination (its target untouched), and writes a destination that is
/// not a regular file (a FIFO; a character device) in place instead of
/// replacing it.
#[test]
fn planted_files_where_planc_writes_are_refused_or_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("approved_plan_runs", "write");
    // A symbolic link to a file the attacker wants truncated.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("out.json")).unwrap();
    let (status, err) = planc_in(&dir, &["compile", "plan.plan", "-o", "out.json"]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        std::fs::symlink_metadata(dir.join("out.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A FIFO: written to, and still a FIFO afterwards.
    let fifo = dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (status, err) = planc_in(&dir, &["compile", "plan.plan", "-o", "fifo"]);
    assert_eq!(status, 0, "{err}");
    let read = reader.join().unwrap();
    assert!(read.contains("\"fingerprint\""), "{read}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // A character device of our own (`/dev/null`'s numbers), where the
    // system lets us make one: written, never replaced by a regular file.
    let null = dir.join("null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let (status, err) = planc_in(&dir, &["compile", "plan.plan", "-o", "null"]);
        assert_eq!(status, 0, "{err}");
        assert!(
            std::fs::symlink_metadata(&null)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding 7: the types the executor checks values against are part of
/// what is verified. An IR whose `result_types` or `arg_types` are
/// dropped or loosened (so that a result outside its declared enum is
/// bound, or a list reaches a string parameter unchecked) does not run,
/// with its fingerprint stale or recomputed; nothing is dispatched.
#[test]
fn an_ir_with_its_result_types_dropped_or_loosened_does_not_run() {
    type Edit = Box<dyn Fn(&mut PlanIr)>;
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "result_outside_its_type_is_not_bound",
            "result types dropped",
            Box::new(|ir| ir.steps[0].result_types = ir::Map::new()),
        ),
        (
            "result_outside_its_type_is_not_bound",
            "enum widened",
            Box::new(|ir| {
                ir.steps[0].result_types.insert(
                    "status".into(),
                    ir::TypeIr::Enum(vec!["open".into(), "closed".into(), "escalated".into()]),
                );
            }),
        ),
        (
            "result_outside_its_type_is_not_bound",
            "record made any",
            Box::new(|ir| {
                ir.steps[0]
                    .result_types
                    .insert("refund".into(), ir::TypeIr::Any);
            }),
        ),
        (
            "any_result_of_the_wrong_type_is_not_dispatched",
            "argument check dropped",
            Box::new(|ir| ir.steps[1].arg_types = ir::Map::new()),
        ),
        (
            "any_result_of_the_wrong_type_is_not_dispatched",
            "argument check loosened",
            Box::new(|ir| {
                ir.steps[1].arg_types.insert(
                    "value".into(),
                    ir::TypeIr::Union(vec![
                        ir::TypeIr::String,
                        ir::TypeIr::List(Box::new(ir::TypeIr::String)),
                    ]),
                );
            }),
        ),
    ];
    for (case, what, edit) in &cases {
        let dir = scratch(case, "types");
        let mut ir = compile_ir(&dir);
        edit(&mut ir);
        refused_stale_or_recomputed(&dir, &mut ir, what, "_types` are not");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
