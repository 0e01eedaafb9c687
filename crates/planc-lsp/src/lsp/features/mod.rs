//! Hover, go to definition, find references, rename, document symbols,
//! quick fixes and formatting: each reads the analysis of the document
//! asked about. `hover.rs` hover, `navigate.rs` definitions, references
//! and rename, `symbols.rs` document and workspace symbols, `edits.rs`
//! quick fixes and formatting.

mod edits;
mod hover;
mod navigate;
mod symbols;

use lsp_types as lsp;

use super::Server;
use super::analysis::Analysis;
use super::convert;
use crate::source::SourceFile;

pub use edits::{code_actions, formatting};
pub use hover::hover;
pub use navigate::{definition, prepare_rename, references, rename};
pub use symbols::{document_symbols, workspace_symbols};

/// The analysis, its document's file and the byte offset of a position.
pub(super) fn at<'s>(
    s: &'s Server<'_>,
    p: &lsp::TextDocumentPositionParams,
) -> Option<(&'s Analysis, &'s SourceFile, usize)> {
    let a = s.analysis(&p.text_document.uri)?;
    let file = a.doc_file()?;
    let offset = convert::offset(file, p.position);
    Some((a, file, offset))
}
