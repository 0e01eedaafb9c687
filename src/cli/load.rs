//! Building a job from the command line: the plan files (or standard
//! input), the catalogue, policy, actor and progress record of the flags or
//! of `planc.toml`, each file read once and decoded.

use std::io::Read;
use std::path::{Path, PathBuf};

use planc::SourceKind;
use planc::driver::{self, Job};
use planc::project::{self, Config};

use super::Failure;
use super::args::Inputs;

/// Builds the job: the plan files, then the catalogue, policy and actor of
/// the flags or, failing those, of the `planc.toml` found from the first
/// plan's folder (the current folder for stdin).
pub fn load(files: &[PathBuf], options: &Inputs) -> Result<Job, Failure> {
    let mut job = Job::default();
    let start = match files.first() {
        Some(p) if p != Path::new("-") => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => PathBuf::new(),
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    // `planc.toml` is not consulted at all under `--no-config`, nor when the
    // flags name both the catalogue and the policy: a file in a parent
    // folder must not widen the actor of a check whose inputs were given.
    let both_given = !options.catalog.is_empty() && options.policy.is_some();
    let consult = !options.no_config && !both_given;
    let found = if consult {
        project::discover(&start).map_err(Failure)?
    } else {
        None
    };
    job.config = found.as_ref().map(|c| display_path(&c.path));
    let Config {
        catalog,
        policy,
        actor,
        ..
    } = found.unwrap_or_default();

    let mut stdin_used = false;
    for path in files {
        let id = if path == Path::new("-") {
            if stdin_used {
                return Err(Failure("standard input (`-`) given twice".into()));
            }
            stdin_used = true;
            let bytes = stdin_bytes()?;
            add_text(&mut job, "<stdin>".into(), bytes, None)
        } else {
            add_file(&mut job, path)?
        };
        job.plans.push(id);
    }
    let catalog = if options.catalog.is_empty() {
        catalog
    } else {
        options.catalog.clone()
    };
    for path in &catalog {
        let id = add_file(&mut job, path)?;
        job.catalog.push(id);
    }
    if let Some(path) = options.policy.clone().or(policy) {
        let id = add_file(&mut job, &path)?;
        job.policy.push(id);
    }
    job.actor = options.actor.clone().or(actor);
    Ok(job)
}

/// Adds the progress record a replan is checked against: `--progress`,
/// else the `progress` of the `planc.toml` the job was configured from.
pub fn with_progress(
    job: &mut Job,
    first: Option<&Path>,
    flag: Option<&Path>,
) -> Result<(), Failure> {
    let path = match flag {
        Some(p) => Some(p.to_path_buf()),
        None if job.config.is_some() => config_for(&start_folder(first))?.progress,
        None => None,
    };
    if let Some(path) = path {
        let name = display_path(&path);
        let bytes = project::read_bytes(&path).map_err(Failure)?;
        job.progress = Some(add_text(job, name, bytes, Some(SourceKind::Json)));
    }
    Ok(())
}

/// The folder `planc.toml` is looked for from: the file's, or the current
/// folder for standard input.
pub fn start_folder(file: Option<&Path>) -> PathBuf {
    let start = match file {
        Some(p) if p != Path::new("-") => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        _ => PathBuf::new(),
    };
    if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    }
}

/// The `planc.toml` that applies to files in `start` (a folder), or the
/// defaults.
pub fn config_for(start: &Path) -> Result<Config, Failure> {
    Ok(project::discover(start)
        .map_err(Failure)?
        .unwrap_or_default())
}

/// Adds a file once: a file named twice (as a plan and in `planc.toml`'s
/// catalogue, say) is read once and keeps its first role.
pub fn add_file(job: &mut Job, path: &Path) -> Result<planc::FileId, Failure> {
    let name = display_path(path);
    if let Some(existing) = job.sources.files().find(|f| f.name == name) {
        return Ok(existing.id);
    }
    let bytes = project::read_bytes(path).map_err(Failure)?;
    let kind = SourceKind::from_name(&name);
    Ok(add_text(job, name, bytes, Some(kind)))
}

/// Adds an input's bytes to the job in the given form (told from the
/// content when `None`). Bytes that are not UTF-8 are added up to the
/// first invalid byte, and that byte is an E0002 the run reports.
pub fn add_text(
    job: &mut Job,
    name: String,
    bytes: Vec<u8>,
    kind: Option<SourceKind>,
) -> planc::FileId {
    match project::decode_text(bytes) {
        Ok(text) => {
            let kind = kind.unwrap_or_else(|| SourceKind::sniff(&text));
            job.sources.add_with_kind(name, text, kind)
        }
        Err(bad) => {
            let kind = kind.unwrap_or_else(|| SourceKind::sniff(&bad.valid));
            let id = job
                .sources
                .add_with_kind(name.clone(), bad.valid.clone(), kind);
            job.unreadable.push(bad.diagnostic(id, &name));
            id
        }
    }
}

/// Paths are shown as the user gave them, with `/` separators.
pub fn display_path(path: &Path) -> String {
    project::normalize(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Reads a progress record into the job's sources (so its diagnostics
/// render like any file's): the record when it has no errors, and its
/// diagnostics.
pub fn load_record(
    job: &mut Job,
    path: &Path,
) -> Result<
    (
        Option<planc::progress::ProgressRecord>,
        Vec<planc::Diagnostic>,
    ),
    Failure,
> {
    let name = display_path(path);
    let bytes = project::read_bytes(path).map_err(Failure)?;
    let before = job.unreadable.len();
    let id = add_text(job, name, bytes, Some(SourceKind::Json));
    if job.unreadable.len() > before {
        return Ok((None, job.unreadable.split_off(before)));
    }
    let read = driver::read_progress(&mut job.sources, id);
    Ok((read.record, read.diagnostics))
}

/// Standard input's bytes.
pub fn stdin_bytes() -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| Failure(format!("cannot read standard input: {e}")))?;
    Ok(bytes)
}
