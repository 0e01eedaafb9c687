//! planc's executor contract (`docs/ir.md`, `docs/executors.md`).
//!
//! What an executor runs and records, whatever drives it: plain JSON whose
//! numbers stay exact (`value`), which both the IR and the record hold; the
//! IR's types and schema (`ir`), progress records with their one validating reader,
//! invalidation and plan deltas (`progress`), and the executor (`exec`):
//! `eval`'s pure decisions, the step machine `Machine` (no IO, no clock),
//! `run` over a backend and a sink, the fixture and MCP backends. It knows
//! nothing of the checker; the crates above it lower plans into this IR.

pub mod exec;
pub mod ir;
pub mod progress;
pub mod value;

use planc_lang::FileId;
use planc_lang::{catalog, diagnostics, policy, source, suggest, syntax};
