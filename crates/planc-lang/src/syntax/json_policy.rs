//! A policy as JSON, read into an [`ast::PolicyDecl`]: the shape of
//! `docs/json.md`.
//!
//! ```json
//! {"name": "support_agent",
//!  "actor": {"scopes": ["billing:read", "billing:write"]},
//!  "tools": {"billing.issue_credit": {"scopes": ["billing:write"],
//!                                     "max": {"amount_eur": 500},
//!                                     "approval": "human", "untrusted": false},
//!            "orders.lookup": {"scopes": ["orders:read"],
//!                              "effect": "read", "idempotent": true}},
//!  "max_steps": 20}
//! ```
//!
//! `effect` (`"read"` or `"write"`) and `idempotent` state what a
//! catalogue leaves unsaid (an OpenAI function has no hints); where the
//! catalogue states otherwise, the checker refuses them (E0310).
//!
//! `max` holds `<=` ceilings and `min` `>=` ones, over the tool's arguments;
//! a limit is a number or a string (a date, say), which the checker converts
//! against the argument's type. `approval` is `"human"` (or `null` for
//! none). The name defaults to `policy`. Unknown keys are E0004.
//!
//! The other rules of a `where` list (`docs/json.md`): `"in": {"recipient":
//! [...]}`, `"not_in": {...}`, `"matches": {"url": "^https://..."}`,
//! `"trusted": ["recipient"]`, `"total": {"amount": {"max": 1000, "per":
//! "recipient"}}` (`per` optional) and `"calls": 3`; at the top,
//! `"replans": N`.

use super::ast::{
    Approval, ArgRule, ArgRuleKind, Ceiling, CmpOp, Doc, Effect, Item, Module, Name, PolicyDecl,
    PolicyRule, Str,
};
use super::json::{Json, Value};
use super::json_plan::literal;
use super::json_reader::Reader;
use super::lexicon::{is_ident, is_scope};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Spanned;

pub const POLICY_KEYS: &[&str] = &["name", "actor", "tools", "max_steps", "replans"];
pub const ACTOR_KEYS: &[&str] = &["scopes"];
pub const RULE_KEYS: &[&str] = &[
    "scopes",
    "max",
    "min",
    "in",
    "not_in",
    "matches",
    "trusted",
    "total",
    "calls",
    "approval",
    "untrusted",
    "effect",
    "idempotent",
];
pub const TOTAL_KEYS: &[&str] = &["max", "per"];

/// Every key list of this module, for a test that they fit the reader.
#[doc(hidden)]
pub const SHAPES: &[&[&str]] = &[POLICY_KEYS, ACTOR_KEYS, RULE_KEYS, TOTAL_KEYS];

/// Reads a parsed policy document. Never fails.
pub fn read_policy(text: &str, root: &Json<'_>) -> (Module, Vec<Diagnostic>) {
    let mut r = Reader::new(text);
    let item = match policy(&mut r, root) {
        Some(p) => Item::Policy(p),
        None => Item::Error(root.span),
    };
    (Module { items: vec![item] }, r.diags)
}

fn policy(r: &mut Reader<'_>, root: &Json<'_>) -> Option<PolicyDecl> {
    let f = r.fields(root, "a policy", POLICY_KEYS)?;
    let first = crate::source::Span {
        end: root.span.start.saturating_add(1).min(root.span.end),
        ..root.span
    };
    let mut name = Spanned::new(Str::from("policy"), first);
    if let Some(v) = f.get("name")
        && let Some(s) = r.string("name", v)
    {
        if is_ident(s) {
            name = Spanned::new(Str::from(s), v.text_span());
        } else {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    v.span,
                    format!("a policy name must be an identifier, found `{s}`"),
                )
                .with_label("not an identifier")
                .with_help("an identifier is a letter or `_`, then letters, digits and `_`"),
            );
        }
    }
    let actor = f.get("actor").and_then(|a| {
        let af = r.fields(a, "`actor`", ACTOR_KEYS)?;
        match af.get("scopes") {
            Some(s) => Some(Spanned::new(scopes(r, s), a.span)),
            None => {
                r.missing_key(a.span, "scopes", "`actor`");
                None
            }
        }
    });
    let max_steps = f
        .get("max_steps")
        .and_then(|v| r.count("max_steps", v).map(|n| Spanned::new(n, v.span)));
    let replans = f
        .get("replans")
        .and_then(|v| r.count("replans", v).map(|n| Spanned::new(n, v.span)));
    let mut rules = Vec::new();
    if let Some(t) = f.get("tools") {
        match t.as_object() {
            None => r.ill_typed("`tools`", t, "an object of tool names and rules"),
            Some(members) => {
                for m in r.unique(members) {
                    let tool: Name = Spanned::new(Str::from(&*m.key), m.key_text_span());
                    if let Some(rule) = rule(r, tool, &m.value, m.span()) {
                        rules.push(rule);
                    }
                }
            }
        }
    }
    Some(PolicyDecl {
        doc: Doc::default(),
        name,
        actor,
        max_steps,
        replans,
        rules,
        span: root.span,
    })
}

fn rule(
    r: &mut Reader<'_>,
    tool: Name,
    v: &Json<'_>,
    span: crate::source::Span,
) -> Option<PolicyRule> {
    let what = format!("the rule of `{}`", tool.node);
    let f = r.fields(v, &what, RULE_KEYS)?;
    let requires = f.get("scopes").map(|s| scopes(r, s)).unwrap_or_default();
    let approval = f.get("approval").and_then(|a| match &a.value {
        Value::Null => None,
        Value::String(s) if s == "human" => Some(Spanned::new(Approval::Human, a.span)),
        _ => {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    a.span,
                    "`approval` must be `\"human\"` or `null`",
                )
                .with_label("unknown approval"),
            );
            None
        }
    });
    let flag = f
        .get("untrusted")
        .and_then(|u| r.boolean("untrusted", u).map(|b| (b, u.span)));
    let untrusted = flag.and_then(|(b, s)| b.then_some(s));
    let trusted = flag.and_then(|(b, s)| (!b).then_some(s));
    let effect = f.get("effect").and_then(|e| match &e.value {
        Value::String(s) if s == "read" => Some(Spanned::new(Effect::Read, e.span)),
        Value::String(s) if s == "write" => Some(Spanned::new(Effect::Write, e.span)),
        _ => {
            r.report(
                Diagnostic::new(
                    Code::E0004,
                    e.span,
                    "`effect` must be `\"read\"` or `\"write\"`",
                )
                .with_label("unknown effect")
                .with_help(
                    "`\"write\"` if the tool changes anything outside the run, else `\"read\"`",
                ),
            );
            None
        }
    });
    let idempotent = f
        .get("idempotent")
        .and_then(|i| r.boolean("idempotent", i).map(|b| Spanned::new(b, i.span)));
    let mut ceilings = Vec::new();
    for m in f.in_order() {
        let op = match &*m.key {
            "max" => CmpOp::Le,
            "min" => CmpOp::Ge,
            _ => continue,
        };
        let Some(members) = m.value.as_object() else {
            r.ill_typed(
                &format!("`{}`", m.key),
                &m.value,
                "an object of argument names and limits",
            );
            continue;
        };
        for c in r.unique(members) {
            let what = format!("the limit of `{}`", c.key);
            if let Some(limit) = literal(r, &what, &c.value) {
                ceilings.push(Ceiling {
                    arg: Spanned::new(Str::new(&c.key), c.key_text_span()),
                    op: Spanned::new(op, m.key_text_span()),
                    limit,
                    span: c.span(),
                });
            }
        }
    }
    let arg_rules = arg_rules(r, &f);
    let calls = f
        .get("calls")
        .and_then(|v| r.count("calls", v).map(|n| Spanned::new(n, v.span)));
    Some(PolicyRule {
        tool,
        requires,
        approval,
        ceilings,
        arg_rules,
        calls,
        untrusted,
        trusted,
        effect,
        idempotent,
        span,
    })
}

/// The rules over one argument each (`in`, `not_in`, `matches`, `trusted`,
/// `total`), in the order their keys are written.
fn arg_rules(r: &mut Reader<'_>, f: &super::json_reader::Fields<'_, '_>) -> Vec<ArgRule> {
    let mut out = Vec::new();
    for m in f.in_order() {
        let key = &*m.key;
        if key == "trusted" {
            let Some(items) = m.value.as_array() else {
                r.ill_typed("`trusted`", &m.value, "an array of argument names");
                continue;
            };
            for item in items {
                match item.as_str() {
                    Some(a) => out.push(ArgRule {
                        arg: Spanned::new(Str::new(a), item.text_span()),
                        kind: ArgRuleKind::Trusted,
                        span: item.span,
                    }),
                    None => r.ill_typed("an argument name", item, "a string"),
                }
            }
            continue;
        }
        if !matches!(key, "in" | "not_in" | "matches" | "total") {
            continue;
        }
        let Some(members) = m.value.as_object() else {
            r.ill_typed(
                &format!("`{key}`"),
                &m.value,
                "an object of argument names and their rules",
            );
            continue;
        };
        for c in r.unique(members) {
            let arg = Spanned::new(Str::new(&c.key), c.key_text_span());
            let kind = match key {
                "in" | "not_in" => {
                    let Some(items) = c.value.as_array() else {
                        r.ill_typed(
                            &format!("the list of `{}`", c.key),
                            &c.value,
                            "an array of values",
                        );
                        continue;
                    };
                    let what = format!("a value of `{}`", c.key);
                    let values = items.iter().filter_map(|v| literal(r, &what, v)).collect();
                    ArgRuleKind::In {
                        negated: key == "not_in",
                        values,
                        list: c.value.span,
                    }
                }
                "matches" => match c.value.as_str() {
                    Some(p) => ArgRuleKind::Matches(Spanned::new(Str::new(p), c.value.text_span())),
                    None => {
                        r.ill_typed(&format!("the pattern of `{}`", c.key), &c.value, "a string");
                        continue;
                    }
                },
                _ => {
                    let what = format!("the total of `{}`", c.key);
                    let Some(tf) = r.fields(&c.value, &what, TOTAL_KEYS) else {
                        continue;
                    };
                    let Some(mv) = tf.get("max") else {
                        r.missing_key(c.value.span, "max", &what);
                        continue;
                    };
                    let Some(max) = literal(r, &format!("the maximum of `{}`", c.key), mv) else {
                        continue;
                    };
                    let per = match tf.get("per") {
                        None => None,
                        Some(p) => match &p.value {
                            Value::Null => None,
                            Value::String(s) => Some(Spanned::new(Str::new(s), p.text_span())),
                            _ => {
                                r.ill_typed("`per`", p, "an argument name or `null`");
                                continue;
                            }
                        },
                    };
                    ArgRuleKind::Total { max, per }
                }
            };
            out.push(ArgRule {
                arg,
                kind,
                span: c.span(),
            });
        }
    }
    out
}

/// A list of scopes: `billing:write`, `crm:read`, or a plain identifier.
fn scopes(r: &mut Reader<'_>, v: &Json<'_>) -> Vec<Name> {
    let Some(items) = v.as_array() else {
        r.ill_typed("`scopes`", v, "an array of scope strings");
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some(s) = item.as_str() else {
            r.ill_typed("a scope", item, "a string");
            continue;
        };
        if !is_scope(s) {
            r.report(
                Diagnostic::new(Code::E0004, item.span, format!("invalid scope `{s}`"))
                    .with_label("not a scope")
                    .with_help(
                        "a scope is an identifier, then `:`-separated parts: `billing:write`",
                    ),
            );
            continue;
        }
        out.push(Spanned::new(Str::from(s), item.text_span()));
    }
    out
}
