//! The whole compile: any input as the plan (text or JSON, told from its
//! content as `planc` does for standard input), checked against the fixed
//! Northwind catalogue and policy (`driver::run`), every diagnostic rendered
//! in every format, and a run without errors lowered (`driver::lower`) and
//! serialised.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let job = planc_fuzz::plan_job(text, planc_fuzz::TOOLS, planc_fuzz::POLICY);
    planc_fuzz::compile(job);
});
