//! Completion in `.plan` text and in JSON plans.
//!
//! Text: the text before the cursor is lexed (it is often incomplete while
//! the user types, so the parse tree cannot be trusted to hold the construct
//! being written) and the innermost open bracket decides the context: a
//! step's call (argument names, then values: bindings in scope, and a
//! binding's fields after `name.`), a step's body (clause
//! keywords, `on_unmet` actions, `after` targets, probe forms after `post`,
//! result paths after `$`), a plan's body (`step` and budget lines, tool
//! names after `step NAME =`), a policy, or the top level. What the names
//! mean (tools, parameters, bindings of earlier steps, result types) comes
//! from the document's analysis.
//!
//! JSON (`docs/json.md`): a tolerant scan of the whole document
//! ([`super::json_scan`]) gives the open objects and arrays at the cursor
//! and the key each value belongs to, and the members of every object, so
//! that an invalid document (the usual state while typing) still completes.
//! The place decides: the plan's and `budget`'s keys, a step's keys, its
//! `tool` (tool names), `args` keys (parameters not yet given) and values
//! (bindings of earlier steps as `"${name}"`, enum and `bool` values), names
//! and members inside `${`, `binds` paths, `on_unmet` actions, `after`
//! targets, probe objects for `post`, and a probe's keys, kinds, `path` and
//! `op`. Bindings of earlier steps and their types come from the scan (the
//! step's `tool` and `binds`) and the catalogue, since an invalid document
//! has no checked plan. Items are written for where they go ([`render::Form`]):
//! inside a string without its quotes, outside with them; the edit replaces
//! the partial word before the cursor.
//!
//! `text.rs` holds the text half, `json.rs` the JSON half, `render.rs` the
//! items both write; the cursor's context in text, shared with signature
//! help, is [`super::cursor`].

mod json;
mod render;
mod text;

use lsp_types as lsp;

use super::analysis::Analysis;
use super::{Failure, Server, convert};
use crate::catalog::Ty;
use crate::source::{SourceFile, SourceKind};

pub fn completion(
    s: &Server<'_>,
    p: lsp::CompletionParams,
) -> Result<Option<lsp::CompletionResponse>, Failure> {
    let pos = &p.text_document_position;
    let Some(a) = s.analysis(&pos.text_document.uri) else {
        return Ok(None);
    };
    let Some(file) = a.doc_file() else {
        return Ok(None);
    };
    let offset = convert::offset(file, pos.position);
    let ctx = Ctx {
        a,
        file,
        offset,
        snippets: s.caps.snippets,
    };
    let items = match file.kind {
        SourceKind::Json => ctx.json_items(),
        SourceKind::Text => ctx.items(),
    };
    Ok(Some(lsp::CompletionResponse::Array(items)))
}

/// A binding in scope: from the checked plan (text) or the scan (JSON).
struct Bound {
    name: String,
    ty: Ty,
    /// The name and index of the step that binds it.
    step: String,
    index: usize,
}

struct Ctx<'a> {
    a: &'a Analysis,
    file: &'a SourceFile,
    offset: usize,
    snippets: bool,
}

/// The type at a path (`$.results[0]`) of `ty`, or `None` where the path
/// leaves it.
fn walk<'t>(ty: &'t Ty, path: &str) -> Option<&'t Ty> {
    let mut rest = path.strip_prefix('$')?;
    let mut ty = ty;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = r.get(..end)?;
            ty = &ty.strip_optional().field(name)?.ty;
            rest = r.get(end..)?;
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            r.get(..end)?.parse::<u64>().ok()?;
            ty = match ty.strip_optional() {
                Ty::List(inner) => inner,
                Ty::Any => return Some(ty),
                _ => return None,
            };
            rest = r.get(end + 1..)?;
        } else {
            return None;
        }
    }
    Some(ty)
}
