//! The language server: `planc lsp`, over stdio, with full document sync.
//!
//! The only module that knows the protocol's types. It is a shell over the
//! driver, as the command line is: each open document is compiled with the
//! catalogue and policy its `planc.toml` names (open documents' text wins
//! over the disk), and every feature reads the result ([`analysis`]).
//!
//! - Diagnostics are published on open, change and save; those located in
//!   another file (the policy, the catalogue) are published for that file.
//!   A document is re-checked when a file it depends on changes: an open
//!   one as it is edited, one on disk when the client reports it through
//!   the file watchers the server registers, or on save.
//! - Changes are coalesced: messages already waiting are handled before the
//!   documents they touched are re-checked, and every request sees the
//!   latest text.
//! - No client input can stop the server: a malformed frame is logged and
//!   skipped ([`run_stdio`]), malformed parameters get `InvalidParams`,
//!   unknown methods `MethodNotFound`, and a failure inside a handler an
//!   `InternalError` response instead of a crash.

// `lsp_types::Uri` hashes and compares by its text, which never changes;
// clippy sees the interior mutability of its parser's cache.
#![allow(clippy::mutable_key_type)]

pub mod analysis;
mod completion;
pub mod convert;
mod cursor;
mod features;
mod json_scan;
pub mod pages;
mod signature;
pub mod uri;

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;

use crate::driver::{Job, Role};
use crate::project::{self, Config};
use crate::source::SourceKind;
use analysis::Analysis;

/// Runs the server over standard input and output until the client says
/// `exit`. The error is a message for standard error.
///
/// The transport is lsp-server's framing with one difference: a frame
/// whose body is not a JSON-RPC message (or whose header is malformed) is
/// reported to the client as a log message and skipped, where lsp-server's
/// own stdio reader would stop reading and end the session.
pub fn run_stdio() -> Result<(), String> {
    let (to_client, outgoing) = crossbeam_channel::bounded::<Message>(0);
    let (incoming, from_client) = crossbeam_channel::bounded::<Message>(0);
    let writer = std::thread::Builder::new()
        .name("planc-lsp-writer".to_string())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            outgoing.into_iter().try_for_each(|m| m.write(&mut out))
        })
        .map_err(|e| format!("cannot start the writer thread: {e}"))?;
    std::thread::Builder::new()
        .name("planc-lsp-reader".to_string())
        .spawn(move || read_messages(&incoming))
        .map_err(|e| format!("cannot start the reader thread: {e}"))?;
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    let result = run(&connection);
    drop(connection);
    // The writer ends now that its sender is gone; the reader may still be
    // waiting on standard input, and ends with the process.
    match writer.join() {
        Ok(Ok(())) | Ok(Err(_)) => result,
        Err(_) => Err("the connection's writer failed".to_string()),
    }
}

/// Reads framed messages from standard input until its end or `exit`.
fn read_messages(incoming: &crossbeam_channel::Sender<Message>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        match Message::read(&mut input) {
            Ok(Some(msg)) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == lsp::notification::Exit::METHOD);
                if incoming.send(msg).is_err() || exit {
                    return;
                }
            }
            Ok(None) => return,
            // Each such error has consumed what it complains about (a
            // header line, a whole body), so reading goes on after it.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                let mut why = e.to_string();
                if let Some((cut, _)) = why.char_indices().nth(300) {
                    why.truncate(cut);
                    why.push('…');
                }
                // The server logs it to the client (see `Server::notification`).
                let _ = incoming.send(Message::Notification(Notification::new(
                    MALFORMED.to_string(),
                    serde_json::json!({ "message": why }),
                )));
            }
            Err(_) => return,
        }
    }
}

/// What the reader passes on in place of a message it could not read.
const MALFORMED: &str = "planc/malformedMessage";

/// Runs the server over a connection: the handshake, then messages until
/// `exit`. `Ok` after `shutdown` then `exit`; an error when the client
/// exits without `shutdown` or the connection breaks.
pub fn run(connection: &Connection) -> Result<(), String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("no initialize request: {e}"))?;
    let params: lsp::InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "planc", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("initialization failed: {e}"))?;
    let mut server = Server::new(connection, &params);
    server.register_watchers();
    server.main_loop()
}

fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(lsp::PositionEncodingKind::UTF16),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
            lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::FULL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(lsp::TextDocumentSyncSaveOptions::SaveOptions(
                    lsp::SaveOptions {
                        include_text: Some(true),
                    },
                )),
            },
        )),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        completion_provider: Some(lsp::CompletionOptions {
            trigger_characters: Some(
                [".", "$", "(", ",", ":", "{"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            ..Default::default()
        }),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        workspace_symbol_provider: Some(lsp::OneOf::Left(true)),
        document_formatting_provider: Some(lsp::OneOf::Left(true)),
        signature_help_provider: Some(lsp::SignatureHelpOptions {
            trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
            retrigger_characters: Some(vec![":".to_string()]),
            work_done_progress_options: Default::default(),
        }),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(
            lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
                ..Default::default()
            },
        )),
        rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        ..Default::default()
    }
}

/// What the client can do, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClientCaps {
    pub snippets: bool,
    pub markdown: bool,
    pub watch: bool,
}

impl ClientCaps {
    fn from(params: &lsp::InitializeParams) -> ClientCaps {
        let text = params.capabilities.text_document.as_ref();
        let snippets = text
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        let markdown = text
            .and_then(|t| t.hover.as_ref())
            .and_then(|h| h.content_format.as_ref())
            .is_none_or(|f| f.contains(&lsp::MarkupKind::Markdown));
        let watch = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        ClientCaps {
            snippets,
            markdown,
            watch,
        }
    }
}

/// An open document.
pub(crate) struct Document {
    pub uri: lsp::Uri,
    /// For a `file:` URI.
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: String,
    pub kind: SourceKind,
    pub analysis: Option<Analysis>,
}

pub(crate) struct Server<'c> {
    connection: &'c Connection,
    pub(crate) docs: HashMap<lsp::Uri, Document>,
    /// Documents to re-check before the next request or when idle.
    dirty: HashSet<lsp::Uri>,
    /// The text of catalogue and policy files read from disk, or why they
    /// could not be read; dropped when the client reports a change.
    disk: HashMap<PathBuf, Result<String, String>>,
    /// `planc.toml` found from each folder.
    configs: HashMap<PathBuf, Result<Option<Config>, String>>,
    /// What was last published for each URI.
    published: HashMap<lsp::Uri, Vec<lsp::Diagnostic>>,
    pub(crate) caps: ClientCaps,
    /// The actor's scopes from the editor's settings (`initializationOptions`
    /// or `workspace/didChangeConfiguration`: `{"actor": [...]}`, possibly
    /// under a `planc` key); they replace those of `planc.toml`.
    actor: Option<Vec<String>>,
    shutdown: bool,
    next_id: i32,
    /// Each code's explain page, as a file the editor can open.
    pub(crate) pages: HashMap<crate::Code, lsp::Uri>,
}

impl<'c> Server<'c> {
    fn new(connection: &'c Connection, params: &lsp::InitializeParams) -> Server<'c> {
        Server {
            connection,
            docs: HashMap::new(),
            dirty: HashSet::new(),
            disk: HashMap::new(),
            configs: HashMap::new(),
            published: HashMap::new(),
            caps: ClientCaps::from(params),
            actor: params
                .initialization_options
                .as_ref()
                .and_then(settings_actor),
            shutdown: false,
            next_id: 0,
            pages: pages::write(),
        }
    }

    fn send(&self, msg: impl Into<Message>) {
        // A send fails only when the client is gone; the loop then ends.
        let _ = self.connection.sender.send(msg.into());
    }

    fn notify<N: lsp::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    /// Asks the client to report changes to project files, when it can.
    fn register_watchers(&mut self) {
        if !self.caps.watch {
            return;
        }
        let watchers = ["**/planc.toml", "**/*.plan", "**/*.json"]
            .iter()
            .map(|g| lsp::FileSystemWatcher {
                glob_pattern: lsp::GlobPattern::String(g.to_string()),
                kind: None,
            })
            .collect();
        let options = lsp::DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = lsp::RegistrationParams {
            registrations: vec![lsp::Registration {
                id: "planc-watch-project-files".to_string(),
                method: lsp::notification::DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_id += 1;
        let id = RequestId::from(format!("planc-{}", self.next_id));
        self.send(Request::new(
            id,
            lsp::request::RegisterCapability::METHOD.to_string(),
            params,
        ));
    }

    fn main_loop(&mut self) -> Result<(), String> {
        let connection = self.connection;
        for msg in &connection.receiver {
            match msg {
                Message::Request(req) => {
                    if self.shutdown {
                        self.send(Response::new_err(
                            req.id,
                            ErrorCode::InvalidRequest as i32,
                            "the server is shutting down".to_string(),
                        ));
                        continue;
                    }
                    if req.method == lsp::request::Shutdown::METHOD {
                        self.shutdown = true;
                        self.send(Response::new_ok(req.id, ()));
                        continue;
                    }
                    self.flush();
                    let response = self.request(req);
                    self.send(response);
                }
                Message::Notification(n) => {
                    if n.method == lsp::notification::Exit::METHOD {
                        return if self.shutdown {
                            Ok(())
                        } else {
                            Err("the client asked to exit without shutting down".to_string())
                        };
                    }
                    let method = n.method.clone();
                    if catch_unwind(AssertUnwindSafe(|| self.notification(n))).is_err() {
                        self.log_error(&format!("planc: internal error handling `{method}`"));
                    }
                    if connection.receiver.is_empty() {
                        self.flush();
                    }
                }
                // Answers to the server's own requests (the watcher
                // registration): nothing to do.
                Message::Response(_) => {}
            }
        }
        if self.shutdown {
            Ok(())
        } else {
            Err("the client closed the connection without `exit`".to_string())
        }
    }

    fn log_error(&self, message: &str) {
        self.notify::<lsp::notification::LogMessage>(lsp::LogMessageParams {
            typ: lsp::MessageType::ERROR,
            message: message.to_string(),
        });
    }

    // ------------------------------------------------------------ requests

    fn request(&mut self, req: Request) -> Response {
        use lsp::request::*;
        match req.method.as_str() {
            HoverRequest::METHOD => self.call::<HoverRequest>(req, features::hover),
            GotoDefinition::METHOD => self.call::<GotoDefinition>(req, features::definition),
            References::METHOD => self.call::<References>(req, features::references),
            PrepareRenameRequest::METHOD => {
                self.call::<PrepareRenameRequest>(req, features::prepare_rename)
            }
            Rename::METHOD => self.call::<Rename>(req, features::rename),
            Completion::METHOD => self.call::<Completion>(req, completion::completion),
            DocumentSymbolRequest::METHOD => {
                self.call::<DocumentSymbolRequest>(req, features::document_symbols)
            }
            Formatting::METHOD => self.call::<Formatting>(req, features::formatting),
            SignatureHelpRequest::METHOD => {
                self.call::<SignatureHelpRequest>(req, signature::signature_help)
            }
            WorkspaceSymbolRequest::METHOD => {
                self.call::<WorkspaceSymbolRequest>(req, features::workspace_symbols)
            }
            CodeActionRequest::METHOD => {
                self.call::<CodeActionRequest>(req, features::code_actions)
            }
            _ => Response::new_err(
                req.id,
                ErrorCode::MethodNotFound as i32,
                format!("planc does not handle `{}`", req.method),
            ),
        }
    }

    fn call<R: lsp::request::Request>(
        &self,
        req: Request,
        handler: fn(&Server<'_>, R::Params) -> Result<R::Result, Failure>,
    ) -> Response {
        let params: R::Params = match serde_json::from_value(req.params) {
            Ok(p) => p,
            Err(e) => {
                return Response::new_err(
                    req.id,
                    ErrorCode::InvalidParams as i32,
                    format!("invalid parameters for `{}`: {e}", R::METHOD),
                );
            }
        };
        match catch_unwind(AssertUnwindSafe(|| handler(self, params))) {
            Ok(Ok(result)) => match serde_json::to_value(result) {
                Ok(v) => Response::new_ok(req.id, v),
                Err(e) => Response::new_err(
                    req.id,
                    ErrorCode::InternalError as i32,
                    format!("cannot write the answer to `{}`: {e}", R::METHOD),
                ),
            },
            Ok(Err(Failure(message))) => {
                Response::new_err(req.id, ErrorCode::RequestFailed as i32, message)
            }
            Err(_) => Response::new_err(
                req.id,
                ErrorCode::InternalError as i32,
                format!("internal error handling `{}`", R::METHOD),
            ),
        }
    }

    /// The analysis of an open document, up to date.
    pub(crate) fn analysis(&self, uri: &lsp::Uri) -> Option<&Analysis> {
        self.docs.get(uri)?.analysis.as_ref()
    }

    pub(crate) fn analyses(&self) -> impl Iterator<Item = &Analysis> {
        self.docs.values().filter_map(|d| d.analysis.as_ref())
    }

    // ------------------------------------------------------------ notifications

    fn notification(&mut self, n: Notification) {
        use lsp::notification::*;
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params) {
                    self.open(p.text_document);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params)
                {
                    self.change(p);
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidSaveTextDocumentParams>(n.params) {
                    self.save(p);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params) {
                    self.close(&p.text_document.uri);
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeWatchedFilesParams>(n.params)
                {
                    for change in p.changes {
                        if let Some(path) = uri::to_path(&change.uri) {
                            self.file_changed(&path);
                        }
                    }
                }
            }
            DidChangeConfiguration::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeConfigurationParams>(n.params)
                {
                    self.actor = settings_actor(&p.settings);
                    self.dirty.extend(self.docs.keys().cloned());
                }
            }
            MALFORMED => {
                let why = n
                    .params
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("");
                self.log_error(&format!("planc: skipped a malformed message: {why}"));
            }
            // `initialized` arrives once more from a confused client,
            // `$/cancelRequest` for requests already answered (the server
            // answers each before reading the next), `$/setTrace`, and
            // notifications the server does not know: all ignored.
            _ => {}
        }
    }

    fn open(&mut self, item: lsp::TextDocumentItem) {
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

    fn change(&mut self, p: lsp::DidChangeTextDocumentParams) {
        let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
            return;
        };
        for change in p.content_changes {
            match change.range {
                // The server asks for full sync; a client sending ranges
                // anyway is still served.
                Some(range) => {
                    let file = crate::source::SourceFile::new(
                        crate::FileId(0),
                        "",
                        std::mem::take(&mut doc.text),
                        doc.kind,
                    );
                    let span = convert::span(&file, range);
                    let mut text = file.text;
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

    fn save(&mut self, p: lsp::DidSaveTextDocumentParams) {
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

    fn close(&mut self, uri: &lsp::Uri) {
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
    fn file_changed(&mut self, path: &Path) {
        let path = project::normalize(path);
        self.disk.remove(&path);
        if is_config(&path) {
            self.configs.clear();
            self.dirty.extend(self.docs.keys().cloned());
        } else {
            self.mark_dependents(&path);
        }
    }

    fn mark_dependents(&mut self, path: &Path) {
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

    // ------------------------------------------------------------ checking

    /// Re-checks the documents marked dirty and publishes what changed.
    fn flush(&mut self) {
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
    fn analyze(&mut self, uri: &lsp::Uri) -> Option<Analysis> {
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
        let config = match path.as_deref().and_then(Path::parent) {
            Some(dir) => match self.config(dir) {
                Ok(c) => c,
                Err(e) => {
                    project_errors.push(e);
                    None
                }
            },
            None => None,
        };
        let mut job = Job::default();
        let mut uris: Vec<Option<lsp::Uri>> = Vec::new();
        let name = path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| uri.as_str().to_string());
        let doc_id = job.sources.add_with_kind(name, text, kind);
        uris.push(Some(uri.clone()));
        let mut role = Role::Plan;
        if let Some(config) = &config {
            deps.push(config.path.clone());
            if let Some(p) = &path {
                if config.catalog.iter().any(|c| c == p) {
                    role = Role::Catalog;
                } else if config.policy.as_ref() == Some(p) {
                    role = Role::Policy;
                }
            }
            let files = config
                .catalog
                .iter()
                .map(|p| (p, Role::Catalog))
                .chain(config.policy.iter().map(|p| (p, Role::Policy)));
            for (dep, dep_role) in files {
                deps.push(dep.clone());
                if Some(dep) == path.as_ref() {
                    continue;
                }
                match self.read(dep) {
                    Ok((text, dep_uri)) => {
                        let id = job.sources.add(dep.display().to_string(), text);
                        uris.push(dep_uri);
                        match dep_role {
                            Role::Catalog => job.catalog.push(id),
                            _ => job.policy.push(id),
                        }
                    }
                    Err(e) => project_errors.push(e),
                }
            }
            job.actor = config.actor.clone();
        }
        match role {
            Role::Plan => job.plans.push(doc_id),
            Role::Catalog => job.catalog.push(doc_id),
            Role::Policy => job.policy.push(doc_id),
        }
        if let Some(actor) = &self.actor {
            job.actor = Some(actor.clone());
        }
        let mut a = Analysis::new(job, doc_id, uris, deps, project_errors);
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

    fn config(&mut self, dir: &Path) -> Result<Option<Config>, String> {
        if let Some(c) = self.configs.get(dir) {
            return c.clone();
        }
        // An open, edited `planc.toml` wins over the one on disk.
        let found = match self.open_config(dir) {
            Some(found) => found,
            None => project::discover(dir),
        };
        self.configs.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// The nearest `planc.toml` from `dir` up, when it is open in the editor.
    fn open_config(&self, dir: &Path) -> Option<Result<Option<Config>, String>> {
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

    fn doc_by_path(&self, path: &Path) -> Option<&Document> {
        self.docs.values().find(|d| d.path.as_deref() == Some(path))
    }

    /// The text of a catalogue or policy file, and its URI: the open
    /// document's when there is one, else the disk's (cached).
    fn read(&mut self, path: &Path) -> Result<(String, Option<lsp::Uri>), String> {
        if let Some(doc) = self.doc_by_path(path) {
            return Ok((doc.text.clone(), Some(doc.uri.clone())));
        }
        let text = self
            .disk
            .entry(path.to_path_buf())
            .or_insert_with(|| project::read_source(path))
            .clone()?;
        Ok((text, uri::from_path(path)))
    }

    /// Publishes the diagnostics of every URI whose set changed, and of the
    /// documents in `own` (just re-checked) in any case.
    fn publish_all(&mut self, own: &HashSet<lsp::Uri>) {
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

/// The error of a request that was understood but cannot be served (a
/// rename to an invalid name); its message is shown to the user.
pub(crate) struct Failure(pub String);

fn is_config(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == std::ffi::OsStr::new(project::CONFIG_FILE))
}

/// `{"actor": [...]}` or `{"planc": {"actor": [...]}}` from the editor's
/// settings.
fn settings_actor(settings: &serde_json::Value) -> Option<Vec<String>> {
    let actor = settings
        .get("planc")
        .and_then(|p| p.get("actor"))
        .or_else(|| settings.get("actor"))?;
    let scopes = actor.as_array()?;
    Some(
        scopes
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
    )
}
