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

/// The one check of [`MAX_STEPS`], for both forms: E0003 at the first step
/// over the limit when a plan has `count` steps (`None` within it). Both
/// front ends then keep the first [`MAX_STEPS`] steps only.
pub fn too_many_steps(
    count: usize,
    first_over: crate::source::Span,
) -> Option<crate::diagnostics::Diagnostic> {
    (count > MAX_STEPS).then(|| {
        crate::diagnostics::Diagnostic::new(
            crate::diagnostics::Code::E0003,
            first_over,
            format!("plan of {count} steps, over the limit of {MAX_STEPS} steps"),
        )
        .with_label("the first step over the limit")
        .with_help("split the plan: no plan may have more steps")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Span};

    #[test]
    fn the_step_limit_is_one_check() {
        let at = Span::new(FileId(0), 10, 12);
        assert!(too_many_steps(MAX_STEPS, at).is_none());
        let d = too_many_steps(MAX_STEPS + 1, at);
        assert!(
            d.as_ref()
                .is_some_and(|d| d.code == crate::Code::E0003 && d.span == at)
        );
    }
}
