//! The text front end on any input: `syntax::parse_text` never panics,
//! its diagnostics are well-formed and render in every format, and a text
//! read step by step (`syntax::stepwise`) gives the tree and diagnostics
//! of a whole parse, and so does a text read as skeletons and each step
//! again from its span (`syntax::parse_text_skeletal`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::source::{SourceKind, SourceMap};

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 never reaches the lexer: the caller decodes the file.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add_with_kind("fuzz.plan", text, SourceKind::Text);
    let read = planc::syntax::parse_text(file, text);
    planc_fuzz::check_diagnostics(&sources, &read.1);
    let whole = planc::syntax::parse_text_with(file, text, planc::syntax::parser::Strategy::Whole);
    assert_eq!(
        format!("{read:?}"),
        format!("{whole:?}"),
        "step by step and whole differ"
    );
    // A text read as skeletons gives each step whole again from its span.
    if let Some(skeletal) = planc::syntax::parse_text_skeletal(file, text) {
        let steps = |m: &planc::syntax::ast::Module| -> Vec<planc::syntax::ast::Step> {
            m.plans().flat_map(|p| p.steps.iter().cloned()).collect()
        };
        let spans: Vec<planc::Span> = steps(&skeletal).iter().map(|s| s.span).collect();
        let again: Vec<planc::syntax::ast::Step> = spans
            .chunks(planc::syntax::stepwise::BATCH)
            .flat_map(|c| planc::syntax::incremental::read_steps_at(text, c).unwrap_or_default())
            .collect();
        assert_eq!(again, steps(&read.0), "a step read again differs");
    }
});
