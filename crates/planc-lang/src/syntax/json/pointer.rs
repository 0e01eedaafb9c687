//! The RFC 6901 pointer table of a parsed document.

use super::{Json, Value};
use crate::source::{PointerTable, SourceFile, SourceKind, Span};

/// The pointer table of a document (see [`PointerTable`]): every value with
/// its span. For an object member the span runs from the key to the end of
/// the value, so a diagnostic on a key (an unknown argument, say) gets the
/// member's pointer.
pub fn pointers(source: &str, root: &Json<'_>) -> PointerTable {
    let mut table = PointerTable::default();
    let at = table.root(root.span);
    walk_pointers(source, root, at, &mut table);
    table
}

/// The pointer table of a JSON text, parsed again (as `file`); empty when
/// the text does not parse. What [`crate::source::SourceFile::pointer_at`]
/// builds on its first call.
pub fn pointer_table(file: crate::source::FileId, text: &str) -> PointerTable {
    match super::parse(file, text) {
        Ok(root) => pointers(text, &root),
        Err(_) => PointerTable::default(),
    }
}

impl SourceFile {
    /// The RFC 6901 pointer of the innermost JSON value that contains
    /// `span`; `None` for a text file, a span outside the document, or a
    /// document that is not JSON. The pointer table ([`pointer_table`]) is
    /// built on the first call.
    pub fn pointer_at(&self, span: Span) -> Option<String> {
        if self.kind != SourceKind::Json {
            return None;
        }
        self.pointers(|| pointer_table(self.id, &self.text))
            .pointer_at(&self.text, span)
    }
}

/// Why an RFC 6901 pointer does not lead to a value of a document.
#[derive(Debug, PartialEq)]
pub enum Unresolved {
    /// It is neither empty nor starts with `/`.
    NotAPointer,
    /// Token `at` (from 0) has a `~` followed by neither `0` nor `1`.
    BadEscape { at: usize },
    /// The value reached by the first `at` tokens has no member or element
    /// named by token `at` (its key, unescaped).
    Missing { at: usize, key: String },
}

/// The value `pointer` (RFC 6901, `~0` and `~1` read back by
/// [`crate::source::pointer_token_key`]) names in `root`; `""` is the root.
pub fn resolve<'v, 'a>(root: &'v Json<'a>, pointer: &str) -> Result<&'v Json<'a>, Unresolved> {
    if pointer.is_empty() {
        return Ok(root);
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(Unresolved::NotAPointer);
    };
    let mut at = root;
    for (i, token) in rest.split('/').enumerate() {
        let key = crate::source::pointer_token_key(token).ok_or(Unresolved::BadEscape { at: i })?;
        let next = match &at.value {
            Value::Object(_) => at.get(&key),
            // An index is digits without a leading zero (RFC 6901).
            Value::Array(items) if key == "0" || !key.starts_with('0') => key
                .parse::<usize>()
                .ok()
                .filter(|_| key.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| items.get(n)),
            _ => None,
        };
        at = next.ok_or_else(|| Unresolved::Missing {
            at: i,
            key: key.into_owned(),
        })?;
    }
    Ok(at)
}

/// Bounded recursion: the depth is capped by the parser.
fn walk_pointers(source: &str, v: &Json<'_>, at: u32, table: &mut PointerTable) {
    match &v.value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let child = table.item(item.span, at, i);
                walk_pointers(source, item, child, table);
            }
        }
        Value::Object(members) => {
            for m in members {
                let child = table.member(m.span(), at, &m.key, m.key_text_span(), source);
                walk_pointers(source, &m.value, child, table);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn pointers_resolve() {
        let text = r#"{"$defs": {"a/b": {"m~n": [10, 11]}, "": 1}, "x": {}}"#;
        let Ok(v) = super::super::parse(FileId(0), text) else {
            panic!("{text}");
        };
        let text_at = |p: &str| {
            resolve(&v, p).map(|j| text[j.span.start as usize..j.span.end as usize].to_string())
        };
        assert_eq!(text_at("/$defs/a~1b/m~0n/1").as_deref(), Ok("11"));
        assert_eq!(text_at("/$defs/").as_deref(), Ok("1"));
        assert_eq!(text_at("").as_deref(), Ok(text));
        assert_eq!(text_at("$defs"), Err(Unresolved::NotAPointer));
        assert_eq!(text_at("/$defs/a~2b"), Err(Unresolved::BadEscape { at: 1 }));
        assert_eq!(
            text_at("/$defs/a~1b/m~0n/01"),
            Err(Unresolved::Missing {
                at: 3,
                key: "01".into()
            })
        );
        assert_eq!(
            text_at("/$defs/a~1b/m~0n/2"),
            Err(Unresolved::Missing {
                at: 3,
                key: "2".into()
            })
        );
        assert_eq!(
            text_at("/x/y"),
            Err(Unresolved::Missing {
                at: 1,
                key: "y".into()
            })
        );
    }

    #[test]
    fn pointer_tokens_escape() {
        let text = r#"{"a/b": {"m~n": [0]}}"#;
        let Ok(v) = super::super::parse(FileId(0), text) else {
            panic!("{text}");
        };
        let p: Vec<String> = pointers(text, &v)
            .all(text)
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(p, vec!["", "/a~1b", "/a~1b/m~0n", "/a~1b/m~0n/0"]);
    }
}
