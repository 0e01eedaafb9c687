//! The committed JSON Schema of the IR is the one the IR types generate.
//! After changing the types, regenerate it with
//! `PLANC_WRITE_SCHEMA=1 cargo test --test ir_schema` and review the diff.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/committed.rs"]
mod committed;

#[test]
fn committed_schema_matches_the_types() {
    let generated = serde_json::to_string_pretty(&planc::ir::schema()).unwrap() + "\n";
    if let Err(e) = committed::compare("schema/plan-ir.schema.json", &generated, "ir_schema") {
        panic!("{e}");
    }
}
