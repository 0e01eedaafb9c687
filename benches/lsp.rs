//! The editor's loop on a 1,000-step plan: the time from a `didChange` to
//! the `publishDiagnostics` it causes, through the whole server (in
//! process, over `Connection::memory()`), beside the driver alone on the
//! same text. A keystroke is about 10 ms apart at the fastest typing; the
//! server has to stay far under that.
//!
//! The percentiles over a run of edits, through the real binary over stdio,
//! are printed by the ignored test `latency_of_a_thousand_step_plan` in
//! `tests/lsp_e2e.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

// The allocator of the `planc` binary, which the server runs in.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/support/big.rs"]
mod big;
use big::{POLICY, TOOLS, big_plan};

fn notify(c: &Connection, method: &str, params: Value) {
    c.sender
        .send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )))
        .unwrap();
}

/// Waits for the diagnostics of `version`.
fn published(c: &Connection, version: i32) -> usize {
    loop {
        match c.receiver.recv_timeout(Duration::from_secs(30)).unwrap() {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics"
                    && n.params["version"] == version =>
            {
                return n.params["diagnostics"].as_array().unwrap().len();
            }
            _ => {}
        }
    }
}

fn bench(c: &mut Criterion) {
    let dir = big::project("planc-lsp-bench");
    let path = dir.join("big.plan");
    let uri = planc::lsp::uri::from_path(&path)
        .unwrap()
        .as_str()
        .to_string();
    let text = big_plan(1000);
    let misspelt = text.replacen("${acct499}", "${acct49x}", 1);

    let mut group = c.benchmark_group("lsp/1000_steps");
    group.throughput(criterion::Throughput::Bytes(text.len() as u64));

    // The text front end alone, on the plan.
    group.bench_function("syntax::parse_text", |b| {
        b.iter(|| {
            planc::syntax::parse_text(planc::FileId(0), black_box(&misspelt))
                .1
                .len()
        })
    });

    // The driver alone: parse and check the plan against the catalogue and
    // the policy.
    group.bench_function("driver::run", |b| {
        b.iter(|| {
            let mut job = planc::driver::Job::default();
            let plan = job.sources.add("big.plan", black_box(&misspelt).clone());
            let tools = job.sources.add("tools.plan", TOOLS);
            let policy = job.sources.add("policy.plan", POLICY);
            job.plans.push(plan);
            job.catalog.push(tools);
            job.policy.push(policy);
            planc::driver::run(&mut job).diagnostics.len()
        })
    });

    // The server: didChange to publishDiagnostics.
    let (server_side, client) = Connection::memory();
    let server = std::thread::spawn(move || planc::lsp::run(&server_side));
    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".to_string(),
            json!({ "capabilities": {} }),
        )))
        .unwrap();
    client.receiver.recv().unwrap();
    notify(&client, "initialized", json!({}));
    notify(
        &client,
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "planc", "version": 1, "text": text } }),
    );
    published(&client, 1);
    let mut version = 1;
    group.bench_function("didChange to publishDiagnostics", |b| {
        b.iter(|| {
            version += 1;
            let edited = if version % 2 == 0 { &misspelt } else { &text };
            notify(
                &client,
                "textDocument/didChange",
                json!({
                    "textDocument": { "uri": uri, "version": version },
                    "contentChanges": [{ "text": edited }]
                }),
            );
            published(&client, version)
        })
    });
    group.finish();

    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(2),
            "shutdown".to_string(),
            Value::Null,
        )))
        .unwrap();
    notify(&client, "exit", Value::Null);
    let _ = server.join();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
