//! Unit tests over syntax trees built by hand (the fixtures under
//! tests/ui/check/ exercise the checker from `.plan` text). This file holds
//! the shared builders of syntax trees, the Northwind catalogue and policy
//! they are checked against, and `run`; one file per theme beside it.

mod authz;
mod order;
mod pinning;
mod resolution;
mod reuse;
mod sizes;
mod skeletal;
mod writes;

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
