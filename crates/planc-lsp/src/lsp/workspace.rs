//! The workspace: open documents, the files they depend on (catalogues,
//! policies, `planc.toml`) read from disk or from the editor, re-checking
//! what changed, and publishing diagnostics per file.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

use lsp_types as lsp;

use super::analysis::Analysis;
use super::{Document, Server, convert, uri};
use crate::Compiler;
use crate::check;
use crate::driver::{self, Job, Role};
use crate::progress;
use crate::project::{self, Config, Input, NotUtf8, Settings};
use crate::source::SourceKind;
use crate::source::SourceMap;
use crate::syntax;

/// A file's text, or its valid part and the first byte that is not UTF-8.
type Decoded = Result<String, NotUtf8>;

impl Server<'_> {
    pub(super) fn open(&mut self, item: lsp::TextDocumentItem) {
        let path = uri::to_path(&item.uri).map(|p| project::normalize(&p));
        let json = item.language_id.eq_ignore_ascii_case("json")
            || item.language_id.eq_ignore_ascii_case("jsonc")
            || item.uri.as_str().to_ascii_lowercase().ends_with(".json");
        let kind = if json {
            SourceKind::Json
        } else {
            SourceKind::Text
        };
        if let Some(p) = &path {
            self.mark_dependents(p);
        }
        self.dirty.insert(item.uri.clone());
        self.docs.insert(
            item.uri.clone(),
            Document {
                uri: item.uri,
                path,
                version: item.version,
                text: item.text,
                kind,
                analysis: None,
            },
        );
    }

    pub(super) fn change(&mut self, p: lsp::DidChangeTextDocumentParams) {
        let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
            return;
        };
        for change in p.content_changes {
            match change.range {
                // Incremental sync: each change replaces a range (in
                // UTF-16 columns) of the text the one before left; a range
                // past the end is clamped to it.
                Some(range) => {
                    // The position is read with the last analysis's line
                    // index when the text is still the one it read (the
                    // first change since); otherwise one is built.
                    let analysed = doc
                        .analysis
                        .as_ref()
                        .and_then(Analysis::doc_file)
                        .filter(|f| f.text == doc.text);
                    let span = match analysed {
                        Some(f) => convert::span(f, range),
                        None => {
                            let file = crate::source::SourceFile::new(
                                crate::FileId(0),
                                "",
                                std::mem::take(&mut doc.text),
                                doc.kind,
                            );
                            let span = convert::span(&file, range);
                            doc.text = file.text;
                            span
                        }
                    };
                    let mut text = std::mem::take(&mut doc.text);
                    if text.is_char_boundary(span.start as usize)
                        && text.is_char_boundary(span.end as usize)
                    {
                        text.replace_range(span.range(), &change.text);
                    }
                    doc.text = text;
                }
                None => doc.text = change.text,
            }
        }
        doc.version = p.text_document.version;
        let path = doc.path.clone();
        self.dirty.insert(p.text_document.uri);
        if let Some(path) = path {
            self.mark_dependents(&path);
            if is_config(&path) {
                self.configs.clear();
                self.dirty.extend(self.docs.keys().cloned());
            }
        }
    }

    pub(super) fn save(&mut self, p: lsp::DidSaveTextDocumentParams) {
        let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
            return;
        };
        if let Some(text) = p.text {
            doc.text = text;
        }
        let path = doc.path.clone();
        self.dirty.insert(p.text_document.uri);
        if let Some(path) = path {
            self.file_changed(&path);
        }
    }

    pub(super) fn close(&mut self, uri: &lsp::Uri) {
        let Some(doc) = self.docs.remove(uri) else {
            return;
        };
        self.dirty.remove(uri);
        if let Some(path) = &doc.path {
            // Its dependents read it from disk again.
            self.file_changed(path);
        }
        self.publish_all(&HashSet::new());
    }

    /// A file changed on disk (or was saved): drop what is cached of it and
    /// re-check what depends on it.
    pub(super) fn file_changed(&mut self, path: &Path) {
        let path = project::normalize(path);
        self.disk.remove(&path);
        if is_config(&path) {
            self.configs.clear();
            self.dirty.extend(self.docs.keys().cloned());
        } else {
            self.mark_dependents(&path);
        }
    }

    pub(super) fn mark_dependents(&mut self, path: &Path) {
        for (uri, doc) in &self.docs {
            if doc
                .analysis
                .as_ref()
                .is_some_and(|a| a.deps.iter().any(|d| d == path))
            {
                self.dirty.insert(uri.clone());
            }
        }
    }

    /// Re-checks the documents marked dirty and publishes what changed.
    pub(super) fn flush(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        let mut dirty: Vec<lsp::Uri> = self.dirty.drain().collect();
        dirty.sort();
        let mut old = Vec::with_capacity(dirty.len());
        for uri in &dirty {
            let analysis = match catch_unwind(AssertUnwindSafe(|| self.analyze(uri))) {
                Ok(a) => a,
                Err(_) => {
                    self.log_error(&format!(
                        "planc: internal error checking `{}`",
                        uri.as_str()
                    ));
                    None
                }
            };
            if let Some(doc) = self.docs.get_mut(uri) {
                old.push(std::mem::replace(&mut doc.analysis, analysis));
            }
        }
        let own: HashSet<lsp::Uri> = dirty.into_iter().collect();
        self.publish_all(&own);
        // Freeing a large compilation takes a while (1.5 ms for a thousand
        // steps): it is done once the diagnostics are out, off the path from
        // the keystroke to them. Not on another thread: freeing there
        // contends with this thread's allocations for the allocator's lock,
        // which made the next check two to three times slower.
        drop(old);
    }

    /// Compiles one open document with its project.
    pub(super) fn analyze(&mut self, uri: &lsp::Uri) -> Option<Analysis> {
        let (path, text, kind) = {
            let doc = self.docs.get(uri)?;
            (doc.path.clone(), doc.text.clone(), doc.kind)
        };
        // An open `planc.toml` is read for its settings, not checked.
        if path.as_deref().is_some_and(is_config) {
            return None;
        }
        let mut project_errors = Vec::new();
        let mut deps = Vec::new();
        let settings = match path.as_deref().and_then(Path::parent) {
            Some(dir) => match self.config(dir) {
                Ok(s) => s,
                Err(e) => {
                    project_errors.push(e);
                    Settings::default()
                }
            },
            None => Settings::default(),
        };
        let name = path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| uri.as_str().to_string());
        // The document in every role the configuration names it in (a
        // file that is both the catalogue and the policy is read as both),
        // else as a plan.
        let mut roles: Vec<Role> = Vec::new();
        // The catalogue and policy files other than the document: name,
        // text (or its valid part, when not UTF-8), URI, role.
        let mut files: Vec<(String, Decoded, Option<lsp::Uri>, Role)> = Vec::new();
        // The progress record a replan is checked against: name, text, URI.
        let mut progress: Option<(String, Decoded, Option<lsp::Uri>)> = None;
        if let Some(config) = &settings.config {
            deps.push(config.clone());
        }
        for (dep, input) in settings.inputs() {
            let role = match input {
                Input::Catalog => Some(Role::Catalog),
                Input::Policy => Some(Role::Policy),
                // `progress`: the document is a replan, checked against
                // the record as `planc check --progress` checks it.
                Input::Progress => None,
            };
            let itself = path.as_deref() == Some(dep);
            if role.is_some() || !itself {
                deps.push(dep.to_path_buf());
            }
            if itself {
                roles.extend(role);
                continue;
            }
            match self.read(dep) {
                Ok((text, dep_uri)) => {
                    let name = dep.display().to_string();
                    match role {
                        Some(role) => files.push((name, text, dep_uri, role)),
                        // With a record key (`[run] record_key`), a record
                        // whose seal does not verify is not checked
                        // against, as `planc check` refuses it.
                        None => match sealed(&name, &text, settings.record_key.as_deref()) {
                            Ok(()) => progress = Some((name, text, dep_uri)),
                            Err(e) => project_errors.push(e),
                        },
                    }
                }
                Err(e) => project_errors.push(e),
            }
        }
        let mut actor = settings.actor.clone();
        if let Some(a) = &self.actor {
            actor = Some(a.clone());
        }
        let config_name = settings.config.as_ref().map(|c| c.display().to_string());
        let mut uris: Vec<Option<lsp::Uri>> = files.iter().map(|f| f.2.clone()).collect();
        let all_text = files.iter().all(|f| f.1.is_ok());
        let mut a = if roles.is_empty()
            && !files.is_empty()
            && all_text
            && project_errors.is_empty()
            && progress.is_none()
        {
            // A plan against a configured catalogue and policy: their
            // models are built once and kept until a file, the actor or
            // the configuration changes.
            let key = CompilerKey {
                files: files
                    .into_iter()
                    .map(|(name, text, _, role)| (name, text.unwrap_or_else(|bad| bad.valid), role))
                    .collect(),
                actor,
                config: config_name,
            };
            let compiler = self.compiler(key);
            let mut job = Job {
                sources: compiler.sources().clone(),
                ..Job::default()
            };
            let doc_id = job.sources.add_with_kind(name, text, kind);
            uris.push(Some(uri.clone()));
            job.plans.push(doc_id);
            // The edit since the document's last analysis: what the check
            // may reuse of it, and the line index, which it moves.
            let old = self.docs.get(uri).and_then(|d| d.analysis.as_ref());
            let edit = match (old, job.sources.get_mut(doc_id)) {
                (Some(old), Some(f)) => old.edit_to(doc_id, &f.text).inspect(|edit| {
                    if let Some(old) = old.doc_file() {
                        f.take_lines_from(old, edit);
                    }
                }),
                _ => None,
            };
            let (outcome, clean_tree) = match job.sources.get(doc_id) {
                Some(f) if kind == SourceKind::Text => {
                    let mut analysis = self.docs.get_mut(uri).and_then(|d| d.analysis.as_mut());
                    // A text whose last parse gave diagnostics most likely
                    // still does: parsed whole at once, without first
                    // trying it step by step (`syntax::stepwise`), which
                    // would give up at the problem.
                    let strategy = match &analysis {
                        Some(a) if !a.clean_tree => syntax::parser::Strategy::Whole,
                        _ => syntax::parser::Strategy::FastThenRich,
                    };
                    // Only the edited step is read again when it can be,
                    // and only the steps the edit touched are checked
                    // again when the others' models can be reused.
                    let reread = analysis
                        .as_deref_mut()
                        .zip(edit.as_ref())
                        .and_then(|(a, e)| a.reread(doc_id, &f.text, e));
                    let prior = analysis.zip(edit).and_then(|(a, e)| a.prior(e));
                    let (module, mut diags) = match reread {
                        Some(module) => (module, Vec::new()),
                        None => syntax::parse_text_with(doc_id, &f.text, strategy),
                    };
                    let clean = diags.is_empty();
                    // As `driver::parse` reads a plan's text.
                    diags.extend(check::hidden::hidden_characters(doc_id, &f.text));
                    let tree = (doc_id, module, diags);
                    (compiler.run_with_tree(&mut job, tree, prior), clean)
                }
                _ => (compiler.run(&mut job), false),
            };
            let mut a = Analysis::new(job, outcome, doc_id, uris, deps, project_errors);
            a.clean_tree = clean_tree;
            a
        } else {
            let mut job = Job::default();
            for (name, text, _, role) in files {
                let kind = SourceKind::from_name(&name);
                let id = project::add_decoded(&mut job, name, text, Some(kind));
                match role {
                    Role::Catalog => job.catalog.push(id),
                    _ => job.policy.push(id),
                }
            }
            let doc_id = job.sources.add_with_kind(name, text, kind);
            uris.push(Some(uri.clone()));
            if roles.is_empty() {
                roles.push(Role::Plan);
            }
            for role in roles {
                match role {
                    Role::Plan => job.plans.push(doc_id),
                    Role::Catalog => job.catalog.push(doc_id),
                    Role::Policy => job.policy.push(doc_id),
                }
            }
            if let Some((name, text, dep_uri)) = progress {
                let id = project::add_decoded(&mut job, name, text, Some(SourceKind::Json));
                uris.push(dep_uri);
                job.progress = Some(id);
            }
            job.config = config_name;
            job.actor = actor;
            let outcome = driver::run(&mut job);
            Analysis::new(job, outcome, doc_id, uris, deps, project_errors)
        };
        let mut shown = Vec::with_capacity(a.diagnostics.len() + a.project_errors.len());
        if let Some(file) = a.doc_file() {
            for e in &a.project_errors {
                shown.push((uri.clone(), convert::project_error(file, e)));
            }
        }
        shown.extend(
            a.diagnostics
                .iter()
                .filter_map(|d| convert::diagnostic(&a, d, self.pages.get(&d.code))),
        );
        a.shown = shown;
        Some(a)
    }

    /// The compiler built from these catalogue and policy texts, from the
    /// cache when they have not changed since the last check.
    fn compiler(&mut self, key: CompilerKey) -> Arc<Compiler> {
        if let Some((_, c)) = self.compilers.iter().find(|(k, _)| *k == key) {
            return Arc::clone(c);
        }
        let mut sources = SourceMap::new();
        let (mut catalog, mut policy) = (Vec::new(), Vec::new());
        for (name, text, role) in &key.files {
            let id = sources.add(name.clone(), text.clone());
            match role {
                Role::Catalog => catalog.push(id),
                _ => policy.push(id),
            }
        }
        let compiler = Arc::new(Compiler::build(
            sources,
            catalog,
            policy,
            key.actor.clone(),
            key.config.clone(),
        ));
        // One entry per project is enough; a handful of projects at most
        // are open at once.
        self.compilers.retain(|(k, _)| k.config != key.config);
        self.compilers.push((key, Arc::clone(&compiler)));
        compiler
    }

    /// The settings of plans in `dir`: the flags and the `planc.toml`
    /// found from it upward (an open, edited one wins over the one on
    /// disk), as `project::settings` gives them to the command line.
    pub(super) fn config(&mut self, dir: &Path) -> Result<Settings, String> {
        if let Some(c) = self.configs.get(dir) {
            return c.clone();
        }
        let found = if self.overrides.consults_config() {
            match self.open_config(dir) {
                Some(found) => found,
                None => project::discover(dir),
            }
        } else {
            Ok(None)
        };
        let settings = found.map(|c| self.overrides.apply(c));
        self.configs.insert(dir.to_path_buf(), settings.clone());
        settings
    }

    /// The nearest `planc.toml` from `dir` up, when it is open in the editor.
    pub(super) fn open_config(&self, dir: &Path) -> Option<Result<Option<Config>, String>> {
        let mut d = Some(dir);
        while let Some(here) = d {
            let candidate = here.join(project::CONFIG_FILE);
            if let Some(doc) = self.doc_by_path(&candidate) {
                return Some(Config::parse(&candidate, &doc.text).map(Some));
            }
            if candidate.is_file() {
                return None;
            }
            d = here.parent();
        }
        None
    }

    pub(super) fn doc_by_path(&self, path: &Path) -> Option<&Document> {
        self.docs.values().find(|d| d.path.as_deref() == Some(path))
    }

    /// The text of a catalogue, policy or progress file, and its URI: the
    /// open document's when there is one, else the disk's (cached). Bytes
    /// on disk that are not UTF-8 are the valid part and the offset of the
    /// first bad byte (an E0002 on that file).
    pub(super) fn read(&mut self, path: &Path) -> Result<(Decoded, Option<lsp::Uri>), String> {
        if let Some(doc) = self.doc_by_path(path) {
            return Ok((Ok(doc.text.clone()), Some(doc.uri.clone())));
        }
        let text = self
            .disk
            .entry(path.to_path_buf())
            .or_insert_with(|| project::read_bytes(path).map(project::decode_text))
            .clone()?;
        Ok((text, uri::from_path(path)))
    }

    /// Publishes the diagnostics of every URI whose set changed, and of the
    /// documents in `own` (just re-checked) in any case.
    pub(super) fn publish_all(&mut self, own: &HashSet<lsp::Uri>) {
        // Each URI's diagnostics from every compilation that reads its file,
        // with how many compilations gave some: the same problem in a
        // shared policy is found by each plan checked against it.
        let mut by_uri: HashMap<lsp::Uri, (usize, Vec<lsp::Diagnostic>)> = HashMap::new();
        let mut docs: Vec<&Document> = self.docs.values().collect();
        docs.sort_by(|a, b| a.uri.cmp(&b.uri));
        for (k, doc) in docs.iter().enumerate() {
            let Some(a) = &doc.analysis else { continue };
            for (uri, d) in &a.shown {
                let entry = by_uri.entry(uri.clone()).or_insert((k, Vec::new()));
                if entry.0 != k {
                    entry.0 = usize::MAX;
                }
                entry.1.push(d.clone());
            }
        }
        let mut by_uri: HashMap<lsp::Uri, Vec<lsp::Diagnostic>> = by_uri
            .into_iter()
            .map(|(uri, (from, mut diags))| {
                if from == usize::MAX {
                    let mut seen = HashSet::new();
                    diags.retain(|d| {
                        seen.insert((d.range, format!("{:?}", d.code), d.message.clone()))
                    });
                }
                (uri, diags)
            })
            .collect();
        let mut uris: Vec<lsp::Uri> = by_uri
            .keys()
            .chain(self.published.keys())
            .chain(own.iter())
            .cloned()
            .collect();
        uris.sort();
        uris.dedup();
        for uri in uris {
            let diags = by_uri.remove(&uri).unwrap_or_default();
            let old = self.published.get(&uri);
            if !own.contains(&uri) && old.is_some_and(|o| *o == diags) {
                continue;
            }
            if old.is_none() && diags.is_empty() && !own.contains(&uri) {
                continue;
            }
            let version = self.docs.get(&uri).map(|d| d.version);
            self.notify::<lsp::notification::PublishDiagnostics>(lsp::PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: diags.clone(),
                version,
            });
            if diags.is_empty() {
                self.published.remove(&uri);
            } else {
                self.published.insert(uri, diags);
            }
        }
    }
}

fn is_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == std::ffi::OsStr::new(project::CONFIG_FILE))
}

/// What a cached [`Compiler`] was built from: the catalogue and policy
/// files (name, text, role), the actor and the configuration's name.
#[derive(PartialEq)]
pub(crate) struct CompilerKey {
    files: Vec<(String, String, Role)>,
    actor: Option<Vec<String>>,
    config: Option<String>,
}

/// Whether a progress record may be used under the record key the
/// settings name: without one, always (the record is trusted input); with
/// one, when its key reads and its seal verifies
/// (`progress::read::verify`). A record that does not read is left to the
/// check's own diagnostics (E0601–E0605).
fn sealed(name: &str, text: &Decoded, key: Option<&Path>) -> Result<(), String> {
    let Some(key) = key else {
        return Ok(());
    };
    let key = project::read_record_key(key)?;
    let Ok(text) = text else {
        return Ok(());
    };
    progress::read::verify_text(text, Some(&key))
        .map_err(|e| format!("`{name}`: {e}; the plan is not checked against it"))
}
