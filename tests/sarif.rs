//! SARIF logs as code scanning reads them: validated against the SARIF
//! 2.1.0 JSON Schema (`tests/sarif/sarif-schema-2.1.0.json`, the schema as
//! the SARIF SDK ships it), files named relative to `%SRCROOT%` whatever
//! path they were given by, a help page per rule, fixes, fingerprints, and
//! notes only when asked for.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn planc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_planc"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn sarif(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["check", "--format", "sarif"];
    all.extend_from_slice(args);
    let o = planc(dir, &all);
    assert!(
        o.status.code() == Some(0) || o.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let log: Value = serde_json::from_slice(&o.stdout).unwrap();
    validate(&log);
    log
}

/// Validates a log against the vendored SARIF 2.1.0 schema, formats
/// (`uri`, `uri-reference`) included.
fn validate(log: &Value) {
    let text = std::fs::read_to_string(Path::new(ROOT).join("tests/sarif/sarif-schema-2.1.0.json"))
        .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0:\n{}\n{log:#}",
        errors.join("\n")
    );
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

fn artifact(result: &Value) -> &Value {
    &result["locations"][0]["physicalLocation"]["artifactLocation"]
}

/// The folder `%SRCROOT%` is for a run in the crate's folder: the git
/// repository around it, else the crate's folder itself.
fn expected_root() -> std::path::PathBuf {
    let mut dir = Some(Path::new(ROOT));
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return std::fs::canonicalize(d).unwrap();
        }
        dir = d.parent();
    }
    std::fs::canonicalize(ROOT).unwrap()
}

#[test]
fn uris_are_relative_to_the_source_root_however_the_file_was_named() {
    let root = expected_root();
    let crate_dir = std::fs::canonicalize(ROOT).unwrap();
    let prefix = crate_dir
        .strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    let expected = if prefix.is_empty() {
        "examples/northwind/downgrade.plan".to_string()
    } else {
        format!("{prefix}/examples/northwind/downgrade.plan")
    };
    let absolute = crate_dir.join("examples/northwind/downgrade.plan");
    let from_examples = Path::new(ROOT).join("examples");
    for (dir, path) in [
        (
            Path::new(ROOT),
            "examples/northwind/downgrade.plan".to_string(),
        ),
        (
            Path::new(ROOT),
            "./examples/../examples/northwind/downgrade.plan".to_string(),
        ),
        (Path::new(ROOT), absolute.to_string_lossy().into_owned()),
        (
            from_examples.as_path(),
            "northwind/downgrade.plan".to_string(),
        ),
    ] {
        let log = sarif(dir, &["--actor", "crm:read", &path]);
        let run = &log["runs"][0];
        let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            base.starts_with("file:///") && base.ends_with('/'),
            "{base}"
        );
        let results = results(&log);
        assert!(!results.is_empty());
        for r in results {
            let a = artifact(r);
            assert_eq!(a["uriBaseId"], "%SRCROOT%", "{path}: {a}");
            assert_eq!(a["uri"], expected.as_str(), "given as {path}");
        }
    }
}

#[test]
fn rules_results_fixes_and_fingerprints() {
    let dir = Path::new(ROOT);
    let log = sarif(dir, &["tests/ui/check/err/five_mistakes.plan"]);
    let driver = &log["runs"][0]["tool"]["driver"];
    // The addresses come from Cargo.toml's `repository`; without one, the
    // log gives none (both are optional) rather than one leading nowhere.
    let repository = env!("CARGO_PKG_REPOSITORY");
    if repository.is_empty() {
        assert!(driver.get("informationUri").is_none(), "{driver}");
    } else {
        assert_eq!(driver["informationUri"], repository);
    }
    for rule in driver["rules"].as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        if repository.is_empty() {
            assert!(rule.get("helpUri").is_none(), "{rule}");
        } else {
            assert_eq!(
                rule["helpUri"],
                format!("{repository}/blob/main/docs/explain/{id}.md"),
                "{rule}"
            );
        }
        // The explain page itself is the rule's help.
        let page =
            std::fs::read_to_string(Path::new(ROOT).join(format!("docs/explain/{id}.md"))).unwrap();
        assert_eq!(
            rule["help"]["markdown"].as_str().unwrap().trim(),
            page.trim(),
            "{id}"
        );
        assert!(
            Path::new(ROOT)
                .join(format!("docs/explain/{id}.md"))
                .is_file()
        );
    }
    let results = results(&log);
    // A "did you mean" becomes a SARIF fix replacing the region.
    let fixed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .collect();
    assert!(!fixed.is_empty(), "{log:#}");
    for r in &fixed {
        let change = &r["fixes"][0]["artifactChanges"][0];
        assert_eq!(change["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let replacement = &change["replacements"][0];
        assert!(replacement["deletedRegion"]["startLine"].as_u64().unwrap() >= 1);
        assert!(replacement["insertedContent"]["text"].is_string());
    }
    // Fingerprints: present, and distinct for distinct results.
    let prints: Vec<&str> = results
        .iter()
        .map(|r| r["partialFingerprints"]["plancResult/v1"].as_str().unwrap())
        .collect();
    let mut unique = prints.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), prints.len(), "{prints:?}");
}

#[test]
fn a_fingerprint_survives_an_edit_above_the_result() {
    let dir = std::env::temp_dir().join(format!("planc-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plan = "tool t.x(n: int) -> { ok: bool } read\n\
        policy p { actor [a:b] t.x requires [a:b] }\n\
        plan q \"g\" {\n    step a = t.x(n: m) { post $.ok == true }\n}\n";
    std::fs::write(dir.join("p.plan"), plan).unwrap();
    let before = sarif(&dir, &["p.plan"]);
    std::fs::write(dir.join("p.plan"), format!("// a comment\n\n{plan}")).unwrap();
    let after = sarif(&dir, &["p.plan"]);
    let print = |log: &Value| results(log)[0]["partialFingerprints"].clone();
    assert_eq!(print(&before), print(&after));
    assert_ne!(
        results(&before)[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        results(&after)[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn notes_only_when_asked_for() {
    let dir = Path::new(ROOT);
    let plan = "examples/northwind/downgrade.plan";
    let without = sarif(dir, &[plan]);
    assert!(results(&without).is_empty(), "{without:#}");
    assert!(
        without["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let with = sarif(dir, &["--include-notes", plan]);
    let levels: Vec<&str> = results(&with)
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert!(!levels.is_empty());
    assert!(levels.iter().all(|l| *l == "note"), "{levels:?}");
}

#[test]
fn the_schema_rejects_what_code_scanning_would() {
    // The validator is not a rubber stamp: a result without a message and a
    // region with a line of 0 are refused.
    let text = std::fs::read_to_string(Path::new(ROOT).join("tests/sarif/sarif-schema-2.1.0.json"))
        .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let bad = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "planc"}}, "results": [
            {"ruleId": "E0101", "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "a.plan"}, "region": {"startLine": 0}}}]}
        ]}]
    });
    assert!(!validator.is_valid(&bad));
}
