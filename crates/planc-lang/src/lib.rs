//! planc's language: the bottom layer of the compiler (`ARCHITECTURE.md`).
//!
//! Source text and its spans (`source`), the one diagnostic model and the
//! registry of codes (`diagnostics`), the input limits (`limits`), the
//! syntax tree (`ast`), both front ends (`syntax`: the `.plan` text and the
//! JSON forms, read into that one tree), the models the checker checks
//! against: the tool catalogue (`catalog`, with the exact values) and the
//! policy (`policy`), and the diagnostics' renderers (`render`, above the
//! front ends). It does no IO and knows nothing of the checker, the IR or
//! the executor.

pub mod ast;
pub mod catalog;
pub mod diagnostics;
pub mod limits;
pub mod policy;
pub mod render;
pub mod seen;
pub mod source;
pub mod suggest;
pub mod syntax;

/// The hash map of planc's internal tables (names to indexes): foldhash,
/// seeded per process, instead of the standard library's SipHash, which
/// was 7.7% of a large check.
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastState>;
/// The hash set beside [`FastMap`].
pub type FastSet<K> = std::collections::HashSet<K, FastState>;

/// The hash function of [`FastMap`], seeded per process, for a table
/// that hashes what it does not hold (the checker's indexes of names).
pub type FastState = foldhash::fast::RandomState;

/// Pushes `item`, giving a vector's first item room for itself alone,
/// where `Vec::push` makes room for four: for the lists most of which hold
/// one item or none (a diagnostic's labels and notes, a step's guards and
/// dependencies), which a large plan has one of per step
/// (`docs/performance.md`, "Where the memory goes").
pub fn push_sparse<T>(items: &mut Vec<T>, item: T) {
    if items.capacity() == 0 {
        items.reserve_exact(1);
    }
    items.push(item);
}

/// Each item of `items` by its key, the first of a key kept: the index a
/// loop over the items looks them up in (a scan per item is quadratic).
pub fn first_by_key<'a, T: 'a, K: Eq + std::hash::Hash>(
    items: impl IntoIterator<Item = &'a T>,
    key: impl Fn(&'a T) -> K,
) -> FastMap<K, &'a T> {
    let items = items.into_iter();
    let mut out = FastMap::with_capacity_and_hasher(items.size_hint().0, Default::default());
    for item in items {
        out.entry(key(item)).or_insert(item);
    }
    out
}
pub use diagnostics::{Code, Diagnostic, Severity};
pub use source::{FileId, SourceFile, SourceKind, SourceMap, Span, Spanned};
