//! Per-stage benchmarks of the pipeline (lex, parse, check, lower,
//! serialize) for the text and the JSON forms, at 10 to 100,000 steps, each
//! beside `serde_json::from_str::<serde_json::Value>` of the same plan's
//! JSON in the same run. After the measurements it prints the ratios
//! docs/performance.md reports (R1, R2, time per step), read back from
//! criterion's estimates.
//!
//!     cargo bench --bench pipeline                 # a few minutes
//!     PLANC_BENCH_SIZES=10,1000 cargo bench --bench pipeline
//!     PLANC_BENCH_EMIT=DIR cargo bench --bench pipeline   # write the plans, no timing
//!     PLANC_BENCH_STAGE=json_check:100000 valgrind --tool=callgrind \
//!         --toggle-collect='*run_stage*' target/release/deps/pipeline-HASH
//!                                      # one run of one stage, for instruction counts
//!
//! The plans are the Northwind downgrade repeated with fresh names (six
//! steps per customer: reads, writes, data edges, `after`, a guard, an
//! interpolation), checked against the Northwind catalogue and policy of
//! `examples/northwind`: every stage does its full work, and the plan
//! compiles without errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use planc::check::{self, CheckInput};
use planc::driver::{self, Job};
use planc::source::{FileId, SourceMap};
use planc::syntax::parser::{self, Strategy};
use planc::syntax::{self, ast, json, lexer};

#[path = "support/plans.rs"]
mod plans;
use plans::{POLICY, SIZES, TOOLS, json_plan, text_plan};

/// A job compiling `plan` (named `name`) against the Northwind catalogue
/// and policy.
fn job(name: &str, plan: &str) -> Job {
    let mut job = Job::default();
    let p = job.sources.add(name, plan);
    let t = job.sources.add("tools.plan", TOOLS);
    let pol = job.sources.add("policy.plan", POLICY);
    job.plans.push(p);
    job.catalog.push(t);
    job.policy.push(pol);
    job
}

/// The whole of `planc compile` but the IO: diagnostics, IR, its text.
fn compile(job: &mut Job) -> usize {
    let outcome = driver::run(job);
    assert!(!outcome.has_errors(), "the benchmark plan has errors");
    let irs = driver::lower(job, &outcome).unwrap_or_default();
    irs.iter()
        .map(|ir| planc::ir::to_json(ir).map(|s| s.len()).unwrap_or(0))
        .sum()
}

fn sizes() -> Vec<usize> {
    std::env::var("PLANC_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| SIZES.to_vec())
}

fn bench(c: &mut Criterion, n: usize) {
    let text = text_plan(n);
    let doc = json_plan(n);
    let file = FileId(0);
    let mut sources = SourceMap::new();
    let plan_id = sources.add("plan.plan", text.clone());
    assert_eq!(plan_id, file);
    let tools_id = sources.add("tools.plan", TOOLS);
    let policy_id = sources.add("policy.plan", POLICY);
    let (tools, _) = syntax::parse_text(tools_id, TOOLS);
    let (policy, _) = syntax::parse_text(policy_id, POLICY);

    // What the later stages start from.
    let lexed = lexer::lex(file, &text);
    let parsed = parser::parse(
        file,
        &lexed.tokens,
        &lexed.quiet,
        text.len(),
        Strategy::FastThenRich,
    );
    assert!(
        parsed.diagnostics.is_empty(),
        "the text plan has syntax errors"
    );
    let (json_module, json_diags) = syntax::read_json_plan(file, &doc);
    assert!(json_diags.is_empty(), "the JSON plan has errors");
    let check_input = |plan: &ast::Module| -> check::CheckOutput {
        check::check(&CheckInput {
            plans: &[plan],
            catalog: &[&tools],
            policy: &[&policy],
            actor: None,
            syntax_errors: &[],
            roles_fixed: true,
            progress: None,
        })
    };
    let checked = check_input(&parsed.module);
    assert!(!checked.has_errors(), "the text plan does not check");
    let ir = planc::ir::lower(&checked.plans[0], &sources).unwrap_or_else(|e| panic!("{e}"));
    let json_checked = check_input(&json_module);
    assert!(!json_checked.has_errors(), "the JSON plan does not check");
    let mut text_job = job("plan.plan", &text);
    let mut json_job = job("plan.json", &doc);

    let mut g = c.benchmark_group(format!("steps_{n}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    if n >= 10_000 {
        g.sampling_mode(SamplingMode::Flat);
    }
    g.throughput(Throughput::Elements(n as u64));

    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&doc)).map(|v| v.is_object()))
    });

    g.bench_function("text_lex", |b| {
        b.iter(|| lexer::lex(file, black_box(&text)).tokens.len())
    });
    g.bench_function("text_parse", |b| {
        b.iter(|| {
            parser::parse(
                file,
                black_box(&lexed.tokens),
                &lexed.quiet,
                text.len(),
                Strategy::FastThenRich,
            )
        })
    });
    g.bench_function("text_check", |b| {
        b.iter(|| check_input(black_box(&parsed.module)))
    });
    g.bench_function("lower", |b| {
        b.iter(|| planc::ir::lower(black_box(&checked.plans[0]), &sources))
    });
    g.bench_function("serialize", |b| {
        b.iter(|| planc::ir::to_json(black_box(&ir)))
    });
    g.bench_function("text_compile", |b| b.iter(|| compile(&mut text_job)));

    g.bench_function("json_parse", |b| {
        b.iter(|| json::parse(file, black_box(&doc)).map(|j| j.span.end))
    });
    g.bench_function("json_read", |b| {
        b.iter(|| syntax::read_json_plan(file, black_box(&doc)))
    });
    g.bench_function("json_check", |b| {
        b.iter(|| driver::run(&mut json_job).diagnostics.len())
    });
    g.bench_function("json_compile", |b| b.iter(|| compile(&mut json_job)));
    g.finish();
}

// ---------------------------------------------------------------- the report

/// Criterion's median estimate for one benchmark, in nanoseconds.
fn median(dir: &Path, group: &str, id: &str) -> Option<f64> {
    let path = dir.join(group).join(id).join("new").join("estimates.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v.get("median")?.get("point_estimate")?.as_f64()
}

fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("criterion"))
}

fn report(sizes: &[usize]) {
    let dir = criterion_dir();
    let ids = [
        "serde_json",
        "text_lex",
        "text_parse",
        "text_check",
        "lower",
        "serialize",
        "text_compile",
        "json_parse",
        "json_read",
        "json_check",
        "json_compile",
    ];
    println!("\nmedian time per step (µs), and the ratios of docs/performance.md");
    let mut head = format!("{:>8}", "steps");
    for id in ids {
        let _ = write!(head, " {id:>12}");
    }
    println!("{head} {:>6} {:>6}", "R1", "R2");
    let mut per_step = Vec::new();
    for &n in sizes {
        let group = format!("steps_{n}");
        let mut line = format!("{n:>8}");
        let mut row = Vec::new();
        for id in ids {
            let t = median(&dir, &group, id);
            row.push(t);
            match t {
                Some(t) => {
                    let _ = write!(line, " {:>12.3}", t / n as f64 / 1000.0);
                }
                None => {
                    let _ = write!(line, " {:>12}", "-");
                }
            }
        }
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:>6.2}", a / b),
            _ => format!("{:>6}", "-"),
        };
        let serde = row.first().copied().flatten();
        let compile = row.get(6).copied().flatten();
        let jcheck = row.get(9).copied().flatten();
        println!("{line} {} {}", ratio(compile, serde), ratio(jcheck, serde));
        per_step.push((n, row));
    }
    let at = |n: usize| per_step.iter().find(|(m, _)| *m == n).map(|(_, r)| r);
    if let (Some(small), Some(big)) = (at(1_000), at(100_000)) {
        println!("\ntime per step at 100,000 steps / at 1,000 steps:");
        for (k, id) in ids.iter().enumerate() {
            if let (Some(Some(a)), Some(Some(b))) = (small.get(k), big.get(k)) {
                println!("  {id:>12}: {:.2}", (b / 100_000.0) / (a / 1_000.0));
            }
        }
    }
}

/// Writes the benchmark plans (1,000 and 100,000 steps, both forms) with the
/// Northwind catalogue, policy and a planc.toml into `dir`, for measuring a
/// `planc check` process (peak memory).
fn emit(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("tools.plan"), TOOLS)?;
    std::fs::write(dir.join("policy.plan"), POLICY)?;
    std::fs::write(
        dir.join("planc.toml"),
        "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
    )?;
    for n in [1_000, 100_000] {
        std::fs::write(dir.join(format!("plan_{n}.plan")), text_plan(n))?;
        std::fs::write(dir.join(format!("plan_{n}.json")), json_plan(n))?;
    }
    Ok(())
}

/// One run of one whole-pipeline stage, apart from its setup, so that
/// `valgrind --tool=callgrind --toggle-collect='*run_stage*'` counts its
/// instructions alone (wall-clock time on a shared machine is noisy).
#[inline(never)]
fn run_stage(stage: &str, text: &str, doc: &str, text_job: &mut Job, json_job: &mut Job) -> usize {
    match stage {
        "serde_json" => serde_json::from_str::<serde_json::Value>(doc)
            .map(|v| usize::from(v.is_object()))
            .unwrap_or(0),
        "text_lex" => lexer::lex(FileId(0), text).tokens.len(),
        "text_compile" => compile(text_job),
        "text_check" => driver::run(text_job).diagnostics.len(),
        "json_read" => syntax::read_json_plan(FileId(0), doc).1.len(),
        "json_check" => driver::run(json_job).diagnostics.len(),
        "json_compile" => compile(json_job),
        _ => {
            eprintln!("unknown stage `{stage}`");
            std::process::exit(2);
        }
    }
}

fn stage_mode(spec: &str) {
    let (stage, n) = spec.split_once(':').unwrap_or((spec, "1000"));
    let n: usize = n.parse().unwrap_or(1000);
    let text = text_plan(n);
    let doc = json_plan(n);
    let mut text_job = job("plan.plan", &text);
    let mut json_job = job("plan.json", &doc);
    let out = run_stage(stage, &text, &doc, &mut text_job, &mut json_job);
    println!("{stage} at {n} steps: {out}");
}

fn main() {
    if let Some(spec) = std::env::var_os("PLANC_BENCH_STAGE") {
        stage_mode(&spec.to_string_lossy());
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
    let sizes = sizes();
    let mut c = Criterion::default().configure_from_args();
    for &n in &sizes {
        bench(&mut c, n);
    }
    c.final_summary();
    report(&sizes);
}
