//! `planc fmt`'s layout: the fixtures in `tests/fmt/` (snapshots beside
//! them), every `.plan` file of the repository (a fixed point that checks
//! the same). The command itself is tested in `tests/cli.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use planc::driver::{self, Job};
use planc::fmt::layout::{LayoutError, layout};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.plan` file under `dir`, sorted.
fn plan_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            plan_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "plan") {
            out.push(p);
        }
    }
}

/// What checking a file on its own reports: code, message and step of
/// each diagnostic (positions aside).
fn findings(text: &str) -> Vec<String> {
    let mut job = Job::default();
    let id = job.sources.add("f.plan", text);
    job.plans.push(id);
    driver::run(&mut job)
        .diagnostics
        .iter()
        .map(|d| format!("{} {} {:?}", d.code, d.message, d.step))
        .collect()
}

#[test]
fn fixtures() {
    let mut files = Vec::new();
    plan_files(&root().join("tests/fmt"), &mut files);
    assert!(files.len() >= 5);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let out = layout(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert_eq!(
            layout(&out).unwrap(),
            out,
            "{}: not a fixed point",
            path.display()
        );
        assert_eq!(findings(&out), findings(&text), "{}", path.display());
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({
            snapshot_path => root().join("tests/fmt"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, out);
        });
    }
    let laid_out = std::fs::read_to_string(root().join("tests/fmt/laid_out.plan")).unwrap();
    assert_eq!(layout(&laid_out).unwrap(), laid_out);
}

/// Every `.plan` file of the repository that parses lays out to a fixed
/// point that checks the same; those that do not parse are refused with
/// their syntax errors.
#[test]
fn every_plan_file_of_the_repository() {
    let mut files = Vec::new();
    for dir in ["examples", "tests/ui", "tests/fmt"] {
        plan_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 50, "{}", files.len());
    let (mut laid, mut refused) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        match layout(&text) {
            Ok(out) => {
                laid += 1;
                assert_eq!(layout(&out).unwrap(), out, "{}", path.display());
                assert_eq!(findings(&out), findings(&text), "{}", path.display());
            }
            Err(LayoutError::Syntax(d)) => {
                refused += 1;
                assert!(d.iter().any(|d| d.code.is_syntax()), "{}", path.display());
            }
            Err(e @ LayoutError::Internal(_)) => panic!("{}: {e:?}", path.display()),
        }
    }
    assert!(
        laid > 40 && refused > 5,
        "{laid} laid out, {refused} refused"
    );
}

#[test]
fn the_examples_are_laid_out() {
    let mut files = Vec::new();
    plan_files(&root().join("examples"), &mut files);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(layout(&text).unwrap(), text, "{}", path.display());
    }
}

#[test]
fn syntax_errors_are_refused() {
    let Err(LayoutError::Syntax(d)) = layout("plan p { step a = t.x(n: ) }") else {
        panic!("laid out a broken plan");
    };
    assert!(!d.is_empty());
    assert_eq!(layout("").unwrap(), "");
    assert_eq!(
        layout("\n\n  // only a comment  \n").unwrap(),
        "// only a comment\n"
    );
}
