//! Paths in a JSON plan: `$.results[0].id` (bind and `post` paths) and a
//! `pre` probe's binding paths, with their JSON Schema patterns.

use super::*;

/// What [`path`] reads, as a JSON Schema `pattern` (`syntax::path`'s).
pub const PATH_PATTERN: &str = crate::syntax::path::PATTERN;
/// A `pre` probe's path: a binding name, its fields, indexes and quoted
/// keys (what `binding_path` reads; `syntax::path::SEGMENTS_PATTERN` after
/// the name, a unit test checks).
pub const BINDING_PATH_PATTERN: &str = r#"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\]|\["([^"\\\r\n]|\\[^\r\n])*"\])*$"#;

#[cfg(test)]
#[test]
fn the_binding_path_pattern_is_a_name_and_segments() {
    assert_eq!(
        BINDING_PATH_PATTERN,
        format!(
            "^[A-Za-z_][A-Za-z0-9_]*{}$",
            crate::syntax::path::SEGMENTS_PATTERN
        )
    );
}

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
            .with_help("a path is `$` followed by `.field`, `[index]` and `[\"key\"]` segments"),
        );
    };
    let mut segments = Vec::with_capacity(crate::syntax::path::max_segments(s));
    for seg in crate::syntax::path::segments(s) {
        let seg = match seg {
            Ok(seg) => seg,
            Err(e) => {
                bad(r, e.at(), e.expected());
                return None;
            }
        };
        if seg.too_large {
            bad(r, seg.range.start + 1, "expected an index");
            return None;
        }
        segments.push(Spanned::new(
            seg.seg,
            r.sub_span(v, seg.range.start, seg.range.end),
        ));
    }
    Some(Path {
        root: None,
        segments,
        span: v.text_span(),
    })
}

/// A `pre` probe's path: a binding name, its fields and indexes,
/// `settings.region`, `tags[0].name`, never `$`. What follows the first
/// index is read as a result path is (`syntax::path`).
pub(super) fn binding_path(r: &mut Reader<'_>, v: &Json<'_>) -> Option<Path> {
    let Value::String(s) = &v.value else {
        r.ill_typed(
            "`path`",
            v,
            "a binding name with its fields, such as `settings.region`",
        );
        return None;
    };
    let k = s.find('[').unwrap_or(s.len());
    let head = s.get(..k).unwrap_or("");
    let rest = s.get(k..).unwrap_or("");
    let mut tail = Vec::new();
    let mut rest_ok = true;
    if !rest.is_empty() {
        let text = format!("${rest}");
        for seg in crate::syntax::path::segments(&text) {
            match seg {
                // `$` stands one byte before the first `[`.
                Ok(seg) if !seg.too_large => tail.push(Spanned::new(
                    seg.seg,
                    r.sub_span(v, k + seg.range.start - 1, k + seg.range.end - 1),
                )),
                _ => {
                    rest_ok = false;
                    break;
                }
            }
        }
    }
    match reference(r, v, head, 0).filter(|_| rest_ok) {
        Some(reference) => Some(Path {
            root: Some(reference.name),
            segments: reference
                .members
                .into_iter()
                .map(|m| Spanned::new(PathSeg::Field(m.node), m.span))
                .chain(tail)
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
                    .with_help("a `pre` probe tests an artifact: its path is a binding name followed by `.field`, `[index]` and `[\"key\"]` segments, such as `settings.region`, `tags[0].name` or `ratings[\"Le Marais\"]`"),
            );
            None
        }
    }
}
