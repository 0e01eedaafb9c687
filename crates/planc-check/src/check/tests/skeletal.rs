//! A check for the diagnostics only that reads each step twice
//! (`check_plans_skeletal`): a first reading that keeps each step's name,
//! tool and binds, a second, per step, from its span as it is checked.

use super::super::{check_plans, check_plans_skeletal};
use super::reuse::{models, texts};
use crate::source::FileId;
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
        let Some((got, plans)) = check_plans_skeletal(&models, vec![(skeleton, text.as_str())])
        else {
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
    assert!(check_plans_skeletal(&models, vec![(skeleton(), text)]).is_some());
    // A text whose step binds another name at the same place, one shorter
    // (its step's span no longer ends with `}`), one that is not the
    // step's at all: none is checked in place of the text read first.
    let renamed = text.replace("bind acct", "bind acco");
    let shorter = text.replacen("a@b.c", "a@bc", 1);
    for other in [renamed.as_str(), shorter.as_str(), "plan p \"g\" {}"] {
        assert!(
            check_plans_skeletal(&models, vec![(skeleton(), other)]).is_none(),
            "{other}"
        );
    }
}
