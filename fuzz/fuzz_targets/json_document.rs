//! The JSON front end on any input: `syntax::read_json_document` (a plan,
//! a catalogue or a policy, told apart by its keys) never panics, and its
//! diagnostics are well-formed and render in every format, pointers
//! included.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::source::{SourceKind, SourceMap};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add_with_kind("fuzz.json", text, SourceKind::Json);
    let (_module, diagnostics) = planc::syntax::read_json_document(file, text);
    planc_fuzz::check_diagnostics(&sources, &diagnostics);
});
