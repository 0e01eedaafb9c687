//! Go to definition, find references and rename.

use std::collections::HashMap;

use lsp_types as lsp;

use super::at;
use crate::lsp::analysis::{Analysis, Occ, Sym};
use crate::lsp::{Failure, Server, convert};
use crate::source::Span;

pub fn definition(
    s: &Server<'_>,
    p: lsp::GotoDefinitionParams,
) -> Result<Option<lsp::GotoDefinitionResponse>, Failure> {
    let Some((a, _, offset)) = at(s, &p.text_document_position_params) else {
        return Ok(None);
    };
    let Some(occ) = a.occ_at(a.doc, offset) else {
        return Ok(None);
    };
    Ok(a.definition(&occ.sym)
        .and_then(|span| convert::location(a, span))
        .map(lsp::GotoDefinitionResponse::Scalar))
}

pub fn references(
    s: &Server<'_>,
    p: lsp::ReferenceParams,
) -> Result<Option<Vec<lsp::Location>>, Failure> {
    let Some((a, _, offset)) = at(s, &p.text_document_position) else {
        return Ok(None);
    };
    let Some(occ) = a.occ_at(a.doc, offset) else {
        return Ok(None);
    };
    let with_decl = p.context.include_declaration;
    let mut out: Vec<lsp::Location> = Vec::new();
    let mut add = |b: &Analysis, sym: &Sym| {
        for o in b.occurrences(sym) {
            if (with_decl || !o.def)
                && let Some(l) = convert::location(b, o.span)
            {
                out.push(l);
            }
        }
    };
    match &occ.sym {
        // Tools and parameters are shared by every plan checked against the
        // same catalogue: look in every open document's compilation that
        // finds the same declaration.
        Sym::Tool(_) | Sym::Param { .. } => {
            let decl = a
                .definition(&occ.sym)
                .and_then(|span| convert::location(a, span));
            match decl {
                Some(decl) => {
                    for b in s.analyses() {
                        let same = b
                            .definition(&occ.sym)
                            .and_then(|span| convert::location(b, span))
                            .is_some_and(|l| l == decl);
                        if same {
                            add(b, &occ.sym);
                        }
                    }
                }
                None => add(a, &occ.sym),
            }
        }
        Sym::Step { .. } | Sym::Binding { .. } => add(a, &occ.sym),
    }
    out.sort_by(|x, y| {
        (x.uri.as_str(), x.range.start, x.range.end).cmp(&(
            y.uri.as_str(),
            y.range.start,
            y.range.end,
        ))
    });
    out.dedup();
    Ok(Some(out))
}

// ---------------------------------------------------------------- rename

/// The occurrences a rename of the symbol under the cursor edits: a step or
/// a binding, every occurrence of which is written as its name (a JSON step
/// known only by its number has no name to rename).
fn renamable(a: &Analysis, offset: usize) -> Result<Option<(&Occ, Vec<Span>)>, Failure> {
    let Some(occ) = a.occ_at(a.doc, offset) else {
        return Ok(None);
    };
    let (name, what) = match &occ.sym {
        Sym::Step { name, .. } => (name, "step"),
        Sym::Binding { name, .. } => (name, "binding"),
        Sym::Tool(_) => {
            return Err(Failure(
                "a tool is named by its catalogue: only steps and bindings can be renamed here"
                    .to_string(),
            ));
        }
        Sym::Param { .. } => {
            return Err(Failure(
                "a parameter is named by its tool's declaration: only steps and bindings can be renamed here"
                    .to_string(),
            ));
        }
    };
    let mut spans = Vec::new();
    for o in a.occurrences(&occ.sym) {
        let written = a.file(o.span.file).map(|f| f.slice(o.span)).unwrap_or("");
        if written != name {
            return Err(Failure(format!(
                "{what} `{name}` is written as `{written}` somewhere (a JSON step known by its number): rename it by hand"
            )));
        }
        spans.push(o.span);
    }
    Ok(Some((occ, spans)))
}

pub fn prepare_rename(
    s: &Server<'_>,
    p: lsp::TextDocumentPositionParams,
) -> Result<Option<lsp::PrepareRenameResponse>, Failure> {
    let Some((a, file, offset)) = at(s, &p) else {
        return Ok(None);
    };
    let Some((occ, _)) = renamable(a, offset)? else {
        return Ok(None);
    };
    Ok(Some(lsp::PrepareRenameResponse::RangeWithPlaceholder {
        range: convert::range(file, occ.span),
        placeholder: file.slice(occ.span).to_string(),
    }))
}

/// Whether `name` can name a step or a binding: an identifier other than
/// the words with a fixed meaning in expressions.
pub(crate) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(name, "true" | "false" | "null")
}

pub fn rename(s: &Server<'_>, p: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>, Failure> {
    let Some((a, _, offset)) = at(s, &p.text_document_position) else {
        return Ok(None);
    };
    let Some((occ, spans)) = renamable(a, offset)? else {
        return Ok(None);
    };
    let new = p.new_name.trim();
    if !is_name(new) {
        return Err(Failure(format!(
            "`{new}` is not a valid name: use letters, digits and `_`, not starting with a digit, and not `true`, `false` or `null`"
        )));
    }
    let (plan, old, taken) = match &occ.sym {
        Sym::Step { plan, name } => (
            *plan,
            name,
            a.plan(*plan)
                .is_some_and(|pl| pl.steps.iter().any(|s| s.name == new)),
        ),
        Sym::Binding { plan, name } => (
            *plan,
            name,
            a.plan(*plan)
                .is_some_and(|pl| pl.bindings.iter().any(|b| b.name == new)),
        ),
        _ => return Ok(None),
    };
    if old == new {
        return Ok(Some(lsp::WorkspaceEdit::default()));
    }
    if taken {
        let what = if matches!(occ.sym, Sym::Step { .. }) {
            "a step"
        } else {
            "a binding"
        };
        let plan_name = a.plan(plan).map(|p| p.name.as_str()).unwrap_or("");
        return Err(Failure(format!(
            "plan `{plan_name}` already has {what} named `{new}`"
        )));
    }
    let mut changes: HashMap<lsp::Uri, Vec<lsp::TextEdit>> = HashMap::new();
    for span in spans {
        if let Some(l) = convert::location(a, span) {
            changes.entry(l.uri).or_default().push(lsp::TextEdit {
                range: l.range,
                new_text: new.to_string(),
            });
        }
    }
    Ok(Some(lsp::WorkspaceEdit::new(changes)))
}
