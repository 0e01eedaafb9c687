//! The JSON front end: plans, catalogues and policies read into the syntax
//! tree, with diagnostics (code, span, help, fix) and the pointer table.

// Test helpers outside `#[test]` functions fail the test by panicking
// and indexing.
#![allow(clippy::panic, clippy::indexing_slicing)]

use planc::diagnostics::Diagnostic;
use planc::source::{FileId, SourceFile, SourceKind, Span, Spanned};
use planc::syntax::ast::*;
use planc::syntax::{read_json_catalog, read_json_document, read_json_plan, read_json_policy};
use planc::{Code, Severity};

const F: FileId = FileId(0);

/// The span of the `nth` (0-based) occurrence of `needle` in `text`.
fn span_of(text: &str, needle: &str, nth: usize) -> Span {
    let mut from = 0;
    for _ in 0..nth {
        match text.get(from..).and_then(|t| t.find(needle)) {
            Some(i) => from += i + needle.len(),
            None => panic!("`{needle}` occurs fewer than {} times", nth + 1),
        }
    }
    match text.get(from..).and_then(|t| t.find(needle)) {
        Some(i) => Span::new(F, from + i, from + i + needle.len()),
        None => panic!("`{needle}` not found"),
    }
}

fn n<T>(node: T) -> Spanned<T> {
    Spanned::new(node, Span::default())
}

fn name(s: &str) -> Name {
    n(s.to_string().into())
}

fn path(segs: &[PathSeg]) -> Path {
    Path {
        root: None,
        segments: segs.iter().cloned().map(n).collect(),
        span: Span::default(),
    }
}

fn field(s: &str) -> PathSeg {
    PathSeg::Field(s.to_string().into())
}

fn lit(l: Literal) -> Expr {
    n(ExprKind::Literal(l))
}

fn string(s: &str) -> Literal {
    Literal::String(s.to_string().into())
}

fn reference(nm: &str, members: &[&str]) -> Reference {
    Reference {
        name: name(nm),
        members: members.iter().map(|m| name(m)).collect(),
    }
}

fn arg(nm: &str, value: Expr) -> Arg {
    Arg {
        name: name(nm),
        value,
        span: Span::default(),
    }
}

/// Debug output with every span erased, to compare trees whatever their
/// positions (`Spanned` ignores spans in equality; plain `span` fields do
/// not).
fn shape<T: std::fmt::Debug>(v: &T) -> String {
    let text = format!("{v:?}");
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        // A span prints as FILE@START..END.
        let a = digits(i);
        if a > i && b.get(a) == Some(&b'@') {
            let c = digits(a + 1);
            if c > a + 1 && b.get(c) == Some(&b'.') && b.get(c + 1) == Some(&b'.') {
                let e = digits(c + 2);
                if e > c + 2 {
                    out.push('_');
                    i = e;
                    continue;
                }
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[track_caller]
fn assert_same<T: std::fmt::Debug>(got: &T, want: &T) {
    assert_eq!(shape(got), shape(want));
}

fn plan_of(m: &Module) -> &PlanDecl {
    match m.plans().next() {
        Some(p) => p,
        None => panic!("no plan in {m:?}"),
    }
}

fn codes(diags: &[Diagnostic]) -> Vec<Code> {
    diags.iter().map(|d| d.code).collect()
}

/// Reads a plan and asserts it has exactly the diagnostics `expected`
/// (code, and the text of the primary span), returning them.
#[track_caller]
fn plan_diags(text: &str, expected: &[(Code, &str)]) -> (Module, Vec<Diagnostic>) {
    let (m, d) = read_json_plan(F, text);
    let got: Vec<(Code, &str)> = d
        .iter()
        .map(|d| (d.code, text.get(d.span.range()).unwrap_or("<bad span>")))
        .collect();
    assert_eq!(got, expected, "{d:#?}");
    (m, d)
}

// ------------------------------------------------------------------ the plan of docs/json.md

const EXAMPLE_PLAN: &str = r#"{
  "goal": "downgrade Northwind Traders to Starter at end of period",
  "steps": [
    {"n": 0, "tool": "customer.resolve",
     "args": {"email": "a.kohl@northwind-traders.co.uk", "include_children": true},
     "post": {"probe": "result_count", "path": "$.results", "equals": 1},
     "binds": {"account_id": "$.results[0].id"},
     "on_unmet": "replan"},
    {"n": 1, "tool": "billing.get_subscription",
     "args": {"account_id": "${account_id}", "as_of": "2026-03-04"},
     "post": {"probe": "field_in", "path": "$.commitment", "values": ["none", "monthly"]},
     "binds": {"sub_id": "$.id", "period_end": "$.current_period_end"},
     "on_unmet": "replan"}
  ]
}"#;

#[test]
fn the_design_plan_reads_into_the_expected_tree() {
    let (m, d) = read_json_plan(F, EXAMPLE_PLAN);
    assert!(d.is_empty(), "{d:#?}");
    let expected = PlanDecl {
        doc: Doc::default(),
        name: name("plan"),
        goal: Some(n(
            "downgrade Northwind Traders to Starter at end of period".to_string()
        )),
        replans: None,
        max_steps: None,
        steps: vec![
            Step {
                doc: Doc::default(),
                name: name("step_0"),
                tool: name("customer.resolve"),
                args: vec![
                    arg("email", lit(string("a.kohl@northwind-traders.co.uk"))),
                    arg("include_children", lit(Literal::Bool(true))),
                ],
                json_args: Some(Span::default()),
                clauses: vec![
                    Clause::Post(Probe {
                        kind: ProbeKind::Len {
                            path: path(&[field("results")]),
                            op: n(CmpOp::Eq),
                            value: n(Literal::Int("1".into())),
                        },
                        span: Span::default(),
                    }),
                    Clause::Bind {
                        name: name("account_id"),
                        path: path(&[field("results"), PathSeg::Index(0), field("id")]),
                        span: Span::default(),
                    },
                    Clause::OnUnmet(n(OnUnmet::Replan)),
                ],
                span: Span::default(),
            },
            Step {
                doc: Doc::default(),
                name: name("step_1"),
                tool: name("billing.get_subscription"),
                args: vec![
                    arg("account_id", n(ExprKind::Ref(reference("account_id", &[])))),
                    arg("as_of", lit(string("2026-03-04"))),
                ],
                json_args: Some(Span::default()),
                clauses: vec![
                    Clause::Post(Probe {
                        kind: ProbeKind::In {
                            path: path(&[field("commitment")]),
                            negated: false,
                            values: vec![n(string("none")), n(string("monthly"))],
                        },
                        span: Span::default(),
                    }),
                    Clause::Bind {
                        name: name("sub_id"),
                        path: path(&[field("id")]),
                        span: Span::default(),
                    },
                    Clause::Bind {
                        name: name("period_end"),
                        path: path(&[field("current_period_end")]),
                        span: Span::default(),
                    },
                    Clause::OnUnmet(n(OnUnmet::Replan)),
                ],
                span: Span::default(),
            },
        ],
        span: Span::default(),
    };
    assert_eq!(m.items.len(), 1);
    assert_same(plan_of(&m), &expected);
}

#[test]
fn spans_point_into_the_json_text() {
    let t = EXAMPLE_PLAN;
    let (m, _) = read_json_plan(F, t);
    let p = plan_of(&m);
    let s0 = &p.steps[0];
    let s1 = &p.steps[1];
    let slice = |s: Span| &t[s.range()];
    // Names span their text, without quotes; values span the whole value.
    assert_eq!(s0.tool.span, span_of(t, "customer.resolve", 0));
    assert_eq!(s0.name.span, span_of(t, "0", 0));
    assert_eq!(slice(s0.args[0].name.span), "email");
    assert_eq!(
        slice(s0.args[0].value.span),
        r#""a.kohl@northwind-traders.co.uk""#
    );
    assert_eq!(slice(s0.args[1].span), r#""include_children": true"#);
    assert_eq!(slice(s1.args[0].value.span), r#""${account_id}""#);
    let ExprKind::Ref(r) = &s1.args[0].value.node else {
        panic!()
    };
    assert_eq!(r.name.span, span_of(t, "account_id", 2));
    // Paths and their segments span their text inside the JSON string.
    let Clause::Bind { name, path, span } = &s0.clauses[1] else {
        panic!()
    };
    assert_eq!(slice(name.span), "account_id");
    assert_eq!(slice(path.span), "$.results[0].id");
    let segs: Vec<&str> = path.segments.iter().map(|s| slice(s.span)).collect();
    assert_eq!(segs, vec![".results", "[0]", ".id"]);
    assert_eq!(slice(*span), r#""account_id": "$.results[0].id""#);
    let Clause::Post(probe) = &s0.clauses[0] else {
        panic!()
    };
    assert_eq!(
        slice(probe.span),
        r#"{"probe": "result_count", "path": "$.results", "equals": 1}"#
    );
    let ProbeKind::Len { op, value, .. } = &probe.kind else {
        panic!()
    };
    assert_eq!(slice(op.span), "equals");
    assert_eq!(slice(value.span), "1");
    let Clause::OnUnmet(o) = &s0.clauses[2] else {
        panic!()
    };
    assert_eq!(slice(o.span), r#""replan""#);
    assert_eq!(slice(s1.span).chars().next(), Some('{'));
    assert_eq!(p.span, Span::new(F, 0, t.len()));
    assert_eq!(
        slice(p.goal.as_ref().map(|g| g.span).unwrap_or_default()),
        r#""downgrade Northwind Traders to Starter at end of period""#
    );
}

#[test]
fn the_pointer_table_maps_spans_to_pointers() {
    let t = EXAMPLE_PLAN;
    let (m, _) = read_json_plan(F, t);
    let file = SourceFile::new(F, "plan.json", t, SourceKind::Json);
    let p = plan_of(&m);
    let Clause::Bind { name, path, .. } = &p.steps[0].clauses[1] else {
        panic!()
    };
    assert_eq!(
        file.pointer_at(path.span).as_deref(),
        Some("/steps/0/binds/account_id")
    );
    assert_eq!(
        file.pointer_at(name.span).as_deref(),
        Some("/steps/0/binds/account_id")
    );
    assert_eq!(
        file.pointer_at(p.steps[1].args[0].value.span).as_deref(),
        Some("/steps/1/args/account_id")
    );
    assert_eq!(
        file.pointer_at(p.steps[1].tool.span).as_deref(),
        Some("/steps/1/tool")
    );
    assert_eq!(
        file.pointer_at(span_of(t, r#""monthly""#, 0)).as_deref(),
        Some("/steps/1/post/values/1")
    );
    assert_eq!(
        file.pointer_at(p.steps[1].span).as_deref(),
        Some("/steps/1")
    );
    assert_eq!(file.pointer_at(p.span).as_deref(), Some(""));
}

// ------------------------------------------------------------------ steps

#[test]
fn step_names_from_name_n_id_or_position() {
    let t = r#"{"steps": [
        {"n": 4, "tool": "a"},
        {"name": "second", "n": 7, "tool": "a"},
        {"id": 9, "tool": "a"},
        {"id": "fourth", "tool": "a"},
        {"tool": "a", "after": [4, 7, "fourth", 9, 12]}
    ]}"#;
    let (m, _) = plan_diags(t, &[]);
    let p = plan_of(&m);
    let names: Vec<&str> = p.steps.iter().map(|s| s.name.node.as_str()).collect();
    assert_eq!(
        names,
        vec!["step_4", "second", "step_9", "fourth", "step_4"]
    );
    // A number in `after` names the step with that number.
    let afters: Vec<&str> = p.steps[4].afters().map(|a| a.node.as_str()).collect();
    assert_eq!(
        afters,
        vec!["step_4", "second", "fourth", "step_9", "step_12"]
    );
    assert_eq!(
        &t[p.steps[4]
            .afters()
            .nth(1)
            .map(|a| a.span)
            .unwrap_or_default()
            .range()],
        "7"
    );
    assert_eq!(p.steps[1].name.span, span_of(t, "second", 0));
}

#[test]
fn plan_name_and_budget() {
    let t = r#"{"name": "nightly", "goal": "g", "budget": {"replans": 3, "max_steps": 12}, "steps": []}"#;
    let (m, _) = plan_diags(t, &[]);
    let p = plan_of(&m);
    assert_eq!(p.name.node, "nightly");
    assert_eq!(p.name.span, span_of(t, "nightly", 0));
    assert_eq!(p.replans.as_ref().map(|r| r.node), Some(3));
    assert_eq!(p.max_steps.as_ref().map(|r| r.node), Some(12));
    assert_eq!(
        p.max_steps.as_ref().map(|r| r.span),
        Some(span_of(t, "12", 0))
    );
}

#[test]
fn clauses_keep_source_order() {
    let t = r#"{"steps": [{"tool": "t", "retry": 2, "after": [0], "on_unmet": "escalate",
        "post": [{"probe": "field_exists", "path": "$.a"}, {"probe": "field_exists", "path": "$"}]}]}"#;
    let (m, _) = plan_diags(t, &[]);
    let c = &plan_of(&m).steps[0].clauses;
    assert!(matches!(c[0], Clause::Retry(Spanned { node: 2, .. })));
    assert!(matches!(c[1], Clause::After { .. }));
    assert!(matches!(
        c[2],
        Clause::OnUnmet(Spanned {
            node: OnUnmet::Escalate,
            ..
        })
    ));
    assert_eq!(c.len(), 5);
    let Clause::Post(Probe {
        kind: ProbeKind::Exists { path },
        ..
    }) = &c[4]
    else {
        panic!()
    };
    assert!(path.segments.is_empty());
}

// ------------------------------------------------------------------ expressions

fn first_arg(t: &str) -> Expr {
    let (m, d) = read_json_plan(F, t);
    assert!(d.is_empty(), "{d:#?}");
    plan_of(&m).steps[0].args[0].value.clone()
}

#[test]
fn references_and_interpolation() {
    let one = |v: &str| {
        first_arg(&format!(
            r#"{{"steps": [{{"tool": "t", "args": {{"x": {v}}}}}]}}"#
        ))
    };
    assert_eq!(
        one(r#""${facts.plan}""#).node,
        ExprKind::Ref(reference("facts", &["plan"]))
    );
    assert_eq!(
        one(r#""renews on ${period_end}!""#).node,
        ExprKind::Interp(vec![
            InterpPart::Text("renews on ".into()),
            InterpPart::Ref(n(reference("period_end", &[]))),
            InterpPart::Text("!".into()),
        ])
    );
    assert_eq!(
        one(r#""${a}${b.c}""#).node,
        ExprKind::Interp(vec![
            InterpPart::Ref(n(reference("a", &[]))),
            InterpPart::Ref(n(reference("b", &["c"]))),
        ])
    );
    // `$${` is a literal `${`; a lone `$` is text.
    assert_eq!(
        one(r#""$${name}""#).node,
        ExprKind::Literal(string("${name}"))
    );
    assert_eq!(
        one(r#""costs $5, $ {x}""#).node,
        ExprKind::Literal(string("costs $5, $ {x}"))
    );
    assert_eq!(
        one(r#""a $${b} ${c}""#).node,
        ExprKind::Interp(vec![
            InterpPart::Text("a ${b} ".into()),
            InterpPart::Ref(n(reference("c", &[])))
        ])
    );
    // Dates stay strings; numbers keep exact text.
    assert_eq!(
        one(r#""2026-03-04""#).node,
        ExprKind::Literal(string("2026-03-04"))
    );
    assert_eq!(
        one("100").node,
        ExprKind::Literal(Literal::Int("100".into()))
    );
    assert_eq!(
        one("12.50").node,
        ExprKind::Literal(Literal::Decimal("12.50".into()))
    );
    assert_eq!(
        one("1.5e3").node,
        ExprKind::Literal(Literal::Decimal("1500".into()))
    );
    assert_eq!(
        one("-2E-2").node,
        ExprKind::Literal(Literal::Decimal("-0.02".into()))
    );
    assert_eq!(one("null").node, ExprKind::Literal(Literal::Null));
    // Lists and records nest.
    assert_eq!(
        one(r#"[{"plan": "${p}"}, 1]"#).node,
        ExprKind::List(vec![
            n(ExprKind::Record(vec![RecordEntry {
                name: name("plan"),
                value: n(ExprKind::Ref(reference("p", &[]))),
            }])),
            lit(Literal::Int("1".into())),
        ])
    );
}

#[test]
fn reference_spans_inside_strings_survive_escapes() {
    let t = r#"{"steps": [{"tool": "t", "args": {"x": "caf\u00e9 \"${who.name}\""}}]}"#;
    let e = first_arg(t);
    let ExprKind::Interp(parts) = &e.node else {
        panic!("{e:?}")
    };
    let InterpPart::Ref(r) = &parts[1] else {
        panic!()
    };
    assert_eq!(&t[r.span.range()], "${who.name}");
    assert_eq!(&t[r.node.name.span.range()], "who");
    assert_eq!(&t[r.node.members[0].span.range()], "name");
}

#[test]
fn bad_references_are_e0002() {
    let t = r#"{"steps": [{"tool": "t", "args": {"a": "x ${oops", "b": "${1st}", "c": "${}", "d": "${a b}"}}]}"#;
    let (m, d) = plan_diags(
        t,
        &[
            (Code::E0002, "${oops"),
            (Code::E0002, "${1st}"),
            (Code::E0002, "${}"),
            (Code::E0002, "${a b}"),
        ],
    );
    assert!(d.iter().all(|d| d.step.as_deref() == Some("step_0")));
    // The arguments are kept, as error nodes.
    let args = &plan_of(&m).steps[0].args;
    assert_eq!(args.len(), 4);
    assert!(args.iter().all(|a| a.value.node == ExprKind::Error));
}

// ------------------------------------------------------------------ probes

fn probe_of(p: &str) -> Result<String, Vec<(Code, String)>> {
    let t = format!(r#"{{"steps": [{{"tool": "t", "post": {p}}}]}}"#);
    let (m, d) = read_json_plan(F, &t);
    if !d.is_empty() {
        return Err(d
            .iter()
            .map(|d| (d.code, t.get(d.span.range()).unwrap_or("").to_string()))
            .collect());
    }
    match plan_of(&m).steps[0].posts().next() {
        Some(p) => Ok(shape(&p.kind)),
        None => panic!("no probe"),
    }
}

#[test]
fn every_probe_kind() {
    let int = |s: &str| n(Literal::Int(s.into()));
    assert_eq!(
        probe_of(r#"{"probe": "result_count", "equals": 1}"#),
        ok(ProbeKind::CountDefault {
            op: n(CmpOp::Eq),
            value: int("1")
        })
    );
    assert_eq!(
        probe_of(r#"{"probe": "result_count", "path": "$.r", "op": ">=", "value": 2}"#),
        ok(ProbeKind::Len {
            path: path(&[field("r")]),
            op: n(CmpOp::Ge),
            value: int("2")
        })
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_equals", "path": "$.s", "value": "ok"}"#),
        ok(ProbeKind::Compare {
            path: path(&[field("s")]),
            op: n(CmpOp::Eq),
            value: n(string("ok"))
        })
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_compare", "path": "$.total", "op": "<", "value": 99.5}"#),
        ok(ProbeKind::Compare {
            path: path(&[field("total")]),
            op: n(CmpOp::Lt),
            value: n(Literal::Decimal("99.5".into()))
        })
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_not_in", "path": "$.c[2]", "values": ["a", null, true]}"#),
        ok(ProbeKind::In {
            path: path(&[field("c"), PathSeg::Index(2)]),
            negated: true,
            values: vec![n(string("a")), n(Literal::Null), n(Literal::Bool(true))],
        })
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_exists", "path": "$.message_id"}"#),
        ok(ProbeKind::Exists {
            path: path(&[field("message_id")])
        })
    );
    // A literal `${` in a probe value is plain text.
    assert_eq!(
        probe_of(r#"{"probe": "field_equals", "path": "$.s", "value": "${x}"}"#),
        ok(ProbeKind::Compare {
            path: path(&[field("s")]),
            op: n(CmpOp::Eq),
            value: n(string("${x}"))
        })
    );
}

fn errs(v: &[(Code, &str)]) -> Result<String, Vec<(Code, String)>> {
    Err(v.iter().map(|(c, s)| (*c, s.to_string())).collect())
}

fn ok(k: ProbeKind) -> Result<String, Vec<(Code, String)>> {
    Ok(shape(&k))
}

#[test]
fn probe_errors() {
    assert_eq!(
        probe_of(r#"{"probe": "field_equal", "path": "$.s", "value": 1}"#),
        errs(&[(Code::E0004, r#""field_equal""#)])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_equals", "path": "$.s", "values": [1]}"#),
        // One mistake, one message: the unknown key suggests `value`, so
        // `value` is not also reported missing.
        errs(&[(Code::E0004, r#""values""#)])
    );
    assert_eq!(
        probe_of(r#"{"probe": "result_count", "equals": 1, "op": "=="}"#),
        errs(&[(Code::E0004, r#""equals""#)])
    );
    assert_eq!(
        probe_of(r#"{"probe": "result_count", "equals": -1}"#),
        errs(&[(Code::E0004, "-1")])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_compare", "path": "$.a", "op": "=", "value": 1}"#),
        errs(&[(Code::E0004, r#""=""#)])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_in", "path": "$.a", "values": [[1]]}"#),
        errs(&[(Code::E0004, "[1]")])
    );
    assert_eq!(probe_of(r#"{"path": "$.a"}"#), errs(&[(Code::E0004, "{")]));
    assert_eq!(
        probe_of(r#""exists""#),
        errs(&[(Code::E0004, r#""exists""#)])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_exists"}"#),
        errs(&[(Code::E0004, "{")])
    );
    // Paths: the offending character.
    assert_eq!(
        probe_of(r#"{"probe": "field_exists", "path": "$.a[x]"}"#),
        errs(&[(Code::E0002, "x")])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_exists", "path": "$.a..b"}"#),
        errs(&[(Code::E0002, ".")])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_exists", "path": "$.a[0"}"#),
        errs(&[(Code::E0002, "")])
    );
    assert_eq!(
        probe_of(r#"{"probe": "field_exists", "path": "results"}"#),
        errs(&[(Code::E0002, "results")])
    );
}

#[test]
fn probe_help_and_fixes() {
    let t = r#"{"steps": [{"tool": "t", "post": {"probe": "field_equal", "path": "results[0]", "value": 1}}]}"#;
    let (_, d) = read_json_plan(F, t);
    assert_eq!(d[0].help.as_deref(), Some("did you mean `field_equals`?"));
    assert_eq!(d[0].fixes[0].replacement, "field_equals");
    assert_eq!(&t[d[0].fixes[0].span.range()], "field_equal");
    let t2 =
        r#"{"steps": [{"tool": "t", "post": {"probe": "field_exists", "path": "results[0]"}}]}"#;
    let (_, d2) = read_json_plan(F, t2);
    assert_eq!(d2[0].help.as_deref(), Some("did you mean `$.results[0]`?"));
    assert_eq!(d2[0].fixes[0].replacement, "$.results[0]");
    let t3 = r#"{"steps": [{"tool": "t", "post": {"probe": "field_compare", "path": "$.a", "op": "gte", "value": 1}}]}"#;
    let (_, d3) = read_json_plan(F, t3);
    assert_eq!(d3[0].help.as_deref(), Some("did you mean `>=`?"));
}

// ------------------------------------------------------------------ shape errors

#[test]
fn unknown_keys_suggest_the_nearest() {
    let t = r#"{"steps": [{"n": 0, "tool": "t", "argz": {}, "bind": {}, "on_unmet": "replna", "colour": 1}], "gaol": "x"}"#;
    let (_, d) = plan_diags(
        t,
        &[
            (Code::E0004, r#""argz""#),
            (Code::E0004, r#""bind""#),
            (Code::E0004, r#""replna""#),
            (Code::E0004, r#""colour""#),
            (Code::E0004, r#""gaol""#),
        ],
    );
    assert_eq!(d[0].help.as_deref(), Some("did you mean `args`?"));
    assert_eq!(d[0].fixes[0].span, span_of(t, "argz", 0));
    assert_eq!(d[0].fixes[0].replacement, "args");
    assert_eq!(d[0].step.as_deref(), Some("step_0"));
    assert_eq!(d[1].help.as_deref(), Some("did you mean `binds`?"));
    assert_eq!(d[2].help.as_deref(), Some("did you mean `replan`?"));
    assert!(
        d[3].help
            .as_deref()
            .unwrap_or("")
            .starts_with("the keys of a step are `n`, `id`, `name`")
    );
    assert!(d[3].fixes.is_empty());
    assert_eq!(d[4].help.as_deref(), Some("did you mean `goal`?"));
    assert_eq!(d[4].step, None);
    assert!(d.iter().all(|d| d.severity == Severity::Error));
    assert_eq!(d[0].message, "unknown key `argz` in a step");
}

#[test]
fn missing_and_ill_typed_keys() {
    let t = r#"{"steps": [
        {"n": 0, "args": {}},
        {"n": 1, "tool": 5, "retry": "twice", "after": [true], "binds": [7]},
        {"n": -1, "tool": "t", "name": "not a name", "args": [1]},
        {"n": 3, "id": 4, "tool": "t", "on_unmet": 1},
        "step"
    ]}"#;
    let (m, d) = plan_diags(
        t,
        &[
            (Code::E0004, "{"),
            (Code::E0004, "5"),
            (Code::E0004, r#""twice""#),
            (Code::E0004, "true"),
            (Code::E0004, "7"),
            (Code::E0004, "-1"),
            (Code::E0004, r#""not a name""#),
            (Code::E0004, "[1]"),
            (Code::E0004, r#""id""#),
            (Code::E0004, "1"),
            (Code::E0004, r#""step""#),
        ],
    );
    assert_eq!(d[0].message, "missing key `tool` in a step");
    assert_eq!(d[0].span, span_of(t, "{", 1));
    assert_eq!(
        d[2].message,
        "`retry` must be a non-negative integer, found a string"
    );
    assert_eq!(d[10].message, "a step must be an object, found a string");
    // Reading went on: four steps, the one without a tool has an empty name.
    let p = plan_of(&m);
    assert_eq!(p.steps.len(), 4);
    assert_eq!(p.steps[0].tool.node, "");
    assert_eq!(d[0].step.as_deref(), Some("step_0"));
    assert_eq!(d[1].step.as_deref(), Some("step_1"));
}

#[test]
fn missing_steps_and_wrong_roots() {
    plan_diags(r#"{"goal": "g"}"#, &[(Code::E0004, "{")]);
    plan_diags(r#"{"steps": {}}"#, &[(Code::E0004, "{}")]);
    plan_diags("[1]", &[(Code::E0004, "[1]")]);
    // A syntax error is the value parser's, and the module holds an error item.
    let text = r#"{"steps": [}"#;
    let (m, d) = read_json_plan(F, text);
    assert_eq!(codes(&d), vec![Code::E0001]);
    assert!(matches!(m.items[..], [Item::Error(_)]));
    assert!(planc::syntax::json::pointer_table(F, text).is_empty());
}

#[test]
fn duplicate_keys_are_e0004_everywhere() {
    let t = r#"{"steps": [{"tool": "a", "tool": "b", "args": {"x": 1, "x": 2},
        "binds": {"v": "$.a", "v": "$.b"}}], "goal": "g", "goal": "h"}"#;
    let (m, d) = plan_diags(
        t,
        &[
            (Code::E0004, r#""tool""#),
            (Code::E0004, r#""x""#),
            (Code::E0004, r#""v""#),
            (Code::E0004, r#""goal""#),
        ],
    );
    assert_eq!(d[0].span, span_of(t, r#""tool""#, 1));
    assert_eq!(d[0].labels[0].span, span_of(t, r#""tool""#, 0));
    // The first of two equal keys is kept.
    let p = plan_of(&m);
    assert_eq!(p.goal.as_ref().map(|g| g.node.as_str()), Some("g"));
    assert_eq!(p.steps[0].tool.node, "a");
    assert_eq!(p.steps[0].args.len(), 1);
    assert_eq!(p.steps[0].binds().count(), 1);
}

#[test]
fn bind_names_must_be_identifiers() {
    plan_diags(
        r#"{"steps": [{"tool": "t", "binds": {"account-id": "$.a", "ok": 3}}]}"#,
        &[(Code::E0004, r#""account-id""#), (Code::E0004, "3")],
    );
}

/// JSON Schema's `integer` admits `2.0` and `2e0`: a step number, an
/// `after` number, `retry` and a `result_count` read them as the integer
/// they name; a fraction or a negative number is still refused.
#[test]
fn integral_numbers_are_integers() {
    let t = r#"{"budget": {"replans": 1.0}, "steps": [
        {"n": 1.0, "tool": "a"},
        {"n": 2e0, "tool": "b", "retry": 2.00, "after": [1.0],
         "post": {"probe": "result_count", "equals": 3.0}}
    ]}"#;
    let (m, _) = plan_diags(t, &[]);
    let p = plan_of(&m);
    assert_eq!(p.replans.as_ref().map(|r| r.node), Some(1));
    let c = &p.steps[1].clauses;
    assert!(matches!(c[0], Clause::Retry(Spanned { node: 2, .. })));
    let Clause::After { steps, .. } = &c[1] else {
        panic!("{c:?}")
    };
    assert_eq!(steps[0].node.as_str(), p.steps[0].name.node.as_str());
    let Clause::Post(Probe {
        kind: ProbeKind::CountDefault { value, .. },
        ..
    }) = &c[2]
    else {
        panic!("{c:?}")
    };
    assert_eq!(value.node, Literal::Int("3".into()));
    for bad in [r#""retry": 2.5"#, r#""retry": -1.0"#, r#""after": [0.5]"#] {
        let t =
            format!(r#"{{"steps": [{{"n": 0, "tool": "a"}}, {{"n": 1, "tool": "b", {bad}}}]}}"#);
        let (_, d) = read_json_plan(F, &t);
        assert_eq!(codes(&d), vec![Code::E0004], "{bad}: {d:#?}");
    }
}

#[test]
fn five_problems_five_diagnostics_and_the_rest_is_read() {
    let t = r#"{"steps": [
        {"n": 0, "tool": "a", "retry": -1},
        {"n": 1, "tool": "b", "post": {"probe": "nope"}},
        {"n": 2, "tool": "c", "args": {"x": "${"}},
        {"n": 3, "tool": "d", "binds": {"y": "y"}},
        {"n": 4, "tool": "e", "after": [{}]},
        {"n": 5, "tool": "f", "args": {"z": "${y}"}}
    ]}"#;
    let (m, d) = read_json_plan(F, t);
    assert_eq!(d.len(), 5, "{d:#?}");
    let steps: Vec<&str> = d.iter().filter_map(|d| d.step.as_deref()).collect();
    assert_eq!(
        steps,
        vec!["step_0", "step_1", "step_2", "step_3", "step_4"]
    );
    let p = plan_of(&m);
    assert_eq!(p.steps.len(), 6);
    assert_eq!(
        p.steps[5].args[0].value.node,
        ExprKind::Ref(reference("y", &[]))
    );
}

// ------------------------------------------------------------------ catalogues

fn tools(text: &str) -> (Vec<ToolDecl>, Vec<Diagnostic>) {
    let (m, d) = read_json_catalog(F, text);
    (m.tools().cloned().collect(), d)
}

fn prim(p: Prim) -> Type {
    n(TypeKind::Prim(p))
}

fn opt(t: Type) -> Type {
    n(TypeKind::Optional(Box::new(t)))
}

fn param(nm: &str, ty: Type) -> Param {
    Param {
        doc: Doc::default(),
        name: name(nm),
        ty,
        default: None,
        span: Span::default(),
    }
}

fn rec_field(nm: &str, optional: bool, ty: Type) -> Field {
    Field {
        doc: Doc::default(),
        name: name(nm),
        optional,
        ty,
        span: Span::default(),
    }
}

const MCP_TOOL: &str = r#"{"name": "billing.get_subscription",
    "description": "The subscription of an account.\nAs of a date.",
    "inputSchema": {"type": "object",
        "properties": {"account_id": {"type": "string"}, "as_of": {"type": "string", "format": "date"},
                       "verbose": {"type": "boolean", "default": false}, "limit": {"type": "integer"}},
        "required": ["account_id", "as_of"]},
    "outputSchema": {"type": "object",
        "properties": {"id": {"type": "string"},
                       "commitment": {"type": "string", "enum": ["none", "monthly", "annual"]},
                       "end": {"type": ["string", "null"], "format": "date-time"},
                       "price": {"type": "number"},
                       "tags": {"type": "array", "items": {"type": "string"}},
                       "extra": {},
                       "owner": {"anyOf": [{"type": "object", "properties": {"n": {"type": "null"}}}, {"type": "null"}]}},
        "required": ["id", "commitment", "price"]},
    "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": true}}"#;

#[test]
fn an_mcp_tool_maps_onto_a_tool_declaration() {
    for doc in [
        format!(r#"{{"tools": [{MCP_TOOL}]}}"#),
        format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "result": {{"tools": [{MCP_TOOL}], "nextCursor": "x"}}}}"#
        ),
        format!("[{MCP_TOOL}]"),
    ] {
        let (ts, d) = tools(&doc);
        assert!(d.is_empty(), "{d:#?}");
        assert_eq!(ts.len(), 1);
        let t = &ts[0];
        assert_eq!(t.name.node, "billing.get_subscription");
        assert_eq!(&doc[t.name.span.range()], "billing.get_subscription");
        assert_eq!(
            t.doc.lines,
            vec!["The subscription of an account.", "As of a date."]
        );
        let mut verbose = param("verbose", prim(Prim::Bool));
        verbose.default = Some(lit(Literal::Bool(false)));
        assert_same(
            &t.params,
            &vec![
                param("account_id", prim(Prim::String)),
                param("as_of", prim(Prim::Date)),
                verbose,
                param("limit", opt(prim(Prim::Int))),
            ],
        );
        let enum_ty = n(TypeKind::Enum(vec![
            n("none".into()),
            n("monthly".into()),
            n("annual".into()),
        ]));
        assert_same(
            &t.result.node,
            &TypeKind::Record(vec![
                rec_field("id", false, prim(Prim::String)),
                rec_field("commitment", false, enum_ty),
                rec_field("end", true, opt(prim(Prim::Datetime))),
                rec_field("price", false, prim(Prim::Decimal)),
                rec_field(
                    "tags",
                    true,
                    n(TypeKind::List(Box::new(prim(Prim::String)))),
                ),
                rec_field("extra", true, prim(Prim::Any)),
                rec_field(
                    "owner",
                    true,
                    opt(n(TypeKind::Record(vec![rec_field(
                        "n",
                        true,
                        prim(Prim::Null),
                    )]))),
                ),
            ]),
        );
        assert_eq!(t.effect.as_ref().map(|e| e.node), Some(Effect::Read));
        assert!(t.idempotent.is_some());
        assert!(t.untrusted.is_some());
        assert_eq!(
            &doc[t
                .effect
                .as_ref()
                .map(|e| e.span)
                .unwrap_or_default()
                .range()],
            "true"
        );
    }
}

#[test]
fn effects_unstated_unless_hinted() {
    let (ts, d) = tools(
        r#"{"tools": [
            {"name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {}, "annotations": {"readOnlyHint": false, "idempotentHint": false, "openWorldHint": false, "destructiveHint": true}}
        ]}"#,
    );
    assert!(d.is_empty(), "{d:#?}");
    // Without hints the entry states nothing: the policy may.
    assert!(ts[0].effect.is_none() && ts[0].idempotent.is_none());
    // Explicit hints are statements, `false` included.
    assert_eq!(ts[1].effect.as_ref().map(|e| e.node), Some(Effect::Write));
    assert_eq!(ts[1].idempotent.as_ref().map(|i| i.node), Some(false));
    for t in &ts {
        assert!(t.untrusted.is_none());
        assert_eq!(t.result.node, TypeKind::Prim(Prim::Any));
        assert!(t.params.is_empty());
    }
}

#[test]
fn openai_function_tools_in_both_shapes() {
    let params = r#"{"type": "object", "properties": {"city": {"type": "string", "description": "Where."},
        "unit": {"type": ["string", "null"], "enum": ["c", "f", null]}}, "required": ["city", "unit"], "additionalProperties": false}"#;
    let chat = format!(
        r#"[{{"type": "function", "function": {{"name": "get_weather", "description": "Weather.", "parameters": {params}, "strict": true}}}}]"#
    );
    let responses = format!(
        r#"{{"tools": [{{"type": "function", "name": "get_weather", "description": "Weather.", "parameters": {params}}}]}}"#
    );
    for doc in [chat, responses] {
        let (ts, d) = tools(&doc);
        assert!(d.is_empty(), "{d:#?}");
        let t = &ts[0];
        assert_eq!(t.name.node, "get_weather");
        assert_eq!(t.doc.text(), "Weather.");
        assert_eq!(t.params[0].doc.text(), "Where.");
        let unit = opt(n(TypeKind::Enum(vec![n("c".into()), n("f".into())])));
        let mut city = param("city", prim(Prim::String));
        city.doc = t.params[0].doc.clone();
        assert_same(&t.params, &vec![city, param("unit", unit)]);
        // OpenAI tools carry no hints: the effect is the policy's to state.
        assert!(t.effect.is_none() && t.idempotent.is_none());
        assert_eq!(t.result.node, TypeKind::Prim(Prim::Any));
    }
}

/// The one diagnostic of a catalogue with one tool whose output schema is
/// `schema`: its code, the text of its span and its message; and whether
/// the tool was degraded (imported, but not callable).
fn schema_diag(schema: &str) -> (Code, String, String, bool) {
    let doc =
        format!(r#"{{"tools": [{{"name": "t", "inputSchema": {{}}, "outputSchema": {schema}}}]}}"#);
    let (ts, d) = tools(&doc);
    assert_eq!(d.len(), 1, "{schema}: {d:#?}");
    // The tool is always kept: a catalogue degrades per tool.
    assert_eq!(ts.len(), 1);
    assert!(!d[0].is_error(), "{schema}: {d:#?}");
    (
        d[0].code,
        doc[d[0].span.range()].to_string(),
        d[0].message.clone(),
        ts[0].degraded.is_some(),
    )
}

#[test]
fn a_schema_that_cannot_be_mapped_degrades_its_tool() {
    let e = |s: &str, at: &str| {
        let (code, span, msg, degraded) = schema_diag(s);
        assert_eq!((code, span.as_str()), (Code::W0501, at), "{s}: {msg}");
        assert!(degraded, "{s}");
        msg
    };
    // A `$ref` that does not resolve names itself and what is missing.
    assert_eq!(
        e(r##"{"$ref": "#/$defs/x"}"##, r##""#/$defs/x""##),
        "tool `t`: `$ref` `#/$defs/x` does not resolve: no `$defs` at `#`"
    );
    assert_eq!(
        e(
            r##"{"$defs": {"y": {}}, "$ref": "#/$defs/x"}"##,
            r##""#/$defs/x""##
        ),
        "tool `t`: `$ref` `#/$defs/x` does not resolve: no `x` at `#/$defs`"
    );
    e(r##"{"$ref": "other.json#/x"}"##, r#""$ref""#);
    e(r##"{"$ref": "#anchor"}"##, r##""#anchor""##);
    e(r##"{"$ref": 3}"##, "3");
    e(
        r#"{"allOf": [{"type": "string"}, {"type": "integer"}]}"#,
        r#""allOf""#,
    );
    e(r#"{"allOf": []}"#, "[]");
    e(
        r#"{"type": "object", "patternProperties": {"^x": {}}}"#,
        r#""patternProperties""#,
    );
    e(r#"{"type": "strng"}"#, r#""strng""#);
    e(r#"{"not": {"type": "null"}}"#, r#""not""#);
    e(r#"{"type": "integer", "enum": ["a"]}"#, r#""integer""#);
    e(r#"{"enum": []}"#, "[]");
    e(r#"{"anyOf": []}"#, "[]");
    e(r#"{"type": "string", "format": 3}"#, "3");
    e(
        r#"{"type": "object", "properties": {"a": {}}, "required": ["b"]}"#,
        r#""b""#,
    );
    e("[]", "[]");
    // Nested: the warning points at the inner keyword.
    e(
        r##"{"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/x"}}}}"##,
        r##""#/x""##,
    );
}

/// The type of a tool's output schema, and its diagnostics.
fn output_type(schema: &str) -> (String, Vec<String>) {
    let doc =
        format!(r#"{{"tools": [{{"name": "t", "inputSchema": {{}}, "outputSchema": {schema}}}]}}"#);
    let (ts, d) = tools(&doc);
    let ty = planc::catalog::Ty::from_ast(&ts[0].result).to_string();
    (ty, d.iter().map(|d| d.code.as_str().to_string()).collect())
}

#[test]
fn local_references_and_all_of_map() {
    let t = |s: &str, want: &str| {
        let (ty, codes) = output_type(s);
        assert!(codes.is_empty(), "{s}: {codes:?}");
        assert_eq!(ty, want, "{s}");
    };
    t(
        r##"{"$defs": {"E": {"enum": ["a", "b"]}}, "$ref": "#/$defs/E"}"##,
        r#""a" | "b""#,
    );
    t(
        r##"{"definitions": {"a/b": {"type": "integer"}}, "$ref": "#/definitions/a~1b"}"##,
        "int",
    );
    t(
        r##"{"definitions": {"m~n": {"type": "integer"}}, "$ref": "#/definitions/m~0n"}"##,
        "int",
    );
    // A pointer into `properties`, as zod-to-json-schema writes a schema
    // used twice.
    t(
        r##"{"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"$ref": "#/properties/a"}}, "required": ["a", "b"]}"##,
        "{ a: bool, b: bool }",
    );
    // An annotation beside a `$ref` changes nothing; a `type` beside it
    // narrows.
    t(
        r##"{"$defs": {"E": {"enum": ["a"]}}, "$ref": "#/$defs/E", "description": "d", "default": "a"}"##,
        r#""a""#,
    );
    t(
        r##"{"$defs": {"S": {}}, "$ref": "#/$defs/S", "type": "string"}"##,
        "string",
    );
    // `allOf`: records merged, a field required by one part required.
    t(
        r#"{"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                      {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}]}"#,
        "{ a: string, b?: int }",
    );
    t(
        r#"{"allOf": [{"type": "string"}, {"enum": ["x", "y"]}]}"#,
        r#""x" | "y""#,
    );
    t(
        r#"{"allOf": [{"description": "only words"}, {"type": "number"}]}"#,
        "decimal",
    );
    // Recursion and explosion are E0003, and the type there an error, not
    // `any`.
    let doc = r##"{"tools": [{"name": "t", "inputSchema": {}, "outputSchema":
        {"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"}}]}"##;
    let (ts, d) = tools(doc);
    let codes: Vec<&str> = d.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0003"]);
    let tree = format!("{:?}", ts[0].result);
    assert!(tree.contains("Error") && !tree.contains("Any"), "{tree}");
}

#[test]
fn a_schema_read_loosely_keeps_its_tool() {
    let w = |s: &str, at: &str| {
        let (code, span, msg, degraded) = schema_diag(s);
        assert_eq!((code, span.as_str()), (Code::W0502, at), "{s}: {msg}");
        assert!(!degraded, "{s}");
        msg
    };
    assert_eq!(
        w(r#"{"type": "object", "proprties": {}}"#, r#""proprties""#),
        "unknown JSON Schema keyword `proprties` is ignored"
    );
    w(
        r#"{"type": "object", "additionalProperties": {"type": "string"}, "properties": {"a": {}}}"#,
        r#"{"type": "string"}"#,
    );
    w(
        r#"{"enum": [{"kind": "bar"}, "line"]}"#,
        r#"{"kind": "bar"}"#,
    );
    w(
        r#"{"enum": [1, 123456789012345678901234567890123]}"#,
        "123456789012345678901234567890123",
    );
}

#[test]
fn real_world_schemas_map_onto_types() {
    let ty = |schema: &str| {
        let doc = format!(
            r#"{{"tools": [{{"name": "t", "inputSchema": {{}}, "outputSchema": {schema}}}]}}"#
        );
        let (ts, d) = tools(&doc);
        assert!(d.is_empty(), "{schema}: {d:#?}");
        planc::catalog::Ty::from_ast(&ts[0].result).to_string()
    };
    assert_eq!(ty(r#"{"format": "date"}"#), "date");
    // Maps: `additionalProperties` as a schema, with no `properties`
    // (pydantic's `dict[str, T]`, AgentDojo's results keyed by name).
    assert_eq!(
        ty(r#"{"type": "object", "additionalProperties": {"type": "number"}}"#),
        "{ [string]: decimal }"
    );
    assert_eq!(
        ty(r#"{"additionalProperties": {"type": "string"}}"#),
        "{ [string]: string }"
    );
    assert_eq!(
        ty(r#"{"type": ["object", "null"], "additionalProperties": {"type": "integer"}}"#),
        "{ [string]: int }?"
    );
    assert_eq!(
        ty(r#"{"type": "object", "additionalProperties": {"items": {}, "type": "array"}}"#),
        "{ [string]: [any] }"
    );
    assert_eq!(
        ty(
            r#"{"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "boolean"}}}"#
        ),
        "{ [string]: { [string]: bool } }"
    );
    // `true` admits anything, `false` nothing more: neither is a map.
    assert_eq!(
        ty(r#"{"type": "object", "additionalProperties": true}"#),
        "any"
    );
    assert_eq!(
        ty(
            r#"{"anyOf": [{"type": "object", "additionalProperties": {"type": "integer"}}, {"type": "object", "additionalProperties": {"type": "number"}}]}"#
        ),
        "{ [string]: decimal }"
    );
    assert_eq!(
        ty(r#"{"type": "string", "format": "date-time"}"#),
        "datetime"
    );
    assert_eq!(ty(r#"{"type": "string", "format": "email"}"#), "string");
    assert_eq!(
        ty(r#"{"type": "array", "items": [{"type": "string"}, {"type": "string"}]}"#),
        "[string]"
    );
    assert_eq!(
        ty(r#"{"type": "array", "prefixItems": [{"type": "integer"}, {"type": "number"}]}"#),
        "[decimal]"
    );
    assert_eq!(
        ty(r#"{"type": "string", "oneOf": [{"format": "date"}, {"format": "date"}]}"#),
        "date"
    );
    assert_eq!(
        ty(r#"{"anyOf": [{"enum": ["a"]}, {"const": "b"}, {"type": "null"}]}"#),
        r#"("a" | "b")?"#
    );
    assert_eq!(
        ty(
            r#"{"oneOf": [{"type": "object", "properties": {"kind": {"const": "x"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
                         {"type": "object", "properties": {"kind": {"const": "y"}}, "required": ["kind"]}]}"#
        ),
        r#"{ kind: "x" | "y", x?: int }"#
    );
    assert_eq!(ty(r#"{"type": "object", "x-vendor": 1}"#), "any");
    // Several kinds are a union, numbers and booleans in an enum literal
    // types (issue 11, point 3).
    assert_eq!(
        ty(r#"{"oneOf": [{"type": "string"}, {"type": "integer"}]}"#),
        "string | int"
    );
    assert_eq!(
        ty(r#"{"type": ["string", "integer", "null"]}"#),
        "(string | int)?"
    );
    assert_eq!(ty(r#"{"type": "integer", "enum": [1, 2, 5]}"#), "1 | 2 | 5");
    assert_eq!(ty(r#"{"const": 3}"#), "3");
    assert_eq!(
        ty(r#"{"enum": ["a", 2, true, null]}"#),
        r#"("a" | 2 | true)?"#
    );
    assert_eq!(ty(r#"{"enum": [1, 2.5]}"#), "1 | 2.5");
    assert_eq!(
        ty(r#"{"anyOf": [{"type": "integer"}, {"const": 5}, {"type": "number"}]}"#),
        "decimal"
    );
    assert_eq!(
        ty(r#"{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}"#),
        "[string | int]"
    );
    assert_eq!(ty(r#"{"anyOf": [{"type": "string"}, {}]}"#), "any");
}

#[test]
fn schema_suggestions() {
    let doc = r#"[{"name": "t", "inputSchema": {"type": "object", "proprties": {}}}]"#;
    let (_, d) = tools(doc);
    assert_eq!(d[0].help.as_deref(), Some("did you mean `properties`?"));
    assert_eq!(&doc[d[0].fixes[0].span.range()], "proprties");
    let doc2 = r#"[{"name": "t", "inputSchema": {"type": "object", "properties": {"ab": {}}, "required": ["abc"]}}]"#;
    let (_, d2) = tools(doc2);
    assert_eq!(d2[0].help.as_deref(), Some("did you mean `ab`?"));
}

#[test]
fn catalogue_shape_errors() {
    let check = |doc: &str, expected: &[(Code, &str)]| {
        let (_, d) = tools(doc);
        let got: Vec<(Code, &str)> = d.iter().map(|d| (d.code, &doc[d.span.range()])).collect();
        assert_eq!(got, expected, "{doc}");
    };
    // A tool entry is read forward-compatibly: keys planc does not use
    // are ignored, so a misspelt `name` is a tool without a name.
    check(
        r#"{"tools": [{"nmae": "x", "inputSchema": {}}]}"#,
        &[(Code::E0004, "{")],
    );
    check(
        r#"{"tools": [{"name": "x", "title": "X", "icons": [], "execution": {"taskSupport": "forbidden"}, "_meta": {}, "future": 1}]}"#,
        &[],
    );
    // A name that shows as another (a right-to-left override, a zero-width
    // space) cannot name a tool: what the page shows is what is called.
    check(
        "{\"tools\": [{\"name\": \"pay\u{202E}yap\", \"inputSchema\": {}}]}",
        &[(Code::E0004, "\"pay\u{202E}yap\"")],
    );
    check(
        "{\"tools\": [{\"name\": \"send\u{200B}_money\", \"inputSchema\": {}}]}",
        &[(Code::E0004, "\"send\u{200B}_money\"")],
    );
    check(
        r#"{"tools": [{"type": "web_search"}]}"#,
        &[(Code::E0004, r#""web_search""#)],
    );
    check(
        r#"{"tools": [{"type": "function", "function": {"name": "f", "paramters": {}, "strict": true}}]}"#,
        &[],
    );
    check(
        r#"{"tools": [{"name": "x", "inputSchema": {"type": "string"}}]}"#,
        &[(Code::W0501, r#""string""#)],
    );
    check(
        r#"{"tools": [{"name": "x", "inputSchema": {}, "annotations": {"readOnly": true}}]}"#,
        &[],
    );
    check(
        r#"{"tools": [{"name": "x", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}]}"#,
        &[(Code::W0501, r#""yes""#)],
    );
    // A document that is not a tool list stays an error.
    check(r#"{"tool": []}"#, &[(Code::E0004, "{")]);
    check(r#"{"tools": {}}"#, &[(Code::E0004, "{}")]);
    check(
        r#"[{"name": "", "inputSchema": {}}, 3]"#,
        &[(Code::E0004, r#""""#), (Code::E0004, "3")],
    );
}

// ------------------------------------------------------------------ policies

#[test]
fn a_policy_maps_onto_a_policy_declaration() {
    let t = r#"{"name": "support_agent", "actor": {"scopes": ["crm:read", "billing:write"]},
        "tools": {"billing.issue_credit": {"scopes": ["billing:write"], "max": {"amount_eur": 500},
                                           "min": {"amount_eur": 0.5}, "approval": "human", "untrusted": true},
                  "customer.resolve": {"scopes": ["crm:read"], "approval": null, "untrusted": false}},
        "max_steps": 20}"#;
    let (m, d) = read_json_policy(F, t);
    assert!(d.is_empty(), "{d:#?}");
    let p = match m.policies().next() {
        Some(p) => p,
        None => panic!("no policy"),
    };
    assert_eq!(p.name.node, "support_agent");
    let actor: Vec<&str> = p
        .actor
        .as_ref()
        .map(|a| a.node.iter().map(|s| s.node.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(actor, vec!["crm:read", "billing:write"]);
    assert_eq!(p.max_steps.as_ref().map(|m| m.node), Some(20));
    assert_eq!(p.rules.len(), 2);
    let r = &p.rules[0];
    assert_eq!(r.tool.node, "billing.issue_credit");
    assert_eq!(r.tool.span, span_of(t, "billing.issue_credit", 0));
    assert_eq!(r.requires, vec![name("billing:write")]);
    assert_eq!(r.approval.as_ref().map(|a| a.node), Some(Approval::Human));
    assert!(r.untrusted.is_some());
    assert_same(
        &r.ceilings,
        &vec![
            Ceiling {
                arg: name("amount_eur"),
                op: n(CmpOp::Le),
                limit: n(Literal::Int("500".into())),
                span: Span::default(),
            },
            Ceiling {
                arg: name("amount_eur"),
                op: n(CmpOp::Ge),
                limit: n(Literal::Decimal("0.5".into())),
                span: Span::default(),
            },
        ],
    );
    assert_eq!(&t[r.ceilings[0].limit.span.range()], "500");
    assert_eq!(&t[r.ceilings[0].arg.span.range()], "amount_eur");
    assert_eq!(&t[r.ceilings[0].op.span.range()], "max");
    let r2 = &p.rules[1];
    assert!(r2.approval.is_none() && r2.untrusted.is_none() && r2.ceilings.is_empty());
}

/// The rule keyed `"*"` is the default rule, as `*` is in the text form:
/// read as a rule whose tool is `*`, with every clause a tool rule has.
#[test]
fn the_star_key_is_the_default_rule() {
    let t = r#"{"name": "p", "tools": {"crm.read": {"scopes": ["crm:read"]},
        "*": {"scopes": ["billing:write"], "max": {"amount": 500}, "approval": "human"}}}"#;
    let (m, d) = read_json_policy(F, t);
    assert!(d.is_empty(), "{d:#?}");
    let p = match m.policies().next() {
        Some(p) => p,
        None => panic!("no policy"),
    };
    assert_eq!(p.rules.len(), 2);
    let r = &p.rules[1];
    assert_eq!(r.tool.node, "*");
    assert_eq!(&t[r.tool.span.range()], "*");
    assert_eq!(r.requires, vec![name("billing:write")]);
    assert_eq!(r.approval.as_ref().map(|a| a.node), Some(Approval::Human));
    assert_eq!(&t[r.ceilings[0].arg.span.range()], "amount");
    assert_eq!(&t[r.ceilings[0].limit.span.range()], "500");
}

#[test]
fn policy_errors() {
    let t = r#"{"actor": {"scope": []}, "tools": {"a": {"scopes": ["ok", "bad scope", 3], "max": {"x": [1]},
        "approval": "manager", "untrustd": true}, "a": {}}, "max_step": 3}"#;
    let (m, d) = read_json_policy(F, t);
    let got: Vec<(Code, &str)> = d.iter().map(|d| (d.code, &t[d.span.range()])).collect();
    assert_eq!(
        got,
        vec![
            (Code::E0004, r#""scope""#),
            (Code::E0004, r#""bad scope""#),
            (Code::E0004, "3"),
            (Code::E0004, "[1]"),
            (Code::E0004, r#""manager""#),
            (Code::E0004, r#""untrustd""#),
            (Code::E0004, r#""a""#),
            (Code::E0004, r#""max_step""#),
        ]
    );
    // One mistake, one message: `scope` suggests `scopes`, which is not
    // also reported missing.
    assert_eq!(d[0].message, "unknown key `scope` in `actor`");
    assert_eq!(d[0].help.as_deref(), Some("did you mean `scopes`?"));
    assert_eq!(d[5].help.as_deref(), Some("did you mean `untrusted`?"));
    assert_eq!(d[7].help.as_deref(), Some("did you mean `max_steps`?"));
    // The rule is still read, with its one good scope.
    let p = m.policies().next().cloned();
    assert_eq!(
        p.map(|p| p.rules[0].requires.clone()),
        Some(vec![name("ok")])
    );
}

// ------------------------------------------------------------------ documents

#[test]
fn documents_are_told_apart() {
    let kinds = |t: &str| {
        let (m, d) = read_json_document(F, t);
        assert!(d.is_empty(), "{t}: {d:#?}");
        (m.plans().count(), m.tools().count(), m.policies().count())
    };
    assert_eq!(kinds(r#"{"steps": []}"#), (1, 0, 0));
    assert_eq!(kinds(r#"[]"#), (0, 0, 0));
    assert_eq!(
        kinds(r#"{"tools": [{"name": "a", "inputSchema": {}}]}"#),
        (0, 1, 0)
    );
    assert_eq!(kinds(r#"{"result": {"tools": []}}"#), (0, 0, 0));
    assert_eq!(kinds(r#"{"tools": {}}"#), (0, 0, 1));
    assert_eq!(kinds(r#"{"actor": {"scopes": []}}"#), (0, 0, 1));
    for t in [r#"{"goal": "g"}"#, "3", r#""plan""#, "{}"] {
        let (m, d) = read_json_document(F, t);
        assert_eq!(codes(&d), vec![Code::E0004], "{t}");
        assert_eq!(d[0].span, Span::new(F, 0, 1));
        assert!(matches!(m.items[..], [Item::Error(_)]));
        assert!(!planc::syntax::json::pointer_table(F, t).is_empty());
    }
}

// ------------------------------------------------------------------ fixtures

/// The `.json` files of every `ok/` and `err/` folder under `dir`.
fn fixture_files(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, bool)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixture_files(&path, out);
            continue;
        }
        let folder = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str());
        if path.extension().is_some_and(|e| e == "json") && matches!(folder, Some("ok" | "err")) {
            out.push((path.clone(), folder == Some("err")));
        }
    }
}

/// Every fixture under tests/ui/json read by the front end alone: `ok/`
/// ones with no errors, `err/` ones with exactly the codes their `.expect`
/// file lists (in any order). (tests/ui.rs runs them through the whole
/// pipeline, with snapshots; the plan fixtures there have a catalogue.)
#[test]
fn fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/json");
    let mut files = Vec::new();
    fixture_files(&root, &mut files);
    for (path, is_err) in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let (_, d) = read_json_document(F, &text);
        let mut got: Vec<String> = d
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code.to_string())
            .collect();
        got.sort();
        let mut want: Vec<String> = if *is_err {
            let expect = path.with_extension("expect");
            match std::fs::read_to_string(&expect) {
                Ok(s) => s.split_whitespace().map(str::to_string).collect(),
                Err(e) => panic!("{}: {e}", expect.display()),
            }
        } else {
            Vec::new()
        };
        want.sort();
        assert_eq!(got, want, "{}: {d:#?}", path.display());
        assert!(
            !*is_err || !want.is_empty(),
            "{}: an err fixture expects codes",
            path.display()
        );
    }
    assert!(files.len() >= 15, "only {} fixtures", files.len());
}

// ------------------------------------------------------------------ robustness

#[test]
fn hostile_documents_end_in_e0003() {
    let deep = format!(r#"{{"steps": {}}}"#, "[".repeat(100_000));
    let (m, d) = read_json_document(F, &deep);
    assert_eq!(codes(&d), vec![Code::E0003]);
    assert!(matches!(m.items[..], [Item::Error(_)]));
    assert!(planc::syntax::json::pointer_table(F, &deep).is_empty());
    let long = format!(
        r#"{{"steps": [{{"tool": "{}"}}]}}"#,
        "x".repeat(planc::limits::MAX_STRING_BYTES + 1)
    );
    let (_, d) = read_json_plan(F, &long);
    assert_eq!(codes(&d), vec![Code::E0003]);
}

/// Mutations of the plan of docs/json.md and of an MCP catalogue: reading
/// never panics, and every diagnostic's span lies inside the text, on
/// character boundaries.
#[test]
fn mutated_documents_never_panic_and_spans_stay_in_the_text() {
    let seeds = [
        EXAMPLE_PLAN.to_string(),
        format!(r#"{{"tools": [{MCP_TOOL}]}}"#),
    ];
    let alphabet: &[u8] = b"{}[],:\"\\$.0123456789-ea_ {}$";
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..4_000 {
        let seed = &seeds[round % seeds.len()];
        let mut bytes = seed.as_bytes().to_vec();
        for _ in 0..(1 + next() % 4) {
            let at = (next() as usize) % (bytes.len() + 1);
            let c = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 if at < bytes.len() => bytes[at] = c,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, c),
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let (_, d) = read_json_document(F, &text);
        assert_streamed_read_is_the_tree_read(&text);
        for diag in &d {
            let r = diag.span.range();
            assert!(r.end <= text.len(), "{text}: {diag:?}");
            assert!(
                text.is_char_boundary(r.start) && text.is_char_boundary(r.end),
                "{text}: {diag:?}"
            );
            assert!(!diag.message.is_empty());
            for fix in &diag.fixes {
                assert!(fix.span.range().end <= text.len());
            }
        }
    }
}

// ------------------------------------------------------------------ streaming

/// A plan read as it is parsed (its steps one at a time, `read_json_plan`)
/// is the plan read from its whole value tree: the same tree and the same
/// diagnostics, in the same order.
fn assert_streamed_read_is_the_tree_read(text: &str) {
    let streamed = read_json_plan(F, text);
    let whole = planc::syntax::read_with(F, text, planc::syntax::json_plan::read_plan);
    assert_eq!(streamed, whole, "{text}");
}

#[test]
fn streamed_steps_read_as_the_whole_tree_does() {
    let cases = [
        // `after` by number, naming an earlier and a later step, and a
        // number no step has.
        r#"{"steps": [{"n": 5, "tool": "a.b", "after": [7, 9]}, {"n": 7, "tool": "a.b", "after": [5]}]}"#,
        // Numbers from indices, names from `id`, a repeated number.
        r#"{"steps": [{"tool": "a.b", "after": [1]}, {"id": "x", "tool": "a.b", "after": [0, 1]}, {"n": 0, "tool": "a.b"}]}"#,
        // Two `steps` members: the first is read, the second is a duplicate.
        r#"{"steps": [{"tool": "a.b"}], "steps": [{"tool": "c.d"}]}"#,
        r#"{"steps": "none", "steps": [{"tool": "c.d"}]}"#,
        // `steps` nested elsewhere is not the plan's.
        r#"{"goal": {"steps": [1, 2]}, "steps": []}"#,
        r#"{"budget": {"replans": 1}, "name": "p", "steps": [1, {"tool": 3}, {"tool": "a.b", "after": ["zz", -1]}]}"#,
        // Not a plan object; a document that breaks after its steps.
        r#"[{"steps": [{"tool": "a.b"}]}]"#,
        r#"{"steps": [{"tool": "a.b"}], "name": }"#,
        r#"{"steps": [{"tool": "a.b"},]}"#,
        r#"{}"#,
    ];
    for text in cases {
        assert_streamed_read_is_the_tree_read(text);
    }
    // Every JSON document of the repository read as a plan.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![
        root.join("tests"),
        root.join("examples"),
        root.join("conformance"),
    ];
    let mut read = 0;
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in rd.filter_map(Result::ok).map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                assert_streamed_read_is_the_tree_read(&text);
                read += 1;
            }
        }
    }
    assert!(read >= 100, "only {read} JSON files");
}

/// A document given as a plan that is another shape with `steps` (a
/// progress record lists its steps) is read as that shape, from its whole
/// tree, although its `steps` were streamed.
#[test]
fn a_progress_record_given_as_a_plan_is_read_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("examples/config_dag/progress.json")).unwrap_or_default();
    assert!(text.contains("\"steps\""));
    let mut sources = planc::SourceMap::default();
    let file = sources.add_with_kind("progress.json", text.clone(), SourceKind::Json);
    let (streamed, d1) = planc::driver::parse(&mut sources, file, planc::driver::Role::Plan);
    let (whole, d2) = planc::syntax::read_with(file, &text, |t, r| {
        planc::progress::read::read_as_module(t, r)
    });
    assert_eq!((streamed, d1), (whole, d2));
}
