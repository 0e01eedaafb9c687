//! Every code has an explain page, and each page's examples are true: the
//! failing example yields exactly that code (notes aside), the fixed one
//! nothing but notes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use planc::diagnostics::explain;
use planc::driver::{self, Job};
use planc::{Code, Severity, SourceKind};

fn compile(
    name: &str,
    text: &str,
    kind: SourceKind,
    ctx: &explain::Context,
    ctx_code: Code,
) -> Vec<(Code, Severity)> {
    let mut job = Job::default();
    // W0509's page is checked as `--lenient` checks a reply.
    let unwrapped = (ctx_code == Code::W0509)
        .then(|| planc::syntax::lenient::unwrap(text))
        .flatten();
    let id = job.sources.add_with_kind(
        name,
        unwrapped.as_ref().map_or(text, |u| u.text.as_str()),
        kind,
    );
    job.plans.push(id);
    if let Some(config) = &ctx.configured {
        let c = job.sources.add("configured.plan", config.as_str());
        job.catalog.push(c);
        job.policy.push(c);
    }
    if let Some(c) = &ctx.catalogue {
        let cid = job
            .sources
            .add_with_kind("catalogue.json", c.as_str(), SourceKind::Json);
        job.catalog.push(cid);
    }
    if let Some(r) = &ctx.progress {
        job.progress = Some(job.sources.add_with_kind(
            "progress.json",
            r.as_str(),
            SourceKind::Json,
        ));
    }
    if let Some(p) = &ctx.policy {
        let pid = job
            .sources
            .add_with_kind("policy.json", p.as_str(), SourceKind::Json);
        job.policy.push(pid);
    }
    // The example's own diagnostics: a catalogue's warnings are its page's.
    let lenient = unwrapped.map(|u| planc::syntax::lenient::note(id, text, &u));
    driver::run(&mut job)
        .diagnostics
        .iter()
        .chain(&lenient)
        .filter(|d| d.span.file == id)
        .map(|d| (d.code, d.severity))
        .collect()
}

/// The codes converting an example to the other form yields (a
/// conversion code's page: text into JSON, JSON into text).
fn convert(name: &str, text: &str, kind: SourceKind) -> Vec<(Code, Severity)> {
    let mut sources = planc::SourceMap::new();
    let id = sources.add_with_kind(name, text, kind);
    let form = match kind {
        SourceKind::Text => planc::fmt::convert::Form::Json,
        SourceKind::Json => planc::fmt::convert::Form::Plan,
    };
    match planc::fmt::convert::convert(&mut sources, id, form, None) {
        Ok(_) => Vec::new(),
        Err(diags) => diags.iter().map(|d| (d.code, d.severity)).collect(),
    }
}

#[test]
fn page_examples_are_true() {
    for &code in Code::ALL {
        let page = explain::page(code);
        let title = format!("# {}: ", code.as_str());
        assert!(
            page.starts_with(&title),
            "{code}: the page must start with `{title}`"
        );
        // The form of the examples is the failing block's (a page may
        // also hold a JSON catalogue, policy or progress record).
        let failing_fence = page
            .split_once("## Failing")
            .and_then(|(_, rest)| rest.split_once("```"))
            .map(|(_, rest)| rest);
        let kind = if failing_fence.is_some_and(|f| f.starts_with("json")) {
            SourceKind::Json
        } else {
            SourceKind::Text
        };
        let (failing, fixed) = explain::examples(page);
        let failing = failing.unwrap_or_else(|| panic!("{code}: no `## Failing` example"));
        let fixed = fixed.unwrap_or_else(|| panic!("{code}: no `## Fixed` example"));

        let ctx = explain::context(page);
        let run = |name: &str, text: &str| {
            if code.is_conversion() {
                convert(name, text, kind)
            } else {
                compile(name, text, kind, &ctx, code)
            }
        };
        let got = run("failing", &failing);
        let not_notes: Vec<Code> = got
            .iter()
            .filter(|(_, s)| *s != Severity::Note)
            .map(|(c, _)| *c)
            .collect();
        if code.severity() == Severity::Note {
            assert!(
                not_notes.is_empty(),
                "{code}: failing example also yields {not_notes:?}"
            );
            assert!(
                got.iter().any(|(c, _)| *c == code),
                "{code}: failing example does not yield it: {got:?}"
            );
        } else {
            assert_eq!(
                not_notes,
                vec![code],
                "{code}: the failing example must yield exactly {code}"
            );
        }

        let got = run("fixed", &fixed);
        let not_notes: Vec<Code> = got
            .iter()
            .filter(|(_, s)| *s != Severity::Note)
            .map(|(c, _)| *c)
            .collect();
        assert!(
            not_notes.is_empty(),
            "{code}: the fixed example yields {not_notes:?}:\n{fixed}"
        );
    }
}
