//! The renderers: one per output format, each reading the same
//! [`Diagnostic`]s. `human` uses ariadne (byte-indexed spans, over excerpts
//! of the lines a report shows), `short` uses codespan-reporting's short
//! style (over the source map's own line index), `json` writes the document agent loops
//! read (`docs/json.md`), `sarif` writes SARIF 2.1.0 for code scanning.
//!
//! They stand above the front ends (`syntax`): a hidden character is shown
//! escaped by the lexicon's own test (`syntax::lexicon`), and a JSON file's
//! RFC 6901 pointers come from [`SourceFile::pointer_at`], which parses the
//! file with the JSON parser (`syntax::json`).
//!
//! [`SourceFile::pointer_at`]: crate::source::SourceFile::pointer_at

use std::ops::Range;

use crate::diagnostics::{Diagnostic, counts};
use crate::source::{SourceMap, Span};

mod human;
mod json;
mod sarif;
mod short;

pub use human::{human, human_to};
pub use json::*;
pub use sarif::*;
pub use short::short;

/// Clamps a span to its file's text and to character boundaries, so that a
/// renderer never slices inside a character or past the end.
fn clamp(sources: &SourceMap, span: Span) -> Range<usize> {
    let Some(file) = sources.get(span.file) else {
        return 0..0;
    };
    file.floor_boundary(span.start as usize)..file.floor_boundary(span.end as usize)
}

/// The closing line of human output: `2 errors, 1 warning`.
pub fn summary(diagnostics: &[Diagnostic]) -> String {
    let (errors, warnings) = counts(diagnostics);
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;
    use crate::source::FileId;

    fn sample() -> (SourceMap, Vec<Diagnostic>) {
        let mut sources = SourceMap::new();
        let f = sources.add("plan.plan", "step a = x.y(n: 1)\nstep b = x.z(m: «é»)\n");
        let d = Diagnostic::new(Code::E0101, Span::new(f, 9, 12), "unknown tool `x.y`")
            .with_label("not in the catalogue")
            .with_secondary(Span::new(f, 28, 31), "also here")
            .with_help("did you mean `x.z`?")
            .in_step("a");
        (sources, vec![d])
    }

    #[test]
    fn short_is_one_line_with_position() {
        let (sources, diags) = sample();
        assert_eq!(
            short(&sources, &diags),
            "plan.plan:1:10: error[E0101]: unknown tool `x.y`\n"
        );
    }

    #[test]
    fn json_has_positions_step_and_help() {
        let (sources, diags) = sample();
        let v: serde_json::Value = serde_json::from_str(&json(&sources, &diags)).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(d["code"], "E0101");
        assert_eq!(d["line"], 1);
        assert_eq!(d["column"], 10);
        assert_eq!(d["end_column"], 13);
        assert_eq!(d["span"]["start"], 9);
        assert_eq!(d["step"], "a");
        assert_eq!(d["help"], "did you mean `x.z`?");
        assert_eq!(d["labels"][0]["line"], 2);
        assert_eq!(v["errors"], 1);
    }

    #[test]
    fn human_shows_code_message_and_labels() {
        let (sources, diags) = sample();
        let out = human(&sources, &diags, false);
        assert!(out.contains("[E0101] Error: unknown tool `x.y`"), "{out}");
        assert!(out.contains("not in the catalogue"), "{out}");
        assert!(out.contains("also here"), "{out}");
        assert!(out.contains("did you mean `x.z`?"), "{out}");
    }

    #[test]
    fn spans_inside_characters_do_not_panic() {
        let (sources, _) = sample();
        let f = FileId(0);
        // From the middle of line 2 to far past the end of the text.
        let d = vec![Diagnostic::new(Code::E0001, Span::new(f, 29, 1000), "m")];
        assert!(human(&sources, &d, false).contains("[E0001] Error: m"));
        assert_eq!(short(&sources, &d), "plan.plan:2:11: error[E0001]: m\n");
        let v: serde_json::Value = serde_json::from_str(&json(&sources, &d)).unwrap();
        assert_eq!(v["diagnostics"][0]["line"], 2);
        assert_eq!(v["diagnostics"][0]["column"], 11);
    }

    #[test]
    fn short_without_a_file_still_has_the_message() {
        let (sources, _) = sample();
        let d = vec![Diagnostic::new(
            Code::E0001,
            Span::new(FileId(7), 0, 1),
            "m",
        )];
        assert_eq!(short(&sources, &d), "error[E0001]: m\n");
    }

    #[test]
    fn sarif_has_rules_results_and_related_locations() {
        let (sources, diags) = sample();
        let v: serde_json::Value =
            serde_json::from_str(&sarif(&sources, &diags, &Default::default())).unwrap();
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "planc");
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "E0101");
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "E0101");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], 1);
        assert_eq!(region["startColumn"], 10);
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "plan.plan"
        );
        assert_eq!(r["relatedLocations"][0]["message"]["text"], "also here");
        assert_eq!(r["properties"]["step"], "a");
    }
}
