//! Paths in a JSON plan: `$.results[0].id` (bind and `post` paths) and a
//! `pre` probe's binding paths, with their JSON Schema patterns.

use super::*;

/// What [`path`] reads, as a JSON Schema `pattern`: `$`, then `.field` and
/// `[N]` segments.
pub const PATH_PATTERN: &str = r"^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*$";
/// A `pre` probe's path: a binding name and its fields (what
/// `binding_path` reads).
pub const BINDING_PATH_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$";

/// A whole-string reference (`"${name}"`, `"${name.member}"`) as a JSON
/// Schema `pattern`: what [`string_expr`] reads as one reference.
pub const REFERENCE_PATTERN: &str = r"^\$\{[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\}$";

/// Reads a path string (`$.results[0].id`) with a span for every segment.
pub(crate) fn path(r: &mut Reader<'_>, what: &str, v: &Json<'_>) -> Option<Path> {
    let Value::String(s) = &v.value else {
        r.ill_typed(what, v, "a path string such as `$.results[0].id`");
        return None;
    };
    let b = s.as_bytes();
    if b.first() != Some(&b'$') {
        let mut d = Diagnostic::new(Code::E0002, v.text_span(), format!("invalid path `{s}`"))
            .with_label("a path starts with `$`");
        if !s.is_empty() {
            let fixed = if s.starts_with('[') || s.starts_with('.') {
                format!("${s}")
            } else {
                format!("$.{s}")
            };
            d = d.with_help(format!("did you mean `{fixed}`?")).with_fix(
                format!("replace with `{fixed}`"),
                v.text_span(),
                fixed,
            );
        }
        r.report(d);
        return None;
    }
    let mut segments = Vec::new();
    let mut i = 1;
    while i < b.len() {
        let start = i;
        let bad = |r: &mut Reader<'_>, at: usize, msg: &str| {
            let end = (at + 1).min(b.len()).max(at);
            let end = (end..=b.len())
                .find(|e| s.is_char_boundary(*e))
                .unwrap_or(b.len());
            r.report(
                Diagnostic::new(
                    Code::E0002,
                    r.sub_span(v, at, end),
                    format!("invalid path `{s}`"),
                )
                .with_label(msg.to_string())
                .with_help("a path is `$` followed by `.field` and `[index]` segments"),
            );
        };
        match b.get(i) {
            Some(b'.') => {
                i += 1;
                let name_start = i;
                while let Some(c) = b.get(i) {
                    if c.is_ascii_alphanumeric() || *c == b'_' {
                        i += 1;
                    } else {
                        break;
                    }
                }
                let name = s.get(name_start..i).unwrap_or("");
                if !is_ident(name) {
                    bad(r, name_start, "expected a field name");
                    return None;
                }
                segments.push(Spanned::new(
                    PathSeg::Field(Str::new(name)),
                    r.sub_span(v, start, i),
                ));
            }
            Some(b'[') => {
                i += 1;
                let digits = i;
                while let Some(b'0'..=b'9') = b.get(i) {
                    i += 1;
                }
                let index = s.get(digits..i).and_then(|d| d.parse::<u64>().ok());
                let Some(index) = index else {
                    bad(r, digits, "expected an index");
                    return None;
                };
                if b.get(i) != Some(&b']') {
                    bad(r, i, "expected `]`");
                    return None;
                }
                i += 1;
                segments.push(Spanned::new(PathSeg::Index(index), r.sub_span(v, start, i)));
            }
            _ => {
                bad(r, i, "expected `.` or `[`");
                return None;
            }
        }
    }
    Some(Path {
        root: None,
        segments,
        span: v.text_span(),
    })
}

/// A `pre` probe's path: a binding name and its fields, `settings.region`,
/// never `$`.
pub(super) fn binding_path(r: &mut Reader<'_>, v: &Json<'_>) -> Option<Path> {
    let Value::String(s) = &v.value else {
        r.ill_typed(
            "`path`",
            v,
            "a binding name with its fields, such as `settings.region`",
        );
        return None;
    };
    match reference(r, v, s, 0) {
        Some(reference) => Some(Path {
            root: Some(reference.name),
            segments: reference
                .members
                .into_iter()
                .map(|m| Spanned::new(PathSeg::Field(m.node), m.span))
                .collect(),
            span: v.text_span(),
        }),
        None => {
            let label = if s.starts_with('$') {
                "a `pre` path starts with a binding name, not `$`"
            } else {
                "not a binding name with its fields"
            };
            r.report(
                Diagnostic::new(Code::E0002, v.text_span(), format!("invalid path `{s}`"))
                    .with_label(label)
                    .with_help("a `pre` probe tests an artifact: its path is a binding name followed by `.field` segments, such as `settings.region`"),
            );
            None
        }
    }
}
