//! The pipeline, assembled: parse every file with the front end its kind
//! asks for, then check. Both shells (the command line and the language
//! server) and the tests run a compilation through here, so they all see
//! the same diagnostics.

use std::sync::Arc;

use crate::Compiler;
use crate::check;
use crate::diagnostics::{self, Code, Diagnostic};
use crate::ir;
use crate::source::{FileId, SourceKind, SourceMap};
use crate::syntax::{self, ast};

/// What one run compiles: the plan files, the catalogue and policy files
/// (text or JSON), and the actor's scopes when given from outside the policy.
#[derive(Clone, Debug, Default)]
pub struct Job {
    pub sources: SourceMap,
    pub plans: Vec<FileId>,
    pub catalog: Vec<FileId>,
    pub policy: Vec<FileId>,
    pub actor: Option<Vec<String>>,
    /// The `planc.toml` the catalogue, policy or actor came from, as shown
    /// to the user; `None` when none was used.
    pub config: Option<String>,
    /// The progress record the plans are replans against (`--progress`, or
    /// `progress` in `planc.toml`): its complete steps' artifacts are in
    /// scope, and steps that already ran are reused (`docs/replanning.md`).
    pub progress: Option<FileId>,
    /// Inputs that could not be read as text (E0002, not UTF-8): a run
    /// with any reports them and checks nothing else.
    pub unreadable: Vec<Diagnostic>,
    /// Whether the plans' syntax trees are kept in the [`Outcome`].
    pub trees: Trees,
}

/// Whether a check keeps the syntax trees of the plans it checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trees {
    /// In [`Outcome::parsed`], for a caller that reads them after the
    /// check (the language server, the review page's argument order).
    #[default]
    Keep,
    /// Let go as the plans are checked, each step's tree once its model
    /// is built ([`crate::check::check_plans_owned`]): [`Outcome::parsed`]
    /// then holds the catalogue's and the policy's trees only. When the
    /// roles are not fixed (one file holds plans, tools and policies) the
    /// trees are kept whatever this says: they are the catalogue too.
    Release,
    /// [`Trees::Release`] for a caller that reads the diagnostics only
    /// (`planc check`): each step's model goes too, once the step is
    /// checked ([`crate::check::check_plans_owned`]), and the outcome's
    /// models have no steps to lower ([`lower`] refuses), unless the job
    /// has a progress record. As `Release` when the roles are not fixed
    /// (the models are kept).
    Diagnostics,
}

impl Job {
    /// Whether the roles are fixed by configuration: a catalogue or a
    /// policy was given (by flags or `planc.toml`). Plan files may then
    /// declare only plans. Without any, one file may hold all three.
    pub fn roles_fixed(&self) -> bool {
        !self.catalog.is_empty() || !self.policy.is_empty()
    }
}

/// A parsed file. The tree is shared: a [`crate::Compiler`]'s catalogue
/// and policy trees appear in the outcome of every check without a copy.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub file: FileId,
    pub module: Arc<ast::Module>,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every diagnostic of every file, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Every parsed file, plans first, then catalogue and policy files.
    pub parsed: Vec<Parsed>,
    /// What the checker decided: the catalogue, the policy, and one model
    /// per plan declaration. Its diagnostics are moved into
    /// [`Outcome::diagnostics`] (its own list is left empty).
    pub checked: check::CheckOutput,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// What a file is for in a job, which decides how a JSON file is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plan,
    Catalog,
    Policy,
}

/// Parses one file of the map with the front end its kind asks for. A JSON
/// file is read as the shape its role expects, and its RFC 6901 pointer
/// table is recorded on the file for the renderers.
pub fn parse(sources: &mut SourceMap, file: FileId, role: Role) -> (ast::Module, Vec<Diagnostic>) {
    let Some(f) = sources.get(file) else {
        return (ast::Module::default(), Vec::new());
    };
    let (module, mut diagnostics) = match f.kind {
        SourceKind::Text => syntax::parse_text(file, &f.text),
        SourceKind::Json => {
            match role {
                // A file given as a plan may be a catalogue, a policy or a
                // progress record checked on its own; one that is none of
                // them is read as a plan, whose shape errors say best what is missing.
                Role::Plan => syntax::read_plan_or(
                    file,
                    &f.text,
                    |root| {
                        matches!(
                            syntax::detect(root),
                            Some(
                                syntax::Shape::Catalog
                                    | syntax::Shape::Policy
                                    | syntax::Shape::Progress
                            )
                        )
                    },
                    |text, root| match syntax::detect(root) {
                        Some(syntax::Shape::Catalog) => {
                            syntax::json_catalog::read_catalog(text, root)
                        }
                        Some(syntax::Shape::Policy) => syntax::json_policy::read_policy(text, root),
                        Some(syntax::Shape::Progress) => {
                            crate::progress::read::read_as_module(text, root)
                        }
                        _ => syntax::json_plan::read_plan(text, root),
                    },
                ),
                Role::Catalog => syntax::read_json_catalog(file, &f.text),
                Role::Policy => syntax::read_json_policy(file, &f.text),
            }
        }
    };
    if role == Role::Plan {
        diagnostics.extend(check::hidden::hidden_characters(file, &f.text));
    }
    (module, diagnostics)
}

/// Runs the pipeline over a job.
///
/// A file named in several roles is read in each (a JSON file with the
/// reader of each role; a text file once, its declarations serving every
/// role it has). When the roles are fixed by configuration
/// ([`Job::roles_fixed`]), a `tool` or `policy` declaration in a plan file
/// that is not also named in that role is E0005, and does not join the
/// catalogue or the policy: a planner never supplies a signature or a
/// policy of its own.
///
/// With the roles fixed and no file in two roles, this builds a
/// [`Compiler`] from the job's catalogue and policy and checks the plan
/// files with it: a caller that checks many plans against one catalogue
/// keeps the `Compiler` instead.
pub fn run(job: &mut Job) -> Outcome {
    if !job.unreadable.is_empty() {
        let mut diagnostics = job.unreadable.clone();
        diagnostics::sort(&mut diagnostics);
        return Outcome {
            diagnostics,
            parsed: Vec::new(),
            checked: check::CheckOutput {
                diagnostics: Vec::new(),
                plans: Vec::new(),
                models: Arc::default(),
                memo: None,
            },
        };
    }
    if compiles_apart(job) {
        let compiler = Compiler::from_job(job);
        return compiler.run_job(job, None);
    }
    let mut diagnostics = Vec::new();
    let roles = [
        (&job.plans, Role::Plan),
        (&job.catalog, Role::Catalog),
        (&job.policy, Role::Policy),
    ];
    let mut wanted: Vec<(FileId, Role)> = Vec::new();
    for (ids, role) in roles {
        for id in ids {
            if !wanted.contains(&(*id, role)) {
                wanted.push((*id, role));
            }
        }
    }
    let fixed = job.roles_fixed();
    // One parse per file and front end: a text file's tree serves each of
    // its roles; a JSON file is read again by each role's reader.
    let mut trees: Vec<(FileId, Option<Role>, ast::Module)> = Vec::new();
    let mut slots: Vec<(FileId, Role, usize)> = Vec::with_capacity(wanted.len());
    let mut syntax_errors = Vec::new();
    for &(file, role) in &wanted {
        let key = match job.sources.get(file).map(|f| f.kind) {
            Some(SourceKind::Json) => Some(role),
            _ => None,
        };
        let slot = match trees.iter().position(|(f, k, _)| *f == file && *k == key) {
            Some(i) => i,
            None => {
                let (module, diags) = parse(&mut job.sources, file, role);
                syntax_errors.extend(diags.iter().filter(|d| d.is_error()).map(|d| d.span));
                diagnostics.extend(diags);
                trees.push((file, key, module));
                trees.len() - 1
            }
        };
        slots.push((file, role, slot));
    }
    if fixed {
        for &(file, role, slot) in &slots {
            if role != Role::Plan {
                continue;
            }
            let Some((_, _, module)) = trees.get(slot) else {
                continue;
            };
            let also = |r: Role| slots.iter().any(|&(f, r2, _)| f == file && r2 == r);
            misplaced(
                &Names::of(job),
                module,
                also(Role::Catalog),
                also(Role::Policy),
                &mut diagnostics,
            );
        }
    }
    let pick = |role: Role| -> Vec<&ast::Module> {
        slots
            .iter()
            .filter(|(_, r, _)| *r == role)
            .filter_map(|&(_, _, i)| trees.get(i).map(|(_, _, m)| m))
            .collect()
    };
    let (plans, catalog, policy) = (pick(Role::Plan), pick(Role::Catalog), pick(Role::Policy));
    let record = job.progress.map(|id| read_progress(&mut job.sources, id));
    let progress = progress_of(record.as_ref(), &mut diagnostics);
    let checked = check::check(&check::CheckInput {
        plans: &plans,
        catalog: &catalog,
        policy: &policy,
        actor: job.actor.as_deref(),
        syntax_errors: &syntax_errors,
        roles_fixed: fixed,
        progress,
    });
    let mut checked = checked;
    diagnostics.append(&mut checked.diagnostics);
    resume_fingerprints(
        &mut checked.plans,
        record.as_ref().and_then(|r| r.record.as_ref()),
        &job.sources,
        &mut diagnostics,
    );
    diagnostics::sort(&mut diagnostics);
    // Each file once, in its first role's reading: plans first.
    let mut parsed: Vec<Parsed> = Vec::with_capacity(trees.len());
    for (file, _, module) in trees {
        if !parsed.iter().any(|p| p.file == file) {
            parsed.push(Parsed {
                file,
                module: Arc::new(module),
            });
        }
    }
    Outcome {
        diagnostics,
        parsed,
        checked,
    }
}

/// Whether the job's roles are fixed and no file is in two: its catalogue
/// and policy then make a [`Compiler`] the plans are checked with.
fn compiles_apart(job: &Job) -> bool {
    let overlap = job
        .plans
        .iter()
        .any(|p| job.catalog.contains(p) || job.policy.contains(p));
    job.roles_fixed() && !overlap
}

/// [`run`] for its diagnostics, each step's model handed to `sink` once
/// checked and let go (`check::StepModels::Lower`): `planc compile`
/// writing a long plan's IR as it is checked ([`ir::IrStream`]). `None`
/// (nothing checked) when the job cannot be checked so: its roles are not
/// fixed, a file is in two roles, an input is unreadable, or it has a
/// progress record (whose replans keep their models); check it with
/// [`run`] and lower the outcome instead.
pub fn run_lowering(job: &mut Job, sink: &mut dyn check::StepSink) -> Option<Outcome> {
    if !job.unreadable.is_empty() || job.progress.is_some() || !compiles_apart(job) {
        return None;
    }
    let compiler = Compiler::from_job(job);
    Some(compiler.run_job(job, Some(sink)))
}

/// The record a check runs against, from its reading; the reading's
/// diagnostics (E0601–E0605) join `diagnostics`.
pub(crate) fn progress_of<'a>(
    read: Option<&'a crate::progress::read::ReadRecord>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<check::Progress<'a>> {
    let read = read?;
    diagnostics.extend(read.diagnostics.iter().cloned());
    read.record.as_ref().map(|record| check::Progress {
        record,
        spans: &read.spans,
    })
}

/// Reads the progress record of a job (E0601–E0605 for a malformed one),
/// recording its pointer table on the file for the renderers.
pub fn read_progress(sources: &mut SourceMap, file: FileId) -> crate::progress::read::ReadRecord {
    let Some(f) = sources.get(file) else {
        return crate::progress::read::ReadRecord::default();
    };
    let read = crate::progress::read::read(file, &f.text);
    // A record is JSON whatever its name: its diagnostics get pointers.
    if let Some(f) = sources.get_mut(file) {
        f.kind = SourceKind::Json;
    }
    read
}

/// What E0005's message names: the files in force and where they came from.
pub(crate) struct Names<'a> {
    pub sources: &'a SourceMap,
    pub catalog: &'a [FileId],
    pub policy: &'a [FileId],
    pub config: Option<&'a str>,
}

impl Names<'_> {
    fn of(job: &Job) -> Names<'_> {
        Names {
            sources: &job.sources,
            catalog: &job.catalog,
            policy: &job.policy,
            config: job.config.as_deref(),
        }
    }
}

/// E0005 for each `tool` (unless the file is also a catalogue) and `policy`
/// (unless it is also the policy) declared in a plan file while the roles
/// are fixed. A JSON file of many tools gives one report, not one per tool.
pub(crate) fn misplaced(
    job: &Names<'_>,
    module: &ast::Module,
    is_catalog: bool,
    is_policy: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let names = |ids: &[FileId]| -> String {
        let shown: Vec<String> = ids
            .iter()
            .filter_map(|id| job.sources.get(*id))
            .map(|f| format!("`{}`", f.name))
            .collect();
        match shown.as_slice() {
            [] => "none".to_string(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    };
    let from = match job.config {
        Some(c) => format!("flags or `{c}`"),
        None => "flags".to_string(),
    };
    let mut json_reported = false;
    for item in &module.items {
        let (span, what, role, files) = match item {
            ast::Item::Tool(t) if !is_catalog => (t.name.span, "tool", "catalogue", job.catalog),
            ast::Item::Policy(p) if !is_policy => (p.name.span, "policy", "policy", job.policy),
            _ => continue,
        };
        let json = job
            .sources
            .get(span.file)
            .is_some_and(|f| f.kind == SourceKind::Json);
        if json && json_reported {
            continue;
        }
        json_reported |= json;
        let (message, label) = if json {
            (
                format!("a {role} is given as a plan, while the {role} comes from {from}"),
                format!("this file is a {role}, not a plan"),
            )
        } else {
            (
                format!("a plan file may not declare a {what}: the {role} comes from {from}"),
                format!("a `{what}` declaration in a plan file"),
            )
        };
        let help = if files.is_empty() {
            format!(
                "only plans belong in a plan file when a catalogue or a policy is configured; name the {role} with `--{flag}` or in `planc.toml`, or check with `--no-config` and no `--catalog` or `--policy` to read one self-contained file",
                flag = if role == "catalogue" {
                    "catalog"
                } else {
                    "policy"
                }
            )
        } else {
            format!(
                "the {role} in force is {}: declare it there, and keep only plans in this file",
                names(files)
            )
        };
        diags.push(
            Diagnostic::new(Code::E0005, span, message)
                .with_label(label)
                .with_help(help),
        );
    }
}

/// The resumes the checker could not confirm by name alone
/// ([`check::Replan::resume_unless`]): each such plan is lowered and its
/// plan fingerprint compared with the one its record names, as the
/// executor compares them (`docs/replanning.md`). A record that names
/// another plan (a step that had not run changed) or none is a replan's
/// record, and the run's replans are spent: E0305, as the run would stop.
pub(crate) fn resume_fingerprints(
    plans: &mut [check::CheckedPlan],
    record: Option<&crate::progress::ProgressRecord>,
    sources: &SourceMap,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(record) = record else {
        return;
    };
    let named = record.fingerprint.as_deref().filter(|f| !f.is_empty());
    for plan in plans.iter_mut() {
        let Some(d) = plan.replan.as_mut().and_then(|r| r.resume_unless.take()) else {
            continue;
        };
        // A plan with errors is refused already, and is not lowered.
        if plan.errors > 0 {
            continue;
        }
        // The plan fingerprint decides a resume; the IR's own (a record
        // that names it) is computed only when it does not.
        let ours = ir::lower_unsealed(plan, sources).and_then(|ir| {
            let plan_fp = ir::plan_fingerprint(&ir)?;
            if named == Some(plan_fp.as_str()) {
                return Ok((plan_fp, None));
            }
            Ok((plan_fp, Some(ir::fingerprint(&ir)?)))
        });
        let note = match (named, ours) {
            (Some(f), Ok((plan_fp, ir_fp))) if f == plan_fp || ir_fp.as_deref() == Some(f) => {
                continue;
            }
            (None, _) => "the record names no plan fingerprint, so no plan is its resume: \
                the executor counts this plan a replan"
                .to_string(),
            (Some(f), Ok((plan_fp, _))) => format!(
                "the record was written by the plan `{f}`, and this plan is `{plan_fp}`: \
                 a step that had not run changed, so this plan is a replan, not a resume"
            ),
            (Some(_), Err(e)) => {
                format!("this plan's fingerprint could not be computed ({e}): taken for a replan")
            }
        };
        diagnostics.push((*d).with_note(note));
        plan.errors += 1;
    }
}

/// Lowers every plan of a run that has no errors to IR, in input order. The
/// caller checks `outcome.has_errors()` first; lowering a run with errors is
/// refused.
pub fn lower(job: &Job, outcome: &Outcome) -> Result<Vec<ir::PlanIr>, String> {
    if outcome.has_errors() {
        return Err("the plans have errors; there is no IR to write".to_string());
    }
    outcome
        .checked
        .plans
        .iter()
        .map(|plan| ir::lower(plan, &job.sources))
        .collect()
}

/// [`lower`], taking the outcome: each step's model goes once its IR is
/// built ([`ir::lower_owned`]), and the outcome's trees and diagnostics
/// before the first (`planc compile`, which writes the IR alone).
pub fn lower_owned(job: &Job, outcome: Outcome) -> Result<Vec<ir::PlanIr>, String> {
    if outcome.has_errors() {
        return Err("the plans have errors; there is no IR to write".to_string());
    }
    // Taken apart: a field left in a value another field was moved out of
    // lives to the end of the function, through the lowering (what stays
    // of the check's output, its shared catalogue and policy, is small).
    let Outcome {
        diagnostics,
        parsed,
        checked,
    } = outcome;
    drop((diagnostics, parsed));
    let check::CheckOutput { plans, .. } = checked;
    plans
        .into_iter()
        .map(|plan| ir::lower_owned(plan, &job.sources))
        .collect()
}
