//! `planc.toml`: which catalogue files, which policy and which actor a plan
//! is checked against. This module and the shells (`main.rs` and `cli/`, `lsp/`) are
//! the only code that touches the file system; the compiler itself works on
//! text it is given.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diagnostics::{Code, Diagnostic};
use crate::driver::Job;
use crate::source::{FileId, SourceFile, SourceKind, Span};
pub use planc_lang::render::{ArtifactUri, encode_uri_path};

/// The name of the project file, looked for in the plan's folder and above.
pub const CONFIG_FILE: &str = "planc.toml";

/// The contents of a `planc.toml`, paths already resolved against its folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Where the file was found.
    pub path: PathBuf,
    pub catalog: Vec<PathBuf>,
    pub policy: Option<PathBuf>,
    pub actor: Option<Vec<String>>,
    /// `progress`: the progress record plans are checked against as replans
    /// (resolved against this file's folder).
    pub progress: Option<PathBuf>,
    /// `[run] tools`: the tool backend of `planc run` (`fixture:FILE`, the
    /// file resolved against this file's folder, or `mcp:COMMAND ARGS…`).
    pub tools: Option<String>,
    /// `[run] max_message`: the longest message an MCP server may send, in
    /// bytes.
    pub max_message: Option<usize>,
    /// `[run] record_key`: the file holding the key progress records are
    /// sealed and verified with (resolved against this file's folder).
    pub record_key: Option<PathBuf>,
}

/// The file as TOML gives it: each value kept with its place, so a value of
/// the wrong form is reported at its line with the form expected.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    catalog: Option<toml::Spanned<toml::Value>>,
    policy: Option<toml::Spanned<toml::Value>>,
    actor: Option<toml::Spanned<toml::Value>>,
    progress: Option<toml::Spanned<toml::Value>>,
    run: Option<RawRun>,
}

/// The `[run]` table: what `planc run` uses.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    tools: Option<String>,
    max_message: Option<usize>,
    record_key: Option<String>,
}

/// The form each key takes, as the error message shows it.
const CATALOG_FORM: &str = "a file path or a list of file paths, e.g. `catalog = [\"tools.plan\"]`";
const POLICY_FORM: &str = "a file path, e.g. `policy = \"policy.plan\"`";
const PROGRESS_FORM: &str = "a file path, e.g. `progress = \"progress.json\"`";
const ACTOR_FORM: &str = "a scope or a list of scopes, e.g. `actor = [\"crm:read\"]`";

impl Config {
    /// Reads the text of a `planc.toml` found at `path`; relative paths in it
    /// are resolved against its folder. The error is a message for the user:
    /// `FILE:LINE:COL: ` and what is wrong, naming the key and the form it
    /// takes when a value has the wrong form.
    pub fn parse(path: &Path, text: &str) -> Result<Config, String> {
        let place = |offset: Option<usize>| {
            let at = offset.map(|o| {
                SourceFile::new(FileId(0), "", text, SourceKind::Text)
                    .line_col(u32::try_from(o).unwrap_or(u32::MAX))
            });
            match at {
                Some(at) => format!("{}:{}:{}", path.display(), at.line, at.column),
                None => path.display().to_string(),
            }
        };
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            format!(
                "{}: {}",
                place(e.span().map(|s| s.start)),
                e.message().trim_end_matches('\n')
            )
        })?;
        let strings =
            |key: &str, form: &str, value: Option<toml::Spanned<toml::Value>>, many: bool| {
                let Some(value) = value else {
                    return Ok(None);
                };
                let start = value.span().start;
                let found = match value.into_inner() {
                    toml::Value::String(s) => return Ok(Some(vec![s])),
                    toml::Value::Array(items) if many => {
                        let mut out = Vec::with_capacity(items.len());
                        for item in items {
                            match item {
                                toml::Value::String(s) => out.push(s),
                                other => {
                                    return Err(format!(
                                        "{}: `{key}` takes {form}; it holds {}",
                                        place(Some(start)),
                                        describe(&other)
                                    ));
                                }
                            }
                        }
                        return Ok(Some(out));
                    }
                    other => describe(&other),
                };
                Err(format!(
                    "{}: `{key}` takes {form}; found {found}",
                    place(Some(start))
                ))
            };
        let catalog = strings("catalog", CATALOG_FORM, raw.catalog, true)?.unwrap_or_default();
        let policy =
            strings("policy", POLICY_FORM, raw.policy, false)?.and_then(|p| p.into_iter().next());
        let actor = strings("actor", ACTOR_FORM, raw.actor, true)?;
        let progress = strings("progress", PROGRESS_FORM, raw.progress, false)?
            .and_then(|p| p.into_iter().next());
        let base = path.parent().unwrap_or(Path::new(""));
        Ok(Config {
            path: path.to_path_buf(),
            catalog: catalog
                .into_iter()
                .map(|p| normalize(&base.join(p)))
                .collect(),
            policy: policy.map(|p| normalize(&base.join(p))),
            actor,
            progress: progress.map(|p| normalize(&base.join(p))),
            max_message: raw.run.as_ref().and_then(|r| r.max_message),
            record_key: raw
                .run
                .as_ref()
                .and_then(|r| r.record_key.as_ref())
                .map(|p| normalize(&base.join(p))),
            tools: raw
                .run
                .and_then(|r| r.tools)
                .map(|t| match t.strip_prefix("fixture:") {
                    Some(file) => format!("fixture:{}", normalize(&base.join(file)).display()),
                    None => t,
                }),
        })
    }
}

/// The flags that stand in for `planc.toml`'s values: `planc check
/// --catalog … --policy … --actor … --progress … --no-config` and `planc
/// lsp`'s flags. Each one given replaces the file's value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub catalog: Vec<PathBuf>,
    pub policy: Option<PathBuf>,
    pub actor: Option<Vec<String>>,
    pub progress: Option<PathBuf>,
    /// `--record-key`: the file holding the record key.
    pub record_key: Option<PathBuf>,
    /// Ignore every `planc.toml`.
    pub no_config: bool,
}

impl Overrides {
    /// Whether a `planc.toml` is consulted at all: not under `no_config`,
    /// nor when the flags name both the catalogue and the policy (a file in
    /// a parent folder must not widen the actor of a check whose inputs
    /// were given).
    pub fn consults_config(&self) -> bool {
        !self.no_config && (self.catalog.is_empty() || self.policy.is_none())
    }

    /// The settings of a plan whose `planc.toml` is `found` (or none):
    /// the file's values, each replaced by the flag's when one is given.
    pub fn apply(&self, found: Option<Config>) -> Settings {
        let found = found.filter(|_| self.consults_config());
        let path = found.as_ref().map(|c| c.path.clone());
        let Config {
            catalog,
            policy,
            actor,
            progress,
            tools,
            max_message,
            record_key,
            ..
        } = found.unwrap_or_default();
        Settings {
            config: path,
            catalog: if self.catalog.is_empty() {
                catalog
            } else {
                self.catalog.clone()
            },
            policy: self.policy.clone().or(policy),
            actor: self.actor.clone().or(actor),
            progress: self.progress.clone().or(progress),
            tools,
            max_message,
            record_key: self.record_key.clone().or(record_key),
        }
    }
}

/// What plans in one folder are checked with: the catalogue files, the
/// policy, the actor and the progress record of the flags and of the
/// `planc.toml` found from that folder. Plans with equal settings are
/// checked together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The `planc.toml` consulted, when one was.
    pub config: Option<PathBuf>,
    pub catalog: Vec<PathBuf>,
    pub policy: Option<PathBuf>,
    pub actor: Option<Vec<String>>,
    pub progress: Option<PathBuf>,
    /// `[run] tools` of the `planc.toml`.
    pub tools: Option<String>,
    /// `[run] max_message` of the `planc.toml`.
    pub max_message: Option<usize>,
    /// The record key's file: `--record-key`, else `[run] record_key` of
    /// the `planc.toml`.
    pub record_key: Option<PathBuf>,
}

/// A file the settings name beside the plans, by what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Catalog,
    Policy,
    Progress,
}

/// The settings of plans in the folder `dir`: the `planc.toml` found from
/// it upward (unless the flags say not to look), with the flags applied.
pub fn settings(dir: &Path, overrides: &Overrides) -> Result<Settings, String> {
    let found = if overrides.consults_config() {
        discover(dir)?
    } else {
        None
    };
    Ok(overrides.apply(found))
}

impl Settings {
    /// The files to read beside the plans: the catalogue files, the
    /// policy, the progress record, in that order.
    pub fn inputs(&self) -> impl Iterator<Item = (&Path, Input)> {
        let catalog = self.catalog.iter().map(|p| (p.as_path(), Input::Catalog));
        let policy = self.policy.iter().map(|p| (p.as_path(), Input::Policy));
        let progress = self.progress.iter().map(|p| (p.as_path(), Input::Progress));
        catalog.chain(policy).chain(progress)
    }

    /// Builds a job's inputs from the settings: each file read from disk
    /// (once: a file the job already holds, as a plan say, keeps its place
    /// and takes the role too) and shown by `name`, the actor, and the
    /// configuration's name. The error names a file that cannot be read.
    pub fn add_to(&self, job: &mut Job, name: impl Fn(&Path) -> String) -> Result<(), String> {
        for (path, input) in self.inputs() {
            let kind = (input == Input::Progress).then_some(SourceKind::Json);
            let id = add_file(job, path, name(path), kind)?;
            match input {
                Input::Catalog => job.catalog.push(id),
                Input::Policy => job.policy.push(id),
                Input::Progress => job.progress = Some(id),
            }
        }
        job.actor.clone_from(&self.actor);
        job.config = self.config.as_deref().map(name);
        Ok(())
    }
}

/// Adds a file to the job once, under `name`: a file already there keeps
/// its id. Its form is `kind`, else told from the name.
pub fn add_file(
    job: &mut Job,
    path: &Path,
    name: String,
    kind: Option<SourceKind>,
) -> Result<FileId, String> {
    if let Some(existing) = job.sources.files().find(|f| f.name == name) {
        return Ok(existing.id);
    }
    let bytes = read_bytes(path)?;
    let kind = kind.unwrap_or_else(|| SourceKind::from_name(&name));
    Ok(add_bytes(job, name, bytes, Some(kind)))
}

/// Adds an input's bytes to the job in the given form (told from the
/// content when `None`). Bytes that are not UTF-8 are added up to the
/// first invalid byte, and that byte is an E0002 the run reports.
pub fn add_bytes(job: &mut Job, name: String, bytes: Vec<u8>, kind: Option<SourceKind>) -> FileId {
    add_decoded(job, name, decode_text(bytes), kind)
}

/// [`add_bytes`] for bytes already decoded by [`decode_text`].
pub fn add_decoded(
    job: &mut Job,
    name: String,
    decoded: Result<String, NotUtf8>,
    kind: Option<SourceKind>,
) -> FileId {
    match decoded {
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

/// A TOML value of the wrong form, as the error message names it.
fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("a string `{s}`"),
        toml::Value::Integer(i) => format!("an integer `{i}`"),
        toml::Value::Float(f) => format!("a number `{f}`"),
        toml::Value::Boolean(b) => format!("a boolean `{b}`"),
        toml::Value::Datetime(d) => format!("a date `{d}`"),
        toml::Value::Array(_) => "a list".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

/// Removes `.` components and folds `a/..` away, without touching the file
/// system, so that paths read as a person would write them.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// Looks for `planc.toml` in `start` (a folder) and its ancestors; the first
/// found is read. `Ok(None)` when there is none.
pub fn discover(start: &Path) -> Result<Option<Config>, String> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join(CONFIG_FILE);
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate)
                .map_err(|e| format!("cannot read `{}`: {e}", candidate.display()))?;
            return Config::parse(&candidate, &text).map(Some);
        }
        dir = d.parent();
    }
    Ok(None)
}

/// The folder SARIF's `%SRCROOT%` stands for: the root of the git
/// repository holding `cwd` (the nearest folder, from `cwd` up, with a
/// `.git` folder or file), else `cwd` itself.
pub fn source_root(cwd: &Path) -> PathBuf {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    cwd.to_path_buf()
}

/// Where a file named on the command line is, for a SARIF log: its path
/// relative to `root` with `/` separators, percent-encoded, when it lies
/// under `root`; else its absolute `file:` URI. `cwd` is the folder
/// relative names start from. Symbolic links are resolved on both sides
/// when they can be, so a file reached through one still maps into the
/// repository.
pub fn artifact_uri(root: &Path, cwd: &Path, name: &str) -> ArtifactUri {
    let absolute = normalize(&cwd.join(name));
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (root, file) = (real(root), real(&absolute));
    match file.strip_prefix(&root) {
        Ok(relative) => {
            let text = relative.to_string_lossy().replace('\\', "/");
            ArtifactUri::UnderRoot(encode_uri_path(&text))
        }
        Err(_) => {
            let text = file.to_string_lossy().replace('\\', "/");
            let text = if text.starts_with('/') {
                text
            } else {
                format!("/{text}")
            };
            ArtifactUri::Absolute(format!("file://{}", encode_uri_path(&text)))
        }
    }
}

/// Reads a file as UTF-8 text, with a message naming the file and the
/// reason on failure (missing, unreadable, not UTF-8, too large).
pub fn read_source(path: &Path) -> Result<String, String> {
    decode(&path.display().to_string(), read_bytes(path)?)
}

/// Reads a file's bytes, with a message naming the file and the reason on
/// failure (missing, unreadable, too large).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read `{}`: {}", path.display(), io_reason(&e)))
}

/// The fewest bytes a record key holds.
pub const RECORD_KEY_MIN: usize = 16;

/// The operator's record key, read from its file (`--record-key`, `[run]
/// record_key`): the bytes progress records are sealed and verified with
/// (`progress::read::verify`, `docs/replanning.md`). A key shorter than
/// [`RECORD_KEY_MIN`] bytes is refused.
pub fn read_record_key(path: &Path) -> Result<Vec<u8>, String> {
    let key = read_bytes(path)?;
    if key.len() < RECORD_KEY_MIN {
        return Err(format!(
            "the record key `{}` holds {} bytes: a key has at least {RECORD_KEY_MIN}",
            path.display(),
            key.len()
        ));
    }
    Ok(key)
}

/// Decodes bytes read from a file or stdin. Invalid UTF-8 is refused with
/// the byte offset of the first bad byte.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    decode_text(bytes).map_err(|bad| bad.message(name))
}

/// Bytes that are not UTF-8: the text before the first invalid byte and
/// that byte's offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    pub valid: String,
    pub offset: usize,
}

impl NotUtf8 {
    /// The message for the file named `name`.
    pub fn message(&self, name: &str) -> String {
        format!(
            "`{name}` is not valid UTF-8: invalid byte at offset {}",
            self.offset
        )
    }

    /// The E0002 diagnostic for `file` (added with [`NotUtf8::valid`] as its
    /// text, so the span, at the end of that text, has a line and column).
    pub fn diagnostic(&self, file: FileId, name: &str) -> Diagnostic {
        Diagnostic::new(
            Code::E0002,
            Span::point(file, self.offset),
            self.message(name),
        )
        .with_label("this byte is not UTF-8")
        .with_help("files are read as UTF-8: convert this one, with `iconv -t UTF-8`, say")
    }
}

/// The one decision on what bytes are text: UTF-8, or the valid prefix
/// and the offset of the first invalid byte.
pub fn decode_text(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let mut bytes = e.into_bytes();
        bytes.truncate(offset);
        NotUtf8 {
            valid: String::from_utf8(bytes).unwrap_or_default(),
            offset,
        }
    })
}

/// Writes `bytes` to `path` atomically: into a new temporary file beside
/// it, flushed to disk, then renamed over `path`. An interrupted write
/// leaves the old file whole, and concurrent writers never show a reader
/// half a file. The error is a message for the user.
///
/// What an attacker who can write in the folder might plant is refused or
/// harmless (`docs/threat-model.md`): the temporary file has an
/// unpredictable name and is created only if nothing is there
/// (`create_new`, which follows no link), so a planted file or link is
/// never opened, let alone truncated; a symbolic link at `path` is
/// refused; and a `path` that exists and is not a regular file (a device
/// such as `/dev/null`, a FIFO, a terminal) is written in place, never
/// replaced by a regular file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomic_with(path, &mut |out| out.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, through a buffer: a large
/// output (a compiled IR) goes to its file without its text in memory.
pub fn write_atomic_with(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    use std::io::Write;
    let buffered = &mut |file: &mut std::fs::File| {
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        out.flush()
    };
    if target(path)? == Target::Special {
        // A device, a FIFO, a socket: written to, as `>` would.
        return std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|mut f| buffered(&mut f))
            .map_err(|e| cannot_write(path, &e));
    }
    write_replacing(path, buffered)
}

/// [`write_atomic`] of what `write` writes into the new file itself, in
/// which it may go back (`planc compile` writes an IR's fingerprint last,
/// before its steps: `ir::IrStream`). Only for a `path` that is a regular
/// file or nothing: any other is refused, and nothing is written.
pub fn write_atomic_file(
    path: &Path,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), String> {
    if target(path)? == Target::Special {
        return Err(format!(
            "cannot write `{}` in place: it is not a regular file",
            path.display()
        ));
    }
    write_replacing(path, write)
}

/// Whether writing `path` creates or replaces a regular file (it names
/// one, or nothing): not a device, FIFO, socket or terminal written in
/// place, nor a link or a directory, which are refused.
pub fn writes_a_new_file(path: &Path) -> bool {
    matches!(target(path), Ok(Target::Replaced))
}

/// A scratch file beside `near`, given to `work` and removed after it,
/// whatever `work` did: for a command's intermediate text too long to be
/// kept in memory (the canonical text of a long plan's steps). Its name is
/// unpredictable and it is created only if nothing is there, as
/// [`write_atomic`]'s temporary file is.
pub fn with_scratch<T>(
    near: &Path,
    work: &mut dyn FnMut(&mut std::fs::File) -> T,
) -> Result<T, String> {
    let (scratch, mut file) = create_beside(near, "scratch")?;
    let done = work(&mut file);
    drop(file);
    let _ = std::fs::remove_file(&scratch);
    Ok(done)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A regular file, or nothing: created or replaced.
    Replaced,
    /// Anything else but a link or a directory: written in place.
    Special,
}

/// What `path` is to a writer; a symbolic link and a directory are
/// refused.
fn target(path: &Path) -> Result<Target, String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "cannot write `{}`: it is a symbolic link, which planc does not write through",
            path.display()
        )),
        Ok(m) if m.is_dir() => Err(format!(
            "cannot write `{}`: it is a directory",
            path.display()
        )),
        Ok(m) if !m.is_file() => Ok(Target::Special),
        _ => Ok(Target::Replaced),
    }
}

fn cannot_write(path: &Path, e: &std::io::Error) -> String {
    format!("cannot write `{}`: {}", path.display(), io_reason(e))
}

/// A new file beside `path`, named `.NAME.UNPREDICTABLE.WHAT`, created
/// only if nothing is there.
fn create_beside(path: &Path, what: &str) -> Result<(PathBuf, std::fs::File), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("cannot write `{}`: it names no file", path.display()))?;
    let mut attempts = 0;
    loop {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{:016x}.{what}", unpredictable()));
        let tmp = path.with_file_name(tmp_name);
        match std::fs::File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 16 => {
                attempts += 1;
            }
            Err(e) => return Err(cannot_write(path, &e)),
        }
    }
}

/// Writes `path` through a temporary file beside it, renamed over it once
/// written and synced; the temporary file is removed if anything fails.
fn write_replacing(
    path: &Path,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), String> {
    let (tmp, mut file) = create_beside(path, "tmp")?;
    let written = write(&mut file).and_then(|()| {
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        cannot_write(path, &e)
    })
}

/// A number nobody outside this process can predict: the process id, the
/// time and a counter, hashed with the standard library's per-process
/// random keys (`RandomState`, seeded from the operating system).
fn unpredictable() -> u64 {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    std::collections::hash_map::RandomState::new().hash_one((std::process::id(), nanos, n))
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_resolves_relative_paths() {
        let c = Config::parse(
            Path::new("proj/planc.toml"),
            "catalog = [\"tools.plan\", \"mcp.json\"]\npolicy = \"policy.plan\"\nactor = [\"crm:read\"]\n",
        )
        .unwrap();
        assert_eq!(
            c.catalog,
            vec![
                PathBuf::from("proj/tools.plan"),
                PathBuf::from("proj/mcp.json")
            ]
        );
        assert_eq!(c.policy, Some(PathBuf::from("proj/policy.plan")));
        assert_eq!(c.actor, Some(vec!["crm:read".to_string()]));
    }

    /// An empty folder of the system's temporary one, for one test.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("planc-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The names of the files in `dir`.
    fn names(dir: &Path) -> Vec<std::ffi::OsString> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect()
    }

    #[test]
    fn writes_atomically_and_leaves_no_temporary_file() {
        let dir = scratch("write-atomic");
        let path = dir.join("out.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(names(&dir), vec![std::ffi::OsString::from("out.json")]);
        // A folder that does not exist: a message naming the file, nothing written.
        let err = write_atomic(&dir.join("missing/out.json"), b"x").unwrap_err();
        assert!(
            err.contains("missing/out.json") && err.contains("no such file"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stream_that_fails_halfway_leaves_the_old_file_whole() {
        let dir = scratch("write-stream");
        let path = dir.join("out.ir.json");
        write_atomic(&path, b"the old IR").unwrap();
        // More than the buffer holds is written before the failure, so some
        // of it has reached the temporary file.
        let err = write_atomic_with(&path, &mut |out| {
            out.write_all(&vec![b'x'; 64 * 1024])?;
            Err(std::io::Error::other("the serialiser gave up"))
        })
        .unwrap_err();
        assert!(
            err.contains("out.ir.json") && err.contains("gave up"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"the old IR");
        assert_eq!(names(&dir), vec![std::ffi::OsString::from("out.ir.json")]);
        // A stream that succeeds replaces it whole.
        write_atomic_with(&path, &mut |out| {
            for _ in 0..3 {
                out.write_all(&vec![b'y'; 10_000])?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), vec![b'y'; 30_000]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(
            normalize(Path::new("a/b/../../../c/./d")),
            PathBuf::from("../c/d")
        );
        assert_eq!(normalize(Path::new("./x")), PathBuf::from("x"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
    }

    #[test]
    fn flags_replace_the_files_values_and_both_given_skip_it() {
        let found = Config::parse(
            Path::new("p/planc.toml"),
            "catalog = \"t.plan\"\npolicy = \"pol.plan\"\nactor = [\"a:b\"]\nprogress = \"r.json\"\n",
        )
        .unwrap();
        let none = Overrides::default().apply(Some(found.clone()));
        assert_eq!(none.config, Some(PathBuf::from("p/planc.toml")));
        assert_eq!(none.catalog, vec![PathBuf::from("p/t.plan")]);
        assert_eq!(none.progress, Some(PathBuf::from("p/r.json")));
        let actor = Overrides {
            actor: Some(vec!["c:d".into()]),
            ..Overrides::default()
        }
        .apply(Some(found.clone()));
        assert_eq!(actor.actor, Some(vec!["c:d".to_string()]));
        assert_eq!(actor.policy, Some(PathBuf::from("p/pol.plan")));
        // Catalogue and policy both given: the file is not consulted, not
        // even for the actor or the progress record.
        let both = Overrides {
            catalog: vec![PathBuf::from("x.json")],
            policy: Some(PathBuf::from("y.plan")),
            ..Overrides::default()
        };
        assert!(!both.consults_config());
        let s = both.apply(Some(found.clone()));
        assert_eq!((s.config, s.actor, s.progress), (None, None, None));
        let off = Overrides {
            no_config: true,
            ..Overrides::default()
        };
        assert_eq!(off.apply(Some(found)), Settings::default());
    }

    #[test]
    fn a_single_catalogue_may_be_a_string() {
        let c = Config::parse(Path::new("planc.toml"), "catalog = \"tools.plan\"").unwrap();
        assert_eq!(c.catalog, vec![PathBuf::from("tools.plan")]);
        assert_eq!(c.policy, None);
    }

    #[test]
    fn run_tools_fixture_paths_resolve_against_the_file() {
        let c = Config::parse(
            Path::new("proj/planc.toml"),
            "[run]\ntools = \"fixture:rec/tools.json\"\n",
        )
        .unwrap();
        assert_eq!(c.tools.as_deref(), Some("fixture:proj/rec/tools.json"));
        let c = Config::parse(Path::new("p/planc.toml"), "[run]\ntools = \"mcp:srv --x\"").unwrap();
        assert_eq!(c.tools.as_deref(), Some("mcp:srv --x"));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let e = Config::parse(Path::new("planc.toml"), "catalogue = []").unwrap_err();
        assert!(e.contains("unknown field `catalogue`"), "{e}");
    }

    #[test]
    fn a_value_of_the_wrong_form_names_the_key_and_the_form() {
        let e = Config::parse(
            Path::new("planc.toml"),
            "policy = \"p.plan\"\ncatalog = 3\n",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "planc.toml:2:11: `catalog` takes a file path or a list of file paths, \
             e.g. `catalog = [\"tools.plan\"]`; found an integer `3`"
        );
        let e = Config::parse(Path::new("planc.toml"), "actor = [\"a:b\", 7]").unwrap_err();
        assert!(
            e.starts_with("planc.toml:1:9: `actor` takes a scope or a list of scopes")
                && e.ends_with("it holds an integer `7`"),
            "{e}"
        );
        let e = Config::parse(Path::new("planc.toml"), "policy = [\"p.plan\"]").unwrap_err();
        assert!(e.contains("`policy` takes a file path"), "{e}");
        assert!(e.ends_with("found a list"), "{e}");
    }

    #[test]
    fn a_syntax_error_has_its_place() {
        let e = Config::parse(Path::new("planc.toml"), "catalog = [\n").unwrap_err();
        assert!(e.starts_with("planc.toml:"), "{e}");
        assert!(!e.contains("untagged"), "{e}");
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let e = decode("x.plan", vec![b'a', 0xff]).unwrap_err();
        assert_eq!(e, "`x.plan` is not valid UTF-8: invalid byte at offset 1");
        // A sequence cut short: the offset is its first byte, and the text
        // before it is kept (for the diagnostic's line and column).
        let bad = decode_text(b"ab\nc\xe2\x82".to_vec()).unwrap_err();
        assert_eq!(
            bad,
            NotUtf8 {
                valid: "ab\nc".into(),
                offset: 4
            }
        );
        let d = bad.diagnostic(FileId(3), "x.plan");
        assert_eq!((d.code, d.span), (Code::E0002, Span::point(FileId(3), 4)));
    }
}
