//! A generated file committed to the repository (a JSON Schema) compared
//! with what the code generates now. `PLANC_WRITE_SCHEMA=1` rewrites a stale
//! file, and the comparison still fails that run, so that a test never
//! passes by comparing the generated text with itself: review the diff and
//! run again.

#![allow(dead_code)]

use std::path::Path;

/// `Err` with what to do when `rel` (from the crate's root) is not
/// `generated`; rewritten (atomically) when `PLANC_WRITE_SCHEMA` is set.
pub fn compare(rel: &str, generated: &str, test: &str) -> Result<(), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if std::fs::read_to_string(&path).ok().as_deref() == Some(generated) {
        return Ok(());
    }
    if std::env::var_os("PLANC_WRITE_SCHEMA").is_none() {
        return Err(format!(
            "{rel} is out of date: run `PLANC_WRITE_SCHEMA=1 cargo test --test {test}`, review the diff and run again"
        ));
    }
    planc::project::write_atomic(&path, generated.as_bytes())
        .map_err(|e| format!("{rel} could not be written: {e}"))?;
    Err(format!(
        "{rel} was out of date and is rewritten: review the diff and run again"
    ))
}
