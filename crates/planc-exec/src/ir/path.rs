//! The IR's result paths: `$` followed by `.field` and `[index]` segments
//! (`$.freight.damaged_pallets`, `$.results[0].id`). The lowering writes
//! them ([`write`]); executors read them back ([`parse`]). Both are
//! `syntax::path`'s, the one reader and writer of a path.

use crate::syntax::ast::PathSeg;
use crate::syntax::path;

pub use path::write;

/// The segments of a path written by [`write`]; `None` when the text is
/// not one (or holds an index too large for a `u64`).
pub fn parse(text: &str) -> Option<Vec<PathSeg>> {
    let segments = path::parse(text).ok()?;
    segments
        .into_iter()
        .map(|s| (!s.too_large).then_some(s.seg))
        .collect()
}
