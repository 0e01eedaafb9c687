//! Literals of the text form: string escapes and interpolation, and the
//! calendar check of dates and datetimes.
//!
//! The lexer calls the `check_*` functions once per token and reports
//! E0002; the parser then decodes only tokens that passed, so decoding
//! itself cannot fail except for interpolation, which only the parser can
//! judge (a string is interpolated where an expression stands, and plain
//! text where a literal stands).

use std::fmt::Write as _;

use super::ast::{self, ExprKind, InterpPart, Literal, Reference};
use super::lexicon::is_ident;
use crate::catalog::{Date, Datetime};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{FileId, Span, Spanned};

/// Reports every bad escape of a string token (`raw` with its quotes,
/// starting at byte `offset` of the file), each with the span of the escape.
pub fn check_string(file: FileId, offset: usize, raw: &str, diags: &mut Vec<Diagnostic>) {
    let body = inner(raw);
    let bytes = body.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(body, i) {
            Ok((_, len)) => i += len,
            Err((len, message)) => {
                let start = offset + 1 + i;
                diags.push(
                    Diagnostic::new(Code::E0002, Span::new(file, start, start + len), message)
                        .with_label("invalid escape")
                        .with_help(
                            "the escapes are `\\\"` `\\\\` `\\n` `\\t` `\\r` `\\0` `\\$` and `\\u{...}` with 1 to 6 hex digits",
                        ),
                );
                i += len.max(1);
            }
        }
    }
}

/// The length in bytes of the string token at the start of `s` (which
/// starts with its `"`), as the lexer reads one: up to the next `"` not
/// escaped, on the same line. `None` when it is not closed on its line.
pub fn string_len(s: &str) -> Option<usize> {
    let mut bytes = s.bytes().enumerate().skip(1);
    while let Some((i, b)) = bytes.next() {
        match b {
            b'"' => return Some(i + 1),
            b'\\' => {
                if let Some((_, b'\r' | b'\n')) | None = bytes.next() {
                    return None;
                }
            }
            b'\r' | b'\n' => return None,
            _ => {}
        }
    }
    None
}

/// Whether every escape of a string token (`raw` with its quotes) is one
/// the text form reads: what [`check_string`] reports nothing for.
pub fn escapes_ok(raw: &str) -> bool {
    let body = inner(raw);
    let mut i = 0;
    while let Some(at) = body.get(i..).and_then(|rest| rest.find('\\')) {
        match escape_at(body, i + at) {
            Ok((_, len)) => i += at + len,
            Err(_) => return false,
        }
    }
    true
}

/// The text between the quotes of a string token.
fn inner(raw: &str) -> &str {
    let s = raw.strip_prefix('"').unwrap_or(raw);
    s.strip_suffix('"').unwrap_or(s)
}

/// Reads the escape at byte `i` of `body` (which holds a backslash there):
/// the character it stands for and its length in bytes, or the length of the
/// bad escape and a message.
fn escape_at(body: &str, i: usize) -> Result<(char, usize), (usize, String)> {
    let rest = body.get(i + 1..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return Err((1, "a `\\` must be followed by an escape".to_string()));
    };
    let simple = match c {
        '"' => Some('"'),
        '\\' => Some('\\'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0' => Some('\0'),
        '$' => Some('$'),
        _ => None,
    };
    if let Some(ch) = simple {
        return Ok((ch, 2));
    }
    if c != 'u' {
        let shown = if c.is_control() {
            format!("U+{:04X}", c as u32)
        } else {
            c.to_string()
        };
        return Err((1 + c.len_utf8(), format!("unknown escape `\\{shown}`")));
    }
    // \u{...}
    let after_u = rest.get(1..).unwrap_or("");
    if !after_u.starts_with('{') {
        return Err((
            2,
            "a `\\u` escape is written `\\u{...}` with 1 to 6 hex digits".to_string(),
        ));
    }
    let digits: String = after_u
        .chars()
        .skip(1)
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    let closed = after_u
        .get(1 + digits.len()..)
        .is_some_and(|s| s.starts_with('}'));
    let len = 3 + digits.len() + usize::from(closed);
    if !closed || digits.is_empty() || digits.len() > 6 {
        return Err((
            len,
            "a `\\u` escape is written `\\u{...}` with 1 to 6 hex digits".to_string(),
        ));
    }
    let value = u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX);
    match char::from_u32(value) {
        Some(ch) => Ok((ch, len)),
        None => Err((
            len,
            format!("`\\u{{{digits}}}` is not a Unicode scalar value"),
        )),
    }
}

/// Decodes a string token whose escapes were checked, as plain text: `${`
/// stays as written.
pub fn decode(raw: &str) -> String {
    let body = inner(raw);
    if !body.contains('\\') {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while let Some(c) = body.get(i..).and_then(|s| s.chars().next()) {
        if c == '\\'
            && let Ok((ch, len)) = escape_at(body, i)
        {
            out.push(ch);
            i += len;
            continue;
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Decodes a string token that stands where an expression may interpolate
/// references: `"renews on ${period_end}"`. A string without `${` is a
/// plain string literal. `raw` starts at byte `offset` of the file; the
/// references keep their spans in the file.
pub fn decode_interp(file: FileId, offset: usize, raw: &str) -> Result<ExprKind, Box<Diagnostic>> {
    let body = inner(raw);
    if !body.contains("${") {
        return Ok(ExprKind::Literal(Literal::String(decode(raw).into())));
    }
    let base = offset + 1;
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while let Some(c) = body.get(i..).and_then(|s| s.chars().next()) {
        if c == '\\'
            && let Ok((ch, len)) = escape_at(body, i)
        {
            text.push(ch);
            i += len;
            continue;
        }
        if c == '$' && body.get(i + 1..).is_some_and(|s| s.starts_with('{')) {
            let open = i;
            let start = i + 2;
            let close = body
                .get(start..)
                .and_then(|s| s.find('}'))
                .map(|n| start + n);
            let Some(close) = close else {
                return Err(Box::new(
                    Diagnostic::new(
                        Code::E0002,
                        Span::new(file, base + open, base + body.len()),
                        "unclosed interpolation: `${` has no matching `}`",
                    )
                    .with_label("opened here")
                    .with_help("close it with `}`, or write `\\${` for a literal `${`"),
                ));
            };
            let inside = body.get(start..close).unwrap_or("");
            let reference = reference_in(file, base + start, inside).ok_or_else(|| {
                Box::new(Diagnostic::new(
                    Code::E0002,
                    Span::new(file, base + open, base + close + 1),
                    format!("invalid interpolation `${{{inside}}}`: expected the name of a binding"),
                )
                .with_label("not a reference")
                .with_help("interpolate a binding as `${name}` or `${name.member}`; write `\\${` for a literal `${`"))
            })?;
            if !text.is_empty() {
                parts.push(InterpPart::Text(std::mem::take(&mut text).into()));
            }
            parts.push(InterpPart::Ref(reference));
            i = close + 1;
            continue;
        }
        text.push(c);
        i += c.len_utf8();
    }
    if !parts.iter().any(|p| matches!(p, InterpPart::Ref(_))) {
        // Only escaped `\${`: plain text after all.
        return Ok(ExprKind::Literal(Literal::String(text.into())));
    }
    if !text.is_empty() {
        parts.push(InterpPart::Text(text.into()));
    }
    Ok(ExprKind::Interp(parts))
}

/// Reads `name` or `name.member...` exactly (no spaces), at `offset`.
fn reference_in(file: FileId, offset: usize, text: &str) -> Option<Spanned<Reference>> {
    let mut names = Vec::new();
    let mut at = offset;
    for part in text.split('.') {
        if !is_ident(part) {
            return None;
        }
        names.push(Spanned::new(
            ast::Str::from(part),
            Span::new(file, at, at + part.len()),
        ));
        at += part.len() + 1;
    }
    let mut names = names.into_iter();
    let name = names.next()?;
    Some(Spanned::new(
        Reference {
            name,
            members: names.collect(),
        },
        Span::new(file, offset, offset + text.len()),
    ))
}

/// A string as a quoted literal of the text form: `"` [`escape_text`] `"`.
pub fn string_text(s: &str, out: &mut String) {
    out.push('"');
    escape_text(s, out);
    out.push('"');
}

/// A string's text between quotes, escaped for the text form: every
/// character it has an escape for, `\$` before `{` (so that no `${` is an
/// interpolation), and other control characters as `\u{…}`: what
/// [`decode`] and [`decode_interp`] read back.
pub fn escape_text(s: &str, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// Checks that a `DATE` token is a calendar date, the rule of
/// [`Date::read`]; `Err` says why not.
pub fn check_date(s: &str) -> Result<(), String> {
    Date::read(s).map(drop)
}

/// Checks that a `DATETIME` token is a real date and time, the rule of
/// [`Datetime::read`]; `Err` says why not.
pub fn check_datetime(s: &str) -> Result<(), String> {
    Datetime::read(s).map(drop)
}

/// The E0002 for a `DATE` token that is not on the calendar.
pub fn invalid_date(span: Span, text: &str, why: &str) -> Diagnostic {
    invalid_calendar(
        span,
        "date",
        text,
        why,
        "not a calendar date",
        "write a date that is on the calendar, as `YYYY-MM-DD`",
    )
}

/// The E0002 for a `DATETIME` token that is not a real date and time.
pub fn invalid_datetime(span: Span, text: &str, why: &str) -> Diagnostic {
    invalid_calendar(
        span,
        "datetime",
        text,
        why,
        "not a valid date and time",
        "write a real date and time, as `2026-03-04T10:00:00Z` or `2026-03-04T10:00:00+01:00`",
    )
}

fn invalid_calendar(
    span: Span,
    kind: &str,
    text: &str,
    why: &str,
    label: &'static str,
    help: &'static str,
) -> Diagnostic {
    Diagnostic::new(Code::E0002, span, format!("invalid {kind} `{text}`: {why}"))
        .with_label(label)
        .with_help(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: FileId = FileId(0);

    fn escapes(raw: &str) -> Vec<(u32, u32, String)> {
        let mut d = Vec::new();
        check_string(F, 10, raw, &mut d);
        assert!(d.iter().all(|d| d.code == Code::E0002));
        d.into_iter()
            .map(|d| (d.span.start, d.span.end, d.message))
            .collect()
    }

    #[test]
    fn good_escapes_decode() {
        let raw = r#""a\"b\\c\nd\te\rf\0g\$h\u{e9}\u{1F600}""#;
        assert!(escapes(raw).is_empty());
        assert_eq!(decode(raw), "a\"b\\c\nd\te\rf\0g$hé😀");
    }

    #[test]
    fn bad_escapes_have_the_span_of_the_escape() {
        // offset 10, quote at 10, body from 11: `ab\qc` -> `\q` at 13..15.
        assert_eq!(
            escapes(r#""ab\qc""#),
            vec![(13, 15, "unknown escape `\\q`".to_string())]
        );
        assert_eq!(escapes(r#""\u{}""#)[0].0..escapes(r#""\u{}""#)[0].1, 11..15);
        assert_eq!(
            escapes(r#""\u{D800}""#),
            vec![(11, 19, "`\\u{D800}` is not a Unicode scalar value".into())]
        );
        assert_eq!(escapes(r#""\u{1234567}""#)[0].1, 22);
        assert_eq!(escapes(r#""\u12""#)[0].0..escapes(r#""\u12""#)[0].1, 11..13);
        assert_eq!(
            escapes(r#""x\é""#),
            vec![(12, 15, "unknown escape `\\é`".into())]
        );
        assert_eq!(escapes(r#""\a\b""#).len(), 2);
    }

    #[test]
    fn interpolation_parts_and_spans() {
        // The string starts at offset 10: `"on ${period_end} to ${facts.plan}!"`
        let raw = r#""on ${period_end} to ${facts.plan}!""#;
        let ExprKind::Interp(parts) = decode_interp(F, 10, raw).unwrap() else {
            panic!("not an interpolation")
        };
        assert_eq!(parts.len(), 5);
        assert_eq!(parts[0], InterpPart::Text("on ".into()));
        let InterpPart::Ref(r) = &parts[1] else {
            panic!()
        };
        assert_eq!(r.name.node, "period_end");
        assert_eq!((r.span.start, r.span.end), (16, 26));
        assert_eq!((r.name.span.start, r.name.span.end), (16, 26));
        let InterpPart::Ref(r) = &parts[3] else {
            panic!()
        };
        assert_eq!(r.name.node, "facts");
        assert_eq!(r.members[0].node, "plan");
        assert_eq!((r.members[0].span.start, r.members[0].span.end), (39, 43));
        assert_eq!(parts[4], InterpPart::Text("!".into()));
    }

    #[test]
    fn escaped_dollar_is_literal_text() {
        assert_eq!(
            decode_interp(F, 0, r#""cost \${x}""#).unwrap(),
            ExprKind::Literal(Literal::String("cost ${x}".into()))
        );
        assert_eq!(
            decode_interp(F, 0, r#""$5""#).unwrap(),
            ExprKind::Literal(Literal::String("$5".into()))
        );
        // Plain decoding keeps `${` as written.
        assert_eq!(decode(r#""a ${b}""#), "a ${b}");
    }

    #[test]
    fn bad_interpolations_are_e0002() {
        let e = decode_interp(F, 0, r#""a ${ b }""#).unwrap_err();
        assert_eq!((e.code, e.span.start, e.span.end), (Code::E0002, 3, 9));
        let e = decode_interp(F, 0, r#""a ${b""#).unwrap_err();
        assert_eq!((e.code, e.span.start, e.span.end), (Code::E0002, 3, 6));
        assert!(decode_interp(F, 0, r#""${}""#).is_err());
        assert!(decode_interp(F, 0, r#""${a..b}""#).is_err());
    }

    #[test]
    fn calendar() {
        assert!(check_date("2026-03-04").is_ok());
        assert_eq!(
            check_date("2026-02-30").unwrap_err(),
            "February 2026 has 28 days"
        );
        assert!(check_date("2024-02-29").is_ok());
        assert!(check_date("2000-02-29").is_ok());
        assert!(check_date("1900-02-29").is_err());
        assert!(check_date("2026-04-31").is_err());
        assert!(check_date("2026-13-01").is_err());
        assert!(check_date("2026-00-10").is_err());
        assert!(check_date("2026-01-00").is_err());
        assert!(check_datetime("2026-03-04T23:59:59Z").is_ok());
        assert!(check_datetime("2026-03-04T24:00:00Z").is_err());
        assert!(check_datetime("2026-03-04T10:00:00+24:00").is_err());
        assert!(check_datetime("2026-03-04T10:00:00.123-05:30").is_ok());
        assert!(check_datetime("2026-02-29T10:00:00Z").is_err());
    }
}
