//! The short format: one line per diagnostic, codespan-reporting's short
//! style.

use std::fmt::Write as _;
use std::ops::Range;

use super::clamp;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{FileId, SourceMap};
use crate::syntax::lexicon;

/// Serves a [`SourceMap`]'s files to codespan-reporting: each file's name,
/// text and the line index it already keeps (built once, on first use), so
/// a report of many diagnostics over one long line does not index the file
/// again for each of them.
struct Files<'a>(&'a SourceMap);

impl<'a> codespan_reporting::files::Files<'a> for Files<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.file(id).map(|f| f.name.as_str())
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.file(id).map(|f| f.text.as_str())
    }

    fn line_index(
        &'a self,
        id: FileId,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        Ok(file.line_index(u32::try_from(byte_index).unwrap_or(u32::MAX)))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<Range<usize>, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        let max = file.line_count().saturating_sub(1);
        if line_index > max {
            return Err(codespan_reporting::files::Error::LineTooLarge {
                given: line_index,
                max,
            });
        }
        Ok(file.line_start(line_index)..file.line_start(line_index + 1))
    }

    /// Characters from the line's start, from the file's table of counts
    /// (the trait's default walks the line byte by byte: 32 s for the
    /// 5,000 diagnostics of a one-line 298 KB plan in a debug build; a
    /// count from the line's start is quadratic in a one-line plan).
    fn column_number(
        &'a self,
        id: FileId,
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let file = self.file(id)?;
        let start = file.line_start(line_index).min(byte_index);
        Ok(file.chars_between(start, byte_index) + 1)
    }
}

impl Files<'_> {
    fn file(
        &self,
        id: FileId,
    ) -> Result<&crate::source::SourceFile, codespan_reporting::files::Error> {
        self.0
            .get(id)
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }
}

/// One line per diagnostic, codespan-reporting's short style:
/// `file:line:col: error[E0106]: message` (the column counts characters
/// from the line's start), hidden characters in the message escaped. A
/// diagnostic whose file the map does not hold is written without a
/// position.
pub fn short(sources: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    use codespan_reporting::diagnostic as cs;
    let files = Files(sources);
    let config = codespan_reporting::term::Config {
        display_style: codespan_reporting::term::DisplayStyle::Short,
        ..Default::default()
    };
    let mut out = String::new();
    for d in diagnostics {
        let severity = match d.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
            Severity::Note => cs::Severity::Note,
        };
        let mut report = cs::Diagnostic::new(severity)
            .with_code(d.code.as_str())
            .with_message(lexicon::show_hidden(&d.message));
        if sources.get(d.span.file).is_some() {
            report = report.with_labels(vec![cs::Label::primary(
                d.span.file,
                clamp(sources, d.span),
            )]);
        }
        if codespan_reporting::term::emit_to_string(&mut out, &config, &files, &report).is_err() {
            // Only a file missing from the map fails, and that was
            // checked: write the line without a position all the same.
            let _ = writeln!(
                out,
                "{}[{}]: {}",
                d.severity.as_str(),
                d.code.as_str(),
                lexicon::show_hidden(&d.message)
            );
        }
    }
    out
}
