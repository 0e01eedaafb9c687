//! The JSON report agent loops read (`docs/json.md`).

use schemars::JsonSchema;
use serde::Serialize;

use crate::diagnostics::{Diagnostic, counts};
use crate::source::{SourceMap, Span};

/// The JSON document of `--format json` (`docs/json.md`). Its JSON Schema
/// (`schema/diagnostics.schema.json`) is generated from these types.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport<'a> {
    pub diagnostics: Vec<JsonDiagnostic<'a>>,
    pub errors: usize,
    pub warnings: usize,
    /// The `planc.toml` the check used, when it used one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<&'a str>,
    /// The `planc.toml` files the check used, when it used several (plans
    /// of several projects checked at once, each with its own): in the
    /// order of the plans given. `config` is then absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<&'a str>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonDiagnostic<'a> {
    #[schemars(extend("enum" = ["error", "warning", "note"]))]
    pub severity: &'static str,
    /// A stable code; `planc explain CODE` prints its page.
    #[schemars(extend("pattern" = "^[EWN][0-9]{4}$"))]
    pub code: &'static str,
    pub message: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
    pub pointer: Option<String>,
    pub step: Option<&'a str>,
    pub labels: Vec<JsonLabel<'a>>,
    pub help: Option<&'a str>,
    pub notes: &'a [crate::diagnostics::Text],
    pub fixes: Vec<JsonFix<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonLocation<'a> {
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub span: JsonSpan,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonSpan {
    pub start: u32,
    pub end: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonLabel<'a> {
    pub message: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
    pub pointer: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct JsonFix<'a> {
    pub title: &'a str,
    pub replacement: &'a str,
    #[serde(flatten)]
    pub location: JsonLocation<'a>,
}

fn location(sources: &SourceMap, span: Span) -> JsonLocation<'_> {
    let (start, end) = match sources.get(span.file) {
        Some(f) => (f.line_col(span.start), f.line_col(span.end)),
        None => Default::default(),
    };
    JsonLocation {
        file: sources.name(span.file),
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        span: JsonSpan {
            start: span.start,
            end: span.end,
        },
    }
}

pub(super) fn pointer(sources: &SourceMap, span: Span) -> Option<String> {
    sources.get(span.file).and_then(|f| f.pointer_at(span))
}

/// Builds the JSON document (not yet serialised).
pub fn json_report<'a>(sources: &'a SourceMap, diagnostics: &'a [Diagnostic]) -> JsonReport<'a> {
    let (errors, warnings) = counts(diagnostics);
    JsonReport {
        diagnostics: diagnostics
            .iter()
            .map(|d| JsonDiagnostic {
                severity: d.severity.as_str(),
                code: d.code.as_str(),
                message: &d.message,
                location: location(sources, d.span),
                pointer: pointer(sources, d.span),
                step: d.step.as_deref(),
                labels: d
                    .labels
                    .iter()
                    .map(|l| JsonLabel {
                        message: &l.message,
                        location: location(sources, l.span),
                        pointer: pointer(sources, l.span),
                    })
                    .collect(),
                help: d.help.as_deref(),
                notes: &d.notes,
                fixes: d
                    .fixes
                    .iter()
                    .map(|f| JsonFix {
                        title: &f.title,
                        replacement: &f.replacement,
                        location: location(sources, f.span),
                    })
                    .collect(),
            })
            .collect(),
        errors,
        warnings,
        config: None,
        configs: Vec::new(),
    }
}

/// The JSON document as pretty-printed text, ending in a newline.
pub fn json(sources: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    json_with_configs(sources, diagnostics, &[])
}

/// [`json`], naming the `planc.toml` files the check used: `config` when
/// it used one, `configs` when several, neither when none.
pub fn json_with_configs(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    configs: &[&str],
) -> String {
    let mut report = json_report(sources, diagnostics);
    match configs {
        [one] => report.config = Some(one),
        _ => report.configs = configs.to_vec(),
    }
    match serde_json::to_string_pretty(&report) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        // Serialising plain structs of strings and numbers cannot fail; if
        // it ever did, say so in the format the reader expects.
        Err(e) => format!(
            "{{\"diagnostics\": [], \"errors\": 1, \"warnings\": 0, \"internal_error\": {:?}}}\n",
            e.to_string()
        ),
    }
}
