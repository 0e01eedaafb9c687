//! An independent, deliberately plain checker of the IR invariants of
//! `docs/ir.md`. It shares no code with the compiler's checker: it
//! reads only the IR and a plain description of the catalogue and policy, so
//! a bug in the checker cannot hide itself here.

#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use planc::ir::{CmpOp, DependencyReason, Effect, GuardLimit, GuardOp, Literal, PlanIr, Value};
use planc::progress::JsonValue;

/// What the policy says of one tool, as plain data.
#[derive(Clone, Debug, Default)]
pub struct ToolRule {
    pub scopes: Vec<String>,
    pub ceilings: Vec<(String, CmpOp, Literal)>,
    pub approval: bool,
    /// `ARG in [...]` (`false`) and `ARG not in [...]` (`true`).
    pub lists: Vec<(String, bool, Vec<Literal>)>,
    /// `ARG matches "RE"`.
    pub patterns: Vec<(String, String)>,
    /// `total ARG <= MAX per PER`.
    pub totals: Vec<(String, Literal, Option<String>)>,
    /// `calls <= N`.
    pub calls: Option<u64>,
}

/// The catalogue (tool names and effects) and the policy, as plain data.
#[derive(Clone, Debug, Default)]
pub struct World {
    pub tools: BTreeMap<String, Effect>,
    pub rules: BTreeMap<String, ToolRule>,
    pub actor: BTreeSet<String>,
}

/// Every violated invariant, as a sentence; empty when the IR is sound.
pub fn violations(ir: &PlanIr, world: &World) -> Vec<String> {
    let mut out = Vec::new();
    let index: BTreeMap<&str, usize> = ir
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.index))
        .collect();

    for (i, step) in ir.steps.iter().enumerate() {
        if step.index != i {
            out.push(format!(
                "step `{}` has index {} at position {i}",
                step.name, step.index
            ));
        }
        let deps: BTreeSet<&str> = step.depends_on.iter().map(|d| d.step.as_str()).collect();

        // References point to earlier steps that bind the name, and are edges.
        let mut refs = Vec::new();
        for v in step.args.values() {
            collect_refs(v, &mut refs);
        }
        for (binding, binder) in refs {
            match ir.steps.iter().find(|s| s.name == binder) {
                None => out.push(format!(
                    "step `{}` refers to unknown step `{binder}`",
                    step.name
                )),
                Some(b) => {
                    if b.index >= step.index {
                        out.push(format!(
                            "step `{}` refers to `{binding}` of a later step `{binder}`",
                            step.name
                        ));
                    }
                    if !b.binds.contains_key(binding) {
                        out.push(format!("step `{binder}` does not bind `{binding}`"));
                    }
                    if !step
                        .depends_on
                        .iter()
                        .any(|d| d.step == binder && d.reason == DependencyReason::Data)
                    {
                        out.push(format!(
                            "step `{}` uses `{binding}` without a data edge to `{binder}`",
                            step.name
                        ));
                    }
                }
            }
        }
        for d in &step.depends_on {
            match index.get(d.step.as_str()) {
                None => out.push(format!(
                    "step `{}` depends on unknown step `{}`",
                    step.name, d.step
                )),
                Some(&j) if j >= step.index && d.reason != DependencyReason::After => {
                    out.push(format!(
                        "step `{}` depends on a later step `{}` for {:?}",
                        step.name, d.step, d.reason
                    ))
                }
                _ => {}
            }
        }

        // Writes keep source order.
        if step.effect == Effect::Write
            && let Some(prev) = ir.steps[..i]
                .iter()
                .rev()
                .find(|s| s.effect == Effect::Write)
            && !deps.contains(prev.name.as_str())
        {
            out.push(format!(
                "write step `{}` does not depend on the previous write `{}`",
                step.name, prev.name
            ));
        }

        // The tool is in the catalogue, permitted, and the actor holds its scopes.
        match world.tools.get(step.tool.as_str()) {
            None => out.push(format!("tool `{}` is not in the catalogue", step.tool)),
            Some(effect) if *effect != step.effect => {
                out.push(format!("step `{}` has the wrong effect", step.name))
            }
            _ => {}
        }
        match world.rules.get(step.tool.as_str()) {
            None => out.push(format!(
                "tool `{}` is not permitted by the policy",
                step.tool
            )),
            Some(rule) => {
                for s in &rule.scopes {
                    if !world.actor.contains(s) {
                        out.push(format!("the actor lacks scope `{s}` for `{}`", step.tool));
                    }
                    if !step.authz.scopes.iter().any(|x| x == s) {
                        out.push(format!("step `{}` does not list scope `{s}`", step.name));
                    }
                }
                if rule.approval != step.authz.approval.is_some() {
                    out.push(format!("step `{}` has the wrong approval", step.name));
                }
                if rule.approval != ir.approvals.contains(&step.name) {
                    out.push(format!("approvals and step `{}` disagree", step.name));
                }
                // Ceilings: literals within them, references guarded.
                for (arg, op, limit) in &rule.ceilings {
                    // An argument under a ceiling is always given (a
                    // default is lowered as a literal): left out, the tool
                    // decides what it means, and nothing checks it.
                    let Some(value) = step.args.get(arg.as_str()) else {
                        out.push(format!(
                            "step `{}`: `{arg}` is under a ceiling but absent",
                            step.name
                        ));
                        continue;
                    };
                    // A reused step's artifact has its recorded value in the
                    // IR: decided at compile time, like a literal.
                    let reused = match value {
                        Value::Ref {
                            binding,
                            step: from,
                            path,
                        } => reused_value(ir, from, binding, path),
                        _ => None,
                    };
                    match (value, reused) {
                        (Value::Literal { literal }, _) => {
                            if !holds(literal, *op, limit) {
                                out.push(format!(
                                    "step `{}`: literal `{arg}` breaks its ceiling",
                                    step.name
                                ));
                            }
                        }
                        (_, Some(recorded)) => {
                            if !holds(&recorded, *op, limit) {
                                out.push(format!(
                                    "step `{}`: reused `{arg}` breaks its ceiling",
                                    step.name
                                ));
                            }
                        }
                        _ => {
                            let guarded = step.authz.guards.iter().any(|g| {
                                g.arg == arg
                                    && g.op.as_str() == op.as_str()
                                    && matches!(&g.limit, GuardLimit::One(l) if holds(l, CmpOp::Eq, limit))
                            });
                            if !guarded {
                                out.push(format!(
                                    "step `{}`: referenced `{arg}` has no guard",
                                    step.name
                                ));
                            }
                        }
                    }
                }
                trust_rules(ir, step, rule, &mut out);
            }
        }
    }

    // The schedule is a topological layering holding every step once.
    let mut wave_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (w, wave) in ir.schedule.iter().enumerate() {
        for name in wave {
            if wave_of.insert(name.as_str(), w).is_some() {
                out.push(format!("step `{name}` is scheduled twice"));
            }
        }
    }
    for step in &ir.steps {
        let Some(&w) = wave_of.get(step.name.as_str()) else {
            out.push(format!("step `{}` is not scheduled", step.name));
            continue;
        };
        for d in &step.depends_on {
            if wave_of.get(d.step.as_str()).is_none_or(|&dw| dw >= w) {
                out.push(format!(
                    "step `{}` is scheduled no later than its dependency `{}`",
                    step.name, d.step
                ));
            }
        }
    }
    if wave_of.len() != ir.steps.len() {
        out.push("the schedule names steps the plan does not have".to_string());
    }

    let mut scopes: Vec<String> = ir
        .steps
        .iter()
        .flat_map(|s| s.authz.scopes.iter().map(|x| x.to_string()))
        .collect();
    scopes.sort();
    scopes.dedup();
    if scopes != ir.scopes {
        out.push(format!(
            "scopes {:?} are not the sorted union {scopes:?}",
            ir.scopes
        ));
    }
    out
}

/// The rules beyond ceilings (`docs/ir.md`): a literal is in every
/// allowlist, in no denylist and matches every pattern as a whole; a
/// reference under one has its guard; every step of a tool with a total
/// carries it, and the literal amounts of the plan stay within it; no more
/// steps of a tool than its `calls`, each carrying the bound.
fn trust_rules(ir: &PlanIr, step: &planc::ir::StepIr, rule: &ToolRule, out: &mut Vec<String>) {
    // A rule over an argument the call leaves out holds (`docs/language.md`,
    // "Rules over an optional argument"); a list argument's literal
    // elements are each checked, and a list with anything else in it needs
    // an element-wise guard.
    for (arg, negated, list) in &rule.lists {
        let admits = |literal: &Literal| {
            let member = list.iter().any(|l| holds(literal, CmpOp::Eq, l));
            let apart = list
                .iter()
                .all(|l| !holds(literal, CmpOp::Eq, l) && comparable(literal, l));
            (!negated && member) || (*negated && apart)
        };
        let want = if *negated {
            GuardOp::NotIn
        } else {
            GuardOp::In
        };
        let guarded = |each: bool| {
            step.authz.guards.iter().any(|g| {
                g.arg == arg
                    && g.op == want
                    && (g.each || !each)
                    && matches!(&g.limit, GuardLimit::List(items) if items.len() == list.len()
                        && items.iter().zip(list).all(|(a, b)| holds(a, CmpOp::Eq, b)))
            })
        };
        one_rule(step, arg, "list", &admits, &guarded, out);
    }
    for (arg, pattern) in &rule.patterns {
        let whole = regex::Regex::new(&format!("^(?:{pattern})$"));
        let admits = |literal: &Literal| matches!((literal, &whole), (Literal::String(s), Ok(re)) if re.is_match(s));
        let guarded = |each: bool| {
            step.authz.guards.iter().any(|g| {
                g.arg == arg
                    && g.op == GuardOp::Matches
                    && (g.each || !each)
                    && matches!(&g.limit, GuardLimit::One(Literal::String(p)) if p == pattern)
            })
        };
        one_rule(step, arg, "pattern", &admits, &guarded, out);
    }
    for (arg, max, per) in &rule.totals {
        let carried = step.authz.aggregates.iter().any(|a| {
            a.arg == arg && holds(&a.max, CmpOp::Eq, max) && a.per.as_deref() == per.as_deref()
        });
        if !carried {
            out.push(format!(
                "step `{}` does not carry the total over `{arg}`",
                step.name
            ));
        }
        // The literal amounts of this step's group, up to this step.
        let key = |s: &planc::ir::StepIr| per.as_ref().map(|p| s.args.get(p.as_str()).cloned());
        let mut sum = "0".to_string();
        for s in ir.steps.iter().take(step.index + 1) {
            if s.tool != step.tool || s.reuse == Some(true) || key(s) != key(step) {
                continue;
            }
            if let Some(Value::Literal { literal }) = s.args.get(arg.as_str())
                && let Some(n) = number(literal)
            {
                sum = add_decimal(&sum, &n);
            }
        }
        if number(max).is_some_and(|m| compare_decimal(&sum, &m) == Ordering::Greater) {
            out.push(format!(
                "step `{}`: the literal total of `{arg}` is {sum}, over its maximum",
                step.name
            ));
        }
    }
    if let Some(max) = rule.calls {
        if step.authz.calls_max != Some(max) {
            out.push(format!(
                "step `{}` does not carry `calls <= {max}`",
                step.name
            ));
        }
        let n = ir
            .steps
            .iter()
            .take(step.index + 1)
            .filter(|s| s.tool == step.tool && s.reuse != Some(true))
            .count() as u64;
        if n > max {
            out.push(format!(
                "step `{}` is call {n} of `{}`, over `calls <= {max}`",
                step.name, step.tool
            ));
        }
    }
}

/// Whether two literals are of kinds that compare (a denylist refuses
/// what it cannot compare).
fn comparable(a: &Literal, b: &Literal) -> bool {
    let both_numbers = number(a).is_some() && number(b).is_some();
    both_numbers || std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The sum of two non-negative or negative decimal numerals, exactly, by
/// scaling both to the same number of fraction digits.
fn add_decimal(a: &str, b: &str) -> String {
    let scale = |s: &str| s.split_once('.').map_or(0, |(_, f)| f.len());
    let digits = scale(a).max(scale(b));
    let to_int = |s: &str| -> i128 {
        let (neg, body) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let (i, f) = body.split_once('.').unwrap_or((body, ""));
        let mut text = format!("{i}{f}");
        text.extend(std::iter::repeat_n('0', digits - f.len()));
        let v: i128 = text.parse().unwrap_or(i128::MAX / 4);
        if neg { -v } else { v }
    };
    let total = to_int(a) + to_int(b);
    let (neg, mag) = (total < 0, total.unsigned_abs().to_string());
    let mag = format!("{mag:0>width$}", width = digits + 1);
    let (i, f) = mag.split_at(mag.len() - digits);
    let sign = if neg { "-" } else { "" };
    if digits == 0 {
        format!("{sign}{i}")
    } else {
        format!("{sign}{i}.{f}")
    }
}

fn collect_refs<'a>(v: &'a Value, out: &mut Vec<(&'a str, &'a str)>) {
    match v {
        Value::Literal { .. } => {}
        Value::Ref { binding, step, .. } => out.push((binding, step)),
        Value::List { items } => items.iter().for_each(|i| collect_refs(i, out)),
        Value::Record { fields } => fields.values().for_each(|i| collect_refs(i, out)),
        Value::Interpolate { parts } => parts.iter().for_each(|i| collect_refs(i, out)),
    }
}

/// One list or pattern rule over `arg` of `step`: a literal (or each
/// literal element of a list) `admits`; a reference needs a guard, and a
/// list with a referenced element an element-wise one (`guarded(each)`).
fn one_rule(
    step: &planc::ir::StepIr,
    arg: &str,
    what: &str,
    admits: &dyn Fn(&Literal) -> bool,
    guarded: &dyn Fn(bool) -> bool,
    out: &mut Vec<String>,
) {
    match step.args.get(arg) {
        None => {}
        Some(Value::Literal { literal }) if !admits(literal) => out.push(format!(
            "step `{}`: literal `{arg}` breaks its {what}",
            step.name
        )),
        Some(Value::Literal { .. }) => {}
        Some(Value::List { items }) => {
            let mut referenced = false;
            for item in items {
                match item {
                    Value::Literal { literal } if !admits(literal) => out.push(format!(
                        "step `{}`: an element of `{arg}` breaks its {what}",
                        step.name
                    )),
                    Value::Literal { .. } => {}
                    _ => referenced = true,
                }
            }
            if referenced && !guarded(true) {
                out.push(format!(
                    "step `{}`: `{arg}` has referenced elements and no element-wise {what} guard",
                    step.name
                ));
            }
        }
        Some(_) if !guarded(false) => out.push(format!(
            "step `{}`: referenced `{arg}` has no {what} guard",
            step.name
        )),
        Some(_) => {}
    }
}

/// Whether `value op limit` holds, comparing numbers exactly.
/// The recorded value a reference to a reused step's binding names, as a
/// literal; `None` when the step is not reused, or the value is absent or
/// not a single value (then a guard is expected, as for any reference).
fn reused_value(
    ir: &PlanIr,
    step: &str,
    binding: &str,
    path: &[planc::ir::Str],
) -> Option<Literal> {
    let producer = ir.steps.iter().find(|s| s.name == step)?;
    if producer.reuse != Some(true) {
        return None;
    }
    let mut at = producer.artifacts.as_ref()?.get(binding)?;
    for m in path {
        at = at.get(m)?;
    }
    match at {
        JsonValue::Number(n) => Some(Literal::Decimal(n.as_str().into())),
        JsonValue::String(t) => Some(Literal::String(t.as_str().into())),
        JsonValue::Bool(b) => Some(Literal::Bool(*b)),
        JsonValue::Null => Some(Literal::Null),
        JsonValue::Array(_) | JsonValue::Object(_) => None,
    }
}

fn holds(value: &Literal, op: CmpOp, limit: &Literal) -> bool {
    let ord = match (number(value), number(limit)) {
        (Some(a), Some(b)) => compare_decimal(&a, &b),
        _ => match (value, limit) {
            (Literal::Date(a), Literal::Date(b)) | (Literal::String(a), Literal::String(b)) => {
                a.cmp(b)
            }
            // The JSON forms have no date literal: a JSON policy writes a
            // date limit as a string, which limits a `date` parameter as
            // the date it spells (`docs/language.md`, "Dates and datetimes"). Fixed-width dates order like
            // their text.
            (Literal::Date(a), Literal::String(b)) | (Literal::String(a), Literal::Date(b))
                if is_date_text(a) && is_date_text(b) =>
            {
                a.cmp(b)
            }
            _ => return value == limit && op == CmpOp::Eq,
        },
    };
    match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    }
}

/// `YYYY-MM-DD` by shape (digits and dashes where they belong).
fn is_date_text(s: &str) -> bool {
    s.len() == 10
        && s.bytes().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn number(l: &Literal) -> Option<String> {
    match l {
        Literal::Int(i) => Some(i.to_string()),
        Literal::Decimal(d) => Some(d.to_string()),
        _ => None,
    }
}

/// Compares two decimal numerals exactly, digit by digit.
fn compare_decimal(a: &str, b: &str) -> Ordering {
    let (na, ia, fa) = split(a);
    let (nb, ib, fb) = split(b);
    let zero = |i: &str, f: &str| i.chars().all(|c| c == '0') && f.chars().all(|c| c == '0');
    let (za, zb) = (zero(&ia, &fa), zero(&ib, &fb));
    let sa = if za {
        0
    } else if na {
        -1
    } else {
        1
    };
    let sb = if zb {
        0
    } else if nb {
        -1
    } else {
        1
    };
    if sa != sb {
        return sa.cmp(&sb);
    }
    let width = fa.len().max(fb.len());
    let pad = |f: &str| format!("{f:0<width$}");
    let mag = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(&ib))
        .then_with(|| pad(&fa).cmp(&pad(&fb)));
    if sa < 0 { mag.reverse() } else { mag }
}

fn split(s: &str) -> (bool, String, String) {
    let neg = s.starts_with('-');
    let s = s.trim_start_matches(['-', '+']);
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let i = i.trim_start_matches('0').to_string();
    (neg, i, f.to_string())
}

#[test]
fn decimal_comparison_is_exact() {
    assert_eq!(
        compare_decimal("500.0000000000000001", "500"),
        Ordering::Greater
    );
    assert_eq!(compare_decimal("-3", "2"), Ordering::Less);
    assert_eq!(compare_decimal("-3", "-2.5"), Ordering::Less);
    assert_eq!(compare_decimal("0500.10", "500.1"), Ordering::Equal);
    assert_eq!(compare_decimal("-0.0", "0"), Ordering::Equal);
}

/// The world of `fuzz/fixtures/` (the `invariants` fuzz target's catalogue
/// and policy, which the property tests' hostile plans use too), written
/// out by hand: the oracle shares nothing with the compiler's reading of
/// that policy, so a policy the compiler misread (an approval dropped, a
/// ceiling lost) shows up as a broken invariant.
pub fn fixture_world() -> World {
    let mut w = World::default();
    for (t, e) in [
        ("billing.refund", Effect::Write),
        ("shop.quote", Effect::Read),
        ("billing.change_plan", Effect::Write),
        ("kb.read", Effect::Read),
    ] {
        w.tools.insert(t.to_string(), e);
    }
    let rule = |s: &str, c: Vec<(&str, CmpOp, Literal)>, approval| ToolRule {
        scopes: vec![s.to_string()],
        ceilings: c
            .into_iter()
            .map(|(a, o, l)| (a.to_string(), o, l))
            .collect(),
        approval,
        ..ToolRule::default()
    };
    w.rules.insert(
        "billing.refund".into(),
        rule(
            "billing:write",
            vec![
                ("amount", CmpOp::Le, Literal::Int(500)),
                ("fee", CmpOp::Le, Literal::Int(20)),
            ],
            false,
        ),
    );
    if let Some(r) = w.rules.get_mut("billing.refund") {
        r.patterns = vec![("order_id".into(), "o-[0-9]+".into())];
        r.calls = Some(3);
    }
    w.rules
        .insert("shop.quote".into(), rule("shop:read", vec![], false));
    w.rules.insert(
        "billing.change_plan".into(),
        rule(
            "billing:write",
            vec![
                ("plan", CmpOp::Ne, Literal::String("enterprise".into())),
                ("effective", CmpOp::Ge, Literal::Date("2026-01-01".into())),
            ],
            true,
        ),
    );
    if let Some(r) = w.rules.get_mut("billing.change_plan") {
        let plans = ["starter", "pro", "team"].map(|p| Literal::String(p.into()));
        r.lists = vec![("plan".into(), false, plans.to_vec())];
    }
    w.rules
        .insert("kb.read".into(), rule("kb:read", vec![], false));
    for s in ["billing:write", "shop:read", "kb:read"] {
        w.actor.insert(s.to_string());
    }
    w
}
