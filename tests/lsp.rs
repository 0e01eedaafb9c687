//! The language server in process, through `Connection::memory()`: each
//! feature, pinned to the code and the text under each range (computed here
//! from UTF-16 positions independently of the server's conversion).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

#[path = "support/big.rs"]
mod big;
use big::{POLICY, TOOLS, big_plan};

const TIMEOUT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------- harness

/// A folder with `planc.toml`, `tools.plan` and `policy.plan`, removed on drop.
struct Project {
    dir: PathBuf,
}

impl Project {
    fn new() -> Project {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "planc-lsp-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = Project { dir };
        p.write(
            "planc.toml",
            "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
        );
        p.write("tools.plan", TOOLS);
        p.write("policy.plan", POLICY);
        p
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir.join(name), text).unwrap();
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn uri(&self, name: &str) -> String {
        uri_of(&self.path(name))
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn uri_of(path: &Path) -> String {
    planc::lsp::uri::from_path(path)
        .unwrap()
        .as_str()
        .to_string()
}

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), String>>>,
    next_id: i32,
    /// Notifications and server requests received while waiting for
    /// something else.
    inbox: Vec<Message>,
    init: Value,
}

impl Client {
    fn start() -> Client {
        Client::start_with(json!({
            "textDocument": {
                "completion": { "completionItem": { "snippetSupport": false } },
                "hover": { "contentFormat": ["markdown", "plaintext"] }
            },
            "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } }
        }))
    }

    fn start_with(capabilities: Value) -> Client {
        let (server_side, client_side) = Connection::memory();
        let server = std::thread::spawn(move || planc::lsp::run(&server_side));
        let mut c = Client {
            conn: client_side,
            server: Some(server),
            next_id: 0,
            inbox: Vec::new(),
            init: Value::Null,
        };
        c.init = c
            .request(
                "initialize",
                json!({ "processId": null, "rootUri": null, "capabilities": capabilities }),
            )
            .unwrap();
        c.notify("initialized", json!({}));
        c
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .unwrap();
    }

    fn recv(&mut self) -> Message {
        self.conn
            .receiver
            .recv_timeout(TIMEOUT)
            .expect("the server did not answer in time")
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, lsp_server::ResponseError> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .unwrap();
        loop {
            match self.recv() {
                Message::Response(Response {
                    id: rid,
                    response_result,
                }) if rid == id => return response_result,
                other => self.inbox.push(other),
            }
        }
    }

    fn ok(&mut self, method: &str, params: Value) -> Value {
        match self.request(method, params) {
            Ok(v) => v,
            Err(e) => panic!("`{method}` failed: {} ({})", e.message, e.code),
        }
    }

    fn open(&self, uri: &str, text: &str) {
        let lang = if uri.ends_with(".json") {
            "json"
        } else {
            "planc"
        };
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": lang, "version": 1, "text": text } }),
        );
    }

    fn change(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }]
            }),
        );
    }

    /// Replaces bytes `from..to` of `text`, the document's text, with
    /// `with`: a change with a range, in lines and UTF-16 columns.
    fn change_range(
        &self,
        uri: &str,
        version: i32,
        text: &str,
        from: usize,
        to: usize,
        with: &str,
    ) {
        let position = |at: usize| {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            json!({
                "line": text[..at].matches('\n').count(),
                "character": text[line_start..at].encode_utf16().count(),
            })
        };
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{
                    "range": { "start": position(from), "end": position(to) },
                    "text": with,
                }]
            }),
        );
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let found = |m: &Message| match m {
            Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri =>
            {
                Some(n.params["diagnostics"].as_array().unwrap().clone())
            }
            _ => None,
        };
        if let Some(i) = self.inbox.iter().position(|m| found(m).is_some()) {
            let m = self.inbox.remove(i);
            return found(&m).unwrap();
        }
        loop {
            let m = self.recv();
            if let Some(d) = found(&m) {
                return d;
            }
            self.inbox.push(m);
        }
    }

    /// Diagnostics for `uri` published for `version`, skipping older ones.
    fn diagnostics_at(&mut self, uri: &str, version: i32) -> Vec<Value> {
        loop {
            let found = self.inbox.iter().position(|m| {
                matches!(m, Message::Notification(n)
                    if n.method == "textDocument/publishDiagnostics"
                        && n.params["uri"] == uri
                        && n.params["version"] == version)
            });
            if let Some(i) = found {
                let Message::Notification(n) = self.inbox.remove(i) else {
                    unreachable!()
                };
                return n.params["diagnostics"].as_array().unwrap().clone();
            }
            let m = self.recv();
            self.inbox.push(m);
        }
    }

    fn shutdown(mut self) {
        assert_eq!(self.ok("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let server = self.server.take().unwrap();
        assert_eq!(server.join().unwrap(), Ok(()));
    }
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The errors and warnings, without the notes (the plans here change a
/// plan, which needs approval: N0301).
fn problems(diags: &[Value]) -> Vec<Value> {
    diags
        .iter()
        .filter(|d| d["severity"] != 3)
        .cloned()
        .collect()
}

/// The codes of the errors.
fn errors(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d["severity"] == 1)
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The byte offset of a UTF-16 position, counted here independently.
fn offset_of(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let col = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        start += text[start..].find('\n').unwrap() + 1;
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= col || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The text a range covers.
fn under<'t>(text: &'t str, range: &Value) -> &'t str {
    &text[offset_of(text, &range["start"])..offset_of(text, &range["end"])]
}

/// The UTF-16 position of the `nth` occurrence of `needle`, plus `delta`
/// characters.
fn pos(text: &str, needle: &str, nth: usize, delta: usize) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {needle:?} #{nth}"))
        .0;
    let at = at
        + text[at..]
            .chars()
            .take(delta)
            .map(char::len_utf8)
            .sum::<usize>();
    let line = text[..at].matches('\n').count();
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[line_start..at].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": character })
}

fn at(uri: &str, position: Value) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position })
}

// ---------------------------------------------------------------- the plans

/// The "done when" plan: `acount_id` is misspelt (E0105) and the credit is a
/// literal 4,180 EUR under a 500 EUR ceiling (E0303).
const CREDIT: &str = r#"plan credit "credit the customer" {
    step resolve = customer.resolve(email: "a.kohl@northwind-traders.co.uk") {
        post len($.results) == 1
        bind account_id = $.results[0].id
    }
    step credit = billing.issue_credit(account_id: acount_id, amount_eur: 4180, reason: "prorated downgrade") {
        post exists($.credit_id)
    }
}
"#;

const GOOD: &str = r#"plan downgrade "downgrade at end of period" {
    step resolve = customer.resolve(email: "a.kohl@northwind-traders.co.uk") {
        post len($.results) == 1
        bind account_id = $.results[0].id
    }
    step subscription = billing.get_subscription(account_id: account_id, as_of: 2026-03-04) {
        post $.commitment in ["none", "monthly"]
        bind sub_id = $.id
        bind period_end = $.current_period_end
    }
    step change = billing.change_plan(subscription_id: sub_id, plan: "starter", effective: period_end) {
        post $.status == "scheduled"
        on_unmet halt
    }
    step confirm = email.send(to: "a.kohl@northwind-traders.co.uk", template: "confirm",
                              facts: { plan: "starter", effective: period_end }) {
        post exists($.message_id)
        after change
    }
}
"#;

// ---------------------------------------------------------------- tests

#[test]
fn initialize_announces_the_features() {
    let c = Client::start();
    let caps = &c.init["capabilities"];
    assert_eq!(c.init["serverInfo"]["name"], "planc");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["positionEncoding"], "utf-16");
    for key in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "documentSymbolProvider",
        "workspaceSymbolProvider",
        "documentFormattingProvider",
    ] {
        assert_eq!(caps[key], true, "{key}");
    }
    assert_eq!(caps["renameProvider"]["prepareProvider"], true);
    assert_eq!(
        caps["signatureHelpProvider"]["triggerCharacters"],
        json!(["(", ","])
    );
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert!(
        caps["completionProvider"]["triggerCharacters"]
            .as_array()
            .unwrap()
            .contains(&json!("."))
    );
    c.shutdown();
}

#[test]
fn misspelt_binding_and_ceiling_then_the_fix_clears_only_e0105() {
    let p = Project::new();
    let uri = p.uri("credit.plan");
    let mut c = Client::start();
    c.open(&uri, CREDIT);
    let all = c.diagnostics(&uri);
    // `account_id` is bound and, misspelt, unused; but the E0105 suggests
    // it, so no W0403 repeats that one mistake.
    assert_eq!(codes(&all), ["E0105", "E0303"], "{all:#?}");
    let d = &all[..];
    assert_eq!(errors(d), ["E0105", "E0303"]);
    assert_eq!(under(CREDIT, &d[0]["range"]), "acount_id");
    assert_eq!(under(CREDIT, &d[1]["range"]), "4180");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["source"], "planc");
    assert!(d[0]["message"].as_str().unwrap().contains("`acount_id`"));
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains("help: did you mean `account_id`?"),
        "{}",
        d[0]["message"]
    );
    assert_eq!(d[0]["data"]["title"], "reference to a name no step binds");
    // The code links to its explain page, written out as a file.
    for (d, code) in d.iter().zip([planc::Code::E0105, planc::Code::E0303]) {
        let href = d["codeDescription"]["href"].as_str().unwrap();
        assert!(href.starts_with("file://") && href.ends_with(&format!("/{code}.md")));
        let path = planc::lsp::uri::to_path(&href.parse().unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            planc::diagnostics::explain::page(code)
        );
    }
    // E0303 shows the ceiling's source, in the policy file.
    let related = d[1]["relatedInformation"].as_array().unwrap();
    let ceiling = related
        .iter()
        .find(|r| r["location"]["uri"] == p.uri("policy.plan"))
        .expect("the ceiling's location");
    assert!(under(POLICY, &ceiling["location"]["range"]).contains("500"));

    let fixed = CREDIT.replace("acount_id", "account_id");
    c.change(&uri, 2, &fixed);
    let d = c.diagnostics_at(&uri, 2);
    assert_eq!(codes(&d), ["E0303"]);
    assert_eq!(under(&fixed, &d[0]["range"]), "4180");
    c.shutdown();
}

#[test]
fn a_valid_edit_clears_the_diagnostics() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, &GOOD.replace("email.send", "email.sned"));
    let d = c.diagnostics(&uri);
    assert_eq!(codes(&problems(&d)), ["E0101"]);
    c.change(&uri, 2, GOOD);
    assert_eq!(problems(&c.diagnostics_at(&uri, 2)), Vec::<Value>::new());
    c.shutdown();
}

#[test]
fn notes_and_warnings_are_mapped() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    // `change_plan` needs approval (N0301); `sub_id` bound and never used
    // (W0403).
    let text = GOOD.replace(
        "bind sub_id = $.id\n",
        "bind sub_id = $.id\n        bind spare = $.id\n",
    );
    c.open(&uri, &text);
    let d = c.diagnostics(&uri);
    let w = d.iter().find(|d| d["code"] == "W0403").expect("W0403");
    assert_eq!(w["severity"], 2);
    assert_eq!(w["tags"], json!([1]), "unused is tagged unnecessary");
    assert_eq!(under(&text, &w["range"]), "spare");
    let n = d.iter().find(|d| d["code"] == "N0301").expect("N0301");
    assert_eq!(n["severity"], 3, "a note is information");
    c.shutdown();
}

#[test]
fn hover_shows_tools_bindings_and_arguments() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);

    // (name, the cursor: needle, nth, delta, what the hover shows: the text
    // it contains and the text its range covers; `None` for no hover.)
    type Shown<'a> = Option<(&'a [&'a str], Option<&'a str>)>;
    let cases: [(&str, (&str, usize, usize), Shown); 6] = [
        (
            "a tool",
            ("customer.resolve", 0, 3),
            Some((
                &[
                    "customer.resolve(email: string, include_children: bool = false)",
                    "`read` · idempotent",
                    "Finds customer accounts by a contact's email address.",
                    "requires `crm:read`",
                ],
                Some("customer.resolve"),
            )),
        ),
        (
            "a reference: its type and the step that binds it",
            ("effective: period_end)", 0, 13),
            Some((
                &[
                    "bind period_end: date",
                    "bound by step `subscription` from `$.current_period_end`",
                ],
                Some("period_end"),
            )),
        ),
        (
            "an argument: the parameter's type",
            ("plan: \"starter\"", 0, 1),
            Some((
                &[
                    "plan: \"starter\" | \"pro\"",
                    "parameter of `billing.change_plan`",
                ],
                None,
            )),
        ),
        (
            "an untrusted write tool says so",
            ("email.send", 0, 0),
            Some((&["`write` · not idempotent"], None)),
        ),
        (
            "nothing under the cursor: null",
            ("\"downgrade at", 0, 3),
            None,
        ),
        (
            "a `post` path: the type at it in the tool's result",
            ("$.status == \"scheduled\"", 0, 4),
            Some((
                &["$.status: ", "in the result of `billing.change_plan`"],
                Some("$.status"),
            )),
        ),
    ];
    for (name, (needle, nth, delta), shown) in cases {
        let h = c.ok(
            "textDocument/hover",
            at(&uri, pos(GOOD, needle, nth, delta)),
        );
        let Some((wants, range)) = shown else {
            assert_eq!(h, Value::Null, "{name}");
            continue;
        };
        let v = h["contents"]["value"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {h}"));
        for want in wants {
            assert!(v.contains(want), "{name}: {want}: {v}");
        }
        if let Some(range) = range {
            assert_eq!(under(GOOD, &h["range"]), range, "{name}");
        }
    }
    c.shutdown();
}

/// A `pre` path starts at a binding: hover shows the type at the path and
/// where the binding comes from; definition goes to its `bind`.
#[test]
fn pre_paths_hover_with_their_type_and_lead_to_their_binding() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    let text = GOOD.replace(
        "        post $.status == \"scheduled\"",
        "        pre period_end >= 2026-01-01\n        post $.status == \"scheduled\"",
    );
    c.open(&uri, &text);
    c.diagnostics(&uri);
    let h = c.ok(
        "textDocument/hover",
        at(&uri, pos(&text, "period_end >=", 0, 3)),
    );
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.contains("period_end: date"), "{v}");
    assert!(
        v.contains("`period_end` is bound by step `subscription` from `$.current_period_end`"),
        "{v}"
    );
    assert_eq!(under(&text, &h["range"]), "period_end");
    let d = c.ok(
        "textDocument/definition",
        at(&uri, pos(&text, "period_end >=", 0, 3)),
    );
    assert_eq!(d["range"]["start"], pos(&text, "bind period_end", 0, 5));
    c.shutdown();
}

#[test]
fn definition_of_references_tools_and_after_targets() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);

    // (name, the cursor in GOOD: needle, nth, delta, the target's file when
    // checked, its text, where the target starts there: needle, nth, and
    // the text the target's range covers when checked.)
    type Case<'a> = (
        &'a str,
        (&'a str, usize, usize),
        Option<&'a str>,
        &'a str,
        (&'a str, usize),
        Option<&'a str>,
    );
    let cases: [Case; 4] = [
        (
            "a reference goes to its `bind`",
            ("sub_id", 1, 0),
            Some("plan.plan"),
            GOOD,
            ("sub_id", 0),
            Some("sub_id"),
        ),
        (
            "a tool goes to its declaration in the catalogue",
            ("billing.change_plan", 0, 8),
            Some("tools.plan"),
            TOOLS,
            ("billing.change_plan", 0),
            Some("billing.change_plan"),
        ),
        (
            "an `after` target goes to its step",
            ("after change", 0, 7),
            None,
            GOOD,
            ("change =", 0),
            None,
        ),
        (
            "a reference inside a record",
            ("effective: period_end }", 0, 12),
            None,
            GOOD,
            ("period_end =", 0),
            None,
        ),
    ];
    for (name, (needle, nth, delta), file, target, (start, start_nth), covers) in cases {
        let d = c.ok(
            "textDocument/definition",
            at(&uri, pos(GOOD, needle, nth, delta)),
        );
        if let Some(file) = file {
            assert_eq!(d["uri"], p.uri(file), "{name}");
        }
        assert_eq!(
            d["range"]["start"],
            pos(target, start, start_nth, 0),
            "{name}"
        );
        if let Some(covers) = covers {
            assert_eq!(under(target, &d["range"]), covers, "{name}");
        }
    }
    c.shutdown();
}

#[test]
fn definition_into_a_json_catalogue() {
    let p = Project::new();
    p.write(
        "planc.toml",
        "catalog = [\"mcp.json\"]\npolicy = \"policy.plan\"\n",
    );
    let mcp = r#"{"tools": [
  {"name": "customer.resolve", "description": "Finds accounts.",
   "inputSchema": {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
   "outputSchema": {"type": "object", "properties": {"results": {"type": "array", "items": {"type": "string"}}}, "required": ["results"]},
   "annotations": {"readOnlyHint": true, "idempotentHint": true}}
]}"#;
    p.write("mcp.json", mcp);
    let uri = p.uri("plan.plan");
    let text = "plan p \"g\" {\n    step r = customer.resolve(email: \"a@b.c\") {\n        post len($.results) == 1\n    }\n}\n";
    let mut c = Client::start();
    c.open(&uri, text);
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());
    let d = c.ok(
        "textDocument/definition",
        at(&uri, pos(text, "customer.resolve", 0, 2)),
    );
    assert_eq!(d["uri"], p.uri("mcp.json"));
    assert_eq!(under(mcp, &d["range"]), "customer.resolve");
    c.shutdown();
}

#[test]
fn references_of_a_binding_a_step_and_a_tool() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);

    let params = |position: Value, decl: bool| {
        let mut v = at(&uri, position);
        v["context"] = json!({ "includeDeclaration": decl });
        v
    };
    let r = c.ok(
        "textDocument/references",
        params(pos(GOOD, "period_end", 0, 1), true),
    );
    let r = r.as_array().unwrap();
    assert_eq!(r.len(), 3, "{r:#?}");
    assert!(r.iter().all(|l| under(GOOD, &l["range"]) == "period_end"));
    let r = c.ok(
        "textDocument/references",
        params(pos(GOOD, "period_end", 0, 1), false),
    );
    assert_eq!(r.as_array().unwrap().len(), 2);

    let r = c.ok(
        "textDocument/references",
        params(pos(GOOD, "change =", 0, 1), true),
    );
    let r = r.as_array().unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[1]["range"]["start"], pos(GOOD, "after change", 0, 6));

    // A tool: its declaration, the policy's rule and the step.
    let r = c.ok(
        "textDocument/references",
        params(pos(GOOD, "email.send", 0, 1), true),
    );
    let mut uris: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["uri"].as_str().unwrap())
        .collect();
    uris.sort();
    let mut want = vec![uri.clone(), p.uri("policy.plan"), p.uri("tools.plan")];
    want.sort();
    assert_eq!(uris, want);
    c.shutdown();
}

#[test]
fn rename_bindings_and_steps_and_refuse_bad_names() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);

    let prep = c.ok(
        "textDocument/prepareRename",
        at(&uri, pos(GOOD, "sub_id", 1, 2)),
    );
    assert_eq!(prep["placeholder"], "sub_id");
    assert_eq!(under(GOOD, &prep["range"]), "sub_id");

    let mut params = at(&uri, pos(GOOD, "sub_id", 1, 2));
    params["newName"] = json!("subscription_id_value");
    let edit = c.ok("textDocument/rename", params);
    let edits = edit["changes"][&uri].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    let mut renamed = GOOD.to_string();
    let mut ranges: Vec<(usize, usize)> = edits
        .iter()
        .map(|e| {
            assert_eq!(e["newText"], "subscription_id_value");
            (
                offset_of(GOOD, &e["range"]["start"]),
                offset_of(GOOD, &e["range"]["end"]),
            )
        })
        .collect();
    ranges.sort();
    for (a, b) in ranges.into_iter().rev() {
        renamed.replace_range(a..b, "subscription_id_value");
    }
    assert_eq!(renamed, GOOD.replace("sub_id", "subscription_id_value"));
    c.change(&uri, 2, &renamed);
    assert_eq!(problems(&c.diagnostics_at(&uri, 2)), Vec::<Value>::new());

    // A step: its name and the `after` that names it.
    let mut params = at(&uri, pos(&renamed, "after change", 0, 8));
    params["newName"] = json!("downgrade");
    let edit = c.ok("textDocument/rename", params);
    let edits = edit["changes"][&uri].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    assert!(
        edits
            .iter()
            .all(|e| under(&renamed, &e["range"]) == "change")
    );

    // Refused: not a name, a name taken, a tool.
    for (new, why) in [
        ("2fast", "is not a valid name"),
        ("true", "is not a valid name"),
        ("period_end", "already has a binding named `period_end`"),
    ] {
        let mut params = at(&uri, pos(&renamed, "account_id", 0, 1));
        params["newName"] = json!(new);
        let e = c.request("textDocument/rename", params).unwrap_err();
        assert!(e.message.contains(why), "{new}: {}", e.message);
    }
    let e = c
        .request(
            "textDocument/prepareRename",
            at(&uri, pos(&renamed, "email.send", 0, 1)),
        )
        .unwrap_err();
    assert!(
        e.message.contains("only steps and bindings"),
        "{}",
        e.message
    );
    c.shutdown();
}

/// Sends `text` as version `version` of the document, less its first `|`,
/// and asks `method` with the cursor where the `|` was.
fn ask_at_marker(c: &mut Client, uri: &str, version: i32, text: &str, method: &str) -> Value {
    let at_cursor = pos(text, "|", 0, 0);
    let text = text.replacen('|', "", 1);
    c.change(uri, version, &text);
    c.ok(method, at(uri, at_cursor))
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completion_in_each_context() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);
    let mut version = 1;
    let mut complete = |c: &mut Client, text: &str, marker: &str| -> Value {
        assert_eq!(marker, "|");
        version += 1;
        ask_at_marker(c, &uri, version, text, "textDocument/completion")
    };

    // Tool names, with the signature as detail, replacing a dotted prefix.
    let text = GOOD.replace(
        "step change = billing.change_plan",
        "step change = billing.ch|",
    );
    let items = complete(&mut c, &text, "|");
    let names = labels(&items);
    assert!(
        names.contains(&"billing.change_plan".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"email.send".to_string()));
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "billing.change_plan")
        .unwrap();
    assert!(
        item["detail"]
            .as_str()
            .unwrap()
            .starts_with("billing.change_plan(subscription_id: string")
    );
    let edit_range = &item["textEdit"]["range"];
    let cursor_text = text.replacen('|', "", 1);
    assert_eq!(under(&cursor_text, edit_range), "billing.ch");

    // Argument names with their types, leaving out those already given.
    let text = GOOD.replace(
        "billing.change_plan(subscription_id: sub_id, plan: \"starter\", effective: period_end)",
        "billing.change_plan(subscription_id: sub_id, |)",
    );
    let items = complete(&mut c, &text, "|");
    let names = labels(&items);
    assert_eq!(names, ["plan", "effective"]);
    assert_eq!(items[0]["detail"], "\"starter\" | \"pro\" (required)");
    assert_eq!(items[0]["textEdit"]["newText"], "plan: ");

    // Bindings in scope: only those of earlier steps; fitting types first.
    let text = GOOD.replace("effective: period_end)", "effective: |)");
    let items = complete(&mut c, &text, "|");
    let names = labels(&items);
    assert_eq!(names, ["account_id", "sub_id", "period_end"]);
    let date_first = items
        .as_array()
        .unwrap()
        .iter()
        .min_by_key(|i| i["sortText"].as_str().unwrap().to_string())
        .unwrap();
    assert_eq!(date_first["label"], "period_end");
    // A binding's members, after its name and a dot: only what follows the
    // dot is replaced.
    let with_owner = GOOD.replace(
        "bind sub_id = $.id",
        "bind sub_id = $.id\n        bind owner = $.owner",
    );
    let text = with_owner.replace("to: \"a.kohl@northwind-traders.co.uk\"", "to: owner.em|");
    let items = complete(&mut c, &text, "|");
    assert_eq!(labels(&items), ["name", "email"]);
    assert_eq!(
        under(&text.replacen('|', "", 1), &items[1]["textEdit"]["range"]),
        "em"
    );
    assert_eq!(items[1]["detail"], "string");

    // The labels, exactly, at each marker.
    let exactly: Vec<(&str, String, &[&str])> = vec![
        (
            "in the first step, nothing is in scope",
            GOOD.replace("email: \"a.kohl@northwind-traders.co.uk\")", "email: |)"),
            &[],
        ),
        (
            "clause keywords inside a step body",
            GOOD.replace(
                "        on_unmet halt\n",
                "        on_unmet halt\n        |\n",
            ),
            &["pre", "post", "bind", "on_unmet", "retry", "after"],
        ),
        (
            "`on_unmet` actions",
            GOOD.replace("on_unmet halt", "on_unmet |"),
            &["replan", "halt", "escalate"],
        ),
        (
            "result paths after `$.owner.`",
            GOOD.replace(
                "bind period_end = $.current_period_end",
                "bind period_end = $.owner.|",
            ),
            &["name", "email"],
        ),
        (
            "inside an interpolation, the bindings in scope",
            GOOD.replace("template: \"confirm\"", "template: \"for ${|"),
            &["account_id", "sub_id", "period_end"],
        ),
        (
            "elsewhere in a string, nothing",
            GOOD.replace("template: \"confirm\"", "template: \"conf|"),
            &[],
        ),
        (
            "`after` targets",
            GOOD.replace("after change", "after |"),
            &["resolve", "subscription", "change"],
        ),
        (
            "members of a member that is no record: nothing",
            with_owner.replace("to: \"a.kohl@northwind-traders.co.uk\"", "to: sub_id.|"),
            &[],
        ),
        (
            "members of no binding: nothing",
            with_owner.replace("to: \"a.kohl@northwind-traders.co.uk\"", "to: nobody.|"),
            &[],
        ),
    ];
    for (name, text, want) in &exactly {
        let names = labels(&complete(&mut c, text, "|"));
        assert_eq!(names, *want, "{name}");
    }

    // Labels among others at each marker.
    let among: Vec<(&str, String, &[&str])> = vec![
        (
            "probe forms after `post`, with concrete ones from the result type",
            GOOD.replace("post $.status == \"scheduled\"", "post |"),
            &[
                "len(PATH) == N",
                "exists(PATH)",
                "PATH == VALUE",
                "PATH in [...]",
                "PATH not in [...]",
                "PATH contains VALUE",
                "exists($.status)",
                "$.status == \"scheduled\"",
            ],
        ),
        (
            "after `pre`: the bindings of earlier steps",
            GOOD.replace("on_unmet halt", "pre |"),
            &["account_id", "sub_id", "period_end"],
        ),
        (
            "result paths after `$.`",
            GOOD.replace(
                "bind period_end = $.current_period_end",
                "bind period_end = $.cu|",
            ),
            &["current_period_end", "owner"],
        ),
    ];
    for (name, text, wants) in &among {
        let names = labels(&complete(&mut c, text, "|"));
        for want in *wants {
            assert!(
                names.contains(&want.to_string()),
                "{name}: {want}: {names:?}"
            );
        }
    }
    c.shutdown();
}

#[test]
fn document_symbols_nest_steps_in_plans() {
    let p = Project::new();
    let uri = p.uri("all.plan");
    let text = format!("{TOOLS}\n{POLICY}\n{GOOD}");
    let mut c = Client::start();
    p.write("planc.toml", "");
    c.open(&uri, &text);
    c.diagnostics(&uri);
    let s = c.ok(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let s = s.as_array().unwrap();
    let tools: Vec<&Value> = s.iter().filter(|x| x["kind"] == 12).collect();
    assert_eq!(tools.len(), 10);
    assert_eq!(tools[0]["name"], "customer.resolve");
    assert!(
        tools[0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("customer.resolve(email: string")
    );
    let policy = s.iter().find(|x| x["kind"] == 3).unwrap();
    assert_eq!(policy["name"], "support_agent");
    assert_eq!(policy["children"].as_array().unwrap().len(), 9);
    let plan = s.iter().find(|x| x["kind"] == 2).unwrap();
    assert_eq!(plan["name"], "downgrade");
    assert_eq!(plan["detail"], "downgrade at end of period");
    let steps: Vec<&str> = plan["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["resolve", "subscription", "change", "confirm"]);
    let sub = &plan["children"][1];
    assert_eq!(under(&text, &sub["selectionRange"]), "subscription");
    assert!(under(&text, &sub["range"]).starts_with("step subscription ="));
    let binds: Vec<&str> = sub["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(binds, ["sub_id", "period_end"]);
    c.shutdown();
}

#[test]
fn workspace_symbols_across_plans_catalogue_and_policy() {
    let p = Project::new();
    let a = p.uri("a.plan");
    let b = p.uri("b.plan");
    let mut c = Client::start();
    c.open(&a, GOOD);
    c.open(&b, &GOOD.replace("plan downgrade", "plan other"));
    c.diagnostics(&a);
    c.diagnostics(&b);
    let query = |c: &mut Client, q: &str| -> Vec<(String, String, String)> {
        let r = c.ok("workspace/symbol", json!({ "query": q }));
        r.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["containerName"].as_str().unwrap_or("").to_string(),
                    s["location"]["uri"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // Characters in order, any case: both plans' step, and the tool and
    // rule of the shared catalogue and policy, listed once.
    let steps = query(&mut c, "SUBSCR");
    let s = |n: &str, c: &str, u: &str| (n.to_string(), c.to_string(), u.to_string());
    assert_eq!(
        steps,
        [
            s("subscription", "downgrade", &a),
            s("billing.get_subscription", "", &p.uri("tools.plan")),
            s(
                "billing.get_subscription",
                "support_agent",
                &p.uri("policy.plan")
            ),
            s("subscription", "other", &b),
        ]
    );
    assert_eq!(
        query(&mut c, "chgplan"),
        [
            s("billing.change_plan", "", &p.uri("tools.plan")),
            s(
                "billing.change_plan",
                "support_agent",
                &p.uri("policy.plan")
            ),
        ]
    );
    let r = c.ok(
        "workspace/symbol",
        json!({ "query": "billing.change_plan" }),
    );
    let tool = r
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["location"]["uri"] == p.uri("tools.plan"))
        .unwrap();
    assert_eq!(
        under(TOOLS, &tool["location"]["range"]),
        "billing.change_plan"
    );
    assert_eq!(tool["kind"], 12);
    assert_eq!(query(&mut c, "zzz"), []);
    c.shutdown();
}

#[test]
fn formatting_lays_out_the_document() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let messy = "plan p{step a=t.x(n:\"é😀\"){retry 2}}";
    let mut c = Client::start();
    c.open(&uri, messy);
    c.diagnostics(&uri);
    let params = json!({
        "textDocument": { "uri": uri },
        "options": { "tabSize": 4, "insertSpaces": true }
    });
    let edits = c.ok("textDocument/formatting", params.clone());
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 1);
    // One edit over the whole text; its end is in UTF-16 units.
    assert_eq!(
        edits[0]["range"],
        json!({ "start": { "line": 0, "character": 0 },
                "end": { "line": 0, "character": messy.encode_utf16().count() } })
    );
    let tidy = "plan p {\n    step a = t.x(n: \"é😀\") {\n        retry 2\n    }\n}\n";
    assert_eq!(edits[0]["newText"], tidy);
    // Laid out already: no edit. Broken: nothing, the diagnostics say why.
    c.change(&uri, 2, tidy);
    c.diagnostics_at(&uri, 2);
    assert_eq!(c.ok("textDocument/formatting", params.clone()), json!([]));
    c.change(&uri, 3, "plan p { step a = }");
    c.diagnostics_at(&uri, 3);
    assert_eq!(c.ok("textDocument/formatting", params), Value::Null);
    c.shutdown();
}

#[test]
fn signature_help_inside_a_call() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    c.diagnostics(&uri);
    let mut version = 1;
    let mut help = |c: &mut Client, text: &str| -> Value {
        version += 1;
        ask_at_marker(c, &uri, version, text, "textDocument/signatureHelp")
    };
    let call =
        "billing.change_plan(subscription_id: sub_id, plan: \"starter\", effective: period_end)";
    // The parameter under the cursor, by name; the label ranges are the
    // parameters' text in the signature.
    let h = help(
        &mut c,
        &GOOD.replace(
            call,
            "billing.change_plan(subscription_id: sub_id, plan: \"st|",
        ),
    );
    let sig = &h["signatures"][0];
    let label = sig["label"].as_str().unwrap();
    assert!(
        label.starts_with("billing.change_plan(subscription_id: string, plan: "),
        "{label}"
    );
    assert_eq!(h["activeParameter"], 1);
    let params: Vec<String> = sig["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let [a, b] = [
                p["label"][0].as_u64().unwrap(),
                p["label"][1].as_u64().unwrap(),
            ];
            label[a as usize..b as usize].to_string()
        })
        .collect();
    assert_eq!(
        params,
        [
            "subscription_id: string",
            "plan: \"starter\" | \"pro\"",
            "effective: date"
        ]
    );
    // After a comma: the first parameter not given yet, whatever the order.
    let h = help(
        &mut c,
        &GOOD.replace(call, "billing.change_plan(plan: \"pro\", |"),
    );
    assert_eq!(h["activeParameter"], 0);
    // Inside a record or list of an argument, still the call's signature.
    let h = help(
        &mut c,
        &GOOD.replace(
            "facts: { plan: \"starter\",",
            "facts: { plan: \"starter\", |",
        ),
    );
    assert!(
        h["signatures"][0]["label"]
            .as_str()
            .unwrap()
            .starts_with("email.send(")
    );
    assert_eq!(
        h["signatures"][0]["parameters"][h["activeParameter"].as_u64().unwrap() as usize]["label"]
            .as_array()
            .map(|l| l.len()),
        Some(2)
    );
    // Outside a call, or in a step's body: nothing.
    assert_eq!(
        help(&mut c, &GOOD.replace("on_unmet halt", "on_unmet |halt")),
        Value::Null
    );
    assert_eq!(help(&mut c, &format!("|{GOOD}")), Value::Null);
    c.shutdown();
}

#[test]
fn quick_fix_from_a_did_you_mean() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let text = GOOD.replace("billing.change_plan", "billing.change_plna");
    let mut c = Client::start();
    c.open(&uri, &text);
    let d = problems(&c.diagnostics(&uri));
    assert_eq!(codes(&d), ["E0101"]);
    let mut params = json!({ "textDocument": { "uri": uri }, "range": d[0]["range"] });
    params["context"] = json!({ "diagnostics": d });
    let actions = c.ok("textDocument/codeAction", params.clone());
    let actions = actions.as_array().unwrap();
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let a = &actions[0];
    assert_eq!(a["kind"], "quickfix");
    assert_eq!(a["title"], "replace with `billing.change_plan`");
    assert_eq!(a["diagnostics"][0], d[0]);
    let e = &a["edit"]["changes"][&uri][0];
    assert_eq!(e["newText"], "billing.change_plan");
    assert_eq!(under(&text, &e["range"]), "billing.change_plna");
    // Elsewhere in the file there is nothing to fix.
    params["range"] =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } });
    assert_eq!(c.ok("textDocument/codeAction", params), json!([]));
    c.shutdown();
}

#[test]
fn utf16_positions_with_emoji_and_accents() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    // Astral emoji (two UTF-16 units, four bytes) and accented letters (one
    // unit, two bytes) before the misspelt reference on the same line.
    let text = GOOD.replace(
        "template: \"confirm\",",
        "template: \"réservé 😀🎉 confirm\", to_cc: perod_end,",
    );
    let mut c = Client::start();
    c.open(&uri, &text);
    let d = c.diagnostics(&uri);
    let e = d.iter().find(|d| d["code"] == "E0105").expect("E0105");
    assert_eq!(under(&text, &e["range"]), "perod_end");
    assert_eq!(e["range"]["start"], pos(&text, "perod_end", 0, 0));
    let line = text.lines().find(|l| l.contains("perod_end")).unwrap();
    let byte_col = line.find("perod_end").unwrap();
    let utf16_col = line[..byte_col].encode_utf16().count();
    assert_ne!(byte_col, utf16_col);
    assert_eq!(e["range"]["start"]["character"], utf16_col);

    // A hover after the emoji on a later line lands on the right name.
    let h = c.ok(
        "textDocument/hover",
        at(&uri, pos(&text, "period_end }", 0, 3)),
    );
    assert_eq!(under(&text, &h["range"]), "period_end");
    // And the fix replaces exactly the misspelling.
    let mut params = json!({ "textDocument": { "uri": uri }, "range": e["range"] });
    params["context"] = json!({ "diagnostics": [] });
    let actions = c.ok("textDocument/codeAction", params);
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "replace with `period_end`")
        .expect("a fix");
    assert_eq!(
        under(&text, &fix["edit"]["changes"][&uri][0]["range"]),
        "perod_end"
    );
    c.shutdown();
}

#[test]
fn an_edited_catalogue_re_checks_the_open_plans() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let tools_uri = p.uri("tools.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    assert_eq!(problems(&c.diagnostics(&uri)), Vec::<Value>::new());

    // The open catalogue's text wins over the disk: remove `email.send`.
    c.open(&tools_uri, TOOLS);
    assert_eq!(c.diagnostics(&tools_uri), Vec::<Value>::new());
    // The plan was re-checked against the open catalogue: the same.
    assert_eq!(problems(&c.diagnostics(&uri)), Vec::<Value>::new());
    let cut = TOOLS.replace("tool email.send(", "tool email.post(");
    c.change(&tools_uri, 2, &cut);
    let d = problems(&c.diagnostics(&uri));
    assert_eq!(codes(&d), ["E0101"], "{d:#?}");
    assert!(d[0]["message"].as_str().unwrap().contains("`email.send`"));
    // Closing it without saving: the disk's catalogue is back.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": tools_uri } }),
    );
    assert_eq!(problems(&c.diagnostics(&uri)), Vec::<Value>::new());
    c.shutdown();
}

#[test]
fn a_policy_changed_on_disk_re_checks_through_the_watcher() {
    let p = Project::new();
    let uri = p.uri("credit.plan");
    let mut c = Client::start();
    // The server asked to watch the project files.
    c.open(&uri, &CREDIT.replace("acount_id", "account_id"));
    assert_eq!(codes(&c.diagnostics(&uri)), ["E0303"]);
    let registered = c.inbox.iter().any(|m| {
        matches!(m, Message::Request(r) if r.method == "client/registerCapability"
            && r.params["registrations"][0]["method"] == "workspace/didChangeWatchedFiles")
    });
    assert!(registered);

    p.write(
        "policy.plan",
        &POLICY.replace("amount_eur <= 500", "amount_eur <= 5000"),
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": p.uri("policy.plan"), "type": 2 }] }),
    );
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());

    // A broken `planc.toml` is one diagnostic on the first line; the plan is
    // not checked against a catalogue it cannot find.
    p.write("planc.toml", "catalog = [\"missing.plan\"]\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": p.uri("planc.toml"), "type": 2 }] }),
    );
    let d = c.diagnostics(&uri);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0]["message"].as_str().unwrap().contains("missing.plan"));
    assert_eq!(d[0]["range"]["start"], json!({ "line": 0, "character": 0 }));
    c.shutdown();
}

#[test]
fn a_policy_on_disk_that_is_not_utf8_is_e0002_on_it() {
    let p = Project::new();
    let mut bytes = POLICY.as_bytes().to_vec();
    let at = POLICY.find("amount_eur").unwrap();
    bytes.insert(at, 0xff);
    std::fs::write(p.path("policy.plan"), &bytes).unwrap();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    let policy = c.diagnostics(&p.uri("policy.plan"));
    assert_eq!(codes(&policy), ["E0002"], "{policy:#?}");
    assert_eq!(
        offset_of(&POLICY[..at], &policy[0]["range"]["start"]),
        at,
        "{policy:#?}"
    );
    // Fixed on disk: the E0002 goes, the plan is checked again.
    p.write("policy.plan", POLICY);
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": p.uri("policy.plan"), "type": 2 }] }),
    );
    assert_eq!(c.diagnostics(&p.uri("policy.plan")), Vec::<Value>::new());
    c.shutdown();
}

#[test]
fn diagnostics_in_the_policy_go_to_the_policy() {
    let p = Project::new();
    p.write(
        "policy.plan",
        &POLICY.replace("amount_eur <= 500", "amount_euro <= 500"),
    );
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    let policy = c.diagnostics(&p.uri("policy.plan"));
    assert_eq!(codes(&policy), ["E0102"]);
    let text = std::fs::read_to_string(p.path("policy.plan")).unwrap();
    assert_eq!(under(&text, &policy[0]["range"]), "amount_euro");
    c.shutdown();
}

#[test]
fn json_plans_get_diagnostics_and_navigation() {
    let p = Project::new();
    let uri = p.uri("plan.json");
    let text = r#"{
  "goal": "credit",
  "steps": [
    {"n": 0, "tool": "customer.resolve", "args": {"email": "a@b.c"},
     "post": {"probe": "result_count", "path": "$.results", "equals": 1},
     "binds": {"account_id": "$.results[0].id"}},
    {"n": 1, "tool": "billing.issue_credt",
     "args": {"account_id": "${account_id}", "amount_eur": 20, "reason": "r"},
     "post": {"probe": "field_exists", "path": "$.credit_id"}}
  ]
}"#;
    let mut c = Client::start();
    c.open(&uri, text);
    let d = c.diagnostics(&uri);
    assert_eq!(codes(&d), ["E0101"]);
    assert_eq!(under(text, &d[0]["range"]), "billing.issue_credt");
    let def = c.ok(
        "textDocument/definition",
        at(&uri, pos(text, "${account_id}", 0, 4)),
    );
    assert_eq!(under(text, &def["range"]), "account_id");
    assert_eq!(
        def["range"]["start"],
        pos(text, "account_id\": \"$.results", 0, 0)
    );
    c.shutdown();
}

#[test]
fn bad_requests_get_errors_and_never_stop_the_server() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    let e = c
        .request("textDocument/semanticTokens/full", json!({}))
        .unwrap_err();
    assert_eq!(e.code, -32601, "MethodNotFound");
    let e = c
        .request("textDocument/hover", json!({ "nonsense": 1 }))
        .unwrap_err();
    assert_eq!(e.code, -32602, "InvalidParams");
    // Notifications with garbage, or for documents never opened.
    c.notify("textDocument/didChange", json!({ "textDocument": 5 }));
    c.notify("textDocument/didOpen", json!(null));
    c.notify("$/cancelRequest", json!({ "id": 99 }));
    c.change("file:///nowhere/x.plan", 3, "plan");
    // Requests on a document that is not open answer null.
    assert_eq!(
        c.ok(
            "textDocument/hover",
            at(&uri, json!({"line": 0, "character": 0}))
        ),
        Value::Null
    );
    // Positions past the end clamp.
    c.open(&uri, "plan p {\n  step a = x.y(\n");
    c.diagnostics(&uri);
    for (line, character) in [(0, 0), (1, 99), (99, 0), (2, 4_000_000)] {
        let position = json!({ "line": line, "character": character });
        c.ok("textDocument/hover", at(&uri, position.clone()));
        c.ok("textDocument/completion", at(&uri, position.clone()));
        c.ok("textDocument/definition", at(&uri, position));
    }
    // Random bytes as a document.
    let junk: String = (0..2000u32)
        .map(|i| char::from_u32((i * 7919) % 0x2FFF).unwrap_or('x'))
        .collect();
    c.change(&uri, 5, &junk);
    c.diagnostics_at(&uri, 5);
    let mut cursor = 0;
    for line in 0..20 {
        cursor = (cursor + 37) % 80;
        c.ok(
            "textDocument/completion",
            at(&uri, json!({"line": line, "character": cursor})),
        );
    }
    c.shutdown();
}

#[test]
fn after_shutdown_requests_are_refused_and_exit_without_shutdown_is_an_error() {
    let mut c = Client::start();
    assert_eq!(c.ok("shutdown", Value::Null), Value::Null);
    let e = c.request("textDocument/hover", json!({})).unwrap_err();
    assert_eq!(e.code, -32600, "InvalidRequest");
    c.notify("exit", Value::Null);
    assert_eq!(c.server.take().unwrap().join().unwrap(), Ok(()));

    let mut c = Client::start();
    c.notify("exit", Value::Null);
    assert!(c.server.take().unwrap().join().unwrap().is_err());
}

/// A 1,000-step plan: (text, the byte offset of a literal to edit).

#[test]
fn a_thousand_step_plan_checks_clean() {
    let p = Project::new();
    let uri = p.uri("big.plan");
    let text = big_plan(1000);
    let mut c = Client::start();
    c.open(&uri, &text);
    let d = c.diagnostics(&uri);
    // Only the last binding is unused.
    assert_eq!(codes(&d), ["W0403"], "{d:#?}");
    c.shutdown();
}

#[test]
fn an_edited_planc_toml_wins_over_the_disk() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let toml_uri = p.uri("planc.toml");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    assert_eq!(problems(&c.diagnostics(&uri)), Vec::<Value>::new());
    // Opened, `planc.toml` is not checked as a plan: nothing is published
    // for it. Edited to drop the policy, every tool is denied.
    c.open(
        &toml_uri,
        "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\n",
    );
    c.change(&toml_uri, 2, "catalog = [\"tools.plan\"]\n");
    let d = loop {
        let d = c.diagnostics(&uri);
        if !problems(&d).is_empty() {
            break d;
        }
    };
    assert_eq!(errors(&d), ["E0301", "E0301", "E0301", "E0301"], "{d:#?}");
    assert!(!c.inbox.iter().any(|m| matches!(m, Message::Notification(n)
        if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == toml_uri
            && !n.params["diagnostics"].as_array().unwrap().is_empty())));
    c.shutdown();
}

#[test]
fn every_position_of_a_plan_and_its_prefixes_is_served() {
    let p = Project::new();
    let uri = p.uri("plan.plan");
    let text = CREDIT.replace("amount_eur: 4180", "amount_eur: 4180, 😀: é");
    let mut c = Client::start();
    c.open(&uri, &text);
    c.diagnostics(&uri);
    let positions: Vec<Value> = text
        .char_indices()
        .map(|(i, _)| {
            let line = text[..i].matches('\n').count();
            let start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            json!({ "line": line, "character": text[start..i].encode_utf16().count() })
        })
        .collect();
    for position in &positions {
        for method in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
            "textDocument/prepareRename",
        ] {
            if let Err(e) = c.request(method, at(&uri, position.clone())) {
                assert_ne!(e.code, -32603, "{method} at {position}: {}", e.message);
            }
        }
    }
    // Every prefix of the plan, as typed, completes without failing.
    let mut version = 1;
    for (i, _) in text.char_indices().step_by(7) {
        version += 1;
        let prefix = &text[..i];
        c.change(&uri, version, prefix);
        let line = prefix.matches('\n').count();
        let start = prefix.rfind('\n').map_or(0, |n| n + 1);
        let position = json!({ "line": line, "character": prefix[start..].encode_utf16().count() });
        c.ok("textDocument/completion", at(&uri, position));
    }
    c.shutdown();
}

#[test]
fn explain_pages_are_written_once_and_repaired() {
    let p = Project::new();
    let dir = p.path("pages");
    let uris = planc::lsp::pages::write_into(&dir).unwrap();
    assert_eq!(uris.len(), planc::Code::ALL.len());
    let page = dir.join("E0303.md");
    let text = planc::diagnostics::explain::page(planc::Code::E0303);
    assert_eq!(std::fs::read_to_string(&page).unwrap(), text);
    // A damaged or stale page is written again; nothing else is left over.
    std::fs::write(&page, "stale").unwrap();
    planc::lsp::pages::write_into(&dir).unwrap();
    assert_eq!(std::fs::read_to_string(&page).unwrap(), text);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        planc::Code::ALL.len()
    );
    // Servers starting together into an empty folder (the tests of this
    // file do, on a fresh machine) all get every page.
    let fresh = p.path("fresh");
    let writers: Vec<_> = (0..8)
        .map(|_| {
            let fresh = fresh.clone();
            std::thread::spawn(move || planc::lsp::pages::write_into(&fresh).map(|m| m.len()))
        })
        .collect();
    for w in writers {
        assert_eq!(w.join().unwrap(), Some(planc::Code::ALL.len()));
    }
    assert_eq!(
        std::fs::read_dir(&fresh).unwrap().count(),
        planc::Code::ALL.len()
    );
}

/// [`GOOD`] as a JSON plan, with one more binding (`owner`, a record).
const GOOD_JSON: &str = r#"{
  "name": "downgrade",
  "goal": "downgrade at end of period",
  "steps": [
    {"name": "resolve", "tool": "customer.resolve",
     "args": {"email": "a.kohl@northwind-traders.co.uk"},
     "post": {"probe": "result_count", "path": "$.results", "equals": 1},
     "binds": {"account_id": "$.results[0].id"}},
    {"name": "subscription", "tool": "billing.get_subscription",
     "args": {"account_id": "${account_id}", "as_of": "2026-03-04"},
     "post": {"probe": "field_in", "path": "$.commitment", "values": ["none", "monthly"]},
     "binds": {"sub_id": "$.id", "period_end": "$.current_period_end", "owner": "$.owner"}},
    {"name": "change", "tool": "billing.change_plan",
     "args": {"subscription_id": "${sub_id}", "plan": "starter", "effective": "${period_end}"},
     "post": {"probe": "field_equals", "path": "$.status", "value": "scheduled"},
     "on_unmet": "halt"},
    {"name": "confirm", "tool": "email.send",
     "args": {"to": "${owner.email}", "template": "confirm",
              "facts": {"plan": "starter", "effective": "${period_end}"}},
     "post": {"probe": "field_exists", "path": "$.message_id"},
     "after": ["change"]}
  ]
}
"#;

/// The item labelled `label`, its detail and edit (range text, new text).
fn item<'i>(items: &'i Value, label: &str) -> &'i Value {
    items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == label)
        .unwrap_or_else(|| panic!("no {label:?} in {items:#}"))
}

#[test]
fn json_completion_in_each_context() {
    let p = Project::new();
    let uri = p.uri("plan.json");
    let mut c = Client::start();
    c.open(&uri, GOOD_JSON);
    assert_eq!(errors(&c.diagnostics(&uri)), Vec::<String>::new());
    let mut version = 1;
    // Completes `text` at its `|`; returns the items and the text without
    // the marker. Most of these documents are not valid JSON.
    let mut complete = |c: &mut Client, text: &str| -> (Value, String) {
        version += 1;
        let at_cursor = pos(text, "|", 0, 0);
        let text = text.replacen('|', "", 1);
        c.change(&uri, version, &text);
        (c.ok("textDocument/completion", at(&uri, at_cursor)), text)
    };
    let edit = |items: &Value, label: &str, text: &str| -> (String, String) {
        let e = &item(items, label)["textEdit"];
        (
            under(text, &e["range"]).to_string(),
            e["newText"].as_str().unwrap().to_string(),
        )
    };

    // A step's `tool`: tool names with their signature, inside the string
    // (the dotted prefix replaced, the quotes kept); outside, quoted, in the
    // table below.
    let (items, text) = complete(
        &mut c,
        &GOOD_JSON.replace("\"billing.change_plan\"", "\"billing.ch|\""),
    );
    assert!(labels(&items).contains(&"email.send".to_string()));
    assert!(
        item(&items, "billing.change_plan")["detail"]
            .as_str()
            .unwrap()
            .starts_with("billing.change_plan(subscription_id: string")
    );
    assert_eq!(
        edit(&items, "billing.change_plan", &text),
        ("billing.ch".into(), "billing.change_plan".into())
    );

    // Argument values: the bindings of earlier steps, fitting types first,
    // written as references.
    let (items, text) = complete(
        &mut c,
        &GOOD_JSON.replace("\"effective\": \"${period_end}\"}", "\"effective\": |}"),
    );
    assert_eq!(
        labels(&items),
        ["account_id", "sub_id", "period_end", "owner"]
    );
    let first = items
        .as_array()
        .unwrap()
        .iter()
        .min_by_key(|i| i["sortText"].as_str().unwrap().to_string())
        .unwrap();
    assert_eq!(first["label"], "period_end");
    assert_eq!(
        item(&items, "period_end")["detail"],
        "date (from step `subscription`)"
    );
    assert_eq!(
        edit(&items, "period_end", &text),
        (String::new(), "\"${period_end}\"".into())
    );

    // Probe objects for `post`, generic and from the result type.
    let post =
        "\"post\": {\"probe\": \"field_equals\", \"path\": \"$.status\", \"value\": \"scheduled\"}";
    let (items, text) = complete(&mut c, &GOOD_JSON.replace(post, "\"post\": |"));
    let names = labels(&items);
    for want in [
        "result_count",
        "field_exists",
        "field_equals",
        "field_in",
        "field_not_in",
        "field_compare",
        "contains",
        "exists($.status)",
        "$.status == \"scheduled\"",
    ] {
        assert!(names.contains(&want.to_string()), "{want}: {names:?}");
    }
    assert_eq!(
        edit(&items, "$.status == \"scheduled\"", &text).1,
        r#"{"probe": "field_equals", "path": "$.status", "value": "scheduled"}"#
    );
    // A probe's keys: `probe` first.
    let (items, _) = complete(&mut c, &GOOD_JSON.replace(post, "\"post\": {|}"));
    assert_eq!(labels(&items)[0], "probe");

    /// What a completion offers: exactly these labels (when given), these
    /// among others, the detail of some items, and the edit of some (the
    /// text its range covers, its new text), by label.
    #[derive(Default)]
    struct Offers {
        labels: Option<&'static [&'static str]>,
        among: &'static [&'static str],
        details: &'static [(&'static str, &'static str)],
        edits: &'static [(&'static str, &'static str, &'static str)],
    }
    let none = || Offers {
        labels: Some(&[]),
        ..Offers::default()
    };
    let cases: Vec<(&str, String, Offers)> = vec![
        (
            "`tool` outside the string: quoted",
            GOOD_JSON.replace("\"tool\": \"billing.change_plan\"", "\"tool\": |"),
            Offers {
                edits: &[("email.send", "", "\"email.send\"")],
                ..Offers::default()
            },
        ),
        // `args` keys: the parameters not yet given (before or after the
        // cursor), with their types; in a key string and where a key starts.
        (
            "`args` key, in a key string",
            GOOD_JSON.replace(
                "\"plan\": \"starter\", \"effective\"",
                "\"pl|\": \"starter\", \"effective\"",
            ),
            Offers {
                labels: Some(&["plan"]),
                details: &[("plan", "\"starter\" | \"pro\" (required)")],
                edits: &[("plan", "pl", "plan")],
                ..Offers::default()
            },
        ),
        (
            "`args` key, where a key starts",
            GOOD_JSON.replace(
                "{\"subscription_id\": \"${sub_id}\", \"plan\": \"starter\", \"effective\": \"${period_end}\"}",
                "{\"subscription_id\": \"${sub_id}\", |}",
            ),
            Offers {
                labels: Some(&["plan", "effective"]),
                edits: &[("plan", "", "\"plan\": ")],
                ..Offers::default()
            },
        ),
        (
            "`args` keys with the tool after the arguments: all given",
            GOOD_JSON.replace(
                "{\"name\": \"change\", \"tool\": \"billing.change_plan\",\n     \"args\": {\"subscription_id\": \"${sub_id}\", ",
                "{\"name\": \"change\",\n     \"args\": {\"|\", \"subscription_id\": \"${sub_id}\", ",
            )
            .replace("\"on_unmet\": \"halt\"", "\"on_unmet\": \"halt\", \"tool\": \"billing.change_plan\""),
            none(),
        ),
        (
            "argument value in a string: an enum's values and references",
            GOOD_JSON.replace(
                "\"plan\": \"starter\", \"effective\"",
                "\"plan\": \"st|\", \"effective\"",
            ),
            Offers {
                edits: &[("starter", "st", "starter"), ("sub_id", "st", "${sub_id}")],
                ..Offers::default()
            },
        ),
        (
            "argument value in the first step: nothing in scope",
            GOOD_JSON.replace(
                "{\"email\": \"a.kohl@northwind-traders.co.uk\"}",
                "{\"email\": \"|\"}",
            ),
            none(),
        ),
        // After `${` in a string (at any depth of the arguments): the names
        // in scope; after `${name.`, the fields of its type.
        (
            "after `${` and a prefix, nested",
            GOOD_JSON.replace("\"template\": \"confirm\"", "\"template\": \"for ${per|"),
            Offers {
                labels: Some(&["account_id", "sub_id", "period_end", "owner"]),
                edits: &[("period_end", "per", "period_end")],
                ..Offers::default()
            },
        ),
        (
            "after `${` in a record",
            GOOD_JSON.replace(
                "\"effective\": \"${period_end}\"}},",
                "\"effective\": \"${|}\"}},",
            ),
            Offers {
                labels: Some(&["account_id", "sub_id", "period_end", "owner"]),
                ..Offers::default()
            },
        ),
        (
            "after `${owner.` and a prefix",
            GOOD_JSON.replace("${owner.email}", "${owner.em|}"),
            Offers {
                labels: Some(&["name", "email"]),
                details: &[("email", "string")],
                edits: &[("email", "em", "email")],
                ..Offers::default()
            },
        ),
        (
            "`$${` is a literal",
            GOOD_JSON.replace("\"template\": \"confirm\"", "\"template\": \"$${|\""),
            none(),
        ),
        (
            "a `$` starts a reference",
            GOOD_JSON.replace("\"template\": \"confirm\"", "\"template\": \"$|\""),
            Offers {
                edits: &[("owner", "$", "${owner}")],
                ..Offers::default()
            },
        ),
        (
            "a step's keys, those not yet present",
            GOOD_JSON.replace("\"on_unmet\": \"halt\"}", "\"on_unmet\": \"halt\", |}"),
            Offers {
                labels: Some(&["n", "id", "pre", "binds", "retry", "after"]),
                edits: &[("after", "", "\"after\": ")],
                ..Offers::default()
            },
        ),
        (
            "a step's keys, in a key string",
            GOOD_JSON.replace("\"on_unmet\": \"halt\"}", "\"on_unmet\": \"halt\", \"a|\"}"),
            Offers {
                among: &["after"],
                ..Offers::default()
            },
        ),
        (
            "the plan's keys",
            GOOD_JSON.replacen("\"name\": \"downgrade\",", "|", 1),
            Offers {
                labels: Some(&["name", "budget"]),
                ..Offers::default()
            },
        ),
        (
            "the budget's keys",
            GOOD_JSON.replacen(
                "\"name\": \"downgrade\",",
                "\"budget\": {\"replans\": 1, \"|\"},",
                1,
            ),
            Offers {
                labels: Some(&["max_steps"]),
                ..Offers::default()
            },
        ),
        (
            "`on_unmet` actions",
            GOOD_JSON.replace("\"halt\"", "\"h|\""),
            Offers {
                labels: Some(&["replan", "halt", "escalate"]),
                edits: &[("halt", "h", "halt")],
                ..Offers::default()
            },
        ),
        (
            "`after` targets, as names",
            GOOD_JSON.replace("[\"change\"]", "[|]"),
            Offers {
                labels: Some(&["resolve", "subscription", "change"]),
                details: &[("change", "billing.change_plan")],
                edits: &[("change", "", "\"change\"")],
                ..Offers::default()
            },
        ),
        (
            "`after` targets, in a string",
            GOOD_JSON.replace("[\"change\"]", "[\"change\", \"|"),
            Offers {
                labels: Some(&["resolve", "subscription", "change"]),
                ..Offers::default()
            },
        ),
        (
            "probe objects in a `post` list",
            GOOD_JSON.replace(post, "\"post\": [|]"),
            Offers {
                among: &["exists($.status)"],
                ..Offers::default()
            },
        ),
        (
            "a probe's keys, by its kind",
            GOOD_JSON.replace(post, "\"post\": {\"probe\": \"field_compare\", |}"),
            Offers {
                labels: Some(&["path", "op", "value"]),
                ..Offers::default()
            },
        ),
        (
            "probe kinds",
            GOOD_JSON.replace(post, "\"post\": [{\"probe\": \"field_|"),
            Offers {
                labels: Some(&[
                    "result_count",
                    "field_equals",
                    "field_in",
                    "field_not_in",
                    "field_exists",
                    "field_compare",
                    "contains",
                    "keys_contain",
                ]),
                ..Offers::default()
            },
        ),
        (
            "a probe's path, in the string",
            GOOD_JSON.replace("\"path\": \"$.status\"", "\"path\": \"$.st|\""),
            Offers {
                labels: Some(&["status"]),
                edits: &[("status", "st", "status")],
                ..Offers::default()
            },
        ),
        (
            "a probe's path, outside the string: quoted",
            GOOD_JSON.replace("\"path\": \"$.status\"", "\"path\": |"),
            Offers {
                edits: &[("$.status", "", "\"$.status\"")],
                ..Offers::default()
            },
        ),
        (
            "a probe's operators",
            GOOD_JSON.replace(
                "\"path\": \"$.message_id\"",
                "\"path\": \"$.message_id\", \"op\": \"|",
            ),
            Offers {
                labels: Some(&["==", "!=", "<", "<=", ">", ">="]),
                ..Offers::default()
            },
        ),
        // Result paths in `binds`, nested.
        (
            "result paths in `binds`, nested",
            GOOD_JSON.replace("\"owner\": \"$.owner\"", "\"owner\": \"$.owner.|\""),
            Offers {
                labels: Some(&["name", "email"]),
                ..Offers::default()
            },
        ),
        (
            "result paths in `binds`",
            GOOD_JSON.replace("\"owner\": \"$.owner\"", "\"owner\": \"|\""),
            Offers {
                among: &["$.current_period_end"],
                edits: &[("$.owner", "", "$.owner")],
                ..Offers::default()
            },
        ),
        // Elsewhere, nothing.
        (
            "nothing in the goal",
            GOOD_JSON.replace("\"goal\": \"downgrade", "\"goal\": \"down|grade"),
            none(),
        ),
        (
            "nothing in a number",
            GOOD_JSON.replace("\"equals\": 1", "\"equals\": 1|"),
            none(),
        ),
        (
            "nothing after a key before its colon",
            GOOD_JSON.replace("\"on_unmet\": \"halt\"", "\"on_unmet\" | : \"halt\""),
            none(),
        ),
        (
            "nothing in a plain string's middle",
            GOOD_JSON.replace("\"binds\": {\"account_id\"", "\"binds\": {\"acc|ount_id\""),
            none(),
        ),
    ];
    for (name, marked, offers) in &cases {
        let (items, text) = complete(&mut c, marked);
        let names = labels(&items);
        if let Some(want) = offers.labels {
            assert_eq!(names, want, "{name}:\n{marked}");
        }
        for want in offers.among {
            assert!(
                names.contains(&want.to_string()),
                "{name}: {want}: {names:?}"
            );
        }
        let found = |label: &str| {
            items
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["label"] == label)
                .unwrap_or_else(|| panic!("{name}: no {label:?} in {items:#}"))
        };
        for (label, detail) in offers.details {
            assert_eq!(found(label)["detail"], *detail, "{name}: {label}");
        }
        for (label, range, new_text) in offers.edits {
            let e = &found(label)["textEdit"];
            assert_eq!(
                (under(&text, &e["range"]), e["newText"].as_str().unwrap()),
                (*range, *new_text),
                "{name}: {label}"
            );
        }
    }
    c.shutdown();
}

#[test]
fn every_position_of_a_json_plan_and_its_prefixes_is_served() {
    let p = Project::new();
    let uri = p.uri("plan.json");
    let text = GOOD_JSON
        .replace(
            "\"template\": \"confirm\"",
            "\"template\": \"😀 é \\\" \\\\ ${\"",
        )
        .replace("\"goal\": ", "\"gøal\": \"\\u00e9\", \"goal\": ");
    let mut c = Client::start();
    c.open(&uri, &text);
    c.diagnostics(&uri);
    let position = |prefix: &str| {
        let line = prefix.matches('\n').count();
        let start = prefix.rfind('\n').map_or(0, |n| n + 1);
        json!({ "line": line, "character": prefix[start..].encode_utf16().count() })
    };
    for (i, _) in text.char_indices() {
        for method in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
        ] {
            if let Err(e) = c.request(method, at(&uri, position(&text[..i]))) {
                assert_ne!(e.code, -32603, "{method} at {i}: {}", e.message);
            }
        }
    }
    // Every prefix, as typed, and every prefix with the rest of the plan
    // after it, complete at the end of the prefix without failing; an
    // edit's range is always within the document.
    let mut version = 1;
    for (i, _) in text.char_indices().step_by(3) {
        let prefix = &text[..i];
        for doc in [prefix.to_string(), format!("{prefix}\"{{[,:")] {
            version += 1;
            c.change(&uri, version, &doc);
            let items = c.ok("textDocument/completion", at(&uri, position(prefix)));
            for item in items.as_array().unwrap() {
                if item["textEdit"].is_object() {
                    under(&doc, &item["textEdit"]["range"]);
                }
            }
        }
    }
    c.shutdown();
}

/// A project whose `planc.toml` names a progress record (and `more`, a
/// `[run]` table or nothing): the Northwind downgrade ran `resolve` and the
/// write `change`, with other arguments than the open plan's.
fn replan_project(more: &str) -> Project {
    let p = Project::new();
    p.write(
        "planc.toml",
        &format!(
            "catalog = [\"tools.plan\"]\npolicy = \"policy.plan\"\nprogress = \"progress.json\"\n{more}"
        ),
    );
    p.write(
        "progress.json",
        r#"{"progress_version": "1.0", "plan": "downgrade", "replans_used": 0, "steps": [
  {"name": "resolve", "tool": "customer.resolve", "status": "complete",
   "effect": "read", "idempotent": true, "attempts": 1,
   "args": {"email": "a.kohl@northwind-traders.co.uk"},
   "binds": {"account_id": "acct_1"}},
  {"name": "change", "tool": "billing.change_plan", "status": "complete",
   "effect": "write", "idempotent": false, "attempts": 1,
   "args": {"subscription_id": "sub_9", "plan": "pro", "effective": "2026-03-31"}}
]}"#,
    );
    p
}

/// `progress` in `planc.toml`: the open plan is a replan, checked against the
/// record as `planc check --progress` checks it.
#[test]
fn a_progress_record_in_planc_toml_checks_the_plan_as_a_replan() {
    let p = replan_project("");
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    let d = c.diagnostics(&uri);
    // `change` ran with other arguments and is a write that is not
    // idempotent: running it again would repeat it. (`resolve` is a read:
    // not reused, since its call differs, it simply runs again.)
    assert_eq!(errors(&d), ["E0306"], "{d:#?}");
    assert_eq!(d[0]["data"]["step"], "change", "{d:#?}");
    c.shutdown();
}

/// With a record key (`[run] record_key`), a record whose seal does not
/// verify is not checked against: the editor says so, as `planc check`
/// refuses it, instead of showing a check against a record the run would
/// not trust.
#[test]
fn an_unsealed_record_is_not_checked_against_under_a_record_key() {
    let p = replan_project("\n[run]\nrecord_key = \"record.key\"\n");
    p.write("record.key", "0123456789abcdef0123456789abcdef");
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, GOOD);
    let d = c.diagnostics(&uri);
    assert!(!errors(&d).contains(&"E0306".to_string()), "{d:#?}");
    assert!(
        d.iter().any(|x| x["message"]
            .as_str()
            .is_some_and(|m| m.contains("no `hmac`"))),
        "{d:#?}"
    );
    c.shutdown();
}

/// Hover shows the effect and idempotence the policy states where the
/// catalogue is silent, and says they are the policy's.
#[test]
fn hover_shows_what_the_policy_states() {
    const TEXT: &str = "plan refund \"refund order 17\" {
    step refund = orders.refund(order_id: \"o-17\") {
        post exists($.id)
        retry 2
    }
}
";
    let p = Project::new();
    p.write(
        "tools.plan",
        "tool orders.refund(order_id: string) -> { id: string } write\n",
    );
    p.write(
        "policy.plan",
        "policy agent {\n    actor [orders:write]\n    orders.refund requires [orders:write] idempotent\n}\n",
    );
    let uri = p.uri("plan.plan");
    let mut c = Client::start();
    c.open(&uri, TEXT);
    let all = c.diagnostics(&uri);
    assert!(errors(&all).is_empty(), "{all:#?}");
    let h = c.ok(
        "textDocument/hover",
        at(&uri, pos(TEXT, "orders.refund(order_id: \"o", 0, 0)),
    );
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.contains("`write` · idempotent (by the policy)"), "{v}");
    c.shutdown();
}

/// Edits of a document re-read in part (only the edited step, when it can
/// be: `syntax::incremental`) publish what a whole check of the same text
/// does: random edits, chained, each compared with the text opened afresh
/// in a second document.
#[test]
fn edits_re_read_in_part_publish_what_a_whole_check_does() {
    fn seen(diags: &[Value]) -> Vec<(Value, Value, Value, Value)> {
        diags
            .iter()
            .map(|d| {
                let d = d.clone();
                (
                    d["range"].clone(),
                    d["code"].clone(),
                    d["severity"].clone(),
                    d["message"].clone(),
                )
            })
            .collect()
    }
    const SNIPPETS: &[&str] = &[
        "",
        "x",
        "1",
        "\"",
        "}",
        "{",
        "(",
        ")",
        ",",
        "\n",
        " ",
        "${acct3}",
        "${nope}",
        "== 2",
        "[0]",
        ".id",
        "\n        retry 2",
        "\n        after s1",
        "@",
        "é",
    ];
    let p = Project::new();
    let uri = p.uri("edited.plan");
    let base = big_plan(40);
    let mut text = base.clone();
    let mut c = Client::start();
    c.open(&uri, &text);
    c.diagnostics(&uri);
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n.max(1) as u64) as usize
    };
    let mut differed_from_base = 0;
    for version in 2..122 {
        // Inside the steps, mostly: past the plan's first line.
        let at = 30 + next(text.len() - 40);
        let cut = (at + next(5)).min(text.len());
        if !text.is_char_boundary(at) || !text.is_char_boundary(cut) {
            continue;
        }
        let snippet = next(SNIPPETS.len());
        let new = format!("{}{}{}", &text[..at], SNIPPETS[snippet], &text[cut..]);
        // Every other edit as a range, as an editor sends it (in UTF-16
        // columns: the snippets hold `é` and line breaks).
        if version % 2 == 0 {
            c.change(&uri, version, &new);
        } else {
            c.change_range(&uri, version, &text, at, cut, SNIPPETS[snippet]);
        }
        let edited = c.diagnostics_at(&uri, version);
        let fresh_uri = p.uri(&format!("fresh{version}.plan"));
        c.open(&fresh_uri, &new);
        let fresh = c.diagnostics(&fresh_uri);
        assert_eq!(seen(&edited), seen(&fresh), "version {version}:\n{new}");
        if codes(&edited) != ["W0403"] {
            differed_from_base += 1;
        }
        // After a syntax error, back to the clean text (whole parses).
        text = if codes(&edited).iter().any(|c| c.starts_with("E000")) {
            c.change(&uri, 1000 + version, &base);
            c.diagnostics_at(&uri, 1000 + version);
            base.clone()
        } else {
            new
        };
    }
    assert!(
        differed_from_base > 20,
        "{differed_from_base} edits changed the diagnostics"
    );
    c.shutdown();
}
