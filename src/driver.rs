//! The pipeline, assembled: parse every file with the front end its kind
//! asks for, then check. Both shells (the command line and the language
//! server) and the tests run a compilation through here, so they all see
//! the same diagnostics.

use crate::check;
use crate::diagnostics::{self, Diagnostic};
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
}

/// A parsed file.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub file: FileId,
    pub module: ast::Module,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every diagnostic of every file, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Every parsed file, plans first, then catalogue and policy files.
    pub parsed: Vec<Parsed>,
    /// What the checker decided: the catalogue, the policy, and one model
    /// per plan declaration.
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
    match f.kind {
        SourceKind::Text => syntax::parse_text(file, &f.text),
        SourceKind::Json => {
            let (module, diags, pointers) = match role {
                // A file given as a plan may be a catalogue or a policy
                // checked on its own; one that is none of the three is read
                // as a plan, whose shape errors say best what is missing.
                Role::Plan => {
                    syntax::read_with(file, &f.text, |text, root| match syntax::detect(root) {
                        Some(syntax::Shape::Catalog) => {
                            syntax::json_catalog::read_catalog(text, root)
                        }
                        Some(syntax::Shape::Policy) => syntax::json_policy::read_policy(text, root),
                        _ => syntax::json_plan::read_plan(text, root),
                    })
                }
                Role::Catalog => syntax::read_json_catalog(file, &f.text),
                Role::Policy => syntax::read_json_policy(file, &f.text),
            };
            if let Some(f) = sources.get_mut(file) {
                f.set_pointers(pointers);
            }
            (module, diags)
        }
    }
}

/// Runs the pipeline over a job.
pub fn run(job: &mut Job) -> Outcome {
    let mut diagnostics = Vec::new();
    let mut files: Vec<(FileId, Role)> = Vec::new();
    let roles = [
        (&job.plans, Role::Plan),
        (&job.catalog, Role::Catalog),
        (&job.policy, Role::Policy),
    ];
    for (ids, role) in roles {
        for id in ids {
            if !files.iter().any(|(f, _)| f == id) {
                files.push((*id, role));
            }
        }
    }
    let mut parsed = Vec::with_capacity(files.len());
    let mut syntax_errors = Vec::new();
    for (file, role) in files {
        let (module, diags) = parse(&mut job.sources, file, role);
        syntax_errors.extend(diags.iter().filter(|d| d.is_error()).map(|d| d.span));
        diagnostics.extend(diags);
        parsed.push((Parsed { file, module }, role));
    }
    let pick = |role: Role| -> Vec<&ast::Module> {
        parsed
            .iter()
            .filter(|(_, r)| *r == role)
            .map(|(p, _)| &p.module)
            .collect()
    };
    let (plans, catalog, policy) = (pick(Role::Plan), pick(Role::Catalog), pick(Role::Policy));
    let checked = check::check(&check::CheckInput {
        plans: &plans,
        catalog: &catalog,
        policy: &policy,
        actor: job.actor.as_deref(),
        syntax_errors: &syntax_errors,
    });
    diagnostics.extend(checked.diagnostics.iter().cloned());
    diagnostics::sort(&mut diagnostics);
    Outcome {
        diagnostics,
        parsed: parsed.into_iter().map(|(p, _)| p).collect(),
        checked,
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
