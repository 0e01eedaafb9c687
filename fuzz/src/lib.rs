//! What every fuzz target shares: the fixed catalogue and policy a plan is
//! compiled against, and the oracle run on every result. A target crashes
//! (and libFuzzer keeps the input) when the compiler panics, overflows its
//! stack, or breaks one of the checks below.

use planc::diagnostics::{Diagnostic, render};
use planc::driver::{self, Job};
use planc::source::SourceMap;

/// The Northwind catalogue and policy of the examples.
pub const TOOLS: &str = include_str!("../../examples/northwind/tools.plan");
pub const POLICY: &str = include_str!("../../examples/northwind/policy.plan");
/// A plan over that catalogue, for targets that fuzz the catalogue.
pub const PLAN: &str = include_str!("../../examples/northwind/downgrade.plan");

/// Checks what must hold of any diagnostics, whatever the input: every span
/// lies within its file and on character boundaries, and every renderer
/// runs; the JSON report is valid JSON.
pub fn check_diagnostics(sources: &SourceMap, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        let spans = std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span));
        for span in spans {
            let Some(file) = sources.get(span.file) else {
                panic!("diagnostic {} names an unknown file", d.code.as_str());
            };
            let (start, end) = (span.start as usize, span.end as usize);
            assert!(
                start <= end && end <= file.text.len(),
                "{}: span {start}..{end} outside a file of {} bytes",
                d.code.as_str(),
                file.text.len()
            );
            assert!(
                file.text.is_char_boundary(start) && file.text.is_char_boundary(end),
                "{}: span {start}..{end} splits a character",
                d.code.as_str()
            );
        }
        assert!(!d.message.is_empty(), "{}: empty message", d.code.as_str());
    }
    let _ = render::human(sources, diagnostics, false);
    let _ = render::human(sources, diagnostics, true);
    let _ = render::short(sources, diagnostics);
    let json = render::json(sources, diagnostics);
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "the JSON report is not JSON"
    );
    let options = render::SarifOptions {
        include_notes: true,
        ..Default::default()
    };
    let sarif = render::sarif(sources, diagnostics, &options);
    assert!(
        serde_json::from_str::<serde_json::Value>(&sarif).is_ok(),
        "the SARIF report is not JSON"
    );
}

/// A job with `text` as the plan (text or JSON, told from its content, as
/// `planc` does for standard input), against a catalogue and a policy given
/// as configuration.
pub fn plan_job(text: &str, tools: &str, policy: &str) -> Job {
    let mut job = Job::default();
    let kind = planc::source::SourceKind::sniff(text);
    let name = match kind {
        planc::source::SourceKind::Json => "plan.json",
        planc::source::SourceKind::Text => "plan.plan",
    };
    let plan = job.sources.add_with_kind(name, text, kind);
    let tools = job.sources.add("tools.plan", tools);
    let policy = job.sources.add("policy.plan", policy);
    job.plans.push(plan);
    job.catalog.push(tools);
    job.policy.push(policy);
    job
}

/// Runs a whole job: check, render every format, and lower when there are
/// no errors (lowering must then succeed and serialise). The same job
/// checked for its diagnostics only (`driver::Trees::Diagnostics`, as
/// `planc check` does: the models let go, a `.plan` text read twice) must
/// report the same diagnostics, in the same order.
pub fn compile(mut job: Job) {
    // Checked too as `planc compile -o` checks it, for its diagnostics,
    // each step lowered and written as it is checked.
    let mut only = job.clone();
    let mut stream = planc::ir::IrStream::new(
        std::io::Cursor::new(Vec::new()),
        std::io::Cursor::new(Vec::new()),
    );
    let streamed = driver::run_lowering(&mut only, &mut stream);
    let outcome = driver::run(&mut job);
    if let Some(streamed) = &streamed {
        assert_eq!(
            streamed.diagnostics, outcome.diagnostics,
            "a check for the diagnostics only differs"
        );
    }
    check_diagnostics(&job.sources, &outcome.diagnostics);
    if !outcome.has_errors() {
        match driver::lower(&job, &outcome) {
            Ok(irs) => {
                for ir in &irs {
                    if let Err(e) = planc::ir::to_json(ir) {
                        panic!("IR does not serialise: {e}");
                    }
                }
                if let (Some(streamed), [ir]) = (&streamed, irs.as_slice())
                    && let [model] = streamed.checked.plans.as_slice()
                {
                    let written = match stream.finish(model) {
                        Ok(out) => out.into_inner(),
                        Err(e) => panic!("the IR written as checked is refused: {e}"),
                    };
                    let mut whole = Vec::new();
                    if let Err(e) = planc::ir::write_json(ir, false, &mut whole) {
                        panic!("IR does not serialise: {e}");
                    }
                    assert!(written == whole, "the IR written as checked differs");
                }
            }
            Err(e) => panic!("a run without errors does not lower: {e}"),
        }
    }
}
