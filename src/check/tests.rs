//! Unit tests over syntax trees built by hand (the fixtures under
//! tests/ui/check/ exercise the checker from `.plan` text).

use std::sync::atomic::{AtomicU32, Ordering};

use super::{CheckInput, CheckOutput, DepReason, ValueKind, check, model};
use crate::diagnostics::{Code, Severity};
use crate::source::{FileId, Span, Spanned};
use crate::syntax::ast::*;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A fresh, distinct span.
fn sp() -> Span {
    let n = NEXT.fetch_add(10, Ordering::Relaxed);
    Span::new(FileId(0), n as usize, n as usize + 5)
}

fn nm(s: &str) -> Name {
    Spanned::new(s.into(), sp())
}

fn ty(k: TypeKind) -> Type {
    Spanned::new(k, sp())
}
fn prim(p: Prim) -> Type {
    ty(TypeKind::Prim(p))
}
fn list(t: Type) -> Type {
    ty(TypeKind::List(Box::new(t)))
}
fn rec(fields: Vec<(&str, Type)>) -> Type {
    ty(TypeKind::Record(
        fields
            .into_iter()
            .map(|(n, t)| Field {
                doc: Doc::default(),
                name: nm(n),
                optional: false,
                ty: t,
                span: sp(),
            })
            .collect(),
    ))
}
fn en(vals: &[&str]) -> Type {
    ty(TypeKind::Enum(vals.iter().map(|v| nm(v)).collect()))
}

fn e(k: ExprKind) -> Expr {
    Spanned::new(k, sp())
}
fn s(v: &str) -> Expr {
    e(ExprKind::Literal(Literal::String(v.into())))
}
fn int(v: &str) -> Expr {
    e(ExprKind::Literal(Literal::Int(v.into())))
}
fn dec(v: &str) -> Expr {
    e(ExprKind::Literal(Literal::Decimal(v.into())))
}
fn date(v: &str) -> Expr {
    e(ExprKind::Literal(Literal::Date(v.into())))
}
fn boolean(v: bool) -> Expr {
    e(ExprKind::Literal(Literal::Bool(v)))
}
fn r(path: &str) -> Expr {
    let mut parts = path.split('.');
    let name = nm(parts.next().unwrap_or_default());
    e(ExprKind::Ref(Reference {
        name,
        members: parts.map(nm).collect(),
    }))
}
fn record(entries: Vec<(&str, Expr)>) -> Expr {
    e(ExprKind::Record(
        entries
            .into_iter()
            .map(|(n, v)| RecordEntry {
                name: nm(n),
                value: v,
            })
            .collect(),
    ))
}

fn param(n: &str, t: Type, default: Option<Expr>) -> Param {
    Param {
        doc: Doc::default(),
        name: nm(n),
        ty: t,
        default,
        span: sp(),
    }
}

fn tool(
    n: &str,
    params: Vec<Param>,
    result: Type,
    effect: Effect,
    idem: bool,
    untrusted: bool,
) -> Item {
    Item::Tool(ToolDecl {
        doc: Doc::default(),
        name: nm(n),
        params,
        result,
        effect: Some(Spanned::new(effect, sp())),
        idempotent: idem.then(|| Spanned::new(true, sp())),
        untrusted: untrusted.then(sp),
        degraded: None,
        foreign: false,
        span: sp(),
    })
}

/// `$.results[0].id`
fn path(text: &str) -> Path {
    let mut segments = Vec::new();
    let rest = text.strip_prefix('$').unwrap_or(text);
    for part in rest.split('.').filter(|p| !p.is_empty()) {
        let (field, idx) = match part.find('[') {
            Some(k) => (&part[..k], Some(&part[k..])),
            None => (part, None),
        };
        if !field.is_empty() {
            segments.push(Spanned::new(PathSeg::Field(field.into()), sp()));
        }
        if let Some(idx) = idx {
            for n in idx.split(['[', ']']).filter(|x| !x.is_empty()) {
                segments.push(Spanned::new(PathSeg::Index(n.parse().unwrap()), sp()));
            }
        }
    }
    Path {
        root: None,
        segments,
        span: sp(),
    }
}

fn bind(n: &str, p: &str) -> Clause {
    Clause::Bind {
        name: nm(n),
        path: path(p),
        span: sp(),
    }
}
fn post_len(p: &str, op: CmpOp, n: &str) -> Clause {
    Clause::Post(Probe {
        kind: ProbeKind::Len {
            path: path(p),
            op: Spanned::new(op, sp()),
            value: Spanned::new(Literal::Int(n.into()), sp()),
        },
        span: sp(),
    })
}
fn post_exists(p: &str) -> Clause {
    Clause::Post(Probe {
        kind: ProbeKind::Exists { path: path(p) },
        span: sp(),
    })
}
fn post_cmp(p: &str, op: CmpOp, v: Literal) -> Clause {
    Clause::Post(Probe {
        kind: ProbeKind::Compare {
            path: path(p),
            op: Spanned::new(op, sp()),
            value: Spanned::new(v, sp()),
        },
        span: sp(),
    })
}
fn after(names: &[&str]) -> Clause {
    Clause::After {
        steps: names.iter().map(|n| nm(n)).collect(),
        span: sp(),
    }
}

fn step(n: &str, t: &str, args: Vec<(&str, Expr)>, clauses: Vec<Clause>) -> Step {
    Step {
        doc: Doc::default(),
        name: nm(n),
        tool: nm(t),
        args: args
            .into_iter()
            .map(|(a, v)| Arg {
                name: nm(a),
                value: v,
                span: sp(),
            })
            .collect(),
        json_args: None,
        clauses,
        span: sp(),
    }
}

fn plan(steps: Vec<Step>) -> Item {
    Item::Plan(PlanDecl {
        doc: Doc::default(),
        name: nm("p"),
        goal: Some(Spanned::new("goal".into(), sp())),
        replans: None,
        max_steps: None,
        steps,
        span: sp(),
    })
}

struct RuleSpec<'a> {
    tool: &'a str,
    requires: &'a [&'a str],
    approval: bool,
    ceiling: Option<(&'a str, CmpOp, Literal)>,
    untrusted: bool,
}

fn rule<'a>(tool: &'a str, requires: &'a [&'a str]) -> RuleSpec<'a> {
    RuleSpec {
        tool,
        requires,
        approval: false,
        ceiling: None,
        untrusted: false,
    }
}

fn policy(actor: &[&str], rules: Vec<RuleSpec<'_>>) -> Item {
    Item::Policy(PolicyDecl {
        doc: Doc::default(),
        name: nm("support_agent"),
        actor: Some(Spanned::new(actor.iter().map(|a| nm(a)).collect(), sp())),
        max_steps: None,
        replans: None,
        rules: rules
            .into_iter()
            .map(|r| PolicyRule {
                tool: nm(r.tool),
                requires: r.requires.iter().map(|s| nm(s)).collect(),
                approval: r.approval.then(|| Spanned::new(Approval::Human, sp())),
                ceilings: r
                    .ceiling
                    .into_iter()
                    .map(|(a, op, lit)| Ceiling {
                        arg: nm(a),
                        op: Spanned::new(op, sp()),
                        limit: Spanned::new(lit, sp()),
                        span: sp(),
                    })
                    .collect(),
                arg_rules: Vec::new(),
                calls: None,
                untrusted: r.untrusted.then(sp),
                trusted: None,
                effect: None,
                idempotent: None,
                span: sp(),
            })
            .collect(),
        span: sp(),
    })
}

/// The Northwind incident's catalogue and policy.
fn northwind() -> Vec<Item> {
    vec![
        tool(
            "customer.resolve",
            vec![
                param("email", prim(Prim::String), None),
                param("include_children", prim(Prim::Bool), Some(boolean(false))),
            ],
            rec(vec![(
                "results",
                list(rec(vec![
                    ("id", prim(Prim::String)),
                    ("name", prim(Prim::String)),
                ])),
            )]),
            Effect::Read,
            true,
            false,
        ),
        tool(
            "billing.get_subscription",
            vec![
                param("account_id", prim(Prim::String), None),
                param("as_of", prim(Prim::Date), None),
            ],
            rec(vec![
                ("id", prim(Prim::String)),
                ("commitment", en(&["none", "monthly", "annual"])),
                ("current_period_end", prim(Prim::Date)),
            ]),
            Effect::Read,
            true,
            false,
        ),
        tool(
            "billing.compute_proration",
            vec![param("subscription_id", prim(Prim::String), None)],
            rec(vec![("credit_eur", prim(Prim::Decimal))]),
            Effect::Read,
            true,
            false,
        ),
        tool(
            "billing.issue_credit",
            vec![
                param("account_id", prim(Prim::String), None),
                param("amount_eur", prim(Prim::Decimal), None),
                param("reason", prim(Prim::String), None),
            ],
            rec(vec![("credit_id", prim(Prim::String))]),
            Effect::Write,
            false,
            false,
        ),
        tool(
            "billing.change_plan",
            vec![
                param("subscription_id", prim(Prim::String), None),
                param("plan", en(&["starter", "pro"]), None),
                param("effective", prim(Prim::Date), None),
            ],
            rec(vec![("status", en(&["scheduled", "applied"]))]),
            Effect::Write,
            false,
            false,
        ),
        tool(
            "policies.search",
            vec![param("query", prim(Prim::String), None)],
            rec(vec![("chunks", list(prim(Prim::String)))]),
            Effect::Read,
            true,
            true,
        ),
        tool(
            "email.send",
            vec![
                param("to", prim(Prim::String), None),
                param(
                    "facts",
                    rec(vec![
                        ("plan", prim(Prim::String)),
                        ("effective", prim(Prim::Date)),
                    ]),
                    None,
                ),
            ],
            rec(vec![("message_id", prim(Prim::String))]),
            Effect::Write,
            false,
            false,
        ),
        policy(
            &[
                "crm:read",
                "billing:read",
                "billing:write",
                "comms:write",
                "kb:read",
            ],
            vec![
                rule("customer.resolve", &["crm:read"]),
                rule("billing.get_subscription", &["billing:read"]),
                rule("billing.compute_proration", &["billing:read"]),
                RuleSpec {
                    approval: true,
                    ..rule("billing.change_plan", &["billing:write"])
                },
                RuleSpec {
                    ceiling: Some(("amount_eur", CmpOp::Le, Literal::Int("500".into()))),
                    ..rule("billing.issue_credit", &["billing:write"])
                },
                rule("policies.search", &["kb:read"]),
                rule("email.send", &["comms:write"]),
            ],
        ),
    ]
}

fn run(steps: Vec<Step>) -> (Module, CheckOutput) {
    let mut items = northwind();
    items.push(plan(steps));
    let m = Module { items };
    let out = {
        let plans = [&m];
        check(&CheckInput {
            plans: &plans,
            ..CheckInput::default()
        })
    };
    (m, out)
}

fn codes(out: &CheckOutput) -> Vec<Code> {
    out.diagnostics.iter().map(|d| d.code).collect()
}

fn errors(out: &CheckOutput) -> Vec<Code> {
    out.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect()
}

fn resolve_step(clauses: Vec<Clause>) -> Step {
    step(
        "resolve",
        "customer.resolve",
        vec![
            ("email", s("a.kohl@northwind-traders.co.uk")),
            ("include_children", boolean(true)),
        ],
        clauses,
    )
}

fn subscription_step() -> Step {
    step(
        "subscription",
        "billing.get_subscription",
        vec![
            ("account_id", r("account_id")),
            ("as_of", date("2026-03-04")),
        ],
        vec![
            post_exists("$.id"),
            bind("sub_id", "$.id"),
            bind("period_end", "$.current_period_end"),
        ],
    )
}

fn change_step() -> Step {
    step(
        "change",
        "billing.change_plan",
        vec![
            ("subscription_id", r("sub_id")),
            ("plan", s("starter")),
            ("effective", r("period_end")),
        ],
        vec![post_cmp(
            "$.status",
            CmpOp::Eq,
            Literal::String("scheduled".into()),
        )],
    )
}

#[test]
fn northwind_pinned_is_clean() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Eq, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::N0301], "{:#?}", out.diagnostics);
    let p = &out.plans[0];
    assert_eq!(p.approvals, vec![2]);
    assert_eq!(p.scopes, vec!["billing:read", "billing:write", "crm:read"]);
    let change = &p.steps[2];
    assert_eq!(
        change
            .depends_on
            .iter()
            .map(|d| (d.step, d.reason))
            .collect::<Vec<_>>(),
        vec![(1, DepReason::Data)]
    );
    assert!(
        matches!(&change.args[0].value.kind, ValueKind::Ref(r) if r.binding == "sub_id" && r.step == 1)
    );
    assert_eq!(p.schedule, Some(vec![vec![0], vec![1], vec![2]]));
    // The default of `include_children` is filled in... only when not given.
    assert_eq!(p.steps[0].args.len(), 2);
}

#[test]
fn northwind_unpinned_pick_warns() {
    let (m, out) = run(vec![
        resolve_step(vec![bind("account_id", "$.results[0].id")]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::W0401, Code::N0301]);
    // The warning points at the `[0]`.
    let Item::Plan(p) = &m.items[m.items.len() - 1] else {
        unreachable!()
    };
    let Clause::Bind { path, .. } = &p.steps[0].clauses[0] else {
        unreachable!()
    };
    assert_eq!(out.diagnostics[0].span, path.segments[1].span);
    assert_eq!(out.diagnostics[0].step.as_deref(), Some("resolve"));
}

#[test]
fn len_at_least_one_does_not_pin() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Ge, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::W0401, Code::N0301]);
    // But two posts that together pin it do.
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Ge, "1"),
            post_len("$.results", CmpOp::Lt, "2"),
            bind("account_id", "$.results[0].id"),
        ]),
        subscription_step(),
        change_step(),
    ]);
    assert_eq!(codes(&out), vec![Code::N0301]);
}

fn credit_step(amount: Expr) -> Step {
    step(
        "credit",
        "billing.issue_credit",
        vec![
            ("account_id", s("acct_1")),
            ("amount_eur", amount),
            ("reason", s("downgrade")),
        ],
        vec![post_exists("$.credit_id")],
    )
}

#[test]
fn literal_credit_above_ceiling() {
    let (_, out) = run(vec![credit_step(dec("4180.00"))]);
    assert_eq!(codes(&out), vec![Code::E0303]);
    let d = &out.diagnostics[0];
    assert!(
        d.message.contains("`amount_eur` = `4180.00`"),
        "{}",
        d.message
    );
    assert_eq!(d.labels.len(), 1);
    // Exactly representable, just above the ceiling: still refused.
    let (_, out) = run(vec![credit_step(dec("500.0000000000000001"))]);
    assert_eq!(codes(&out), vec![Code::E0303]);
    let (_, out) = run(vec![credit_step(int("500"))]);
    assert!(out.diagnostics.is_empty(), "{:#?}", out.diagnostics);
    // Too many digits to hold exactly: E0204, never rounded to 500.
    let (_, out) = run(vec![credit_step(dec("500.00000000000000000000000000001"))]);
    assert_eq!(codes(&out), vec![Code::E0204]);
}

#[test]
fn referenced_credit_gets_a_guard() {
    let (_, out) = run(vec![
        step(
            "proration",
            "billing.compute_proration",
            vec![("subscription_id", s("sub_1"))],
            vec![post_exists("$.credit_eur"), bind("credit", "$.credit_eur")],
        ),
        credit_step(r("credit")),
    ]);
    assert_eq!(codes(&out), vec![Code::N0302]);
    let guards = &out.plans[0].steps[1].authz.guards;
    assert_eq!(guards.len(), 1);
    assert_eq!(guards[0].arg, "amount_eur");
    assert_eq!(guards[0].text(), "amount_eur <= 500");
}

#[test]
fn five_mistakes_five_errors() {
    let (_, out) = run(vec![
        // 1. unknown tool
        step("a", "billing.isue_credit", vec![("x", s("y"))], vec![]),
        // 2. unknown argument
        step(
            "b",
            "customer.resolve",
            vec![("email", s("x")), ("emial", s("y"))],
            vec![
                post_len("$.results", CmpOp::Eq, "1"),
                bind("acct", "$.results[0].id"),
            ],
        ),
        // 3. wrong type through a reference
        step(
            "c",
            "billing.get_subscription",
            vec![("account_id", r("acct")), ("as_of", r("acct"))],
            vec![bind("sid", "$.id")],
        ),
        // 4. enum literal outside its values
        step(
            "d",
            "billing.change_plan",
            vec![
                ("subscription_id", r("sid")),
                ("plan", s("gold")),
                ("effective", date("2026-03-04")),
            ],
            vec![post_exists("$.status")],
        ),
        // 5. missing argument
        step(
            "e",
            "email.send",
            vec![("to", s("x"))],
            vec![post_exists("$.message_id")],
        ),
    ]);
    assert_eq!(
        errors(&out),
        vec![
            Code::E0101,
            Code::E0102,
            Code::E0201,
            Code::E0204,
            Code::E0103
        ],
        "{:#?}",
        out.diagnostics
    );
    let e0101 = &out.diagnostics[0];
    assert_eq!(
        e0101.help.as_deref(),
        Some("did you mean `billing.issue_credit`?")
    );
    assert_eq!(e0101.fixes[0].replacement, "billing.issue_credit");
}

#[test]
fn references_in_order() {
    let (_, out) = run(vec![
        step(
            "change",
            "billing.change_plan",
            vec![
                ("subscription_id", r("sub_id")),
                ("plan", s("starter")),
                ("effective", date("2026-03-04")),
            ],
            vec![post_exists("$.status")],
        ),
        step(
            "subscription",
            "billing.get_subscription",
            vec![("account_id", r("sub_id")), ("as_of", date("2026-03-04"))],
            vec![bind("sub_id", "$.id")],
        ),
    ]);
    let got: Vec<Code> = errors(&out);
    assert_eq!(got, vec![Code::E0106, Code::E0107]);
    let fwd = &out.diagnostics[0];
    assert_eq!(
        fwd.labels[0].message,
        "`sub_id` is bound here, by step `subscription`, which comes after this one"
    );
}

#[test]
fn unknown_binding_and_after() {
    let (_, out) = run(vec![
        resolve_step(vec![
            post_len("$.results", CmpOp::Eq, "1"),
            bind("account_id", "$.results[0].id"),
        ]),
        step(
            "subscription",
            "billing.get_subscription",
            vec![
                ("account_id", r("acount_id")),
                ("as_of", date("2026-03-04")),
            ],
            vec![after(&["reslove"])],
        ),
    ]);
    // One mistake, one message: the misspelt reference's E0105 suggests
    // `account_id`, which is therefore not also "never used" (W0403).
    assert_eq!(codes(&out), vec![Code::E0105, Code::E0108]);
    assert_eq!(
        out.diagnostics[0].help.as_deref(),
        Some("did you mean `account_id`?")
    );
    assert_eq!(
        out.diagnostics[1].help.as_deref(),
        Some("did you mean `resolve`?")
    );
}

#[test]
fn after_cycle_with_write_order() {
    let credit = |n: &str, clauses: Vec<Clause>| {
        step(
            n,
            "billing.issue_credit",
            vec![
                ("account_id", s("a")),
                ("amount_eur", int("1")),
                ("reason", s("r")),
            ],
            clauses,
        )
    };
    let (_, out) = run(vec![
        credit("one", vec![post_exists("$.credit_id"), after(&["two"])]),
        credit("two", vec![post_exists("$.credit_id")]),
    ]);
    assert_eq!(codes(&out), vec![Code::E0108]);
    assert!(out.diagnostics[0].message.starts_with("ordering cycle"));
    assert!(out.plans[0].schedule.is_none());
    // A read may be moved after a later step.
    let (_, out) = run(vec![
        resolve_step(vec![post_len("$.results", CmpOp::Eq, "1"), after(&["two"])]),
        credit("two", vec![post_exists("$.credit_id")]),
    ]);
    assert_eq!(codes(&out), Vec::<Code>::new(), "{:#?}", out.diagnostics);
    assert_eq!(out.plans[0].schedule, Some(vec![vec![1], vec![0]]));
}

#[test]
fn untrusted_data_into_a_write() {
    let (_, out) = run(vec![
        step(
            "search",
            "policies.search",
            vec![("query", s("refund policy"))],
            vec![
                post_len("$.chunks", CmpOp::Eq, "1"),
                bind("chunk", "$.chunks[0]"),
            ],
        ),
        step(
            "mail",
            "email.send",
            vec![
                ("to", s("a@b.c")),
                (
                    "facts",
                    record(vec![
                        ("plan", r("chunk")),
                        ("effective", date("2026-03-04")),
                    ]),
                ),
            ],
            vec![post_exists("$.message_id")],
        ),
    ]);
    assert_eq!(codes(&out), vec![Code::W0404]);
    assert_eq!(out.plans[0].steps[1].untrusted_inputs, vec!["facts"]);
}

#[test]
fn retry_needs_idempotence() {
    let mut s1 = credit_step(int("5"));
    s1.clauses.push(Clause::Retry(Spanned::new(3, sp())));
    let (_, out) = run(vec![s1]);
    assert_eq!(codes(&out), vec![Code::E0304]);
}

#[test]
fn unknown_tool_silences_its_bindings() {
    let (_, out) = run(vec![
        step("a", "nothing.here", vec![], vec![bind("x", "$.a[0].b")]),
        step(
            "b",
            "billing.get_subscription",
            vec![("account_id", r("x.deep.er")), ("as_of", r("x"))],
            vec![post_exists("$.id")],
        ),
    ]);
    assert_eq!(codes(&out), vec![Code::E0101]);
}

#[test]
fn no_policy_denies() {
    let mut items: Vec<Item> = northwind()
        .into_iter()
        .filter(|i| !matches!(i, Item::Policy(_)))
        .collect();
    items.push(plan(vec![credit_step(int("5"))]));
    let m = Module { items };
    let plans = [&m];
    let out = check(&CheckInput {
        plans: &plans,
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), vec![Code::E0301]);
}

#[test]
fn actor_scopes() {
    let (m, _) = run(vec![credit_step(int("5"))]);
    let plans = [&m];
    let actor = vec!["crm:read".to_string()];
    let out = check(&CheckInput {
        plans: &plans,
        actor: Some(&actor),
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), vec![Code::E0302]);
    let actor = vec!["billing:*".to_string()];
    let out = check(&CheckInput {
        plans: &plans,
        actor: Some(&actor),
        ..CheckInput::default()
    });
    assert_eq!(codes(&out), Vec::<Code>::new());
}

#[test]
fn count_default_resolves_the_one_list() {
    let mut st = resolve_step(vec![bind("account_id", "$.results[0].id")]);
    st.clauses.insert(
        0,
        Clause::Post(Probe {
            kind: ProbeKind::CountDefault {
                op: Spanned::new(CmpOp::Eq, sp()),
                value: Spanned::new(Literal::Int("1".into()), sp()),
            },
            span: sp(),
        }),
    );
    let (_, out) = run(vec![st, subscription_step(), change_step()]);
    assert_eq!(codes(&out), vec![Code::N0301], "{:#?}", out.diagnostics);
    assert_eq!(
        out.plans[0].steps[0].posts[0].kind,
        model::ProbeKind::Len {
            path: vec![PathSeg::Field("results".into())],
            op: CmpOp::Eq,
            value: 1
        }
    );
}

#[test]
fn many_steps_stay_linear() {
    // A chain of 100,000 reads, each using the previous binding.
    let n = 100_000;
    let mut steps = Vec::with_capacity(n);
    for i in 0..n {
        let arg = if i == 0 {
            s("x")
        } else {
            r(&format!("id{}", i - 1))
        };
        steps.push(step(
            &format!("s{i}"),
            "billing.compute_proration",
            vec![("subscription_id", arg)],
            vec![
                post_exists("$.credit_eur"),
                bind(&format!("id{i}"), "$.credit_eur"),
            ],
        ));
    }
    let (_, out) = run(steps);
    // decimal is not a string: every step but the first has E0201; the
    // last binding is unused.
    assert_eq!(out.diagnostics.len(), n);
    assert_eq!(out.plans[0].schedule.as_ref().map(Vec::len), Some(n));
}
