//! `planc run` against real MCP servers started here: the reference
//! filesystem server (npm, pinned in `tests/mcp/package.json`) with a
//! catalogue taken from its own `tools/list`, and a fault server written with
//! the official Python SDK (`tests/mcp/fault_server.py`, pinned in
//! `tests/mcp/requirements.txt`) whose tools fail, hang and die on command.
//!
//! Each test is skipped, with a message saying how to install what it
//! needs, when its server is absent; `.ci/mcp.sh` installs both and runs
//! them for real.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

fn fs_server() -> Option<PathBuf> {
    let bin = here().join("node_modules/.bin/mcp-server-filesystem");
    if bin.is_file() {
        Some(bin)
    } else {
        eprintln!(
            "skipped: the MCP filesystem server is not installed (run `npm ci` in tests/mcp, or .ci/mcp.sh)"
        );
        None
    }
}

fn python_sdk() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import mcp.server.mcpserver"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!(
            "skipped: the Python MCP SDK is not installed (pip install -r tests/mcp/requirements.txt, or .ci/mcp.sh)"
        );
    }
    ok
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("planc-mcp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The server's own `tools/list` result, as a catalogue file's content.
fn tools_list(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Value {
    let mut child = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "planc-tests", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    stdin.flush().unwrap();
    let reader = BufReader::new(child.stdout.take().unwrap());
    let mut result = Value::Null;
    for line in reader.lines() {
        let msg: Value = serde_json::from_str(&line.unwrap()).unwrap_or(Value::Null);
        if msg["id"] == 1 {
            result = msg["result"].clone();
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert!(result["tools"].is_array(), "no tools/list result");
    result
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

struct Ran {
    status: i32,
    record: Value,
    stderr: String,
}

fn planc_run(dir: &Path, tools: &str, extra: &[&str], envs: &[(&str, &str)]) -> Ran {
    let out = Command::new(env!("CARGO_BIN_EXE_planc"))
        .arg("run")
        .arg(dir.join("plan.plan"))
        .arg(format!("--tools={tools}"))
        .arg(format!(
            "--progress={}",
            dir.join("progress.json").display()
        ))
        .arg(format!("--trace={}", dir.join("trace.jsonl").display()))
        .args(extra)
        .envs(envs.iter().copied())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let record = std::fs::read_to_string(dir.join("progress.json"))
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    Ran {
        status: out.status.code().unwrap_or(-1),
        record,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn step<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step `{name}` in {record}"))
}

#[test]
fn a_plan_compiled_from_the_filesystem_servers_tool_list_runs_against_it() {
    let Some(server) = fs_server() else { return };
    let dir = tmp("fs");
    let root = dir.join("files");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    write(&root.join("in.txt"), "first line\n");
    let server = server.to_str().unwrap().to_string();
    let root_s = root.to_str().unwrap();
    // The server's own list, whole and unmodified: every tool imports.
    let list = tools_list(&server, &[root_s], &[]);
    // Its tools declare what they return: every result the run gets is
    // validated against that outputSchema before anything is bound.
    let declared = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            ["read_text_file", "write_file", "list_directory"]
                .contains(&t["name"].as_str().unwrap_or(""))
        })
        .filter(|t| t["outputSchema"].is_object())
        .count();
    assert_eq!(
        declared, 3,
        "the server's tools no longer declare an outputSchema"
    );
    write(&dir.join("tools.json"), &list.to_string());
    write(
        &dir.join("policy.plan"),
        "policy files {\n    actor [fs:read, fs:write]\n    read_text_file requires [fs:read]\n    \
         write_file requires [fs:write]\n    list_directory requires [fs:read]\n}\n",
    );
    write(
        &dir.join("planc.toml"),
        &format!(
            "catalog = [\"tools.json\"]\npolicy = \"policy.plan\"\n\n[run]\ntools = \"mcp:{server} {root_s}\"\n"
        ),
    );
    write(
        &dir.join("plan.plan"),
        &format!(
            r#"plan copy_note "read a file, write a copy, check both" {{
    step read = read_text_file(path: "{root_s}/in.txt") {{
        post exists($.content)
        bind text = $.content
    }}
    step copy = write_file(path: "{root_s}/out.txt", content: text) {{
        post exists($.content)
    }}
    step check = read_text_file(path: "{root_s}/out.txt") {{
        post $.content == "first line\n"
        after copy
    }}
    step listing = list_directory(path: "{root_s}") {{
        post exists($.content)
        bind names = $.content
        after copy
    }}
}}
"#
        ),
    );
    // The backend comes from `[run] tools` of planc.toml.
    let out = Command::new(env!("CARGO_BIN_EXE_planc"))
        .arg("run")
        .arg(dir.join("plan.plan"))
        .arg("--approve-all")
        .arg(format!(
            "--progress={}",
            dir.join("progress.json").display()
        ))
        .arg(format!("--trace={}", dir.join("trace.jsonl").display()))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The protocol version negotiated is in the trace, before any call.
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    let first: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "session", "{trace}");
    assert!(
        planc::exec::mcp::PROTOCOL_VERSIONS.contains(&first["protocol_version"].as_str().unwrap()),
        "{first}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("out.txt")).unwrap(),
        "first line\n"
    );
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("progress.json")).unwrap()).unwrap();
    for name in ["read", "copy", "check", "listing"] {
        assert_eq!(step(&record, name)["status"], "complete", "{record}");
    }
    assert_eq!(step(&record, "read")["binds"]["text"], "first line\n");
    assert!(
        step(&record, "listing")["binds"]["names"]
            .as_str()
            .unwrap()
            .contains("out.txt")
    );

    // A tool error from the server (a file outside its root) is a failed
    // step with `tool_error`, recorded.
    write(
        &dir.join("plan.plan"),
        r#"plan outside "read outside the allowed folder" {
    step read = read_text_file(path: "/etc/hostname") {
        bind text = $.content
        on_unmet halt
    }
}
"#,
    );
    let _ = std::fs::remove_file(dir.join("progress.json"));
    let ran = planc_run(&dir, &format!("mcp:{server} {root_s}"), &[], &[]);
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    assert_eq!(step(&ran.record, "read")["failure"]["kind"], "tool_error");
    let _ = std::fs::remove_dir_all(&dir);
}

const FAULT_POLICY: &str = "policy faults {
    actor [store:read, store:write]
    store_read requires [store:read]
    store_write requires [store:write]
    flaky_read requires [store:read]
    hang requires [store:read]
    die requires [store:write]
    lying_status requires [store:read]
    honest_status requires [store:read]
    task_only requires [store:read]
}
";

/// A folder with the fault server's catalogue (its own `tools/list`), the
/// policy and `plan`; returns the folder and the `mcp:` backend.
fn fault_case(name: &str, plan: &str) -> (PathBuf, String) {
    let dir = tmp(name);
    let calls = dir.join("calls.jsonl");
    let server = here().join("fault_server.py");
    let server = server.to_str().unwrap();
    let envs = [("FAULT_CALLS", calls.to_str().unwrap())];
    let list = tools_list("python3", &[server], &envs);
    let _ = std::fs::remove_file(&calls);
    write(&dir.join("tools.json"), &list.to_string());
    write(&dir.join("policy.plan"), FAULT_POLICY);
    write(
        &dir.join("planc.toml"),
        "catalog = [\"tools.json\"]\npolicy = \"policy.plan\"\n",
    );
    write(&dir.join("plan.plan"), plan);
    (dir, format!("mcp:python3 {server}"))
}

fn calls(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("calls.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn fault_server_tool_errors_are_retried_for_idempotent_reads() {
    if !python_sdk() {
        return;
    }
    let (dir, tools) = fault_case(
        "flaky",
        "plan flaky \"read through a flaky tool\" {\n    step r = flaky_read(key: \"a\") {\n        retry 2\n        bind v = $.value\n    }\n}\n",
    );
    let calls_file = dir.join("calls.jsonl");
    let envs = [
        ("FAULT_CALLS", calls_file.to_str().unwrap()),
        ("FAULT_FLAKY", "2"),
    ];
    let ran = planc_run(&dir, &tools, &[], &envs);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(step(&ran.record, "r")["attempts"], 2);
    assert_eq!(calls(&dir).len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fault_server_hang_times_out_and_death_is_a_recorded_tool_error() {
    if !python_sdk() {
        return;
    }
    let (dir, tools) = fault_case(
        "hang",
        "plan hangs \"a tool that never answers\" {\n    step h = hang() {\n        on_unmet halt\n    }\n}\n",
    );
    let calls_file = dir.join("calls.jsonl");
    let envs = [("FAULT_CALLS", calls_file.to_str().unwrap())];
    let started = Instant::now();
    let ran = planc_run(&dir, &tools, &["--timeout=1"], &envs);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    let failure = &step(&ran.record, "h")["failure"];
    assert_eq!(failure["kind"], "tool_error");
    assert_eq!(failure["code"], "timeout");

    // The server dies mid-call: the step fails with `server_exited`, the
    // record keeps it, and the independent step after it fails the same way
    // instead of waiting forever.
    write(
        &dir.join("plan.plan"),
        "plan dies \"a tool that kills its server\" {\n    step d = die() {\n        on_unmet escalate\n    }\n    step r = store_read(key: \"a\") {\n        bind v = $.value\n    }\n}\n",
    );
    let _ = std::fs::remove_file(dir.join("progress.json"));
    let ran = planc_run(&dir, &tools, &["--timeout=20"], &envs);
    assert_eq!(ran.status, 3, "{}", ran.stderr);
    let d = step(&ran.record, "d");
    assert_eq!(d["status"], "failed");
    assert_eq!(d["failure"]["code"], "server_exited");
    assert!(ran.stderr.contains("server_exited"), "{}", ran.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

const FIVE_STEPS: &str = r#"plan five "five steps, two writes" {
    step s1 = store_read(key: "in") { bind v1 = $.value }
    step s2 = store_write(key: "out1", value: "one") {
        post exists($.written)
        after s1
    }
    step s3 = store_read(key: "out1") {
        bind v3 = $.value
        after s2
    }
    step s4 = store_write(key: "out2", value: v3) { post exists($.written) }
    step s5 = store_read(key: "out2") {
        post $.value == "one"
        after s4
    }
}
"#;

/// The process is killed (SIGKILL) at every step boundary of a five-step
/// plan with two writes, then started again with the same record: every run
/// completes, and no call, write or read, is made twice (the server counts
/// them in its file across restarts). A write killed in flight is sent again
/// only on a person's decision (`--redispatch`).
#[test]
fn killed_at_every_step_boundary_resumes_without_a_duplicated_write() {
    if !python_sdk() {
        return;
    }
    for boundary in 1..=5 {
        let (dir, tools) = fault_case(&format!("kill{boundary}"), FIVE_STEPS);
        let calls_file = dir.join("calls.jsonl");
        let hang_at = boundary.to_string();
        let envs = [
            ("FAULT_CALLS", calls_file.to_str().unwrap()),
            ("FAULT_HANG_AT", hang_at.as_str()),
        ];
        let mut child = Command::new(env!("CARGO_BIN_EXE_planc"))
            .arg("run")
            .arg(dir.join("plan.plan"))
            .arg(format!("--tools={tools}"))
            .arg(format!(
                "--progress={}",
                dir.join("progress.json").display()
            ))
            .envs(envs.iter().copied())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Steps 1..boundary-1 are complete when the server hangs on call
        // `boundary`, before it takes effect: kill the executor there.
        let marker = dir.join("calls.jsonl.hung");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !marker.exists() {
            assert!(
                Instant::now() < deadline,
                "the server never hung at {boundary}"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "planc ended before the boundary {boundary}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_eq!(calls(&dir).len(), boundary - 1);
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("progress.json")).unwrap())
                .expect("the record a killed run leaves is whole");
        let complete = record["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["status"] == "complete")
            .count();
        assert_eq!(complete, boundary - 1, "{record}");

        let mut ran = planc_run(&dir, &tools, &[], &envs);
        if boundary == 2 || boundary == 4 {
            // Killed during a write: it may have committed, so the resumed
            // run dispatches nothing and stops for a person's decision
            // (`outcome_unknown`, exit 3). Here the server hung before the
            // write took effect, so the decision is to send it again.
            assert_eq!(ran.status, 3, "boundary {boundary}: {}", ran.stderr);
            assert!(ran.stderr.contains("outcome"), "{}", ran.stderr);
            assert_eq!(calls(&dir).len(), boundary - 1);
            let step = format!("--redispatch=s{boundary}");
            ran = planc_run(&dir, &tools, &[step.as_str()], &envs);
        }
        assert_eq!(ran.status, 0, "boundary {boundary}: {}", ran.stderr);
        let made = calls(&dir);
        let writes = made.iter().filter(|c| c["tool"] == "store_write").count();
        assert_eq!(writes, 2, "boundary {boundary}: {made:?}");
        assert_eq!(made.len(), 5, "boundary {boundary}: {made:?}");
        kill_orphans(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The killed executor's server hangs on; it wrote its pid.
fn kill_orphans(dir: &Path) {
    if let Ok(pids) = std::fs::read_to_string(dir.join("calls.jsonl.pids")) {
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-9", pid]).status();
        }
    }
}

/// The attacker's server: `lying_status` lists an outputSchema (`status`
/// one of "open", "closed") and answers "escalated". The backend validates
/// `structuredContent` against the listed schema before the machine sees
/// it: the step fails with `result_type` though it binds nothing (so no
/// declared type in the IR would catch it), and the write after it is
/// never called. The honest tool with the same schema completes.
#[test]
fn fault_server_result_outside_its_output_schema_is_not_bound() {
    if !python_sdk() {
        return;
    }
    let (dir, tools) = fault_case(
        "lying",
        "plan lies \"a status outside its schema\" {\n    step honest = honest_status(ticket: \"T-1\") {\n        post exists($.status)\n    }\n    step s = lying_status(ticket: \"T-1\") {\n        post $.status != \"open\"\n        on_unmet halt\n        after honest\n    }\n    step w = store_write(key: \"refund\", value: \"T-1\") {\n        post exists($.written)\n        after s\n    }\n}\n",
    );
    let calls_file = dir.join("calls.jsonl");
    let envs = [("FAULT_CALLS", calls_file.to_str().unwrap())];
    let ran = planc_run(&dir, &tools, &[], &envs);
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    assert_eq!(step(&ran.record, "honest")["status"], "complete");
    let s = step(&ran.record, "s");
    assert_eq!(s["status"], "failed");
    assert_eq!(s["failure"]["kind"], "result_type", "{s}");
    assert!(
        s["failure"]["expected"]["message"]
            .as_str()
            .unwrap()
            .contains("outside its outputSchema"),
        "{s}"
    );
    assert_eq!(step(&ran.record, "w")["status"], "pending");
    let made: Vec<String> = calls(&dir)
        .iter()
        .map(|c| c["tool"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(made, ["honest_status", "lying_status"]);
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    assert!(trace.contains("\"event\":\"result_type\""), "{trace}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tool listed as runnable only as a task (`execution.taskSupport:
/// "required"`): planc does not support tasks yet, so the call is refused
/// with a clear error before it is sent.
#[test]
fn fault_server_task_only_tool_is_refused_before_it_is_called() {
    if !python_sdk() {
        return;
    }
    let (dir, tools) = fault_case(
        "task",
        "plan task \"a tool that runs only as a task\" {\n    step t = task_only() {\n        on_unmet halt\n    }\n}\n",
    );
    let calls_file = dir.join("calls.jsonl");
    let envs = [("FAULT_CALLS", calls_file.to_str().unwrap())];
    let ran = planc_run(&dir, &tools, &[], &envs);
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    let t = step(&ran.record, "t");
    assert_eq!(t["failure"]["kind"], "tool_error");
    assert_eq!(t["failure"]["code"], "task_required");
    assert!(ran.stderr.contains("task_required"), "{}", ran.stderr);
    assert!(calls(&dir).is_empty(), "the task-only tool was called");
    let _ = std::fs::remove_dir_all(&dir);
}
