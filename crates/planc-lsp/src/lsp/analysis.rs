//! One open document, compiled: the driver's outcome, the URI of every file
//! the compilation read, and an index of the names in those files (each
//! occurrence of a tool, parameter, step or binding with the symbol it
//! stands for), which hover, definition, references and rename read.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use lsp_types::Uri;

use crate::check::CheckedPlan;
use crate::diagnostics::Diagnostic;
use crate::driver::{Job, Outcome};
use crate::source::{Edit, FileId, SourceFile, Span};
use crate::syntax::ast;

/// What a name stands for. Steps and bindings are scoped by their plan
/// (an index into the outcome's checked plans).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    Tool(String),
    Param { tool: String, param: String },
    Step { plan: usize, name: String },
    Binding { plan: usize, name: String },
}

/// One occurrence of a name.
#[derive(Clone, Debug)]
pub struct Occ {
    pub span: Span,
    pub sym: Sym,
    /// A declaration (`tool`, a parameter, `step NAME`, `bind NAME`), as
    /// opposed to a use.
    pub def: bool,
    /// The plan and step the occurrence is in, if any.
    pub step: Option<(usize, usize)>,
}

/// A compiled document.
pub struct Analysis {
    pub job: Job,
    pub outcome: Outcome,
    /// The document's own file in `job.sources`.
    pub doc: FileId,
    /// The URI of every file of the job, by file id.
    pub uris: Vec<Option<Uri>>,
    /// The catalogue and policy files read, and the `planc.toml` that named
    /// them: a change to any of them re-checks the document.
    pub deps: Vec<PathBuf>,
    /// Why the project could not be loaded (an unreadable `planc.toml`,
    /// catalogue or policy). When there is one, only the front ends'
    /// diagnostics are kept: a check against a partial catalogue would
    /// report every tool as unknown.
    pub project_errors: Vec<String>,
    /// The diagnostics shown: the driver's, less those a project error
    /// makes meaningless.
    pub diagnostics: Vec<Diagnostic>,
    /// Every name occurrence of every file, sorted by file and position:
    /// built on the first request that navigates (hover, definition,
    /// references, rename), not at every edit, which only publishes
    /// diagnostics.
    occs: OnceLock<Vec<Occ>>,
    /// The diagnostics as published, with the URI of each: the project's
    /// errors, then [`Analysis::diagnostics`]. Filled by the server.
    pub shown: Vec<(Uri, lsp_types::Diagnostic)>,
    /// The document is a `.plan` text whose tree was read without any
    /// diagnostic: the next edit may re-read only the step it is in
    /// ([`Analysis::reread`]). Set by the server.
    pub clean_tree: bool,
}

impl Analysis {
    /// Indexes the outcome of checking `job`.
    pub fn new(
        job: Job,
        outcome: Outcome,
        doc: FileId,
        uris: Vec<Option<Uri>>,
        deps: Vec<PathBuf>,
        project_errors: Vec<String>,
    ) -> Analysis {
        // The outcome's own list is read nowhere else: moved, not copied.
        let mut outcome = outcome;
        let mut diagnostics = std::mem::take(&mut outcome.diagnostics);
        if !project_errors.is_empty() {
            diagnostics.retain(|d| d.code.is_syntax());
        }
        Analysis {
            job,
            outcome,
            doc,
            uris,
            deps,
            project_errors,
            diagnostics,
            occs: OnceLock::new(),
            shown: Vec::new(),
            clean_tree: false,
        }
    }

    /// The edit from this analysis's text of the document to `new`, the
    /// text of the next analysis, when that is the same file `doc`.
    pub fn edit_to(&self, doc: FileId, new: &str) -> Option<Edit> {
        let old = self.doc_file().filter(|_| self.doc == doc)?;
        Some(Edit::between(doc, &old.text, new))
    }

    /// What the check of the document's text after `edit` may reuse of this
    /// analysis's check (`check::Prior`): its plans' models and memo.
    /// Taken: this analysis is about to be replaced.
    pub fn prior(&mut self, edit: Edit) -> Option<crate::check::Prior> {
        let checked = &mut self.outcome.checked;
        let memo = checked.memo.take()?;
        Some(crate::check::Prior::new(
            std::mem::take(&mut checked.plans),
            memo,
            std::sync::Arc::clone(&checked.models),
            edit,
        ))
    }

    /// The tree of the document's new text `new`, as file `doc`, made from
    /// this analysis's tree by re-reading only the step the edit is in
    /// (`syntax::incremental`); `None` when it cannot be (parse `new`
    /// whole). `edit` is the one from this analysis's text to `new`
    /// ([`Analysis::edit_to`]). The tree is taken: this analysis is about
    /// to be replaced.
    pub fn reread(&mut self, doc: FileId, new: &str, edit: &Edit) -> Option<ast::Module> {
        if !self.clean_tree || self.doc != doc {
            return None;
        }
        let old = self.job.sources.get(self.doc)?;
        let parsed = self.outcome.parsed.iter_mut().find(|p| p.file == doc)?;
        let mut module = match std::sync::Arc::try_unwrap(std::mem::take(&mut parsed.module)) {
            Ok(module) => module,
            Err(shared) => (*shared).clone(),
        };
        self.clean_tree = false;
        crate::syntax::incremental::reparse_edited(&mut module, &old.text, new, edit)
            .then_some(module)
    }

    /// Every name occurrence of every file, sorted by file and position.
    fn occs(&self) -> &[Occ] {
        self.occs.get_or_init(|| index(&self.outcome))
    }

    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.job.sources.get(id)
    }

    pub fn doc_file(&self) -> Option<&SourceFile> {
        self.job.sources.get(self.doc)
    }

    pub fn uri(&self, id: FileId) -> Option<&Uri> {
        self.uris.get(id.0 as usize)?.as_ref()
    }

    /// The document's parsed module.
    pub fn doc_module(&self) -> Option<&ast::Module> {
        self.outcome
            .parsed
            .iter()
            .find(|p| p.file == self.doc)
            .map(|p| &*p.module)
    }

    pub fn plan(&self, index: usize) -> Option<&CheckedPlan> {
        self.outcome.checked.plans.get(index)
    }

    /// The occurrence under byte `offset` of `file`; a cursor just after a
    /// name is on it.
    pub fn occ_at(&self, file: FileId, offset: usize) -> Option<&Occ> {
        let occs = self.occs();
        let upto = occs.partition_point(|o| (o.span.file, o.span.start as usize) <= (file, offset));
        let candidates = occs.get(..upto)?;
        candidates
            .iter()
            .rev()
            .take(4)
            .find(|o| o.span.file == file && o.span.end as usize >= offset)
    }

    /// Where a symbol is declared.
    pub fn definition(&self, sym: &Sym) -> Option<Span> {
        let checked = &self.outcome.checked;
        match sym {
            Sym::Tool(name) => checked.catalog.get(name).map(|t| t.name_span),
            Sym::Param { tool, param } => checked
                .catalog
                .get(tool)
                .and_then(|t| t.param(param))
                .map(|p| p.name_span),
            Sym::Step { plan, name } => self
                .plan(*plan)?
                .steps
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.name_span),
            Sym::Binding { plan, name } => self
                .plan(*plan)?
                .bindings
                .iter()
                .find(|b| b.name == name)
                .map(|b| b.name_span),
        }
    }

    /// Every occurrence of a symbol in the files of this compilation.
    pub fn occurrences<'a>(&'a self, sym: &'a Sym) -> impl Iterator<Item = &'a Occ> + 'a {
        self.occs().iter().filter(move |o| &o.sym == sym)
    }
}

/// Indexes the names of every parsed file: tool and parameter declarations,
/// policy rules and ceilings, and in each checked plan its steps, tools,
/// arguments, references, `pre` paths' bindings, binds and `after`
/// targets.
fn index(outcome: &Outcome) -> Vec<Occ> {
    let mut occs = Vec::new();
    let mut plans: HashMap<Span, &ast::PlanDecl> = HashMap::new();
    for parsed in &outcome.parsed {
        for item in &parsed.module.items {
            match item {
                ast::Item::Tool(t) => index_tool(t, &mut occs),
                ast::Item::Policy(p) => index_policy(p, &mut occs),
                ast::Item::Plan(p) => {
                    plans.insert(p.name.span, p);
                }
                ast::Item::Error(_) => {}
            }
        }
    }
    for (pi, checked) in outcome.checked.plans.iter().enumerate() {
        if let Some(decl) = plans.get(&checked.name_span) {
            index_plan(pi, decl, &mut occs);
        }
    }
    occs.retain(|o| !o.span.is_empty());
    occs.sort_by_key(|o| (o.span.file, o.span.start, o.span.end));
    occs
}

fn index_tool(t: &ast::ToolDecl, occs: &mut Vec<Occ>) {
    let tool = t.name.node.clone();
    occs.push(Occ {
        span: t.name.span,
        sym: Sym::Tool(tool.clone().to_string()),
        def: true,
        step: None,
    });
    for p in &t.params {
        occs.push(Occ {
            span: p.name.span,
            sym: Sym::Param {
                tool: tool.clone().to_string(),
                param: p.name.node.clone().to_string(),
            },
            def: true,
            step: None,
        });
    }
}

fn index_policy(p: &ast::PolicyDecl, occs: &mut Vec<Occ>) {
    for rule in &p.rules {
        occs.push(Occ {
            span: rule.tool.span,
            sym: Sym::Tool(rule.tool.node.clone().to_string()),
            def: false,
            step: None,
        });
        for arg in rule
            .ceilings
            .iter()
            .map(|c| &c.arg)
            .chain(rule.arg_rules.iter().map(|r| &r.arg))
        {
            occs.push(Occ {
                span: arg.span,
                sym: Sym::Param {
                    tool: rule.tool.node.clone().to_string(),
                    param: arg.node.clone().to_string(),
                },
                def: false,
                step: None,
            });
        }
    }
}

fn index_plan(pi: usize, plan: &ast::PlanDecl, occs: &mut Vec<Occ>) {
    for (si, step) in plan.steps.iter().enumerate() {
        let here = Some((pi, si));
        let push = |occs: &mut Vec<Occ>, span: Span, sym: Sym, def: bool| {
            occs.push(Occ {
                span,
                sym,
                def,
                step: here,
            })
        };
        if !step.name.node.is_empty() {
            push(
                occs,
                step.name.span,
                Sym::Step {
                    plan: pi,
                    name: step.name.node.clone().to_string(),
                },
                true,
            );
        }
        if !step.tool.node.is_empty() {
            push(
                occs,
                step.tool.span,
                Sym::Tool(step.tool.node.clone().to_string()),
                false,
            );
        }
        for arg in &step.args {
            push(
                occs,
                arg.name.span,
                Sym::Param {
                    tool: step.tool.node.clone().to_string(),
                    param: arg.name.node.clone().to_string(),
                },
                false,
            );
            // Expressions nest as deep as the front ends allow: walk them
            // with a stack, not recursion.
            let mut stack: Vec<&ast::Expr> = vec![&arg.value];
            while let Some(e) = stack.pop() {
                match &e.node {
                    ast::ExprKind::Ref(r) => push(
                        occs,
                        r.name.span,
                        Sym::Binding {
                            plan: pi,
                            name: r.name.node.clone().to_string(),
                        },
                        false,
                    ),
                    ast::ExprKind::Interp(parts) => {
                        for part in parts {
                            if let ast::InterpPart::Ref(r) = part {
                                push(
                                    occs,
                                    r.node.name.span,
                                    Sym::Binding {
                                        plan: pi,
                                        name: r.node.name.node.clone().to_string(),
                                    },
                                    false,
                                );
                            }
                        }
                    }
                    ast::ExprKind::List(items) => stack.extend(items.iter()),
                    ast::ExprKind::Record(entries) => {
                        stack.extend(entries.iter().map(|e| &e.value))
                    }
                    ast::ExprKind::Literal(_) | ast::ExprKind::Error => {}
                }
            }
        }
        for clause in &step.clauses {
            match clause {
                ast::Clause::Bind { name, .. } => push(
                    occs,
                    name.span,
                    Sym::Binding {
                        plan: pi,
                        name: name.node.clone().to_string(),
                    },
                    true,
                ),
                // A `pre` path starts at a binding: a use of it.
                ast::Clause::Pre(p) => {
                    if let Some(root) = p.path().and_then(|path| path.root.as_ref()) {
                        push(
                            occs,
                            root.span,
                            Sym::Binding {
                                plan: pi,
                                name: root.node.clone().to_string(),
                            },
                            false,
                        );
                    }
                }
                ast::Clause::After { steps, .. } => {
                    for s in steps {
                        push(
                            occs,
                            s.span,
                            Sym::Step {
                                plan: pi,
                                name: s.node.clone().to_string(),
                            },
                            false,
                        );
                    }
                }
                _ => {}
            }
        }
    }
}
