//! `planc check --lenient` (and `Compiler.check(lenient=True)`): a JSON
//! plan as a model's raw reply holds it, inside a Markdown code fence or
//! between sentences. [`unwrap`] finds the one object and blanks the rest
//! (each byte a space, line breaks kept), so every span of the plan stays
//! where it is in the reply; [`note`] is the W0509 that says what was
//! ignored (`docs/json.md`).
//!
//! It fails closed: a reply with two fenced objects, or an object that
//! does not end where the reply's last `}` is, is not guessed at. The text
//! is left as it is and the JSON reader reports it.

use std::ops::Range;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, SourceKind, SourceMap, Span};

/// `--lenient` applied to the file `id` of `sources`: the plan inside the
/// reply, its wrapper blanked in place (every span stays where it is) and
/// the file read as JSON; the W0509 that says what was ignored. `None`
/// (and the file untouched) when there is nothing to strip. `planc check
/// --lenient` and the fixtures of `tests/ui/lenient/` go through here.
pub fn apply(sources: &mut SourceMap, id: FileId) -> Option<Diagnostic> {
    let file = sources.get_mut(id)?;
    let u = unwrap(&file.text)?;
    let note = note(id, &file.text, &u);
    file.set_text(u.text);
    file.kind = SourceKind::Json;
    Some(note)
}

/// A reply with its wrapper blanked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unwrapped {
    /// The reply, every byte outside `object` a space (line breaks kept).
    pub text: String,
    /// The plan's object, `{` to `}`.
    pub object: Range<usize>,
    /// Whether it stood in a Markdown code fence.
    pub fenced: bool,
}

/// The plan object inside a reply, with the wrapper blanked; `None` when
/// there is nothing to strip (the reply is the object, with at most
/// whitespace around it), no object, or more than one fenced object.
pub fn unwrap(reply: &str) -> Option<Unwrapped> {
    let trimmed = reply.trim();
    if trimmed.starts_with('{') && trimmed.ends_with('}') {
        return None;
    }
    let fenced = fenced_objects(reply);
    let (object, is_fenced) = match fenced.as_slice() {
        [one] => (one.clone(), true),
        [] => {
            let start = reply.find('{')?;
            let end = reply.rfind('}')? + 1;
            if end <= start {
                return None;
            }
            (start..end, false)
        }
        _ => return None,
    };
    let text: String = reply
        .char_indices()
        .flat_map(|(at, c)| {
            let keep = object.contains(&at) || c == '\n' || c == '\r';
            let n = if keep { 1 } else { c.len_utf8() };
            std::iter::repeat_n(if keep { c } else { ' ' }, n)
        })
        .collect();
    Some(Unwrapped {
        text,
        object,
        fenced: is_fenced,
    })
}

/// The contents of the Markdown code fences (lines opening with three
/// backticks or tildes) that hold an object: from its `{` to its last `}`.
fn fenced_objects(reply: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    let mut at = 0;
    for line in reply.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let t = line.trim_start();
        if !is_fence(t) {
            continue;
        }
        let marker = t.get(..3).unwrap_or("");
        match open {
            None => open = Some((at, marker)),
            Some((body, m)) if m == marker && t.trim_end() == marker => {
                let inner = reply.get(body..start).unwrap_or("");
                let lead = inner.len() - inner.trim_start().len();
                let trail = inner.trim_end().len();
                if inner.trim_start().starts_with('{') && inner.trim_end().ends_with('}') {
                    found.push(body + lead..body + trail);
                }
                open = None;
            }
            Some(_) => {}
        }
    }
    found
}

/// Whether a line opens or closes a Markdown code fence.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// W0509: what [`unwrap`] ignored around the plan, at the plan's first
/// byte in `file` (whose text is the unwrapped reply).
pub fn note(file: FileId, reply: &str, u: &Unwrapped) -> Diagnostic {
    // The words around the plan, the fence lines left out.
    let words = |s: &str| -> String {
        s.lines()
            .filter(|l| !is_fence(l))
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let before = words(reply.get(..u.object.start).unwrap_or(""));
    let after = words(reply.get(u.object.end..).unwrap_or(""));
    let shown = |one_line: &str| match one_line.char_indices().nth(40) {
        Some((cut, _)) => format!("`{}…`", one_line.get(..cut).unwrap_or("")),
        None => format!("`{one_line}`"),
    };
    let mut parts = Vec::new();
    if u.fenced {
        parts.push("a Markdown code fence".to_string());
    }
    if !before.is_empty() {
        parts.push(format!("text before it ({})", shown(&before)));
    }
    if !after.is_empty() {
        parts.push(format!("text after it ({})", shown(&after)));
    }
    if parts.is_empty() {
        parts.push("the text around it".to_string());
    }
    let start = u.object.start;
    Diagnostic::new(
        Code::W0509,
        Span::new(file, start, start + 1),
        format!(
            "the plan was read from inside a wrapper: {} ignored",
            parts.join(", ")
        ),
    )
    .with_label("the plan starts here")
    .with_help("ask the planner for the JSON object alone (a structured-output schema from `planc schema` does), or keep `--lenient`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_fences_and_text_keeping_offsets() {
        let reply = "Here is the plan:\n```json\n{\"steps\": []}\n```\nThanks é.";
        let u = unwrap(reply).unwrap();
        assert!(u.fenced);
        assert_eq!(&reply[u.object.clone()], "{\"steps\": []}");
        assert_eq!(u.text.len(), reply.len());
        assert_eq!(&u.text[u.object.clone()], "{\"steps\": []}");
        assert_eq!(u.text.trim(), "{\"steps\": []}");
        assert_eq!(u.text.lines().count(), reply.lines().count());

        let u = unwrap("Sure! {\"steps\": [{\"tool\": \"t\"}]} Done.").unwrap();
        assert!(!u.fenced);
        assert_eq!(u.text.trim(), "{\"steps\": [{\"tool\": \"t\"}]}");
        let d = note(FileId(0), "Sure! {\"steps\": []} Done.", &u);
        assert_eq!(d.code, Code::W0509);
        let reply = "Plan:\n```json\n{}\n```\n";
        let d = note(FileId(0), reply, &unwrap(reply).unwrap());
        assert_eq!(
            d.message,
            "the plan was read from inside a wrapper: a Markdown code fence, text before it (`Plan:`) ignored"
        );
    }

    #[test]
    fn fails_closed() {
        // Nothing to strip.
        assert_eq!(unwrap("  {\"steps\": []}\n"), None);
        // No object.
        assert_eq!(unwrap("I cannot do that."), None);
        assert_eq!(unwrap("} backwards {"), None);
        // Two fenced objects: which one is meant is not guessed.
        let two = "```json\n{\"a\": 1}\n```\nor\n```json\n{\"b\": 2}\n```\n";
        assert_eq!(unwrap(two), None);
        // Two bare objects: the span between them stays, and does not parse.
        let u = unwrap("A: {\"a\": 1} or B: {\"b\": 2}").unwrap();
        assert!(u.text.contains("or B:"));
    }
}
