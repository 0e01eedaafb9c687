//! The committed JSON Schema of the progress record is the one the record's
//! types generate. After changing the types, regenerate it with
//! `PLANC_WRITE_SCHEMA=1 cargo test --test progress_schema` and review the
//! diff.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

#[path = "support/committed.rs"]
mod committed;

#[test]
fn committed_schema_matches_the_types() {
    let generated = serde_json::to_string_pretty(&planc::progress::schema()).unwrap() + "\n";
    if let Err(e) = committed::compare("schema/progress.schema.json", &generated, "progress_schema")
    {
        panic!("{e}");
    }
}

/// A record like the example of `docs/replanning.md` is valid against the committed schema
/// and reads into the types.
#[test]
fn the_documented_example_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/progress.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let example = r#"{
      "progress_version": "1.0",
      "plan": "provision_and_report",
      "goal": "provision the analytics database and generate its report",
      "replans_used": 0,
      "steps": [
        {"name": "fetch_config", "tool": "fs.fetch", "status": "complete",
         "effect": "read", "idempotent": true, "attempts": 1,
         "args": {"path": "deploy/analytics.toml"},
         "binds": {"config_raw": "region = \"eu-west-1\"\n..."}},
        {"name": "provision_db", "tool": "db.provision", "status": "invalid",
         "effect": "write", "idempotent": false, "attempts": 0,
         "failure": {"kind": "precondition_unmet",
                     "expected": {"probe": "contains", "path": "schema_tables", "value": "users"},
                     "observed": ["events"]}},
        {"name": "generate_report", "tool": "report.generate", "status": "pending"}
      ]
    }"#;
    let instance: serde_json::Value = serde_json::from_str(example).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let record: planc::progress::ProgressRecord = serde_json::from_str(example).unwrap();
    assert_eq!(record.steps.len(), 3);
    assert_eq!(
        record.steps[1].failure.as_ref().map(|f| f.kind),
        Some(planc::progress::FailureKind::PreconditionUnmet)
    );
}
