//! The IR executors run: its types (with a generated JSON Schema) and the
//! lowering from the checker's semantic model.

mod declared;
pub mod fingerprint;
mod map;
pub mod path;
mod text;
mod types;

pub use declared::{literal, result_type, type_ir};
pub use fingerprint::{fingerprint, plan_fingerprint};
pub use types::*;

/// Serialises IR the way `planc compile` writes it: pretty-printed, keys in
/// a fixed order, ending in a newline. The same plan always gives the same
/// bytes.
pub fn to_json(ir: &impl serde::Serialize) -> Result<String, String> {
    let mut out = Vec::new();
    write_json(ir, true, &mut out).map_err(|e| format!("cannot serialise the IR: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("cannot serialise the IR: {e}"))
}

/// Serialises IR on one line, keys in the same fixed order, ending in a
/// newline: what `planc compile` writes to a pipe or a file, where nobody
/// reads the indentation (the pretty form is about 5x the plan's size and
/// a third of a large compile's time).
///
/// The buffer is reserved once for about a kilobyte a step (the IR of the
/// benchmark plan is 750 bytes a step): growing it from empty copied the
/// text a dozen times, and room not written to is never touched, so it
/// costs address space, not memory.
pub fn to_json_compact(ir: &PlanIr) -> Result<String, String> {
    let mut out = Vec::with_capacity(ir.steps.len().saturating_add(1).saturating_mul(1024));
    write_json(ir, false, &mut out).map_err(|e| format!("cannot serialise the IR: {e}"))?;
    String::from_utf8(out).map_err(|e| format!("cannot serialise the IR: {e}"))
}

/// Writes IR to `out` as [`to_json`] (`pretty`) or [`to_json_compact`]
/// gives it, the same bytes, without holding the text: `planc compile`
/// streams a large plan's IR into its file (docs/performance.md, "Where
/// the memory goes"). A failure of the writer is returned as it came.
/// Generic over the writer: serde_json writes a token at a time, and
/// through `dyn Write` each was a call the compiler could not inline (the
/// text compile to the IR cost 10% more instructions that way).
pub fn write_json<W: std::io::Write + ?Sized>(
    ir: &impl serde::Serialize,
    pretty: bool,
    out: &mut W,
) -> std::io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *out, ir)?;
    } else {
        serde_json::to_writer(&mut *out, ir)?;
    }
    out.write_all(b"\n")
}

/// Reads IR written by a planc: JSON of this shape, of a version this planc
/// runs (1.x). The message says which of the two it is not.
pub fn from_json(text: &str) -> Result<PlanIr, String> {
    let ir: PlanIr =
        serde_json::from_str(text).map_err(|e| format!("not an IR this planc runs: {e}"))?;
    if !ir.ir_version.starts_with("1.") {
        return Err(format!(
            "`ir_version` {:?}: this planc runs IR 1.x",
            ir.ir_version
        ));
    }
    Ok(ir)
}
