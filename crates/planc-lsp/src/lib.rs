//! planc's language server (`editors/` sets editors up): the only crate that knows
//! LSP types.

pub mod lsp;

use planc_check::{Compiler, check, driver, project};
use planc_exec::progress;
use planc_lang::{Code, FileId, catalog, diagnostics, policy, source, syntax};
use planc_view::fmt;
