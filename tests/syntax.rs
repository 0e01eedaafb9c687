//! The text front end at library level: recovery, hostile input, and the
//! syntax fixtures under `tests/ui/syntax`.

#![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]

use planc::limits;
use planc::syntax::{ast, parse_text};
use planc::{Code, Diagnostic, FileId};

fn parse(text: &str) -> (ast::Module, Vec<Diagnostic>) {
    parse_text(FileId(0), text)
}

/// `(code, start, end)` of each diagnostic.
fn codes(diags: &[Diagnostic]) -> Vec<(Code, u32, u32)> {
    diags
        .iter()
        .map(|d| (d.code, d.span.start, d.span.end))
        .collect()
}

fn steps(m: &ast::Module) -> Vec<&str> {
    m.plans()
        .flat_map(|p| p.steps.iter().map(|s| s.name.node.as_str()))
        .collect()
}

#[test]
fn five_mistakes_in_five_steps_give_five_diagnostics() {
    let text = r#"plan p "recovery" {
    step ok1 = t.one(x: 1)
    step a = t.two(x: 1 y: 2) {
        post $.ok == true
    }
    step ok2 = t.one(x: 1) { post exists($.id) }
    step b = t.three(x: 1) {
        post $.ok === true
        bind v = $.v
    }
    step c = t.four(x: [1, 2,, 3]) {
        post exists($.id)
    }
    step ok3 = t.one(x: 1)
    step d = t.five(x: 1 {
        post exists($.id)
    }
    step e = t.six(x: 1) {
        on_unmet replna
    }
    step ok4 = t.one(x: 1) {
        post exists($.id)
        bind w = $.w
    }
}
"#;
    let (m, diags) = parse(text);
    let at = |s: &str| text.find(s).unwrap() as u32;
    assert_eq!(
        codes(&diags),
        vec![
            (Code::E0001, at("y: 2"), at("y: 2") + 1),
            (
                Code::E0001,
                at("= true\n        bind"),
                at("= true\n        bind") + 1
            ),
            (Code::E0001, at(",, 3") + 1, at(",, 3") + 2),
            (
                Code::E0001,
                at("{\n        post exists($.id)\n    }\n    step e"),
                at("{\n        post exists($.id)\n    }\n    step e") + 1
            ),
            (Code::E0001, at("replna"), at("replna") + 6),
        ],
        "{diags:#?}"
    );
    let in_steps: Vec<_> = diags.iter().map(|d| d.step.as_deref()).collect();
    assert_eq!(
        in_steps,
        vec![Some("a"), Some("b"), Some("c"), Some("d"), Some("e")]
    );
    // Every step is still in the tree, the broken ones with what could be read.
    assert_eq!(
        steps(&m),
        vec!["ok1", "a", "ok2", "b", "c", "ok3", "d", "e", "ok4"]
    );
    let plan = m.plans().next().unwrap();
    let ok4 = plan.steps.last().unwrap();
    assert_eq!(ok4.clauses.len(), 2);
    assert_eq!(diags[0].message, "expected `,` or `)`, found `y`");
    assert_eq!(
        diags[4].message,
        "expected `replan`, `halt` or `escalate`, found `replna`"
    );
    assert_eq!(diags[4].help.as_deref(), Some("did you mean `replan`?"));
}

#[test]
fn expectations_are_labelled() {
    let (_, diags) = parse("plan p { step a = t(, x: 1) }");
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(
        diags[0].message,
        "expected an argument name or `)`, found `,`"
    );
    assert!(diags.iter().all(|d| !d.message.contains("something else")));
}

/// `depth` brackets of one kind around a value, inside an argument.
fn nested(open: &str, close: &str, depth: usize) -> String {
    let pre = if open == "{" { "{a: " } else { open };
    let mut s = String::from("plan p {\n    step s = t.x(v: ");
    for _ in 0..depth {
        s.push_str(pre);
    }
    s.push('1');
    for _ in 0..depth {
        s.push_str(close);
    }
    s.push_str(")\n    step after_it = t.y(w: 2)\n}\n");
    s
}

fn assert_cut_at_depth(text: &str) {
    let (m, diags) = parse(text);
    assert_eq!(diags.len(), 1, "{:#?}", &diags[..diags.len().min(5)]);
    assert_eq!(diags[0].code, Code::E0003);
    // The plan's `{` and the argument list's `(` count: the bracket that
    // crosses the limit is the (MAX_DEPTH - 1)th of the value.
    assert_eq!(steps(&m), vec!["s", "after_it"]);
}

#[test]
fn deeply_nested_lists() {
    assert_cut_at_depth(&nested("[", "]", 100_000));
}

#[test]
fn deeply_nested_records() {
    assert_cut_at_depth(&nested("{", "}", 100_000));
}

#[test]
fn deeply_nested_parens() {
    // Parentheses are no value: the cut region is one error token, and the
    // parser does not add to the E0003.
    let text = nested("(", ")", 100_000);
    let (_, diags) = parse(&text);
    assert_eq!(
        diags.iter().filter(|d| d.code == Code::E0003).count(),
        1,
        "{:#?}",
        &diags[..diags.len().min(5)]
    );
    let e3 = diags.iter().find(|d| d.code == Code::E0003).unwrap();
    // `(v: ` then 62 parens reach the limit with the plan's `{` and the call's `(`.
    let first = text.find("(v: ").unwrap() + 4;
    assert_eq!(e3.span.start as usize, first + limits::MAX_DEPTH - 2);
}

#[test]
fn deeply_nested_and_unclosed() {
    let text = format!("plan p {{ step s = t.x(v: {}", "[".repeat(100_000));
    let (_, diags) = parse(&text);
    assert_eq!(
        codes(&diags).iter().map(|c| c.0).collect::<Vec<_>>(),
        vec![Code::E0003],
        "{diags:#?}"
    );
}

#[test]
fn huge_string_literal() {
    let text = format!(
        "plan p {{ step s = t.x(v: \"{}\") }}",
        "x".repeat(30 * 1024 * 1024)
    );
    let (m, diags) = parse(&text);
    let quote = text.find('"').unwrap() as u32;
    assert_eq!(codes(&diags), vec![(Code::E0003, quote, quote + 1)]);
    assert_eq!(steps(&m), vec!["s"]);
}

#[test]
fn input_over_the_size_limit() {
    let text = " ".repeat(limits::MAX_INPUT_BYTES + 1);
    let (m, diags) = parse(&text);
    assert_eq!(codes(&diags), vec![(Code::E0003, 0, 0)]);
    assert!(m.items.is_empty());
}

#[test]
fn random_bytes() {
    // A fixed xorshift generator: the same bytes on every run.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes = Vec::with_capacity(1 << 20);
    for _ in 0..(1 << 20) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push((x >> 24) as u8);
    }
    // The caller decodes lossily (the CLI reports invalid UTF-8 itself).
    let text = String::from_utf8_lossy(&bytes);
    let (_, diags) = parse(&text);
    assert!(!diags.is_empty());
    assert!(
        diags
            .iter()
            .all(|d| matches!(d.code, Code::E0001 | Code::E0002 | Code::E0003))
    );
    assert!(diags.iter().all(|d| (d.span.end as usize) <= text.len()));
}

#[test]
fn nul_bytes() {
    let (m, diags) = parse("plan p {\0 step s = t.x(v: 1)\0\0 }");
    assert_eq!(
        codes(&diags),
        vec![(Code::E0001, 8, 9), (Code::E0001, 28, 30)]
    );
    assert_eq!(diags[0].message, "unexpected character U+0000");
    assert_eq!(steps(&m), vec!["s"]);
}

#[test]
fn empty_file() {
    let (m, diags) = parse("");
    assert!(diags.is_empty());
    assert!(m.items.is_empty());
    let (m, diags) = parse("  // only a comment\n");
    assert!(diags.is_empty());
    assert!(m.items.is_empty());
}

/// The codes an err fixture says it must produce: its `// expect:` lines.
fn expected_codes(text: &str) -> Vec<Code> {
    // A byte-order mark before the header is skipped, as the lexer does.
    text.trim_start_matches('\u{feff}')
        .lines()
        .map_while(|l| l.strip_prefix("// expect:"))
        .flat_map(|l| l.split_whitespace())
        .map(|c| Code::parse(c).unwrap_or_else(|| panic!("unknown code `{c}` in an expect line")))
        .collect()
}

fn fixtures(kind: &str) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ui/syntax")
        .join(kind);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "plan"))
        .collect();
    files.sort();
    files
}

#[test]
fn ok_fixtures_parse_clean() {
    let files = fixtures("ok");
    assert!(files.len() >= 5);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let (_, diags) = parse(&text);
        assert!(diags.is_empty(), "{}: {diags:#?}", path.display());
    }
}

#[test]
fn err_fixtures_give_their_codes() {
    let files = fixtures("err");
    let mut covered = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut expected = expected_codes(&text);
        assert!(
            !expected.is_empty(),
            "{}: no `// expect:` line",
            path.display()
        );
        let (_, diags) = parse(&text);
        let mut got: Vec<Code> = diags.iter().map(|d| d.code).collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{}: {diags:#?}", path.display());
        covered.extend(
            expected
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>(),
        );
    }
    for code in [Code::E0001, Code::E0002, Code::E0003] {
        let n = covered.iter().filter(|c| **c == code).count();
        assert!(n >= 2, "{code} has {n} failing fixtures, want at least 2");
    }
}

#[test]
fn design_example_parses_exactly() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/ui/syntax/ok/design_example.plan"),
    )
    .unwrap();
    let (m, diags) = parse(&text);
    assert!(diags.is_empty(), "{diags:#?}");
    let tools: Vec<_> = m.tools().map(|t| t.name.node.as_str()).collect();
    assert_eq!(
        tools,
        vec![
            "customer.resolve",
            "billing.get_subscription",
            "billing.change_plan",
            "billing.issue_credit",
            "policies.search",
            "email.send"
        ]
    );
    let resolve = m.tools().next().unwrap();
    assert_eq!(
        resolve.doc.text(),
        "Finds customer accounts by a contact's email address."
    );
    assert_eq!(resolve.effect.map(|e| e.node), Some(ast::Effect::Read));
    assert!(resolve.idempotent.is_some());
    assert!(m.tools().nth(4).unwrap().untrusted.is_some());
    let policy = m.policies().next().unwrap();
    assert_eq!(policy.actor.as_ref().unwrap().node.len(), 4);
    assert_eq!(policy.rules.len(), 5);
    assert_eq!(
        policy.rules[3].ceilings[0].limit.node,
        ast::Literal::Int("500".into())
    );
    assert!(policy.rules[2].approval.is_some());
    let plan = m.plans().next().unwrap();
    assert_eq!(
        plan.goal.as_ref().unwrap().node,
        "downgrade Northwind Traders to Starter at end of period"
    );
    assert_eq!(plan.replans.map(|r| r.node), Some(2));
    assert_eq!(
        steps(&m),
        vec!["resolve", "subscription", "change", "confirm"]
    );
    let resolve = &plan.steps[0];
    let bind = resolve.binds().next().unwrap();
    assert_eq!(bind.0.node, "account_id");
    assert_eq!(bind.1.to_string(), "$.results[0].id");
    let confirm = &plan.steps[3];
    assert_eq!(
        confirm
            .afters()
            .map(|n| n.node.as_str())
            .collect::<Vec<_>>(),
        vec!["change"]
    );
    let ast::ExprKind::Record(entries) = &confirm.args[2].value.node else {
        panic!("facts is not a record")
    };
    assert_eq!(entries[1].name.node, "effective");
    assert!(matches!(&entries[1].value.node, ast::ExprKind::Ref(r) if r.name.node == "period_end"));
}
