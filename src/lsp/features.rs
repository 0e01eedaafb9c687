//! Hover, go to definition, find references, rename, document symbols and
//! quick fixes: each reads the analysis of the document asked about.

use std::collections::HashMap;

use lsp_types as lsp;

use super::analysis::{Analysis, Occ, Sym};
use super::{Failure, Server, convert};
use crate::catalog::Tool;
use crate::check::{CheckedPlan, DepReason};
use crate::source::{SourceFile, Span};
use crate::syntax::ast;

/// The analysis, its document's file and the byte offset of a position.
fn at<'s>(
    s: &'s Server<'_>,
    p: &lsp::TextDocumentPositionParams,
) -> Option<(&'s Analysis, &'s SourceFile, usize)> {
    let a = s.analysis(&p.text_document.uri)?;
    let file = a.doc_file()?;
    let offset = convert::offset(file, p.position);
    Some((a, file, offset))
}

// ---------------------------------------------------------------- hover

pub fn hover(s: &Server<'_>, p: lsp::HoverParams) -> Result<Option<lsp::Hover>, Failure> {
    let Some((a, file, offset)) = at(s, &p.text_document_position_params) else {
        return Ok(None);
    };
    let Some(occ) = a.occ_at(a.doc, offset) else {
        return Ok(None);
    };
    let text = match &occ.sym {
        Sym::Tool(name) => a
            .outcome
            .checked
            .catalog
            .get(name)
            .map(|t| hover_tool(a, t)),
        Sym::Param { tool, param } => hover_param(a, occ, tool, param),
        Sym::Step { plan, name } => a.plan(*plan).and_then(|p| hover_step(a, p, name)),
        Sym::Binding { plan, name } => a.plan(*plan).and_then(|p| hover_binding(p, name)),
    };
    let Some(value) = text else {
        return Ok(None);
    };
    let kind = if s.caps.markdown {
        lsp::MarkupKind::Markdown
    } else {
        lsp::MarkupKind::PlainText
    };
    Ok(Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent { kind, value }),
        range: Some(convert::range(file, occ.span)),
    }))
}

fn code_block(text: &str) -> String {
    format!("```planc\n{text}\n```")
}

pub(crate) fn tool_traits(t: &Tool) -> String {
    let mut parts = vec![match t.effect {
        Some(e) => format!("`{}`", e.as_str()),
        None => "no declared effect (treated as `write`)".to_string(),
    }];
    parts.push(if t.idempotent {
        "idempotent".to_string()
    } else {
        "not idempotent".to_string()
    });
    if t.untrusted {
        parts.push("untrusted output".to_string());
    }
    parts.join(" · ")
}

fn hover_tool(a: &Analysis, t: &Tool) -> String {
    let mut out = vec![
        code_block(&format!("tool {}", t.signature())),
        tool_traits(t),
    ];
    if !t.doc.is_empty() {
        out.push(t.doc.clone());
    }
    out.push(policy_line(a, &t.name));
    out.join("\n\n")
}

/// What the policy in force says about a tool.
fn policy_line(a: &Analysis, tool: &str) -> String {
    let Some(policy) = &a.outcome.checked.policy else {
        return "no policy applies: every tool is denied".to_string();
    };
    let Some(rule) = policy.rule(tool) else {
        return format!("not permitted by policy `{}`", policy.name);
    };
    let mut parts = Vec::new();
    let scopes: Vec<String> = rule
        .requires
        .iter()
        .map(|s| format!("`{}`", s.node))
        .collect();
    parts.push(if scopes.is_empty() {
        "requires no scope".to_string()
    } else {
        format!("requires {}", scopes.join(", "))
    });
    for c in &rule.ceilings {
        parts.push(format!("ceiling `{}`", c.text()));
    }
    if rule.approval.is_some() {
        parts.push("needs human approval".to_string());
    }
    if rule.untrusted.is_some() {
        parts.push("output untrusted by the policy".to_string());
    }
    format!("policy `{}`: {}", policy.name, parts.join("; "))
}

fn hover_param(a: &Analysis, occ: &Occ, tool: &str, param: &str) -> Option<String> {
    let t = a.outcome.checked.catalog.get(tool)?;
    let p = t.param(param)?;
    let mut out = vec![code_block(&format!("{}: {}", p.name, p.ty))];
    let mut facts = vec![format!("parameter of `{}`", t.name)];
    match &p.default {
        Some(d) => facts.push(format!("default `{}`", d.display())),
        None if p.required() => facts.push("required".to_string()),
        None => facts.push("optional".to_string()),
    }
    out.push(facts.join(" · "));
    if !p.doc.is_empty() {
        out.push(p.doc.clone());
    }
    if let Some(rule) = a
        .outcome
        .checked
        .policy
        .as_ref()
        .and_then(|pol| pol.rule(tool))
    {
        for c in rule.ceilings.iter().filter(|c| c.arg == param) {
            out.push(format!("ceiling `{}` (policy)", c.text()));
        }
    }
    // The value written in the step, when it is a reference.
    if let Some((pi, si)) = occ.step
        && let Some(step) = a.plan(pi).and_then(|p| p.steps.get(si))
        && let Some(arg) = step.arg(param)
        && !arg.value.is_constant()
        && !arg.value.ty.is_error()
    {
        out.push(format!("the value written has type `{}`", arg.value.ty));
    }
    Some(out.join("\n\n"))
}

fn hover_step(a: &Analysis, plan: &CheckedPlan, name: &str) -> Option<String> {
    let step = plan.steps.iter().find(|s| s.name == name)?;
    let mut out = vec![code_block(&format!(
        "step {} = {}",
        step.name, step.tool_name
    ))];
    if let Some(t) = a.outcome.checked.catalog.get(&step.tool_name) {
        out.push(tool_traits(t));
    }
    if !step.doc.is_empty() {
        out.push(step.doc.clone());
    }
    let binds: Vec<String> = step
        .binds
        .iter()
        .filter_map(|&b| plan.bindings.get(b))
        .map(|b| format!("`{}`", b.name))
        .collect();
    if !binds.is_empty() {
        out.push(format!("binds {}", binds.join(", ")));
    }
    let deps: Vec<String> = step
        .depends_on
        .iter()
        .map(|d| {
            let why = match d.reason {
                DepReason::Data => "data",
                DepReason::After => "after",
                DepReason::Effect => "write order",
            };
            format!("`{}` ({why})", d.step_name)
        })
        .collect();
    if !deps.is_empty() {
        out.push(format!("runs after {}", deps.join(", ")));
    }
    if step.authz.approval.is_some() {
        out.push("needs human approval before the run".to_string());
    }
    for g in &step.authz.guards {
        out.push(format!(
            "guard at dispatch: `{} {} {}`",
            g.arg,
            g.op.as_str(),
            g.limit.display()
        ));
    }
    Some(out.join("\n\n"))
}

fn hover_binding(plan: &CheckedPlan, name: &str) -> Option<String> {
    let b = plan.bindings.iter().find(|b| b.name == name)?;
    let step = plan.steps.get(b.step)?;
    let mut out = vec![
        code_block(&format!("bind {}: {}", b.name, b.ty)),
        format!(
            "bound by step `{}` from `{}`, used {} time{}",
            step.name,
            b.path_text,
            b.uses,
            if b.uses == 1 { "" } else { "s" }
        ),
    ];
    if let Some(from) = b.untrusted_from.and_then(|i| plan.steps.get(i)) {
        out.push(format!(
            "untrusted data: it comes from the output of step `{}` (`{}`)",
            from.name, from.tool_name
        ));
    }
    Some(out.join("\n\n"))
}

// ---------------------------------------------------------------- navigation

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

// ---------------------------------------------------------------- symbols

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
                            Some(st.tool.node.clone()),
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

// ---------------------------------------------------------------- quick fixes

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
