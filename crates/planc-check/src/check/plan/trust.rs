//! The rules of a `where` list beyond ceilings (`docs/language.md`,
//! "Rules"): allowlists, denylists and patterns decided now over values
//! known now (E0311, E0312) and guarded at dispatch otherwise (N0302);
//! `trusted`, always decided now (E0313); and what the calls of a tool add
//! up to over the plan and the progress record's complete calls: `total`
//! (E0314, N0304 where the executor's ledger decides) and `calls` (E0315).

use rust_decimal::Decimal;

use super::authz::PolicyNamed;
use super::*;
use crate::policy::{ArgCondition, Condition};
use planc_exec::exec::data::Data;

impl<'a> Checker<'a, '_> {
    /// The rules of `rule` over one step's arguments, after its ceilings.
    pub(super) fn check_conditions(
        &mut self,
        i: usize,
        step: &StepHead,
        tool: &Tool,
        rule: &Rule,
        args: &[CheckedArg],
        authz: &mut Authz,
    ) {
        let policy_name = self.env.policy.map_or("", |p| p.name.as_str());
        let origin = PolicyNamed(policy_name);
        authz.calls_max = rule.calls.map(|c| c.node);
        for c in &rule.conditions {
            let arg = args.iter().find(|a| a.name == c.arg);
            if let Condition::Total { max, per } = &c.kind {
                planc_lang::push_sparse(
                    &mut authz.aggregates,
                    Aggregate {
                        arg: c.arg.clone(),
                        max: max.clone(),
                        per: per.clone(),
                    },
                );
            }
            // Left out, with no default or a `null` one (the call leaves it
            // out too): an allowlist, a denylist, a pattern and `trusted`
            // hold of an argument that is given, and the tool keeps what it
            // has (`docs/language.md`, "Rules over an optional argument").
            // A total adds the argument up, and is a quantity like a
            // ceiling: it must be given.
            let Some(arg) = arg.filter(|a| !a.is_left_out()) else {
                if matches!(c.kind, Condition::Total { .. })
                    && let Some(p) = tool.param(&c.arg)
                    && !p.required()
                {
                    self.ceiling_absent(i, step, p, ("rule", &c.text()), c.span, &origin);
                }
                continue;
            };
            if arg.value.ty.is_error() || matches!(arg.value.kind, ValueKind::Error) {
                continue;
            }
            let test = match &c.kind {
                Condition::Trusted => {
                    if let Some(from) = &arg.untrusted_from {
                        self.untrusted_where_trusted(i, arg, from, c, &origin);
                    }
                    continue;
                }
                // Decided over the whole plan (`check_totals`).
                Condition::Total { .. } => continue,
                Condition::In { negated, values } => GuardTest::In {
                    negated: *negated,
                    values: values.clone(),
                },
                Condition::Matches { pattern, .. } => GuardTest::Matches(pattern.clone()),
            };
            let guard = if c.each {
                self.decide_each(i, step, arg, c, &origin)
            } else {
                self.decide_one(i, step, arg, None, &arg.value, c, &origin)
            };
            if let Some(note) = guard {
                planc_lang::push_sparse(
                    &mut authz.guards,
                    Guard {
                        arg: c.arg.clone(),
                        test,
                        each: c.each,
                        ceiling_span: c.span,
                    },
                );
                if note {
                    let d = super::authz::guarded_at_dispatch(
                        &self.heads,
                        arg,
                        ("rule", &c.text()),
                        c.span,
                        &origin,
                    );
                    self.report(i, d);
                }
            }
        }
    }

    /// An `in`, `not in` or `matches` over one value (the argument, or the
    /// element `element` of it): decided now when the value is known now
    /// (a literal, a reused step's recorded value), refused when it is
    /// neither known nor bound by a reference (a record, a nested list).
    /// Whether it needs a guard at dispatch (`None`: no), and whether that
    /// guard is worth a note: a reused step's recorded value is decided
    /// now, and its reference keeps the guard it has without a record
    /// (silently), so that the IR of a plan compiled against its own
    /// record is that plan's (its plan fingerprint, `docs/ir.md`).
    #[allow(clippy::too_many_arguments)]
    fn decide_one(
        &mut self,
        i: usize,
        step: &StepHead,
        arg: &CheckedArg,
        element: Option<usize>,
        value: &TypedValue,
        c: &ArgCondition,
        origin: &dyn fmt::Display,
    ) -> Option<bool> {
        let known = match (self.reused_literal(i, value), &value.kind) {
            (Some((v, by, at)), _) => Some((v, Some((by, at)))),
            (None, ValueKind::Literal(v)) => Some((v.clone(), None)),
            _ => None,
        };
        let at = Refused {
            step,
            arg,
            element: element.map(|k| (k, value.span)),
        };
        if let Some((v, recorded)) = known {
            let reused = recorded.is_some() && !value.references().is_empty();
            // A `null` given for a list is not a list: no element holds.
            let admitted = if c.each && element.is_none() {
                false
            } else {
                c.admits(&v) == Some(true)
            };
            if !admitted {
                let mut d = refusal(&at, Some(&v), c, origin);
                if let Some((by, rec_at)) = recorded {
                    let said = format!(
                        "step `{by}` recorded `{}`: it is reused, not run again",
                        v.display()
                    );
                    d = match rec_at {
                        Some(rec_at) => d.with_secondary(rec_at, said),
                        None => d.with_note(said),
                    };
                }
                self.report(i, d);
            }
            return reused.then_some(false);
        }
        if value.references().is_empty() {
            // A list, a record: no single value the rule decides, and
            // nothing a guard could bind.
            let d = refusal(&at, None, c, origin);
            self.report(i, d);
            return None;
        }
        Some(true)
    }

    /// A rule over each element of a list argument: the elements known now
    /// decided now, one guard at dispatch over the whole list when any
    /// element (or the list itself) is bound by a reference. Whether it
    /// needs that guard, and a note (as [`Self::decide_one`]).
    fn decide_each(
        &mut self,
        i: usize,
        step: &StepHead,
        arg: &CheckedArg,
        c: &ArgCondition,
        origin: &dyn fmt::Display,
    ) -> Option<bool> {
        let ValueKind::List(items) = &arg.value.kind else {
            // The list itself from a reference, or a value that is not a
            // list (`null`): one value to decide.
            return self.decide_one(i, step, arg, None, &arg.value, c, origin);
        };
        let mut guard = None;
        for (k, item) in items.iter().enumerate() {
            if item.ty.is_error() || matches!(item.kind, ValueKind::Error) {
                continue;
            }
            if let Some(note) = self.decide_one(i, step, arg, Some(k), item, c, origin) {
                guard = Some(note || guard.unwrap_or(false));
            }
        }
        guard
    }

    /// E0313: untrusted data in an argument the policy requires trusted,
    /// labelled at the data's source. Decided now: a run never learns more
    /// about where a value came from than the plan says.
    fn untrusted_where_trusted(
        &mut self,
        i: usize,
        arg: &CheckedArg,
        from: &Untrusted,
        c: &ArgCondition,
        origin: &dyn fmt::Display,
    ) {
        let (tool, source) = self.untrusted_source(from);
        // The reference that carries the data, when the value holds one.
        let at = match from {
            Untrusted::Step(s) => arg
                .value
                .references()
                .iter()
                .find(|r| {
                    self.bindings
                        .get(r.binding_index)
                        .and_then(|b| b.untrusted_from)
                        == Some(*s)
                })
                .map_or(arg.value.span, |r| r.span),
            Untrusted::Recorded(_) => arg.value.span,
        };
        let mut d = Diagnostic::new(
            Code::E0313,
            at,
            format!(
                "argument `{}` takes data from the untrusted tool `{tool}`, but {origin} requires it trusted",
                arg.name
            ),
        )
        .with_label("untrusted data");
        if let Some((span, label)) = source {
            d = d.with_secondary(span, label);
        }
        d = d
            .with_secondary(c.span, format!("`{}` is required here, in {origin}", c.text()))
            .with_help(format!(
                "write the value of `{}` into the plan as the user gave it, or take it from a trusted tool: data an untrusted tool returned may be written by an attacker",
                arg.name
            ));
        self.report(i, d);
    }

    /// `total` and `calls`: over the plan's calls of each tool and the
    /// progress record's complete ones (a reused step is the record's
    /// call, counted once). `tallies` holds, in source order, every step
    /// whose tool a policy rule bounds so ([`Tally::of`]).
    pub(super) fn check_totals(&mut self, tallies: &[Tally]) {
        let Some(policy) = self.env.policy else {
            return;
        };
        let origin = PolicyNamed(&policy.name);
        let mut tools: Vec<&str> = Vec::new();
        for s in tallies {
            if !tools.contains(&s.tool_name.as_str()) {
                tools.push(s.tool_name.as_str());
            }
        }
        for name in tools {
            let Some(rule) = policy.rule(name) else {
                continue;
            };
            let totals: Vec<&ArgCondition> = rule
                .conditions
                .iter()
                .filter(|c| matches!(c.kind, Condition::Total { .. }))
                .collect();
            if rule.calls.is_none() && totals.is_empty() {
                continue;
            }
            let recorded: Vec<&crate::progress::StepRecord> = match &self.env.progress {
                Some(p) => p
                    .record
                    .steps
                    .iter()
                    .filter(|r| r.status == crate::progress::Status::Complete && r.tool == name)
                    .collect(),
                None => Vec::new(),
            };
            let ours: Vec<&Tally> = tallies
                .iter()
                .filter(|s| {
                    s.tool_name == name && self.reuse.get(s.index).is_none_or(|r| r.is_none())
                })
                .collect();
            if let Some(max) = rule.calls {
                let mut n = recorded.len() as u64;
                for s in &ours {
                    n = n.saturating_add(1);
                    if n <= max.node {
                        continue;
                    }
                    let mut d = Diagnostic::new(
                        Code::E0315,
                        s.tool_span,
                        format!(
                            "this is call {n} of `{name}`, more than the `calls <= {}` of {origin}",
                            max.node
                        ),
                    )
                    .with_label(format!("call {n}"))
                    .with_secondary(
                        max.span,
                        format!("`calls <= {}` is declared here, in {origin}", max.node),
                    );
                    if !recorded.is_empty() {
                        d = d.with_note(format!(
                            "the progress record's complete calls of `{name}` count towards the bound: it holds {}",
                            recorded.len()
                        ));
                    }
                    d = d.with_help("a policy bounds the calls of a tool over a run: do the work in fewer calls, or ask for a change of policy");
                    self.report(s.index, d);
                }
            }
            for c in totals {
                self.check_total(name, c, &recorded, &ours, &origin);
            }
        }
    }

    fn check_total(
        &mut self,
        tool: &str,
        c: &ArgCondition,
        recorded: &[&crate::progress::StepRecord],
        ours: &[&Tally],
        origin: &dyn fmt::Display,
    ) {
        let Condition::Total { max, per } = &c.kind else {
            return;
        };
        let Some(limit) = Data::from_value(max).exact_decimal() else {
            return;
        };
        let mut sums: Vec<(String, Decimal)> = Vec::new();
        let null = Data::Null;
        for r in recorded {
            let key = per
                .as_ref()
                .map(|p| r.args.get(p.as_str()).unwrap_or(&null).ledger_key());
            // A recorded value that is not a number cannot be added up: the
            // total is unknown, so every further call is refused.
            let v = match r.args.get(c.arg.as_str()) {
                None => Some(Decimal::ZERO),
                Some(v) => v.exact_decimal(),
            };
            add(&mut sums, key, v);
        }
        for s in ours {
            let value = s.arg(&c.arg);
            let key_value = per.as_ref().map(|p| s.arg(p));
            let known = |a: Option<&CheckedArg>| -> Result<Data, ()> {
                match a {
                    None => Ok(Data::Null),
                    Some(a) => match &a.value.kind {
                        ValueKind::Literal(v) => Ok(Data::from_value(v)),
                        _ => Err(()),
                    },
                }
            };
            let v = known(value);
            let k = key_value.map(known).transpose();
            match (v, k) {
                (Ok(v), Ok(key)) => {
                    let amount = match &v {
                        Data::Null => Some(Decimal::ZERO),
                        other => other.exact_decimal(),
                    };
                    let key = key.map(|k| k.ledger_key());
                    let sum = add(&mut sums, key, amount);
                    if sum.is_none_or(|t| t > limit) {
                        let at = value.map_or(s.tool_span, |a| a.value.span);
                        let shown = sum.map_or("more than can be added up".to_string(), |t| {
                            format!("`{t}`")
                        });
                        let mut d = Diagnostic::new(
                            Code::E0314,
                            at,
                            format!(
                                "the calls of `{tool}` add up to {shown}, over the `{}` of {origin}",
                                c.text()
                            ),
                        )
                        .with_label(format!("brings the total to {shown}"))
                        .with_secondary(c.span, format!("total declared here, in {origin}"));
                        if !recorded.is_empty() {
                            d = d.with_note(format!(
                                "the progress record's complete calls of `{tool}` count towards the total"
                            ));
                        }
                        d = d.with_help("a total bounds a tool over the whole run, whatever each call says: ask for less, or for a change of policy");
                        self.report(s.index, d);
                    }
                }
                _ => {
                    let at = value.map_or(s.tool_span, |a| a.value.span);
                    let d = Diagnostic::new(
                        Code::N0304,
                        at,
                        format!(
                            "the total `{}` is enforced at dispatch: this call's value is known only then",
                            c.text()
                        ),
                    )
                    .with_label("added to the executor's ledger before dispatch")
                    .with_secondary(c.span, format!("total declared here, in {origin}"))
                    .with_note("the IR carries the total in `authz.aggregates`; the executor refuses the call when its complete calls and this one would exceed it");
                    self.report(s.index, d);
                }
            }
        }
    }

    /// The untrusted tool a value's data comes from, and a label at its
    /// source: the step that called it, or the record's step.
    pub(super) fn untrusted_source(&self, from: &Untrusted) -> (String, Option<(Span, String)>) {
        match from {
            Untrusted::Step(o) => match self.heads.get(*o) {
                Some(o) => (
                    o.tool.node.to_string(),
                    Some((
                        o.tool.span,
                        format!(
                            "step `{}` calls `{}`, whose output is untrusted",
                            o.name.node, o.tool.node
                        ),
                    )),
                ),
                None => (String::new(), None),
            },
            Untrusted::Recorded(r) => (
                r.tool.to_string(),
                self.record_step_span(r.at).map(|span| {
                    (
                        span,
                        format!(
                            "recorded by step `{}`, which called `{}`: its output is untrusted",
                            r.step, r.tool
                        ),
                    )
                }),
            ),
        }
    }
}

/// Adds `v` to the total of `key`; the new total, `None` once a value could
/// not be added (not a number, or past what a decimal holds).
fn add(
    sums: &mut Vec<(String, Decimal)>,
    key: Option<String>,
    v: Option<Decimal>,
) -> Option<Decimal> {
    let key = key.unwrap_or_default();
    let at = match sums.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            sums.push((key, Decimal::ZERO));
            sums.len() - 1
        }
    };
    let slot = sums.get_mut(at)?;
    let next = v.and_then(|v| slot.1.checked_add(v));
    // Once unknown, the total stays over any maximum.
    slot.1 = next.unwrap_or(Decimal::MAX);
    next.filter(|t| *t != Decimal::MAX)
}

/// Where a value a rule refuses sits: the argument of a step, or one of
/// its elements (its index and span) under a rule over each element.
struct Refused<'s> {
    step: &'s StepHead,
    arg: &'s CheckedArg,
    element: Option<(usize, Span)>,
}

/// E0311 or E0312: a value known now that a list or a pattern refuses, or
/// one that no single value decides (`v` is `None`).
fn refusal(
    at: &Refused<'_>,
    v: Option<&Value>,
    c: &ArgCondition,
    origin: &dyn fmt::Display,
) -> Diagnostic {
    let Refused { step, arg, element } = *at;
    let name = match element {
        Some((k, _)) => format!("{}[{k}]", arg.name),
        None => arg.name.to_string(),
    };
    let (code, verdict, label) = match &c.kind {
        Condition::In { negated: false, .. } => {
            (Code::E0311, "is not in the allowlist", "not in the list")
        }
        Condition::In { negated: true, .. } => (
            Code::E0311,
            "is in the denylist",
            "a value the policy refuses",
        ),
        _ => (Code::E0312, "does not match the pattern", "does not match"),
    };
    let (message, label) = match v {
        // `null` (or any value that is not a list) under a rule over each
        // element: there are no elements to hold of, so it is refused.
        Some(v) if c.each && element.is_none() => (
            format!(
                "`{name}` = `{}` is not a list, but the rule `{}` of {origin} holds of each element of one",
                v.display(),
                c.text()
            ),
            "not a list",
        ),
        Some(v) => (
            format!(
                "`{name}` = `{}` {verdict} `{}` of {origin}",
                v.display(),
                c.text()
            ),
            label,
        ),
        None => (
            format!(
                "`{name}` is not a single value, which the rule `{}` of {origin} could check",
                c.text()
            ),
            "not a single value",
        ),
    };
    let at = match element {
        Some((_, at)) => at,
        None if arg.from_default => step.tool.span,
        None => arg.value.span,
    };
    let mut d = Diagnostic::new(code, at, message)
        .with_label(label)
        .with_secondary(c.span, format!("rule declared here, in {origin}"));
    if c.each {
        d = d.with_note(format!(
            "`{}` is a list: the rule holds of each of its elements",
            arg.name
        ));
    }
    if arg.from_default && element.is_none() {
        d = d.with_secondary(arg.value.span, "the default is declared here");
    }
    d.with_help(match &c.kind {
        Condition::In { negated: false, .. } => {
            "the policy allows only the listed values here: another one needs a change of policy, not of plan"
        }
        Condition::In { negated: true, .. } => {
            "the policy refuses this value here: use another, or ask for a change of policy"
        }
        _ => "the whole value must match the policy's pattern: use one that does, or ask for a change of policy",
    })
}

/// What [`Checker::check_totals`] reads of a step whose tool a rule bounds
/// with `calls` or `total`: a few facts and the arguments the totals name,
/// taken when the step is checked, so that the bounds are decided after
/// the last step whether or not the steps' models are kept.
pub(super) struct Tally {
    index: usize,
    tool_name: Str,
    tool_span: Span,
    /// The arguments a `total` of the rule names (its own and its `per`).
    args: Vec<CheckedArg>,
}

impl Tally {
    /// `None` unless the step's tool resolved and the policy's rule for it
    /// has a `calls` bound or a `total`.
    pub(super) fn of(s: &CheckedStep, policy: Option<&Policy>) -> Option<Tally> {
        s.tool.as_ref()?;
        let rule = policy?.rule(&s.tool_name)?;
        let totals = || {
            rule.conditions.iter().filter_map(|c| match &c.kind {
                Condition::Total { per, .. } => Some((c, per)),
                _ => None,
            })
        };
        if rule.calls.is_none() && totals().next().is_none() {
            return None;
        }
        let named = |a: &CheckedArg| {
            totals().any(|(c, per)| a.name == c.arg || per.as_ref().is_some_and(|p| a.name == *p))
        };
        Some(Tally {
            index: s.index,
            tool_name: s.tool_name.clone(),
            tool_span: s.tool_span,
            args: s.args.iter().filter(|a| named(a)).cloned().collect(),
        })
    }

    fn arg(&self, name: &str) -> Option<&CheckedArg> {
        self.args.iter().find(|a| a.name == name)
    }
}
