//! `planc fmt`'s layout on any input: it never panics, never refuses a
//! file that parses (a refusal would be a layout that changes more than
//! whitespace), and what it writes is laid out already.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::fmt::layout::{LayoutError, layout};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match layout(text) {
        Ok(out) => match layout(&out) {
            Ok(again) => assert_eq!(again, out, "not a fixed point"),
            Err(e) => panic!("the layout of a file does not lay out: {e:?}"),
        },
        Err(LayoutError::Syntax(_)) => {}
        Err(LayoutError::Internal(why)) => panic!("layout refused: {why}"),
    }
});
