//! Between planc's byte spans and the protocol's UTF-16 positions, and from
//! planc's [`Diagnostic`] to the protocol's: the one place that maps them.

use lsp_types as lsp;

use super::analysis::Analysis;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{SourceFile, Span};

pub fn position(file: &SourceFile, offset: u32) -> lsp::Position {
    let (line, character) = file.utf16_position(offset);
    lsp::Position { line, character }
}

pub fn range(file: &SourceFile, span: Span) -> lsp::Range {
    lsp::Range {
        start: position(file, span.start),
        end: position(file, span.end),
    }
}

/// The byte offset of a position; positions past a line's end clamp to it.
pub fn offset(file: &SourceFile, pos: lsp::Position) -> usize {
    file.offset_of_utf16(pos.line, pos.character)
}

/// The span of an LSP range in `file`, start and end in order.
pub fn span(file: &SourceFile, r: lsp::Range) -> Span {
    let a = offset(file, r.start);
    let b = offset(file, r.end);
    Span::new(file.id, a.min(b), a.max(b))
}

/// A span of an analysis as a location.
pub fn location(a: &Analysis, span: Span) -> Option<lsp::Location> {
    let file = a.file(span.file)?;
    let uri = a.uri(span.file)?.clone();
    Some(lsp::Location {
        uri,
        range: range(file, span),
    })
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Note => lsp::DiagnosticSeverity::INFORMATION,
    }
}

/// A planc diagnostic for the protocol: the code and its title (in `data`,
/// with the step), the help and notes after the message, each secondary
/// label as related information, and the code's explain page (`page`, see
/// [`super::pages`]) as `codeDescription`. Returns the URI of the file the
/// diagnostic is in.
pub fn diagnostic(
    a: &Analysis,
    d: &Diagnostic,
    page: Option<&lsp::Uri>,
) -> Option<(lsp::Uri, lsp::Diagnostic)> {
    let file = a.file(d.span.file)?;
    let uri = a.uri(d.span.file)?.clone();
    let message = d.full_message();
    let mut related: Vec<lsp::DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            Some(lsp::DiagnosticRelatedInformation {
                location: location(a, l.span)?,
                message: l.message.to_string(),
            })
        })
        .collect();
    if !d.label.is_empty() && !d.labels.is_empty() {
        // With other labels about, the primary one says which is which.
        if let Some(location) = location(a, d.span) {
            related.insert(
                0,
                lsp::DiagnosticRelatedInformation {
                    location,
                    message: d.label.to_string(),
                },
            );
        }
    }
    let tags = d
        .code
        .is_unnecessary()
        .then(|| vec![lsp::DiagnosticTag::UNNECESSARY]);
    let data = serde_json::json!({
        "title": d.code.title(),
        "explain": format!("planc explain {}", d.code),
        "step": d.step,
    });
    Some((
        uri,
        lsp::Diagnostic {
            range: range(file, d.span),
            severity: Some(severity(d.severity)),
            code: Some(lsp::NumberOrString::String(d.code.as_str().to_string())),
            code_description: page.map(|href| lsp::CodeDescription { href: href.clone() }),
            source: Some("planc".to_string()),
            message,
            related_information: if related.is_empty() {
                None
            } else {
                Some(related)
            },
            tags,
            data: Some(data),
        },
    ))
}

/// A problem loading the project (`planc.toml`, a catalogue or policy file),
/// shown on the document's first line.
pub fn project_error(file: &SourceFile, message: &str) -> lsp::Diagnostic {
    let end = if file.line_count() > 1 {
        file.line_start(1).saturating_sub(1)
    } else {
        file.text.len()
    };
    let first_line = Span::new(file.id, 0, end);
    lsp::Diagnostic {
        range: range(file, first_line),
        severity: Some(lsp::DiagnosticSeverity::ERROR),
        code: None,
        code_description: None,
        source: Some("planc".to_string()),
        message: message.to_string(),
        related_information: None,
        tags: None,
        data: None,
    }
}
