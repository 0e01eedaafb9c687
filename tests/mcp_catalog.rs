//! A real MCP server's tool list: the reference filesystem server
//! (`@modelcontextprotocol/server-filesystem`, pinned in
//! `tests/mcp/package.json`) imports whole, and a plan over it checks.
//!
//! The captured `tools/list` result (`tests/mcp/filesystem-tools.json`) is
//! tested everywhere. The live test starts the server over stdio and asks it
//! for the list; it needs `npm ci` in `tests/mcp` (`.ci/mcp.sh` does
//! that) and is skipped with a message when node or the package is absent,
//! unless `PLANC_REQUIRE_MCP` is set, as CI sets it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use planc::SourceKind;
use planc::driver::{self, Job, Outcome};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

/// Checks the filesystem plan and policy against `catalogue`.
fn check_with(catalogue: &str) -> Outcome {
    let mut job = Job::default();
    let plan = job.sources.add_with_kind(
        "filesystem.plan.json",
        read("filesystem.plan.json"),
        SourceKind::Json,
    );
    let cat = job
        .sources
        .add_with_kind("tools.json", catalogue.to_string(), SourceKind::Json);
    let pol = job.sources.add_with_kind(
        "filesystem.policy.json",
        read("filesystem.policy.json"),
        SourceKind::Json,
    );
    job.plans.push(plan);
    job.catalog.push(cat);
    job.policy.push(pol);
    driver::run(&mut job)
}

fn assert_clean(outcome: &Outcome, what: &str) {
    let shown: Vec<String> = outcome
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(shown.is_empty(), "{what}: {shown:#?}");
    assert_eq!(outcome.checked.plans.len(), 1, "{what}");
}

fn tool_names(outcome: &Outcome) -> Vec<String> {
    let mut names: Vec<String> = outcome
        .checked
        .catalog
        .names()
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn the_captured_list_imports_whole_and_a_plan_over_it_checks() {
    let outcome = check_with(&read("filesystem-tools.json"));
    assert_clean(&outcome, "captured tools/list");
    assert_eq!(outcome.checked.catalog.len(), 14);
    // The entries carry keys planc does not read (`title`, `execution`),
    // and nothing of the list was degraded.
    let text = read("filesystem-tools.json");
    assert!(text.contains("\"execution\"") && text.contains("\"title\""));
    assert!(
        outcome
            .checked
            .catalog
            .tools()
            .iter()
            .all(|t| t.degraded.is_none())
    );
}

/// Sends one JSON-RPC message, newline-delimited.
fn send(stdin: &mut impl Write, message: serde_json::Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

/// The server's response to request `id`, skipping notifications and
/// logs; gives up after a minute.
fn response(lines: &mpsc::Receiver<String>, id: u64) -> serde_json::Value {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no response {id} from the server: {e}"));
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v.get("id").and_then(serde_json::Value::as_u64) == Some(id) {
            return v;
        }
    }
}

#[test]
fn the_live_server_list_imports_whole_and_a_plan_over_it_checks() {
    let required = std::env::var_os("PLANC_REQUIRE_MCP").is_some();
    let server = dir().join("node_modules/.bin/mcp-server-filesystem");
    let node = Command::new("node").arg("--version").output();
    if !server.exists() || node.is_err() {
        let why = "needs node and `npm ci` in tests/mcp (.ci/mcp.sh does both)";
        assert!(!required, "PLANC_REQUIRE_MCP is set, but the test {why}");
        eprintln!("skipped: the live filesystem MCP server test {why}");
        return;
    }
    let root = std::env::temp_dir().join(format!("planc-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let mut child = Command::new(&server)
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "planc-tests", "version": "0"}}}),
    );
    let init = response(&rx, 1);
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let list = response(&rx, 2);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&root);
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    // The whole JSON-RPC response is a catalogue planc reads.
    let outcome = check_with(&list.to_string());
    assert_clean(&outcome, "live tools/list");
    // The committed capture is the same list.
    let captured = check_with(&read("filesystem-tools.json"));
    assert_eq!(tool_names(&outcome), tool_names(&captured));
}
