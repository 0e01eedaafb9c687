//! The RFC 6901 pointer table of a parsed document.

use super::{Json, Value};
use crate::source::PointerTable;

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
