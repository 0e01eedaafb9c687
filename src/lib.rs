//! planc: a compiler for plans written by agent planners.
//!
//! The library does no IO. It takes source text (a `.plan` file or a JSON
//! document), a tool catalogue and a policy, and returns diagnostics and,
//! when there are no errors, the IR an executor runs. The command line
//! (`src/main.rs`, `src/cli/`) and the language server are thin shells over it.
//!
//! To check many plans against one catalogue and policy (an agent loop),
//! build a [`Compiler`] once and call [`Compiler::check`] for each plan:
//!
//! ```
//! use planc::{Compiler, SourceKind};
//! let tools = "tool a.get(id: string) -> { n: int } read\n";
//! let policy = "policy p {\n    actor [x:read]\n    a.get requires [x:read]\n}\n";
//! let compiler = Compiler::new(&[("tools.plan", tools)], Some(("policy.plan", policy)), None);
//! let plan = r#"{"steps": [{"tool": "a.get", "args": {"id": "x"}}]}"#;
//! let checked = compiler.check("plan.json", plan, SourceKind::Json);
//! assert!(checked.diagnostics.is_empty() && checked.ir.is_some());
//! ```

pub mod catalog;
pub mod check;
pub mod compiler;
pub mod diagnostics;
pub mod driver;
pub mod exec;
pub mod fmt;
pub mod ir;
pub mod limits;
pub mod lsp;
pub mod plan_schema;
pub mod policy;
pub mod progress;
pub mod project;
mod seen;
pub mod source;
pub mod suggest;
pub mod syntax;
pub mod view;

pub use compiler::{Checked, Compiler};

/// The hash map of planc's internal tables (names to indexes): foldhash,
/// seeded per process, instead of the standard library's SipHash, which
/// was 7.7% of a large check.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// The hash set beside [`FastMap`].
pub(crate) type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
pub use diagnostics::{Code, Diagnostic, Severity};
pub use source::{FileId, SourceFile, SourceKind, SourceMap, Span, Spanned};
