//! A catalogue and a policy read once, then many plans checked against
//! them: what a long-running agent loop, the Python package or a server
//! calls for each plan it is handed.
//!
//! [`Compiler::new`] reads the catalogue and policy sources (text or JSON,
//! told apart by their names as on the command line) and keeps their syntax
//! trees and the diagnostics they gave; [`Compiler::check`] reads one plan
//! text and checks it against them without reading them again. A
//! `Compiler` is immutable once built, so one value serves every thread
//! (`Send + Sync`).
//!
//! Roles come from where a text is given: the catalogue and policy from the
//! configuration, the plan from the caller. A JSON plan text is always read
//! as a plan, never as a catalogue or policy of its own.

use std::sync::Arc;

use crate::check::{self, Models};
use crate::diagnostics::{self, Diagnostic};
use crate::driver::{self, Job, Outcome, Parsed, Role};
use crate::ir::PlanIr;
use crate::source::{FileId, SourceKind, SourceMap};
use crate::syntax::{self, ast};

/// A catalogue and a policy, read and built once.
#[derive(Clone, Debug)]
pub struct Compiler {
    /// The catalogue and policy files; shared with every check's map.
    sources: SourceMap,
    catalog_files: Vec<FileId>,
    policy_files: Vec<FileId>,
    /// Their syntax trees, each file once (the editor indexes their names).
    parsed: Vec<Parsed>,
    /// The catalogue, policy and actor, built from the trees.
    models: Arc<Models>,
    /// The `planc.toml` they came from, for E0005's message.
    config: Option<String>,
    diagnostics: Vec<Diagnostic>,
}

/// What checking one plan text gave.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The catalogue and policy files and the plan's (last), for the
    /// renderers of [`crate::diagnostics::render`]. The catalogue and
    /// policy texts are shared with the [`Compiler`], not copied.
    pub sources: SourceMap,
    /// The plan text's file in `sources`.
    pub file: FileId,
    /// The plan's diagnostics, sorted by position. Those of the catalogue
    /// and policy are [`Compiler::diagnostics`], reported once.
    pub diagnostics: Vec<Diagnostic>,
    /// The IR of each plan the text declares, when neither it nor the
    /// catalogue and policy have an error.
    pub ir: Option<Vec<PlanIr>>,
}

impl Compiler {
    /// Reads the catalogue sources and the policy source, each a
    /// `(name, text)`; a name ending in `.json` is read as JSON. `actor`
    /// replaces the scopes of the policy's `actor` line when given.
    pub fn new(
        catalog: &[(&str, &str)],
        policy: Option<(&str, &str)>,
        actor: Option<Vec<String>>,
    ) -> Compiler {
        let mut sources = SourceMap::new();
        let catalog_files: Vec<FileId> = catalog
            .iter()
            .map(|(name, text)| sources.add(*name, *text))
            .collect();
        let policy_files: Vec<FileId> = policy
            .iter()
            .map(|(name, text)| sources.add(*name, *text))
            .collect();
        Compiler::build(sources, catalog_files, policy_files, actor, None)
    }

    /// Reads the catalogue and policy files of `sources` (a file may be
    /// in both lists: a text file is then parsed once) and builds the
    /// models.
    pub(crate) fn build(
        mut sources: SourceMap,
        catalog_files: Vec<FileId>,
        policy_files: Vec<FileId>,
        actor: Option<Vec<String>>,
        config: Option<String>,
    ) -> Compiler {
        let mut diagnostics = Vec::new();
        // (file, role for a JSON file, tree): a text file serves both roles.
        let mut trees: Vec<(FileId, Option<Role>, Arc<ast::Module>)> = Vec::new();
        let mut read = |sources: &mut SourceMap, file: FileId, role: Role| -> Arc<ast::Module> {
            let key = match sources.get(file).map(|f| f.kind) {
                Some(SourceKind::Json) => Some(role),
                _ => None,
            };
            if let Some((_, _, m)) = trees.iter().find(|(f, k, _)| *f == file && *k == key) {
                return Arc::clone(m);
            }
            let (module, diags) = driver::parse(sources, file, role);
            diagnostics.extend(diags);
            let module = Arc::new(module);
            trees.push((file, key, Arc::clone(&module)));
            module
        };
        let catalog: Vec<Arc<ast::Module>> = catalog_files
            .iter()
            .map(|&f| read(&mut sources, f, Role::Catalog))
            .collect();
        let policy: Vec<Arc<ast::Module>> = policy_files
            .iter()
            .map(|&f| read(&mut sources, f, Role::Policy))
            .collect();
        let catalogs: Vec<&ast::Module> = catalog.iter().map(|m| &**m).collect();
        let policies: Vec<&ast::Module> = policy.iter().map(|m| &**m).collect();
        let (models, model_diags) = Models::build(&catalogs, &policies, actor.as_deref());
        diagnostics.extend(model_diags);
        diagnostics::sort(&mut diagnostics);
        let mut parsed: Vec<Parsed> = Vec::with_capacity(trees.len());
        for (file, _, module) in trees {
            if !parsed.iter().any(|p| p.file == file) {
                parsed.push(Parsed { file, module });
            }
        }
        Compiler {
            sources,
            catalog_files,
            policy_files,
            parsed,
            models: Arc::new(models),
            config,
            diagnostics,
        }
    }

    /// The catalogue, policy and actor of a job (its sources are taken),
    /// without its plans: what an IR file is verified against.
    pub fn from_job(job: &mut Job) -> Compiler {
        Compiler::build(
            std::mem::take(&mut job.sources),
            job.catalog.clone(),
            job.policy.clone(),
            job.actor.clone(),
            job.config.clone(),
        )
    }

    /// The diagnostics of the catalogue and the policy, sorted.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The catalogue and policy files, for rendering [`Self::diagnostics`].
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }

    /// The built catalogue, policy and actor.
    pub fn models(&self) -> &Arc<Models> {
        &self.models
    }

    /// The planner's schema of this catalogue and policy (`planc schema`),
    /// in `dialect`; `tool` wraps it as the `submit_plan` tool definition.
    /// The `Err` says why there is none: the catalogue or policy has
    /// errors, or the policy permits no tool.
    pub fn schema(
        &self,
        dialect: crate::plan_schema::Dialect,
        tool: bool,
    ) -> Result<serde_json::Value, String> {
        if self.diagnostics.iter().any(Diagnostic::is_error) {
            return Err(
                "the catalogue or the policy has errors (see the compiler's diagnostics)".into(),
            );
        }
        let models = &self.models;
        let schema = crate::plan_schema::plan_schema(
            &models.catalog,
            models.policy.as_ref(),
            &models.actor,
            dialect,
        )?;
        Ok(if tool {
            crate::plan_schema::submit_plan_tool(schema, dialect)
        } else {
            schema
        })
    }

    /// Checks one plan text, named `name` in diagnostics, in the form
    /// `kind`, against the catalogue and policy; lowers it to IR when
    /// nothing has an error. Neither the models nor the catalogue and
    /// policy texts are rebuilt or copied.
    pub fn check(&self, name: &str, text: &str, kind: SourceKind) -> Checked {
        self.check_replan(name, text, kind, None)
    }

    /// [`Self::check`] of a replan: with `progress` (a record's name and
    /// JSON text), the plan is checked against what already ran (`docs/replanning.md`:
    /// recorded artifacts in scope, reuse, E0306–E0308, the replan
    /// budget). The record's own diagnostics (E0601–E0605) are among the
    /// result's.
    pub fn check_replan(
        &self,
        name: &str,
        text: &str,
        kind: SourceKind,
        progress: Option<(&str, &str)>,
    ) -> Checked {
        let mut sources = self.sources.clone();
        let file = sources.add_with_kind(name, text, kind);
        let record =
            progress.map(|(name, text)| sources.add_with_kind(name, text, SourceKind::Json));
        let (outcome, sources) = self.run_files(sources, &[file], true, record);
        let Outcome {
            diagnostics,
            checked,
            parsed,
        } = outcome;
        // The lowering reads the checked model only: the syntax trees go
        // before the IR is built beside the model.
        drop(parsed);
        // The catalogue's and policy's own diagnostics were reported once,
        // by `new`.
        let diagnostics: Vec<Diagnostic> = diagnostics
            .into_iter()
            .filter(|d| d.span.file == file || Some(d.span.file) == record)
            .collect();
        let clean = !diagnostics
            .iter()
            .chain(&self.diagnostics)
            .any(Diagnostic::is_error);
        let ir = if clean {
            checked
                .plans
                .iter()
                .map(|plan| crate::ir::lower(plan, &sources))
                .collect::<Result<Vec<_>, String>>()
                .ok()
        } else {
            None
        };
        Checked {
            sources,
            file,
            diagnostics,
            ir,
        }
    }

    /// Checks the plan files of `job`, whose map extends a clone of
    /// [`Self::sources`] (the language server's path).
    pub(crate) fn run(&self, job: &mut Job) -> Outcome {
        let sources = std::mem::take(&mut job.sources);
        let (outcome, sources) = self.run_files(sources, &job.plans, false, job.progress);
        job.sources = sources;
        outcome
    }

    /// Checks the plan files of `job` ([`driver::run`]'s path when the
    /// roles are fixed), the compiler having been built from the job's
    /// whole map, which it hands back: no file is copied.
    pub(crate) fn run_job(mut self, job: &mut Job) -> Outcome {
        let sources = std::mem::take(&mut self.sources);
        let (outcome, sources) = self.run_files(sources, &job.plans, false, job.progress);
        job.sources = sources;
        outcome
    }

    /// Parses the `plans` files of `sources` (which holds the compiler's
    /// files and theirs) and checks them against the built models. With
    /// `only_plans`, a JSON file is read as a plan whatever its shape;
    /// otherwise as [`driver::parse`] reads a file given as a plan. With
    /// `progress`, the file of a progress record the plans are replans
    /// against.
    fn run_files(
        &self,
        mut sources: SourceMap,
        plans: &[FileId],
        only_plans: bool,
        progress: Option<FileId>,
    ) -> (Outcome, SourceMap) {
        let mut diagnostics = self.diagnostics.clone();
        let mut parsed: Vec<Parsed> = Vec::with_capacity(plans.len() + self.parsed.len());
        let mut syntax_errors = Vec::new();
        for &file in plans {
            if parsed.iter().any(|p| p.file == file) {
                continue;
            }
            let (module, diags) = match sources.get(file) {
                Some(f) if only_plans && f.kind == SourceKind::Json => {
                    syntax::read_json_plan(file, &f.text)
                }
                _ => driver::parse(&mut sources, file, Role::Plan),
            };
            syntax_errors.extend(diags.iter().filter(|d| d.is_error()).map(|d| d.span));
            diagnostics.extend(diags);
            parsed.push(Parsed {
                file,
                module: Arc::new(module),
            });
        }
        // The roles are fixed: a `tool` or `policy` declaration in a plan
        // file is E0005 and joins nothing.
        let names = driver::Names {
            sources: &sources,
            catalog: &self.catalog_files,
            policy: &self.policy_files,
            config: self.config.as_deref(),
        };
        for p in &parsed {
            driver::misplaced(&names, &p.module, false, false, &mut diagnostics);
        }
        let modules: Vec<&ast::Module> = parsed.iter().map(|p| &*p.module).collect();
        let record = progress.map(|id| driver::read_progress(&mut sources, id));
        let progress = driver::progress_of(record.as_ref(), &mut diagnostics);
        let (mut plan_diags, plans) =
            check::check_plans(&self.models, &modules, &syntax_errors, progress);
        diagnostics.append(&mut plan_diags);
        diagnostics::sort(&mut diagnostics);
        parsed.extend(self.parsed.iter().cloned());
        let outcome = Outcome {
            diagnostics,
            parsed,
            checked: check::CheckOutput {
                diagnostics: Vec::new(),
                plans,
                models: Arc::clone(&self.models),
            },
        };
        (outcome, sources)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const _: fn() = || {
        fn shareable<T: Send + Sync>() {}
        shareable::<Compiler>();
    };

    const TOOLS: &str = "tool a.get(id: string) -> { n: int } read\n";
    const POLICY: &str = "policy p {\n    actor [x:read]\n    a.get requires [x:read]\n}\n";

    fn compiler() -> Compiler {
        Compiler::new(
            &[("tools.plan", TOOLS)],
            Some(("policy.plan", POLICY)),
            None,
        )
    }

    #[test]
    fn one_compiler_checks_many_plans() {
        let c = compiler();
        assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
        let good = r#"{"steps": [{"tool": "a.get", "args": {"id": "x"}}]}"#;
        let ok = c.check("plan.json", good, SourceKind::Json);
        assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
        assert_eq!(ok.ir.map(|ir| ir.len()), Some(1));
        let bad = r#"{"steps": [{"tool": "a.gte", "args": {"id": "x"}}]}"#;
        let no = c.check("plan.json", bad, SourceKind::Json);
        let codes: Vec<&str> = no.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["E0101"]);
        assert!(no.ir.is_none());
    }

    #[test]
    fn a_check_shares_the_catalogue_and_its_models() {
        let c = compiler();
        let checked = c.check("plan.plan", "plan p \"x\" {\n}\n", SourceKind::Text);
        let text = |m: &SourceMap| m.get(FileId(0)).map(|f| f.text.as_ptr());
        assert!(text(c.sources()).is_some());
        assert_eq!(
            text(&checked.sources),
            text(c.sources()),
            "the text was copied"
        );
        let mut job = Job {
            sources: c.sources().clone(),
            ..Job::default()
        };
        let file = job.sources.add("plan.plan", "plan p \"x\" {\n}\n");
        job.plans.push(file);
        let outcome = c.run(&mut job);
        assert!(Arc::ptr_eq(&outcome.checked.models, c.models()));
    }

    #[test]
    fn a_json_plan_text_is_read_as_a_plan() {
        let c = compiler();
        let catalogue = r#"{"tools": []}"#;
        let checked = c.check("plan.json", catalogue, SourceKind::Json);
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(
            !codes.is_empty() && codes.iter().all(|c| *c == "E0004"),
            "{codes:?}"
        );
    }

    #[test]
    fn a_plan_text_declares_no_tools() {
        let text = "tool a.get(id: string) -> { m: int } read\nplan p \"x\" {\n    step s = a.get(id: \"x\")\n}\n";
        let checked = compiler().check("plan.plan", text, SourceKind::Text);
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.contains(&"E0005"), "{codes:?}");
    }
}
