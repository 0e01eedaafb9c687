//! The catalogue import: any input read as a JSON tool list
//! (`syntax::read_json_catalog`), then checked with the Northwind plan and
//! policy against it, rendered in every format, and lowered when clean.
#![no_main]

use libfuzzer_sys::fuzz_target;
use planc::driver::Job;
use planc::source::SourceKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut job = Job::default();
    let catalog = job
        .sources
        .add_with_kind("tools.json", text, SourceKind::Json);
    let plan = job.sources.add("downgrade.plan", planc_fuzz::PLAN);
    let policy = job.sources.add("policy.plan", planc_fuzz::POLICY);
    job.plans.push(plan);
    job.catalog.push(catalog);
    job.policy.push(policy);
    planc_fuzz::compile(job);
});
