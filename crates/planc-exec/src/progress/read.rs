//! The progress record reader. A record is input like a plan: a record that
//! is not JSON, or not of the record's shape, gets diagnostics that point
//! into it (byte spans and RFC 6901 pointers), never a panic.
//!
//! - E0001–E0003: the text is not JSON, or exceeds a limit (the JSON parser's).
//! - E0601: a key is missing, unknown or ill-typed, or a value is not one of
//!   its kind's words (`status`, `effect`, `failure.kind`).
//! - E0602: a `progress_version` this planc does not read.
//! - E0603: two steps of the record have the same name.
//! - E0604: a step's fields contradict its status (artifacts on a step that
//!   did not complete and was not invalidated after completing, a failure on
//!   one that did).
//! - E0605: two steps of the record commit the same artifact name.

use std::collections::BTreeMap;
use std::collections::HashMap;

use super::types::{
    Effect, Failure, FailureKind, JsonValue, PROGRESS_VERSION, ProgressRecord, Status, StepRecord,
};
use crate::diagnostics::{self, Code, Diagnostic};
use crate::source::{FileId, Span};
use crate::syntax::ast::{Item, Module};
use crate::syntax::json::{self, Json, Value};
use crate::syntax::json_reader::Reader;
use crate::syntax::lexicon::is_ident;

/// The keys of each shape the reader knows.
pub const RECORD_KEYS: &[&str] = &[
    "progress_version",
    "plan",
    "goal",
    "replans_used",
    "steps",
    "fingerprint",
    "hmac",
];
pub const STEP_KEYS: &[&str] = &[
    "name",
    "tool",
    "status",
    "effect",
    "idempotent",
    "attempts",
    "args",
    "binds",
    "failure",
    "idempotency_key",
];
pub const FAILURE_KEYS: &[&str] = &["kind", "code", "retryable", "expected", "observed"];

/// A record read from text: the record when it has no errors, every
/// diagnostic, and the
/// span of each step (by index) and of each artifact (by name), for later
/// diagnostics that point into the record.
#[derive(Clone, Debug, Default)]
pub struct ReadRecord {
    pub record: Option<ProgressRecord>,
    pub diagnostics: Vec<Diagnostic>,
    pub spans: RecordSpans,
}

/// Where the parts of a record are written.
#[derive(Clone, Debug, Default)]
pub struct RecordSpans {
    /// The whole record.
    pub record: Option<Span>,
    /// Each step's object, in record order.
    pub steps: Vec<Span>,
    /// Each artifact's member (`"name": value`), by binding name.
    pub artifacts: HashMap<String, Span>,
    /// The `replans_used` member.
    pub replans_used: Option<Span>,
    /// The `plan` member.
    pub plan: Option<Span>,
}

/// The prefix of a record's `hmac`.
pub const HMAC_PREFIX: &str = "hmac-sha256:";

/// The `hmac` of `record` under `key`: `hmac-sha256:` and the hex
/// HMAC-SHA256 of its canonical JSON (RFC 8785) without `hmac`.
pub fn seal(record: &ProgressRecord, key: &[u8]) -> Result<String, String> {
    use hmac::Mac;
    let mac = record_mac(record, key)?;
    let mut out = String::from(HMAC_PREFIX);
    for byte in mac.finalize().into_bytes().iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    Ok(out)
}

/// [`verify`] of a record's text, for the places that check a plan against
/// it (`planc check --progress`, the language server, the Python
/// `Compiler.check`): with a key, a text that reads as a record must carry
/// its seal; a text that does not read is left to the check's own
/// diagnostics (E0601–E0605), which refuse it anyway.
pub fn verify_text(text: &str, key: Option<&[u8]>) -> Result<(), String> {
    if key.is_none() {
        return Ok(());
    }
    match read(FileId::default(), text).record {
        Some(record) => verify(&record, key),
        None => Ok(()),
    }
}

/// A record's text for a driver that runs from it (the Python and npm
/// packages' `Machine`, their `diff` and `invalidate`): read by [`read`],
/// refused with the first of its diagnostics (E0601–E0605) when it does
/// not read, and with a key used only when its seal verifies ([`verify`]).
pub fn read_trusted(text: &str, key: Option<&[u8]>) -> Result<ProgressRecord, String> {
    let read = read(FileId::default(), text);
    let Some(record) = read.record else {
        let why = read
            .diagnostics
            .first()
            .map_or_else(String::new, |d| format!(": {}", d.message));
        return Err(format!("not a progress record{why}"));
    };
    verify(&record, key)?;
    Ok(record)
}

/// A record's text sealed with `key`: read by [`read_trusted`], its
/// `hmac` set by [`seal`], written as `planc run` writes a record (pretty
/// JSON). The drivers that keep the record themselves (the Python and npm
/// packages) seal each one they persist with this.
pub fn seal_text(text: &str, key: &[u8]) -> Result<String, String> {
    let mut record = read_trusted(text, None)?;
    record.hmac = None;
    record.hmac = Some(seal(&record, key)?);
    serde_json::to_string_pretty(&record).map_err(|e| e.to_string())
}

/// Every reader's check of a record when the operator configured a record
/// key (`--record-key`, `[run] record_key`): its `hmac` must be present and
/// be the record's under that key, compared in constant time. Without a key
/// the record is trusted input, as `docs/replanning.md` says.
pub fn verify(record: &ProgressRecord, key: Option<&[u8]>) -> Result<(), String> {
    use hmac::Mac;
    let Some(key) = key else {
        return Ok(());
    };
    let Some(given) = record.hmac.as_deref() else {
        return Err(
            "the progress record has no `hmac`, and a record key is configured: a record \
             written without the key (or with its seal removed) is not trusted"
                .into(),
        );
    };
    let bad = || {
        "the progress record's `hmac` does not match its content under the record key: \
         it was changed after it was written, or written under another key"
            .to_string()
    };
    let hex = given.strip_prefix(HMAC_PREFIX).ok_or_else(bad)?;
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    let bytes = bytes.filter(|b| b.len() == 32).ok_or_else(bad)?;
    record_mac(record, key)?
        .verify_slice(&bytes)
        .map_err(|_| bad())
}

/// The HMAC-SHA256 of the record's canonical JSON without `hmac`.
fn record_mac(record: &ProgressRecord, key: &[u8]) -> Result<hmac::Hmac<sha2::Sha256>, String> {
    use hmac::{KeyInit, Mac};
    let unsealed = ProgressRecord {
        hmac: None,
        ..record.clone()
    };
    let text = crate::ir::fingerprint::canonical(&unsealed)?;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key)
        .map_err(|e| format!("the record key cannot be used: {e}"))?;
    mac.update(text.as_bytes());
    Ok(mac)
}

/// Parses and reads a progress record from `text`. Never panics.
pub fn read(file: FileId, text: &str) -> ReadRecord {
    match json::parse(file, text) {
        Ok(root) => read_json(text, &root),
        Err(d) => ReadRecord {
            diagnostics: vec![*d],
            ..ReadRecord::default()
        },
    }
}

/// A record as a document of the plan pipeline (`planc check record.json`):
/// no plan items, the record's diagnostics.
pub fn read_as_module(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    let read = read_json(text, root);
    let module = if read.diagnostics.iter().any(Diagnostic::is_error) {
        Module {
            items: vec![Item::Error(root.span)],
        }
    } else {
        Module::default()
    };
    (module, read.diagnostics)
}

/// Reads a parsed record. The pointer table is left empty (see [`read`]).
pub fn read_json(text: &str, root: &Json<'_>) -> ReadRecord {
    let mut r = Reader::new(text);
    r.shape_code = Code::E0601;
    let mut spans = RecordSpans {
        record: Some(root.span),
        ..RecordSpans::default()
    };
    let record = read_record(&mut r, root, &mut spans);
    let mut diags = r.diags;
    diagnostics::sort(&mut diags);
    let has_errors = diags.iter().any(Diagnostic::is_error);
    ReadRecord {
        record: if has_errors { None } else { record },
        diagnostics: diags,
        spans,
    }
}

const RECORD: &str = "a progress record";
const STEP: &str = "a step of a progress record";
const FAILURE: &str = "a step's `failure`";

fn read_record(
    r: &mut Reader<'_>,
    root: &Json<'_>,
    spans: &mut RecordSpans,
) -> Option<ProgressRecord> {
    let fields = r.fields(root, RECORD, RECORD_KEYS)?;
    let version = match fields.get("progress_version") {
        Some(v) => {
            let s = r.string("progress_version", v).map(str::to_owned);
            if let Some(s) = &s
                && s != PROGRESS_VERSION
            {
                r.report(
                    Diagnostic::new(
                        Code::E0602,
                        v.span,
                        format!("progress record version `{s}` is not one this planc reads"),
                    )
                    .with_label(format!("this planc reads version `{PROGRESS_VERSION}`"))
                    .with_help(format!(
                        "write the record with `\"progress_version\": \"{PROGRESS_VERSION}\"`, \
                         or use the planc that wrote it"
                    )),
                );
            }
            s
        }
        None => {
            r.missing_key(root.span, "progress_version", RECORD);
            None
        }
    };
    let plan = match fields.member("plan") {
        Some(m) => {
            spans.plan = Some(m.span());
            name(r, "plan", &m.value)
        }
        None => {
            r.missing_key(root.span, "plan", RECORD);
            None
        }
    };
    let goal = fields
        .get("goal")
        .and_then(|g| r.string("goal", g).map(str::to_owned));
    let replans_used = match fields.member("replans_used") {
        Some(m) => {
            spans.replans_used = Some(m.span());
            r.count("replans_used", &m.value)
        }
        None => Some(0),
    };
    let steps = match fields.get("steps") {
        Some(v) => match v.as_array() {
            Some(items) => {
                let mut steps = Vec::with_capacity(items.len());
                let mut names: HashMap<String, Span> = HashMap::new();
                let mut artifacts: HashMap<String, (Span, String)> = HashMap::new();
                for item in items {
                    spans.steps.push(item.span);
                    if let Some(step) = read_step(r, item, spans, &mut artifacts) {
                        let at = item.get("name").map(|n| n.span).unwrap_or(item.span);
                        if let Some(first) = names.get(&step.name) {
                            r.report(
                                Diagnostic::new(
                                    Code::E0603,
                                    at,
                                    format!("step `{}` is recorded twice", step.name),
                                )
                                .with_label("recorded again here")
                                .with_secondary(*first, "first recorded here")
                                .with_help(
                                    "a record holds each step once, by its name: merge the \
                                     two entries into the one that says where the step stands",
                                ),
                            );
                        } else {
                            names.insert(step.name.clone(), at);
                        }
                        steps.push(step);
                    }
                }
                Some(steps)
            }
            None => {
                r.ill_typed("`steps`", v, "an array");
                None
            }
        },
        None => {
            r.missing_key(root.span, "steps", RECORD);
            None
        }
    };
    let fingerprint = fields
        .get("fingerprint")
        .map(|v| r.string("fingerprint", v).map(str::to_owned));
    let hmac = fields
        .get("hmac")
        .map(|v| r.string("hmac", v).map(str::to_owned));
    Some(ProgressRecord {
        progress_version: version?,
        plan: plan?,
        goal,
        replans_used: replans_used?,
        steps: steps?,
        fingerprint: match fingerprint {
            Some(v) => Some(v?),
            None => None,
        },
        hmac: match hmac {
            Some(v) => Some(v?),
            None => None,
        },
    })
}

/// A name: a string that is an identifier of the plan language.
fn name(r: &mut Reader<'_>, key: &str, v: &Json<'_>) -> Option<String> {
    let s = r.string(key, v)?;
    if is_ident(s) {
        Some(s.to_owned())
    } else {
        r.report(
            Diagnostic::new(
                Code::E0601,
                v.span,
                format!("`{key}` must be a name, found `{s}`"),
            )
            .with_label("not a name")
            .with_help(
                "a plan's, step's or binding's name is a letter or `_`, then letters, digits \
                 and `_`, as the plan writes it",
            ),
        );
        None
    }
}

/// One of a closed set of words (`status`, `effect`, `kind`).
fn word<T: Copy>(
    r: &mut Reader<'_>,
    key: &str,
    v: &Json<'_>,
    words: &[(&'static str, T)],
) -> Option<T> {
    let s = r.string(key, v)?;
    if let Some((_, t)) = words.iter().find(|(w, _)| *w == s) {
        return Some(*t);
    }
    let list: Vec<String> = words.iter().map(|(w, _)| format!("`{w}`")).collect();
    let near = crate::suggest::nearest(s, words.iter().map(|(w, _)| *w));
    let mut d = Diagnostic::new(
        Code::E0601,
        v.span,
        format!("`{key}` must be one of {}, found `{s}`", list.join(", ")),
    )
    .with_label(format!("not a valid `{key}`"));
    d = match crate::suggest::did_you_mean(&near) {
        Some(help) => d.with_help(help),
        None => d.with_help(format!("write one of {}", list.join(", "))),
    };
    if let [one] = near.as_slice() {
        d = d.with_fix(format!("replace with `{one}`"), v.text_span(), *one);
    }
    r.report(d);
    None
}

fn read_step(
    r: &mut Reader<'_>,
    item: &Json<'_>,
    spans: &mut RecordSpans,
    artifacts: &mut HashMap<String, (Span, String)>,
) -> Option<StepRecord> {
    let fields = r.fields(item, STEP, STEP_KEYS)?;
    let step_name = match fields.get("name") {
        Some(v) => name(r, "name", v),
        None => {
            r.missing_key(item.span, "name", STEP);
            None
        }
    };
    let tool = match fields.get("tool") {
        Some(v) => r.string("tool", v).map(str::to_owned),
        None => {
            r.missing_key(item.span, "tool", STEP);
            None
        }
    };
    let statuses = Status::ALL.map(|s| (s.as_str(), s));
    let status = match fields.get("status") {
        Some(v) => word(r, "status", v, &statuses),
        None => {
            r.missing_key(item.span, "status", STEP);
            None
        }
    };
    let effect = fields.get("effect").map(|v| {
        word(
            r,
            "effect",
            v,
            &[("read", Effect::Read), ("write", Effect::Write)],
        )
    });
    let idempotent = fields.get("idempotent").map(|v| r.boolean("idempotent", v));
    let attempts = fields.get("attempts").map(|v| r.count("attempts", v));
    let args = fields
        .get("args")
        .map(|v| plain_object(r, "args", v, false));
    let binds = fields.member("binds").map(|m| {
        let values = plain_object(r, "binds", &m.value, true);
        if let (Some(obj), Some(n)) = (m.value.as_object(), &step_name) {
            for member in obj {
                let at = member.span();
                match artifacts.get(&*member.key) {
                    Some((first, by)) => r.report(
                        Diagnostic::new(
                            Code::E0605,
                            member.key_span,
                            format!(
                                "artifact `{}` is recorded by steps `{by}` and `{n}`",
                                member.key
                            ),
                        )
                        .with_label("committed again here")
                        .with_secondary(*first, "first committed here")
                        .with_help(
                            "an artifact has one producer: keep it on the step that bound it, \
                             or give the other binding its own name",
                        ),
                    ),
                    None => {
                        artifacts.insert(member.key.to_string(), (at, n.clone()));
                        spans.artifacts.insert(member.key.to_string(), at);
                    }
                }
            }
        }
        values
    });
    let failure = fields.member("failure").map(|m| read_failure(r, &m.value));
    let idempotency_key = fields
        .get("idempotency_key")
        .map(|v| r.string("idempotency_key", v).map(str::to_owned));

    // Fields that contradict the status.
    if let Some(status) = status {
        // An `invalid` step may keep the artifacts it committed before it
        // was invalidated (marking, not deletion): they are no longer
        // reusable, and a replan that refers to them gets E0308.
        if !matches!(status, Status::Complete | Status::Invalid)
            && let Some(m) = fields.member("binds")
            && m.value.as_object().is_some_and(|o| !o.is_empty())
        {
            r.report(
                Diagnostic::new(
                    Code::E0604,
                    m.key_span,
                    format!("a `{status}` step has artifacts"),
                )
                .with_label("only a `complete` step commits its binds")
                .with_help(
                    "a step's artifacts exist once its postconditions are verified: mark the \
                     step `complete`, or remove its `binds`",
                ),
            );
        }
        if status == Status::Complete
            && let Some(m) = fields.member("failure")
        {
            r.report(
                Diagnostic::new(Code::E0604, m.key_span, "a `complete` step has a `failure`")
                    .with_label("a complete step did not fail")
                    .with_help(
                        "mark the step `failed` (or `invalid`) if it did not complete, or \
                         remove its `failure`",
                    ),
            );
        }
    }

    Some(StepRecord {
        name: step_name?,
        tool: tool?,
        status: status?,
        effect: match effect {
            Some(v) => Some(v?),
            None => None,
        },
        idempotent: match idempotent {
            Some(v) => Some(v?),
            None => None,
        },
        attempts: match attempts {
            Some(v) => v?,
            None => 0,
        },
        args: match args {
            Some(v) => v?,
            None => BTreeMap::new(),
        },
        binds: match binds {
            Some(v) => v?,
            None => BTreeMap::new(),
        },
        failure: match failure {
            Some(v) => Some(v?),
            None => None,
        },
        idempotency_key: match idempotency_key {
            Some(v) => Some(v?),
            None => None,
        },
    })
}

/// An object of plain JSON values, each key once; `names`: the keys must be
/// names (bindings).
fn plain_object(
    r: &mut Reader<'_>,
    key: &str,
    v: &Json<'_>,
    names: bool,
) -> Option<BTreeMap<String, JsonValue>> {
    let Some(members) = v.as_object() else {
        r.ill_typed(&format!("`{key}`"), v, "an object");
        return None;
    };
    let mut out = BTreeMap::new();
    let mut ok = true;
    let members: Vec<_> = r.unique(members).collect();
    for m in members {
        if names && !is_ident(&m.key) {
            r.report(
                Diagnostic::new(
                    Code::E0601,
                    m.key_span,
                    format!("artifact name `{}` is not a name", m.key),
                )
                .with_label("not a binding name")
                .with_help(
                    "an artifact is recorded under its binding's name, as the plan binds it",
                ),
            );
            ok = false;
            continue;
        }
        out.insert(m.key.to_string(), JsonValue::from_json(&m.value));
    }
    ok.then_some(out)
}

fn read_failure(r: &mut Reader<'_>, v: &Json<'_>) -> Option<Failure> {
    let fields = r.fields(v, FAILURE, FAILURE_KEYS)?;
    let kinds = FailureKind::ALL.map(|k| (k.as_str(), k));
    let kind = match fields.get("kind") {
        Some(k) => word(r, "kind", k, &kinds),
        None => {
            r.missing_key(v.span, "kind", FAILURE);
            None
        }
    };
    let code = match fields.get("code") {
        Some(c) => match &c.value {
            Value::String(s) => Some(Some(s.to_string())),
            // A tool's error code may be a number (JSON-RPC, HTTP): kept as
            // its text.
            Value::Number(n) => Some(Some((*n).to_owned())),
            _ => {
                r.ill_typed("`code`", c, "a string or a number");
                None
            }
        },
        None => Some(None),
    };
    let retryable = match fields.get("retryable") {
        Some(b) => r.boolean("retryable", b).map(Some),
        None => Some(None),
    };
    Some(Failure {
        kind: kind?,
        code: code?,
        retryable: retryable?,
        expected: fields.get("expected").map(JsonValue::from_json),
        observed: fields.get("observed").map(JsonValue::from_json),
    })
}
