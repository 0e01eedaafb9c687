//! Document and workspace symbols.

use lsp_types as lsp;

use crate::lsp::analysis::Analysis;
use crate::lsp::{Failure, Server, convert};
use crate::source::{SourceFile, Span};
use crate::syntax::ast;

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out.
fn symbol(
    file: &SourceFile,
    name: &str,
    detail: Option<String>,
    kind: lsp::SymbolKind,
    span: Span,
    name_span: Span,
    children: Vec<lsp::DocumentSymbol>,
) -> lsp::DocumentSymbol {
    // The selection must lie inside the range, whatever the front end made
    // of a broken declaration.
    let whole = if span.file == name_span.file {
        span.to(name_span)
    } else {
        span
    };
    let name_span = if whole.contains(name_span) {
        name_span
    } else {
        whole
    };
    lsp::DocumentSymbol {
        name: if name.is_empty() {
            "(unnamed)".to_string()
        } else {
            name.to_string()
        },
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: convert::range(file, whole),
        selection_range: convert::range(file, name_span),
        children: if children.is_empty() {
            None
        } else {
            Some(children)
        },
    }
}

pub fn document_symbols(
    s: &Server<'_>,
    p: lsp::DocumentSymbolParams,
) -> Result<Option<lsp::DocumentSymbolResponse>, Failure> {
    let Some(a) = s.analysis(&p.text_document.uri) else {
        return Ok(None);
    };
    let (Some(file), Some(module)) = (a.doc_file(), a.doc_module()) else {
        return Ok(None);
    };
    Ok(Some(lsp::DocumentSymbolResponse::Nested(module_symbols(
        a, file, module,
    ))))
}

/// The symbols of one parsed file: its tools, its policies with their
/// rules, its plans with their steps and each step's bindings.
fn module_symbols(
    a: &Analysis,
    file: &SourceFile,
    module: &ast::Module,
) -> Vec<lsp::DocumentSymbol> {
    let catalog = &a.outcome.checked.catalog;
    let mut out = Vec::new();
    for item in &module.items {
        match item {
            ast::Item::Tool(t) => {
                let detail = catalog
                    .get(&t.name.node)
                    .filter(|c| c.name_span == t.name.span)
                    .map(|c| c.signature());
                out.push(symbol(
                    file,
                    &t.name.node,
                    detail,
                    lsp::SymbolKind::FUNCTION,
                    t.span,
                    t.name.span,
                    Vec::new(),
                ));
            }
            ast::Item::Policy(pol) => {
                let rules = pol
                    .rules
                    .iter()
                    .map(|r| {
                        let scopes: Vec<&str> =
                            r.requires.iter().map(|s| s.node.as_str()).collect();
                        symbol(
                            file,
                            &r.tool.node,
                            Some(format!("requires [{}]", scopes.join(", "))),
                            lsp::SymbolKind::PROPERTY,
                            r.span,
                            r.tool.span,
                            Vec::new(),
                        )
                    })
                    .collect();
                out.push(symbol(
                    file,
                    &pol.name.node,
                    Some("policy".to_string()),
                    lsp::SymbolKind::NAMESPACE,
                    pol.span,
                    pol.name.span,
                    rules,
                ));
            }
            ast::Item::Plan(plan) => {
                let steps = plan
                    .steps
                    .iter()
                    .map(|st| {
                        let binds = st
                            .binds()
                            .map(|(name, path)| {
                                symbol(
                                    file,
                                    &name.node,
                                    Some(path.to_string()),
                                    lsp::SymbolKind::VARIABLE,
                                    name.span.to(path.span),
                                    name.span,
                                    Vec::new(),
                                )
                            })
                            .collect();
                        symbol(
                            file,
                            &st.name.node,
                            Some(st.tool.node.clone().to_string()),
                            lsp::SymbolKind::METHOD,
                            st.span,
                            st.name.span,
                            binds,
                        )
                    })
                    .collect();
                out.push(symbol(
                    file,
                    &plan.name.node,
                    plan.goal.as_ref().map(|g| g.node.clone()),
                    lsp::SymbolKind::MODULE,
                    plan.span,
                    plan.name.span,
                    steps,
                ));
            }
            ast::Item::Error(_) => {}
        }
    }
    out
}

/// Every symbol of the open documents and of the files they are checked
/// against (catalogues, policies) whose name matches the query: its
/// characters in order, ignoring case, as editors' symbol pickers expect.
pub fn workspace_symbols(
    s: &Server<'_>,
    p: lsp::WorkspaceSymbolParams,
) -> Result<Option<lsp::WorkspaceSymbolResponse>, Failure> {
    let query = p.query.to_lowercase();
    let matches = |name: &str| {
        let mut name = name.chars().flat_map(char::to_lowercase);
        query.chars().all(|q| name.any(|c| c == q))
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut analyses: Vec<&Analysis> = s.analyses().collect();
    analyses.sort_by_key(|a| a.uri(a.doc).map(|u| u.as_str().to_string()));
    for a in analyses {
        for parsed in &a.outcome.parsed {
            let (Some(file), Some(uri)) = (a.file(parsed.file), a.uri(parsed.file)) else {
                continue;
            };
            // A policy or catalogue shared by several plans is listed once.
            if !seen.insert(uri.clone()) {
                continue;
            }
            let mut stack: Vec<(lsp::DocumentSymbol, Option<String>)> =
                module_symbols(a, file, &parsed.module)
                    .into_iter()
                    .rev()
                    .map(|d| (d, None))
                    .collect();
            while let Some((mut d, container)) = stack.pop() {
                for child in d.children.take().into_iter().flatten().rev() {
                    stack.push((child, Some(d.name.clone())));
                }
                if matches(&d.name) {
                    out.push(lsp::WorkspaceSymbol {
                        name: d.name,
                        kind: d.kind,
                        tags: None,
                        container_name: container,
                        location: lsp::OneOf::Left(lsp::Location {
                            uri: uri.clone(),
                            range: d.selection_range,
                        }),
                        data: None,
                    });
                }
            }
        }
    }
    Ok(Some(lsp::WorkspaceSymbolResponse::Nested(out)))
}
