//! The cost of every view of a hostile input stays in proportion to the
//! input: three plans a hostile planner could write, each checked in every
//! format, compiled, graphed (DOT and Mermaid) and reviewed by the binary
//! as a user runs it, each output at most 10 MB.
//!
//! - a 230 KB plan whose every step comes `after` the 50 before it (the
//!   graph drew every edge, the page was 70 MB);
//! - a one-line JSON plan with 5,000 errors (the human report drew the
//!   whole line for each: 2.3 GB);
//! - a ~455 KB plan of long names a few letters from the catalogue's (the
//!   suggestions cost the square of each name's length: minutes).
//!
//! Time is not measured (the machine's load decides it); what is measured
//! is what bounds it: the bytes written, and the work units of the
//! suggestion search (`planc::suggest`'s own tests).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most a command may write for an input of up to a megabyte.
const MAX_OUTPUT: usize = 10 * 1024 * 1024;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs planc; returns the exit code and the bytes written to stdout,
/// stderr and `-o` together.
fn measure(args: &[&str], out: Option<&Path>) -> (Option<i32>, usize, String) {
    if let Some(o) = out {
        let _ = std::fs::remove_file(o);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_planc"))
        .args(args)
        .args(["--color", "never"])
        .output()
        .unwrap();
    let file = out
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len() as usize);
    let head = String::from_utf8_lossy(&o.stderr[..o.stderr.len().min(2000)]).into_owned();
    (
        o.status.code(),
        o.stdout.len() + o.stderr.len() + file,
        head,
    )
}

/// Every view of `plan`, each written in at most [`MAX_OUTPUT`] bytes.
fn every_view(dir: &Path, plan: &Path, extra: &[&str], ok: bool) {
    let plan = plan.to_str().unwrap();
    let page = dir.join("page.html");
    let page_s = page.to_str().unwrap();
    let mut runs: Vec<(Vec<&str>, Option<&Path>)> = Vec::new();
    for format in ["human", "short", "json", "sarif"] {
        runs.push((vec!["check", plan, "--format", format], None));
    }
    runs.push((vec!["compile", plan], None));
    runs.push((vec!["graph", plan], None));
    runs.push((vec!["graph", plan, "--format", "mermaid"], None));
    runs.push((vec!["review", plan, "-o", page_s], Some(&page)));
    for (args, out) in runs {
        let args: Vec<&str> = args.iter().copied().chain(extra.iter().copied()).collect();
        let (code, bytes, head) = measure(&args, out);
        assert!(
            bytes <= MAX_OUTPUT,
            "planc {}: {bytes} bytes written",
            args.join(" ")
        );
        let expected = if ok || args[0] == "check" && args.contains(&"sarif") {
            [Some(0), Some(1)]
        } else {
            [Some(1), Some(1)]
        };
        assert!(
            expected.contains(&code),
            "planc {}: {code:?} {head}",
            args.join(" ")
        );
    }
}

const TOOLS: &str = "tool t.step(n: int) -> { ok: bool } read idempotent\n\
                     policy p {\n    actor [s:r]\n    t.step requires [s:r]\n}\n";

#[test]
fn a_plan_whose_steps_each_come_after_the_fifty_before() {
    let dir = scratch("cost_after");
    let mut text = format!("{TOOLS}plan p \"every step after the fifty before\" {{\n");
    let mut k: usize = 0;
    while text.len() < 230 * 1024 {
        let _ = write!(text, "    step step_{k:05} = t.step(n: {k})");
        if k > 0 {
            let afters: Vec<String> = (k.saturating_sub(50)..k)
                .map(|j| format!("step_{j:05}"))
                .collect();
            let _ = write!(text, " {{ after {} }}", afters.join(", "));
        }
        text.push('\n');
        k += 1;
    }
    text.push_str("}\n");
    let plan = dir.join("after.plan");
    std::fs::write(&plan, &text).unwrap();
    every_view(&dir, &plan, &["--no-config"], true);
    // The graph draws the chain, not the 50 edges a step: the edges other
    // edges imply are left out, and it says so.
    let dot = Command::new(env!("CARGO_BIN_EXE_planc"))
        .args(["graph", plan.to_str().unwrap(), "--no-config"])
        .output()
        .unwrap();
    let dot = String::from_utf8(dot.stdout).unwrap();
    assert_eq!(dot.matches(" -> ").count(), k - 1, "one edge a step");
    assert!(dot.contains("`after` or write-order edges that other edges already imply"));
}

#[test]
fn a_one_line_json_plan_with_five_thousand_errors() {
    let dir = scratch("cost_json_line");
    let tools = dir.join("tools.plan");
    std::fs::write(
        &tools,
        "tool t.step(n: int) -> { ok: bool } read idempotent\n",
    )
    .unwrap();
    let policy = dir.join("policy.plan");
    std::fs::write(
        &policy,
        "policy p {\n    actor [s:r]\n    t.step requires [s:r]\n}\n",
    )
    .unwrap();
    let mut text = String::from(r#"{"plan":"p","goal":"five thousand errors","steps":["#);
    for k in 0..5000 {
        if k > 0 {
            text.push(',');
        }
        // A string where an int is wanted: one error a step.
        let _ = write!(
            text,
            r#"{{"n":{k},"tool":"t.step","args":{{"n":"not a number {k}"}}}}"#
        );
    }
    text.push_str("]}");
    assert!(!text.contains('\n'));
    assert!(text.len() > 200 * 1024, "{}", text.len());
    let plan = dir.join("plan.json");
    std::fs::write(&plan, &text).unwrap();
    let (t, p) = (tools.to_str().unwrap(), policy.to_str().unwrap());
    every_view(
        &dir,
        &plan,
        &["--no-config", "--catalog", t, "--policy", p],
        false,
    );
    // Each report shows a window of the line around its span.
    let o = Command::new(env!("CARGO_BIN_EXE_planc"))
        .args([
            "check",
            plan.to_str().unwrap(),
            "--no-config",
            "--catalog",
            t,
            "--policy",
            p,
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.matches("[E0").count() >= 5000,
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
    let longest = err.lines().map(str::len).max().unwrap();
    assert!(longest < 400, "a report line of {longest} bytes");
    assert!(err.contains("…"), "the line is cut around the span");
    assert!(
        err.contains("plan.json:1:"),
        "the position names the file's column"
    );
}

#[test]
fn a_plan_of_long_names_a_few_letters_from_the_catalogues() {
    let dir = scratch("cost_long_names");
    let mut text = String::new();
    let base = |k: usize| format!("t{k}.{}", "abcdefghij".repeat(200));
    for k in 0..40 {
        let _ = writeln!(text, "tool {}(n: int) -> {{ ok: bool }} read", base(k));
    }
    text.push_str("policy p {\n    actor [s:r]\n");
    for k in 0..40 {
        let _ = writeln!(text, "    {} requires [s:r]", base(k));
    }
    text.push_str("}\nplan p \"near misses\" {\n");
    let mut k = 0;
    while text.len() < 455 * 1024 {
        // Two letters swapped in the middle of a long name.
        let mut name = base(k % 40);
        let mid = name.len() / 2;
        name.replace_range(mid..mid + 2, "ba");
        let _ = writeln!(text, "    step s{k} = {name}(n: {k})");
        k += 1;
    }
    text.push_str("}\n");
    let plan = dir.join("long.plan");
    std::fs::write(&plan, &text).unwrap();
    every_view(&dir, &plan, &["--no-config"], false);
}
