//! Building jobs from the command line: the plan files (or standard
//! input), each checked with the settings of its own project (the flags
//! and the `planc.toml` found from its folder, by `project::settings`),
//! each file read once and decoded.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use planc::driver::{self, Job};
use planc::project::{self, Overrides, Settings};
use planc::{FileId, SourceKind};

use super::Failure;
use super::args::Inputs;

/// Whether a command checks its plans as replans: `check` and `compile`
/// do, against `--progress` or else the `progress` of `planc.toml`; the
/// views, `diff`, `invalidate`, `run` and `schema` do not.
#[derive(Clone, Copy)]
pub enum Replans<'a> {
    Against(Option<&'a Path>),
    No,
}

/// The plan files read, grouped by the settings they are checked with:
/// the groups in the order of their first file, the files of a group in
/// the order given. `job` holds every file read so far (so file ids stay
/// unique across the groups) and the E0002 of the plan files.
pub struct Loaded {
    pub job: Job,
    pub groups: Vec<(Settings, Vec<FileId>)>,
}

/// Reads the plan files and finds each one's settings: the flags, and the
/// `planc.toml` found from the file's folder (the current folder for
/// standard input, and for no file at all, which makes one group with no
/// plans).
pub fn load_plans(
    files: &[PathBuf],
    inputs: &Inputs,
    replans: Replans<'_>,
) -> Result<Loaded, Failure> {
    let overrides = overrides(
        inputs,
        match replans {
            Replans::Against(flag) => flag,
            Replans::No => None,
        },
    );
    let mut by_folder: HashMap<PathBuf, Settings> = HashMap::new();
    let mut settings_of = |file: Option<&Path>| -> Result<Settings, Failure> {
        let start = start_folder(file);
        if let Some(s) = by_folder.get(&start) {
            return Ok(s.clone());
        }
        let mut s = project::settings(&start, &overrides).map_err(Failure)?;
        if matches!(replans, Replans::No) {
            s.progress = None;
        }
        by_folder.insert(start, s.clone());
        Ok(s)
    };
    let mut job = Job::default();
    let mut groups: Vec<(Settings, Vec<FileId>)> = Vec::new();
    let mut stdin_used = false;
    for path in files {
        let id = if path == Path::new("-") {
            if stdin_used {
                return Err(Failure("standard input (`-`) given twice".into()));
            }
            stdin_used = true;
            let bytes = stdin_bytes()?;
            project::add_bytes(&mut job, "<stdin>".into(), bytes, None)
        } else {
            add_file(&mut job, path)?
        };
        let settings = settings_of(Some(path))?;
        match groups.iter_mut().find(|(s, _)| *s == settings) {
            Some((_, plans)) => plans.push(id),
            None => groups.push((settings, vec![id])),
        }
    }
    if groups.is_empty() {
        groups.push((settings_of(None)?, Vec::new()));
    }
    Ok(Loaded { job, groups })
}

impl Loaded {
    /// The job of one group: its plans, its settings' catalogue, policy,
    /// actor and progress record, and the E0002 of its files (a file read
    /// once, by an earlier group, still stops this one). Its sources are
    /// all the files read so far: give them back with [`Loaded::keep`]
    /// before building the next group's job.
    pub fn job(&mut self, settings: &Settings, plans: Vec<FileId>) -> Result<Job, Failure> {
        let mut job = Job {
            sources: std::mem::take(&mut self.job.sources),
            plans,
            ..Job::default()
        };
        settings.add_to(&mut job, display_path).map_err(Failure)?;
        // The record the plans are checked against is the text just read,
        // its seal verified: the check reads no other copy of it.
        if let Some(id) = job.progress
            && let Some(file) = job.sources.get(id)
        {
            check_seal(&file.text, &file.name, record_key(settings)?.as_deref())?;
        }
        self.job.unreadable.append(&mut job.unreadable);
        let reads = |f: FileId| {
            job.plans.contains(&f)
                || job.catalog.contains(&f)
                || job.policy.contains(&f)
                || job.progress == Some(f)
        };
        let mine: Vec<planc::Diagnostic> = self
            .job
            .unreadable
            .iter()
            .filter(|d| reads(d.span.file))
            .cloned()
            .collect();
        job.unreadable = mine;
        Ok(job)
    }

    /// Takes back the sources of a group's job, with every file it read.
    pub fn keep(&mut self, job: &mut Job) {
        self.job.sources = std::mem::take(&mut job.sources);
    }
}

/// Builds the job of a command that reads one group of plans (one plan
/// file, or none for `schema`): the plan files, then the catalogue, policy,
/// actor and progress record of their settings.
pub fn load(files: &[PathBuf], inputs: &Inputs, replans: Replans<'_>) -> Result<Job, Failure> {
    let mut loaded = load_plans(files, inputs, replans)?;
    let groups = std::mem::take(&mut loaded.groups);
    match <[_; 1]>::try_from(groups) {
        Ok([(settings, plans)]) => loaded.job(&settings, plans),
        Err(_) => Err(Failure(
            "these files belong to different projects (each `planc.toml` its own): \
             give files of one project"
                .into(),
        )),
    }
}

/// The flags that stand in for `planc.toml`'s values, with the progress
/// record of `--progress` when the command checks replans.
pub fn overrides(inputs: &Inputs, progress: Option<&Path>) -> Overrides {
    Overrides {
        catalog: inputs.catalog.clone(),
        policy: inputs.policy.clone(),
        actor: inputs.actor.clone(),
        progress: progress.map(Path::to_path_buf),
        record_key: inputs.record_key.clone(),
        no_config: inputs.no_config,
    }
}

/// The settings of one file given on the command line (the `planc.toml`
/// found from its folder, under the flags), without a progress record.
pub fn settings_of(file: &Path, inputs: &Inputs) -> Result<Settings, Failure> {
    let mut settings =
        project::settings(&start_folder(Some(file)), &overrides(inputs, None)).map_err(Failure)?;
    settings.progress = None;
    Ok(settings)
}

/// The operator's record key of the settings (`--record-key`, else `[run]
/// record_key` of `planc.toml`), read; `None` when none is configured.
pub fn record_key(settings: &Settings) -> Result<Option<Vec<u8>>, Failure> {
    settings
        .record_key
        .as_deref()
        .map(project::read_record_key)
        .transpose()
        .map_err(Failure)
}

/// Every command's check of a progress record's text before anything uses
/// it: with a record key, its seal must verify (`progress::read::verify`),
/// else the command fails (exit 2) and nothing is checked or run against
/// it. A text that is not a record is left to its reader's diagnostics
/// (E0601–E0605), which stop every command that reads one.
pub fn check_seal(text: &str, name: &str, key: Option<&[u8]>) -> Result<(), Failure> {
    planc::progress::read::verify_text(text, key)
        .map_err(|e| Failure(format!("`{name}`: {e}; nothing was done with it")))
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

/// Adds a file once, named as the user gave it: a file named twice (as a
/// plan and in `planc.toml`'s catalogue, say) is read once and keeps its
/// first place.
pub fn add_file(job: &mut Job, path: &Path) -> Result<FileId, Failure> {
    project::add_file(job, path, display_path(path), None).map_err(Failure)
}

/// Paths are shown as the user gave them, with `/` separators.
pub fn display_path(path: &Path) -> String {
    project::normalize(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Reads a progress record into the job's sources (so its diagnostics
/// render like any file's), its seal verified under `key` (`check_seal`):
/// the record when it has no errors, and its diagnostics.
pub fn load_record(
    job: &mut Job,
    path: &Path,
    key: Option<&[u8]>,
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
    let id = project::add_bytes(job, name, bytes, Some(SourceKind::Json));
    if job.unreadable.len() > before {
        return Ok((None, job.unreadable.split_off(before)));
    }
    if let Some(file) = job.sources.get(id) {
        check_seal(&file.text, &file.name, key)?;
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
