//! Limits on input, checked before any recursive pass sees it, so that no
//! input can exhaust the stack or the memory. Exceeding one is E0003.

/// The largest input file, in bytes.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// The deepest nesting of brackets (`(`, `[`, `{`) in the text form, and of
/// arrays and objects in the JSON form.
pub const MAX_DEPTH: usize = 64;

/// The longest string literal, in bytes of source.
pub const MAX_STRING_BYTES: usize = 1024 * 1024;

/// The most steps one plan may have.
pub const MAX_STEPS: usize = 1_000_000;
