//! SARIF 2.1.0, for code scanning.

use super::json::pointer;
use crate::diagnostics::{Code, Diagnostic, Severity, explain};
use crate::source::{FileId, SourceMap, Span};

/// A file's place in a SARIF log (`project::artifact_uri` in planc-check makes one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArtifactUri {
    /// Relative to `%SRCROOT%`.
    UnderRoot(String),
    /// A `file:` URI, for a file outside the root.
    Absolute(String),
}

/// Percent-encodes a path for a URI: letters, digits, `/ - . _ ~` stay, and
/// a drive letter's colon (`C:` after a leading `/`); every other byte is
/// `%XX`.
pub fn encode_uri_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let drive_colon = b == b':'
            && i == 2
            && bytes.first() == Some(&b'/')
            && bytes.get(1).is_some_and(u8::is_ascii_alphabetic);
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') || drive_colon
        {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How a SARIF log names files and what it holds: the shell knows where
/// the files are on disk (see `project::artifact_uri`); the renderer does no
/// IO.
#[derive(Clone, Debug, Default)]
pub struct SarifOptions {
    /// The `file:` URI (ending in `/`) of the folder `%SRCROOT%` stands
    /// for, written into the log as its `originalUriBaseIds`.
    pub root_uri: Option<String>,
    /// Each file's place; a file not listed is named as it was given,
    /// percent-encoded, with no base.
    pub uris: Vec<(FileId, ArtifactUri)>,
    /// Notes (N-codes) are left out unless asked for: code scanning shows
    /// every result as an alert, and a note is not one.
    pub include_notes: bool,
}

/// The base every relative URI of planc's SARIF logs resolves against.
pub const SARIF_SRCROOT: &str = "%SRCROOT%";

/// SARIF 2.1.0, fit for code scanning: one run of the `planc` tool, a rule
/// per code (its title, the explain page as help, and as `helpUri` when
/// the crate names its repository, which is also the `informationUri`), a
/// result per diagnostic with its place relative to `%SRCROOT%`, its fixes,
/// and a `partialFingerprints` entry that survives edits elsewhere in the
/// file.
pub fn sarif(sources: &SourceMap, diagnostics: &[Diagnostic], options: &SarifOptions) -> String {
    use serde_json::{Value, json};
    // Both addresses are optional in SARIF: without a repository address
    // in Cargo.toml there is none to give, rather than one leading nowhere.
    let repository = Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty());
    let diagnostics: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| options.include_notes || d.severity != Severity::Note)
        .collect();
    let mut codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|c| {
            let page = explain::page(*c);
            let mut rule = json!({
                "id": c.as_str(),
                "name": c.as_str(),
                "shortDescription": {"text": c.title()},
                "help": {"text": page, "markdown": page},
                "defaultConfiguration": {"level": c.severity().as_str()},
            });
            if let (Some(repository), Some(rule)) = (repository, rule.as_object_mut()) {
                rule.insert(
                    "helpUri".into(),
                    json!(format!(
                        "{repository}/blob/main/docs/explain/{}.md",
                        c.as_str()
                    )),
                );
            }
            rule
        })
        .collect();
    let artifact = |file: FileId| -> Value {
        match options.uris.iter().find(|(id, _)| *id == file) {
            Some((_, ArtifactUri::UnderRoot(uri))) => {
                json!({"uri": uri, "uriBaseId": SARIF_SRCROOT})
            }
            Some((_, ArtifactUri::Absolute(uri))) => json!({"uri": uri}),
            None => json!({"uri": encode_uri_path(sources.name(file))}),
        }
    };
    let region = |span: Span| -> Value {
        let (start, end) = match sources.get(span.file) {
            Some(f) => (f.line_col(span.start), f.line_col(span.end)),
            None => Default::default(),
        };
        json!({
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
            "byteOffset": span.start,
            "byteLength": span.len(),
        })
    };
    let location = |span: Span, message: Option<&str>, id: Option<usize>| -> Value {
        let mut loc = serde_json::Map::new();
        if let Some(id) = id {
            loc.insert("id".into(), json!(id));
        }
        loc.insert(
            "physicalLocation".into(),
            json!({
                "artifactLocation": artifact(span.file),
                "region": region(span),
            }),
        );
        if let Some(m) = message {
            loc.insert("message".into(), json!({"text": m}));
        }
        Value::Object(loc)
    };
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let text = d.full_message();
            let mut r = serde_json::Map::new();
            r.insert("ruleId".into(), json!(d.code.as_str()));
            r.insert(
                "ruleIndex".into(),
                json!(codes.iter().position(|c| *c == d.code).unwrap_or(0)),
            );
            r.insert("level".into(), json!(d.severity.as_str()));
            r.insert("message".into(), json!({"text": text}));
            r.insert("locations".into(), json!([location(d.span, None, None)]));
            if !d.labels.is_empty() {
                let related: Vec<Value> = d
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| location(l.span, Some(&l.message), Some(i)))
                    .collect();
                r.insert("relatedLocations".into(), Value::Array(related));
            }
            r.insert(
                "partialFingerprints".into(),
                json!({"plancResult/v1": fingerprint(sources, d)}),
            );
            if !d.fixes.is_empty() {
                let fixes: Vec<Value> = d
                    .fixes
                    .iter()
                    .map(|f| {
                        json!({
                            "description": {"text": f.title},
                            "artifactChanges": [{
                                "artifactLocation": artifact(f.span.file),
                                "replacements": [{
                                    "deletedRegion": region(f.span),
                                    "insertedContent": {"text": f.replacement},
                                }],
                            }],
                        })
                    })
                    .collect();
                r.insert("fixes".into(), Value::Array(fixes));
            }
            let mut props = serde_json::Map::new();
            if let Some(step) = &d.step {
                props.insert("step".into(), json!(step));
            }
            if let Some(p) = pointer(sources, d.span) {
                props.insert("pointer".into(), json!(p));
            }
            if !props.is_empty() {
                r.insert("properties".into(), Value::Object(props));
            }
            Value::Object(r)
        })
        .collect();
    let mut run = serde_json::Map::new();
    let mut driver = json!({
        "name": "planc",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    });
    if let (Some(repository), Some(d)) = (repository, driver.as_object_mut()) {
        d.insert("informationUri".into(), json!(repository));
    }
    run.insert("tool".into(), json!({ "driver": driver }));
    if let Some(root) = &options.root_uri {
        run.insert(
            "originalUriBaseIds".into(),
            json!({SARIF_SRCROOT: {"uri": root}}),
        );
    }
    run.insert("columnKind".into(), json!("unicodeCodePoints"));
    run.insert("results".into(), Value::Array(results));
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [Value::Object(run)],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A result's fingerprint for code scanning, which matches alerts across
/// runs by it: the code, the step, the message and the text under the
/// primary span, hashed (64-bit FNV-1a, hex). Neither the line nor the file
/// name takes part, so an edit above the result or a moved file keeps its
/// alert.
fn fingerprint(sources: &SourceMap, d: &Diagnostic) -> String {
    let under = sources
        .get(d.span.file)
        .map(|f| f.slice(d.span))
        .unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let parts = [
        d.code.as_str(),
        d.step.as_deref().unwrap_or(""),
        d.message.as_str(),
        under,
    ];
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}
