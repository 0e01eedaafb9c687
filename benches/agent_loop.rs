//! The agent loop's check, in process: a [`planc::Compiler`] built once
//! from the Northwind catalogue and policy, then `Compiler::check` of the
//! benchmark plan at 10 to 100,000 steps, beside
//! `serde_json::from_str::<serde_json::Value>` of the same JSON in the same
//! run. It prints one table (median microseconds per call, and the ratios
//! docs/performance.md reports); `benches/pydantic_compare.py` times
//! pydantic on the same plans.
//!
//!     cargo bench --bench agent_loop                       # about two minutes
//!     PLANC_BENCH_SIZES=10,1000 cargo bench --bench agent_loop
//!     PLANC_BENCH_EMIT=DIR cargo bench --bench agent_loop  # write the plans, no timing
//!     PLANC_BENCH_STAGE=check:1000 valgrind --tool=callgrind \
//!         --toggle-collect='*run_stage*' target/release/deps/agent_loop-HASH
//!                                      # one run of one stage, for instruction counts
//!
//!     PLANC_BENCH_VALUE=FILE target/release/deps/agent_loop-HASH
//!                                      # a serde_json Value of FILE, for its peak memory
//!
//! `benches/goals.py` runs all of these, and pydantic, in one run.
//!
//! Stages: `serde_json` (a `Value` of the JSON plan), `check` (the compiled
//! catalogue's `check` of the JSON plan, IR included), `check_only` (the
//! JSON front end and `check::check_plans` against the compiled models: no
//! IR, no source map), `check_run`
//! (`driver::run` of the same plan: the catalogue and policy parsed and
//! built again, as one `planc check` process does; `text_check_run`, the
//! same of the text form), `text_compile`
//! (`check` of the text form and the IR written on one line).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use planc::check;
use planc::driver::{self, Job};
use planc::source::FileId;
use planc::{Compiler, SourceKind};

#[path = "support/plans.rs"]
mod plans;
use plans::{POLICY, SIZES, TOOLS, json_plan, text_plan};

fn compiler() -> Compiler {
    let c = Compiler::new(
        &[("tools.plan", TOOLS)],
        Some(("policy.plan", POLICY)),
        None,
    );
    assert!(
        c.diagnostics().is_empty(),
        "the Northwind catalogue has errors"
    );
    c
}

/// One run of one stage, apart from its setup, so that
/// `valgrind --tool=callgrind --toggle-collect='*run_stage*'` counts its
/// instructions alone.
#[inline(never)]
fn run_stage(stage: &str, c: &Compiler, text: &str, doc: &str) -> usize {
    match stage {
        "serde_json" => serde_json::from_str::<serde_json::Value>(doc)
            .map(|v| usize::from(v.is_object()))
            .unwrap_or(0),
        "check" => {
            let checked = c.check("plan.json", doc, SourceKind::Json);
            assert!(checked.ir.is_some(), "the benchmark plan has errors");
            checked.diagnostics.len()
        }
        "check_only" => {
            let (module, diags) = planc::syntax::read_json_plan(FileId(0), doc);
            let errors: Vec<_> = diags.iter().map(|d| d.span).collect();
            let (diags, plans) = check::check_plans(c.models(), &[&module], &errors, None);
            assert!(
                !diags.iter().any(|d| d.is_error()),
                "the benchmark plan has errors"
            );
            plans.len()
        }
        "check_run" | "text_check_run" => {
            let mut job = Job::default();
            let p = if stage == "check_run" {
                job.sources.add("plan.json", doc)
            } else {
                job.sources.add("plan.plan", text)
            };
            let t = job.sources.add("tools.plan", TOOLS);
            let pol = job.sources.add("policy.plan", POLICY);
            job.plans.push(p);
            job.catalog.push(t);
            job.policy.push(pol);
            driver::run(&mut job).diagnostics.len()
        }
        "text_compile" => {
            let checked = c.check("plan.plan", text, SourceKind::Text);
            let irs = checked.ir.expect("the benchmark plan has errors");
            irs.iter()
                .map(|ir| planc::ir::to_json_compact(ir).map(|s| s.len()).unwrap_or(0))
                .sum()
        }
        _ => {
            eprintln!("unknown stage `{stage}`");
            std::process::exit(2);
        }
    }
}

const STAGES: &[&str] = &[
    "serde_json",
    "check_only",
    "check",
    "check_run",
    "text_compile",
];

/// The median wall time of `stage`, in microseconds, over enough runs to
/// fill about a second (at least 3).
fn time(stage: &str, c: &Compiler, text: &str, doc: &str) -> f64 {
    let once = {
        let t = Instant::now();
        black_box(run_stage(stage, c, text, doc));
        t.elapsed()
    };
    let runs = (Duration::from_secs(1).as_secs_f64() / once.as_secs_f64().max(1e-7))
        .clamp(3.0, 20_000.0) as usize;
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(run_stage(stage, c, text, doc));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn sizes() -> Vec<usize> {
    std::env::var("PLANC_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| SIZES.to_vec())
}

/// Writes the plans of every size (both forms) with the Northwind
/// catalogue, policy and a planc.toml into `dir`: for pydantic_compare.py
/// and for measuring a `planc` process (peak memory).
fn emit(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("tools.plan"), TOOLS)?;
    std::fs::write(dir.join("policy.plan"), POLICY)?;
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
    )?;
    for n in sizes() {
        std::fs::write(dir.join(format!("plan_{n}.plan")), text_plan(n))?;
        std::fs::write(dir.join(format!("plan_{n}.json")), json_plan(n))?;
    }
    Ok(())
}

fn main() {
    // The peak memory of a `serde_json::Value` of a file, for the memory
    // table's baseline (`benches/goals.py` reads the process's peak RSS).
    if let Some(file) = std::env::var_os("PLANC_BENCH_VALUE") {
        let text = std::fs::read_to_string(&file).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        println!("{}", usize::from(black_box(&value).is_object()));
        return;
    }
    if let Some(spec) = std::env::var_os("PLANC_BENCH_STAGE") {
        let spec = spec.to_string_lossy();
        let (stage, n) = spec.split_once(':').unwrap_or((&spec, "1000"));
        let n: usize = n.parse().unwrap_or(1000);
        let (text, doc, c) = (text_plan(n), json_plan(n), compiler());
        let out = run_stage(stage, &c, &text, &doc);
        println!("{stage} at {n} steps: {out}");
        return;
    }
    if let Some(dir) = std::env::var_os("PLANC_BENCH_EMIT") {
        if let Err(e) = emit(Path::new(&dir)) {
            eprintln!("cannot write the plans: {e}");
            std::process::exit(2);
        }
        println!("wrote the benchmark plans to {}", Path::new(&dir).display());
        return;
    }
    // `cargo bench` passes `--bench`; any other argument (a filter) is
    // ignored: the table is small.
    let c = compiler();
    println!("median microseconds per call; ratios to serde_json's Value");
    println!(
        "| steps | JSON bytes | serde_json | check_only | check | check_run | text_compile | check_only / serde_json | check / serde_json | check_run / serde_json | text_compile / serde_json |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes() {
        let (text, doc) = (text_plan(n), json_plan(n));
        let t: Vec<f64> = STAGES.iter().map(|s| time(s, &c, &text, &doc)).collect();
        let base = t[0];
        let times: Vec<String> = t.iter().map(|x| format!("{x:.1}")).collect();
        let ratios: Vec<String> = t[1..].iter().map(|x| format!("{:.2}", x / base)).collect();
        println!(
            "| {n} | {} | {} | {} |",
            doc.len(),
            times.join(" | "),
            ratios.join(" | ")
        );
    }
}
