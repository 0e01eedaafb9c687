//! The pure part of execution: resolving a step's arguments from the
//! artifacts, and evaluating `pre` probes, guards, `post` probes and binds.
//!
//! Every function here is a function of its arguments alone: no clock, no
//! randomness, no IO, no state. A workflow engine that must replay
//! deterministically (a Temporal workflow, say) can call these and get the
//! same answer on every replay; the reference executor (`super::run`) calls
//! exactly the same ones.
//!
//! Comparisons are exact: numbers are read as decimals from their text
//! (`crate::catalog::value`), never as binary floating point. A value that
//! cannot be compared with its limit (a string where a number is expected,
//! a missing argument) makes a guard refuse and a probe fail: fail closed.

use std::collections::BTreeMap;

use super::data::Data;
use crate::catalog::value::{Date, Datetime, Value, parse_decimal};
use crate::ir::{
    self, CmpOp, Guard, GuardLimit, GuardOp, Literal, PreProbe, Probe, StepIr, Subject,
};
use crate::syntax::ast::PathSeg;

/// The artifacts bound so far, by binding name.
pub type Artifacts = BTreeMap<String, Data>;

/// A reference whose binding is not among the artifacts, or whose member
/// path leads nowhere in the bound value.
#[derive(Clone, Debug, PartialEq)]
pub struct Unresolved {
    pub binding: String,
    pub path: Vec<String>,
}

/// A probe that does not hold: the probe and the value seen (`null` when
/// the path is absent).
#[derive(Clone, Debug, PartialEq)]
pub struct Unmet {
    pub expected: Data,
    pub observed: Data,
}

/// A guard that refuses the call.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub guard: Guard,
    /// The argument's resolved value (`null` when the argument is absent).
    pub observed: Data,
    /// Why, for people: broken, or not comparable with the limit.
    pub reason: String,
}

/// A bind whose path is absent from the result.
#[derive(Clone, Debug, PartialEq)]
pub struct Missing {
    pub binding: String,
    pub path: String,
}

/// The value of one argument, its references replaced by artifacts.
pub fn resolve(value: &ir::Value, artifacts: &Artifacts) -> Result<Data, Unresolved> {
    Ok(match value {
        ir::Value::Literal { literal } => Data::from_literal(literal),
        ir::Value::Ref { binding, path, .. } => lookup_ref(binding, path, artifacts)?.clone(),
        ir::Value::List { items } => Data::Array(
            items
                .iter()
                .map(|v| resolve(v, artifacts))
                .collect::<Result<_, _>>()?,
        ),
        ir::Value::Record { fields } => Data::Object(
            fields
                .iter()
                .map(|(k, v)| Ok((k.to_string(), resolve(v, artifacts)?)))
                .collect::<Result<_, _>>()?,
        ),
        ir::Value::Interpolate { parts } => {
            let mut s = String::new();
            for part in parts {
                match resolve(part, artifacts)? {
                    Data::String(t) => s.push_str(&t),
                    Data::Number(n) => s.push_str(n.as_str()),
                    other => s.push_str(&other.to_json_string()),
                }
            }
            Data::String(s)
        }
    })
}

/// Every argument of `step`, resolved.
pub fn resolve_args(step: &StepIr, artifacts: &Artifacts) -> Result<Artifacts, Unresolved> {
    step.args
        .iter()
        .map(|(name, v)| Ok((name.to_string(), resolve(v, artifacts)?)))
        .collect()
}

fn lookup_ref<'a>(
    binding: &str,
    path: &[crate::ir::Str],
    artifacts: &'a Artifacts,
) -> Result<&'a Data, Unresolved> {
    let missing = || Unresolved {
        binding: binding.to_string(),
        path: path.iter().map(|p| p.to_string()).collect(),
    };
    let mut at = artifacts.get(binding).ok_or_else(missing)?;
    for member in path {
        at = at.get(member).ok_or_else(missing)?;
    }
    Ok(at)
}

/// The value at a result path (`$.a.b[0]`); `None` when absent or when the
/// path is not one.
pub fn at_path<'a>(root: &'a Data, path: &str) -> Option<&'a Data> {
    let segments = ir::path::parse(path)?;
    let mut at = root;
    for seg in &segments {
        at = match (seg, at) {
            (PathSeg::Field(f), Data::Object(fields)) => fields.get(f.as_str())?,
            (PathSeg::Index(i), Data::Array(items)) => items.get(usize::try_from(*i).ok()?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// Checks every guard of `step` against its resolved arguments; the first
/// that refuses is returned. A guard whose argument is absent or cannot be
/// compared with its limit refuses.
pub fn check_guards(step: &StepIr, args: &Artifacts) -> Result<(), Refusal> {
    for guard in &step.authz.guards {
        let observed = args.get(guard.arg.as_str()).cloned().unwrap_or(Data::Null);
        check_guard(guard, observed)?;
    }
    Ok(())
}

/// Checks one guard against its argument's resolved value (`null` when
/// absent): what dispatch does, and what the IR's verification does with a
/// value known before the run (`super::verify`).
pub fn check_guard(guard: &Guard, observed: Data) -> Result<(), Refusal> {
    match guard_holds(guard, &observed) {
        Ok(()) => Ok(()),
        Err(reason) => Err(Refusal {
            guard: guard.clone(),
            observed,
            reason,
        }),
    }
}

/// Whether `observed` passes `guard`; why not, otherwise. An operator with
/// a limit of the wrong shape, a limit that is not a valid value, a pattern
/// that does not compile and a value of the wrong kind all refuse. An
/// element-wise guard (`each`) holds when its argument is a list and every
/// element passes; anything else (`null`, a string, a comparison made
/// element-wise) refuses.
fn guard_holds(guard: &Guard, observed: &Data) -> Result<(), String> {
    if !guard.each {
        return holds_one(guard, observed, &guard.arg);
    }
    if guard.op.comparison().is_some() {
        return Err(format!(
            "the guard `{guard}` compares each element, which only `in`, `not_in` and `matches` may"
        ));
    }
    let Data::Array(items) = observed else {
        return Err(format!(
            "`{}` is {}, not the list the rule `{guard}` checks element by element",
            guard.arg,
            observed.kind_name()
        ));
    };
    for (k, item) in items.iter().enumerate() {
        holds_one(guard, item, &format!("{}[{k}]", guard.arg))?;
    }
    Ok(())
}

/// Whether one value (the argument, or one element of it, named `name`)
/// passes `guard`'s test.
fn holds_one(guard: &Guard, observed: &Data, name: &str) -> Result<(), String> {
    let shown = || format!("`{name} = {}`", observed.to_json_string());
    match (guard.op, &guard.limit) {
        (GuardOp::In | GuardOp::NotIn, GuardLimit::List(items)) => {
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                let Some(v) = literal_value(item) else {
                    return Err(format!("the list's value `{item}` is not a valid value"));
                };
                values.push(v);
            }
            // Each member compared as its own kind (a date as a date).
            let equal = |l: &crate::catalog::Value| {
                observed
                    .as_value_like(l)
                    .and_then(|v| v.satisfies(crate::syntax::ast::CmpOp::Eq, l))
            };
            if guard.op == GuardOp::In {
                if values.iter().any(|l| equal(l) == Some(true)) {
                    return Ok(());
                }
                Err(format!("{} is not in the allowlist `{guard}`", shown()))
            } else {
                if values.iter().all(|l| equal(l) == Some(false)) {
                    return Ok(());
                }
                Err(format!(
                    "{} is in the denylist `{guard}`, or cannot be compared with it",
                    shown()
                ))
            }
        }
        (GuardOp::Matches, GuardLimit::One(Literal::String(pattern))) => {
            let re = crate::policy::whole_match(pattern)
                .map_err(|_| format!("the pattern of `{guard}` does not compile"))?;
            match observed {
                Data::String(text) if re.is_match(text) => Ok(()),
                Data::String(_) => Err(format!("{} does not match `{guard}`", shown())),
                other => Err(format!(
                    "`{}` is {}, not a string the pattern of `{guard}` can match",
                    name,
                    other.kind_name()
                )),
            }
        }
        (op, GuardLimit::One(lit)) => {
            let Some(cmp) = op.comparison() else {
                return Err(format!(
                    "the guard `{guard}` has a limit of the wrong shape"
                ));
            };
            let Some(limit) = literal_value(lit) else {
                return Err(format!("the limit `{lit}` is not a valid value"));
            };
            // `== null`, `!= null` over a value of any kind, as the
            // checker decides them (`Value::satisfies`).
            if matches!(limit, crate::catalog::Value::Null)
                && matches!(
                    cmp,
                    crate::syntax::ast::CmpOp::Eq | crate::syntax::ast::CmpOp::Ne
                )
            {
                let equal = matches!(observed, Data::Null);
                return if equal == (cmp == crate::syntax::ast::CmpOp::Eq) {
                    Ok(())
                } else {
                    Err(format!("{} breaks the ceiling `{guard}`", shown()))
                };
            }
            match observed
                .as_value_like(&limit)
                .and_then(|v| v.satisfies(cmp, &limit))
            {
                Some(true) => Ok(()),
                Some(false) => Err(format!("{} breaks the ceiling `{guard}`", shown())),
                None => Err(format!(
                    "`{}` is {} that cannot be compared with the limit `{lit}`",
                    name,
                    observed.kind_name(),
                )),
            }
        }
        (_, GuardLimit::List(_)) => Err(format!(
            "the guard `{guard}` has a limit of the wrong shape"
        )),
    }
}

/// Evaluates one probe against `root` (a tool's result for `post`).
pub fn check_probe(probe: &Probe, root: &Data) -> Result<(), Unmet> {
    let path = probe.path();
    let found = at_path(root, path);
    if probe_holds(probe, found) {
        Ok(())
    } else {
        Err(Unmet {
            expected: Data::of(probe),
            observed: found.cloned().unwrap_or(Data::Null),
        })
    }
}

/// Whether `probe` holds of `found`, the value at its path (`None`: absent).
/// The subject's path is not used: `pre` probes find their subject among
/// the artifacts, `post` probes in the result.
pub fn probe_holds(probe: &Probe, found: Option<&Data>) -> bool {
    match probe {
        Probe::Exists { .. } => found.is_some_and(|v| *v != Data::Null),
        Probe::Len { op, value, .. } => match found {
            // A list's elements, or a map's keys.
            Some(Data::Array(items)) => count_holds(items.len(), *op, *value),
            Some(Data::Object(fields)) => count_holds(fields.len(), *op, *value),
            _ => false,
        },
        Probe::KeysContain { key, .. } => match found {
            Some(Data::Object(fields)) => fields.contains_key(key.as_str()),
            _ => false,
        },
        Probe::Compare { op, value, .. } => found.is_some_and(|v| compares(v, *op, value)),
        Probe::In { values, .. } => {
            found.is_some_and(|v| values.iter().any(|l| compares(v, CmpOp::Eq, l)))
        }
        Probe::NotIn { values, .. } => {
            found.is_some_and(|v| values.iter().all(|l| compares(v, CmpOp::Ne, l)))
        }
        Probe::Contains { value, .. } => match found {
            Some(Data::Array(items)) => items.iter().any(|v| compares(v, CmpOp::Eq, value)),
            _ => false,
        },
    }
}

/// Whether a count (a list's length, a map's number of keys) compares with
/// the probe's `value` as `op` says.
fn count_holds(n: usize, op: crate::ir::CmpOp, value: u64) -> bool {
    let n = Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    let limit = Value::Int(i64::try_from(value).unwrap_or(i64::MAX));
    n.satisfies(op.to_ast(), &limit) == Some(true)
}

/// Evaluates one precondition against the artifacts: its subject is looked
/// up among them (when it is absent every probe fails: fail closed), then
/// tested exactly as a `post` probe tests the value at its path.
pub fn check_pre_probe(pre: &PreProbe, artifacts: &Artifacts) -> Result<(), Unmet> {
    let Subject::Ref {
        binding, path, at, ..
    } = pre.subject();
    let found = lookup_ref(binding, path, artifacts)
        .ok()
        .and_then(|v| match at {
            // An indexed `pre` path: the rest from its first index on.
            Some(at) => at_path(v, at),
            None => Some(v),
        });
    if probe_holds(&pre.test(), found) {
        Ok(())
    } else {
        Err(Unmet {
            expected: Data::of(&pre.as_probe()),
            observed: found.cloned().unwrap_or(Data::Null),
        })
    }
}

/// Every `pre` of `step` against the artifacts; the first unmet is returned.
pub fn check_pre(step: &StepIr, artifacts: &Artifacts) -> Result<(), Unmet> {
    step.pre
        .iter()
        .try_for_each(|p| check_pre_probe(p, artifacts))
}

/// Every `post` of `step` against the result; the first unmet is returned.
pub fn check_post(step: &StepIr, result: &Data) -> Result<(), Unmet> {
    step.post.iter().try_for_each(|p| check_probe(p, result))
}

/// The artifacts `step` binds from its result; the first bind whose path is
/// absent is returned instead.
pub fn eval_binds(step: &StepIr, result: &Data) -> Result<Artifacts, Missing> {
    step.binds
        .iter()
        .map(|(name, path)| match at_path(result, path) {
            Some(v) => Ok((name.to_string(), v.clone())),
            None => Err(Missing {
                binding: name.to_string(),
                path: path.to_string(),
            }),
        })
        .collect()
}

/// A bound value or an argument outside its declared type (`result_type`).
#[derive(Clone, Debug, PartialEq)]
pub struct Outside {
    /// The binding or the argument.
    pub name: String,
    pub ty: ir::TypeIr,
    pub mismatch: super::types::Mismatch,
}

impl Outside {
    /// What the failure records as `expected`: the name, its declared type
    /// and where inside the value it does not fit.
    pub fn expected(&self, what: &str) -> Data {
        Data::object([
            (what, self.name.as_str().into()),
            ("type", Data::of(&self.ty)),
            ("at", self.mismatch.at.as_str().into()),
        ])
    }
}

/// Every bound value of `step` against its declared type (`result_types`),
/// before anything is bound; the first outside it is returned.
pub fn check_result_types(step: &StepIr, binds: &Artifacts) -> Result<(), Box<Outside>> {
    check_types(&step.result_types, binds)
}

/// Every argument the IR checks at dispatch (`arg_types`, N0307) against
/// its parameter's type; an absent one is checked as `null`.
pub fn check_arg_types(step: &StepIr, args: &Artifacts) -> Result<(), Box<Outside>> {
    check_types(&step.arg_types, args)
}

fn check_types(types: &ir::Map<ir::TypeIr>, values: &Artifacts) -> Result<(), Box<Outside>> {
    for (name, ty) in types.iter() {
        let value = values.get(name.as_str()).unwrap_or(&Data::Null);
        super::types::check(ty, value).map_err(|mismatch| {
            Box::new(Outside {
                name: name.to_string(),
                ty: ty.clone(),
                mismatch,
            })
        })?;
    }
    Ok(())
}

/// `v OP literal`, exactly; false when they cannot be compared.
fn compares(v: &Data, op: CmpOp, lit: &Literal) -> bool {
    let Some(limit) = literal_value(lit) else {
        return false;
    };
    v.as_value_like(&limit)
        .and_then(|x| x.satisfies(op.to_ast(), &limit))
        .unwrap_or(false)
}

/// An IR literal's exact value; `None` when its text is not one (an IR
/// written by hand, say).
pub fn literal_value(lit: &Literal) -> Option<Value> {
    Some(match lit {
        Literal::String(s) => Value::String(s.clone()),
        Literal::Int(i) => Value::Int(*i),
        Literal::Decimal(d) => Value::Decimal(parse_decimal(d).ok()?),
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Null => Value::Null,
        Literal::Date(d) => Value::Date(Date::parse(d)?),
        Literal::Datetime(d) => Value::Datetime(Box::new(Datetime::parse(d)?)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(arg: &str, op: CmpOp, limit: Literal) -> Guard {
        let op = match op {
            CmpOp::Eq => GuardOp::Eq,
            CmpOp::Ne => GuardOp::Ne,
            CmpOp::Lt => GuardOp::Lt,
            CmpOp::Le => GuardOp::Le,
            CmpOp::Gt => GuardOp::Gt,
            CmpOp::Ge => GuardOp::Ge,
        };
        Guard {
            arg: arg.into(),
            op,
            limit: GuardLimit::One(limit),
            each: false,
        }
    }

    fn list_guard(arg: &str, op: GuardOp, items: Vec<Literal>) -> Guard {
        Guard {
            arg: arg.into(),
            op,
            limit: GuardLimit::List(items),
            each: false,
        }
    }

    fn args(json: &str) -> Artifacts {
        match Data::parse_text(json).unwrap() {
            Data::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn step_with(guards: Vec<Guard>) -> StepIr {
        let text = r#"{"name":"s","index":0,"tool":"t","args":{},"post":[],"binds":{},
            "on_unmet":"halt","retry":0,"effect":"write","idempotent":false,"depends_on":[],
            "authz":{"scopes":[],"approval":null,"guards":[]},"untrusted_inputs":[],
            "span":{"file":"f","start":0,"end":0,"line":1,"column":1}}"#;
        let mut s: StepIr = serde_json::from_str(text).unwrap();
        s.authz.guards = guards;
        s
    }

    #[test]
    fn guards_compare_exact_decimals_and_fail_closed() {
        let g = vec![guard("amount_eur", CmpOp::Le, Literal::Int(500))];
        let s = step_with(g);
        assert!(check_guards(&s, &args(r#"{"amount_eur": 500.00}"#)).is_ok());
        assert!(check_guards(&s, &args(r#"{"amount_eur": 500.000000000000000001}"#)).is_err());
        let r = check_guards(&s, &args(r#"{"amount_eur": 4180.00}"#)).unwrap_err();
        assert_eq!(r.observed, Data::number("4180.00"));
        // Not comparable: a string, a missing argument, a huge number.
        assert!(check_guards(&s, &args(r#"{"amount_eur": "100"}"#)).is_err());
        assert!(check_guards(&s, &args("{}")).is_err());
        assert!(check_guards(&s, &args(r#"{"amount_eur": 1e400}"#)).is_err());
        let d = step_with(vec![guard(
            "on",
            CmpOp::Lt,
            Literal::Date("2026-03-01".into()),
        )]);
        assert!(check_guards(&d, &args(r#"{"on": "2026-02-28"}"#)).is_ok());
        assert!(check_guards(&d, &args(r#"{"on": "2026-03-01"}"#)).is_err());
        assert!(check_guards(&d, &args(r#"{"on": "soon"}"#)).is_err());
    }

    #[test]
    fn lists_and_patterns_fail_closed() {
        let iban = |s: &str| Literal::String(s.into());
        let allow = step_with(vec![list_guard(
            "to",
            GuardOp::In,
            vec![iban("DE89"), iban("FR76")],
        )]);
        assert!(check_guards(&allow, &args(r#"{"to": "FR76"}"#)).is_ok());
        assert!(check_guards(&allow, &args(r#"{"to": "GB29"}"#)).is_err());
        assert!(check_guards(&allow, &args(r#"{"to": 5}"#)).is_err());
        assert!(check_guards(&allow, &args("{}")).is_err());
        let deny = step_with(vec![list_guard("to", GuardOp::NotIn, vec![iban("GB29")])]);
        assert!(check_guards(&deny, &args(r#"{"to": "DE89"}"#)).is_ok());
        assert!(check_guards(&deny, &args(r#"{"to": "GB29"}"#)).is_err());
        // Not comparable with the list: refused, not let through.
        assert!(check_guards(&deny, &args(r#"{"to": ["GB29"]}"#)).is_err());
        let amounts = step_with(vec![list_guard(
            "n",
            GuardOp::In,
            vec![Literal::Decimal("1.50".into())],
        )]);
        assert!(check_guards(&amounts, &args(r#"{"n": 1.5}"#)).is_ok());
        let url = step_with(vec![Guard {
            arg: "url".into(),
            op: GuardOp::Matches,
            limit: GuardLimit::One(iban(r"https://example\.com/.*")),
            each: false,
        }]);
        assert!(check_guards(&url, &args(r#"{"url": "https://example.com/a"}"#)).is_ok());
        assert!(
            check_guards(
                &url,
                &args(r#"{"url": "https://evil.io/?https://example.com/"}"#)
            )
            .is_err()
        );
        assert!(check_guards(&url, &args(r#"{"url": 1}"#)).is_err());
        // An operator with a limit of the wrong shape refuses.
        let bad = step_with(vec![list_guard("n", GuardOp::Le, vec![Literal::Int(1)])]);
        assert!(check_guards(&bad, &args(r#"{"n": 0}"#)).is_err());
        let bad = step_with(vec![Guard {
            arg: "n".into(),
            op: GuardOp::In,
            limit: GuardLimit::One(Literal::Int(1)),
            each: false,
        }]);
        assert!(check_guards(&bad, &args(r#"{"n": 1}"#)).is_err());
    }

    #[test]
    fn an_element_wise_guard_holds_of_every_element_or_refuses() {
        let s = |s: &str| Literal::String(s.into());
        let mut g = list_guard("to", GuardOp::In, vec![s("a@x.com"), s("b@x.com")]);
        g.each = true;
        let allow = step_with(vec![g.clone()]);
        assert!(check_guards(&allow, &args(r#"{"to": ["a@x.com", "b@x.com"]}"#)).is_ok());
        assert!(check_guards(&allow, &args(r#"{"to": []}"#)).is_ok());
        let refused = check_guards(&allow, &args(r#"{"to": ["a@x.com", "evil@y.io"]}"#));
        assert!(refused.is_err_and(|r| r.reason.contains("to[1]")));
        // The attacker's forms: a bare string, null, an absent argument, a
        // nested list, an element of another kind.
        for bad in [
            r#"{"to": "a@x.com"}"#,
            r#"{"to": null}"#,
            "{}",
            r#"{"to": [["a@x.com"]]}"#,
            r#"{"to": ["a@x.com", 5]}"#,
        ] {
            assert!(check_guards(&allow, &args(bad)).is_err(), "{bad}");
        }
        let mut deny = list_guard("to", GuardOp::NotIn, vec![s("evil@y.io")]);
        deny.each = true;
        let deny = step_with(vec![deny]);
        assert!(check_guards(&deny, &args(r#"{"to": ["a@x.com"]}"#)).is_ok());
        assert!(check_guards(&deny, &args(r#"{"to": ["a@x.com", "evil@y.io"]}"#)).is_err());
        let pattern = step_with(vec![Guard {
            arg: "to".into(),
            op: GuardOp::Matches,
            limit: GuardLimit::One(s(r"[^@]+@x\.com")),
            each: true,
        }]);
        assert!(check_guards(&pattern, &args(r#"{"to": ["a@x.com"]}"#)).is_ok());
        assert!(check_guards(&pattern, &args(r#"{"to": ["a@x.com.evil.io"]}"#)).is_err());
        // `!= null` holds of a value of any kind but `null` (and absence).
        let given = step_with(vec![guard("at", CmpOp::Ne, Literal::Null)]);
        assert!(check_guards(&given, &args(r#"{"at": "Paris"}"#)).is_ok());
        assert!(check_guards(&given, &args(r#"{"at": ["Paris"]}"#)).is_ok());
        assert!(check_guards(&given, &args(r#"{"at": null}"#)).is_err());
        assert!(check_guards(&given, &args("{}")).is_err());
        // A comparison is never element-wise: refused whatever the value.
        let mut cmp = guard("n", CmpOp::Le, Literal::Int(5));
        cmp.each = true;
        assert!(check_guards(&step_with(vec![cmp]), &args(r#"{"n": [1]}"#)).is_err());
    }

    #[test]
    fn probes() {
        let r = Data::parse_text(r#"{"a": {"n": 2.50, "l": [1, 2]}, "s": "ready", "z": null}"#)
            .unwrap();
        let holds = |p: &str| {
            let probe: Probe = serde_json::from_str(p).unwrap();
            check_probe(&probe, &r).is_ok()
        };
        assert!(holds(
            r#"{"probe":"len","path":"$.a.l","op":"==","value":2}"#
        ));
        assert!(!holds(
            r#"{"probe":"len","path":"$.a.l","op":"==","value":1}"#
        ));
        assert!(!holds(
            r#"{"probe":"len","path":"$.s","op":">=","value":0}"#
        ));
        assert!(holds(
            r#"{"probe":"compare","path":"$.a.n","op":">","value":{"type":"decimal","value":"2.49"}}"#
        ));
        assert!(holds(
            r#"{"probe":"compare","path":"$.a.n","op":"==","value":{"type":"decimal","value":"2.5"}}"#
        ));
        assert!(!holds(
            r#"{"probe":"compare","path":"$.s","op":">","value":{"type":"int","value":1}}"#
        ));
        assert!(holds(
            r#"{"probe":"in","path":"$.s","values":[{"type":"string","value":"ready"}]}"#
        ));
        assert!(!holds(
            r#"{"probe":"not_in","path":"$.s","values":[{"type":"string","value":"ready"}]}"#
        ));
        assert!(holds(r#"{"probe":"exists","path":"$.a.l[1]"}"#));
        assert!(!holds(r#"{"probe":"exists","path":"$.a.l[2]"}"#));
        assert!(!holds(r#"{"probe":"exists","path":"$.z"}"#));
    }

    #[test]
    fn contains_and_preconditions() {
        let r = Data::parse_text(r#"{"t": ["events", "users"], "n": [1, 2.50], "s": "users"}"#)
            .unwrap();
        let holds = |p: &str| {
            let probe: Probe = serde_json::from_str(p).unwrap();
            check_probe(&probe, &r).is_ok()
        };
        let users = r#"{"type":"string","value":"users"}"#;
        assert!(holds(&format!(
            r#"{{"probe":"contains","path":"$.t","value":{users}}}"#
        )));
        assert!(holds(
            r#"{"probe":"contains","path":"$.n","value":{"type":"decimal","value":"2.5"}}"#
        ));
        // Not a list, or absent: fails (a string does not "contain" itself).
        assert!(!holds(&format!(
            r#"{{"probe":"contains","path":"$.s","value":{users}}}"#
        )));
        assert!(!holds(&format!(
            r#"{{"probe":"contains","path":"$.x","value":{users}}}"#
        )));

        let arts = args(r#"{"schema_tables": ["events"], "settings": {"db_size_gb": 120}}"#);
        let pre = |p: &str| -> PreProbe { serde_json::from_str(p).unwrap() };
        let contains = pre(&format!(
            r#"{{"probe":"contains","subject":{{"kind":"ref","binding":"schema_tables","step":"s","path":[]}},"value":{users}}}"#
        ));
        let unmet = check_pre_probe(&contains, &arts).unwrap_err();
        assert_eq!(unmet.observed, Data::parse_text(r#"["events"]"#).unwrap());
        // `expected` is the probe with the subject as its path, as a
        // `post_unmet`'s is with its result path.
        assert_eq!(
            unmet.expected,
            Data::parse_text(&format!(
                r#"{{"probe":"contains","path":"schema_tables","value":{users}}}"#
            ))
            .unwrap()
        );
        let size = pre(
            r#"{"probe":"compare","subject":{"kind":"ref","binding":"settings","step":"p","path":["db_size_gb"]},"op":"<=","value":{"type":"int","value":500}}"#,
        );
        assert!(check_pre_probe(&size, &arts).is_ok());
        // An artifact that is not there fails the probe: fail closed.
        let absent = pre(
            r#"{"probe":"exists","subject":{"kind":"ref","binding":"nothing","step":"p","path":[]}}"#,
        );
        let unmet = check_pre_probe(&absent, &arts).unwrap_err();
        assert_eq!(unmet.observed, Data::Null);
        // An indexed `pre` path: `at` is followed into the value `path`
        // reaches; out of range is absent, and fails.
        let arts2 = args(r#"{"tags": {"all": [{"w": 3}, {"w": 1}]}}"#);
        let indexed = |at: &str| {
            pre(&format!(
                r#"{{"probe":"compare","subject":{{"kind":"ref","binding":"tags","step":"p","path":["all"],"at":"{at}"}},"op":">","value":{{"type":"int","value":2}}}}"#
            ))
        };
        assert!(check_pre_probe(&indexed("$[0].w"), &arts2).is_ok());
        let unmet = check_pre_probe(&indexed("$[1].w"), &arts2).unwrap_err();
        assert_eq!(unmet.observed, Data::parse_text("1").unwrap());
        assert_eq!(
            unmet.expected.get("path"),
            Some(&Data::String("tags.all[1].w".into()))
        );
        assert!(check_pre_probe(&indexed("$[2].w"), &arts2).is_err());
        let mut step = step_with(Vec::new());
        step.pre = vec![size, contains];
        assert!(check_pre(&step, &arts).is_err());
        step.pre.pop();
        assert!(check_pre(&step, &arts).is_ok());
    }

    #[test]
    fn references_and_interpolation() {
        let arts = args(r#"{"settings": {"region": "eu"}, "n": 3}"#);
        let v: ir::Value = serde_json::from_str(
            r#"{"kind":"interpolate","parts":[{"kind":"literal","type":"string","value":"r="},
            {"kind":"ref","binding":"settings","step":"p","path":["region"]},
            {"kind":"literal","type":"string","value":" n="},
            {"kind":"ref","binding":"n","step":"p","path":[]}]}"#,
        )
        .unwrap();
        assert_eq!(resolve(&v, &arts).unwrap(), Data::String("r=eu n=3".into()));
        let bad: ir::Value = serde_json::from_str(
            r#"{"kind":"ref","binding":"settings","step":"p","path":["zone"]}"#,
        )
        .unwrap();
        assert!(resolve(&bad, &arts).is_err());
    }
}
