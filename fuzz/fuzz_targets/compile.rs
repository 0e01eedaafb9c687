//! The whole compile: any input as the plan (text or JSON, told from its
//! content as `planc` does for standard input), checked against the fixed
//! Northwind catalogue and policy (`driver::run`), every diagnostic rendered
//! in every format, and a run without errors lowered (`driver::lower`) and
//! serialised.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::driver::Job;
use planc::source::SourceKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut job = Job::default();
    let kind = SourceKind::sniff(text);
    let name = match kind {
        SourceKind::Json => "plan.json",
        SourceKind::Text => "plan.plan",
    };
    let plan = job.sources.add_with_kind(name, text, kind);
    let tools = job.sources.add("tools.plan", planc_fuzz::TOOLS);
    let policy = job.sources.add("policy.plan", planc_fuzz::POLICY);
    job.plans.push(plan);
    job.catalog.push(tools);
    job.policy.push(policy);
    planc_fuzz::compile(job);
});
