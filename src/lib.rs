//! planc: a compiler for plans written by agent planners.
//!
//! The library does no IO. It takes source text (a `.plan` file or a JSON
//! document), a tool catalogue and a policy, and returns diagnostics and,
//! when there are no errors, the IR an executor runs. The command line
//! (`src/main.rs`) and the language server are thin shells over it.

pub mod catalog;
pub mod check;
pub mod diagnostics;
pub mod driver;
pub mod fmt;
pub mod ir;
pub mod limits;
pub mod lsp;
pub mod plan_schema;
pub mod policy;
pub mod progress;
pub mod project;
pub mod source;
pub mod suggest;
pub mod syntax;
pub mod view;

pub use diagnostics::{Code, Diagnostic, Severity};
pub use source::{FileId, SourceFile, SourceKind, SourceMap, Span, Spanned};
