//! The one diagnostic model of planc.
//!
//! Every stage (lexer, parser, JSON front end, checker) reports a
//! [`Diagnostic`]; the renderers (`human`, `short`, `json`, `sarif`, in
//! `crate::render`, above the front ends whose lexicon and JSON pointers
//! they use) and the language server read it unchanged. A diagnostic always has a primary span:
//! there is no diagnostic without a location.

mod codes;
pub mod explain;

pub use codes::Code;

use std::borrow::Cow;

use crate::ast::Str;
use crate::source::Span;

/// A diagnostic's text that is often the same words every time (a label,
/// a note, a help): a constant is kept as it is, without a copy; a text
/// made for the occasion is owned. A plan of 10,000 steps may carry 3,000
/// notes (docs/performance.md, "Where the memory goes").
pub type Text = Cow<'static, str>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A secondary location that explains the primary one ("bound here").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub span: Span,
    pub message: Text,
}

/// A machine-applicable edit that fixes the problem, such as the "did you
/// mean" replacement of a misspelt name. The language server offers these as
/// quick fixes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    /// What the fix does, for a menu: "replace with `billing.issue_credit`".
    pub title: String,
    pub span: Span,
    pub replacement: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// Lowercase, no final period, user input in backticks
    /// (`docs/diagnostics.md`).
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Text shown at the primary span; empty for none.
    pub label: Text,
    /// Secondary locations, possibly in other files.
    pub labels: Vec<Label>,
    /// How to fix it, when that is known.
    pub help: Option<Text>,
    /// Further facts that are not locations.
    pub notes: Vec<Text>,
    /// The name of the step the problem is in, where there is one.
    pub step: Option<Str>,
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            span,
            label: Text::Borrowed(""),
            labels: Vec::new(),
            help: None,
            notes: Vec::new(),
            step: None,
            fixes: Vec::new(),
        }
    }

    /// Sets the text shown at the primary span.
    pub fn with_label(mut self, label: impl Into<Text>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<Text>) -> Diagnostic {
        crate::push_sparse(
            &mut self.labels,
            Label {
                span,
                message: message.into(),
            },
        );
        self
    }

    pub fn with_help(mut self, help: impl Into<Text>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<Text>) -> Diagnostic {
        crate::push_sparse(&mut self.notes, note.into());
        self
    }

    pub fn in_step(mut self, step: impl Into<Str>) -> Diagnostic {
        self.step = Some(step.into());
        self
    }

    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Diagnostic {
        crate::push_sparse(
            &mut self.fixes,
            Fix {
                title: title.into(),
                span,
                replacement: replacement.into(),
            },
        );
        self
    }

    /// The message with the help and the notes after it, one per line
    /// (`help: …`, `note: …`): for the places that show one text, the
    /// language server and SARIF.
    pub fn full_message(&self) -> String {
        let mut text = self.message.clone();
        if let Some(help) = &self.help {
            text.push_str("\nhelp: ");
            text.push_str(help);
        }
        for note in &self.notes {
            text.push_str("\nnote: ");
            text.push_str(note);
        }
        text
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts errors and warnings by position (file, start, end), then by code,
/// and the notes after them in the same order, so that output is
/// deterministic whatever order the passes found them in.
///
/// Notes come after every error and warning: a note says what the executor
/// or a reviewer will do with a plan that is otherwise right, and must not
/// stand before the errors that make it wrong.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    let key = |d: &Diagnostic| {
        (
            d.severity == Severity::Note,
            d.span.file,
            d.span.start,
            d.span.end,
            d.code,
        )
    };
    diagnostics.sort_by_key(key);
}

/// Counts errors and warnings, as the summary lines and the JSON document
/// report them.
pub fn counts(diagnostics: &[Diagnostic]) -> (usize, usize) {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    (errors, warnings)
}
