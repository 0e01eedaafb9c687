//! Quick fixes (the diagnostics' fixes) and formatting.

use std::collections::HashMap;

use lsp_types as lsp;

use crate::lsp::analysis::Analysis;
use crate::lsp::{Failure, Server, convert};
use crate::source::Span;

pub fn code_actions(
    s: &Server<'_>,
    p: lsp::CodeActionParams,
) -> Result<Option<lsp::CodeActionResponse>, Failure> {
    let Some(a) = s.analysis(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(file) = a.doc_file() else {
        return Ok(None);
    };
    if let Some(only) = &p.context.only
        && !only.iter().any(|k| {
            lsp::CodeActionKind::QUICKFIX
                .as_str()
                .starts_with(k.as_str())
        })
    {
        return Ok(Some(Vec::new()));
    }
    let want = convert::span(file, p.range);
    let mut out = Vec::new();
    for d in &a.diagnostics {
        if d.span.file != a.doc
            || d.fixes.is_empty()
            || d.span.start > want.end
            || want.start > d.span.end
        {
            continue;
        }
        let shown = convert::diagnostic(a, d, s.pages.get(&d.code)).map(|(_, d)| d);
        for fix in &d.fixes {
            let Some(l) = convert::location(a, fix.span) else {
                continue;
            };
            let mut changes = HashMap::new();
            changes.insert(
                l.uri,
                vec![lsp::TextEdit {
                    range: l.range,
                    new_text: fix.replacement.clone(),
                }],
            );
            out.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: fix.title.clone(),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: shown.clone().map(|d| vec![d]),
                edit: Some(lsp::WorkspaceEdit::new(changes)),
                command: None,
                is_preferred: Some(d.fixes.len() == 1),
                disabled: None,
                data: None,
            }));
        }
    }
    Ok(Some(out))
}

// ---------------------------------------------------------------- formatting

/// `planc fmt`'s layout of a `.plan` document, as one edit over the whole
/// text (none when it is laid out already). A document with syntax errors
/// is left as it is (its diagnostics say why); JSON is not laid out.
pub fn formatting(
    s: &Server<'_>,
    p: lsp::DocumentFormattingParams,
) -> Result<Option<Vec<lsp::TextEdit>>, Failure> {
    // The analysis is of the document's current text: requests are served
    // after pending changes are checked.
    let Some(file) = s
        .analysis(&p.text_document.uri)
        .and_then(Analysis::doc_file)
    else {
        return Ok(None);
    };
    if file.kind != crate::source::SourceKind::Text {
        return Ok(None);
    }
    let laid_out = match crate::fmt::layout::layout(&file.text) {
        Ok(t) => t,
        Err(crate::fmt::layout::LayoutError::Syntax(_)) => return Ok(None),
        Err(crate::fmt::layout::LayoutError::Internal(why)) => {
            return Err(Failure(format!("planc cannot lay out this file: {why}")));
        }
    };
    if laid_out == file.text {
        return Ok(Some(Vec::new()));
    }
    let whole = Span::new(file.id, 0, file.text.len());
    Ok(Some(vec![lsp::TextEdit {
        range: convert::range(file, whole),
        new_text: laid_out,
    }]))
}
