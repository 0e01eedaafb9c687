//! The text front end on any input: `syntax::parse_text` never panics,
//! and its diagnostics are well-formed and render in every format.
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
    let (_module, diagnostics) = planc::syntax::parse_text(file, text);
    planc_fuzz::check_diagnostics(&sources, &diagnostics);
});
