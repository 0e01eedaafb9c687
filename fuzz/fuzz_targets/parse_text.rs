//! The text front end on any input: `syntax::parse_text` never panics,
//! its diagnostics are well-formed and render in every format, and a text
//! read step by step (`syntax::stepwise`) gives the tree and diagnostics
//! of a whole parse.
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
    assert_eq!(format!("{read:?}"), format!("{whole:?}"), "step by step and whole differ");
});
