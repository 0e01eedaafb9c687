//! planc: a compiler for plans written by agent planners.
//!
//! This crate is the facade of the workspace's layers (`ARCHITECTURE.md`),
//! under the module names they have always had: `planc-lang` (source,
//! diagnostics, both front ends, the catalogue and policy models),
//! `planc-exec` (the executor's contract: the IR, progress records, the
//! step machine), `planc-check` (the checker, the lowering, planner
//! schemas, the driver, `planc.toml`), `planc-view` (formatting, the graph,
//! the review page) and, with the `cli` feature, `planc-lsp` (the language
//! server). It takes source text (a `.plan` file or a JSON document), a
//! tool catalogue and a policy, and returns diagnostics and, when there are
//! no errors, the IR an executor runs. The command line (`src/main.rs`,
//! `src/cli/`, the `cli` feature) is a thin shell over it; without the
//! default features (as the Python and JavaScript bindings build it) it
//! compiles neither the command line's nor the language server's crates.
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

pub use planc_check::{check, compiler, driver, exec, ir, plan_schema, project};
pub use planc_exec::progress;
pub use planc_lang::{ast, catalog, first_by_key, limits, policy, render, source, suggest, syntax};
#[cfg(feature = "cli")]
pub use planc_lsp::lsp;
pub use planc_view::{fmt, view};

/// The diagnostic model (`planc_lang::diagnostics`) with its renderers
/// under the name they have always had here (`diagnostics::render`); in
/// `planc-lang` the renderers stand above the front ends (`render`).
pub mod diagnostics {
    pub use planc_lang::diagnostics::*;
    pub use planc_lang::render;
}

pub use compiler::{Checked, Compiler, Unlowered};
pub use diagnostics::{Code, Diagnostic, Severity};
pub use source::{FileId, SourceFile, SourceKind, SourceMap, Span, Spanned};
