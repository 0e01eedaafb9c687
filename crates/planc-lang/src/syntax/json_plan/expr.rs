//! Argument values: literals, lists, records, `${…}` references and
//! interpolated strings.

use super::*;

/// An argument value: literals, lists, records, references and
/// interpolated strings.
pub(super) fn expr(r: &mut Reader<'_>, v: &Json<'_>) -> Expr {
    let kind = match &v.value {
        Value::String(s) if s.contains('$') => string_expr(r, v, s),
        Value::Array(items) => ExprKind::List(items.iter().map(|i| expr(r, i)).collect()),
        Value::Object(members) => {
            let mut entries = Vec::with_capacity(members.len());
            for m in r.unique(members) {
                entries.push(RecordEntry {
                    name: Spanned::new(Str::from(&*m.key), m.key_text_span()),
                    value: expr(r, &m.value),
                });
            }
            ExprKind::Record(entries)
        }
        _ => match literal(r, "a value", v) {
            Some(l) => ExprKind::Literal(l.node),
            None => ExprKind::Error,
        },
    };
    Spanned::new(kind, v.span)
}

/// Plain text as a JSON argument string spells it: `${` escaped as `$${`,
/// which [`string_expr`] turns back into `${`. (The text form's escapes
/// are [`crate::syntax::literal::escape_text`].)
pub fn escape_interp(s: &str) -> String {
    s.replace("${", "$${")
}

/// A string that may hold `${…}` references.
pub(super) fn string_expr(r: &mut Reader<'_>, v: &Json<'_>, s: &str) -> ExprKind {
    let b = s.as_bytes();
    let mut parts: Vec<InterpPart> = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let mut plain = 0; // start of the text not yet copied
    while let Some(&c) = b.get(i) {
        if c != b'$' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'$') && b.get(i + 2) == Some(&b'{') {
            // `$${` is a literal `${`.
            text.push_str(s.get(plain..i).unwrap_or(""));
            text.push_str("${");
            i += 3;
            plain = i;
            continue;
        }
        if b.get(i + 1) != Some(&b'{') {
            i += 1;
            continue;
        }
        text.push_str(s.get(plain..i).unwrap_or(""));
        let open = i;
        let Some(close) = s.get(open..).and_then(|t| t.find('}')).map(|k| open + k) else {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, open, s.len()),
                    "unclosed `${` in a string",
                )
                .with_label("no `}` after this")
                .with_help("close the reference with `}`, or write `$${` for a literal `${`"),
            );
            return ExprKind::Error;
        };
        let inner = s.get(open + 2..close).unwrap_or("");
        let Some(reference) = reference(r, v, inner, open + 2) else {
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, open, close + 1),
                    format!("invalid reference `${{{inner}}}`"),
                )
                .with_label("expected a binding name, with optional `.member`s")
                .with_help("write `${name}` or `${name.member}`, or `$${` for a literal `${`"),
            );
            return ExprKind::Error;
        };
        if !text.is_empty() {
            parts.push(InterpPart::Text(std::mem::take(&mut text).into()));
        }
        parts.push(InterpPart::Ref(Spanned::new(
            reference,
            r.sub_span(v, open, close + 1),
        )));
        i = close + 1;
        plain = i;
    }
    text.push_str(s.get(plain..).unwrap_or(""));
    if !text.is_empty() {
        parts.push(InterpPart::Text(text.into()));
    }
    match parts.as_slice() {
        [] => ExprKind::Literal(Literal::String(String::new().into())),
        [InterpPart::Text(t)] => ExprKind::Literal(Literal::String(t.clone())),
        [InterpPart::Ref(rf)] => ExprKind::Ref(rf.node.clone()),
        _ => ExprKind::Interp(parts),
    }
}

/// A JSON value as an expression with no references: the default of a
/// catalogue parameter. Strings are plain text.
pub(crate) fn plain_expr(r: &mut Reader<'_>, v: &Json<'_>) -> Expr {
    let kind = match &v.value {
        Value::Array(items) => ExprKind::List(items.iter().map(|i| plain_expr(r, i)).collect()),
        Value::Object(members) => ExprKind::Record(
            r.unique(members)
                .map(|m| RecordEntry {
                    name: Spanned::new(Str::from(&*m.key), m.key_text_span()),
                    value: plain_expr(r, &m.value),
                })
                .collect(),
        ),
        _ => match literal(r, "a default", v) {
            Some(l) => ExprKind::Literal(l.node),
            None => ExprKind::Error,
        },
    };
    Spanned::new(kind, v.span)
}

/// `name.member.member` at byte `at` of the string `v`.
pub(super) fn reference(r: &Reader<'_>, v: &Json<'_>, inner: &str, at: usize) -> Option<Reference> {
    let mut names = Vec::new();
    let mut offset = at;
    for part in inner.split('.') {
        if !is_ident(part) {
            return None;
        }
        names.push(Spanned::new(
            Str::from(part),
            r.sub_span(v, offset, offset + part.len()),
        ));
        offset += part.len() + 1;
    }
    let mut names = names.into_iter();
    let name = names.next()?;
    Some(Reference {
        name,
        members: names.collect(),
    })
}
