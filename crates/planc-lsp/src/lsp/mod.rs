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
//!
//! This file holds the server's state and the dispatch of messages;
//! `transport.rs` the stdio framing, `workspace.rs` the open documents and
//! the files they depend on, re-checking and publishing.

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
mod transport;
pub mod uri;
mod workspace;

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;

use crate::project::Settings;
use crate::source::SourceKind;
use analysis::Analysis;
use transport::MALFORMED;

pub use transport::run_stdio;

/// Runs the server over a connection: the handshake, then messages until
/// `exit`. `Ok` after `shutdown` then `exit`; an error when the client
/// exits without `shutdown` or the connection breaks.
pub fn run(connection: &Connection) -> Result<(), String> {
    run_with(connection, Overrides::default())
}

/// What `planc lsp`'s flags say: catalogue files, a policy file and the
/// actor's scopes that replace those of every `planc.toml` (or stand in for
/// one), as `planc check`'s flags do (the one rule, in `project`). Paths
/// are absolute.
pub use crate::project::Overrides;

/// [`run`], with the command line's [`Overrides`].
pub fn run_with(connection: &Connection, overrides: Overrides) -> Result<(), String> {
    let params = handshake(connection)?;
    serve(
        &connection.receiver,
        Outbox::Channel(&connection.sender),
        &params,
        overrides,
    )
}

/// The `initialize` request, its answer and the client's `initialized`
/// notification, over `connection`: the client's parameters.
fn handshake(connection: &Connection) -> Result<lsp::InitializeParams, String> {
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
    Ok(params)
}

/// After the handshake: the client's messages from `receiver` until
/// `exit`, the server's to `out`.
fn serve(
    receiver: &Receiver<Message>,
    out: Outbox<'_>,
    params: &lsp::InitializeParams,
    overrides: Overrides,
) -> Result<(), String> {
    let mut server = Server::new(receiver, out, params);
    server.overrides = overrides;
    server.register_watchers();
    server.main_loop()
}

/// Where the server's messages go.
enum Outbox<'c> {
    /// A connection's sender: a test's end of an in-memory connection.
    Channel(&'c Sender<Message>),
    /// Standard output, written by the thread that sends (`planc lsp`):
    /// no hand-off to a writer thread between an edit's check and its
    /// diagnostics, which a busy machine may be slow to schedule.
    Stdout(std::io::Stdout),
}

fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(lsp::PositionEncodingKind::UTF16),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(
            lsp::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
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
    /// The client answers `workspace/configuration`.
    pub configuration: bool,
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
        let configuration = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.configuration)
            .unwrap_or(false);
        ClientCaps {
            snippets,
            markdown,
            watch,
            configuration,
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
    receiver: &'c Receiver<Message>,
    out: Outbox<'c>,
    pub(crate) docs: HashMap<lsp::Uri, Document>,
    /// Documents to re-check before the next request or when idle.
    dirty: HashSet<lsp::Uri>,
    /// The text of catalogue and policy files read from disk, or why they
    /// could not be read; dropped when the client reports a change.
    disk: HashMap<PathBuf, Result<Result<String, crate::project::NotUtf8>, String>>,
    /// The compilers built from each project's catalogue and policy, with
    /// what they were built from ([`workspace::CompilerKey`]).
    compilers: Vec<(workspace::CompilerKey, std::sync::Arc<crate::Compiler>)>,
    /// `planc.toml` found from each folder.
    configs: HashMap<PathBuf, Result<Settings, String>>,
    /// What was last published for each URI.
    published: HashMap<lsp::Uri, Vec<lsp::Diagnostic>>,
    pub(crate) caps: ClientCaps,
    /// The actor's scopes from the editor's settings (`initializationOptions`
    /// or `workspace/didChangeConfiguration`: `{"actor": [...]}`, possibly
    /// under a `planc` key, or, when that carries no settings, the client's
    /// answer to `workspace/configuration`); they replace those of
    /// `planc.toml`.
    actor: Option<Vec<String>>,
    /// `planc lsp`'s flags.
    overrides: Overrides,
    shutdown: bool,
    next_id: i32,
    /// The server's pending `workspace/configuration` request, if any.
    configuration_request: Option<RequestId>,
    /// Each code's explain page, as a file the editor can open.
    pub(crate) pages: HashMap<crate::Code, lsp::Uri>,
}

impl<'c> Server<'c> {
    fn new(
        receiver: &'c Receiver<Message>,
        out: Outbox<'c>,
        params: &lsp::InitializeParams,
    ) -> Server<'c> {
        Server {
            receiver,
            out,
            docs: HashMap::new(),
            dirty: HashSet::new(),
            disk: HashMap::new(),
            configs: HashMap::new(),
            compilers: Vec::new(),
            published: HashMap::new(),
            caps: ClientCaps::from(params),
            actor: params
                .initialization_options
                .as_ref()
                .and_then(settings_actor),
            overrides: Overrides::default(),
            shutdown: false,
            next_id: 0,
            configuration_request: None,
            pages: pages::write(),
        }
    }

    fn send(&self, msg: impl Into<Message>) {
        // A send fails only when the client is gone; the loop then ends
        // (the reader sees the end of the input).
        match &self.out {
            Outbox::Channel(sender) => {
                let _ = sender.send(msg.into());
            }
            Outbox::Stdout(stdout) => {
                let _ = msg.into().write(&mut stdout.lock());
            }
        }
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
        self.send_request::<lsp::request::RegisterCapability>(params);
    }

    /// Sends a request of the server's own; its id.
    fn send_request<R: lsp::request::Request>(&mut self, params: R::Params) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(format!("planc-{}", self.next_id));
        self.send(Request::new(id.clone(), R::METHOD.to_string(), params));
        id
    }

    /// The editor's settings changed. A client that sends them along is
    /// taken at its word; one that sends none (`null`, `{}`: VS Code
    /// without a synchronised section, and many other clients) is asked
    /// for the `planc` section when it can answer `workspace/configuration`.
    fn configuration_changed(&mut self, settings: &serde_json::Value) {
        let given = settings.get("planc").is_some() || settings.get("actor").is_some();
        if !given && self.caps.configuration {
            let params = lsp::ConfigurationParams {
                items: vec![lsp::ConfigurationItem {
                    scope_uri: None,
                    section: Some("planc".to_string()),
                }],
            };
            let id = self.send_request::<lsp::request::WorkspaceConfiguration>(params);
            self.configuration_request = Some(id);
            return;
        }
        self.set_actor(settings_actor(settings));
    }

    /// The client's answer to a request of the server's: the settings it
    /// was asked for are applied; an error is logged.
    fn response(&mut self, response: Response) {
        if self.configuration_request.as_ref() != Some(&response.id) {
            // The watcher registration's answer: nothing to do.
            return;
        }
        self.configuration_request = None;
        let result = match response.response_result {
            Ok(result) => result,
            Err(e) => {
                self.log_error(&format!(
                    "planc: the editor did not give its settings: {}",
                    e.message
                ));
                return;
            }
        };
        // One item was asked for: the `planc` section, `{"actor": [...]}`
        // (`null` when the editor has none).
        let section = result
            .as_array()
            .and_then(|items| items.first())
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        self.set_actor(settings_actor(&section));
    }

    /// The actor from the editor's settings; every document is checked
    /// again.
    fn set_actor(&mut self, actor: Option<Vec<String>>) {
        self.actor = actor;
        self.dirty.extend(self.docs.keys().cloned());
    }

    fn main_loop(&mut self) -> Result<(), String> {
        let receiver = self.receiver;
        for msg in receiver {
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
                    if receiver.is_empty() {
                        self.flush();
                    }
                }
                // Answers to the server's own requests.
                Message::Response(r) => {
                    self.response(r);
                    if receiver.is_empty() {
                        self.flush();
                    }
                }
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
                // `settings` may be `null` or missing: the client then
                // expects to be asked.
                let settings = n
                    .params
                    .get("settings")
                    .cloned()
                    .unwrap_or(serde_json::Value::Null);
                self.configuration_changed(&settings);
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
}

/// The error of a request that was understood but cannot be served (a
/// rename to an invalid name); its message is shown to the user.
pub(crate) struct Failure(pub String);

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
