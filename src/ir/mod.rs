//! The IR executors run: its types (with a generated JSON Schema) and the
//! lowering from the checker's semantic model.

mod types;

pub use types::*;
