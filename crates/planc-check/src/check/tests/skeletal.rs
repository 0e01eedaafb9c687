//! A check for the diagnostics only that reads each step twice
//! (`check_plans_skeletal`): a first reading that keeps each step's name,
//! tool and binds, a second, per step, from its span as it is checked.

use super::super::{StepModels, check_plans, check_plans_skeletal};
use super::reuse::{models, texts};
use crate::source::{FileId, SourceKind};
use crate::syntax;

#[test]
fn a_skeletal_check_says_what_a_whole_check_says() {
    let models = models();
    let mut read = 0;
    for text in texts() {
        let file = FileId(0);
        let Some(skeleton) = syntax::parse_text_skeletal(file, &text) else {
            continue;
        };
        read += 1;
        let (whole, errors) = syntax::parse_text(file, &text);
        assert!(errors.is_empty(), "{text}");
        let (expected, _) = check_plans(&models, &[&whole], &[], None);
        let Some((got, plans)) = check_plans_skeletal(
            &models,
            vec![(skeleton, text.as_str(), SourceKind::Text)],
            StepModels::LetGo,
        ) else {
            panic!("a step did not read again:\n{text}");
        };
        assert_eq!(got, expected, "{text}");
        assert!(plans.iter().all(|p| p.steps.is_empty() && p.steps_dropped));
    }
    // The fixtures that read step by step, and the long chain.
    assert!(read > 20, "{read}");
}

#[test]
fn a_step_that_does_not_read_again_as_its_skeleton_refuses_the_check() {
    let models = models();
    let text = "plan p \"g\" {\n    step a = customer.resolve(email: \"a@b.c\") {\n        bind acct = $.results[0].id\n    }\n}\n";
    let skeleton = || syntax::parse_text_skeletal(FileId(0), text).unwrap_or_default();
    assert!(
        check_plans_skeletal(
            &models,
            vec![(skeleton(), text, SourceKind::Text)],
            StepModels::LetGo
        )
        .is_some()
    );
    // A text whose step binds another name at the same place, or the same
    // name at another path of the same length, or calls another tool of
    // the same length (the skeleton's name and tool are the check's heads,
    // its binds its bindings, by then), one shorter (its step's span no
    // longer ends with `}`), one that is not the step's at all: none is
    // checked in place of the text read first.
    let renamed = text.replace("bind acct", "bind acco");
    let other_path = text.replace("results[0].id", "results[0].ix");
    let other_tool = text.replace("customer.resolve", "customer.resolvd");
    let shorter = text.replacen("a@b.c", "a@bc", 1);
    for other in [
        renamed.as_str(),
        other_path.as_str(),
        other_tool.as_str(),
        shorter.as_str(),
        "plan p \"g\" {}",
    ] {
        assert!(
            check_plans_skeletal(
                &models,
                vec![(skeleton(), other, SourceKind::Text)],
                StepModels::LetGo
            )
            .is_none(),
            "{other}"
        );
    }
}

/// A JSON plan whose `after`s name steps by number, one written below.
const JSON_PLAN: &str = r#"{"name": "p", "goal": "g", "steps": [
  {"n": 1, "tool": "customer.resolve", "args": {"email": "a@b.c"},
   "post": {"probe": "result_count", "path": "$.results", "equals": 1},
   "binds": {"acct": "$.results[0].id"}, "after": [3]},
  {"n": 2, "tool": "customer.resolve", "args": {"email": "${acct}@x.y"},
   "binds": {"other": "$.results[0].id"}, "after": [1, "step_3"]},
  {"n": 3, "tool": "customer.resolve", "args": {"email": "${other}@x.y"}, "after": [2]}
]}"#;

#[test]
fn a_skeletal_json_check_names_numbered_afters_as_a_whole_check_does() {
    let models = models();
    let file = FileId(0);
    let skeleton = syntax::read_json_plan_skeletal(file, JSON_PLAN).unwrap_or_default();
    let (whole, errors) = syntax::read_json_plan(file, JSON_PLAN);
    assert!(errors.is_empty(), "{errors:?}");
    let (expected, _) = check_plans(&models, &[&whole], &[], None);
    // The afters make a cycle: its error names the steps the numbers name.
    assert!(
        expected.iter().any(|d| d.code.as_str() == "E0108"),
        "{expected:?}"
    );
    let got = check_plans_skeletal(
        &models,
        vec![(skeleton, JSON_PLAN, SourceKind::Json)],
        StepModels::LetGo,
    );
    assert_eq!(got.map(|(d, _)| d), Some(expected));
}

#[test]
fn a_json_step_that_does_not_read_again_as_its_skeleton_refuses_the_check() {
    let models = models();
    let skeleton = || syntax::read_json_plan_skeletal(FileId(0), JSON_PLAN).unwrap_or_default();
    // A bind renamed in place; an `after` of another length; a text that
    // is not the plan's.
    let renamed = JSON_PLAN.replace("\"other\"", "\"otter\"");
    let longer = JSON_PLAN.replacen("\"after\": [2]", "\"after\": [22]", 1);
    for other in [renamed.as_str(), longer.as_str(), "{}"] {
        let got = check_plans_skeletal(
            &models,
            vec![(skeleton(), other, SourceKind::Json)],
            StepModels::LetGo,
        );
        assert!(got.is_none(), "{other}");
    }
}
