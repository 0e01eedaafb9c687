//! The pipeline, assembled: parse every file with the front end its kind
//! asks for, then check. Both shells (the command line and the language
//! server) and the tests run a compilation through here, so they all see
//! the same diagnostics.

use crate::check;
use crate::diagnostics::{self, Diagnostic};
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
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Every diagnostic of every file, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
    /// What the checker decided: the catalogue, the policy and one model
    /// per plan (its diagnostics are also in `diagnostics`).
    pub checked: Option<check::CheckOutput>,
}

impl Outcome {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses one file of the map with the front end its kind asks for.
pub fn parse(sources: &mut SourceMap, file: FileId) -> (ast::Module, Vec<Diagnostic>) {
    let Some(f) = sources.get(file) else {
        return (ast::Module::default(), Vec::new());
    };
    match f.kind {
        SourceKind::Text => syntax::parse_text(file, &f.text),
        SourceKind::Json => {
            // The JSON front end arrives with its own issue; until then a
            // JSON file is refused with a clear diagnostic, not misread.
            let d = Diagnostic::new(
                crate::Code::E0004,
                crate::Span::point(file, 0),
                "JSON input is not supported by this build of planc yet",
            )
            .with_help("write the plan, catalogue or policy in `.plan` text");
            (ast::Module::default(), vec![d])
        }
    }
}

/// Runs the pipeline over a job.
pub fn run(job: &mut Job) -> Outcome {
    let mut diagnostics = Vec::new();
    let mut files: Vec<FileId> = Vec::new();
    for id in job.plans.iter().chain(&job.catalog).chain(&job.policy) {
        if !files.contains(id) {
            files.push(*id);
        }
    }
    let mut syntax_errors = Vec::new();
    let mut modules: Vec<(FileId, ast::Module)> = Vec::with_capacity(files.len());
    for file in files {
        let (module, diags) = parse(&mut job.sources, file);
        syntax_errors.extend(diags.iter().filter(|d| d.is_error()).map(|d| d.span));
        diagnostics.extend(diags);
        modules.push((file, module));
    }
    let pick = |ids: &[FileId]| -> Vec<&ast::Module> {
        modules
            .iter()
            .filter(|(f, _)| ids.contains(f))
            .map(|(_, m)| m)
            .collect()
    };
    let (plans, catalog, policy) = (pick(&job.plans), pick(&job.catalog), pick(&job.policy));
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
        checked: Some(checked),
    }
}
