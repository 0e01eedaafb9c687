//! Authorization: the policy's rule for each step, its scopes, approval and
//! ceilings (errors over literals, guards over references).

use super::*;

impl<'a> Checker<'a, '_> {
    pub(super) fn check_policy(&mut self, i: usize, tool: &Tool, args: &[CheckedArg]) -> Authz {
        let mut authz = Authz::default();
        let Some(step) = self.heads.get(i).cloned() else {
            return authz;
        };
        let step = &step;
        let Some(policy) = self.env.policy else {
            let d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!("`{}` is not permitted: no policy is in force", tool.name),
            )
            .with_label("denied by default")
            .with_help("declare a `policy` that names the tools this actor may call (or pass one); without a policy every tool is denied");
            self.report(i, d);
            return authz;
        };
        let Some(rule) = policy.rule(&tool.name) else {
            let rules: Vec<&str> = policy.tool_names().collect();
            let near = self.env.nearest(&tool.name, rules.iter().copied());
            let mut d = Diagnostic::new(
                Code::E0301,
                step.tool.span,
                format!(
                    "`{}` is not permitted by policy `{}`",
                    tool.name, policy.name
                ),
            )
            .with_label("the policy does not name this tool")
            .with_secondary(
                policy.name_span,
                format!("policy `{}` is declared here", policy.name),
            );
            match near.first().and_then(|n| policy.rule(n)) {
                Some(r) if self.env.catalog.get(&r.tool).is_none() => {
                    d = d
                        .with_secondary(
                            r.tool_span,
                            format!("the policy names `{}`, which no tool is called", r.tool),
                        )
                        .with_help(format!(
                            "if the rule for `{}` is meant for this tool, correct its name to `{}`",
                            r.tool, tool.name
                        ));
                }
                _ => {
                    d = d.with_help(format!(
                        "a tool the policy does not name is denied: add a rule for `{}` to policy `{}`, or use a permitted tool",
                        tool.name, policy.name
                    ));
                }
            }
            self.report(i, d);
            return authz;
        };
        authz.scopes = self
            .scope_lists
            .entry(rule.tool.as_str())
            .or_insert_with(|| rule.requires.iter().map(|s| s.node.clone()).collect())
            .clone();
        let missing: Vec<&Spanned<Str>> = rule
            .requires
            .iter()
            .filter(|s| !policy::holds(self.env.actor, &s.node))
            .collect();
        authz.permitted = missing.is_empty();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.node.as_str()).collect();
            let mut d = Diagnostic::new(
                Code::E0302,
                step.tool.span,
                format!(
                    "the actor lacks {} {}, which `{}` requires",
                    plural(names.len(), "scope", "scopes"),
                    list_names(&names),
                    tool.name
                ),
            )
            .with_label(format!("needs {}", list_names(&names)));
            for s in &missing {
                d = d.with_secondary(
                    s.span,
                    format!("`{}` is required here, by policy `{}`", s.node, policy.name),
                );
            }
            d = d.with_note(if self.env.actor.is_empty() {
                "the actor holds no scopes".to_string()
            } else {
                format!("the actor holds {}", list_names(self.env.actor))
            });
            d = d.with_help(format!(
                "run the plan as an actor that holds {}, or use a tool this actor may call",
                list_names(&names)
            ));
            self.report(i, d);
        }
        if let Some(span) = rule.approval {
            authz.approval = Some(ast::Approval::Human);
            let d = Diagnostic::new(
                Code::N0301,
                step.tool.span,
                format!("step `{}` needs a person's approval before the run starts", step.name.node),
            )
            .with_label("approval human")
            .with_secondary(span, format!("required here, by policy `{}`", policy.name))
            .with_note("the IR lists the step under `approvals`: a reviewer approves the plan, not the steps one by one");
            self.report(i, d);
        }
        for c in &rule.ceilings {
            let Some(limit) = &c.limit else { continue };
            let origin = PolicyNamed(&policy.name);
            let Some(arg) = args.iter().find(|a| a.name == c.arg) else {
                // Absent, with no default: the executor would call the tool
                // without the argument, and the tool decide what that means
                // (a refund of the whole order). A required parameter is
                // already reported missing (E0103); an optional one under a
                // ceiling must be given.
                if let Some(p) = tool.param(&c.arg)
                    && !p.required()
                {
                    self.ceiling_absent(i, step, p, ("ceiling", &c.text()), c.span, &origin);
                }
                continue;
            };
            if arg.value.ty.is_error() || matches!(arg.value.kind, ValueKind::Error) {
                continue;
            }
            // A reused step's artifact has a recorded value: it will not
            // change (it was observed), so it is decided now, as a literal.
            if let Some((v, by, at)) = self.reused_literal(i, &arg.value) {
                match v.satisfies(c.op, limit) {
                    Some(true) => {}
                    Some(false) => {
                        let d = ceiling_breach(step, arg, &v, c, &origin);
                        let recorded = format!(
                            "step `{by}` recorded `{}`: it is reused, not run again",
                            v.display()
                        );
                        let d = match at {
                            Some(at) => d.with_secondary(at, recorded),
                            None => d.with_note(recorded),
                        };
                        self.report(i, d);
                    }
                    None => self.ceiling_incomparable(i, step, arg, &arg.value.ty, c, &origin),
                }
                // Its reference keeps the guard it has without a record
                // (silently): the IR of a plan compiled against its own
                // record is that plan's, by its plan fingerprint
                // (`docs/ir.md`), and the executor checks the value again.
                if !arg.value.references().is_empty() && may_compare(&arg.value.ty, limit) {
                    planc_lang::push_sparse(&mut authz.guards, ceiling_guard(c, limit));
                }
                continue;
            }
            match &arg.value.kind {
                ValueKind::Literal(v) => match v.satisfies(c.op, limit) {
                    Some(true) => {}
                    Some(false) => {
                        let d = ceiling_breach(step, arg, v, c, &origin);
                        self.report(i, d);
                    }
                    None => self.ceiling_incomparable(i, step, arg, &arg.value.ty, c, &origin),
                },
                _ if arg.value.references().is_empty() => {
                    // A list, a record or a string built of literals only:
                    // nothing a guard could bind, and not a value a ceiling
                    // compares.
                    self.ceiling_incomparable(i, step, arg, &arg.value.ty, c, &origin);
                }
                _ if !may_compare(&arg.value.ty, limit) => {
                    self.ceiling_incomparable(i, step, arg, &arg.value.ty, c, &origin);
                }
                _ => {
                    // The guard always goes into the IR: a proof from the
                    // declared result type silences the note, never the
                    // guard, because the executor sees the tool's actual
                    // result, not its declaration.
                    planc_lang::push_sparse(&mut authz.guards, ceiling_guard(c, limit));
                    if provably_within(&arg.value.ty, c.op, limit) {
                        continue;
                    }
                    let d = guarded_at_dispatch(
                        &self.heads,
                        arg,
                        ("ceiling", &c.text()),
                        c.span,
                        &origin,
                    );
                    self.report(i, d);
                }
            }
        }
        self.check_conditions(i, step, tool, rule, args, &mut authz);
        authz
    }

    /// E0103: an optional argument under a ceiling or a rule (`text`,
    /// declared at `at`), left out, with no default to check.
    pub(super) fn ceiling_absent(
        &mut self,
        i: usize,
        step: &StepHead,
        p: &catalog::Param,
        (kind, text): (&str, &str),
        at: Span,
        origin: &dyn fmt::Display,
    ) {
        let d = Diagnostic::new(
            Code::E0103,
            step.tool.span,
            format!(
                "`{}` must be given: the {kind} `{text}` of {origin} is over it, and it has no default",
                p.name,
            ),
        )
        .with_label(format!("`{}` is left out", p.name))
        .with_secondary(at, format!("{kind} declared here, in {origin}"))
        .with_secondary(p.name_span, format!("`{}` is declared here, optional", p.name))
        .with_help(format!(
            "give `{}` a value within `{text}`: left out, the tool decides what it means, and no {kind} can be checked",
            p.name,
        ));
        self.report(i, d);
    }

    /// E0303: a value under a ceiling that cannot be compared with its
    /// limit (a string, a boolean or `null` under a numeric ceiling on an
    /// `any` parameter, a list): not within it, so refused.
    fn ceiling_incomparable(
        &mut self,
        i: usize,
        step: &StepHead,
        arg: &CheckedArg,
        ty: &Ty,
        c: &policy::CeilingRule,
        origin: &dyn fmt::Display,
    ) {
        let shown = match &arg.value.kind {
            ValueKind::Literal(v) => format!("`{}`", v.display()),
            _ => format!("a value of type `{ty}`"),
        };
        let (limit, kind) = match &c.limit {
            Some(l) => (format!("`{}`", l.display()), kind_of(l)),
            None => ("the limit".to_string(), "a value"),
        };
        let d = Diagnostic::new(
            Code::E0303,
            ceiling_at(arg),
            format!(
                "{} cannot be compared with the ceiling `{}` of {origin}",
                given(arg, &shown),
                c.text()
            ),
        )
        .with_label(format!("cannot be compared with {limit}"))
        .with_secondary(c.span, format!("ceiling declared here, in {origin}"))
        .with_help(format!(
            "a value that cannot be compared with the limit is not within it: pass {kind} within `{}`",
            c.text()
        ));
        self.report(i, default_label(d, step, arg));
    }
}

/// The guard that checks ceiling `c` at dispatch.
fn ceiling_guard(c: &policy::CeilingRule, limit: &Value) -> Guard {
    Guard {
        arg: c.arg.clone(),
        test: GuardTest::Cmp(c.op, limit.clone()),
        each: false,
        ceiling_span: c.span,
    }
}

/// E0303: a value known now (a literal, a default, a recorded value)
/// over a ceiling.
fn ceiling_breach(
    step: &StepHead,
    arg: &CheckedArg,
    v: &Value,
    c: &policy::CeilingRule,
    origin: &dyn fmt::Display,
) -> Diagnostic {
    let above = matches!(c.op, CmpOp::Le | CmpOp::Lt);
    let verb = if above { "exceeds" } else { "breaks" };
    let label = if arg.from_default {
        format!(
            "the default `{}` = `{}` is used here",
            arg.name,
            v.display()
        )
    } else if above {
        "above the ceiling".to_string()
    } else {
        "outside the ceiling".to_string()
    };
    let d = Diagnostic::new(
        Code::E0303,
        ceiling_at(arg),
        format!(
            "{} {verb} the ceiling `{}` of {origin}",
            given(arg, &format!("`{}`", v.display())),
            c.text()
        ),
    )
    .with_label(label)
    .with_secondary(c.span, format!("ceiling declared here, in {origin}"));
    default_label(d, step, arg).with_help(match &c.limit {
            Some(l) if above => format!(
                "the policy allows at most `{}` here: a larger value needs a change of policy, not of plan",
                l.display()
            ),
            _ => "change the value to one the policy allows".to_string(),
        })
}

/// An argument and its value as a ceiling's message names them: "`x` =
/// `5`", or, for a parameter the step leaves out, "`x` is left out, and
/// its default `5`" (the plan never wrote the value).
fn given(arg: &CheckedArg, shown: &str) -> String {
    if arg.from_default {
        format!("`{}` is left out, and its default {shown}", arg.name)
    } else {
        format!("`{}` = {shown}", arg.name)
    }
}

/// Where a diagnostic about an argument under a ceiling points: at the
/// value, or at the tool's parameter when the value is its default (the
/// step wrote nothing there: [`default_label`] labels the call).
fn ceiling_at(arg: &CheckedArg) -> Span {
    if arg.from_default {
        arg.name_span
    } else {
        arg.value.span
    }
}

/// Labels the call that leaves the parameter out and the default's
/// declaration, when the value is the parameter's default.
fn default_label(d: Diagnostic, step: &StepHead, arg: &CheckedArg) -> Diagnostic {
    if arg.from_default {
        d.with_secondary(
            step.tool.span,
            format!("called here without `{}`", arg.name),
        )
        .with_secondary(arg.value.span, "the default is declared here")
    } else {
        d
    }
}

/// Whether every value of `ty` satisfies `OP limit` by its declaration: an
/// enum whose every value does. Such a proof silences the N0302 note; the
/// guard stays in the IR all the same.
fn provably_within(ty: &Ty, op: CmpOp, limit: &Value) -> bool {
    match ty {
        Ty::Enum(values) => values
            .iter()
            .all(|v| Value::String(v.clone()).satisfies(op, limit) == Some(true)),
        Ty::Lit(v) => v.satisfies(op, limit) == Some(true),
        Ty::Union(members) => members.iter().all(|m| provably_within(m, op, limit)),
        _ => false,
    }
}

/// Whether a value of type `ty` may compare with `limit` at all: `false`
/// only when no value of the type can (a string under a numeric ceiling),
/// which would be a call the guard refuses every time. `null` is left to
/// the guard: an optional binding may hold a value.
fn may_compare(ty: &Ty, limit: &Value) -> bool {
    if matches!(limit, Value::Null) {
        // `== null`, `!= null`: every value compares (an ordering against
        // `null` compares nothing, and its guard refuses).
        return true;
    }
    let numeric = matches!(limit, Value::Int(_) | Value::Decimal(_));
    match ty.strip_optional() {
        Ty::Any | Ty::Error => true,
        Ty::Int | Ty::Decimal => numeric,
        Ty::Date => matches!(limit, Value::Date(_)),
        Ty::Datetime => matches!(limit, Value::Datetime(_)),
        Ty::String | Ty::Enum(_) => matches!(limit, Value::String(_)),
        Ty::Bool => matches!(limit, Value::Bool(_)),
        Ty::Null => matches!(limit, Value::Null),
        Ty::Lit(v) => v.compare(limit).is_some(),
        // The guard refuses the members that cannot compare at run time.
        Ty::Union(members) => members.iter().any(|m| may_compare(m, limit)),
        Ty::List(_) | Ty::Record(_) | Ty::Map(_) => false,
        Ty::Optional(_) => true,
    }
}

/// What kind of value compares with `limit`, for a help line.
fn kind_of(limit: &Value) -> &'static str {
    match limit {
        Value::Int(_) | Value::Decimal(_) => "a number",
        Value::Date(_) => "a date",
        Value::Datetime(_) => "a datetime",
        Value::String(_) => "a string",
        Value::Bool(_) => "a boolean",
        Value::Null => "`null`",
    }
}

/// N0302: a ceiling or a rule (`kind`, `text`, declared at `at`) over a
/// referenced argument, enforced by a guard at dispatch.
pub(super) fn guarded_at_dispatch(
    heads: &[StepHead],
    arg: &CheckedArg,
    (kind, text): (&str, &str),
    at: Span,
    origin: &dyn fmt::Display,
) -> Diagnostic {
    let from = match arg.value.references().first() {
        Some(r) => format!(
            "its value comes from `{}`, bound by step `{}`",
            r.binding,
            name_in(heads, r.step)
        ),
        None => "its value is not a single literal".to_string(),
    };
    Diagnostic::new(
        Code::N0302,
        arg.value.span,
        format!(
            "the {kind} `{text}` over `{}` is enforced at dispatch: {from}",
            arg.name
        ),
    )
    .with_label("checked by a guard after binding")
    .with_secondary(at, format!("{kind} declared here, in {origin}"))
    .with_note(
        "the IR carries the guard; the executor refuses the call when the bound value breaks it",
    )
}

/// "policy `NAME`", for the messages of a ceiling; spelt only when one is
/// reported.
pub(super) struct PolicyNamed<'a>(pub(super) &'a str);

impl fmt::Display for PolicyNamed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "policy `{}`", self.0)
    }
}
