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
use crate::driver::{self, Job, Outcome, Parsed, Role, Trees};
use crate::ir::PlanIr;
use crate::source::{FileId, SourceKind, SourceMap};
use crate::syntax::{self, ast};

/// One tool as the catalogue and policy make it ([`Compiler::tool_facts`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ToolFacts {
    pub tool: String,
    /// The policy has a rule for it (else it is denied).
    pub permitted: bool,
    /// `read` or `write`: a tool whose effect nobody states is a write.
    pub effect: &'static str,
    pub idempotent: bool,
    /// Its output is untrusted data.
    pub untrusted: bool,
    /// Each call needs a person's approval.
    pub approval: bool,
    /// The arguments the policy requires `trusted`.
    pub trusted: Vec<String>,
}

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
    /// renderers of [`planc_lang::render`]. The catalogue and
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

/// A plan checked and not yet lowered ([`Compiler::check_unlowered`]).
#[derive(Clone, Debug)]
pub struct Unlowered {
    /// As [`Checked::sources`].
    pub sources: SourceMap,
    /// As [`Checked::file`].
    pub file: FileId,
    /// As [`Checked::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// The model of each plan the text declares; empty when anything has
    /// an error.
    plans: Vec<crate::check::CheckedPlan>,
    /// Whether neither the plan nor the catalogue and policy have an error.
    clean: bool,
}

impl Unlowered {
    /// The IR of each plan the text declares, when neither it nor the
    /// catalogue and policy have an error ([`Checked::ir`]).
    pub fn ir(&self) -> Option<Vec<PlanIr>> {
        if !self.clean {
            return None;
        }
        self.plans
            .iter()
            .map(|plan| crate::ir::lower(plan, &self.sources))
            .collect::<Result<Vec<_>, String>>()
            .ok()
    }

    /// The IR built and the model dropped, each step's as its IR is built
    /// ([`crate::ir::lower_owned`]): what [`Compiler::check`] gives.
    pub fn lower(self) -> Checked {
        let ir = if self.clean {
            self.plans
                .into_iter()
                .map(|plan| crate::ir::lower_owned(plan, &self.sources))
                .collect::<Result<Vec<_>, String>>()
                .ok()
        } else {
            None
        };
        Checked {
            sources: self.sources,
            file: self.file,
            diagnostics: self.diagnostics,
            ir,
        }
    }
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
    pub fn build(
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

    /// What the catalogue and policy together make of each catalogue tool
    /// (`bindings/python/README.md`, `compiler.tools()`): its effect, idempotence and
    /// trust as every step of it gets them ([`crate::policy::Traits`]),
    /// whether the policy names it, and the arguments it requires
    /// `trusted`. For a tool that reads what a script needs to know of the
    /// policy from the compiler, never from the policy's text.
    pub fn tool_facts(&self) -> Vec<ToolFacts> {
        let policy = self.models.policy.as_ref();
        self.models
            .catalog
            .tools()
            .iter()
            .map(|tool| {
                let rule = policy.and_then(|p| p.rule(&tool.name));
                let traits = crate::policy::Traits::of(tool, rule);
                let trusted = rule
                    .map(|r| {
                        r.conditions
                            .iter()
                            .filter(|c| matches!(c.kind, crate::policy::Condition::Trusted))
                            .map(|c| c.arg.to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                ToolFacts {
                    tool: tool.name.to_string(),
                    permitted: rule.is_some(),
                    effect: match traits.effect_or_write() {
                        crate::syntax::ast::Effect::Read => "read",
                        crate::syntax::ast::Effect::Write => "write",
                    },
                    idempotent: traits.idempotent,
                    untrusted: traits.untrusted,
                    approval: rule.is_some_and(|r| r.approval.is_some()),
                    trusted,
                }
            })
            .collect()
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
        self.check_unlowered(name, text, kind, progress).lower()
    }

    /// [`Self::check_replan`] without the IR: the checked model is kept
    /// and [`Unlowered::ir`] lowers it when asked (the Python package,
    /// whose caller often reads the diagnostics only). `text` is moved
    /// into the source map, not copied.
    pub fn check_unlowered(
        &self,
        name: &str,
        text: impl Into<String>,
        kind: SourceKind,
        progress: Option<(&str, &str)>,
    ) -> Unlowered {
        let mut sources = self.sources.clone();
        let file = sources.add_with_kind(name, text, kind);
        let record =
            progress.map(|(name, text)| sources.add_with_kind(name, text, SourceKind::Json));
        let (outcome, sources) =
            self.run_files(sources, &[file], true, record, None, Trees::Release, None);
        let Outcome {
            diagnostics,
            checked,
            parsed,
        } = outcome;
        // The plan's tree went as it was checked; the catalogue's and the
        // policy's are the compiler's own, shared.
        drop(parsed);
        // The catalogue's and policy's own diagnostics were reported once,
        // by `new`, and are left out (`run_files` adds none with
        // `only_plans`). Every other one is the plan's, wherever it
        // points: a default in the catalogue that breaks a ceiling is an
        // error of the plan that leaves the argument out.
        let clean = !diagnostics
            .iter()
            .chain(&self.diagnostics)
            .any(Diagnostic::is_error);
        Unlowered {
            sources,
            file,
            diagnostics,
            // A model with errors is never lowered: nothing to keep.
            plans: if clean { checked.plans } else { Vec::new() },
            clean,
        }
    }

    /// Checks the plan files of `job`, whose map extends a clone of
    /// [`Self::sources`] (the language server's path).
    pub fn run(&self, job: &mut Job) -> Outcome {
        let sources = std::mem::take(&mut job.sources);
        let (outcome, sources) = self.run_files(
            sources,
            &job.plans,
            false,
            job.progress,
            None,
            job.trees,
            None,
        );
        job.sources = sources;
        outcome
    }

    /// [`Self::run`] with the tree of one of the job's plan files given
    /// (`file`, its tree and the diagnostics of reading it, as
    /// [`driver::parse`] gives them): the language server's re-check after
    /// an edit it re-read in part (`syntax::incremental`). The plans are
    /// checked by [`check::check_plans_again`], reusing what `prior` (the
    /// check of the previous text) can give and keeping in the outcome's
    /// `checked.memo` what the next check may reuse.
    pub fn run_with_tree(
        &self,
        job: &mut Job,
        tree: GivenTree,
        prior: Option<check::Prior>,
    ) -> Outcome {
        let sources = std::mem::take(&mut job.sources);
        let (outcome, sources) = self.run_files(
            sources,
            &job.plans,
            false,
            job.progress,
            Some((tree, prior)),
            job.trees,
            None,
        );
        job.sources = sources;
        outcome
    }

    /// Checks the plan files of `job` ([`driver::run`]'s path when the
    /// roles are fixed), the compiler having been built from the job's
    /// whole map, which it hands back: no file is copied. With a `sink`,
    /// for the diagnostics, each step's model handed to it once checked
    /// and let go ([`check::StepModels::Lower`]; [`driver::run_lowering`],
    /// not for a job with a progress record, whose models are kept and
    /// whose sink is given no step).
    pub(crate) fn run_job(
        mut self,
        job: &mut Job,
        sink: Option<&mut dyn check::StepSink>,
    ) -> Outcome {
        let sources = std::mem::take(&mut self.sources);
        let trees = if sink.is_some() {
            Trees::Diagnostics
        } else {
            job.trees
        };
        let (outcome, sources) =
            self.run_files(sources, &job.plans, false, job.progress, None, trees, sink);
        job.sources = sources;
        outcome
    }

    /// Parses the `plans` files of `sources` (which holds the compiler's
    /// files and theirs) and checks them against the built models. With
    /// `only_plans`, a JSON file is read as a plan whatever its shape;
    /// otherwise as [`driver::parse`] reads a file given as a plan. With
    /// `progress`, the file of a progress record the plans are replans
    /// against. A `given` file's tree is not read again. `trees` says
    /// whether the plans' trees are kept in the outcome ([`Trees`]); with
    /// [`Trees::Diagnostics`], a `sink` is given each step's model before
    /// it goes ([`check::StepModels::Lower`]).
    #[allow(clippy::too_many_arguments)]
    fn run_files(
        &self,
        mut sources: SourceMap,
        plans: &[FileId],
        only_plans: bool,
        progress: Option<FileId>,
        given: Option<(GivenTree, Option<check::Prior>)>,
        trees: Trees,
        mut sink: Option<&mut dyn check::StepSink>,
    ) -> (Outcome, SourceMap) {
        // A plan checked on its own ([`Self::check_replan`]) leaves out the
        // compiler's own diagnostics, which `new` reported once.
        let mut diagnostics = if only_plans {
            Vec::new()
        } else {
            self.diagnostics.clone()
        };
        if trees == Trees::Diagnostics
            && progress.is_none()
            && given.is_none()
            && let Some(outcome) = self.run_skeletal(
                &sources,
                plans,
                diagnostics.clone(),
                step_models(trees, sink.as_mut().map(|s| &mut **s as _), &sources),
            )
        {
            return (outcome, sources);
        }
        if let Some(sink) = sink.as_mut() {
            // What a skeletal reading that gave up gave it is not the check's.
            sink.restart();
        }
        let again = given.is_some();
        let (mut given, prior) = given.map_or((None, None), |(tree, prior)| (Some(tree), prior));
        let mut modules: Vec<(FileId, ast::Module)> = Vec::with_capacity(plans.len());
        let mut syntax_errors = Vec::new();
        for &file in plans {
            if modules.iter().any(|(f, _)| *f == file) {
                continue;
            }
            let given = given.take_if(|(f, _, _)| *f == file);
            let (module, diags) = match (given, sources.get(file)) {
                (Some((_, module, diags)), _) => (module, diags),
                (None, Some(f)) if only_plans && f.kind == SourceKind::Json => {
                    syntax::read_json_plan(file, &f.text)
                }
                _ => driver::parse(&mut sources, file, Role::Plan),
            };
            syntax_errors.extend(diags.iter().filter(|d| d.is_error()).map(|d| d.span));
            diagnostics.extend(diags);
            modules.push((file, module));
        }
        self.misplaced(&sources, modules.iter().map(|(_, m)| m), &mut diagnostics);
        let record = progress.map(|id| driver::read_progress(&mut sources, id));
        let progress = driver::progress_of(record.as_ref(), &mut diagnostics);
        let mut parsed: Vec<Parsed> = Vec::with_capacity(modules.len() + self.parsed.len());
        let mut memo = None;
        let (mut plan_diags, mut plans) = match trees {
            Trees::Keep => {
                parsed.extend(modules.into_iter().map(|(file, module)| Parsed {
                    file,
                    module: Arc::new(module),
                }));
                let kept: Vec<&ast::Module> = parsed.iter().map(|p| &*p.module).collect();
                if again && progress.is_none() {
                    let (diags, plans, kept) =
                        check::check_plans_again(&self.models, &kept, &syntax_errors, prior);
                    memo = Some(kept);
                    (diags, plans)
                } else {
                    check::check_plans(&self.models, &kept, &syntax_errors, progress)
                }
            }
            Trees::Release | Trees::Diagnostics => {
                let owned = modules.into_iter().map(|(_, module)| module).collect();
                check::check_plans_owned(
                    &self.models,
                    owned,
                    &syntax_errors,
                    progress,
                    step_models(trees, sink.as_mut().map(|s| &mut **s as _), &sources),
                )
            }
        };
        diagnostics.append(&mut plan_diags);
        driver::resume_fingerprints(
            &mut plans,
            record.as_ref().and_then(|r| r.record.as_ref()),
            &sources,
            &mut diagnostics,
        );
        diagnostics::sort(&mut diagnostics);
        parsed.extend(self.parsed.iter().cloned());
        let outcome = Outcome {
            diagnostics,
            parsed,
            checked: check::CheckOutput {
                diagnostics: Vec::new(),
                plans,
                models: Arc::clone(&self.models),
                memo,
            },
        };
        (outcome, sources)
    }
}

impl Compiler {
    /// The roles are fixed: a `tool` or `policy` declaration in one of the
    /// plan files' `modules` is E0005 and joins nothing.
    fn misplaced<'m>(
        &self,
        sources: &SourceMap,
        modules: impl Iterator<Item = &'m ast::Module>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let names = driver::Names {
            sources,
            catalog: &self.catalog_files,
            policy: &self.policy_files,
            config: self.config.as_deref(),
        };
        for module in modules {
            driver::misplaced(&names, module, false, false, diagnostics);
        }
    }

    /// [`Self::run_files`] for the diagnostics only ([`Trees::Diagnostics`],
    /// no progress record) of plans that read without a diagnostic (a
    /// `.plan` text step by step, a JSON plan): each plan is read as
    /// skeletons and each step whole again as it is checked
    /// ([`check::check_plans_skeletal`]). `None` when a file reads with a
    /// diagnostic, or a step did not read again: the caller checks from a
    /// whole parse. `diagnostics` are the compiler's own the outcome begins
    /// with.
    fn run_skeletal(
        &self,
        sources: &SourceMap,
        plans: &[FileId],
        mut diagnostics: Vec<Diagnostic>,
        step_models: check::StepModels<'_>,
    ) -> Option<Outcome> {
        let mut modules: Vec<(FileId, ast::Module, &str, SourceKind)> =
            Vec::with_capacity(plans.len());
        for &file in plans {
            if modules.iter().any(|(f, _, _, _)| *f == file) {
                continue;
            }
            let f = sources.get(file)?;
            // A hidden character is reported (and an error is damage the
            // check reads): the whole parse's path reports it.
            if !check::hidden::hidden_characters(file, &f.text).is_empty() {
                return None;
            }
            let module = match f.kind {
                SourceKind::Text => syntax::parse_text_skeletal(file, &f.text)?,
                SourceKind::Json => syntax::read_json_plan_skeletal(file, &f.text)?,
            };
            modules.push((file, module, &f.text, f.kind));
        }
        self.misplaced(
            sources,
            modules.iter().map(|(_, m, _, _)| m),
            &mut diagnostics,
        );
        let skeletal = modules
            .into_iter()
            .map(|(_, m, text, kind)| (m, text, kind))
            .collect();
        let (mut plan_diags, plans) =
            check::check_plans_skeletal(&self.models, skeletal, step_models)?;
        diagnostics.append(&mut plan_diags);
        diagnostics::sort(&mut diagnostics);
        Some(Outcome {
            diagnostics,
            parsed: self.parsed.to_vec(),
            checked: check::CheckOutput {
                diagnostics: Vec::new(),
                plans,
                models: Arc::clone(&self.models),
                memo: None,
            },
        })
    }
}

/// What a check with `trees` does with each step's model: with
/// [`Trees::Diagnostics`], lets it go, handing it to `sink` first if
/// there is one (its spans in `sources`); otherwise keeps it.
fn step_models<'s>(
    trees: Trees,
    sink: Option<&'s mut dyn check::StepSink>,
    sources: &'s SourceMap,
) -> check::StepModels<'s> {
    match (trees, sink) {
        (Trees::Diagnostics, Some(sink)) => check::StepModels::Lower(sink, sources),
        (Trees::Diagnostics, None) => check::StepModels::LetGo,
        (Trees::Keep | Trees::Release, _) => check::StepModels::Keep,
    }
}

/// A plan file's tree, read by the caller: the file, its tree and the
/// diagnostics of reading it ([`Compiler::run_with_tree`]).
pub type GivenTree = (FileId, ast::Module, Vec<Diagnostic>);

#[cfg(test)]
mod tests {
    use super::*;

    const _: fn() = || {
        fn shareable<T: Send + Sync>() {}
        shareable::<Compiler>();
        shareable::<Unlowered>();
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
    fn an_error_of_the_plan_at_a_catalogue_default_is_the_plans() {
        // Leaving `kind` out passes its default, which breaks the ceiling:
        // the error points at the default, in the catalogue, and is still
        // the plan's (it was dropped for pointing outside the plan).
        let tools = "tool a.set(id: string, kind: string? = null) -> { n: int } write\n";
        let policy =
            "policy p {\n    actor [x:w]\n    a.set requires [x:w] where kind != null\n}\n";
        let c = Compiler::new(
            &[("tools.plan", tools)],
            Some(("policy.plan", policy)),
            None,
        );
        assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
        let plan = r#"{"steps": [{"tool": "a.set", "args": {"id": "x"}}]}"#;
        let no = c.check("plan.json", plan, SourceKind::Json);
        assert!(
            no.diagnostics.iter().any(|d| d.code.as_str() == "E0303"),
            "{:?}",
            no.diagnostics
        );
        assert!(no.ir.is_none());
        let given = r#"{"steps": [{"tool": "a.set", "args": {"id": "x", "kind": "k"}}]}"#;
        let ok = c.check("plan.json", given, SourceKind::Json);
        assert!(ok.ir.is_some(), "{:?}", ok.diagnostics);
    }

    #[test]
    fn tool_facts_are_the_catalogue_and_policy_together() {
        let tools = "tool a.get(id: string) -> { n: int } read\ntool a.put(id: string, to: string) -> { n: int }\n";
        let policy = "policy p {\n    actor [x:r]\n    a.get requires [x:r] untrusted\n    a.put requires [x:r] effect write approval human where to trusted\n}\n";
        let c = Compiler::new(
            &[("tools.plan", tools)],
            Some(("policy.plan", policy)),
            None,
        );
        let facts = c.tool_facts();
        let get = facts.iter().find(|f| f.tool == "a.get");
        assert!(get.is_some_and(|f| f.untrusted
            && f.effect == "read"
            && f.permitted
            && f.trusted.is_empty()));
        let put = facts.iter().find(|f| f.tool == "a.put");
        assert!(put.is_some_and(|f| !f.untrusted
            && f.effect == "write"
            && f.approval
            && f.trusted == ["to"]));
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
