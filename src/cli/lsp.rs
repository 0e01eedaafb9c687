//! `planc lsp`: the language server over stdio.

use std::path::PathBuf;
use std::process::ExitCode;

use planc::project;

use super::Failure;

/// `planc lsp`: the flags' paths made absolute (the server resolves every
/// path itself), then the server over stdio.
pub fn lsp(
    catalog: Vec<PathBuf>,
    policy: Option<PathBuf>,
    actor: Option<Vec<String>>,
) -> Result<ExitCode, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure(format!("cannot read the current folder: {e}")))?;
    let absolute = |p: PathBuf| project::normalize(&cwd.join(p));
    for path in catalog.iter().chain(policy.iter()) {
        if !absolute(path.clone()).is_file() {
            return Err(Failure(format!(
                "cannot read `{}`: no such file",
                path.display()
            )));
        }
    }
    let overrides = planc::lsp::Overrides {
        catalog: catalog.into_iter().map(absolute).collect(),
        policy: policy.map(absolute),
        actor,
        ..planc::lsp::Overrides::default()
    };
    planc::lsp::run_stdio(overrides)
        .map(|()| ExitCode::SUCCESS)
        .map_err(Failure)
}
