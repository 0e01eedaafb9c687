//! The IR's result paths: `$` followed by `.field` and `[index]` segments
//! (`$.freight.damaged_pallets`, `$.results[0].id`). The lowering writes
//! them ([`write`]); executors read them back ([`parse`]).

use crate::syntax::ast::{PathSeg, Str};

/// A path's text, from its segments.
pub fn write(segments: &[PathSeg]) -> String {
    let mut s = String::from("$");
    for seg in segments {
        // Writing into a `String` cannot fail.
        let _ = crate::syntax::ast::write_path_segment(&mut s, seg);
    }
    s
}

/// The segments of a path written by [`write`]; `None` when the text is
/// not one.
pub fn parse(text: &str) -> Option<Vec<PathSeg>> {
    let mut rest = text.strip_prefix('$')?;
    let mut segments = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let len = r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            let name = r.get(..len)?;
            if name.is_empty() {
                return None;
            }
            segments.push(PathSeg::Field(Str::new(name)));
            rest = r.get(len..)?;
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            let index = r.get(..close)?.parse::<u64>().ok()?;
            segments.push(PathSeg::Index(index));
            rest = r.get(close + 1..)?;
        } else {
            return None;
        }
    }
    Some(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for text in ["$", "$.a", "$.results[0].id", "$[2][3]", "$.a_1.b"] {
            let segs = parse(text).unwrap();
            assert_eq!(write(&segs), text);
        }
        for bad in ["", "a", "$.", "$[x]", "$[1", "$..a", "$ .a", "$.a-b"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
