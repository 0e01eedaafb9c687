//! The `mcp:COMMAND ARGS…` backend: an MCP client over stdio. It starts the
//! server, sends `initialize` and the `notifications/initialized`
//! notification, then one `tools/call` per dispatch.
//!
//! Why the framing is written here rather than taken from the official
//! Rust SDK (`rmcp`): the stdio transport is newline-delimited JSON-RPC,
//! about a hundred lines over std threads and channels, and `rmcp` brings
//! an async runtime (tokio) and its macros into a crate that has none; its
//! current release needs Rust 1.88 where planc builds with 1.85, and the
//! compile time it adds is paid by every build on a small machine. The
//! client needs four messages of the protocol, not the SDK's server side.
//!
//! - One reader thread routes responses to waiting calls by id, so calls
//!   from steps running together are in flight together (`parallel`).
//!   Requests from the server (`ping`) are answered; notifications ignored.
//! - Responses are read with the crate's JSON parser, so numbers in a
//!   result keep their exact text.
//! - A result's `structuredContent` is preferred; otherwise its text
//!   content, parsed as JSON when it is JSON, else the text itself.
//!   `isError: true` is a tool error (retryable: the tool ran and failed;
//!   only idempotent steps are retried anyway).
//! - Each call waits at most the timeout (`timeout`, retryable).
//! - A message is at most `max_message` bytes (`--max-message`, `[run]
//!   max_message`; 16 MiB by default), read into a buffer that grows no
//!   further: a longer line ends the connection. A message begun and not
//!   ended when a call times out ends it too: nothing is read after the
//!   deadline, and a server that never ends its line cannot hold memory or
//!   the run.
//! - The server dying fails every call in flight and every later call with
//!   `server_exited` (not retryable), with the end of its stderr: a tool
//!   error the progress record keeps, never a step silently lost.
//!
//! This module and the command line are the only parts of `exec` that
//! touch processes; the executor itself does no IO.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::data::Data;
use super::{Backend, Call, ToolError};
use crate::ir::TypeIr;

/// The protocol version the client asks for.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// The versions the client speaks: a server that answers `initialize`
/// with another is refused (the run does not start). Everything the
/// client reads is the same in these (`docs/catalogs.md`, "MCP
/// 2026-07-28").
pub const PROTOCOL_VERSIONS: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/// The most pages of `tools/list` read at start.
const MAX_TOOL_PAGES: usize = 100;

/// What the server's `tools/list` says of a tool, as the client checks
/// calls and results against it.
#[derive(Clone, Debug)]
struct ToolInfo {
    /// The declared type of `structuredContent` (`outputSchema`), read
    /// through planc's catalogue types; `Err` when planc cannot read the
    /// schema (then a result cannot be validated, and is refused).
    output: Option<Result<TypeIr, String>>,
    /// `execution.taskSupport: "required"`: the tool runs only as a task
    /// (the `io.modelcontextprotocol/tasks` extension), which this client
    /// does not support yet.
    task_only: bool,
}

/// The least time a server is given to answer `initialize`.
const INIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of the server's stderr is kept for messages.
const STDERR_TAIL: usize = 2048;

type Waiters = Arc<Mutex<HashMap<u64, Sender<Data>>>>;

/// A running MCP server.
pub struct Mcp {
    child: Mutex<Child>,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    waiters: Waiters,
    next_id: AtomicU64,
    dead: Arc<AtomicBool>,
    stderr: Arc<Mutex<Vec<u8>>>,
    timeout: Duration,
    command: String,
    /// When the message being read began (its first byte), while one is.
    reading_since: Arc<Mutex<Option<Instant>>>,
    /// Why the client ended the connection, when it did.
    broken: Arc<Mutex<Option<String>>>,
    /// The protocol version the server answered `initialize` with.
    protocol_version: String,
    /// The server's `serverInfo` (its name and version), as it gave it.
    server_info: Data,
    /// The tools the server lists, by name.
    tools: BTreeMap<String, ToolInfo>,
}

impl Mcp {
    /// Starts `program args…` and initialises the session. The error is a
    /// message for the user (the command fails: exit status 2).
    pub fn start(
        program: &str,
        args: &[String],
        timeout: Duration,
        max_message: usize,
    ) -> Result<Mcp, String> {
        let command = std::iter::once(program.to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the MCP server `{command}`: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(format!("cannot talk to the MCP server `{command}`"));
        };
        let mut mcp = Mcp {
            child: Mutex::new(child),
            stdin: Arc::new(Mutex::new(Some(stdin))),
            waiters: Arc::new(Mutex::new(HashMap::new())),
            next_id: AtomicU64::new(1),
            dead: Arc::new(AtomicBool::new(false)),
            stderr: Arc::new(Mutex::new(Vec::new())),
            timeout,
            command,
            reading_since: Arc::new(Mutex::new(None)),
            broken: Arc::new(Mutex::new(None)),
            protocol_version: String::new(),
            server_info: Data::Null,
            tools: BTreeMap::new(),
        };
        mcp.spawn_stderr(stderr);
        mcp.spawn_reader(stdout, max_message);
        let init = Data::parse_text(&format!(
            r#"{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"planc","version":"{}"}}}}"#,
            env!("CARGO_PKG_VERSION")
        ))?;
        // Starting a server (an interpreter, a package) may take longer than
        // one call is allowed.
        let answer = match mcp.request_within("initialize", init, timeout.max(INIT_TIMEOUT)) {
            Ok(answer) => answer,
            Err(e) => {
                return Err(format!(
                    "the MCP server `{}` did not initialise: {}",
                    mcp.command, e.message
                ));
            }
        };
        match answer.get("protocolVersion") {
            Some(Data::String(v)) if PROTOCOL_VERSIONS.contains(&v.as_str()) => {
                mcp.protocol_version = v.clone();
            }
            other => {
                return Err(format!(
                    "the MCP server `{}` answered protocol version {}, which this client does not speak (it speaks {})",
                    mcp.command,
                    other.map_or_else(|| "none".to_string(), Data::to_json_string),
                    PROTOCOL_VERSIONS.join(", ")
                ));
            }
        }
        mcp.server_info = answer.get("serverInfo").cloned().unwrap_or(Data::Null);
        mcp.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .map_err(|e| format!("the MCP server `{}`: {}", mcp.command, e.message))?;
        mcp.tools = mcp.list_tools().map_err(|e| {
            format!(
                "the MCP server `{}` did not list its tools: {} ({})",
                mcp.command, e.message, e.code
            )
        })?;
        Ok(mcp)
    }

    /// The protocol version negotiated with the server.
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// Every page of `tools/list`, each tool read as the catalogue reader
    /// reads one (unknown keys ignored, forward-compatibly).
    fn list_tools(&self) -> Result<BTreeMap<String, ToolInfo>, ToolError> {
        let mut out = BTreeMap::new();
        let mut cursor: Option<Data> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = match cursor.take() {
                Some(c) => Data::object([("cursor", c)]),
                None => Data::Object(BTreeMap::new()),
            };
            let page = self.request("tools/list", params)?;
            let Some(Data::Array(tools)) = page.get("tools") else {
                return Err(ToolError {
                    code: "bad_response".into(),
                    message: "the `tools/list` result has no `tools` list".into(),
                    retryable: false,
                });
            };
            for tool in tools {
                if let Some(Data::String(name)) = tool.get("name") {
                    out.insert(name.clone(), tool_info(tool));
                }
            }
            match page.get("nextCursor") {
                Some(c @ Data::String(_)) => cursor = Some(c.clone()),
                _ => return Ok(out),
            }
        }
        Err(ToolError {
            code: "bad_response".into(),
            message: format!("`tools/list` did not end within {MAX_TOOL_PAGES} pages"),
            retryable: false,
        })
    }

    fn spawn_stderr(&self, mut stderr: impl Read + Send + 'static) {
        let tail = Arc::clone(&self.stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(buf.get(..n).unwrap_or(&[]));
                    let excess = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..excess);
                }
            }
        });
    }

    fn spawn_reader(&self, stdout: impl Read + Send + 'static, max_message: usize) {
        let waiters = Arc::clone(&self.waiters);
        let dead = Arc::clone(&self.dead);
        let stdin = Arc::clone(&self.stdin);
        let since = Arc::clone(&self.reading_since);
        let broken = Arc::clone(&self.broken);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf: Vec<u8> = Vec::new();
            loop {
                match read_message(&mut reader, &mut buf, max_message, &since) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(why) => {
                        if let Ok(mut b) = broken.lock() {
                            b.get_or_insert(why);
                        }
                        break;
                    }
                }
                let Ok(line) = std::str::from_utf8(&buf) else {
                    continue; // not UTF-8: not a JSON-RPC message, skipped
                };
                let Ok(msg) = Data::parse_text(line.trim()) else {
                    continue; // not a JSON-RPC message: skipped
                };
                let id = msg.get("id").and_then(|i| match i {
                    Data::Number(n) => n.as_str().parse::<u64>().ok(),
                    _ => None,
                });
                if let Some(Data::String(method)) = msg.get("method") {
                    // A request from the server: answer a ping, refuse the rest.
                    if let Some(id) = msg.get("id") {
                        let reply = if method == "ping" {
                            format!(
                                r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#,
                                id.to_json_string()
                            )
                        } else {
                            format!(
                                r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32601,"message":"method not supported by this client"}}}}"#,
                                id.to_json_string()
                            )
                        };
                        if let Ok(mut w) = stdin.lock()
                            && let Some(w) = w.as_mut()
                        {
                            let _ = writeln!(w, "{reply}");
                            let _ = w.flush();
                        }
                    }
                    continue;
                }
                let Some(id) = id else { continue };
                let waiter = waiters.lock().ok().and_then(|mut w| w.remove(&id));
                if let Some(tx) = waiter {
                    let _ = tx.send(msg);
                }
            }
            // The server is gone (or the client ended the connection):
            // every call waiting fails now, every later call at once.
            dead.store(true, Ordering::SeqCst);
            drop(reader);
            if let Ok(mut w) = waiters.lock() {
                w.clear();
            }
        });
    }

    fn send(&self, line: &str) -> Result<(), ToolError> {
        let mut guard = self.stdin.lock().map_err(|_| self.exited())?;
        let Some(w) = guard.as_mut() else {
            return Err(self.exited());
        };
        writeln!(w, "{line}")
            .and_then(|()| w.flush())
            .map_err(|_| self.exited())
    }

    /// Sends a request and waits for its response's `result`.
    fn request(&self, method: &str, params: Data) -> Result<Data, ToolError> {
        self.request_within(method, params, self.timeout)
    }

    fn request_within(
        &self,
        method: &str,
        params: Data,
        timeout: Duration,
    ) -> Result<Data, ToolError> {
        if self.dead.load(Ordering::SeqCst) {
            return Err(self.exited());
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        if let Ok(mut w) = self.waiters.lock() {
            w.insert(id, tx);
        }
        // The reader marks the server dead before it drops the waiters: a
        // waiter added after that is dropped here.
        if self.dead.load(Ordering::SeqCst) {
            return Err(self.exited());
        }
        let mut msg = BTreeMap::new();
        msg.insert("jsonrpc".to_string(), Data::String("2.0".into()));
        msg.insert("id".to_string(), Data::from(id));
        msg.insert("method".to_string(), Data::String(method.into()));
        msg.insert("params".to_string(), params);
        self.send(&Data::Object(msg).to_json_string())?;
        let response = match rx.recv_timeout(timeout) {
            Ok(r) => r,
            Err(RecvTimeoutError::Timeout) => {
                if let Ok(mut w) = self.waiters.lock() {
                    w.remove(&id);
                }
                // A message begun and still not ended at the deadline: the
                // connection is in a state nobody can trust, and nothing
                // is read after the deadline.
                let stalled = self.reading_since.lock().ok().and_then(|s| *s);
                if stalled.is_some() {
                    self.abort(format!(
                        "a message from the server did not end within {} s",
                        timeout.as_secs_f64()
                    ));
                }
                let _ = self.send(&format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"timeout"}}}}"#
                ));
                return Err(ToolError {
                    code: "timeout".into(),
                    message: format!(
                        "no response to `{method}` within {} s",
                        timeout.as_secs_f64()
                    ),
                    retryable: true,
                });
            }
            Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
        };
        if let Some(err) = response.get("error") {
            let code = match err.get("code") {
                Some(Data::Number(n)) => n.to_string(),
                _ => "?".to_string(),
            };
            let message = match err.get("message") {
                Some(Data::String(s)) => s.clone(),
                _ => err.to_json_string(),
            };
            return Err(ToolError {
                code: format!("jsonrpc_{code}"),
                message,
                retryable: false,
            });
        }
        response.get("result").cloned().ok_or_else(|| ToolError {
            code: "bad_response".into(),
            message: format!("the response to `{method}` has neither `result` nor `error`"),
            retryable: false,
        })
    }

    /// Ends the connection: the server is killed, so the reader sees the
    /// end of its output and stops.
    fn abort(&self, why: String) {
        if let Ok(mut b) = self.broken.lock() {
            b.get_or_insert(why);
        }
        self.dead.store(true, Ordering::SeqCst);
        if let Ok(mut c) = self.child.lock() {
            let _ = c.kill();
        }
    }

    fn exited(&self) -> ToolError {
        if let Some(why) = self.broken.lock().ok().and_then(|b| b.clone()) {
            if let Ok(mut c) = self.child.lock() {
                let _ = c.kill();
            }
            return ToolError {
                code: "server_exited".into(),
                message: format!(
                    "the connection to the MCP server `{}` was ended: {why}",
                    self.command
                ),
                retryable: false,
            };
        }
        // Give the stderr reader a moment to catch the last words.
        std::thread::sleep(Duration::from_millis(50));
        let status = self
            .child
            .lock()
            .ok()
            .and_then(|mut c| c.try_wait().ok().flatten())
            .map(|s| format!(" ({s})"))
            .unwrap_or_default();
        let tail = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_string())
            .unwrap_or_default();
        let said = tail
            .lines()
            .last()
            .map(|l| format!("; its last words: {l}"))
            .unwrap_or_default();
        ToolError {
            code: "server_exited".into(),
            message: format!("the MCP server `{}` exited{status}{said}", self.command),
            retryable: false,
        }
    }
}

/// Reads one message (a line, without its newline) into `buf`, at most
/// `max` bytes: `Ok(false)` at the end of the output, `Err` with the reason
/// for a longer line or a read error. `since` holds when the message began
/// while it is being read.
fn read_message(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    since: &Mutex<Option<Instant>>,
) -> Result<bool, String> {
    buf.clear();
    let mark = |at: Option<Instant>| {
        if let Ok(mut s) = since.lock() {
            *s = at;
        }
    };
    loop {
        let available = match reader.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                mark(None);
                return Err(format!("cannot read from the server: {e}"));
            }
        };
        if available.is_empty() {
            mark(None);
            return Ok(false);
        }
        if buf.is_empty() {
            mark(Some(Instant::now()));
        }
        let (take, ends) = match memchr::memchr(b'\n', available) {
            Some(i) => (i, true),
            None => (available.len(), false),
        };
        if buf.len().saturating_add(take) > max {
            mark(None);
            return Err(format!("the server sent a message over {max} bytes"));
        }
        buf.extend_from_slice(available.get(..take).unwrap_or_default());
        reader.consume(if ends { take + 1 } else { take });
        if ends {
            mark(None);
            return Ok(true);
        }
    }
}

/// The value of a `tools/call` result: `structuredContent`, else the text
/// content (as JSON when it parses), else the content list itself.
pub fn result_value(result: &Data) -> Result<Data, ToolError> {
    let text = match result.get("content") {
        Some(Data::Array(items)) => {
            let texts: Vec<&str> = items
                .iter()
                .filter(|i| matches!(i.get("type"), Some(Data::String(t)) if t == "text"))
                .filter_map(|i| match i.get("text") {
                    Some(Data::String(s)) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    };
    if matches!(result.get("isError"), Some(Data::Bool(true))) {
        return Err(ToolError {
            code: "tool_error".into(),
            message: text.unwrap_or_else(|| "the tool reported an error".into()),
            retryable: true,
        });
    }
    if let Some(structured) = result.get("structuredContent") {
        return Ok(structured.clone());
    }
    match text {
        Some(t) => Ok(Data::parse_text(&t).unwrap_or(Data::String(t))),
        None => Ok(result.get("content").cloned().unwrap_or(Data::Null)),
    }
}

/// A tool of `tools/list`: whether it runs only as a task, and its
/// `outputSchema` read as the catalogue reader reads one (the same types,
/// the same JSON Schema mapping: `docs/catalogs.md`), alone, so that a
/// schema planc cannot map is told apart from the rest of the entry.
fn tool_info(tool: &Data) -> ToolInfo {
    let task_only = matches!(
        tool.get("execution").and_then(|e| e.get("taskSupport")),
        Some(Data::String(s)) if s == "required"
    );
    let output = tool.get("outputSchema").map(|schema| {
        let entry = Data::object([(
            "tools",
            Data::Array(vec![Data::object([
                ("name", "output".into()),
                ("inputSchema", Data::object([("type", "object".into())])),
                ("outputSchema", schema.clone()),
            ])]),
        )]);
        let (module, diags) =
            crate::syntax::read_json_catalog(crate::FileId::default(), &entry.to_json_string());
        let mut more = Vec::new();
        let catalog = crate::catalog::Catalog::build(module.tools(), &mut more);
        match catalog.get("output") {
            Some(t) if t.degraded.is_none() && !diags.iter().any(|d| d.is_error()) => {
                Ok(crate::ir::type_ir(&t.result))
            }
            _ => Err(diags
                .iter()
                .chain(&more)
                .map(|d| d.message.clone())
                .next()
                .unwrap_or_else(|| "its outputSchema could not be read".into())),
        }
    });
    ToolInfo { output, task_only }
}

/// A result that asks the client for more input before it can answer
/// (MCP 2026-07-28 `input_required`): a plan cannot give any, so the step
/// fails. Read by its tag, or by either field such a result must carry.
fn input_required(result: &Data) -> bool {
    matches!(result.get("resultType"), Some(Data::String(t)) if t == "input_required")
        || result.get("inputRequests").is_some()
        || result.get("requestState").is_some()
}

/// `structuredContent` against the tool's `outputSchema` (MCP: a client
/// should validate it), before the machine sees it: a result outside it is
/// `result_type`, never bound. A tool that declares an output schema and
/// answers without `structuredContent`, or one whose schema planc cannot
/// read, is refused too (fail closed).
fn validate(tool: &str, info: &ToolInfo, result: &Data) -> Result<(), ToolError> {
    let refuse = |message: String| ToolError {
        code: ToolError::RESULT_TYPE.into(),
        message,
        retryable: false,
    };
    match &info.output {
        None => Ok(()),
        Some(Err(why)) => Err(refuse(format!(
            "the outputSchema of `{tool}` could not be read ({why}): its result cannot be validated"
        ))),
        Some(Ok(ty)) => match result.get("structuredContent") {
            Some(structured) => super::types::check(ty, structured).map_err(|m| {
                refuse(format!(
                    "the result of `{tool}` is outside its outputSchema: {}",
                    m.describe()
                ))
            }),
            None => Err(refuse(format!(
                "`{tool}` declares an outputSchema but its result has no structuredContent"
            ))),
        },
    }
}

impl Backend for Mcp {
    fn call(&self, call: &Call<'_>) -> Result<Data, ToolError> {
        let Some(info) = self.tools.get(call.tool()) else {
            return Err(ToolError {
                code: "unknown_tool".into(),
                message: format!(
                    "the MCP server `{}` does not list a tool `{}`",
                    self.command,
                    call.tool()
                ),
                retryable: false,
            });
        };
        if info.task_only {
            return Err(ToolError {
                code: "task_required".into(),
                message: format!(
                    "`{}` runs only as a task (`execution.taskSupport: \"required\"`, the MCP tasks extension), which planc does not support yet: it was not called",
                    call.tool()
                ),
                retryable: false,
            });
        }
        let mut params = BTreeMap::new();
        params.insert("name".to_string(), Data::String(call.tool().to_string()));
        params.insert("arguments".to_string(), call.args_data());
        if let Some(key) = call.idempotency_key {
            params.insert(
                "_meta".to_string(),
                Data::object([("idempotency_key", key.into())]),
            );
        }
        let result = self.request("tools/call", Data::Object(params))?;
        if input_required(&result) {
            return Err(ToolError {
                code: "input_required".into(),
                message: format!(
                    "`{}` asked for more input (`input_required`), which a plan cannot give: the step fails",
                    call.tool()
                ),
                retryable: false,
            });
        }
        let value = result_value(&result)?;
        validate(call.tool(), info, &result)?;
        Ok(value)
    }

    fn session(&self) -> Option<Data> {
        Some(Data::object([
            ("protocol_version", self.protocol_version.as_str().into()),
            ("server", self.server_info.clone()),
        ]))
    }

    fn parallel(&self) -> bool {
        true
    }
}

impl Drop for Mcp {
    /// Closes the server's stdin (the protocol's way to end a session),
    /// gives it a moment, then kills it.
    fn drop(&mut self) {
        if let Ok(mut w) = self.stdin.lock() {
            w.take();
        }
        if let Ok(mut child) = self.child.lock() {
            for _ in 0..20 {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results() {
        let r = |s: &str| result_value(&Data::parse_text(s).unwrap());
        assert_eq!(
            r(r#"{"content":[{"type":"text","text":"{\"a\": 1.50}"}],"structuredContent":{"b":2}}"#)
                .unwrap()
                .to_json_string(),
            r#"{"b":2}"#
        );
        assert_eq!(
            r(r#"{"content":[{"type":"text","text":"{\"a\": 1.50}"}]}"#)
                .unwrap()
                .to_json_string(),
            r#"{"a":1.50}"#
        );
        assert_eq!(
            r(r#"{"content":[{"type":"text","text":"hello"}]}"#).unwrap(),
            Data::String("hello".into())
        );
        let e =
            r(r#"{"content":[{"type":"text","text":"no such file"}],"isError":true}"#).unwrap_err();
        assert_eq!(e.message, "no such file");
    }

    #[test]
    fn input_required_is_told_by_its_tag_or_its_fields() {
        let d = |s: &str| Data::parse_text(s).unwrap();
        assert!(input_required(&d(
            r#"{"resultType":"input_required","requestState":"s"}"#
        )));
        assert!(input_required(&d(r#"{"inputRequests":{"a":{}}}"#)));
        assert!(!input_required(&d(
            r#"{"content":[],"resultType":"complete"}"#
        )));
    }

    #[test]
    fn structured_content_is_validated_against_the_listed_output_schema() {
        let d = |s: &str| Data::parse_text(s).unwrap();
        let info = tool_info(&d(r#"{"name":"t","inputSchema":{"type":"object"},
            "outputSchema":{"type":"object","properties":{"status":{"enum":["open","closed"]},
            "amount":{"type":"number"}},"required":["status"]},
            "execution":{"taskSupport":"optional"},"x-future":{"a":1}}"#));
        assert!(!info.task_only);
        let ok = d(r#"{"content":[],"structuredContent":{"status":"open","amount":1.50}}"#);
        assert!(validate("t", &info, &ok).is_ok());
        let lie = d(r#"{"content":[],"structuredContent":{"status":"escalated"}}"#);
        let e = validate("t", &info, &lie).unwrap_err();
        assert_eq!(e.code, ToolError::RESULT_TYPE);
        assert!(
            e.message.contains("`$.status` is \"escalated\""),
            "{}",
            e.message
        );
        let text_only = d(r#"{"content":[{"type":"text","text":"{}"}]}"#);
        assert!(validate("t", &info, &text_only).is_err());
        // No output schema: nothing to validate.
        let none = tool_info(&d(r#"{"name":"t","inputSchema":{"type":"object"}}"#));
        assert!(validate("t", &none, &text_only).is_ok());
        // Only as a task.
        let task = tool_info(&d(
            r#"{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}"#,
        ));
        assert!(task.task_only);
    }
}
