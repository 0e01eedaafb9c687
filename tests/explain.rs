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
    configured: Option<&str>,
) -> Vec<(Code, Severity)> {
    let mut job = Job::default();
    let id = job.sources.add_with_kind(name, text, kind);
    job.plans.push(id);
    if let Some(config) = configured {
        let c = job.sources.add("configured.plan", config);
        job.catalog.push(c);
        job.policy.push(c);
    }
    driver::run(&mut job)
        .diagnostics
        .iter()
        .map(|d| (d.code, d.severity))
        .collect()
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
        let kind = if page.contains("```json") {
            SourceKind::Json
        } else {
            SourceKind::Text
        };
        let (failing, fixed) = explain::examples(page);
        let failing = failing.unwrap_or_else(|| panic!("{code}: no `## Failing` example"));
        let fixed = fixed.unwrap_or_else(|| panic!("{code}: no `## Fixed` example"));

        let configured = explain::configured(page);
        let got = compile("failing", &failing, kind, configured.as_deref());
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

        let got = compile("fixed", &fixed, kind, configured.as_deref());
        let not_notes: Vec<Code> = got
            .iter()
            .filter(|(_, s)| *s != Severity::Note)
            .map(|(c, _)| *c)
            .collect();
        assert!(
            not_notes.is_empty(),
            "{code}: the fixed example yields {not_notes:?}"
        );
    }
}
