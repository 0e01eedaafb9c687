//! The committed JSON Schema of the IR is the one the IR types generate.
//! After changing the types, regenerate it with
//! `PLANC_WRITE_SCHEMA=1 cargo test --test ir_schema` and review the diff.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

#[test]
fn committed_schema_matches_the_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/plan-ir.schema.json");
    let generated = serde_json::to_string_pretty(&planc::ir::schema()).unwrap() + "\n";
    if std::env::var_os("PLANC_WRITE_SCHEMA").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schema/plan-ir.schema.json is out of date: run `PLANC_WRITE_SCHEMA=1 cargo test --test ir_schema`"
    );
}
