//! The fixture harness: every file under `tests/ui/**/{ok,err}/` is compiled
//! and its rendered diagnostics (human and JSON) compared with the insta
//! snapshot beside it. See `tests/README.md` for how to add a case.
//!
//! - An `ok/` fixture must compile without errors.
//! - An `err/` fixture must produce at least one error.
//! - In both, the codes the fixture expects are pinned: for a `.plan` file,
//!   comment lines `// expect: E0105 W0403` at the top; for a `.json` file, a
//!   sibling `NAME.expect` file with the codes. The errors and warnings
//!   produced, and the notes whose codes are listed, must be exactly those
//!   (as a multiset, in any order).
//! - Every error and warning has a help line: an agent loop must be able to
//!   act on the JSON document alone.
//! - Fixtures under `tests/ui/syntax/` are parsed only (they pin the front
//!   end's diagnostics); those under `tests/ui/fmt/` are converted to the
//!   other form (`planc fmt --to`: text to JSON, JSON to text); all others
//!   run the whole pipeline.
//! - A `.reply` fixture is a model's raw reply (a JSON plan in a Markdown
//!   code fence, or between sentences), checked as `planc check --lenient`
//!   checks it (`syntax::lenient::apply`); its codes are in a sibling
//!   `NAME.expect` file, as a `.json` fixture's.
//! - Catalogue and policy come from the nearest `planc.toml` up to
//!   `tests/ui/`, else from the fixture itself (a `.plan` file may declare
//!   tools, a policy and a plan together); so does the progress record a
//!   replan is checked against (`progress = "..."`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use planc::diagnostics::render;
use planc::driver::{self, Job};
use planc::{Code, Severity};

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixtures(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("plan" | "json" | "reply")
        ) && path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "ok" || n == "err")
        {
            out.push(path);
        }
    }
}

/// The codes a fixture expects, from its header or its `.expect` file.
fn expected_codes(path: &Path, text: &str) -> Vec<Code> {
    let spec = if path
        .extension()
        .is_some_and(|e| e == "json" || e == "reply")
    {
        std::fs::read_to_string(path.with_extension("expect")).unwrap_or_default()
    } else {
        // A byte-order mark before the header is skipped, as the lexer does.
        text.trim_start_matches('\u{feff}')
            .lines()
            .map(str::trim)
            .take_while(|l| l.starts_with("//") || l.is_empty())
            .filter_map(|l| l.trim_start_matches('/').trim().strip_prefix("expect:"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut codes: Vec<Code> = spec
        .split_whitespace()
        .map(|c| {
            Code::parse(c).unwrap_or_else(|| panic!("{}: `{c}` is not a code", path.display()))
        })
        .collect();
    codes.sort();
    codes
}

fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Builds the job for a fixture: the fixture, plus the catalogue, policy,
/// actor and progress record of the nearest `planc.toml`, as the command
/// line builds it (`project::settings`).
fn job_for(path: &Path) -> Job {
    let mut job = Job::default();
    let text = std::fs::read_to_string(path).unwrap();
    let id = job.sources.add(relative(path), text);
    job.plans.push(id);
    let settings = planc::project::settings(path.parent().unwrap(), &Default::default()).unwrap();
    settings.add_to(&mut job, relative).unwrap();
    // The snapshots name no configuration file: E0005 says "from flags".
    job.config = None;
    job
}

fn run_fixture(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let expected = expected_codes(path, &text);
    let mut job = job_for(path);
    let mut modes: Vec<String> = Vec::new();
    // Fixtures of the front end (`tests/ui/syntax/`) are parsed only: what
    // they pin is the syntax diagnostics, without a catalogue to check
    // against. Every other fixture runs the whole pipeline.
    let diags = if relative(path).starts_with("tests/ui/syntax/") {
        let id = job.plans[0];
        let mut d = driver::parse(&mut job.sources, id, driver::Role::Plan).1;
        planc::diagnostics::sort(&mut d);
        d
    } else if relative(path).starts_with("tests/ui/fmt/") {
        // Fixtures of the conversion (`planc fmt --to`): a text file is
        // converted to JSON, a JSON file to text.
        let id = job.plans[0];
        let form = match job.sources.get(id).map(|f| f.kind) {
            Some(planc::SourceKind::Json) => planc::fmt::convert::Form::Plan,
            _ => planc::fmt::convert::Form::Json,
        };
        planc::fmt::convert::convert(&mut job.sources, id, form, None)
            .err()
            .unwrap_or_default()
    } else if path.extension().is_some_and(|e| e == "reply") {
        // A model's reply, checked with `--lenient`: W0509 first, as
        // `planc check` reports it, then the plan's own.
        let id = job.plans[0];
        // Read as a JSON plan is (`planc check --lenient reply.json`).
        if let Some(file) = job.sources.get_mut(id) {
            file.kind = planc::SourceKind::Json;
        }
        let note = planc::syntax::lenient::apply(&mut job.sources, id);
        let mut d: Vec<planc::Diagnostic> = note.into_iter().collect();
        d.extend(driver::run(&mut job).diagnostics);
        planc::diagnostics::sort(&mut d);
        d
    } else {
        let d = driver::run(&mut job).diagnostics;
        // The checks that let each step's tree go, and its model too
        // (`planc compile`, `planc check`), say what the check that keeps
        // them says, in the same order.
        for trees in [driver::Trees::Release, driver::Trees::Diagnostics] {
            let mut again = job_for(path);
            again.trees = trees;
            if driver::run(&mut again).diagnostics != d {
                modes.push(format!("the diagnostics differ with {trees:?}"));
            }
        }
        d
    };
    let diags = &diags;
    let has_errors = diags.iter().any(|d| d.is_error());

    let mut produced: Vec<Code> = diags
        .iter()
        .filter(|d| d.severity != Severity::Note || expected.contains(&d.code))
        .map(|d| d.code)
        .collect();
    produced.sort();
    let is_err_fixture = path
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "err");
    let mut problems = modes;
    if produced != expected {
        problems.push(format!(
            "expected codes {expected:?}, produced {produced:?}"
        ));
    }
    // An agent loop reads only the JSON document: every error and warning
    // must say how to fix it.
    for d in diags
        .iter()
        .filter(|d| d.severity != Severity::Note && d.help.is_none())
    {
        problems.push(format!("{} `{}` has no help line", d.code, d.message));
    }
    if is_err_fixture && !has_errors {
        problems.push("an err/ fixture must produce an error".to_string());
    }
    if !is_err_fixture && has_errors {
        problems.push("an ok/ fixture must produce no error".to_string());
    }

    let snapshot = format!(
        "{}\n----- json -----\n{}",
        render::human(&job.sources, diags, false),
        render::json(&job.sources, diags)
    );
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let snap_dir = path.parent().unwrap().to_path_buf();
    let snap_result = std::panic::catch_unwind(|| {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(snap_dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(path);
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(name, snapshot));
    });
    if snap_result.is_err() {
        problems.push("snapshot differs (run `cargo insta review`)".to_string());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn ui_fixtures() {
    let mut paths = Vec::new();
    fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui"),
        &mut paths,
    );
    assert!(!paths.is_empty(), "no fixtures found under tests/ui");
    let mut failures = BTreeMap::new();
    for path in &paths {
        if let Err(e) = run_fixture(path) {
            failures.insert(relative(path), e);
        }
    }
    let report: Vec<String> = failures.iter().map(|(p, e)| format!("{p}: {e}")).collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        paths.len(),
        report.join("\n")
    );
}
