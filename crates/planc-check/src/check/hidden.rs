//! W0408: characters that show as nothing, or reorder the text around
//! them, in a plan (the rule is [`crate::syntax::lexicon::is_hidden`]). A
//! right-to-left override or a zero-width space makes what an editor, a
//! terminal or a review shows differ from what a tool receives ("Trojan
//! Source"): a reviewer reads `acc_4711` while another string is sent.
//! Looked for in the file's text (strings, comments, anything an editor
//! shows): written as an escape (`\u{202E}` in text, `\u202e` in JSON),
//! the character is seen by whoever reads the plan, and the review page
//! and the reports write it escaped too. Names cannot hold one:
//! identifiers are ASCII.

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span};
use crate::syntax::lexicon::is_hidden;

/// The most W0408 a file gets: the first ones say what to look for, and a
/// file full of such characters must not make a report without end.
const MAX_PER_FILE: usize = 20;

/// `U+202E RIGHT-TO-LEFT OVERRIDE`: the code point and, for the
/// characters an attack uses, what it does.
fn describe(c: char) -> String {
    let what = match u32::from(c) {
        0x202A => " (left-to-right embedding)",
        0x202B => " (right-to-left embedding)",
        0x202C => " (pop directional formatting)",
        0x202D => " (left-to-right override)",
        0x202E => " (right-to-left override)",
        0x2066 => " (left-to-right isolate)",
        0x2067 => " (right-to-left isolate)",
        0x2068 => " (first strong isolate)",
        0x2069 => " (pop directional isolate)",
        0x200B => " (zero-width space)",
        0x200C => " (zero-width non-joiner)",
        0x200D => " (zero-width joiner)",
        0x200E => " (left-to-right mark)",
        0x200F => " (right-to-left mark)",
        0x2060 => " (word joiner)",
        0xFEFF => " (zero-width no-break space)",
        0xAD => " (soft hyphen)",
        0xE0000..=0xE007F => " (tag character)",
        _ => "",
    };
    format!("U+{:04X}{what}", u32::from(c))
}

fn warning(span: Span, c: char) -> Diagnostic {
    Diagnostic::new(
        Code::W0408,
        span,
        format!(
            "invisible character {} in the plan: what is shown is not what runs",
            describe(c)
        ),
    )
    .with_label("hidden here")
    .with_help(format!(
        "remove it, or, if the value needs it, write it as the escape `\\u{{{:04X}}}` so that a reader sees it",
        u32::from(c)
    ))
}

/// The W0408 of one plan file: each run of hidden characters in its text,
/// at most [`MAX_PER_FILE`].
pub fn hidden_characters(file: FileId, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Every hidden character is outside ASCII but the controls, which both
    // front ends refuse raw: only non-ASCII text needs a look.
    if !text.is_ascii() {
        let mut run_end = 0;
        for (at, c) in text.char_indices() {
            if at < run_end || !is_hidden(c) || c.is_ascii() {
                continue;
            }
            // A byte order mark that opens the file is not in the text
            // either front end reads.
            if at == 0 && c == '\u{feff}' {
                continue;
            }
            let rest = text.get(at..).unwrap_or_default();
            let len: usize = rest
                .chars()
                .take_while(|&c| is_hidden(c))
                .map(char::len_utf8)
                .sum();
            run_end = at + len;
            out.push(warning(Span::new(file, at, run_end), c));
            if out.len() >= MAX_PER_FILE {
                return out;
            }
        }
    }
    out
}
